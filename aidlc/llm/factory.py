"""Building the provider a command talks to, from aidlc.yaml, the user config, environment and flags.

    provider = provider_from_config(config.llm, model=flag_model, record=flag_record, root=repo_root)

Which settings win (flags > AIDLC_LLM_* > user config file > aidlc.yaml) and how nonsense in them
is reported: aidlc.llm.settings. The result is always wrapped the same way, outermost first:

    Redacting -> [Recorder] -> FallbackChain(primary, *llm.fallback) -> one provider each (own retries)

so nothing unredacted is sent or recorded, and the recording holds the chain's final answer.

Keys: each target reads its key from the environment variable `api_key_env` names, but only where
aidlc.llm.trust allows it: a repository's aidlc.yaml cannot send a key to a server, or choose a
variable, that the user did not choose or trust. A server on this machine that the user did not
choose gets no key; so does a local server (or a dotless host, a container on the same network)
when the variable is not set. Anywhere else a missing key is an LLMConfigError naming the variable.
For `provider: anthropic` without an explicit `api_key_env`, ANTHROPIC_API_KEY is read.
Replay needs no key: the cassette is --replay / AIDLC_LLM_REPLAY, else `base_url` for
`provider: replay` (a path relative to the repository root, which must stay inside it when the
repository names it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aidlc.llm.base import DEFAULT_TIMEOUT_S, Provider
from aidlc.llm.chain import Degradation, FallbackChain
from aidlc.llm.errors import LLMConfigError
from aidlc.llm.files import inside
from aidlc.llm.redact import Redacting
from aidlc.llm.replay import Recorder, ReplayProvider
from aidlc.llm.retry import RetryPolicy
from aidlc.llm.settings import Target, check_timeout, read_env, resolve
from aidlc.llm.trust import Trust, is_loopback, route
from aidlc.llm.userconfig import UserFile, load_user_config
from aidlc.model.config import DEFAULT_MAX_ANSWER_BYTES, LLMConfig, LLMTarget
from aidlc.redaction import Redactor


def resolve_targets(llm: LLMConfig, *, provider: str | None = None, model: str | None = None,
                    base_url: str | None = None, api_key_env: str | None = None,
                    env: Mapping[str, str] | None = None, fallback: bool = True) -> list[LLMTarget]:
    """The primary target, then (with `fallback`) the fallback targets, after flags, environment and the user
    config file."""
    env = os.environ if env is None else env
    return [t.spec for t in _targets(llm, _flags(provider, model, base_url, api_key_env), env, load_user_config(env),
                                     fallback)]


def resolve_target(llm: LLMConfig, **options: Any) -> LLMTarget:
    """The primary target (the options of `resolve_targets`)."""
    return resolve_targets(llm, **options)[0]


def provider_from_config(llm: LLMConfig, *, provider: str | None = None, model: str | None = None,
                         base_url: str | None = None, api_key_env: str | None = None,
                         record: str | Path | None = None, replay: str | Path | None = None,
                         timeout_s: float | None = None, root: Path | None = None,
                         env: Mapping[str, str] | None = None, retry: RetryPolicy | None = None,
                         on_degrade: Callable[[Degradation], None] | None = None,
                         fallback: bool = True) -> Provider:
    """The provider stack for `llm`, the repository's settings (see the module docstring); without `fallback`,
    the primary target alone. Raises LLMConfigError when it cannot work, or may not."""
    env = os.environ if env is None else env
    redactor = Redactor(env)
    try:
        return _stack(llm, _flags(provider, model, base_url, api_key_env), record, replay, timeout_s, root, env,
                      redactor, retry, on_degrade, fallback)
    except LLMConfigError as exc:  # it may quote a URL with a password, or a value that was a secret
        raise LLMConfigError(redactor(exc.message), [redactor(step) for step in exc.next_steps]) from None


def _stack(llm: LLMConfig, flags: dict[str, str | None], record: str | Path | None, replay: str | Path | None,
           timeout_s: float | None, root: Path | None, env: Mapping[str, str], redactor: Redactor,
           retry: RetryPolicy | None, on_degrade: Callable[[Degradation], None] | None,
           fallback: bool) -> Provider:
    settings = read_env(env)
    user = load_user_config(env)
    timeout = check_timeout(timeout_s, "--timeout") if timeout_s is not None else settings.timeout_s
    targets = _targets(llm, flags, env, user, fallback)
    cassette = replay or settings.replay
    if cassette:
        inner: Provider = ReplayProvider(Path(cassette))
    elif targets[0].spec.provider == "replay":
        inner = ReplayProvider(replay_path(targets[0], root))
    else:
        book = Trust(user, root)
        limit = user.config.llm.max_answer_bytes if "max_answer_bytes" in user.config.llm.model_fields_set \
            else llm.max_answer_bytes
        inner = FallbackChain([build_target(t, book, env, timeout_s=timeout or DEFAULT_TIMEOUT_S, retry=retry,
                                            root=root, max_answer_bytes=limit) for t in targets],
                              _redacted(on_degrade, redactor))
    recording = record or settings.record
    if recording:
        inner = Recorder(inner, Path(recording), redactor)
    return Redacting(inner, redactor)


def build_target(target: Target, trust: Trust, env: Mapping[str, str], *, timeout_s: float = DEFAULT_TIMEOUT_S,
                 retry: RetryPolicy | None = None, root: Path | None = None,
                 max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES) -> Provider:
    """One provider for one target, with its own retry loop (no redaction, no recording: see provider_from_config)."""
    spec = target.spec
    if spec.provider == "replay":
        return ReplayProvider(replay_path(target, root))
    key = api_key(target, trust, env)
    options: dict[str, Any] = {"api_key": key, "base_url": spec.base_url, "timeout_s": timeout_s,
                               "retry": _fresh(retry), "max_answer_bytes": max_answer_bytes}
    if spec.provider == "anthropic":
        # Only the chosen provider's module loads.
        from aidlc.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider(spec.model, **options)
    # Only the chosen provider's module loads.
    from aidlc.llm.openai_provider import OpenAIProvider

    return OpenAIProvider(spec.model, **options)


def api_key(target: Target, trust: Trust, env: Mapping[str, str]) -> str | None:
    """The key this target may send, or None for no key at all (see the module docstring)."""
    ask = route(target)
    if ask.by_repository and not trust.trusts(ask):
        if is_loopback(ask.endpoint):
            return None
        raise trust.refusal(ask)
    value = env.get(ask.key_env, "").strip()
    if value:
        return value
    if is_local(target.spec.base_url):
        return None
    where = target.spec.base_url or f"the {target.spec.provider} API"
    raise LLMConfigError(f"no API key for {where}: the environment variable {ask.key_env} is not set",
                         [f"export {ask.key_env}=...    # the key for {where}",
                          "or name the variable that holds it: --api-key-env NAME (also AIDLC_LLM_API_KEY_ENV)",
                          "or use a local server: aidlc llm check --base-url http://localhost:11434/v1"])


def is_local(base_url: str | None) -> bool:
    """A server on this machine or a dotless host (a container on the same network): keys are not checked."""
    if not base_url:
        return False
    host = (urlsplit(base_url).hostname or "").lower()
    return (is_loopback(base_url) or host == "0.0.0.0" or host.endswith(".local")
            or (bool(host) and "." not in host and ":" not in host))


def replay_path(target: Target, root: Path | None) -> Path:
    """The cassette `provider: replay` names; one the repository names must lie inside it (links resolved)."""
    if not target.spec.base_url:
        raise LLMConfigError("provider replay needs a cassette",
                             ["aidlc llm check --provider replay --base-url CASSETTE.jsonl",
                              "or set AIDLC_LLM_REPLAY=CASSETTE.jsonl"])
    path = Path(target.spec.base_url)
    path = path if path.is_absolute() or root is None else root / path
    if target.by_repository("base_url") and (root is None or not inside(path, root)):
        raise LLMConfigError(f"aidlc.yaml ({target.where}.base_url) names the cassette {target.spec.base_url}, "
                             f"which is outside the repository: it is not read",
                             ["keep the cassette inside the repository and name it by a relative path",
                              "or replay a cassette of your own: --replay FILE (also AIDLC_LLM_REPLAY)"])
    return path


def _flags(provider: str | None, model: str | None, base_url: str | None,
           api_key_env: str | None) -> dict[str, str | None]:
    return {"provider": provider, "model": model, "base_url": base_url, "api_key_env": api_key_env}


def _targets(llm: LLMConfig, flags: dict[str, str | None], env: Mapping[str, str], user: UserFile,
             fallback: bool = True) -> list[Target]:
    targets = resolve(llm, flags=flags, env=read_env(env), user=user.config.llm, user_origin=user.shown)
    return targets if fallback else targets[:1]


def _redacted(on_degrade: Callable[[Degradation], None] | None,
              redactor: Redactor) -> Callable[[Degradation], None] | None:
    """Degradation notices are printed: the failure they quote (a server's words) is redacted first."""
    if on_degrade is None:
        return None
    return lambda notice: on_degrade(replace(notice, reason=redactor(notice.reason)))


def _fresh(retry: RetryPolicy | None) -> RetryPolicy | None:
    """Each target gets its own policy object, sharing the injected sleep and random source."""
    if retry is None:
        return None
    return RetryPolicy(retry.attempts, retry.base_s, retry.cap_s, retry.max_retry_after_s, retry.sleep, retry.rng)

