"""A ledger's lines as bytes: how the file is cut into lines, and where a canonical line keeps the fields the
verifier reads without parsing it as JSON.

A canonical line has its keys sorted (`actor`, `commit`, `data`, ..., `hash`, `id`, [`key`], `prev`, [`reason`,
`run`], `seq`, ..., `ts`, `type`, `v`) and no spaces, so each field stands at a place a byte search finds. A quote
can only stand unescaped in JSON where a string starts or ends, so `"prev":"` cannot be found inside a value.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from functools import partial
from typing import Any, BinaryIO

MAX_LINE = 1 << 20  # bytes; an event holds digests, paths and short texts, never this much

HASH_KEY = b'"hash":"'
_AFTER_HASH = b'","id":"'  # canonical order: `id` is the key right after `hash`
_PREV_KEY = b'"prev":"'
_SEQ_KEY = b'"seq":'
_KEY_KEY = b'"key":"'
TS_KEY = b'"ts":"'
_NAME_KEY = b'"name":"'
_COMMIT_AFTER_ACTOR = b'},"commit":"'
_ACTOR_START = b'{"actor":{'
# The form aidlc writes (UTC, microseconds): one match finds and checks it; such times compare as text.
WRITTEN_TS = re.compile(rb'"ts":"(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))T(?:[01]\d|2[0-3]):[0-5]\d:'
                        rb'[0-5]\d\.\d{6}Z"')
# A canonical line from its last `"hash":"` to its end in one C call: hash, id, [key], prev, [reason], [run], seq,
# [signature, stage, subject], ts, type, v. Its groups (hash, id, prev, seq, ts) are what `chain_fields` finds, each
# where it finds it (the texts before seq hold no quote, so no key), and the ts at the last `"ts":"` (what follows
# holds none), its time of day in the form aidlc writes; its date is any ten bytes: the verifier takes the ts as
# written only when the date is one of `EventChecks.dates`, found valid by `WRITTEN_TS`. Hash and prev are any 64
# bytes, as for `chain_fields` (`(?s:.)` takes any byte without looking at it). Possessive repeats: nothing matched
# is given back. A line it does not match is read by `chain_fields`.
FAST_LINE = re.compile(rb'"hash":"((?s:.{64}))","id":"([^"]*+)"(?:,"key":"[^"]*+")?+,"prev":"((?s:.{64}))",'
                       rb'(?:"reason":"[^"]*+",)?+(?:"run":"[^"]*+",)?+"seq":(\d++),(?:"signature":\{[^}]*+\},)?+'
                       rb'(?:"stage":"[^"]*+",)?+(?:"subject":\{[^}]*+\},)?+'
                       rb'"ts":"((?s:.{10})T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}Z)","type":"[^"]*+","v":\d++\}\n\Z')
# The top-level commit of a canonical line whose actor has the fields aidlc writes; `commit_of` reads any other.
_TOP_COMMIT = re.compile(rb'\{"actor":\{(?:"email":"[^"\\]*+",)?+"kind":"[^"\\]*+","name":"[^"\\]*+"\},'
                         rb'"commit":"([^"\\]*+)"')

Fields = tuple[bytes, bytes, int, bytes]  # hash, prev, seq, id


class LongLine(bytes):
    """The first MAX_LINE + 1 bytes of a longer line (and its newline, if it had one); `size` is its length."""

    size: int


def read_lines(handle: BinaryIO, limit: int | None = None) -> Iterator[bytes]:
    """The lines of a ledger file as the verifier reads them (split at b"\\n", ends kept), up to `limit`
    bytes (what the file held when its size was taken), a line longer than MAX_LINE as a LongLine, so
    that a huge line never stands in memory whole."""
    if limit is None:  # the common case, one C call per line
        for line in iter(partial(handle.readline, MAX_LINE + 1), b""):
            yield _rest_of(handle, line, -1)[0] if len(line) > MAX_LINE and not line.endswith(b"\n") else line
        return
    left = limit
    while left and (line := handle.readline(min(MAX_LINE + 1, left))):
        left -= len(line)
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            line, left = _rest_of(handle, line, left)
        yield line


def _rest_of(handle: BinaryIO, start: bytes, left: int) -> tuple[LongLine, int]:
    """A long line that begins with `start`, the rest read past without being kept; and the bytes then left to
    read (-1: no limit)."""
    size, ended = len(start), False
    while left and (more := handle.readline(MAX_LINE if left < 0 else min(MAX_LINE, left))):
        size += len(more)
        left -= len(more) if left > 0 else 0
        if more.endswith(b"\n"):
            ended = True
            break
    long = LongLine(start + b"\n" if ended else start)
    long.size = size
    return long, left


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
    start = line.rfind(HASH_KEY)
    if start == -1:
        return b""
    end = start + len(HASH_KEY) + 64 + 2  # the digest, its closing quote and the comma
    return hashlib.sha256(line[:start] + line[end:].rstrip(b"\n")).hexdigest().encode()


def chain_fields(line: bytes) -> Fields | None:
    """(hash, prev, seq, id) of a newline-terminated canonical line whose hash recomputes, else None."""
    start = line.rfind(HASH_KEY)
    if start == -1 or not line.startswith(_AFTER_HASH, start + 72):
        return None
    id_end = line.find(b'"', start + 80)
    prev_at = line.find(_PREV_KEY, id_end)
    if id_end == -1 or prev_at == -1 or not line.startswith(b'",', prev_at + 72):
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
    start = line.find(_KEY_KEY, line.rfind(HASH_KEY))
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
    at = line.rfind(TS_KEY)
    if at == -1:
        return None
    end = line.find(b'"', at + 6)
    return line[at + 6:end] if end != -1 else None


def commit_of(line: bytes) -> bytes | None:
    """The raw top-level `commit` of a canonical line: the key right after the `actor` object (whose last
    member is `name`), so a `commit` inside `data` is never taken for it."""
    top = _TOP_COMMIT.match(line)
    if top is not None:
        return top[1]
    if not line.startswith(_ACTOR_START):
        return None
    name = line.find(_NAME_KEY, len(_ACTOR_START))
    end = _string_end(line, name + len(_NAME_KEY)) if name != -1 else -1
    if end == -1 or not line.startswith(_COMMIT_AFTER_ACTOR, end + 1):
        return None
    start = end + 1 + len(_COMMIT_AFTER_ACTOR)
    close = _string_end(line, start)
    return line[start:close] if close != -1 else None


def parsed(line: bytes) -> Any:
    """A line as JSON, or None: garbage, deep nesting and numbers Python would take ages to convert included."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None


def fields_of(event: Any) -> Fields | None:
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


def terminated(line: bytes) -> bytes:
    """The line with its newline (a last line may lack it)."""
    return line if line.endswith(b"\n") else line + b"\n"
