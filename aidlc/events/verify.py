"""Verifying the ledger: every hash recomputes, every `prev` names an earlier event, nothing was
removed, reordered, duplicated or edited, (against a git ref) nothing old is missing, and every
event is plausible beyond its hash: its `ts` is an RFC 3339 time with a zone, not before the event
it follows nor in the future by more than CLOCK_SKEW, and its `commit` exists in the repository.

`seq` is one more than the seq of the event named by `prev`: this detects a removed event
and stays true when two branches both append and their lines are merged (the two forks
may then share a seq, which is why seq is checked along the chain, not for uniqueness).

Speed: a canonical line has its chain fields at known places (keys are sorted: `hash`, `id`,
[`key`], `prev`, [`reason`, `run`], `seq`, ..., `ts`), so the fast path finds them with byte
searches and recomputes the hash over the raw bytes, without parsing the line as JSON (parsing
costs more than all the checks together). A quote can only stand unescaped in JSON where a string
starts or ends, so `"prev":"` cannot be found inside a value. A line the fast path cannot read
goes to the slow path, which parses it and says what is wrong with it. What the fast path does not
prove is that the rest of a line whose hash recomputes is well-formed JSON: random damage cannot
keep the hash, and a forger can write a valid line as easily as a broken one; readers
(`Ledger.events`) parse every line and skip what is not JSON.

Memory: one pass in constant memory, a second only when the first leaves questions. Most lines
name the line just above them (`prev` is the hash of the previous event), which the first pass
checks with what it holds. A line that names another (a fork, after a merge) is noted with its
`prev`; so is a line whose id a fixed-size filter may have seen before. The second pass looks
those up: the line each fork names, and whether a noted id really stood earlier. A duplicated
line always starts with such a fork (the copy names the same `prev` as the original, which is
not the line above it, or the first of a copied block of lines is), so a copy is found there.
What the first pass keeps is bounded: the filter, the forks and candidates (few in any real
ledger), the first problem (or, when asked for all, every problem) and the commits of one batch.
`--against` holds the older version's hashes, one per event it had.

Lines longer than MAX_LINE are not events (no event holds that much): they are reported without
being read into memory whole, so a file with a gigabyte on one line cannot exhaust it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Any, BinaryIO

from aidlc.model.events import GENESIS

MAX_LINE = 1 << 20  # bytes; an event holds digests, paths and short texts, never this much
# Clocks of different machines disagree; a ledger is appended to from several. Five minutes is the
# tolerance Kerberos has used by default for decades: NTP keeps machines far closer, while a clock
# set back or a line moved by hours or days is well outside it.
CLOCK_SKEW = timedelta(minutes=5)
COMMIT_BATCH = 4096  # distinct commits looked up in one git call


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
_RANK = {kind: rank for rank, kind in enumerate([
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


_GENESIS = GENESIS.encode()
_HASH_KEY = b'"hash":"'
_AFTER_HASH = b'","id":"'  # canonical order: `id` is the key right after `hash`
_PREV_KEY = b'"prev":"'
_SEQ_KEY = b'"seq":'
_KEY_KEY = b'"key":"'
_TS_KEY = b'"ts":"'
_NAME_KEY = b'"name":"'
_COMMIT_KEY = b'"commit":"'
_COMMIT_AFTER_ACTOR = b'},"commit":"'
_ACTOR_START = b'{"actor":{'
_RFC3339 = re.compile(rb"\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-]\d\d:\d\d)")
# The form aidlc writes (UTC, microseconds): one match finds and checks it; such times compare as text.
_WRITTEN_TS = re.compile(rb'"ts":"(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))T(?:[01]\d|2[0-3]):[0-5]\d:'
                         rb'[0-5]\d\.\d{6}Z"')
_COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # sha-1 or sha-256, in full
# Ids already seen: 2**24 one-byte slots (16 MiB), three per id. A second pass to confirm a possible reuse is
# needed at 100,000 events about one time in seven; at 1,000,000 events for about one id in 200.
_ID_SLOTS = 24

Fields = tuple[bytes, bytes, int, bytes]  # hash, prev, seq, id


class LongLine(bytes):
    """The first MAX_LINE + 1 bytes of a longer line (and its newline, if it had one); `size` is its length."""

    size: int


def read_lines(handle: BinaryIO, limit: int | None = None) -> Iterator[bytes]:
    """The lines of a ledger file as the verifier reads them (split at b"\\n", ends kept), up to `limit`
    bytes (what the file held when its size was taken), a line longer than MAX_LINE as a LongLine, so
    that a huge line never stands in memory whole."""
    readline = handle.readline
    left = limit if limit is not None else -1
    while left and (line := readline(MAX_LINE + 1 if left < 0 else min(MAX_LINE + 1, left))):
        left -= len(line) if left > 0 else 0
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            size, ended = len(line), False
            while left and (more := readline(MAX_LINE if left < 0 else min(MAX_LINE, left))):
                size += len(more)
                left -= len(more) if left > 0 else 0
                if more.endswith(b"\n"):
                    ended = True
                    break
            long = LongLine(line + b"\n" if ended else line)
            long.size = size
            line = long
        yield line


def split_lines(data: bytes) -> list[bytes]:
    """Lines as the ledger reads them (split at b"\\n" only, ends kept), unlike bytes.splitlines."""
    lines = data.split(b"\n")
    tail = lines.pop()
    return [line + b"\n" for line in lines] + ([tail] if tail else [])


def line_hash(line: bytes) -> bytes:
    """sha256 of the line without its top-level `"hash":"...",` member.

    For a canonical line this equals the hash of the canonical event without `hash`. The last
    occurrence is the top-level key: only `subject` ({kind, id}) can follow it in sorted order.
    """
    start = line.rfind(_HASH_KEY)
    if start == -1:
        return b""
    end = start + len(_HASH_KEY) + 64 + 2  # the digest, its closing quote and the comma
    return hashlib.sha256(line[:start] + line[end:].rstrip(b"\n")).hexdigest().encode()


def chain_fields(line: bytes) -> Fields | None:
    """(hash, prev, seq, id) of a newline-terminated canonical line whose hash recomputes, else None."""
    start = line.rfind(_HASH_KEY)
    if start == -1 or line[start + 72:start + 80] != _AFTER_HASH:
        return None
    id_end = line.find(b'"', start + 80)
    prev_at = line.find(_PREV_KEY, id_end)
    if id_end == -1 or prev_at == -1 or line[prev_at + 72:prev_at + 74] != b'",':
        return None
    seq_at = line.find(_SEQ_KEY, prev_at + 74)
    seq_end = line.find(b",", seq_at + 6)
    seq_text = line[seq_at + 6:seq_end]
    if seq_at == -1 or seq_end == -1 or not seq_text.isdigit():
        return None
    digest = line[start + 8:start + 72]
    if hashlib.sha256(line[:start] + line[start + 74:-1]).hexdigest().encode() != digest:
        return None
    return digest, line[prev_at + 8:prev_at + 72], int(seq_text), line[start + 80:id_end]


def key_of(line: bytes) -> bytes | None:
    """The raw (JSON-escaped) idempotency key of a canonical line: it stands between `id` and `prev`."""
    start = line.find(_KEY_KEY, line.rfind(_HASH_KEY))
    if start == -1:
        return None
    end = line.find(b'","prev":"', start)
    return line[start + len(_KEY_KEY):end] if end != -1 else None


def raw_key(key: str) -> bytes:
    """A key as canonical JSON writes it inside its quotes, to compare with `key_of`."""
    return json.dumps(key, ensure_ascii=False).encode("utf-8")[1:-1]


def _string_end(line: bytes, start: int) -> int:
    """Index of the quote that closes the JSON string whose text starts at `start` (-1 if none)."""
    end = line.find(b'"', start)
    while end != -1:
        backslashes = 0
        while line[end - 1 - backslashes] == 0x5C:  # an escaped quote has an odd number of backslashes before it
            backslashes += 1
        if backslashes % 2 == 0:
            return end
        end = line.find(b'"', end + 1)
    return -1


def ts_of(line: bytes) -> bytes | None:
    """The raw top-level `ts` of a canonical line: its last `"ts":"` (only `type` and `v` follow it)."""
    at = line.rfind(_TS_KEY)
    if at == -1:
        return None
    end = line.find(b'"', at + 6)
    return line[at + 6:end] if end != -1 else None


def commit_of(line: bytes) -> bytes | None:
    """The raw top-level `commit` of a canonical line: the key right after the `actor` object (whose last
    member is `name`), so a `commit` inside `data` is never taken for it."""
    if not line.startswith(_ACTOR_START):
        return None
    name = line.find(_NAME_KEY, len(_ACTOR_START))
    end = _string_end(line, name + len(_NAME_KEY)) if name != -1 else -1
    if end == -1 or not line.startswith(_COMMIT_AFTER_ACTOR, end + 1):
        return None
    start = end + 1 + len(_COMMIT_AFTER_ACTOR)
    close = _string_end(line, start)
    return line[start:close] if close != -1 else None


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
        if not self.usable:
            return None
        text = commit.decode("utf-8", "replace") if isinstance(commit, bytes) else commit
        if _COMMIT_ID.fullmatch(text) is None:
            return Problem(line, seq, ProblemKind.unknown_commit,
                           f"commit {text[:80]!r} is not a full commit id (40 or 64 hex digits)")
        if text not in self.known and text not in self.reported and text not in self.pending:
            self.pending[text] = (line, seq)
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


@dataclass
class _Link:
    """A line whose `prev` is not the line just above it: resolved by the second pass."""

    line: int
    seq: int
    ts: bytes | str | None  # to check against the ts of the line it names (None: not to be checked)


OnEvent = Callable[[int, int, bytes, Fields], None]
"""Called for every line that joins the chain: (line number, offset, line, fields)."""


class Verifier:
    """One verification: `first_pass` over every line, then `second_pass` if `needs_second_pass`."""

    def __init__(self, checks: EventChecks | None = None, on_event: OnEvent | None = None,
                 stop_at_first: bool = False) -> None:
        self.checks = checks
        self.on_event = on_event
        self.stop_at_first = stop_at_first
        self.lines = 0
        self.offset = 0  # bytes read
        self.good_size = 0  # bytes up to the end of the last line that joined (a torn tail lies beyond)
        self.tip: Fields | None = None  # the last line that joined the chain
        self.tip_line = 0
        self.tip_ts: bytes | str | None = None  # the tip's ts, if it may judge the next event's
        self.tip_written = False  # ... in the form aidlc writes, which compares as text
        self.unterminated = False  # the last line joined without its newline
        self.problems: dict[int, Problem] = {}  # the chain's: one per line, the one that says most
        self.checked: list[Problem] = []  # the checks beyond the hash
        self.links: dict[bytes, list[_Link]] = {}  # prev -> the lines naming it, when not the line above
        self.copies: dict[bytes, list[int]] = {}  # own hash -> lines (of such links) that may copy an earlier line
        self.id_slots = bytearray(1 << _ID_SLOTS)
        self.id_candidates: dict[bytes, list[tuple[int, int]]] = {}  # id -> (line, seq) of lines that may reuse it
        self.unjoined: set[int] = set()
        self.slow: set[int] = set()  # lines read by the slow path (their byte layout is not canonical)
        self.against: dict[bytes, tuple[int, int | None]] = {}  # older version: hash -> (its line, seq)
        self.missing: list[Problem] = []  # events of the older version this file lacks (their lines are old lines)
        self.stopped_at: int | None = None  # the line of the first error, when stopping there
        self.parents: dict[int, int] = {}  # line of a fork -> line of the event it names (0: none known)

    # -- problems -------------------------------------------------------------------------------------------
    def _report(self, problem: Problem) -> None:
        if problem.kind in CHAIN_KINDS or problem.kind in NOTE_KINDS:
            held = self.problems.get(problem.line)
            if held is None or _RANK[problem.kind] < _RANK[held.kind]:
                self.problems[problem.line] = problem
        else:  # a time and a commit problem of the same line are both worth knowing
            self.checked.append(problem)
        if self.stop_at_first and problem.is_error and self.stopped_at is None:
            self.stopped_at = problem.line

    # -- pass one -------------------------------------------------------------------------------------------
    def first_pass(self, lines: Iterable[bytes]) -> None:
        """Check every line with what is at hand (see the module docstring). This loop runs once per event:
        its state stays in local variables, and what is rare (a problem, a line the fast path cannot read, a
        fork) leaves it for a method."""
        checks, on_event, report = self.checks, self.on_event, self._report
        seen, mask = self.id_slots, (1 << _ID_SLOTS) - 1
        written_ts = _WRITTEN_TS.match
        latest, dates = (checks.latest, checks.dates) if checks is not None else (b"", set())
        number, offset, good_size = self.lines, self.offset, self.good_size
        tip, tip_line, tip_ts, tip_written = self.tip, self.tip_line, self.tip_ts, self.tip_written
        tip_hash, tip_seq = (tip[0], tip[2]) if tip else (None, 0)
        for line in lines:
            number += 1
            size = len(line)
            fields = chain_fields(line) if line[-1] == 10 and size <= MAX_LINE else None
            ts: bytes | str | None = None
            slow = fields is None
            if slow:
                self.tip, self.lines = tip, number  # a torn line is named by the seq after the tip
                found = self._slow_fields(line)
                if isinstance(found, Problem):
                    self.unjoined.add(number)
                    report(found)
                    offset += line.size if isinstance(line, LongLine) else size
                    if self.stopped_at is not None:
                        break
                    continue
                fields, ts = found
                self.slow.add(number)
            digest, prev, seq, event_id = fields  # type: ignore[misc]  # the slow path's fields are the same four
            link = None
            if prev == tip_hash:  # the line above: everything needed is at hand
                if seq != tip_seq + 1:
                    report(Problem(number, seq, ProblemKind.seq_gap,
                                   f"seq {seq} follows seq {tip_seq}: an event between them was removed"))
            elif prev == _GENESIS and number == 1:
                if seq != 1:
                    report(Problem(number, seq, ProblemKind.seq_gap,
                                   f"seq {seq} follows seq 0: an event between them was removed"))
            else:  # a fork, a removal or a copy: the second pass finds what it names
                link = _Link(number, seq, None)
                self.links.setdefault(prev, []).append(link)
                self.copies.setdefault(digest, []).append(number)
            slot = hash(event_id)
            one, two, three = slot & mask, (slot >> 20) & mask, (slot >> 40) & mask  # of a 64-bit hash
            if seen[one] and seen[two] and seen[three]:
                self.id_candidates.setdefault(event_id, []).append((number, seq))
            else:
                seen[one] = seen[two] = seen[three] = 1
            if checks is not None:
                at = -1 if slow else line.rfind(_TS_KEY)
                match = written_ts(line, at) if at != -1 else None
                after = tip_ts if link is None else None
                written = match is not None and (match[1] in dates or checks.valid_date(match[1]))
                if written and (after is None or (tip_written and isinstance(after, bytes)
                                                  and after <= line[at + 6:at + 33])):
                    ts = line[at + 6:at + 33]  # the form aidlc writes, not before the event it follows
                    usable = ts <= latest
                    problem = None if usable else checks.time(number, seq, ts, after, tip_line)[1]
                else:  # another form, or earlier than the event before: compared as instants
                    if not slow:
                        ts = ts_of(line)
                    usable, problem = checks.time(number, seq, ts, after, tip_line)
                if problem is not None:
                    report(problem)
                if link is not None and usable:
                    link.ts = ts
                tip_ts, tip_written = (ts if usable else None), written
                if _COMMIT_KEY in line:
                    commit = self._slow_commit(line) if slow else commit_of(line)
                    if commit is not None and (problem := checks.commit(number, seq, commit)) is not None:
                        report(problem)
                    if len(checks.pending) >= COMMIT_BATCH:
                        for problem in checks.flush():
                            report(problem)
            if line[-1] != 10:
                self.unterminated = True
                report(Problem(number, seq, ProblemKind.unterminated,
                               "the last line lacks its newline; it is complete and its hash recomputes, so it is "
                               "kept: the next append adds the newline"))
            if on_event is not None:
                on_event(number, offset, line, fields)  # type: ignore[arg-type]  # fields is set for every event line
            tip, tip_line, tip_hash, tip_seq = fields, number, digest, seq
            offset += size
            good_size = offset
            if self.stopped_at is not None:
                break
        self.lines, self.offset, self.good_size = number, offset, good_size
        self.tip, self.tip_line, self.tip_ts, self.tip_written = tip, tip_line, tip_ts, tip_written
        if checks is not None:
            for problem in checks.flush():
                report(problem)

    def _torn(self, number: int) -> Problem:
        seq = self.tip[2] + 1 if self.tip else 1  # the seq an append after the last good line would give
        return Problem(number, seq, ProblemKind.torn, "the last line is incomplete (a write was interrupted); "
                       "the next append moves it aside")

    def _slow_fields(self, line: bytes) -> tuple[Fields, Any] | Problem:
        """Parse a line the fast path could not read, to say what is wrong with it (or read it anyway).
        Returns its fields and its `ts` (as parsed), or its problem."""
        number = self.lines
        if len(line) > MAX_LINE:
            if not line.endswith(b"\n"):
                return self._torn(number)
            size = line.size if isinstance(line, LongLine) else len(line)
            return Problem(number, None, ProblemKind.invalid, f"the line is {size:,} bytes long; an event is at "
                           f"most {MAX_LINE:,} bytes")
        complete = line if line.endswith(b"\n") else line + b"\n"
        fields = chain_fields(complete) if complete is not line else None
        if fields is not None:  # a canonical last line that only lacks its newline
            return fields, ts_of(complete)
        event = _parsed(complete)
        fields = _fields_of(event)
        if fields is None:
            if not line.endswith(b"\n"):
                return self._torn(number)
            return Problem(number, None, ProblemKind.invalid, "not a JSON event with seq, prev, hash and id")
        digest, _, seq, _ = fields
        if line_hash(complete) != digest:
            if not line.endswith(b"\n"):
                return self._torn(number)
            if line.endswith(b"\r\n") and line_hash(line[:-2] + b"\n") == digest:
                return Problem(number, seq, ProblemKind.edited, "the line ends in CRLF: a checkout converted line "
                               "ends (mark the ledger `-text` in .gitattributes)")
            return Problem(number, seq, ProblemKind.edited, "the hash does not match the content: the line was edited")
        assert isinstance(event, dict)
        return fields, event.get("ts") if isinstance(event.get("ts"), str) else None

    @staticmethod
    def _slow_commit(line: bytes) -> str | None:
        event = _parsed(line if line.endswith(b"\n") else line + b"\n")
        commit = event.get("commit") if isinstance(event, dict) else None
        return commit if isinstance(commit, str) else None

    # -- pass two -------------------------------------------------------------------------------------------
    def needs_second_pass(self) -> bool:
        return bool(self.links or self.id_candidates or self.against)

    def second_pass(self, lines: Iterable[bytes]) -> None:
        """Find what the first pass noted: the lines forks name, earlier copies, earlier uses of an id,
        the older version's events."""
        wanted = set(self.links) | set(self.copies) | set(self.against)
        ids = self.id_candidates
        found: dict[bytes, tuple[int, int, bytes | str | None]] = {}  # hash -> (first line that joined, seq, ts)
        first_id: dict[bytes, int] = {}
        last = self.stopped_at or self.lines
        for number, line in enumerate(lines, start=1):
            if number > last:
                break
            if number in self.unjoined:
                continue
            if number in self.slow:
                fields = _fields_of(_parsed(line if line.endswith(b"\n") else line + b"\n"))
                if fields is None:
                    continue
                digest, event_id = fields[0], fields[3]
            else:
                start = line.rfind(_HASH_KEY)
                digest = line[start + 8:start + 72]
                event_id = line[start + 80:line.find(b'"', start + 80)]
            if digest in wanted and digest not in found:
                found[digest] = (number, *self._seq_and_ts(number, line))
            if event_id in ids and event_id not in first_id:
                first_id[event_id] = number
        for event_id, uses in ids.items():
            for number, seq in uses:
                if first_id.get(event_id, number) < number:
                    self._report(Problem(number, seq, ProblemKind.duplicate_id,
                                         f"event id {event_id.decode('utf-8', 'replace')} is used twice"))
        self._resolve_links(found)
        for digest, (old_line, old_seq) in self.against.items():
            if digest not in found:
                self.missing.append(Problem(old_line, old_seq, ProblemKind.missing,
                                            f"event seq {old_seq} (line {old_line} of the older version) is missing "
                                            "or was changed"))

    def _seq_and_ts(self, number: int, line: bytes) -> tuple[int, bytes | str | None]:
        if number in self.slow:
            event = _parsed(line if line.endswith(b"\n") else line + b"\n")
            assert isinstance(event, dict)
            return event["seq"], event.get("ts") if isinstance(event.get("ts"), str) else None
        seq_at = line.find(_SEQ_KEY, line.find(_PREV_KEY, line.rfind(_HASH_KEY)) + 74)
        return int(line[seq_at + 6:line.find(b",", seq_at + 6)]), ts_of(line)

    def _resolve_links(self, found: dict[bytes, tuple[int, int, bytes | str | None]]) -> None:
        for digest, numbers in self.copies.items():
            first = found.get(digest)
            for number in numbers:
                if first is not None and first[0] < number:
                    self._report(Problem(number, first[1], ProblemKind.duplicated,
                                         f"the same event already stands at line {first[0]}"))
        for prev, links in self.links.items():
            target = found.get(prev)
            for link in links:
                self.parents[link.line] = target[0] if target is not None and target[0] < link.line else 0
                if target is None:  # genesis too: it names no line, and only the first line may start the chain
                    self._report(Problem(link.line, link.seq, ProblemKind.unknown_prev,
                                         "`prev` names no earlier event: an event before it was removed or edited"))
                elif target[0] > link.line:
                    self._report(Problem(link.line, link.seq, ProblemKind.reordered,
                                         f"`prev` names the event at line {target[0]}, which stands later: lines "
                                         "were reordered"))
                elif link.seq != target[1] + 1:
                    self._report(Problem(link.line, link.seq, ProblemKind.seq_gap,
                                         f"seq {link.seq} follows seq {target[1]}: an event between them was removed"))
                elif self.checks is not None and link.ts is not None and target[2] is not None:
                    ts, target_ts = instant_of(link.ts), instant_of(target[2])
                    if ts is not None and target_ts is not None and target_ts <= self.checks.now + self.checks.skew:
                        _, problem = self.checks.time(link.line, link.seq, link.ts, target[2], target[0])
                        if problem is not None and problem.kind == ProblemKind.ts_before_prev:
                            self._report(problem)

    def expect(self, older: Iterable[bytes]) -> None:
        """Every complete line of an older version must stand in the file, byte for byte: a verified line
        with the same hash has the same bytes (both hash to it; the old line's own hash is recomputed too,
        so a damaged old line counts as missing, never as present)."""
        for number, old in enumerate(older, start=1):
            if not old.endswith(b"\n"):  # an intact last line without its newline is an event; a torn one never was
                old += b"\n"
                unterminated = _fields_of(_parsed(old))
                if unterminated is None or line_hash(old) != unterminated[0]:
                    continue
            fast = chain_fields(old)
            fields = fast or _fields_of(_parsed(old))
            intact = fast is not None or (fields is not None and line_hash(old) == fields[0])
            if fields is None or not intact:
                self.missing.append(Problem(number, fields[2] if fields else None, ProblemKind.missing,
                                            f"event seq {fields[2] if fields else None} (line {number} of the older "
                                            "version) is missing or was changed"))
            else:
                self.against.setdefault(fields[0], (number, fields[2]))

    def result(self) -> Verification:
        """The problems in line order, the older version's missing events after them (they name its lines);
        stopping at the first error, only what stands before it and the error itself."""
        problems = sorted([*self.problems.values(), *self.checked], key=lambda p: (p.line, _RANK[p.kind]))
        if not self.stop_at_first or not any(p.is_error for p in problems):
            problems += self.missing
        events = self.lines
        if self.stop_at_first:
            first = next((n for n, p in enumerate(problems) if p.is_error), None)
            if first is not None:
                problems = problems[: first + 1]
                if problems[-1].kind != ProblemKind.missing:  # the lines read up to the problem, as a reader stops
                    events = min(events, problems[-1].line)
        return Verification(events, problems)


def _parsed(line: bytes) -> Any:
    """A line as JSON, or None: garbage, deep nesting and numbers Python would take ages to convert included."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None


def _fields_of(event: Any) -> Fields | None:
    """(hash, prev, seq, id) of a parsed line, whatever its layout; None if it is not an event."""
    if not isinstance(event, dict):
        return None
    seq, prev, digest, event_id = (event.get(key) for key in ("seq", "prev", "hash", "id"))
    if type(seq) is not int or not isinstance(prev, str) or not isinstance(digest, str) \
            or not isinstance(event_id, str):
        return None
    try:
        return digest.encode(), prev.encode(), seq, event_id.encode()
    except UnicodeEncodeError:  # a lone surrogate (\\ud800) parses but is no text
        return None


def verify_lines(open_lines: Callable[[], Iterable[bytes]], against: Iterable[bytes] | None = None,
                 stop_at_first: bool = False, checks: EventChecks | None = None,
                 on_event: OnEvent | None = None) -> Verification:
    """Stream the lines once; a second time only to look up what the first pass noted (see module docstring)."""
    verifier = Verifier(checks, on_event, stop_at_first)
    if against is not None:
        verifier.expect(against)
    verifier.first_pass(open_lines())
    if verifier.needs_second_pass():
        verifier.second_pass(open_lines())
    return verifier.result()
