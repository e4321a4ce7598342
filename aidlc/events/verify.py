"""Verifying the ledger: every hash recomputes, every `prev` names an earlier event, nothing
was removed, reordered, duplicated or edited, and (against a git ref) nothing old is missing.

`seq` is one more than the seq of the event named by `prev`: this detects a removed event
and stays true when two branches both append and their lines are merged (the two forks
may then share a seq, which is why seq is checked along the chain, not for uniqueness).
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
    hashes: dict[str, int] = field(default_factory=dict)  # hash -> seq, for rules that follow the chain

    @property
    def ok(self) -> bool:
        return not self.problems


_HASH_KEY = b'"hash":"'


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


def verify_lines(open_lines: Callable[[], Iterable[bytes]], against: Iterable[bytes] | None = None,
                 stop_at_first: bool = False) -> Verification:
    """Stream the lines once; only when a `prev` is unknown is the file read again to say why."""
    result = Verification()
    seen_ids: set[str] = set()
    seq_of: dict[str, int] = {GENESIS: 0}
    for number, line in enumerate(open_lines(), start=1):
        problem = _check_line(number, line, seq_of, seen_ids, open_lines)
        result.events += 1
        if problem is not None:
            result.problems.append(problem)
            if stop_at_first:
                return result
    if against is not None:
        for number, old in enumerate(against, start=1):
            digest = _field(old, "hash")
            if old.endswith(b"\n") and digest not in seq_of:
                seq = _field(old, "seq")
                result.problems.append(Problem(number, seq if isinstance(seq, int) else None, ProblemKind.missing,
                                               f"event seq {seq} (line {number} of the older version) is missing "
                                               "or was changed"))
                if stop_at_first:
                    break
    del seq_of[GENESIS]
    result.hashes = seq_of
    return result


def _check_line(number: int, line: bytes, seq_of: dict[str, int], seen_ids: set[str],
                open_lines: Callable[[], Iterable[bytes]]) -> Problem | None:
    if not line.endswith(b"\n"):
        return Problem(number, None, ProblemKind.torn, "the last line is incomplete (a write was interrupted); "
                       "the next append moves it aside")
    try:
        event = json.loads(line)
        seq, prev, digest, event_id = event["seq"], event["prev"], event["hash"], event["id"]
    except (ValueError, KeyError, TypeError):
        return Problem(number, None, ProblemKind.invalid, "not a JSON event with seq, prev, hash and id")
    if line_hash(line) != str(digest).encode():
        return Problem(number, seq, ProblemKind.edited, "the hash does not match the content: the line was edited")
    if digest in seq_of:
        return Problem(number, seq, ProblemKind.duplicated,
                       f"the same event already stands at line {_line_of_hash(open_lines, digest)}")
    if event_id in seen_ids:
        return Problem(number, seq, ProblemKind.duplicate_id, f"event id {event_id} is used twice")
    if prev not in seq_of or (prev == GENESIS and number != 1):
        where = _line_of_hash(open_lines, prev) if prev != GENESIS else None
        if where is not None and where > number:
            return Problem(number, seq, ProblemKind.reordered,
                           f"`prev` names the event at line {where}, which stands later: lines were reordered")
        return Problem(number, seq, ProblemKind.unknown_prev,
                       "`prev` names no earlier event: an event before it was removed or edited")
    if seq != seq_of[prev] + 1:
        return Problem(number, seq, ProblemKind.seq_gap,
                       f"seq {seq} follows seq {seq_of[prev]}: an event between them was removed")
    seq_of[digest] = seq
    seen_ids.add(event_id)
    return None


def _line_of_hash(open_lines: Callable[[], Iterable[bytes]], digest: str) -> int | None:
    needle = f'"hash":"{digest}"'.encode()
    for number, line in enumerate(open_lines(), start=1):
        if needle in line:
            return number
    return None


def _field(line: bytes, name: str) -> object:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event.get(name) if isinstance(event, dict) else None
