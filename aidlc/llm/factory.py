"""Building the provider a command talks to, from aidlc.yaml, environment and flags.

    provider = provider_from_config(config.llm, model=flag_model, record=flag_record)

Precedence for the primary target: keyword arguments (CLI flags) > environment > aidlc.yaml.

    AIDLC_LLM_PROVIDER, AIDLC_LLM_MODEL, AIDLC_LLM_BASE_URL, AIDLC_LLM_TIMEOUT (seconds)
    AIDLC_LLM_RECORD=FILE   record every answer into FILE (a cassette, aidlc.llm.replay)
    AIDLC_LLM_REPLAY=FILE   answer only from FILE; no network at all

The result is always wrapped the same way, outermost first:

    Redacting -> [Recorder] -> FallbackChain(primary, *llm.fallback) -> one provider each (own retries)

so nothing unredacted is sent or recorded, and the recording holds the chain's final answer.

Keys: each target reads its key from the environment variable `api_key_env` names. A missing
key is an LLMConfigError naming the variable, except for servers on this machine or a
dotless host (Ollama, llama.cpp, vLLM in a container), which ignore keys: they get "not-needed".
For `provider: anthropic` without an explicit `api_key_env`, ANTHROPIC_API_KEY is read.
A fallback entry of the same provider that gives no `base_url`/`api_key_env` inherits the
primary's (a smaller model on the same server is the common case).
For `provider: replay`, the cassette is --replay / AIDLC_LLM_REPLAY, else `base_url` (a path,
relative to the repository root).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlparse

from aidlc.llm.base import DEFAULT_TIMEOUT_S, Provider
from aidlc.llm.chain import Degradation, FallbackChain
from aidlc.llm.errors import LLMConfigError
from aidlc.llm.redact import Redacting, Redactor
from aidlc.llm.replay import Recorder, ReplayProvider
from aidlc.llm.retry import RetryPolicy
from aidlc.model.config import LLMConfig, LLMTarget

ENV_PROVIDER = "AIDLC_LLM_PROVIDER"
ENV_MODEL = "AIDLC_LLM_MODEL"
ENV_BASE_URL = "AIDLC_LLM_BASE_URL"
ENV_TIMEOUT = "AIDLC_LLM_TIMEOUT"
ENV_RECORD = "AIDLC_LLM_RECORD"
ENV_REPLAY = "AIDLC_LLM_REPLAY"
PROVIDERS = ("openai", "anthropic", "replay")
NO_KEY = "not-needed"  # local servers ignore the key, but the SDKs insist on one


def resolve_target(llm: LLMConfig, *, provider: str | None = None, model: str | None = None,
                   base_url: str | None = None, env: Mapping[str, str] | None = None) -> LLMTarget:
    """The primary target after flags and environment are applied."""
    env = os.environ if env is None else env
    chosen = provider or env.get(ENV_PROVIDER) or llm.provider
    if chosen not in PROVIDERS:
        raise LLMConfigError(f"unknown LLM provider '{chosen}' (expected one of: {', '.join(PROVIDERS)})",
                             ["set llm.provider in aidlc.yaml, --provider or AIDLC_LLM_PROVIDER"])
    updates: dict[str, object] = {"provider": chosen}
    if model or env.get(ENV_MODEL):
        updates["model"] = model or env[ENV_MODEL]
    if base_url or env.get(ENV_BASE_URL):
        updates["base_url"] = base_url or env[ENV_BASE_URL]
    # exclude_unset keeps "was it written in aidlc.yaml?" visible (model_fields_set) for the defaults below.
    return LLMTarget.model_validate({**llm.model_dump(exclude={"fallback"}, exclude_unset=True), **updates})


def provider_from_config(llm: LLMConfig, *, provider: str | None = None, model: str | None = None,
                         base_url: str | None = None, record: str | Path | None = None,
                         replay: str | Path | None = None, timeout_s: float | None = None,
                         root: Path | None = None, env: Mapping[str, str] | None = None,
                         retry: RetryPolicy | None = None,
                         on_degrade: Callable[[Degradation], None] | None = None) -> Provider:
    """The provider stack for `llm` (see the module docstring). Raises LLMConfigError when it cannot work."""
    env = os.environ if env is None else env
    redactor = Redactor(env)
    primary = resolve_target(llm, provider=provider, model=model, base_url=base_url, env=env)
    timeout = timeout_s or _env_float(env, ENV_TIMEOUT) or DEFAULT_TIMEOUT_S
    cassette = replay or env.get(ENV_REPLAY)
    if cassette or primary.provider == "replay":
        path = Path(cassette) if cassette else _replay_path(primary, root)
        inner: Provider = ReplayProvider(path)
    else:
        targets = [primary, *(_inherit(primary, f) for f in llm.fallback)]
        inner = FallbackChain([build_target(t, timeout_s=timeout, env=env, retry=retry, root=root) for t in targets],
                              on_degrade)
    recording = record or env.get(ENV_RECORD)
    if recording:
        inner = Recorder(inner, Path(recording), redactor)
    return Redacting(inner, redactor)


def build_target(target: LLMTarget, *, timeout_s: float = DEFAULT_TIMEOUT_S, env: Mapping[str, str] | None = None,
                 retry: RetryPolicy | None = None, root: Path | None = None) -> Provider:
    """One provider for one target, with its own retry loop (no redaction, no recording: see provider_from_config)."""
    env = os.environ if env is None else env
    if target.provider == "replay":
        return ReplayProvider(_replay_path(target, root))
    key = api_key(target, env)
    if target.provider == "anthropic":
        from aidlc.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider(target.model, api_key=key, base_url=target.base_url, timeout_s=timeout_s,
                                 retry=_fresh(retry))
    from aidlc.llm.openai_provider import OpenAIProvider

    return OpenAIProvider(target.model, api_key=key, base_url=target.base_url, timeout_s=timeout_s,
                          retry=_fresh(retry))


def api_key(target: LLMTarget, env: Mapping[str, str]) -> str:
    name = key_env(target)
    value = env.get(name, "").strip()
    if value:
        return value
    if is_local(target.base_url):
        return NO_KEY
    where = target.base_url or f"the {target.provider} API"
    raise LLMConfigError(f"no API key for {where}: the environment variable {name} is not set",
                         [f"export {name}=...    # the key for {where}",
                          "set llm.api_key_env in aidlc.yaml to the variable that holds it",
                          "or use a local server: aidlc llm check --base-url http://localhost:11434/v1"])


def key_env(target: LLMTarget) -> str:
    if target.provider == "anthropic" and "api_key_env" not in target.model_fields_set:
        return "ANTHROPIC_API_KEY"
    return target.api_key_env


def is_local(base_url: str | None) -> bool:
    """A server on this machine or a dotless host (a container on the same network): keys are not checked."""
    if not base_url:
        return False
    host = (urlparse(base_url).hostname or "").lower()
    return (host in ("localhost", "0.0.0.0", "::1") or host.startswith("127.") or host.endswith(".localhost")
            or host.endswith(".local") or (bool(host) and "." not in host and ":" not in host))


def _inherit(primary: LLMTarget, fallback: LLMTarget) -> LLMTarget:
    if fallback.provider != primary.provider:
        return fallback
    updates: dict[str, object] = {}
    if "base_url" not in fallback.model_fields_set:
        updates["base_url"] = primary.base_url
    if "api_key_env" not in fallback.model_fields_set and "api_key_env" in primary.model_fields_set:
        updates["api_key_env"] = primary.api_key_env
    if not updates:
        return fallback
    return LLMTarget.model_validate({**fallback.model_dump(exclude_unset=True), **updates})


def _replay_path(target: LLMTarget, root: Path | None) -> Path:
    if not target.base_url:
        raise LLMConfigError("provider replay needs a cassette",
                             ["aidlc llm check --provider replay --base-url CASSETTE.jsonl",
                              "or set AIDLC_LLM_REPLAY=CASSETTE.jsonl"])
    path = Path(target.base_url)
    return path if path.is_absolute() or root is None else root / path


def _fresh(retry: RetryPolicy | None) -> RetryPolicy | None:
    """Each target gets its own policy object, sharing the injected sleep and random source."""
    if retry is None:
        return None
    return RetryPolicy(retry.attempts, retry.base_s, retry.cap_s, retry.max_retry_after_s, retry.sleep, retry.rng)


def _env_float(env: Mapping[str, str], name: str) -> float | None:
    value = env.get(name)
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        raise LLMConfigError(f"{name}={value!r} is not a number of seconds") from None
