"""Ledger lines built by hand, as a forger (or a careless script) would write them: correctly chained and
hashed, with whatever `ts`, `commit` or other field a test needs. Nothing here goes through Ledger.append."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from aidlc.events.canonical import canonical, event_hash, line_of
from aidlc.events.verify import line_hash
from aidlc.model.events import GENESIS

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # in the past: the checks judge the future against the real clock


# A field of an event as a forger might set it, and what a finding then names: lines chained and hashed that hold no
# event (AIDLC-LEDGER-018 on a memory bank, AIDLC-DOCS-043 on the aidlc-docs layout).
NOT_EVENTS = [
    pytest.param({"actor": None}, "actor: field required", id="no-actor"),
    pytest.param({"type": "gate.forged"}, "type: input should be", id="unknown-type"),
    pytest.param({"data": "approved"}, "data: input should be a valid dictionary", id="data-text"),
    pytest.param({"approved_by": "Ada"}, "approved_by: extra inputs are not permitted", id="extra-field"),
    # a check result whose details are not of the types aidlc writes them in (every reader would trust them)
    pytest.param({"data": {"name": "tests", "passed": "yes"}},
                 "data: a check result's passed: input should be a valid boolean", id="check-passed-text"),
    pytest.param({"data": {"name": "tests", "passed": True,
                           "tests": {"total": "many", "failures": 0, "errors": 0, "skipped": 0}}},
                 "data: a check result's tests.total: input should be a valid integer", id="check-count-text"),
    pytest.param({"data": {"name": "tests", "passed": True,
                           "tests": {"total": "5", "failures": 0, "errors": 0, "skipped": 0}}},
                 "data: a check result's tests.total: input should be a valid integer", id="check-count-as-text"),
    pytest.param({"data": {"name": "tests", "passed": True,
                           "tests": {"total": 1, "failures": 0, "errors": 0, "skipped": -1000}}},
                 "data: a check result's tests.skipped: input should be greater than or equal to 0",
                 id="check-count-negative"),
]


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event(n: int, **fields: Any) -> dict[str, Any]:
    """Event n of a quiet ledger: a check result, n minutes after T0, unless `fields` say otherwise."""
    base: dict[str, Any] = {"v": 1, "id": f"evt_{n:012x}", "ts": stamp(T0 + timedelta(minutes=n)),
                            "type": "check.recorded", "actor": {"kind": "ci", "name": "ci"}, "data": {"n": n}}
    if n == 1:
        base.update(type="ledger.created", actor={"kind": "human", "name": "Ada", "email": "ada@example.org"},
                    data=None)
    base.update(fields)
    return {key: value for key, value in base.items() if value is not None}


def decision(n: int, subject: str, stage: str, decision: str = "approve", **fields: Any) -> dict[str, Any]:
    kind, _, name = subject.partition(":")
    return event(n, type="gate.decided", actor={"kind": "human", "name": "Ada", "email": "ada@example.org"},
                 subject={"kind": kind, "id": name}, stage=stage, decision=decision, data=None,
                 fingerprint={"path": f"memory-bank/{name}.md", "sha256": "0" * 64}, **fields)


def chain(events: Iterable[dict[str, Any]], prev: str = GENESIS, seq: int = 0) -> list[bytes]:
    """The events as canonical lines, each after the one before it (after `prev`/`seq` for the first)."""
    lines = []
    for item in events:
        seq += 1
        linked = {**item, "seq": seq, "prev": prev}
        linked["hash"] = prev = event_hash(linked)
        lines.append(line_of(linked))
    return lines


def split_pair(first: dict[str, Any], second: dict[str, Any], prev: str = GENESIS, seq: int = 0) -> list[bytes]:
    """Two lines, after `prev`/`seq`, that each chain and hash (the verifier finds their fields without parsing
    them) and are no JSON alone, but joined by a comma are the canonical JSON of two events: the first's text is
    cut at the comma in its subject's id, "abc,def" (a `ts` in its `data` keeps the first half's time readable).
    A reader that parsed a block of lines as one JSON array would take them for two events."""
    head = {**first, "seq": seq + 1, "prev": prev, "subject": {"kind": "bolt", "id": "abc,def"},
            "data": {"ts": first["ts"]}, "hash": "0" * 64}
    text = canonical(head)
    cut = text.index(b"abc,def") + 3
    start = text.rfind(b'"hash":"') + 8
    digest = line_hash(text[:cut] + b"\n")
    text = text[:start] + digest + text[start + 64:]
    tail = {**second, "seq": seq + 2, "prev": digest.decode(), "hash": "0" * 64}
    rest = text[cut + 1:] + b"," + canonical(tail)
    start = rest.rfind(b'"hash":"') + 8
    rest = rest[:start] + line_hash(rest + b"\n") + rest[start + 64:]
    return [text[:cut] + b"\n", rest + b"\n"]


def append_events(path: Path, events: Iterable[dict[str, Any]]) -> list[bytes]:
    """Continue a ledger file with hand-made events, chained onto its last line; returns their lines."""
    last = json.loads(path.read_bytes().splitlines()[-1])
    lines = chain(events, last["hash"], last["seq"])
    with open(path, "ab") as handle:
        handle.writelines(lines)
    return lines


def mutate(lines: list[bytes], mutation: str, rng: random.Random) -> None:
    """Damage `lines` in place as damage and forgers do: "drop", "swap", "copy" or "cut" a line, or "splice" a
    cut line onto another."""
    at = rng.randrange(len(lines))
    if mutation == "drop" and len(lines) > 1:
        del lines[at]
    elif mutation == "swap":
        other = rng.randrange(len(lines))
        lines[at], lines[other] = lines[other], lines[at]
    elif mutation == "copy":
        lines.insert(rng.randrange(len(lines) + 1), lines[at])
    elif mutation == "cut":  # at least one byte stays: a file split at b"\n" never yields an empty line
        lines[at] = lines[at][: rng.randrange(1, len(lines[at]) + 1)]
    elif mutation == "splice":
        lines[at] = lines[at][: rng.randrange(len(lines[at]) + 1)] + lines[rng.randrange(len(lines))]
