"""The fallback chain (`llm.fallback` in aidlc.yaml): the next target once one is exhausted.

Each target retries on its own (aidlc.llm.retry); only when its retries are spent with a
transient failure (timeout, 429, 5xx, unreachable) does the chain move on. The answer of any
target but the first is marked `degraded=True` and names its `target`, and `on_degrade`
(if given) hears about each step down, so a run can record a `degraded` event.

A refusal (LLMRejected: bad key, unknown model, unsupported response_format) is *not* a reason
to move on: it would hide a configuration problem, and structured output handles format refusals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from aidlc.llm.base import Completion, Message, Provider
from aidlc.llm.bounds import ends_after, left
from aidlc.llm.errors import LLMTransient, LLMUnavailable


@dataclass(frozen=True)
class Degradation:
    failed: str  # key of the target that was exhausted
    next: str  # key of the target tried next
    reason: str  # the failure, already redacted


class FallbackChain:
    def __init__(self, targets: list[Provider], on_degrade: Callable[[Degradation], None] | None = None) -> None:
        if not targets:
            raise ValueError("a fallback chain needs at least one target")
        self.targets = targets
        self.on_degrade = on_degrade

    @property
    def key(self) -> str:
        return self.targets[0].key  # what works is remembered for the configuration, i.e. its primary

    def complete(self, messages: list[Message], *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: dict[str, Any] | None = None, tools: list[dict[str, Any]] | None = None,
                 timeout_s: float | None = None) -> Completion:
        failures: list[str] = []
        ends = ends_after(timeout_s)  # `timeout_s` bounds the targets together
        for index, target in enumerate(self.targets):
            try:
                answer = target.complete(messages, max_tokens=max_tokens, temperature=temperature,
                                         response_format=response_format, tools=tools, timeout_s=left(ends))
            except LLMTransient as exc:
                failures.append(f"{target.key}: {exc.message}")
                if index + 1 == len(self.targets):
                    if len(self.targets) == 1:
                        raise
                    raise LLMUnavailable("every configured target failed:\n  " + "\n  ".join(failures)) from None
                if self.on_degrade is not None:
                    self.on_degrade(Degradation(target.key, self.targets[index + 1].key, exc.message))
                continue
            return replace(answer, degraded=answer.degraded or index > 0, target=answer.target or target.key)
        raise AssertionError("unreachable")  # pragma: no cover
