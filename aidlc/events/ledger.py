"""Appending to and reading the ledger: the one owner of memory-bank/events.jsonl.

`Ledger.of_bank` is the one way to find it (through aidlc.events.place, which a run that finds none needs
alone). Reading opens only a regular file, never through a symbolic link, and a file that is not one (a folder,
a FIFO, a device) or cannot be read is a LedgerError that says so. `Ledger.state` is what a full check of the
file establishes: served from the verified-prefix checkpoint when that vouches for the file as it is (see
`checkpoint`), else built by reading the file once (`state.scan`), which then writes a new checkpoint.

Appends hold an exclusive flock on a lock file in .aidlc/ (never in the bank), take the state
(the one this object left, if the file is as it left it; else the checkpoint's; else a full
check), refuse a ledger with errors (a new event is never chained onto a ledger that does not
verify), write the whole line with one write() on an O_APPEND descriptor, fsync, and extend the
state and the checkpoint by that line. Secrets in an event's free text (`reason`, `data`) are redacted
before it is signed and hashed (aidlc.redaction). A crash can therefore only leave an incomplete *last*
line: the next append moves that fragment aside and records a `ledger.tail_recovered` event. A
last line that is complete and intact but lacks its newline (a write cut just before it) is not
damage: the next append writes the newline before its own line.
"""

from __future__ import annotations

import errno
import mmap
import os
import secrets
import stat as stat_module
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aidlc.bank.walk import LEDGER_FILE
from aidlc.errors import AidlcError, UsageError
from aidlc.events import checkpoint
from aidlc.events.canonical import canonical_events, event_hash, line_of, parse_event
from aidlc.events.decisions import Decided
from aidlc.events.lost import lost_ledger
from aidlc.events.place import ledger_path, ledger_rel, something_at
from aidlc.events.state import LedgerState, scan
from aidlc.events.torn import move_aside
from aidlc.events.verify import MAX_LINE, ProblemKind, key_of, line_hash, raw_key, read_lines
from aidlc.model.events import GENESIS, Actor, Event, EventType
from aidlc.names import arg
from aidlc.redaction import Redactor

# The fields that hold free text (a person's reason; a check's command, a run's failure): a secret typed,
# pasted or configured into them is replaced before the event is signed, hashed and written, so the shared,
# append-only ledger never holds one (the same redaction as every prompt; secret-named environment variables
# are read at each append, so one set since the last is known).
REDACTED_FIELDS = frozenset({"reason", "data"})

__all__ = ["LEDGER_FILE", "Appended", "Ledger", "LedgerError", "no_ledger", "utc_now"]

LOCK_FILE = Path(".aidlc") / "locks" / "ledger.lock"
_APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO must not hang open()
_KINDS = {stat_module.S_IFDIR: "a folder", stat_module.S_IFIFO: "a FIFO (named pipe)", stat_module.S_IFSOCK: "a socket",
          stat_module.S_IFCHR: "a character device", stat_module.S_IFBLK: "a block device"}


Signer = Callable[[dict[str, Any]], dict[str, Any]]


class LedgerError(AidlcError):
    """The ledger cannot be read or appended to as it is; nothing was written."""


@dataclass
class Appended:
    event: Event
    recorded: bool  # False when an event with the same idempotency key already existed
    recovered: Path | None = None  # where a torn tail was moved, if one was found
    completed: bool = False  # the last line lacked its newline, and got it


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_event_id() -> str:
    return f"evt_{time.time_ns():x}{secrets.token_hex(4)}"


class Ledger:
    def __init__(self, path: Path, repo_root: Path) -> None:
        self.path = path
        self.repo_root = repo_root
        self.lock_path = repo_root / LOCK_FILE
        self._mine: tuple[list[int], str, LedgerState] | None = None  # (identity, tail, state) as we last saw them

    @classmethod
    def of_bank(cls, repo_root: Path | str, bank_rel: str) -> Ledger:
        """The ledger of the memory bank at `bank_rel` (relative to the repository root `repo_root`)."""
        return cls(ledger_path(repo_root, bank_rel), Path(repo_root))

    @property
    def rel(self) -> str:
        return ledger_rel(self.path, self.repo_root)

    def exists(self) -> bool:
        """Something is there (aidlc.events.place.something_at: a link or a folder too)."""
        return something_at(self.path)

    @contextmanager
    def locked(self) -> Iterator[None]:
        from aidlc.locking import exclusive  # appending only: reading the ledger takes no lock

        with exclusive(self.lock_path):
            yield

    # -- reading -------------------------------------------------------------------------------------------
    def open_fd(self) -> int:
        """A read-only descriptor of the ledger, which must be a regular file; else a LedgerError saying why."""
        try:
            fd = os.open(self.path, _READ_FLAGS)
        except OSError as exc:
            raise self._unreadable(exc) from None
        kind = stat_module.S_IFMT(os.fstat(fd).st_mode)
        if kind != stat_module.S_IFREG:
            os.close(fd)
            raise LedgerError(f"{self.rel} is {_KINDS.get(kind, 'not a regular file')}, not the ledger file",
                              [f"ls -la {self.rel}    # what is there",
                               f"git restore --source=HEAD -- {arg(self.rel)}    # the committed ledger"])
        return fd

    def _unreadable(self, exc: OSError) -> LedgerError:
        if exc.errno == errno.ELOOP:
            return LedgerError(f"{self.rel} is a symbolic link; the ledger is read and written only as a file",
                               [f"replace the link with the ledger file itself: {self.rel}"])
        return LedgerError(f"{self.rel} cannot be read: {exc.strerror or exc}",
                           [f"ls -la {self.rel}    # its owner and permissions",
                            f"chmod u+rw {self.rel}    # if it is yours"])

    def lines(self) -> Iterator[bytes]:
        """Every line, read as the verifier reads them (see `read_lines`); none when there is no ledger."""
        if not self.exists():
            return
        fd = self.open_fd()
        try:
            with os.fdopen(fd, "rb", closefd=False) as handle:
                yield from read_lines(handle)
        finally:
            os.close(fd)

    def events(self, damaged: list[int] | None = None) -> Iterator[Event]:
        """Every event, in file order, of a line in the one form aidlc writes (as `LedgerView.events` reads
        them). Other lines are skipped (`verify` reports them); their numbers are added to `damaged` when given."""
        for number, (_, event) in enumerate(canonical_events(self.lines()), start=1):
            if event is not None:
                yield event
            elif damaged is not None:
                damaged.append(number)

    def state(self, keep: bool = False) -> LedgerState:
        """What a full check of the ledger establishes: the checkpoint's when it vouches for the file, else
        from reading the whole file once. With `keep` (commands that write anyway; never `validate`), a
        state read in full is recorded as the new checkpoint."""
        fd = self.open_fd()
        try:
            before = checkpoint.identity(os.fstat(fd))
            state = checkpoint.load(self.repo_root, self.rel, fd)
            if state is None:
                state = _scan_fd(fd, before[2])
                if keep:
                    self._keep(fd, state, before)
            # An append by this object starts from it, if the file is still so.
            self._mine = (before, checkpoint.tail(fd, before[2]), state)
            return state
        finally:
            os.close(fd)

    def held_state(self) -> LedgerState | None:
        """The state this object last read (`state`) or wrote (`append`), if nobody wrote to the file since: what
        reading it again would find. None when it holds none, the file changed, or it cannot be read."""
        try:
            fd = self.open_fd()
        except LedgerError:
            return None
        try:
            return self._held(fd)
        finally:
            os.close(fd)

    def _keep(self, fd: int, state: LedgerState, before: list[int]) -> None:
        """Save the checkpoint of a state read without the lock, if the file did not change meanwhile."""
        if not state.ok:
            return
        try:
            with self.locked():  # appenders write under it: what is checked now stays true until it is saved
                now = os.stat(self.path, follow_symlinks=False)
                if checkpoint.identity(os.fstat(fd)) == before and now.st_ino == before[1]:
                    checkpoint.save(self.repo_root, self.rel, fd, state)
        except OSError:
            pass  # a read-only checkout: the next command checks the whole file again

    def read_event(self, decided: Decided) -> Event:
        """The event of a recorded decision, read where the state says it stands and checked against its hash."""
        fd = self.open_fd()
        try:
            line = os.pread(fd, decided.length, decided.offset)
        finally:
            os.close(fd)
        complete = line if line.endswith(b"\n") else line + b"\n"
        event = parse_event(complete) if line_hash(complete).decode() == decided.hash else None
        if event is None:
            raise LedgerError(f"{self.rel} changed while it was being read (line {decided.line} is not what it was)",
                              ["run the command again", "aidlc log verify    # if it happens again"])
        return event

    def find_key(self, key: str) -> Event | None:
        """The first event recorded under an idempotency key (canonical lines make this a byte search)."""
        if not self.exists():
            return None
        fd = self.open_fd()
        try:
            return _search_key(fd, raw_key(key), os.fstat(fd).st_size)
        finally:
            os.close(fd)

    # -- appending ------------------------------------------------------------------------------------------
    def append(self, event_type: EventType, actor: Actor, *, key: str | None = None,
               sign: Signer | None = None, **fields: Any) -> Appended:
        """Append one event (and a recovery event first, if the tail was torn). `sign`, given the event as it
        will stand but for `hash`, returns its `signature` (or raises, and nothing is written)."""
        with self.locked():
            fd = self._open_for_append()
            try:
                state = self._state_of(fd)
                if not state.ok and not state.torn:
                    raise self._damaged(state)
                recovered = self._recover_torn_tail(fd, state, actor) if state.torn else None
                completed = not state.terminated
                if key is not None and state.keys.may_hold(wanted := raw_key(key)):
                    existing = _search_key(fd, wanted, state.size)
                    if existing is not None:
                        return Appended(existing, recorded=False, recovered=recovered)
                event = self._write(fd, state, event_type, actor, key=key, sign=sign, **fields)
                return Appended(event, recorded=True, recovered=recovered, completed=completed)
            except BaseException:
                self._mine = None  # whatever happened, the next append looks at the file afresh
                raise
            finally:
                os.close(fd)

    def _open_for_append(self) -> int:
        if self.path.is_symlink():
            raise LedgerError(f"{self.rel} is a symbolic link; refusing to write through it",
                              [f"replace the link with the ledger file itself: {self.rel}"])
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # O_NOFOLLOW closes the race between the check above and the open.
            fd = os.open(self.path, _APPEND_FLAGS | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LedgerError(f"{self.rel} is a symbolic link; refusing to write through it") from None
            raise LedgerError(f"cannot open {self.rel}: {exc.strerror}") from None
        kind = stat_module.S_IFMT(os.fstat(fd).st_mode)
        if kind != stat_module.S_IFREG:
            os.close(fd)
            raise LedgerError(f"{self.rel} is {_KINDS.get(kind, 'not a regular file')}; refusing to write to it",
                              [f"ls -la {self.rel}    # what is there"])
        return fd

    def _state_of(self, fd: int) -> LedgerState:
        """The state of the file under the lock: ours if nothing changed since our last append."""
        return self._held(fd) or checkpoint.load(self.repo_root, self.rel, fd) or _scan_fd(fd, os.fstat(fd).st_size)

    def _held(self, fd: int) -> LedgerState | None:
        """`held_state` of the open file: the same identity and the same last bytes as this object left it."""
        info, mine = os.fstat(fd), self._mine
        if mine is None or mine[0] != checkpoint.identity(info) or mine[1] != checkpoint.tail(fd, info.st_size):
            return None
        return mine[2]

    def _damaged(self, state: LedgerState) -> LedgerError:
        problem = next(p for p in state.problems if p.is_error)
        return LedgerError(
            f"{self.rel}:{problem.line} seq {problem.seq}: {problem.kind}: {problem.message}; "
            "refusing to append to a damaged ledger",
            ["aidlc log verify    # shows the damage",
             f"git log -p -- {arg(self.rel)}    # restore the file from the last good commit"])

    def _write(self, fd: int, state: LedgerState, event_type: EventType, actor: Actor, sign: Signer | None = None,
               **fields: Any) -> Event:
        last = state.tip
        event: dict[str, Any] = {
            "v": 1,
            "seq": (last[1] + 1) if last else 1,
            "id": new_event_id(),
            "ts": utc_now(),
            "type": str(event_type),
            "actor": actor.model_dump(mode="json", exclude_none=True),
            "prev": last[0] if last else GENESIS,
        }
        event.update({name: _plain(value) for name, value in fields.items() if value is not None})
        redact = Redactor()
        for name in REDACTED_FIELDS & event.keys():
            event[name] = redact.value(event[name])
        if sign is not None:  # under the lock: the signature covers `prev` and `seq`, which only the lock fixes
            event["signature"] = sign(event)
        try:
            event["hash"] = event_hash(event)
            line = line_of(event)
        except UnicodeEncodeError:  # e.g. undecodable bytes of a command-line argument (surrogate escapes)
            raise LedgerError("the event holds text that is not valid Unicode; nothing was written") from None
        if len(line) > MAX_LINE:
            raise LedgerError(f"the event would be {len(line):,} bytes; a ledger line holds at most {MAX_LINE:,}")
        checked = Event.model_validate(event)  # the model is the contract: never write a line it rejects
        data = line if state.terminated else b"\n" + line  # complete an intact last line first (same write)
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
        state.take(line, state.size + len(data) - len(line), event)
        state.problems = [p for p in state.problems if p.kind != ProblemKind.unterminated]
        checkpoint.save(self.repo_root, self.rel, fd, state)
        info = os.fstat(fd)
        self._mine = (checkpoint.identity(info), checkpoint.tail(fd, info.st_size), state)
        return checked

    def _recover_torn_tail(self, fd: int, state: LedgerState, actor: Actor) -> Path:
        """Move the incomplete last line aside (see `torn`), then record that."""
        aside, size, digest = move_aside(fd, self.path, state.good_size)
        state.size, state.lines = state.good_size, state.lines - 1
        state.problems = [p for p in state.problems if p.kind != ProblemKind.torn]
        self._write(fd, state, EventType.ledger_tail_recovered, actor,
                    data={"fragment": self._rel(aside), "bytes": size, "sha256": digest})
        return aside

    def _rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.repo_root).as_posix()
        except ValueError:
            return path.as_posix()


def _scan_fd(fd: int, size: int) -> LedgerState:
    """A full check of the open file, as it was when its size was taken."""
    handle = os.fdopen(fd, "rb", closefd=False)

    def lines() -> Iterator[bytes]:
        handle.seek(0)
        return read_lines(handle, size)

    try:
        return scan(lines)
    finally:
        handle.close()


def _search_key(fd: int, raw: bytes, size: int) -> Event | None:
    """The first event with this raw key in the first `size` bytes, found with a byte search."""
    if size == 0:
        return None
    needle = b'"key":"' + raw + b'","prev":"'
    with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as data:
        at = data.find(needle)
        while at != -1:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            line = data[start:end + 1 if end != -1 else size]
            if key_of(line) == raw and (event := parse_event(line)) is not None:
                return event
            at = data.find(needle, at + 1)
    return None


def no_ledger(ledger: Ledger) -> UsageError:
    """The error for a ledger that is not there: restore it from git if history holds it, else create it.
    (`aidlc init` over a lost ledger would start its history over: it refuses, and says this.)"""
    return lost_ledger(ledger.repo_root, ledger.rel) or UsageError(f"no ledger at {ledger.rel}",
                                             [f"aidlc init {arg(str(ledger.repo_root))}    # creates it"])


def _plain(value: Any) -> Any:
    """Models become their JSON form (None fields dropped: absent and null hash alike only if absent)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return str(value) if isinstance(value, os.PathLike) else value
