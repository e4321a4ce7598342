"""The checks beyond the hash: each event's time (RFC 3339 with a zone, not before the event it follows nor in the
future by more than CLOCK_SKEW) and its commit (one that exists in the repository, looked up in batches)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from aidlc.events.verify.problems import Problem, ProblemKind

# Clocks of different machines disagree; a ledger is appended to from several. Five minutes is the
# tolerance Kerberos has used by default for decades: NTP keeps machines far closer, while a clock
# set back or a line moved by hours or days is well outside it.
CLOCK_SKEW = timedelta(minutes=5)
COMMIT_BATCH = 4096  # distinct commits looked up in one git call
_RFC3339 = re.compile(rb"\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-]\d\d:\d\d)")
_COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # sha-1 or sha-256, in full


def instant_of(ts: bytes | str) -> float | None:
    """Seconds since the epoch of an RFC 3339 time with a zone (`T` or `t`, `Z` or an offset), else None."""
    raw = ts.encode("utf-8", "replace") if isinstance(ts, str) else ts
    if _RFC3339.fullmatch(raw) is None:
        return None
    try:
        return datetime.fromisoformat(raw.decode("ascii").upper()).timestamp()
    except ValueError:  # month 13, second 60, ...
        return None


def _span(seconds: float) -> str:
    """A duration for a message: `2 days, 3:04:05`."""
    return str(timedelta(seconds=round(seconds)))


CommitLookup = Callable[[list[str]], "tuple[set[str], bool] | None"]
"""Given full commit ids, (those the repository lacks, whether it is a shallow clone); None if it cannot tell."""


class EventChecks:
    """The checks beyond the hash: time and commit. The same words for `aidlc validate` and `aidlc log verify`."""

    def __init__(self, now: datetime | None = None, commits: CommitLookup | None = None) -> None:
        moment = now or datetime.now(UTC)
        self.now = moment.timestamp()
        self.skew = CLOCK_SKEW.total_seconds()
        # The latest time an event may carry, in the form aidlc writes: such times compare as text.
        self.latest = (moment.astimezone(UTC) + CLOCK_SKEW).strftime("%Y-%m-%dT%H:%M:%S.%fZ").encode()
        self.dates: set[bytes] = set()  # calendar dates seen valid (month 2 has no day 30)
        self.lookup = commits
        self.pending: dict[str, tuple[int, int | None]] = {}  # commit -> (first line naming it, its seq)
        self.known: set[str] = set()  # commits found in the repository (bounded: forgotten when large)
        self.reported: set[str] = set()  # commits already reported, one finding each
        # Well-formed commits, as read, already known, reported or pending: a line naming one again adds nothing.
        self.judged: set[bytes | str] = set()
        self.usable = commits is not None

    def valid_date(self, day: bytes) -> bool:
        try:
            date.fromisoformat(day.decode("ascii"))
        except ValueError:
            return False
        self.dates.add(day)
        return True

    def time(self, line: int, seq: int | None, ts: bytes | str | None, after: bytes | str | None,
             after_line: int) -> tuple[bool, Problem | None]:
        """(whether `ts` may judge the event after it, its problem): not RFC 3339 with a zone, before the
        event it follows (whose ts is `after`, at line `after_line`) or in the future, by more than CLOCK_SKEW.
        An event that follows one in the future is not judged by it: the future one is the problem (reported
        itself), not every honest event after it."""
        if ts is None:
            return False, Problem(line, seq, ProblemKind.bad_ts, "the event has no `ts`")
        when = instant_of(ts)
        shown = ts.decode("utf-8", "replace") if isinstance(ts, bytes) else ts
        if when is None:
            return False, Problem(line, seq, ProblemKind.bad_ts, f"ts {shown[:80]!r} is not an RFC 3339 time "
                                  "with a zone (e.g. 2026-11-30T08:00:00Z)")
        before = instant_of(after) if after is not None else None
        if before is not None and when < before - self.skew:
            return True, Problem(line, seq, ProblemKind.ts_before_prev, f"ts {shown} is {_span(before - when)} "
                                 f"before the event it follows (line {after_line}), more than the {_span(self.skew)} "
                                 "clock skew allowed: a clock was set back or the line was made up")
        if when > self.now + self.skew:
            return False, Problem(line, seq, ProblemKind.ts_in_future, f"ts {shown} is {_span(when - self.now)} in "
                                  f"the future, more than the {_span(self.skew)} clock skew allowed")
        return True, None

    def commit(self, line: int, seq: int | None, commit: bytes | str) -> Problem | None:
        """A malformed commit is a problem now; a well-formed one is looked up with others (see `flush`)."""
        if not self.usable or commit in self.judged:
            return None
        text = commit.decode("utf-8", "replace") if isinstance(commit, bytes) else commit
        if _COMMIT_ID.fullmatch(text) is None:
            return Problem(line, seq, ProblemKind.unknown_commit,
                           f"commit {text[:80]!r} is not a full commit id (40 or 64 hex digits)")
        if text not in self.known and text not in self.reported and text not in self.pending:
            self.pending[text] = (line, seq)
        self.judged.add(commit)
        return None

    def flush(self) -> list[Problem]:
        """Look up the pending commits in one git call; one problem for each the repository lacks."""
        pending, self.pending = self.pending, {}
        if not pending or self.lookup is None or not self.usable:
            return []
        found = self.lookup(list(pending))
        if found is None:  # not a git repository, or git cannot say: nothing to check against
            self.usable = False
            return []
        missing, shallow = found
        if len(self.known) > COMMIT_BATCH:
            self.known.clear()
            self.judged.clear()
        self.known.update(set(pending) - missing)
        self.reported.update(missing)
        problems = []
        for commit in sorted(missing, key=lambda c: pending[c][0]):
            line, seq = pending[commit]
            if shallow:
                problems.append(Problem(line, seq, ProblemKind.unfetched_commit,
                                        f"commit {commit} is not in this shallow clone; fetch the history "
                                        "(`git fetch --unshallow`) and verify again"))
            else:
                problems.append(Problem(line, seq, ProblemKind.unknown_commit,
                                        f"commit {commit} does not exist in this repository"))
        return problems

    def fork_time(self, line: int, seq: int, ts: bytes | str, named: bytes | str, named_line: int) -> Problem | None:
        """The ts of a fork (a line whose `prev` is not the line above) against the event it names, once the
        second pass found it: only `ts_before_prev` is new there (the rest was judged on the first pass), and an
        event named in the future judges nothing (it is the problem, reported itself)."""
        when, before = instant_of(ts), instant_of(named)
        if when is None or before is None or before > self.now + self.skew:
            return None
        _, problem = self.time(line, seq, ts, named, named_line)
        return problem if problem is not None and problem.kind == ProblemKind.ts_before_prev else None
