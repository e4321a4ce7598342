"""Appending to and reading the ledger.

Appends hold an exclusive flock on a lock file in .aidlc/ (never in the bank), check the
chain, write the whole line with one write() on an O_APPEND descriptor, and fsync. A crash
can therefore only leave a torn *last* line; the next append moves that fragment aside and
records a `ledger.tail_recovered` event. Damage anywhere else makes append refuse: a new
event is never chained onto a ledger that does not verify.

Checking the whole chain on every append would make appends O(ledger size), so a Ledger
remembers what it checked (the file's identity, size and mtime, the chain, the keys). The next
append under the lock checks only the lines added since, when the file merely grew (other
writers append too); a file that was replaced, shrunk or rewritten is checked again in full.
An in-place edit that keeps size and mtime is not seen here: that is `aidlc log verify`'s job.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.errors import AidlcError, UsageError
from aidlc.events.canonical import event_hash, line_of
from aidlc.events.verify import Chain, key_of, raw_key
from aidlc.model.events import GENESIS, Actor, Event, EventType

LEDGER_FILE = "events.jsonl"
LOCK_FILE = Path(".aidlc") / "locks" / "ledger.lock"
_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


Signer = Callable[[dict[str, Any]], dict[str, Any]]


class LedgerError(AidlcError):
    """The ledger cannot be appended to as it is; nothing was written."""


@dataclass
class Appended:
    event: dict[str, Any]
    recorded: bool  # False when an event with the same idempotency key already existed
    recovered: Path | None = None  # where a torn tail was moved, if one was found


@dataclass
class _Checked:
    """What the last check of the file found, valid while the file is as it was then."""

    chain: Chain
    size: int = 0  # bytes of complete, checked lines
    stamp: tuple[int, int, int, int] | None = None  # (dev, ino, size, mtime_ns) right after the check
    last_line: bytes = b""  # to tell a file that grew from one that was rewritten
    keys: dict[bytes, int] = field(default_factory=dict)  # raw key -> offset of the first line with it
    torn: int | None = None  # offset of an incomplete last line


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_event_id() -> str:
    return f"evt_{time.time_ns():x}{secrets.token_hex(4)}"


class Ledger:
    def __init__(self, path: Path, repo_root: Path) -> None:
        self.path = path
        self.repo_root = repo_root
        self.lock_path = repo_root / LOCK_FILE
        self._checked: _Checked | None = None

    @property
    def rel(self) -> str:
        try:
            return self.path.relative_to(self.repo_root).as_posix()
        except ValueError:  # a ledger outside the repo (tests, tools): its path says where it is
            return self.path.as_posix()

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
               sign: Signer | None = None, **fields: Any) -> Appended:
        """Append one event (and a recovery event first, if the tail was torn). `sign`, given the event as it
        will stand but for `hash`, returns its `signature` (or raises, and nothing is written)."""
        with self.locked():
            fd = self._open()
            try:
                checked = self._check(fd)
                recovered = self._recover_torn_tail(fd, checked, actor) if checked.torn is not None else None
                if key is not None and (offset := checked.keys.get(raw_key(key))) is not None:
                    return Appended(self._event_at(fd, offset), recorded=False, recovered=recovered)
                event = self._write(fd, checked, event_type, actor, key=key, sign=sign, **fields)
                return Appended(event, recorded=True, recovered=recovered)
            except BaseException:
                self._checked = None  # whatever happened, the next append looks at the file afresh
                raise
            finally:
                os.close(fd)

    # -- internals (called with the lock held) ------------------------------------------------
    def _open(self) -> int:
        if self.path.is_symlink():
            raise LedgerError(f"{self.rel} is a symbolic link; refusing to write through it",
                              [f"replace the link with the ledger file itself: {self.rel}"])
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # O_NOFOLLOW closes the race between the check above and the open.
            return os.open(self.path, _OPEN_FLAGS, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LedgerError(f"{self.rel} is a symbolic link; refusing to write through it") from None
            raise LedgerError(f"cannot open {self.rel}: {exc.strerror}") from None

    def _check(self, fd: int) -> _Checked:
        """Verify the lines added since the last check (all of them, the first time); refuse damage."""
        stat = os.fstat(fd)
        stamp = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
        checked = self._checked
        if checked is not None and checked.stamp == stamp:
            return checked
        if checked is None or not self._grew(fd, checked, stamp):
            checked = _Checked(Chain(self.lines))
        self._checked = None
        with open(fd, "rb", closefd=False) as handle:
            handle.seek(checked.size)
            for line in handle:
                self._take(checked, line)
        checked.stamp = stamp
        self._checked = checked
        return checked

    @staticmethod
    def _grew(fd: int, checked: _Checked, stamp: tuple[int, int, int, int]) -> bool:
        """The same file, longer, with the last line we checked still where it was: appends only."""
        if checked.stamp is None or stamp[:2] != checked.stamp[:2] or stamp[2] <= checked.size:
            return False
        end = checked.size
        return os.pread(fd, len(checked.last_line), end - len(checked.last_line)) == checked.last_line

    def _take(self, checked: _Checked, line: bytes) -> None:
        """Add one line to the check: a good one to the chain and the keys, else refuse (a torn tail is noted)."""
        problem = checked.chain.feed(line)
        if problem is not None and problem.kind == "torn":
            checked.torn = checked.size
            checked.chain.lines -= 1  # the fragment will be moved aside: it is not a line of the ledger
            return
        if problem is not None:
            raise LedgerError(
                f"{self.rel}:{problem.line} seq {problem.seq}: {problem.kind}: {problem.message}; "
                "refusing to append to a damaged ledger",
                ["aidlc log verify    # shows the damage",
                 f"git log -p -- {self.rel}    # restore the file from the last good commit"])
        key = key_of(line)
        if key is not None:
            checked.keys.setdefault(key, checked.size)
        checked.size += len(line)
        checked.last_line = line

    def _write(self, fd: int, checked: _Checked, event_type: EventType, actor: Actor, sign: Signer | None = None,
               **fields: Any) -> dict[str, Any]:
        last = checked.chain.last
        event: dict[str, Any] = {
            "v": 1,
            "seq": (last[2] + 1) if last else 1,
            "id": new_event_id(),
            "ts": utc_now(),
            "type": str(event_type),
            "actor": actor.model_dump(mode="json", exclude_none=True),
            "prev": last[0].decode() if last else GENESIS,
        }
        event.update({name: _plain(value) for name, value in fields.items() if value is not None})
        if sign is not None:  # under the lock: the signature covers `prev` and `seq`, which only the lock fixes
            event["signature"] = sign(event)
        try:
            event["hash"] = event_hash(event)
            data = line_of(event)
        except UnicodeEncodeError:  # e.g. undecodable bytes of a command-line argument (surrogate escapes)
            raise LedgerError("the event holds text that is not valid Unicode; nothing was written") from None
        Event.model_validate(event)  # the model is the contract: never write a line it rejects
        try:
            written = os.write(fd, data)
            if written == len(data):
                os.fsync(fd)
        except OSError as exc:  # e.g. ENOSPC, EIO: whatever reached the file, the next append finds it
            raise LedgerError(f"cannot write to {self.rel}: {exc.strerror}",
                              ["fix the cause, then rerun: the next append moves a partial line aside"]) from None
        if written != len(data):  # a short write on a regular file means a full disk
            raise LedgerError(f"short write to {self.rel} ({written} of {len(data)} bytes); disk full?",
                              ["free disk space, then rerun: the next append moves the fragment aside"])
        self._take(checked, data)  # our own line joins the chain (and is checked like any other)
        stat = os.fstat(fd)
        checked.stamp = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
        return event

    def _recover_torn_tail(self, fd: int, checked: _Checked, actor: Actor) -> Path:
        """Move the incomplete last line aside (durably, before cutting it off), then record that."""
        assert checked.torn is not None
        size = os.fstat(fd).st_size
        fragment = os.pread(fd, size - checked.torn, checked.torn)
        aside = self._aside_path()
        out = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            os.write(out, fragment)
            os.fsync(out)
        finally:
            os.close(out)
        _fsync_dir(aside.parent)
        os.ftruncate(fd, checked.torn)
        os.fsync(fd)
        checked.torn = None
        self._write(fd, checked, EventType.ledger_tail_recovered, actor,
                    data={"fragment": self._rel(aside), "bytes": len(fragment),
                          "sha256": hashlib.sha256(fragment).hexdigest()})
        return aside

    def _aside_path(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        aside = self.path.with_name(f"{self.path.name}.torn-{stamp}")
        counter = 1
        while aside.exists() or aside.is_symlink():  # never overwrite an earlier fragment
            aside = self.path.with_name(f"{self.path.name}.torn-{stamp}-{counter}")
            counter += 1
        return aside

    def _rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.repo_root).as_posix()
        except ValueError:
            return path.as_posix()

    @staticmethod
    def _event_at(fd: int, offset: int) -> dict[str, Any]:
        with open(fd, "rb", closefd=False) as handle:
            handle.seek(offset)
            return json.loads(handle.readline())  # type: ignore[no-any-return]

    # -- reading (no lock: appends are whole lines, readers see a prefix) --------------------
    def find_key(self, key: str) -> dict[str, Any] | None:
        """The first event recorded under an idempotency key (canonical lines make this a byte search)."""
        wanted = raw_key(key)
        for line in self.lines():
            if key_of(line) == wanted and line.endswith(b"\n"):
                try:
                    return json.loads(line)  # type: ignore[no-any-return]
                except ValueError:
                    continue
        return None

    def lines(self) -> Iterator[bytes]:
        if not self.path.exists():
            return
        with open(self.path, "rb") as handle:
            yield from handle

    def events(self, damaged: list[int] | None = None) -> Iterator[dict[str, Any]]:
        """Every well-formed event, in file order. Other lines are skipped (`verify` reports them);
        their numbers are added to `damaged` when it is given."""
        for number, line in enumerate(self.lines(), start=1):
            event = event_of(line)
            if event is not None:
                yield event
            elif damaged is not None:
                damaged.append(number)


def no_ledger(ledger: Ledger) -> UsageError:
    """The error for a ledger that is not there: restore it from git if history holds it, else create it.
    (`aidlc init` over a lost ledger would start its history over: it refuses, and says this.)"""
    return lost_ledger(ledger) or UsageError(f"no ledger at {ledger.rel}",
                                             [f"aidlc init {ledger.repo_root}    # creates it"])


class LostLedger(UsageError):
    """The work tree lacks the ledger while git history holds it, or (`shallow`) may hold it."""

    def __init__(self, message: str, next_steps: list[str], shallow: bool) -> None:
        super().__init__(message, next_steps)
        self.shallow = shallow


def lost_ledger(ledger: Ledger) -> LostLedger | None:
    """The error for a ledger the work tree lacks while git history holds it (at HEAD, or before a commit that
    removed it), naming the commit to restore it from. A shallow clone cannot show that no earlier commit held
    one: then the error says to fetch the history. None when git shows no ledger ever stood there."""
    history = vcs.history(ledger.repo_root)
    if history is None or history.head is None:
        return None
    try:
        source = history.last_holding(ledger.rel)
    except ValueError:  # a ledger outside the repository has no history in it
        return None
    shallow = source is None and history.shallow
    if source is not None:
        held = "HEAD has it" if source == "HEAD" else f"commit {source[:12]} has it (a later commit removed it)"
        return LostLedger(f"the ledger {ledger.rel} is missing, but {held}; a new one would start its history over",
                          [f"git restore --source={source} --staged --worktree -- {ledger.rel}", "aidlc log verify"],
                          shallow=False)
    if shallow:
        return LostLedger(f"no ledger at {ledger.rel}, and this clone is shallow: a commit before it may hold one, "
                          "which a new one would start over",
                          ["git fetch --unshallow    # then rerun: the whole history shows whether a ledger existed"],
                          shallow=True)
    return None


def event_of(line: bytes) -> dict[str, Any] | None:
    """The event a ledger line holds, or None if it is not one (garbage, or JSON of another shape):
    everything that reads events can then trust their fields."""
    try:
        event = json.loads(line)
        Event.model_validate(event)
    except (ValueError, TypeError):  # pydantic's ValidationError is a ValueError
        return None
    return event  # type: ignore[no-any-return]


def _fsync_dir(folder: Path) -> None:
    """Make a new directory entry durable (the fragment's name must survive a crash too)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _plain(value: Any) -> Any:
    """Models become their JSON form (None fields dropped: absent and null hash alike only if absent)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return str(value) if isinstance(value, os.PathLike) else value
