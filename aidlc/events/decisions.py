"""The gate decisions of a ledger that still stand, aware of branches.

A ledger is a tree, not a list: every event names the one it was appended after (`prev`), and
two branches that both append grow two forks, which the merge driver puts one after the other.
So "the latest decision in the file" means nothing after a merge: the order of two forks is an
accident of the merge. What counts is who knew what:

* A decision *supersedes* an earlier decision of the same gate (subject + stage) when that one is
  its ancestor (it stands on the decision's `prev` chain: it was in the file it was appended to),
  or when the decision names it in `data.supersedes` (a person decided again after seeing both
  sides of a fork: see `gates.decide`).
* The decisions no other decision of the gate supersedes are its *heads*. One head, or several
  that agree, is the gate's decision. Heads that disagree (approve on one branch, reject on the
  other, neither aware of the other) are a *conflict*: the gate counts as undecided until a person
  decides again, never resolved by which line happens to stand last.

Ancestry is answered from *runs*: lines that each name the line just above them (the common case)
form a run; a run starts at line 1 or at a fork, and names the line its first event follows. A
question walks from run to run towards the start, so it costs one step per fork on the way.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

GateKey = tuple[str, str, str]  # (subject kind, subject id, stage)


@dataclass(frozen=True)
class Decided:
    """One recorded gate decision, as much as deciding its standing needs (the event is read on demand)."""

    line: int
    offset: int  # where its line starts in the file, to read the event
    length: int
    seq: int
    hash: str
    decision: str
    supersedes: tuple[str, ...] = ()

    def to_json(self) -> list[Any]:
        return [self.line, self.offset, self.length, self.seq, self.hash, self.decision, list(self.supersedes)]

    @classmethod
    def from_json(cls, value: list[Any]) -> Decided:
        line, offset, length, seq, digest, decision, supersedes = value
        return cls(int(line), int(offset), int(length), int(seq), str(digest), str(decision),
                   tuple(str(s) for s in supersedes))


def supersedes_of(event: dict[str, Any]) -> tuple[str, ...]:
    """The decisions a decision names as superseded (`data.supersedes`), read from the raw event the scan holds."""
    data = event.get("data")
    named = data.get("supersedes") if isinstance(data, dict) else None
    return tuple(h for h in named if isinstance(h, str)) if isinstance(named, list) else ()


@dataclass
class DecisionIndex:
    starts: list[int] = field(default_factory=lambda: [1])  # first line of each run, ascending
    parents: dict[int, int] = field(default_factory=dict)  # run start -> line its first event follows (0: none)
    heads: dict[GateKey, list[Decided]] = field(default_factory=dict)
    named: dict[GateKey, set[str]] = field(default_factory=dict, repr=False)  # superseded by name, while building
    _text: bytes | None = field(default=None, repr=False)  # the JSON form, kept until the index changes

    # -- the tree -------------------------------------------------------------------------------------------
    def fork(self, line: int, parent: int) -> None:
        """Line `line` follows line `parent` (0: no line), not the line that joined before it: a run starts."""
        self._text = None
        if line != self.starts[-1]:
            self.starts.append(line)
        self.parents[line] = parent

    def is_ancestor(self, ancestor: int, line: int) -> bool:
        """True when the event at `ancestor` stands on the `prev` chain of the event at `line` (or is it)."""
        while line >= ancestor > 0:
            start = self.starts[bisect.bisect_right(self.starts, line) - 1]
            if ancestor >= start:
                return True
            line = self.parents.get(start, 0)
            if line >= start:  # a parent stands earlier, always; anything else is no tree this index built
                return False
        return False

    # -- decisions ------------------------------------------------------------------------------------------
    def add(self, key: GateKey, decided: Decided) -> None:
        """A decision, in file order: it removes the heads it supersedes and becomes one."""
        self._text = None
        named = self.named.setdefault(key, set())
        named.update(decided.supersedes)
        heads = [head for head in self.heads.get(key, [])
                 if head.hash not in named and not self.is_ancestor(head.line, decided.line)]
        if decided.hash not in named:  # named by a decision that stands earlier (forks ordered by a merge)
            heads.append(decided)
        self.heads[key] = heads

    def conflict(self, key: GateKey) -> list[Decided] | None:
        """The disagreeing heads of a gate, in file order, or None."""
        heads = self.heads.get(key, [])
        return sorted(heads, key=lambda d: d.line) if len({h.decision for h in heads}) > 1 else None

    def standing(self, key: GateKey) -> Decided | None:
        """The gate's decision: its head, or the last of agreeing heads; None if undecided or in conflict."""
        heads = self.heads.get(key)
        if not heads or self.conflict(key) is not None:
            return None
        return max(heads, key=lambda d: d.line)

    def conflicts(self) -> Iterator[tuple[GateKey, list[Decided]]]:
        for key in self.heads:
            if (found := self.conflict(key)) is not None:
                yield key, found

    def to_json(self) -> bytes:
        """As JSON text (one line), kept until the index changes: most appends (a checkpoint each) decide nothing."""
        if self._text is None:
            self._text = json.dumps({
                "starts": self.starts, "parents": [[start, parent] for start, parent in self.parents.items()],
                "heads": [[list(key), [d.to_json() for d in heads]] for key, heads in self.heads.items()]},
                separators=(",", ":")).encode()
        return self._text

    @classmethod
    def from_json(cls, text: bytes) -> DecisionIndex:
        value = json.loads(text)
        index = cls([int(s) for s in value["starts"]], {int(s): int(p) for s, p in value["parents"]})
        if not index.starts or index.starts[0] != 1 or index.starts != sorted(set(index.starts)) \
                or any(parent >= start for start, parent in index.parents.items()):
            raise ValueError("not a tree of runs")
        for key, heads in value["heads"]:
            kind, subject, stage = key
            index.heads[(str(kind), str(subject), str(stage))] = [Decided.from_json(d) for d in heads]
        return index
