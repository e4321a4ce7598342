"""Canonical JSON (sorted keys, no spaces, UTF-8) and the event hash.

This is not RFC 8785 (JCS), and it cannot become it without a new ledger version: the hashes of every ledger
written so far are over these bytes. It agrees with RFC 8785 for what events hold in practice (ASCII keys,
integers, strings, booleans, lists, objects) and differs in two places: keys are sorted by Unicode code point,
where RFC 8785 sorts by UTF-16 code unit (keys beyond U+FFFF order differently), and a float is written as
Python writes it (`1e+16`), not in the ECMAScript form (`10000000000000000`). NaN and infinities are refused.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical(value: dict[str, Any]) -> bytes:
    """The one byte form of `value` (see the module docstring: what it is, and how it differs from RFC 8785)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def event_hash(event: dict[str, Any]) -> str:
    """sha256 of the canonical event without its own `hash`."""
    return hashlib.sha256(canonical({k: v for k, v in event.items() if k != "hash"})).hexdigest()


def line_of(event: dict[str, Any]) -> bytes:
    return canonical(event) + b"\n"


def event_of(line: bytes) -> dict[str, Any] | None:
    """The event a ledger line holds, or None if it is not one (garbage, JSON of another shape, nesting too
    deep to parse): everything that reads events can then trust their fields."""
    from aidlc.model.events import Event  # pydantic: imported when an event is first read

    try:
        event = json.loads(line)
        Event.model_validate(event)
    except (ValueError, TypeError, RecursionError):  # pydantic's ValidationError is a ValueError
        return None
    return event
