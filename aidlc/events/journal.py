"""Writes of several files that happen all or not at all, even across kill -9.

`aidlc new bolt` rewrites every story it assigns, `aidlc draft` creates many files: each file
is replaced atomically (`atomic_write`), but a crash between two of them would leave a bank
half written. So such a command writes through a journal, an undo log under `.aidlc/`: before a
file is first touched, its old bytes (or the fact that it did not exist, and each folder about
to be created) are appended to `.aidlc/journal.jsonl` and fsynced; only then is the file
replaced. When the command ends, the journal is removed; that is its commit. A command that
also records a ledger event names the event's idempotency key in the journal and appends the
event before removing it: the event is then the commit. A model's edits to the code of a bolt
(aidlc/bolt/edits.py) go through a journal too, one confined to the repository rather than
to the bank (`bank` ""), so a kill -9 between two files is rolled back the same way.

A journal still there when a command starts belongs to a command that was interrupted (the
exclusive lock on `.aidlc/locks/journal.lock` tells it from one still running): `recover`
rolls it back, file by file, unless its ledger event was recorded (then it is finished: every
file was written before the event), and removes the temporary files `atomic_write` may have
left beside the files. The journal is untrusted input like any file in the repository: a record
outside the memory bank (the repository, for code edits; never .git/), or one that cannot be read,
stops the recovery before it touches anything.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from aidlc.bank.walk import read_inside
from aidlc.bank.write import atomic_write, ensure_inside, fsync_folder
from aidlc.errors import AidlcError

JOURNAL = Path(".aidlc") / "journal.jsonl"
LOCK = Path(".aidlc") / "locks" / "journal.lock"
VERSION = 1


@dataclass
class Journal:
    """A multi-file write in progress in `repo`, confined to the memory bank `bank`. It starts with
    its first write: a command refused before it writes anything leaves nothing behind."""

    repo: Path
    bank: str  # the folder every path written is inside, relative to the repository ("": the repository)
    key: str  # the idempotency key of the ledger event that commits it, if the command records one
    _fd: int = -1  # the journal file, once started
    _lock: Any = None  # the lock of journalled writes, once started
    _seen: set[str] = field(default_factory=set)

    def write(self, path: Path, text: str) -> None:
        """Replace (or create) `path` with `text`, its old state journalled first."""
        self._journalled(path)
        atomic_write(path, text, self.repo)

    def remove(self, path: Path) -> None:
        """Delete the file `path`, its old bytes journalled first."""
        self._journalled(path)
        path.unlink()
        fsync_folder(path.parent)

    def _journalled(self, path: Path) -> None:
        """Record `path`'s old state (and each folder about to be created for it) once, before it changes."""
        ensure_inside(path, self.repo)
        rel = self._rel(path)
        if self._fd < 0:
            self._start()
        if rel not in self._seen:
            self._seen.add(rel)
            for folder in reversed([p for p in path.parents if not p.exists() and p.is_relative_to(self.repo)]):
                self._record({"dir": self._rel(folder)})
            self._record({"path": rel, "old": _old(path, self.repo)})

    def _start(self) -> None:
        self._lock = _lock(self.repo)
        try:
            recover_locked(self.repo)
            path = self.repo / JOURNAL
            ensure_inside(path, self.repo)
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            self._record({"v": VERSION, "bank": self.bank, "key": self.key})
            fsync_folder(path.parent)
        except BaseException:
            self._end(failed=True)
            raise

    def _end(self, failed: bool) -> None:
        """The commit (the journal removed) or, when `failed`, the roll-back first; then the lock is let go."""
        try:
            if self._fd >= 0:
                if failed:
                    _roll_back(self.repo, _read(self.repo))
                _remove(self.repo)
        finally:
            if self._fd >= 0:
                os.close(self._fd)
            if self._lock is not None:
                self._lock.release()
            self._fd, self._lock = -1, None

    def _record(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record, sort_keys=True) + "\n").encode()
        while data:
            data = data[os.write(self._fd, data):]
        os.fsync(self._fd)

    def _rel(self, path: Path) -> str:
        # As written, not resolved: a bank linked elsewhere inside the repository is still the bank
        # (ensure_inside has checked where the path really leads).
        rel = Path(os.path.relpath(path, self.repo)).as_posix()
        if not (_in_bank(rel, self.bank) and _safe(rel)):
            raise AidlcError(f"refusing to write {rel}: a multi-file write stays inside {self.bank or '.'}/")
        return rel


@contextmanager
def writing(repo: Path, bank: str, key: str | None = None) -> Iterator[Journal]:
    """A journal for the writes of one command: removed when the block ends, rolled back if it raises.

    `key`: the block records a ledger event with this idempotency key as its last step."""
    journal = Journal(repo, bank, key or "")
    try:
        yield journal
    except BaseException:
        journal._end(failed=True)
        raise
    journal._end(failed=False)


def new_key() -> str:
    return f"write-{os.urandom(8).hex()}"


def recover(repo: Path) -> list[str]:
    """Finish or roll back a write that was interrupted; the paths put back (none if there was nothing)."""
    if not (repo / JOURNAL).exists() and not (repo / JOURNAL).is_symlink():
        return []  # the common case: one stat, no lock
    lock = _lock(repo)
    try:
        return recover_locked(repo)
    finally:
        lock.release()


def recover_locked(repo: Path) -> list[str]:
    path = repo / JOURNAL
    if not path.exists() and not path.is_symlink():
        return []
    header, records = _read(repo)
    restored: list[str] = []
    if not (header["key"] and _recorded(repo, header["bank"], header["key"])):
        restored = _roll_back(repo, (header, records))
    else:
        _clean_temporary_files(repo, records)
    _remove(repo)
    return restored


def _read(repo: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The journal's header and records; a torn last record (a crash while appending it) is dropped:
    its file was not touched yet."""
    from aidlc import vcs  # only when a journal is left: rare

    if vcs.committed(repo, JOURNAL.as_posix()):  # .aidlc/ is git-ignored: no interrupted aidlc left this one
        raise _unusable("is committed to the repository")
    try:
        data = read_inside(repo / JOURNAL, repo)
    except OSError as exc:
        raise _unusable(f"cannot be read ({exc.strerror or exc})") from None
    lines = data.split(b"\n")
    try:
        parsed = [json.loads(line) for line in lines[:-1]]  # complete lines end with '\n'
    except ValueError as exc:
        raise _unusable(f"is damaged ({exc})") from None
    if not parsed or not isinstance(parsed[0], dict) or parsed[0].get("v") != VERSION:
        raise _unusable("has no header aidlc knows")
    header, records = parsed[0], parsed[1:]
    bank = header.get("bank")
    if not isinstance(bank, str) or not isinstance(header.get("key"), str) or (bank and not _safe(bank)):
        raise _unusable("names no memory bank folder")
    for record in records:
        rel = record.get("path", record.get("dir")) if isinstance(record, dict) else None
        if not isinstance(rel, str) or not _in_bank(rel, bank) or not _safe(rel):
            raise _unusable(f"names a path outside {'the memory bank' if bank else 'what aidlc writes'}: {rel!r}")
        old = record.get("old")
        if "path" in record and old is not None and not isinstance(old, str):
            raise _unusable(f"holds a record aidlc does not know: {record!r}")
    return header, records


def _roll_back(repo: Path, journal: tuple[dict[str, Any], list[dict[str, Any]]]) -> list[str]:
    """Every journalled file back as it was, last first; then the folders the write created removed."""
    _header, records = journal
    restored: list[str] = []
    for record in reversed(records):
        if "path" not in record:
            continue
        path = repo / record["path"]
        if record["old"] is None:
            if path.exists() or path.is_symlink():
                ensure_inside(path, repo)
                path.unlink()
        else:
            old = base64.b64decode(record["old"])
            if not path.exists() or read_inside(path, repo) != old:
                atomic_write(path, old, repo)
        restored.append(record["path"])
    _clean_temporary_files(repo, records)
    for record in reversed(records):
        folder = repo / record.get("dir", "")
        if "dir" in record and folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
            folder.rmdir()
    return sorted(set(restored))


def _clean_temporary_files(repo: Path, records: list[dict[str, Any]]) -> None:
    """The temporary files `atomic_write` leaves when it is killed between writing and renaming."""
    for record in records:
        if "path" not in record:
            continue
        path = repo / record["path"]
        pattern = re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}\.tmp")
        if path.parent.is_dir():
            for stray in path.parent.iterdir():
                if pattern.fullmatch(stray.name) and stray.is_file() and not stray.is_symlink():
                    stray.unlink()


def _recorded(repo: Path, bank: str, key: str) -> bool:
    from aidlc.events.ledger import Ledger  # only when a journal is left: rare

    ledger = Ledger.of_bank(repo, bank)
    return ledger.exists() and ledger.find_key(key) is not None


def _old(path: Path, repo: Path) -> str | None:
    if not path.exists() and not path.is_symlink():
        return None
    try:
        return base64.b64encode(read_inside(path, repo)).decode("ascii")
    except OSError as exc:
        raise AidlcError(f"{path.relative_to(repo)}: cannot be read before it is replaced ({exc.strerror or exc})",
                         ["replace it with a regular file inside the repository, then rerun"]) from None


def _remove(repo: Path) -> None:
    (repo / JOURNAL).unlink()
    fsync_folder((repo / JOURNAL).parent)


def _lock(repo: Path) -> Any:
    """The exclusive lock of journalled writes, held until its release() (or the process dies). Another aidlc
    writing now: wait for it, never roll its write back."""
    # Only commands that write import locking (and fcntl); see aidlc/locking.py.
    from aidlc.locking import acquire

    lock = repo / LOCK
    ensure_inside(lock, repo)
    return acquire(lock)


def _in_bank(rel: str, bank: str) -> bool:
    return PurePosixPath(rel).is_relative_to(PurePosixPath(bank)) and rel != bank


def _safe(rel: str) -> bool:
    parts = PurePosixPath(rel).parts
    return bool(parts) and not PurePosixPath(rel).is_absolute() and ".." not in parts and parts[0] != ".git"


def _unusable(why: str) -> AidlcError:
    return AidlcError(f"{JOURNAL.as_posix()}, left by an interrupted aidlc command, {why}; nothing was changed",
                      [f"look at {JOURNAL.as_posix()} and the memory bank (git status, git diff), then delete "
                       f"{JOURNAL.as_posix()} and rerun the command"])
