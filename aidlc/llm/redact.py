"""Secrets never leave the machine: redaction before anything is sent, recorded or logged.

Two sources of secrets:
* values of environment variables whose *name* looks secret (KEY, TOKEN, SECRET, PASSWORD,
  CREDENTIAL, PASSWD) and whose value has at least 8 characters (shorter values such as
  "1" or "true" would blank out ordinary words);
* well-known key shapes anywhere in the text: OpenAI/Anthropic `sk-...`, GitHub `ghp_...`/
  `github_pat_...`, AWS `AKIA...`, Slack `xox[bpas]-...`, PEM private keys, `Bearer ...` tokens.

A secret becomes `[REDACTED:<env name or kind>]`, which is stable across machines with different
secrets, so a cassette recorded on one machine replays on another.

`Redacting(provider)` applies this to every message and tool call before the inner provider (and
the recorder inside it) sees them, and to error messages on the way out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from aidlc.llm.base import Completion, Message, Provider
from aidlc.llm.errors import LLMError

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
MIN_SECRET_CHARS = 8

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private-key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
                               re.DOTALL)),
    ("api-key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("aws-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("slack-token", re.compile(r"\bxox[bpas]-[A-Za-z0-9-]{10,}")),
    ("bearer-token", re.compile(r"(?<=Bearer )[A-Za-z0-9\-._~+/]{16,}=*")),
]


class Redactor:
    """Replaces known secret values and key patterns in text."""

    def __init__(self, env: Mapping[str, str] | None = None, extra_values: Mapping[str, str] | None = None) -> None:
        source = os.environ if env is None else env
        values = {name: value for name, value in source.items()
                  if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_CHARS}
        values.update(extra_values or {})
        # Longest first, so a secret that contains another is replaced whole.
        self._values = sorted(((v, n) for n, v in values.items()), key=lambda pair: -len(pair[0]))

    def __call__(self, text: str) -> str:
        for value, name in self._values:
            if value in text:
                text = text.replace(value, f"[REDACTED:{name}]")
        for kind, pattern in PATTERNS:
            text = pattern.sub(f"[REDACTED:{kind}]", text)
        return text

    def message(self, message: Message) -> Message:
        calls = tuple(replace(c, arguments=self(c.arguments)) for c in message.tool_calls)
        return replace(message, content=self(message.content), tool_calls=calls)

    def completion(self, completion: Completion) -> Completion:
        calls = tuple(replace(c, arguments=self(c.arguments)) for c in completion.tool_calls)
        return replace(completion, text=self(completion.text), tool_calls=calls)

    def value(self, data: Any) -> Any:
        """Any JSON-like value, strings redacted wherever they are (tool definitions, schemas)."""
        if isinstance(data, str):
            return self(data)
        if isinstance(data, list):
            return [self.value(v) for v in data]
        if isinstance(data, dict):
            return {k: self.value(v) for k, v in data.items()}
        return data


class Redacting:
    """A provider wrapper: the inner provider only ever sees redacted text."""

    def __init__(self, inner: Provider, redactor: Redactor | None = None) -> None:
        self.inner = inner
        self.redactor = redactor or Redactor()

    @property
    def key(self) -> str:
        return self.inner.key

    def complete(self, messages: list[Message], *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: dict[str, Any] | None = None, tools: list[dict[str, Any]] | None = None,
                 timeout_s: float | None = None) -> Completion:
        clean = [self.redactor.message(m) for m in messages]
        try:
            answer = self.inner.complete(clean, max_tokens=max_tokens, temperature=temperature,
                                         response_format=self.redactor.value(response_format),
                                         tools=self.redactor.value(tools), timeout_s=timeout_s)
        except LLMError as exc:
            # Servers echo parts of the request in their errors; the message goes to a terminal or a log.
            exc.message = self.redactor(exc.message)
            exc.args = (exc.message,)
            if isinstance(getattr(exc, "raw", None), str):
                exc.raw = self.redactor(exc.raw)  # type: ignore[attr-defined]
            raise
        return self.redactor.completion(answer)
