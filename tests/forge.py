"""Ledger lines built by hand, as a forger (or a careless script) would write them: correctly chained and
hashed, with whatever `ts`, `commit` or other field a test needs. Nothing here goes through Ledger.append."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aidlc.events.canonical import event_hash, line_of
from aidlc.model.events import GENESIS

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # in the past: the checks judge the future against the real clock


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
