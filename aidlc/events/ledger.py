"""Appending to and reading the ledger.

Appends hold an exclusive flock on a lock file in .aidlc/ (never in the bank),
write the whole line with one write() on an O_APPEND descriptor, and fsync.
A crash can therefore only leave a torn *last* line; the next append moves
that fragment aside and records a `ledger.tail_recovered` event.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aidlc.errors import AidlcError
from aidlc.events.canonical import event_hash, line_of
from aidlc.model.events import GENESIS, Actor, Event, EventType

LEDGER_FILE = "events.jsonl"
LOCK_FILE = Path(".aidlc") / "locks" / "ledger.lock"
_TAIL_CHUNK = 64 * 1024


class LedgerError(AidlcError):
    """The ledger cannot be appended to as it is; nothing was written."""


@dataclass
class Appended:
    event: dict[str, Any]
    recorded: bool  # False when an event with the same idempotency key already existed
    recovered: Path | None = None  # where a torn tail was moved, if one was found


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_event_id() -> str:
    return f"evt_{time.time_ns():x}{secrets.token_hex(4)}"


class Ledger:
    def __init__(self, path: Path, repo_root: Path) -> None:
        self.path = path
        self.repo_root = repo_root
        self.lock_path = repo_root / LOCK_FILE

    @property
    def rel(self) -> str:
        return self.path.relative_to(self.repo_root).as_posix()

    def exists(self) -> bool:
        return self.path.exists()

    @contextmanager
    def locked(self) -> Iterator[None]:
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def append(self, event_type: EventType, actor: Actor, *, key: str | None = None,
               **fields: Any) -> Appended:
        """Append one event (and a recovery event first, if the tail was torn)."""
        if self.path.is_symlink():
            raise LedgerError(f"{self.rel} is a symbolic link; refusing to write through it")
        with self.locked():
            recovered = self._recover_torn_tail(actor)
            if key is not None:
                existing = self.find_key(key)
                if existing is not None:
                    return Appended(existing, recorded=False, recovered=recovered)
            event = self._write(event_type, actor, key=key, **fields)
            return Appended(event, recorded=True, recovered=recovered)

    # -- internals (called with the lock held) ------------------------------------------------
    def _write(self, event_type: EventType, actor: Actor, **fields: Any) -> dict[str, Any]:
        last = self.last_event()
        event: dict[str, Any] = {
            "v": 1,
            "seq": (last["seq"] + 1) if last else 1,
            "id": new_event_id(),
            "ts": utc_now(),
            "type": str(event_type),
            "actor": actor.model_dump(mode="json", exclude_none=True),
            "prev": last["hash"] if last else GENESIS,
        }
        event.update({name: _plain(value) for name, value in fields.items() if value is not None})
        event["hash"] = event_hash(event)
        Event.model_validate(event)  # the model is the contract: never write a line it rejects
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            data = line_of(event)
            written = os.write(fd, data)
            if written != len(data):  # a short write on a regular file means a full disk
                raise LedgerError(f"short write to {self.rel} ({written} of {len(data)} bytes); disk full?",
                                  ["free disk space, then rerun: the next append moves the fragment aside"])
            os.fsync(fd)
        finally:
            os.close(fd)
        return event

    def _recover_torn_tail(self, actor: Actor) -> Path | None:
        if not self.path.exists():
            return None
        with open(self.path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return None
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return None
            cut = self._last_newline(handle, size)
            handle.seek(cut)
            fragment = handle.read()
        aside = self.path.with_name(f"{self.path.name}.torn-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}")
        aside.write_bytes(fragment)
        with open(self.path, "r+b") as handle:
            handle.truncate(cut)
            handle.flush()
            os.fsync(handle.fileno())
        self._write(EventType.ledger_tail_recovered, actor,
                    data={"fragment": aside.relative_to(self.repo_root).as_posix(), "bytes": len(fragment)})
        return aside

    @staticmethod
    def _last_newline(handle: Any, size: int) -> int:
        """Offset just after the last newline before `size` (0 if there is none)."""
        end = size
        while end > 0:
            start = max(0, end - _TAIL_CHUNK)
            handle.seek(start)
            chunk = handle.read(end - start)
            found = chunk.rfind(b"\n")
            if found != -1:
                return start + found + 1
            end = start
        return 0

    def last_event(self) -> dict[str, Any] | None:
        if not self.path.exists():
            return None
        with open(self.path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return None
            start = self._last_newline(handle, size - 1)
            handle.seek(start)
            line = handle.read(size - start)
        try:
            event = json.loads(line)
            if not isinstance(event, dict) or "hash" not in event or "seq" not in event:
                raise ValueError("not an event")
        except ValueError:
            raise LedgerError(
                f"the last line of {self.rel} is damaged; refusing to chain a new event onto it",
                [f"aidlc log verify    # shows the damage in {self.rel}"],
            ) from None
        return event

    def find_key(self, key: str) -> dict[str, Any] | None:
        """The event recorded under an idempotency key (canonical lines make this a byte search)."""
        if not self.path.exists():
            return None
        needle = b'"key":' + json.dumps(key, ensure_ascii=False).encode("utf-8") + b","
        for line in self.lines():
            if needle in line:
                event = json.loads(line)
                if event.get("key") == key:
                    return event
        return None

    def lines(self) -> Iterator[bytes]:
        if not self.path.exists():
            return
        with open(self.path, "rb") as handle:
            yield from handle

    def events(self) -> Iterator[dict[str, Any]]:
        """Every well-formed event, in file order (damaged lines are skipped: `verify` reports them)."""
        for line in self.lines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                yield event


def _plain(value: Any) -> Any:
    """Models become their JSON form (None fields dropped: absent and null hash alike only if absent)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return str(value) if isinstance(value, os.PathLike) else value
