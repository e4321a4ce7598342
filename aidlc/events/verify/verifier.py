"""One verification of a ledger: the first pass reads every line once and checks it against the line above;
what it cannot tell with what it holds it notes for the second pass (`second_pass.Noted`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from hashlib import sha256

from aidlc.events.verify.event_checks import COMMIT_BATCH, EventChecks
from aidlc.events.verify.id_filter import IdFilter
from aidlc.events.verify.lines import (
    FAST_LINE,
    HASH_KEY,
    MAX_LINE,
    TS_KEY,
    WRITTEN_TS,
    Fields,
    LongLine,
    chain_fields,
    commit_of,
    fields_of,
    line_hash,
    parsed,
    terminated,
    ts_of,
)
from aidlc.events.verify.problems import CHAIN_KINDS, NOTE_KINDS, RANK, Problem, ProblemKind, Verification
from aidlc.events.verify.second_pass import Link, Noted
from aidlc.model.events import GENESIS

_GENESIS = GENESIS.encode()
_COMMIT_KEY = b'"commit":"'
# Stands for a ts not in the form aidlc writes: it sorts after every such ts (digits), so none follows it as text.
_UNWRITTEN = b"~"
BOM = b"\xef\xbb\xbf"

OnEvent = Callable[[int, int, bytes, Fields], None]
"""Called for every line that joins the chain: (line number, offset, line, fields)."""


class Verifier:
    """`run` a verification: `first_pass` over every line, then the second pass if something was noted."""

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
        self.ids = IdFilter()
        self.noted = Noted()
        self.stopped_at: int | None = None  # the line of the first error, when stopping there
        self.fast_line = FAST_LINE  # how most lines are read; a line it does not match is read by `chain_fields`

    def run(self, open_lines: Callable[[], Iterable[bytes]]) -> Verification:
        """Stream the lines once; a second time only to look up what the first pass noted."""
        self.first_pass(open_lines())
        if self.checks is not None:  # the commits of the last batch
            for problem in self.checks.flush():
                self.report(problem)
        if self.noted.needed():
            self.noted.look_up(open_lines(), self.stopped_at or self.lines, self.report, self.checks)
        return self.result()

    def report(self, problem: Problem) -> None:
        if problem.kind in CHAIN_KINDS or problem.kind in NOTE_KINDS:
            held = self.problems.get(problem.line)
            if held is None or RANK[problem.kind] < RANK[held.kind]:
                self.problems[problem.line] = problem
        else:  # a time and a commit problem of the same line are both worth knowing
            self.checked.append(problem)
        if self.stop_at_first and problem.is_error and self.stopped_at is None:
            self.stopped_at = problem.line

    # -- pass one -------------------------------------------------------------------------------------------
    def first_pass(self, lines: Iterable[bytes]) -> None:
        """Check every line with what is at hand. This loop runs once per event: its state stays in local
        variables; what is rare (a problem, a line `fast_line` does not read, a fork) leaves it for a method."""
        checks, on_event, seen_before, candidates = self.checks, self.on_event, self.ids.seen_before, self.noted.ids
        fast_line, judged = self.fast_line.match, checks.judged if checks is not None else set()
        latest, dates = (checks.latest, checks.dates) if checks is not None else (b"", set())
        number, offset, good_size, tip, tip_line = self.lines, self.offset, self.good_size, self.tip, self.tip_line
        tip_hash, tip_seq = (tip[0], tip[2]) if tip else (None, 0)
        tip_ts, tip_written = self.tip_ts, self.tip_written
        # The tip's ts when it is in the form aidlc writes (such times compare as text), else one no such time follows.
        after = tip_ts if tip_written and isinstance(tip_ts, bytes) else _UNWRITTEN
        for line in lines:
            number += 1
            start = line.rfind(HASH_KEY)
            match = fast_line(line, start) if len(line) <= MAX_LINE else None
            if match is not None:
                digest, event_id, prev, seq_text, ts = match.groups()
                if sha256(line[:start] + line[start + 74:-1]).hexdigest().encode() == digest:
                    seq, slow, slow_ts = int(seq_text), False, None
                else:
                    match = None
            if match is None:
                read = self._read_other(line, number, tip)
                if read is None:  # not an event of the chain (reported)
                    offset += _size(line)
                    if self.stopped_at is not None:
                        break
                    continue
                (digest, prev, seq, event_id), slow_ts, slow = read
                ts = _UNWRITTEN
            fields = (digest, prev, seq, event_id)
            link = None
            if prev != tip_hash or seq != tip_seq + 1:  # not simply the next line of the chain
                link = self._joins_elsewhere(number, fields, tip_hash, tip_seq)
            if seen_before(event_id):
                candidates.setdefault(event_id, []).append((number, seq))
            if checks is not None:
                # The common case, checked here without a call: a time in the form aidlc writes, not before the
                # tip's (also so written) and not in the future. Anything else goes to `_check_time`.
                if link is None and after <= ts <= latest and ts[:10] in dates:
                    tip_ts = after = ts
                else:
                    tip_ts, tip_written = self._check_time(checks, number, seq, line, slow, slow_ts, link,
                                                           tip_line, tip_ts, tip_written)
                    after = tip_ts if tip_written and isinstance(tip_ts, bytes) else _UNWRITTEN
                # find, not `in`: `in` first tries the key as a byte value, raising and clearing a TypeError
                if line.find(_COMMIT_KEY) != -1 and (slow or commit_of(line) not in judged):
                    self._check_commit(checks, number, seq, line, slow)
            if match is None and line[-1] != 10:
                self._unterminated(number, seq)
            if on_event is not None:
                on_event(number, offset, line, fields)
            tip, tip_line, tip_hash, tip_seq = fields, number, digest, seq
            offset += len(line)
            good_size = offset
            if self.stopped_at is not None:
                break
        self.lines, self.offset, self.good_size, self.tip, self.tip_line = number, offset, good_size, tip, tip_line
        self.tip_ts, self.tip_written = tip_ts, tip_written

    def _joins_elsewhere(self, number: int, fields: Fields, tip_hash: bytes | None, tip_seq: int) -> Link | None:
        """A line that is not simply the next of the chain: a seq gap after the line above, the first line, or a
        fork, a removal or a copy (noted: the second pass finds what it names)."""
        digest, prev, seq, _ = fields
        if prev == tip_hash:
            self.report(Problem(number, seq, ProblemKind.seq_gap,
                                f"seq {seq} follows seq {tip_seq}: an event between them was removed"))
        elif prev == _GENESIS and number == 1:
            if seq != 1:
                self.report(Problem(number, seq, ProblemKind.seq_gap,
                                    f"seq {seq} follows seq 0: an event between them was removed"))
        else:
            return self.noted.link(number, seq, digest, prev)
        return None

    def _check_time(self, checks: EventChecks, number: int, seq: int, line: bytes, slow: bool,
                    ts: bytes | str | None, link: Link | None, tip_line: int, tip_ts: bytes | str | None,
                    tip_written: bool) -> tuple[bytes | str | None, bool]:
        """The event's ts against the one it follows and the clock; the ts the next event follows and whether it
        is in the form aidlc writes. A time in that form, not before the line above, is checked by comparing text;
        any other is compared as an instant by `checks.time`."""
        at = -1 if slow else line.rfind(TS_KEY)
        match = WRITTEN_TS.match(line, at) if at != -1 else None
        after = tip_ts if link is None else None
        written = match is not None and (match[1] in checks.dates or checks.valid_date(match[1]))
        # A tip whose ts was written so holds it as bytes (tip_written says so; isinstance tells mypy).
        if written and (after is None or (tip_written and isinstance(after, bytes)
                                          and after <= line[at + 6:at + 33])):
            ts = line[at + 6:at + 33]
            usable = ts <= checks.latest
            problem = None if usable else checks.time(number, seq, ts, after, tip_line)[1]
        else:
            if not slow:
                ts = ts_of(line)
            usable, problem = checks.time(number, seq, ts, after, tip_line)
        if problem is not None:
            self.report(problem)
        if link is not None and usable:
            link.ts = ts
        return (ts if usable else None), written

    def _check_commit(self, checks: EventChecks, number: int, seq: int, line: bytes, slow: bool) -> None:
        commit = _parsed_commit(line) if slow else commit_of(line)
        if commit is not None and (problem := checks.commit(number, seq, commit)) is not None:
            self.report(problem)
        if len(checks.pending) >= COMMIT_BATCH:
            for problem in checks.flush():
                self.report(problem)

    def _unterminated(self, number: int, seq: int) -> None:
        self.unterminated = True
        self.report(Problem(number, seq, ProblemKind.unterminated,
                            "the last line lacks its newline; it is complete and its hash recomputes, so it is kept: "
                            "the next append adds the newline"))

    def _read_other(self, line: bytes, number: int,
                    tip: Fields | None) -> tuple[Fields, bytes | str | None, bool] | None:
        """A line `fast_line` does not read (or whose hash does not recompute): its fields found one by one, with
        no ts and not parsed; else parsed: its fields, its ts as parsed, parsed; None when it is not an event."""
        found = chain_fields(line) if line[-1] == 10 and len(line) <= MAX_LINE else None
        if found is not None:
            return found, None, False
        self.tip, self.lines = tip, number  # a torn line is named by the seq after the tip
        found, ts = self._read_slow(line)
        return None if found is None else (found, ts, True)

    def _read_slow(self, line: bytes) -> tuple[Fields, bytes | str | None] | tuple[None, None]:
        """A line the fast path could not read, parsed: its fields and its `ts` (as parsed), or (None, None)
        when it is not an event of the chain, its problem reported."""
        found = self._slow_fields(line)
        if isinstance(found, Problem):
            self.noted.unjoined.add(self.lines)
            self.report(found)
            return None, None
        self.noted.slow.add(self.lines)
        return found

    def _slow_fields(self, line: bytes) -> tuple[Fields, bytes | str | None] | Problem:
        number = self.lines
        if len(line) > MAX_LINE:
            if not line.endswith(b"\n"):
                return self._torn(number)
            size = line.size if isinstance(line, LongLine) else len(line)
            return Problem(number, None, ProblemKind.invalid, f"the line is {size:,} bytes long; an event is at "
                           f"most {MAX_LINE:,} bytes")
        complete = terminated(line)
        fields = chain_fields(complete) if complete is not line else None
        if fields is not None:  # a canonical last line that only lacks its newline
            return fields, ts_of(complete)
        event = parsed(complete)
        fields = fields_of(event)
        if fields is None:
            if not line.endswith(b"\n"):
                return self._torn(number)
            return Problem(number, None, ProblemKind.invalid, "not a JSON event with seq, prev, hash and id")
        if line_hash(complete) != fields[0]:
            return self._edited(number, line, fields)
        return fields, event.get("ts") if isinstance(event.get("ts"), str) else None

    def _edited(self, number: int, line: bytes, fields: Fields) -> Problem:
        digest, _, seq, _ = fields
        if not line.endswith(b"\n"):
            return self._torn(number)
        if line.endswith(b"\r\n") and line_hash(line[:-2] + b"\n") == digest:
            return Problem(number, seq, ProblemKind.edited, "the line ends in CRLF: a checkout converted line "
                           "ends (mark the ledger `-text` in .gitattributes)")
        if number == 1 and line.startswith(BOM) and line_hash(line[len(BOM):]) == digest:
            return Problem(number, seq, ProblemKind.edited, "the file starts with a byte order mark (bytes EF BB BF) "
                           "that an editor added on saving: remove those three bytes, the line is otherwise intact")
        return Problem(number, seq, ProblemKind.edited, "the hash does not match the content: the line was edited")

    def _torn(self, number: int) -> Problem:
        seq = self.tip[2] + 1 if self.tip else 1  # the seq an append after the last good line would give
        return Problem(number, seq, ProblemKind.torn, "the last line is incomplete (a write was interrupted); "
                       "the next append moves it aside")

    def result(self) -> Verification:
        """The problems in line order, the older version's missing events after them (they name its lines);
        stopping at the first error, only what stands before it and the error itself."""
        problems = sorted([*self.problems.values(), *self.checked], key=lambda p: (p.line, RANK[p.kind]))
        if not self.stop_at_first or not any(p.is_error for p in problems):
            problems += self.noted.missing
        events = self.lines
        if self.stop_at_first:
            first = next((n for n, p in enumerate(problems) if p.is_error), None)
            if first is not None:
                problems = problems[: first + 1]
                if problems[-1].kind != ProblemKind.missing:  # the lines read up to the problem, as a reader stops
                    events = min(events, problems[-1].line)
        return Verification(events, problems)


def _parsed_commit(line: bytes) -> str | None:
    event = parsed(terminated(line))
    commit = event.get("commit") if isinstance(event, dict) else None
    return commit if isinstance(commit, str) else None


def _size(line: bytes) -> int:
    return line.size if isinstance(line, LongLine) else len(line)
