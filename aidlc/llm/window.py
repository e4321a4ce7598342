"""What an OpenAI-compatible server says about its context window, read from the answers of two GETs.

Asked only after an answer was cut short of max_tokens (aidlc.llm.diagnosis needs the window to say
what cut it), once per target, by the provider that talks to the server (same host, same key):

* `GET {base_url}/models`: vLLM gives `max_model_len` per model; llama.cpp's llama-server gives `meta`
  with `n_ctx_train` (the model's trained context; the server may run with less) and, in some
  versions, `n_ctx`.
* `GET {server root}/props` (llama-server): `default_generation_settings.n_ctx`, the context each
  slot runs with.

Anything else (404, HTML, JSON of another shape, absurd numbers) tells nothing: None, never an error.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from aidlc.llm.base import ContextWindow

PROBE_TIMEOUT_S = 3.0  # a server that just answered a completion answers a GET at once, or not at all
_MAX_SANE = 100_000_000


def props_url(base_url: str) -> str:
    """llama-server's /props beside its /v1: same scheme, host and port as `base_url` (so the same key may go)."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    path = path[: -len("/v1")] if path.endswith("/v1") else path
    return urlunsplit((parts.scheme, parts.netloc, f"{path}/props", "", ""))


def from_models(text: str | None, model: str) -> ContextWindow | None:
    """The window of `model` (or of the only model listed) in a /models answer."""
    data = _json(text)
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    entries = [e for e in entries if isinstance(e, dict)]
    chosen = [e for e in entries if e.get("id") == model] or (entries if len(entries) == 1 else [])
    if not chosen:
        return None
    entry = chosen[0]
    meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
    if (tokens := _tokens(entry.get("max_model_len"))) is not None:
        return ContextWindow(tokens, "GET /models max_model_len")
    if (tokens := _tokens(meta.get("n_ctx"))) is not None:
        return ContextWindow(tokens, "GET /models meta.n_ctx")
    if (tokens := _tokens(meta.get("n_ctx_train"))) is not None:
        return ContextWindow(tokens, "GET /models meta.n_ctx_train", trained=True)
    return None


def from_props(text: str | None) -> ContextWindow | None:
    data = _json(text)
    settings = data.get("default_generation_settings") if isinstance(data, dict) else None
    if isinstance(settings, dict) and (tokens := _tokens(settings.get("n_ctx"))) is not None:
        return ContextWindow(tokens, "GET /props default_generation_settings.n_ctx")
    return None


def best(*found: ContextWindow | None) -> ContextWindow | None:
    """The server's own window before the model's trained one."""
    known = [w for w in found if w is not None]
    return next((w for w in known if not w.trained), known[0] if known else None)


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _tokens(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < _MAX_SANE else None
