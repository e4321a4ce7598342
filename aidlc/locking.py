"""Exclusive locks between aidlc processes: a lock file, held while a command writes what others also write.

filelock takes the lock the platform has (flock where fcntl exists, LockFileEx on Windows), and the operating
system lets it go when the process ends, however it ends (kill -9 too): a crash never leaves a lock someone must
remove by hand. Only the commands that write import this module; the read-only ones (validate, ci, status, log)
import neither it nor fcntl.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aidlc.errors import UsageError
from aidlc.names import arg


class Busy(Exception):
    """Another process holds the lock (raised only when the caller would not wait)."""


def acquire(path: Path, *, wait: bool = True) -> Any:
    """The lock of the file `path` (made, with its folder, when missing), held until its `release()`; without
    `wait`, Busy at once when another process holds it."""
    from filelock import FileLock, Timeout

    lock = FileLock(path, thread_local=False)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock.acquire(timeout=-1 if wait else 0)
    except Timeout:
        raise Busy(str(path)) from None
    except OSError as exc:  # a folder, a link (never followed), or a file where the lock or its folder belongs
        raise UsageError(f"{path}: cannot be taken as aidlc's lock file ({exc.strerror or exc}): it must be a regular "
                         "file, or missing", [f"rm -r {arg(str(path))}    # when no aidlc runs: aidlc makes it again"]
                         ) from None
    return lock


@contextmanager
def exclusive(path: Path, *, wait: bool = True) -> Iterator[None]:
    """Hold the lock of `path` for the block (see `acquire`)."""
    lock = acquire(path, wait=wait)
    try:
        yield
    finally:
        lock.release()
