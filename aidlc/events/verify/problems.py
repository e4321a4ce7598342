"""What verifying a ledger finds: the kinds of problem, one problem, and the verification's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ProblemKind(StrEnum):
    torn = "torn"
    invalid = "invalid"
    edited = "edited"
    duplicated = "duplicated"
    reordered = "reordered"
    unknown_prev = "unknown_prev"
    seq_gap = "seq_gap"
    duplicate_id = "duplicate_id"
    missing = "missing"
    bad_ts = "bad_ts"
    ts_before_prev = "ts_before_prev"
    ts_in_future = "ts_in_future"
    unknown_commit = "unknown_commit"
    unfetched_commit = "unfetched_commit"  # a warning: a shallow clone lacks the history to tell
    unterminated = "unterminated"  # a note: a complete last line without its newline; the next append adds it


CHAIN_KINDS = frozenset({ProblemKind.torn, ProblemKind.invalid, ProblemKind.edited, ProblemKind.duplicated,
                         ProblemKind.reordered, ProblemKind.unknown_prev, ProblemKind.seq_gap,
                         ProblemKind.duplicate_id, ProblemKind.missing})
TIME_KINDS = frozenset({ProblemKind.bad_ts, ProblemKind.ts_before_prev, ProblemKind.ts_in_future})
WARNING_KINDS = frozenset({ProblemKind.unfetched_commit})
NOTE_KINDS = frozenset({ProblemKind.unterminated})
# One problem per line: the one that says most about the line wins.
RANK = {kind: rank for rank, kind in enumerate([
    ProblemKind.torn, ProblemKind.invalid, ProblemKind.edited, ProblemKind.duplicated, ProblemKind.duplicate_id,
    ProblemKind.reordered, ProblemKind.unknown_prev, ProblemKind.seq_gap, ProblemKind.bad_ts,
    ProblemKind.ts_before_prev, ProblemKind.ts_in_future, ProblemKind.unknown_commit, ProblemKind.unfetched_commit,
    ProblemKind.unterminated])}


@dataclass(frozen=True)
class Problem:
    line: int
    seq: int | None
    kind: ProblemKind
    message: str

    @property
    def severity(self) -> str:
        return "warning" if self.kind in WARNING_KINDS else "note" if self.kind in NOTE_KINDS else "error"

    @property
    def is_error(self) -> bool:
        return self.kind not in WARNING_KINDS and self.kind not in NOTE_KINDS


@dataclass
class Verification:
    events: int = 0  # lines read
    problems: list[Problem] = field(default_factory=list)  # in line order; errors, warnings and notes

    @property
    def ok(self) -> bool:
        return not any(problem.is_error for problem in self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.is_error]

    @property
    def first_error(self) -> Problem | None:
        return next((problem for problem in self.problems if problem.is_error), None)
