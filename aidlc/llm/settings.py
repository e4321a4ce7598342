"""The LLM settings a command runs with, and who chose each of them.

Precedence, key by key: flags > AIDLC_LLM_* variables > the user config file > the repository's aidlc.yaml.

    AIDLC_LLM_PROVIDER     openai | anthropic | replay
    AIDLC_LLM_MODEL        a model name
    AIDLC_LLM_BASE_URL     an http(s) URL (for provider replay: the cassette)
    AIDLC_LLM_API_KEY_ENV  the variable that holds the key
    AIDLC_LLM_TIMEOUT      seconds per call, more than 0 and at most a day
    AIDLC_LLM_RECORD=FILE  record every answer into FILE (a cassette, aidlc.llm.replay)
    AIDLC_LLM_REPLAY=FILE  answer only from FILE; no network at all

A variable that is set must make sense: empty, `abc`, `-1`, `nan`, `inf` are configuration errors
(exit 2) naming the variable, its value and what is expected, never a traceback or a hang.

Each resolved `Target` remembers who set each of its keys (`origin`): a base_url or api_key_env
that only the repository chose is not the user's word (aidlc.llm.trust decides what that may send).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from aidlc.llm.errors import LLMConfigError
from aidlc.model.config import LLMConfig, LLMTarget

ENV_PROVIDER = "AIDLC_LLM_PROVIDER"
ENV_MODEL = "AIDLC_LLM_MODEL"
ENV_BASE_URL = "AIDLC_LLM_BASE_URL"
ENV_API_KEY_ENV = "AIDLC_LLM_API_KEY_ENV"
ENV_TIMEOUT = "AIDLC_LLM_TIMEOUT"
ENV_RECORD = "AIDLC_LLM_RECORD"
ENV_REPLAY = "AIDLC_LLM_REPLAY"
PROVIDERS = ("openai", "anthropic", "replay")
MAX_TIMEOUT_S = 86_400.0  # a day: longer is no timeout at all (and past ~1e9 s the socket layer overflows)
REPOSITORY = "aidlc.yaml"  # the origin of what the repository's config file says
KEYS = ("provider", "model", "base_url", "api_key_env")
_ENV_OF = {"provider": ENV_PROVIDER, "model": ENV_MODEL, "base_url": ENV_BASE_URL, "api_key_env": ENV_API_KEY_ENV}
_FLAG_OF = {"provider": "--provider", "model": "--model", "base_url": "--base-url", "api_key_env": "--api-key-env"}
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class EnvSettings:
    """The AIDLC_LLM_* variables, checked."""

    targets: dict[str, str] = field(default_factory=dict)  # provider/model/base_url/api_key_env that are set
    timeout_s: float | None = None
    record: str | None = None
    replay: str | None = None


@dataclass(frozen=True)
class Target:
    """One target to build, and who set each of its keys: a flag (--base-url), a variable
    (AIDLC_LLM_BASE_URL), the user config file (its path) or the repository (REPOSITORY)."""

    spec: LLMTarget
    origin: Mapping[str, str]
    where: str = "llm"  # llm | llm.fallback[N]: where aidlc.yaml would say it

    def by_repository(self, key: str) -> bool:
        return self.origin.get(key) == REPOSITORY


def read_env(env: Mapping[str, str]) -> EnvSettings:
    """Every AIDLC_LLM_* variable that is set, checked; LLMConfigError names the first that makes no sense."""
    targets = {key: _env_text(env, name) for key, name in _ENV_OF.items() if name in env}
    if "provider" in targets and targets["provider"] not in PROVIDERS:
        raise _bad(ENV_PROVIDER, targets["provider"], f"one of {', '.join(PROVIDERS)}")
    if "api_key_env" in targets and not _VARIABLE.fullmatch(targets["api_key_env"]):
        raise _bad(ENV_API_KEY_ENV, targets["api_key_env"], "the name of an environment variable, e.g. OPENAI_API_KEY")
    timeout = check_timeout(_env_text(env, ENV_TIMEOUT), ENV_TIMEOUT) if ENV_TIMEOUT in env else None
    return EnvSettings(targets, timeout,
                       _env_text(env, ENV_RECORD) if ENV_RECORD in env else None,
                       _env_text(env, ENV_REPLAY) if ENV_REPLAY in env else None)


def check_timeout(raw: str | float, source: str) -> float:
    """Seconds per call from a flag or a variable: a finite number in (0, MAX_TIMEOUT_S]."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = math.nan
    if not 0 < value <= MAX_TIMEOUT_S:  # false for nan too
        raise _bad(source, raw, f"a number of seconds more than 0 and at most {MAX_TIMEOUT_S:.0f} (a day), e.g. 120")
    return value


def resolve(llm: LLMConfig, *, flags: Mapping[str, str | None], env: EnvSettings, user: LLMConfig,
            user_origin: str) -> list[Target]:
    """The primary target, then the fallback targets, each key taken from the strongest source that sets it.

    `llm` is the repository's aidlc.yaml section, `user` the user config file's (`user_origin` names it).
    The fallback list comes whole from the user config if it has one, else from aidlc.yaml; a fallback of
    the primary's provider that names no base_url / api_key_env inherits the primary's (and who set it).
    """
    flags_set = {k: v for k, v in flags.items() if v}
    # Each layer: what it says, and who says it (one name per key, or one name for all its keys).
    layers: list[tuple[Mapping[str, object], Mapping[str, str] | str]] = [
        (flags_set, _FLAG_OF), (env.targets, _ENV_OF), (_written(user), user_origin), (_written(llm), REPOSITORY)]
    values: dict[str, object] = {}
    origin: dict[str, str] = {}
    for written, names in layers:
        for key, value in written.items():
            if key not in values:
                values[key] = value
                origin[key] = names if isinstance(names, str) else names[key]
    if origin.get("base_url") == _FLAG_OF["base_url"] and "provider" not in flags_set and values.get("provider") == \
            "replay" and urlsplit(str(values["base_url"])).scheme in ("http", "https"):
        # A server named on the command line is asked, even where the configuration replays a cassette.
        values["provider"], origin["provider"] = "openai", _FLAG_OF["base_url"]
    primary = _checked(Target(LLMTarget.model_validate(values), origin))
    if "fallback" in user.model_fields_set:
        fallback, fallback_origin = user.fallback, user_origin
    else:
        fallback, fallback_origin = llm.fallback, REPOSITORY
    targets = [primary]
    for index, spec in enumerate(fallback):
        own = Target(spec, {key: fallback_origin for key in spec.model_fields_set}, f"llm.fallback[{index}]")
        targets.append(_checked(_inherit(primary, own)))
    return targets


def _written(llm: LLMConfig) -> dict[str, object]:
    """What a config file actually says (its defaults are nobody's choice)."""
    return llm.model_dump(exclude_unset=True, include=set(KEYS))


def _inherit(primary: Target, fallback: Target) -> Target:
    if fallback.spec.provider != primary.spec.provider:
        return fallback
    keys = [key for key in ("base_url", "api_key_env") if key not in fallback.spec.model_fields_set
            and (key == "base_url" or key in primary.spec.model_fields_set)]
    if not keys:
        return fallback
    written: dict[str, object] = fallback.spec.model_dump(exclude_unset=True)
    written.update({key: getattr(primary.spec, key) for key in keys})
    spec = LLMTarget.model_validate(written)
    origin = dict(fallback.origin)
    origin.update({key: primary.origin[key] for key in keys if key in primary.origin})
    return Target(spec, origin, fallback.where)


def _checked(target: Target) -> Target:
    """A base_url that is no http(s) URL (a cassette path for provider replay) and a key variable that is
    no variable name are configuration errors naming who set them."""
    spec = target.spec
    if spec.base_url is not None and spec.provider != "replay":
        try:
            parts = urlsplit(spec.base_url)
            usable = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:  # an unclosed IPv6 bracket: "http://[::1"
            usable = False
        if not usable:
            raise _bad(_named(target, "base_url"), spec.base_url, "an http(s) URL, e.g. http://localhost:11434/v1")
    if not _VARIABLE.fullmatch(spec.api_key_env):
        raise _bad(_named(target, "api_key_env"), spec.api_key_env,
                   "the name of an environment variable, e.g. OPENAI_API_KEY")
    if not spec.model.strip() or _CONTROL.search(spec.model):
        raise _bad(_named(target, "model"), spec.model, "a model name, e.g. gpt-4.1-mini")
    return target


def _named(target: Target, key: str) -> str:
    """How to name a setting in a message: the flag or variable, or `llm.KEY in FILE`."""
    source = target.origin.get(key, REPOSITORY)
    if source.startswith(("-", "AIDLC_")):
        return source
    return f"{target.where}.{key} in {source}"


def _env_text(env: Mapping[str, str], name: str) -> str:
    value = env[name]
    if not value.strip():
        raise LLMConfigError(f"{name} is set but empty",
                             [f"unset {name}, or give it a value (see `aidlc llm check --help`)"])
    if _CONTROL.search(value):
        raise _bad(name, value, "one line of text without control characters")
    return value.strip()


def _bad(source: str, value: object, expected: str) -> LLMConfigError:
    if source.startswith("AIDLC_"):
        fix = f"export {source}=...   # {expected}; or unset it"
    elif source.startswith("-"):
        fix = f"{source} ...   # {expected}"
    else:
        fix = f"correct {source}"
    return LLMConfigError(f"{source}={value!r} makes no sense: expected {expected}", [fix])
