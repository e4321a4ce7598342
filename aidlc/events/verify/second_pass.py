"""What the first pass could not tell with what it holds, and the second pass that looks it up: the line each
fork names (a line whose `prev` is not the line above), whether a line that names another copies an earlier
one, whether an id the filter may have seen really stood earlier, and (against an older version) whether each
of its events still stands in the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from aidlc.events.verify.event_checks import EventChecks
from aidlc.events.verify.lines import HASH_KEY, chain_fields, fields_of, line_hash, parsed, terminated, ts_of
from aidlc.events.verify.problems import Problem, ProblemKind

_PREV_KEY = b'"prev":"'
_SEQ_KEY = b'"seq":'
Found = dict[bytes, tuple[int, int, "bytes | str | None"]]  # hash -> (first line that joined, seq, ts)


@dataclass
class Link:
    """A line whose `prev` is not the line just above it: resolved by the second pass."""

    line: int
    seq: int
    ts: bytes | str | None  # to check against the ts of the line it names (None: not to be checked)


class Noted:
    """What the first pass noted for the second; bounded by what is rare in a real ledger (forks, candidates),
    plus the older version's hashes, one per event it had."""

    def __init__(self) -> None:
        self.links: dict[bytes, list[Link]] = {}  # prev -> the lines naming it, when not the line above
        self.copies: dict[bytes, list[int]] = {}  # own hash -> lines (of such links) that may copy an earlier line
        self.ids: dict[bytes, list[tuple[int, int]]] = {}  # id -> (line, seq) of lines that may reuse it
        self.unjoined: set[int] = set()  # lines that are not events
        self.slow: set[int] = set()  # lines read by the slow path (their byte layout is not canonical)
        self.against: dict[bytes, tuple[int, int | None]] = {}  # older version: hash -> (its line, seq)
        self.missing: list[Problem] = []  # events of the older version this file lacks (their lines are old lines)
        self.parents: dict[int, int] = {}  # line of a fork -> line of the event it names (0: none known)

    def link(self, number: int, seq: int, digest: bytes, prev: bytes) -> Link:
        link = Link(number, seq, None)
        self.links.setdefault(prev, []).append(link)
        self.copies.setdefault(digest, []).append(number)
        return link

    def needed(self) -> bool:
        return bool(self.links or self.ids or self.against)

    def expect(self, older: Iterable[bytes]) -> None:
        """Every complete line of an older version must stand in the file, byte for byte: a verified line
        with the same hash has the same bytes (both hash to it; the old line's own hash is recomputed too,
        so a damaged old line counts as missing, never as present)."""
        for number, old in enumerate(older, start=1):
            if not old.endswith(b"\n"):  # an intact last line without its newline is an event; a torn one never was
                old += b"\n"
                unterminated = fields_of(parsed(old))
                if unterminated is None or line_hash(old) != unterminated[0]:
                    continue
            fast = chain_fields(old)
            fields = fast or fields_of(parsed(old))
            intact = fast is not None or (fields is not None and line_hash(old) == fields[0])
            if fields is None or not intact:
                self.missing.append(_missing(number, fields[2] if fields else None))
            else:
                self.against.setdefault(fields[0], (number, fields[2]))

    def look_up(self, lines: Iterable[bytes], last: int, report: Callable[[Problem], None],
                checks: EventChecks | None) -> None:
        """Read lines 1 to `last` again for what was noted, and report what it shows."""
        wanted = set(self.links) | set(self.copies) | set(self.against)
        found: Found = {}
        first_id: dict[bytes, int] = {}
        for number, line in enumerate(lines, start=1):
            if number > last:
                break
            if number in self.unjoined:
                continue
            ids = self._hash_and_id(number, line)
            if ids is None:
                continue
            digest, event_id = ids
            if digest in wanted and digest not in found:
                found[digest] = (number, *self._seq_and_ts(number, line))
            if event_id in self.ids and event_id not in first_id:
                first_id[event_id] = number
        for event_id, uses in self.ids.items():
            for number, seq in uses:
                if first_id.get(event_id, number) < number:
                    report(Problem(number, seq, ProblemKind.duplicate_id,
                                   f"event id {event_id.decode('utf-8', 'replace')} is used twice"))
        self._resolve_copies(found, report)
        self._resolve_links(found, report, checks)
        for digest, (old_line, old_seq) in self.against.items():
            if digest not in found:
                self.missing.append(_missing(old_line, old_seq))

    def _hash_and_id(self, number: int, line: bytes) -> tuple[bytes, bytes] | None:
        if number in self.slow:
            fields = fields_of(parsed(terminated(line)))
            return (fields[0], fields[3]) if fields is not None else None
        start = line.rfind(HASH_KEY)
        return line[start + 8:start + 72], line[start + 80:line.find(b'"', start + 80)]

    def _seq_and_ts(self, number: int, line: bytes) -> tuple[int, bytes | str | None]:
        if number in self.slow:
            event = parsed(terminated(line))
            assert isinstance(event, dict)
            return event["seq"], event.get("ts") if isinstance(event.get("ts"), str) else None
        seq_at = line.find(_SEQ_KEY, line.find(_PREV_KEY, line.rfind(HASH_KEY)) + 74)
        return int(line[seq_at + 6:line.find(b",", seq_at + 6)]), ts_of(line)

    def _resolve_copies(self, found: Found, report: Callable[[Problem], None]) -> None:
        for digest, numbers in self.copies.items():
            first = found.get(digest)
            for number in numbers:
                if first is not None and first[0] < number:
                    report(Problem(number, first[1], ProblemKind.duplicated,
                                   f"the same event already stands at line {first[0]}"))

    def _resolve_links(self, found: Found, report: Callable[[Problem], None], checks: EventChecks | None) -> None:
        for prev, links in self.links.items():
            target = found.get(prev)
            for link in links:
                self.parents[link.line] = target[0] if target is not None and target[0] < link.line else 0
                if target is None:  # genesis too: it names no line, and only the first line may start the chain
                    report(Problem(link.line, link.seq, ProblemKind.unknown_prev,
                                   "`prev` names no earlier event: an event before it was removed or edited"))
                elif target[0] > link.line:
                    report(Problem(link.line, link.seq, ProblemKind.reordered,
                                   f"`prev` names the event at line {target[0]}, which stands later: lines "
                                   "were reordered"))
                elif link.seq != target[1] + 1:
                    report(Problem(link.line, link.seq, ProblemKind.seq_gap,
                                   f"seq {link.seq} follows seq {target[1]}: an event between them was removed"))
                elif checks is not None and link.ts is not None and target[2] is not None:
                    problem = checks.fork_time(link.line, link.seq, link.ts, target[2], target[0])
                    if problem is not None:
                        report(problem)


def _missing(line: int, seq: int | None) -> Problem:
    return Problem(line, seq, ProblemKind.missing,
                   f"event seq {seq} (line {line} of the older version) is missing or was changed")
