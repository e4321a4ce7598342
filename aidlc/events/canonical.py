"""Canonical JSON (sorted keys, no spaces, UTF-8) and the event hash.

This is not RFC 8785 (JCS), and it cannot become it without a new ledger version: the hashes of every ledger
written so far are over these bytes. It agrees with RFC 8785 for what events hold in practice (ASCII keys,
integers, strings, booleans, lists, objects) and differs in two places: keys are sorted by Unicode code point,
where RFC 8785 sorts by UTF-16 code unit (keys beyond U+FFFF order differently), and a float is written as
Python writes it (`1e+16`), not in the ECMAScript form (`10000000000000000`). NaN and infinities are refused.
"""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Iterable, Iterator
from functools import cache
from itertools import repeat
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from aidlc.model.events import Event


# One encoder for every call: `json.dumps` with options builds a new one each time.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# `canonical_events` reads this many lines, or bytes, at a time: few calls per line, and bounded memory.
BLOCK_LINES, BLOCK_BYTES = 512, 1 << 20


def canonical(value: dict[str, Any]) -> bytes:
    """The one byte form of `value` (see the module docstring: what it is, and how it differs from RFC 8785)."""
    return _ENCODER.encode(value).encode("utf-8")


def event_hash(event: dict[str, Any]) -> str:
    """sha256 of the canonical event without its own `hash`."""
    return hashlib.sha256(canonical({k: v for k, v in event.items() if k != "hash"})).hexdigest()


def line_of(event: dict[str, Any]) -> bytes:
    return canonical(event) + b"\n"


def event_of(line: bytes) -> dict[str, Any] | None:
    """The JSON object of a ledger line that holds an event in the one form aidlc writes (`canonical_event`),
    else None: the raw form the scan of the chain reads its few fields from (`state.scan`: the gate decisions);
    everything else reads the model."""
    read = _canonical_read(line)
    return None if read is None else read[0]


def parse_event(line: bytes) -> Event | None:
    """The event a ledger line holds, or None if it is not one (garbage, JSON of another shape, nesting too
    deep to parse): everything that reads events can then trust their fields. Exactly the lines `event_of`
    accepts: pydantic's own JSON parser reads a line in about half the time, and a line it refuses is read
    again as `event_of` reads it (Python's parser takes a few it does not: a lone surrogate escape, a BOM)."""
    from aidlc.model.events import Event  # pydantic: imported when an event is first read

    try:
        return Event.model_validate_json(line)
    except ValueError:  # pydantic's ValidationError is a ValueError
        pass
    try:
        return Event.model_validate(json.loads(line))
    except (ValueError, TypeError, RecursionError):
        return None


def canonical_event(line: bytes) -> Event | None:
    """The event a ledger line holds if the line is byte for byte its canonical JSON, else None. A key written
    twice (JSON keeps the last; a person reading the diff sees the first), spaces, or a lone surrogate (no UTF-8
    holds it) is not."""
    read = _canonical_read(line)
    return None if read is None else read[1]


def _canonical_read(line: bytes) -> tuple[dict[str, Any], Event] | None:
    """(the JSON object, the event) of a line in canonical form. One parse serves both questions: the JSON read
    is the one the canonical bytes are made of and the one the model validates (for the rare line the model
    refuses in that form, `parse_event` decides)."""
    from aidlc.model.events import Event  # pydantic: as in `parse_event`

    try:
        value = json.loads(line.decode("utf-8"))  # bytes not UTF-8 are no canonical form of anything
        if not isinstance(value, dict) or canonical(value) != line.removesuffix(b"\n"):
            return None
    except (ValueError, RecursionError):  # UnicodeEncodeError is a ValueError; so is a NaN `canonical` refuses
        return None
    try:
        return value, Event.model_validate(value)
    except ValueError:  # pydantic's ValidationError is a ValueError
        event = parse_event(line)
        return None if event is None else (value, event)


def canonical_events(lines: Iterable[bytes]) -> Iterator[tuple[bytes, Event | None]]:
    """Each line with its `canonical_event`, in order, read a block of lines at a time (`_block_events`); a block
    with any line that is not an event in canonical form is read again a line at a time, so each line gets exactly
    what `canonical_event` gives it."""
    block: list[bytes] = []
    size = 0
    for line in lines:
        block.append(line)
        size += len(line)
        if len(block) == BLOCK_LINES or size >= BLOCK_BYTES:
            yield from _read_block(block)
            block, size = [], 0
    yield from _read_block(block)


def _read_block(block: list[bytes]) -> Iterator[tuple[bytes, Event | None]]:
    # The block's values and events all stand until it is read: the collector would walk them again and again (a
    # sixth of the work). Nothing read from JSON can be part of a cycle.
    collecting = gc.isenabled()
    gc.disable()
    try:
        events = _block_events(block) if block else None
    finally:
        if collecting:
            gc.enable()
    return zip(block, events if events is not None else map(canonical_event, block), strict=True)


def _block_events(block: list[bytes]) -> list[Event] | None:
    """The events of a block of lines when every line is one in canonical form (`canonical_event`), else None: a
    few calls for the block where a line at a time takes several Python calls per line.

    Each line is parsed on its own, as one JSON value (a block parsed as one array could take `{"a":"x` and `y"}`
    for one object). The canonical JSON of a list is its items' joined by commas, and no comma can move between two
    objects' texts (an object's text ends at its closing brace; a value that is no object is no event), so the
    values encode to the lines joined exactly when each line is its own value's canonical JSON. `json.loads` then
    reads that same value from the line (canonical JSON reads back as what it was made of), whichever parser read
    it here: pydantic's, in half the time."""
    from pydantic_core import from_json  # pydantic: as in `parse_event`

    try:
        values = list(map(from_json, block))
        lines = b",".join(map(bytes.removesuffix, block, repeat(b"\n")))
        if _ENCODER.encode(values).encode("utf-8") != b"[" + lines + b"]":
            return None
        return _event_list().validate_python(values)
    except (ValueError, RecursionError):  # as in `_canonical_read`; pydantic's ValidationError is a ValueError
        return None


@cache
def _event_list() -> TypeAdapter[list[Event]]:
    from pydantic import TypeAdapter  # pydantic: as in `parse_event`

    from aidlc.model.events import Event  # pydantic: as in `parse_event`

    return TypeAdapter(list[Event])


def why_not_event(line: bytes) -> str:
    """What keeps a line from being an event, for a message: the first thing the model refuses."""
    from pydantic import ValidationError  # only for a line that holds no event

    from aidlc.model.events import Event  # pydantic: as in `parse_event`

    try:
        Event.model_validate(json.loads(line))
    except ValidationError as exc:
        error = exc.errors()[0]
        return f"{'.'.join(map(str, error['loc'])) or 'the line'}: {error['msg'].lower()}"
    except (ValueError, TypeError, RecursionError) as exc:
        return f"not JSON ({exc})"
    return "it is one"


def plain(event: Event) -> dict[str, Any]:
    """The JSON object the event's line holds, field for field (only the fields the line set, an explicit
    null kept): its canonical bytes, and so its hash and signature, are the line's own."""
    return event.model_dump(mode="json", exclude_unset=True)
