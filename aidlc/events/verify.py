"""Verifying the ledger: every hash recomputes, every `prev` names an earlier event, nothing
was removed, reordered, duplicated or edited, and (against a git ref) nothing old is missing.

`seq` is one more than the seq of the event named by `prev`: this detects a removed event
and stays true when two branches both append and their lines are merged (the two forks
may then share a seq, which is why seq is checked along the chain, not for uniqueness).

Speed: a canonical line has its chain fields at known places (keys are sorted: `hash`, `id`,
[`key`], `prev`, [`reason`, `run`], `seq`), so the fast path finds them with byte searches and
recomputes the hash over the raw bytes, without parsing the line as JSON (parsing costs more
than all the checks together). A quote can only stand unescaped in JSON where a string starts
or ends, so `"prev":"` cannot be found inside a value. A line the fast path cannot read goes
to the slow path, which parses it and says what is wrong with it. What the fast path does not
prove is that the rest of a line whose hash recomputes is well-formed JSON: random damage
cannot keep the hash, and a forger can write a valid line as easily as a broken one; readers
(`Ledger.events`) parse every line and skip what is not JSON.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from aidlc.model.events import GENESIS


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


@dataclass(frozen=True)
class Problem:
    line: int
    seq: int | None
    kind: ProblemKind
    message: str


@dataclass
class Verification:
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    seq_of: dict[bytes, int] = field(default_factory=dict, repr=False)  # hash (hex, as bytes) -> claimed seq

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def hashes(self) -> dict[str, int]:
        """hash -> seq of every event whose hash recomputes, for rules that follow the chain (built on demand)."""
        return {digest.decode(): seq for digest, seq in self.seq_of.items()}


_GENESIS = GENESIS.encode()
_HASH_KEY = b'"hash":"'
_AFTER_HASH = b'","id":"'  # canonical order: `id` is the key right after `hash`
_PREV_KEY = b'"prev":"'
_SEQ_KEY = b'"seq":'
_KEY_KEY = b'"key":"'

Fields = tuple[bytes, bytes, int, bytes]  # hash, prev, seq, id


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


class Chain:
    """The state of a verification in progress: fed line by line, so an appender can check only
    the lines added since its last look (see Ledger)."""

    def __init__(self, open_lines: Callable[[], Iterable[bytes]]) -> None:
        self.open_lines = open_lines  # read again only to explain a problem
        self.lines = 0
        self.seq_of: dict[bytes, int] = {_GENESIS: 0}
        self.ids: set[bytes] = set()
        self.last: Fields | None = None

    def feed(self, line: bytes) -> Problem | None:
        """Check the next line; a good one joins the chain, a bad one is reported and left out."""
        self.lines += 1
        fields = chain_fields(line) if line.endswith(b"\n") else None
        if fields is None:
            found = self._slow_fields(line)
            if isinstance(found, Problem):
                return found
            fields = found
        digest, prev, seq, event_id = fields
        seq_of = self.seq_of
        if digest in seq_of:
            return self._problem(seq, ProblemKind.duplicated,
                                 f"the same event already stands at line {self._line_of_hash(digest)}")
        problem = None
        known = seq_of.get(prev)
        if event_id in self.ids:
            problem = self._problem(seq, ProblemKind.duplicate_id, f"event id {event_id.decode()} is used twice")
        elif known is None or (known == 0 and self.lines != 1):
            problem = self._unknown_prev(seq, prev)
        elif seq != known + 1:
            problem = self._problem(seq, ProblemKind.seq_gap,
                                    f"seq {seq} follows seq {known}: an event between them was removed")
        # A line whose own hash recomputes joins the chain even when its link is wrong: the lines
        # after it are then judged on their own, and one removal is one problem, not a cascade.
        seq_of[digest] = seq
        self.ids.add(event_id)
        self.last = fields
        return problem

    def _slow_fields(self, line: bytes) -> Fields | Problem:
        """Parse a line the fast path could not read, to say what is wrong with it (or read it anyway)."""
        if not line.endswith(b"\n"):  # its seq is the one an append after the last good line would give
            seq = self.last[2] + 1 if self.last else 1
            return self._problem(seq, ProblemKind.torn, "the last line is incomplete (a write was interrupted); "
                                 "the next append moves it aside")
        fields = _parsed_fields(line)
        if fields is None:
            return self._problem(None, ProblemKind.invalid, "not a JSON event with seq, prev, hash and id")
        digest, _, seq, _ = fields
        if line_hash(line) != digest:
            if line.endswith(b"\r\n") and line_hash(line[:-2] + b"\n") == digest:
                return self._problem(seq, ProblemKind.edited, "the line ends in CRLF: a checkout converted line "
                                     "ends (mark the ledger `-text` in .gitattributes)")
            return self._problem(seq, ProblemKind.edited,
                                 "the hash does not match the content: the line was edited")
        return fields

    def _unknown_prev(self, seq: int, prev: bytes) -> Problem:
        where = self._line_of_hash(prev) if prev != _GENESIS else None
        if where is not None and where > self.lines:
            return self._problem(seq, ProblemKind.reordered,
                                 f"`prev` names the event at line {where}, which stands later: lines were reordered")
        return self._problem(seq, ProblemKind.unknown_prev,
                             "`prev` names no earlier event: an event before it was removed or edited")

    def _problem(self, seq: int | None, kind: ProblemKind, message: str) -> Problem:
        return Problem(self.lines, seq, kind, message)

    def _line_of_hash(self, digest: bytes) -> int | None:
        needle = _HASH_KEY + digest + b'"'
        for number, line in enumerate(self.open_lines(), start=1):
            if needle in line:
                return number
        return None


def verify_lines(open_lines: Callable[[], Iterable[bytes]], against: Iterable[bytes] | None = None,
                 stop_at_first: bool = False) -> Verification:
    """Stream the lines once; only when a `prev` is unknown is the file read again to say why."""
    result = Verification()
    chain = Chain(open_lines)
    feed, problems = chain.feed, result.problems
    for line in open_lines():
        problem = feed(line)
        if problem is not None:
            problems.append(problem)
            if stop_at_first:
                break
    result.events = chain.lines
    if against is not None and not (stop_at_first and problems):
        _check_against(chain.seq_of, against, problems, stop_at_first)
    del chain.seq_of[_GENESIS]
    result.seq_of = chain.seq_of
    return result


def _parsed_fields(line: bytes) -> Fields | None:
    """(hash, prev, seq, id) of a line parsed as JSON, whatever its layout; None if it is not an event."""
    try:
        event = json.loads(line)
        seq, prev, digest, event_id = event["seq"], event["prev"], event["hash"], event["id"]
    except (ValueError, KeyError, TypeError):
        return None
    if type(seq) is not int or not all(isinstance(value, str) for value in (prev, digest, event_id)):
        return None
    return digest.encode(), prev.encode(), seq, event_id.encode()


def _check_against(seq_of: dict[bytes, int], against: Iterable[bytes], problems: list[Problem],
                   stop_at_first: bool) -> None:
    """Every complete line of the older version stands in the file, byte for byte.

    A verified line with the same hash has the same bytes: both hash to it, and the old line's own
    hash is recomputed too (a damaged old line counts as missing, never as present).
    """
    for number, old in enumerate(against, start=1):
        if not old.endswith(b"\n"):
            continue  # a torn tail in the old version was never an event
        fast = chain_fields(old)  # its hash recomputed already; a line it cannot read is parsed and hashed
        fields = fast or _parsed_fields(old)
        intact = fast is not None or (fields is not None and line_hash(old) == fields[0])
        if fields is None or not intact or fields[0] not in seq_of:
            seq = fields[2] if fields else None
            problems.append(Problem(number, seq, ProblemKind.missing,
                                    f"event seq {seq} (line {number} of the older version) is missing or was changed"))
            if stop_at_first:
                return
