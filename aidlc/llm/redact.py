"""The provider wrapper that keeps secrets from ever reaching a model, a cassette or a log.

`Redacting(provider)` applies aidlc.redaction to every message and tool call before the inner provider (and
the recorder inside it) sees them, to the answer, and to error messages on the way out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aidlc.llm.base import Completion, Message, Provider
from aidlc.llm.errors import LLMError
from aidlc.redaction import Redactor


def redacted_message(redactor: Redactor, message: Message) -> Message:
    """`message` with its text and its tool calls' arguments redacted."""
    calls = tuple(replace(c, arguments=redactor(c.arguments)) for c in message.tool_calls)
    return replace(message, content=redactor(message.content), tool_calls=calls)


def redacted_completion(redactor: Redactor, completion: Completion) -> Completion:
    """`completion` with its text and its tool calls' arguments redacted."""
    calls = tuple(replace(c, arguments=redactor(c.arguments)) for c in completion.tool_calls)
    return replace(completion, text=redactor(completion.text), tool_calls=calls)


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
        clean = [redacted_message(self.redactor, m) for m in messages]
        try:
            answer = self.inner.complete(clean, max_tokens=max_tokens, temperature=temperature,
                                         response_format=self.redactor.value(response_format),
                                         tools=self.redactor.value(tools), timeout_s=timeout_s)
        except LLMError as exc:
            # Servers echo parts of the request in their errors; the message goes to a terminal or a log.
            exc.message = self.redactor(exc.message)
            exc.args = (exc.message,)
            exc.next_steps = [self.redactor(step) for step in exc.next_steps]
            if isinstance(getattr(exc, "raw", None), str):
                exc.raw = self.redactor(exc.raw)  # type: ignore[attr-defined]  # only some provider errors carry raw
            raise
        return redacted_completion(self.redactor, answer)
