"""Checking that every audit entry the ledger records (`audit.appended`, written by aidlc/events/audit.py) is
still in its audit log with the same bytes at the same place: `aidlc log verify` reports an entry edited, deleted,
or moved by text changed before it, even where git history was rewritten."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from aidlc.bank.walk import read_inside
from aidlc.model.events import AuditRecord, Event, EventType


@dataclass
class RecordProblem:
    path: str
    line: int  # where the entry was recorded
    seq: int  # the ledger event recording it
    message: str


def check_records(root: Path, ledger_rel: str, events: Iterable[Event]) -> list[RecordProblem]:
    """Every entry the ledger's `events` record (`audit.appended`) must still be in its audit log with the same
    bytes at the same place: else it was edited or deleted, or text before it changed."""
    problems: list[RecordProblem] = []
    files: dict[str, bytes | None] = {}
    for event in events:
        if event.type != EventType.audit_appended:
            continue
        try:
            record = AuditRecord.model_validate(event.data)
        except ValidationError:
            problems.append(RecordProblem(ledger_rel, 0, event.seq, "an audit.appended event without a readable "
                                          "record of its entry"))
            continue
        if record.path not in files:
            try:
                files[record.path] = read_inside(root / record.path, root)
            except OSError:
                files[record.path] = None
        data = files[record.path]
        if data is None:
            problems.append(RecordProblem(record.path, record.line, event.seq,
                                          f"the audit log is gone; it held the entry {record.heading!r}"))
        elif _digest(data, record.offset, record.bytes) != record.sha256:
            moved = _find(data, record)
            problems.append(RecordProblem(record.path, record.line, event.seq, (
                f"the entry {record.heading!r} now stands at line {moved}: text before it was changed or removed"
                if moved is not None else f"the entry {record.heading!r} was edited or deleted")))
    return problems


def _digest(data: bytes, offset: int, length: int) -> str:
    return hashlib.sha256(data[offset:offset + length]).hexdigest()


def _find(data: bytes, record: AuditRecord) -> int | None:
    """The line where the entry's exact bytes now start, if they are anywhere in the file."""
    for match in re.finditer(rb"(?m)^## ", data):
        if _digest(data, match.start(), record.bytes) == record.sha256:
            return data.count(b"\n", 0, match.start()) + 1
    return None
