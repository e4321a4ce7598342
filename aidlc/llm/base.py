"""The provider protocol: messages in; text, tool calls and token usage out.

A `Provider` is one configured *target* (provider + model + server), or a wrapper around one
(fallback chain, recorder, redaction). The model is part of the target, not of the call:
a fallback chain answers with another model, and the `Completion` says which one did.

    provider = provider_from_config(config.llm)          # aidlc.llm.factory
    answer = provider.complete([Message("system", ...), Message("user", ...)], max_tokens=512)
    answer.text, answer.usage.total, answer.degraded, answer.target

Everything here is plain data (dataclasses), JSON-serialisable with `to_dict`, so a
Completion can be recorded in a cassette or a run trace and read back identically.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from aidlc.redaction import without_password

Role = Literal["system", "user", "assistant", "tool"]

DEFAULT_TIMEOUT_S = 120.0  # local models on a laptop are slow; a hung server still ends


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text as the model wrote it: parsing (and refusing) it is the caller's job

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()  # assistant messages that called tools
    tool_call_id: str | None = None  # tool messages: the call they answer

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        return cls(role=data["role"], content=data.get("content") or "",
                   tool_calls=tuple(ToolCall(**call) for call in data.get("tool_calls") or ()),
                   tool_call_id=data.get("tool_call_id"))


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False  # counted from the text's size (aidlc.llm.bounds), not by the server
    corrected: str | None = None  # why the server's own counts were not believed (aidlc.llm.bounds.counted)

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        """As JSON output and ledger events show it."""
        data: dict[str, Any] = {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                                "total_tokens": self.total, "estimated": self.estimated}
        if self.corrected:
            data["corrected"] = self.corrected
        return data

    def __add__(self, other: Usage) -> Usage:
        corrected = "; ".join(reason for reason in (self.corrected, other.corrected) if reason) or None
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     self.estimated or other.estimated, corrected)


@dataclass(frozen=True)
class ContextWindow:
    """What a server said about its context window (aidlc.llm.window), asked only after a truncated answer."""

    tokens: int
    source: str  # where it was read, e.g. "GET /props default_generation_settings.n_ctx"
    trained: bool = False  # the model's trained context (n_ctx_train): the server may run with a smaller one

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Completion:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""  # as the server named it
    finish_reason: str = "stop"  # stop | length | tool_calls | content_filter | ...
    latency_s: float = 0.0
    degraded: bool = False  # answered by a fallback target, not the primary
    target: str = ""  # the key of the target that answered (see Provider.key)
    context_window: ContextWindow | None = None  # asked of the server when the answer was cut short of max_tokens

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Completion:
        usage = data.get("usage") or {}
        return cls(text=data.get("text") or "",
                   tool_calls=tuple(ToolCall(**call) for call in data.get("tool_calls") or ()),
                   usage=Usage(**usage), model=data.get("model", ""),
                   finish_reason=data.get("finish_reason", "stop"), latency_s=data.get("latency_s", 0.0),
                   degraded=data.get("degraded", False), target=data.get("target", ""),
                   context_window=ContextWindow(**window) if (window := data.get("context_window")) else None)


@runtime_checkable
class Provider(Protocol):
    """One way to get a completion. Implementations raise the typed errors of aidlc.llm.errors."""

    @property
    def key(self) -> str:
        """Stable identity, e.g. "openai:gpt-4.1-mini@http://localhost:8080/v1" (memory of what works)."""
        ...

    def complete(self, messages: list[Message], *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: dict[str, Any] | None = None, tools: list[dict[str, Any]] | None = None,
                 timeout_s: float | None = None) -> Completion:
        """`response_format` and `tools` use the OpenAI chat-completions shapes; other providers translate.
        `timeout_s` is the most the whole call may take, every attempt and wait between them included (e.g. what
        is left of a run's deadline); each attempt is bounded by the provider's own timeout as well."""
        ...


def target_key(provider: str, model: str, base_url: str | None) -> str:
    """Shown, recorded in cassettes and in the ledger: a password in the URL is redacted."""

    return f"{provider}:{model}@{without_password(base_url) if base_url else 'default'}"
