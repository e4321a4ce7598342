"""Token estimates, and fitting context into a per-call budget (repository text in it wrapped as data by
aidlc/untrusted.py).

* `estimate_tokens` counts 1 token per 4 characters (rounded up). That is the usual rule of thumb
  for English and code with BPE tokenizers; it over-counts dense prose a little, which errs on
  the safe side. No tokenizer is loaded: start-up time and offline use matter more.
* `fit_context(pieces, budget_tokens)` makes the context fit *before* sending, so a server never
  cuts it silently: drop the lowest-priority pieces first (required ones never), then cut the
  longest piece, saying so with an explicit "[truncated N chars]" marker.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from aidlc.llm.base import Message
from aidlc.llm.errors import LLMBudgetExceeded
from aidlc.redaction import Redactor
from aidlc.untrusted import untrusted

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4  # role and separators the chat template adds per message


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def estimate_messages(messages: Iterable[Message]) -> int:
    return sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in messages)


@dataclass(frozen=True)
class ContextPiece:
    name: str  # what it is, e.g. a repo path; shown to the model
    text: str
    priority: int = 0  # higher survives longer
    required: bool = False  # never dropped (it may still be truncated)
    trusted: bool = False  # our own text (e.g. the intent as the user typed it); repo text is not


@dataclass
class Fitted:
    pieces: list[ContextPiece]  # kept, in the original order, some truncated
    dropped: list[str] = field(default_factory=list)  # names, lowest priority first
    truncated: dict[str, int] = field(default_factory=dict)  # name -> characters cut
    tokens: int = 0
    redactor: Redactor | None = field(default=None, repr=False)  # the one that redacted the pieces

    def render(self) -> str:
        return "\n\n".join(_render(p, self.redactor) for p in self.pieces)

    def trimmed(self) -> str | None:
        """What the model will not see of the context, in words (None: it sees all of it)."""
        parts = ([f"left out {', '.join(self.dropped)}"] if self.dropped else []) + \
            ([f"cut {', '.join(f'{name} by {chars} characters' for name, chars in self.truncated.items())}"]
             if self.truncated else [])
        return "; ".join(parts) or None


def fit_context(pieces: list[ContextPiece], budget_tokens: int, redactor: Redactor | None = None) -> Fitted:
    """Keep `pieces` within `budget_tokens` (as rendered): drop by priority, then truncate the longest.

    Texts are redacted first (the budget counts what is sent); sizes are then computed from
    lengths, not by re-rendering, so a large context fits in linear time per step.
    """
    redactor = redactor or Redactor()
    kept = [replace(p, text=redactor(p.text)) for p in pieces]
    overhead = {id(p): len(_render(replace(p, text=""), redactor)) for p in kept}
    keep_chars = {id(p): len(p.text) for p in kept}  # how much of each text survives
    dropped: list[str] = []

    def chars(p: ContextPiece) -> int:
        cut = len(p.text) - keep_chars[id(p)]
        return overhead[id(p)] + keep_chars[id(p)] + (len(_marker(cut)) if cut else 0)

    def total() -> int:
        return sum((chars(p) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN for p in kept)

    while total() > budget_tokens:
        droppable = [p for p in kept if not p.required]
        if not droppable:
            break
        # Lowest priority goes first; among equals the largest (one long file must not cost several short ones),
        # then the later piece (usually the least central).
        victim = min(droppable, key=lambda p: (p.priority, -keep_chars[id(p)], -kept.index(p)))
        kept.remove(victim)
        dropped.append(victim.name)
    for _ in range(64):  # each round removes at least the excess; the bound only guards against a logic slip
        excess = total() - budget_tokens
        if excess <= 0:
            break
        longest = max(kept, key=lambda p: keep_chars[id(p)], default=None)
        if longest is None or keep_chars[id(longest)] == 0:
            raise LLMBudgetExceeded(f"the required context does not fit {budget_tokens} tokens even when emptied")
        marker_chars = len(_marker(len(longest.text)))  # the marker appears (or grows) with the cut
        keep_chars[id(longest)] = max(0, keep_chars[id(longest)] - excess * CHARS_PER_TOKEN - marker_chars)
    else:
        raise LLMBudgetExceeded(f"the context could not be fitted into {budget_tokens} tokens")
    result = []
    truncated: dict[str, int] = {}
    for p in kept:
        cut = len(p.text) - keep_chars[id(p)]
        if cut:
            truncated[p.name] = cut
            p = replace(p, text=p.text[:keep_chars[id(p)]] + _marker(cut))
        result.append(p)
    return Fitted(result, dropped, truncated, sum(estimate_tokens(_render(p, redactor)) for p in result), redactor)


def _marker(cut: int) -> str:
    return f"\n[truncated {cut} chars]"


def check_budget(messages: list[Message], max_tokens: int, budget_tokens: int) -> int:
    """The estimated prompt tokens; LLMBudgetExceeded when prompt + answer cannot fit `budget_tokens`."""
    prompt = estimate_messages(messages)
    if prompt + max_tokens > budget_tokens:
        raise LLMBudgetExceeded(f"the prompt (~{prompt} tokens) and its answer ({max_tokens}) exceed the "
                                f"per-call budget of {budget_tokens} tokens")
    return prompt


def _render(piece: ContextPiece, redactor: Redactor | None) -> str:
    return f"## {piece.name}\n{piece.text}" if piece.trusted else untrusted(piece.name, piece.text, redactor)
