"""The verified-prefix checkpoint: what a full check of the ledger found, kept in `.aidlc/` (git-ignored,
never shared) so that the next command need not read the whole file again.

What it holds: the `LedgerState` (tip, problems, standing gate decisions, key filter) and the identity of
the file it describes, taken with fstat when it was written: device, inode, size, modification time and
change time (ctime), plus the sha256 of the file's last 4 KiB and the aidlc version.

When it is trusted: only when the ledger's identity now is exactly the recorded one and its last 4 KiB
still hash the same. Then the file is the one that was checked, and its state is used as it is.
Anything else (no checkpoint, another version, a field that differs, a checkpoint that does not parse) is
a full check, which writes a new checkpoint. There is no "the file only grew" shortcut: a file that grew
may also have been edited before its end, and only reading it can tell. aidlc's own appends keep the
checkpoint true: under the ledger's lock they write the line, fsync it, extend the state by that line and
record the new identity, so a ledger changed only by aidlc is never read in full twice.

What an edit can do to a trusted prefix, and why it is caught:
* any write through the file system (an editor, `sed -i`, a script appending, `git checkout`, `pull`,
  `merge`, `stash`, `reset`) sets the change time to the current time, and most also change the size,
  the modification time or the inode (a rename over the file). The change time cannot be set back by a
  user (`touch -d` sets the modification time, and setting it changes ctime too), so an edit that keeps
  the size and restores the modification time still changes the identity.
* a file replaced by another (a copy, a checkout of another branch, a restore from backup, another
  clone's file) has another inode or device, or another ctime.
* a checkpoint copied from elsewhere (another clone, a committed `.aidlc/` a hostile repository ships)
  names a file with another inode and ctime: it is never trusted. Nor is one from another aidlc version,
  whose checks may differ.
* what stat cannot tell apart: a write in the same tick of the file system's clock (a few milliseconds;
  a second or two on FAT, which keeps no change time) as aidlc's own append, keeping the size. The last
  4 KiB (the newest events, which such a racing write would most likely touch) are checked by content.
  Whoever can write the ledger within milliseconds of aidlc can as well write `.aidlc/` itself, the
  checkpoint included: the checkpoint is a cache of this working copy's own checks, no more trusted than
  the working copy. Trust in a ledger comes from a full check where no such cache exists: `aidlc log
  verify` always reads the whole file (and never uses the checkpoint), as does every fresh clone and
  every CI run; an edit made here is caught there.

A checkpoint is written only for a ledger without errors, by aidlc's own appends (and the gate command's
full check), under the ledger's lock, never by a command that only reads (`validate`, `status`); it is
renamed into place (a reader sees the old document or the new), never written through a symbolic link or
outside the repository. Failing to write one only costs time.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat as stat_module
from pathlib import Path
from typing import Any

from aidlc import __version__
from aidlc.events.state import LedgerState

FORMAT = 1
CHECKPOINT = Path(".aidlc") / "ledger" / "checkpoint.json"
TAIL = 4096  # bytes at the end of the file checked by content
_MAX_CHECKPOINT = 64 << 20  # a checkpoint larger than this was not written by aidlc: ignored


def identity(info: os.stat_result) -> list[int]:
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def tail(fd: int, size: int) -> str:
    """sha256 of the last TAIL bytes of the first `size` bytes of the open file."""
    start = max(0, size - TAIL)
    return hashlib.sha256(os.pread(fd, size - start, start)).hexdigest()


def load(repo_root: Path, rel: str, fd: int) -> LedgerState | None:
    """The state the checkpoint records, if it vouches for the file open at `fd` as it is now; else None."""
    info = os.fstat(fd)
    try:
        handle = os.open(repo_root / CHECKPOINT, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        own = os.fstat(handle)
        if not stat_module.S_ISREG(own.st_mode) or own.st_size > _MAX_CHECKPOINT:
            return None
        with os.fdopen(handle, "rb", closefd=False) as stream:
            document: Any = json.loads(stream.read())
        if not isinstance(document, dict) or document.get("format") != FORMAT \
                or document.get("aidlc") != __version__ or document.get("ledger") != rel \
                or document.get("identity") != identity(info) or document.get("tail") != tail(fd, info.st_size):
            return None
        return LedgerState.from_json(document["state"])
    except (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError):  # not one aidlc wrote
        return None
    finally:
        os.close(handle)


def save(repo_root: Path, rel: str, fd: int, state: LedgerState) -> None:
    """Record `state` as what the file open at `fd` holds now (the caller holds the ledger's lock)."""
    if not state.ok:
        return
    path = repo_root / CHECKPOINT
    info = os.fstat(fd)
    document = {"format": FORMAT, "aidlc": __version__, "ledger": rel, "identity": identity(info),
                "tail": tail(fd, info.st_size), "state": state.to_json()}
    try:
        top = os.path.realpath(repo_root)
        if os.path.commonpath([os.path.realpath(path.parent), top]) != top:
            return  # .aidlc/ leads out of the repository: keep nothing there
        path.parent.mkdir(parents=True, exist_ok=True)
        # A temporary file renamed over the checkpoint: a reader sees the old document or the new one, never
        # a mix. No fsync: after a crash a lost or cut document does not parse, and is ignored.
        temp = path.with_name(f".{path.name}.tmp")  # one name: whoever writes holds the ledger's lock
        if os.path.lexists(temp):
            os.unlink(temp)  # left by a crash; never written through (it could be a link)
        out = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            os.write(out, json.dumps(document, separators=(",", ":")).encode())  # dumps: the C encoder
        finally:
            os.close(out)
        os.replace(temp, path)  # a link at the name is replaced, never followed
    except OSError:
        return  # a cache: without it the next command checks the whole file
