"""Whose word sends a key where: a repository's aidlc.yaml is not the user's.

A key goes only
* to the provider's own endpoint, read from the provider's own variable (OPENAI_API_KEY to
  OpenAI's API, ANTHROPIC_API_KEY to Anthropic's); or
* where the user said: a base_url or api_key_env set by a flag, an AIDLC_LLM_* variable or the
  user config file (aidlc.llm.settings); or
* where the user trusted this repository to send it: `aidlc llm trust [URL]` records
  (repository, server, variable) in the user config file.
Otherwise a server on this machine (loopback) gets no key at all, and any other server is refused
with an LLMConfigError (exit 2) that names the host, the variable and the command to trust it.

A trust record names the repository by its absolute path *and* its root commit:
* the path alone would carry the trust to whatever later sits there (the repository deleted and
  another one cloned or unpacked in its place);
* the root commit alone is shared by every clone and fork, so trusting a project would trust a
  hostile fork anywhere on disk.
Together they pin one checkout of one project. A record also names one server and one variable,
so even a fork that takes the place of a trusted checkout can use only what the user allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from aidlc.llm.errors import LLMConfigError
from aidlc.llm.settings import EnvSettings, Target, resolve
from aidlc.llm.userconfig import UserFile, load_user_config, save_user_config
from aidlc.model.config import LLMConfig, LLMTarget
from aidlc.model.user_config import TrustedServer
from aidlc.names import arg
from aidlc.vcs import root_commit

DEFAULT_ENDPOINTS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
DEFAULT_KEY_ENVS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Route:
    """Where one target would send the key held in which variable, and what of that only aidlc.yaml chose."""

    where: str  # llm | llm.fallback[N]
    endpoint: str  # the base_url, or the provider's own endpoint
    key_env: str
    by_repository: tuple[str, ...]  # "base_url" and/or "api_key_env"

    @property
    def host(self) -> str:
        parts = urlsplit(self.endpoint)
        return f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)


def key_env(spec: LLMTarget) -> str:
    """The variable that holds the key: anthropic reads ANTHROPIC_API_KEY unless told otherwise."""
    if spec.provider == "anthropic" and "api_key_env" not in spec.model_fields_set:
        return DEFAULT_KEY_ENVS["anthropic"]
    return spec.api_key_env


def route(target: Target) -> Route:
    spec = target.spec
    endpoint = spec.base_url or DEFAULT_ENDPOINTS[spec.provider]
    chosen = []
    if target.by_repository("base_url") and not same_url(endpoint, DEFAULT_ENDPOINTS[spec.provider]):
        chosen.append("base_url")
    if target.by_repository("api_key_env") and key_env(spec) != DEFAULT_KEY_ENVS[spec.provider]:
        chosen.append("api_key_env")
    return Route(target.where, endpoint, key_env(spec), tuple(chosen))


def same_url(a: str, b: str) -> bool:
    return _normal(a) == _normal(b)


def _normal(url: str) -> tuple[str, ...]:
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is no number: compare as written
        port = None
    return (scheme, parts.username or "", parts.password or "", (parts.hostname or "").lower(), str(port),
            parts.path.rstrip("/"), parts.query)


def is_loopback(url: str) -> bool:
    """A server on this machine: nothing sent to it leaves the machine."""
    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.") or host.endswith(".localhost")


class Trust:
    """The user's trust records that apply to the repository at `root` (none without a root)."""

    def __init__(self, user: UserFile, root: Path | None) -> None:
        self.user = user
        self.root = root
        self._identity: tuple[str, str | None] | None = None

    @property
    def identity(self) -> tuple[str, str | None]:
        """(absolute path, root commit), computed once and only when a record must be looked up."""
        if self._identity is None:

            assert self.root is not None
            self._identity = (str(self.root.resolve()), root_commit(self.root))
        return self._identity

    def trusts(self, ask: Route) -> bool:
        if self.root is None or not self.user.config.trusted:
            return False
        path, commit = self.identity
        return any(record.repository == path and record.root_commit == commit and record.api_key_env == ask.key_env
                   and same_url(record.base_url, ask.endpoint) for record in self.user.config.trusted)

    def refusal(self, ask: Route) -> LLMConfigError:
        """Why the key may not go where aidlc.yaml sends it, and the three ways out."""
        if "base_url" in ask.by_repository:
            message = (f"aidlc.yaml ({ask.where}.base_url) would send your key in {ask.key_env} to {ask.host}, "
                       f"a server you did not choose")
            yours = (f"or choose the server yourself: --base-url URL, AIDLC_LLM_BASE_URL or llm.base_url in "
                     f"{self.user.shown}")
        else:
            message = (f"aidlc.yaml ({ask.where}.api_key_env) chooses which of your secrets is sent: the key in "
                       f"{ask.key_env} would go to {ask.host}")
            yours = (f"or choose the variable yourself: --api-key-env NAME, AIDLC_LLM_API_KEY_ENV or "
                     f"llm.api_key_env in {self.user.shown}")
        return LLMConfigError(f"{message}; a repository cannot send your keys where it likes", [
            f"aidlc llm trust {arg(ask.endpoint)}    # if you trust it with {ask.key_env}, for this repository only",
            yours,
            "or replay a recorded cassette, which needs no key: --replay FILE",
        ])


@dataclass
class TrustChange:
    repository: str
    root_commit: str | None
    config: str
    changed: list[TrustedServer]  # added (trust) or removed (revoke)
    kept: list[Route]  # already trusted (trust); unused by revoke


def asked(llm: LLMConfig, user: UserFile) -> list[Route]:
    """What aidlc.yaml asks that needs the user's word (the user config applies; flags and variables do not)."""
    targets = resolve(llm, flags={}, env=EnvSettings(), user=user.config.llm, user_origin=str(user.path))
    return [r for r in (route(t) for t in targets if t.spec.provider != "replay") if r.by_repository]


def trust(llm: LLMConfig, root: Path, env: Mapping[str, str], url: str | None = None) -> TrustChange:
    """Record that this repository may send what aidlc.yaml asks (only what goes to `url`, if given)."""
    user = load_user_config(env)
    asks = asked(llm, user)
    if url is not None:
        matching = [a for a in asks if same_url(a.endpoint, url)]
        if not matching:
            named = "; ".join(f"{a.where}: the key in {a.key_env} to {a.endpoint}" for a in asks)
            raise LLMConfigError(f"aidlc.yaml does not send a key to {url}" +
                                 (f" (it asks: {named})" if named else " (it asks nothing that needs your trust)"),
                                 ["aidlc llm trust    # trust everything aidlc.yaml asks, listed first"])
        asks = matching
    book = Trust(user, root)
    path, commit = book.identity
    now = datetime.now(UTC).replace(microsecond=0)
    added: list[TrustedServer] = []
    kept: list[Route] = []
    for ask in asks:
        if book.trusts(ask) or any(same_url(r.base_url, ask.endpoint) and r.api_key_env == ask.key_env
                                   for r in added):
            kept.append(ask)
            continue
        added.append(TrustedServer(repository=path, root_commit=commit, base_url=ask.endpoint,
                                   api_key_env=ask.key_env, trusted_at=now))
    if added:
        user.config = user.config.model_copy(update={"version": 1, "trusted": [*user.config.trusted, *added]})
        save_user_config(user)
    return TrustChange(path, commit, user.shown, added, kept)


def revoke(root: Path, env: Mapping[str, str], url: str | None = None) -> TrustChange:
    """Withdraw this repository's trust records (those for `url` only, if given), whatever its root commit."""
    user = load_user_config(env)
    path, commit = Trust(user, root).identity
    removed = [r for r in user.config.trusted if r.repository == path and (url is None or same_url(r.base_url, url))]
    if removed:
        user.config = user.config.model_copy(
            update={"version": 1, "trusted": [r for r in user.config.trusted if r not in removed]})
        save_user_config(user)
    return TrustChange(path, commit, user.shown, removed, [])
