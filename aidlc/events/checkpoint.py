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
* even a trusted state does not hand out unchecked bytes: a gate decision is read back from the file
  where the state says it stands, and must hash to what was checked (`Ledger.read_event`), so an edited
  decision is refused even under a forged checkpoint.

A checkpoint is written only for a ledger without errors, by aidlc's own appends (and the gate command's
full check), under the ledger's lock, never by a command that only reads (`validate`, `status`), never
through a symbolic link or outside the repository. It starts with the sha256 of the rest: one cut by a
crash or read half written does not match, and is ignored. Failing to write one only costs time.
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

FORMAT = 2  # 2: the gate decisions it holds were read only from lines in canonical form
CHECKPOINT = Path(".aidlc") / "ledger" / "checkpoint"
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
            digest, rest = stream.read().split(b"\n", 1)
        if hashlib.sha256(rest).hexdigest().encode() != digest:
            return None  # cut by a crash, or read while it was being written
        header_line, decisions, keys = rest.split(b"\n", 2)
        header: Any = json.loads(header_line)
        if not isinstance(header, dict) or header.get("format") != FORMAT \
                or header.get("aidlc") != __version__ or header.get("ledger") != rel \
                or header.get("identity") != identity(info) or header.get("tail") != tail(fd, info.st_size):
            return None
        return LedgerState.restore(header["state"], decisions, keys)
    except (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError):  # not one aidlc wrote
        return None
    finally:
        os.close(handle)


def save(repo_root: Path, rel: str, fd: int, state: LedgerState) -> None:
    """Record `state` as what the file open at `fd` holds now (the caller holds the ledger's lock).

    The sha256 of the rest, then three parts: a line of JSON (identity and the small part of the state), a
    line of JSON (the decisions, kept serialised until they change: most appends decide nothing), and the key
    filter's bytes. It is written over the old one in place (a rename or a truncation would make the file
    system flush it to disk, costing an append as much as its fsync): a reader that meets it half written,
    or a crash midway, finds a digest that does not match, and ignores it."""
    if not state.ok:
        return
    path = repo_root / CHECKPOINT
    info = os.fstat(fd)
    header = {"format": FORMAT, "aidlc": __version__, "ledger": rel, "identity": identity(info),
              "tail": tail(fd, info.st_size), "state": state.summary()}
    rest = b"\n".join([json.dumps(header, separators=(",", ":")).encode(), state.decisions.to_json(),
                       bytes(state.keys.bits)])
    document = hashlib.sha256(rest).hexdigest().encode() + b"\n" + rest
    try:
        top = os.path.realpath(repo_root)
        if os.path.commonpath([os.path.realpath(path.parent), top]) != top:
            return  # .aidlc/ leads out of the repository: keep nothing there
        path.parent.mkdir(parents=True, exist_ok=True)
        out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        try:
            if stat_module.S_ISREG(os.fstat(out).st_mode):  # a FIFO or a device there is left alone
                os.pwrite(out, document, 0)
                os.ftruncate(out, len(document))
        finally:
            os.close(out)
    except OSError:
        return  # a cache: without it the next command checks the whole file
