"""What one full check of a ledger establishes, in a form an append extends without reading the file again:
the chain's tip, its problems, the standing gate decisions (`DecisionIndex`), when it was created, and a
filter of its idempotency keys. `scan` builds it; `checkpoint` keeps it between commands.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from aidlc.events.canonical import event_of
from aidlc.events.decisions import Decided, DecisionIndex, GateKey, supersedes_of
from aidlc.events.verify import Fields, Problem, ProblemKind, Verifier, key_of
from aidlc.model.events import EventType

_DECIDED = b'"type":"gate.decided"'
_CREATED = b'"type":"ledger.created"'


class KeyFilter:
    """A Bloom filter of the idempotency keys (3 probes into 2**20 bits, 128 KiB): "not there" is certain,
    so an append with a new key needs no search; "maybe" is confirmed in the file. About 1.6% of the
    answers are a needless "maybe" at 100,000 keys, and most beyond a million (the search still answers)."""

    BITS = 20

    def __init__(self, bits: bytearray | None = None) -> None:
        self.bits = bits if bits is not None else bytearray(1 << (self.BITS - 3))

    def _slots(self, raw: bytes) -> tuple[int, int, int]:
        value = int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "big")
        mask = (1 << self.BITS) - 1
        return value & mask, (value >> self.BITS) & mask, (value >> (2 * self.BITS)) & mask

    def add(self, raw: bytes) -> None:
        for slot in self._slots(raw):
            self.bits[slot >> 3] |= 1 << (slot & 7)

    def may_hold(self, raw: bytes) -> bool:
        return all(self.bits[slot >> 3] & (1 << (slot & 7)) for slot in self._slots(raw))

    @classmethod
    def from_bytes(cls, data: bytes) -> KeyFilter:
        if len(data) != 1 << (cls.BITS - 3):
            raise ValueError("key filter of the wrong size")
        return cls(bytearray(data))


@dataclass
class LedgerState:
    size: int = 0  # bytes read
    good_size: int = 0  # bytes up to the end of the last line that joined the chain (a torn tail lies beyond)
    lines: int = 0
    terminated: bool = True  # the last line ends with its newline
    tip: tuple[str, int] | None = None  # (hash, seq) of the last line that joined: the next append follows it
    tip_line: int = 0
    problems: list[Problem] = field(default_factory=list)
    created: str | None = None  # `ts` of the first ledger.created event
    decisions: DecisionIndex = field(default_factory=DecisionIndex)
    keys: KeyFilter = field(default_factory=KeyFilter)

    @property
    def ok(self) -> bool:
        return not any(problem.is_error for problem in self.problems)

    @property
    def torn(self) -> bool:
        """The only damage is an incomplete last line, which the next append moves aside."""
        errors = [problem for problem in self.problems if problem.is_error]
        return len(errors) == 1 and errors[0].kind == ProblemKind.torn

    def take(self, line: bytes, offset: int, event: dict[str, Any]) -> None:
        """A line appended after the tip (already checked: the appender built it), at `offset`."""
        self.lines += 1
        self.size = self.good_size = offset + len(line)
        self.terminated = True
        self.tip, self.tip_line = (event["hash"], event["seq"]), self.lines
        if (key := key_of(line)) is not None:
            self.keys.add(key)
        if event["type"] == EventType.ledger_created and self.created is None:
            self.created = event["ts"]
        elif (decided := decided_of(self.lines, offset, line, event)) is not None:
            self.decisions.add(*decided)

    def summary(self) -> dict[str, Any]:
        """Everything but the decisions and the key filter, which are kept apart (see `checkpoint`)."""
        return {"size": self.size, "good_size": self.good_size, "lines": self.lines, "terminated": self.terminated,
                "tip": list(self.tip) if self.tip else None, "tip_line": self.tip_line, "created": self.created,
                "problems": [[p.line, p.seq, str(p.kind), p.message] for p in self.problems]}

    @classmethod
    def restore(cls, summary: dict[str, Any], decisions: bytes, keys: bytes) -> LedgerState:
        tip = summary["tip"]
        return cls(int(summary["size"]), int(summary["good_size"]), int(summary["lines"]), bool(summary["terminated"]),
                   (str(tip[0]), int(tip[1])) if tip else None, int(summary["tip_line"]),
                   [Problem(int(line), None if seq is None else int(seq), ProblemKind(kind), str(message))
                    for line, seq, kind, message in summary["problems"]],
                   None if summary["created"] is None else str(summary["created"]),
                   DecisionIndex.from_json(decisions), KeyFilter.from_bytes(keys))


def decided_of(number: int, offset: int, line: bytes, event: dict[str, Any]) -> tuple[GateKey, Decided] | None:
    """The gate and the record of a decision event (a valid one: `canonical.event_of`); None for other events."""
    if event["type"] != EventType.gate_decided or event.get("subject") is None:
        return None
    subject = event["subject"]
    key = str(subject.get("kind")), str(subject.get("id")), str(event.get("stage"))
    return key, Decided(number, offset, len(line), event["seq"], event["hash"], str(event.get("decision")),
                        supersedes_of(event))


def scan(open_lines: Callable[[], Iterable[bytes]]) -> LedgerState:
    """Verify every line (all problems, not only the first) and gather what the state holds."""
    state = LedgerState()
    found: list[tuple[GateKey, Decided]] = []  # the decisions, in file order (added once the tree is known)

    def take(number: int, offset: int, line: bytes, fields: Fields) -> None:
        if (key := key_of(line)) is not None:
            state.keys.add(key)
        if _DECIDED in line or (state.created is None and _CREATED in line):  # cheap tests: most lines are neither
            event = event_of(line)
            if event is None:
                return
            if event["type"] == EventType.ledger_created and state.created is None:
                state.created = event["ts"]
            elif (decided := decided_of(number, offset, line, event)) is not None:
                found.append(decided)

    verifier = Verifier(on_event=take)
    result = verifier.run(open_lines)
    state.size, state.good_size, state.lines = verifier.offset, verifier.good_size, verifier.lines
    state.terminated = not verifier.unterminated
    state.tip = (verifier.tip[0].decode(), verifier.tip[2]) if verifier.tip else None
    state.tip_line = verifier.tip_line
    state.problems = result.problems
    parents = verifier.noted.parents
    for line in sorted(parents):
        state.decisions.fork(line, parents[line])
    copies = {p.line for p in result.problems if p.kind == ProblemKind.duplicated}  # not events of their own
    for key, decided in found:
        if decided.line not in copies:
            state.decisions.add(key, decided)
    state.decisions.named.clear()
    return state
