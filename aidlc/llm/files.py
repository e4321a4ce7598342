"""Opening the files the LLM layer reads and writes (cassettes, the user config): regular files only.

A FIFO would block the command forever (opening one waits for its other end), a device never ends,
a folder is not a file: each is an LLMConfigError naming the path, never a hang. O_NONBLOCK makes
the open itself return at once, then fstat tells what was opened (no race between a check and the open).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from aidlc.llm.errors import LLMConfigError

_KINDS = ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "device"),
          (stat.S_ISBLK, "device"))


def open_regular(path: Path, flags: int, what: str, fix: str) -> int:
    """A descriptor for `path` opened with `flags` (a file it creates gets 0644 less the umask), if it is a
    regular file. OSErrors other than "not a regular file" are left to the caller (a missing file means
    different things to each)."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EISDIR):  # a FIFO nobody reads; a folder opened for writing
            raise not_a_file(path, what, fix, "FIFO" if exc.errno == errno.ENXIO else "folder") from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((name for test, name in _KINDS if test(mode)), "special file")
        raise not_a_file(path, what, fix, kind)
    os.set_blocking(fd, True)
    return fd


def read_regular(path: Path, what: str, fix: str) -> bytes:
    fd = open_regular(path, os.O_RDONLY, what, fix)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def not_a_file(path: Path, what: str, fix: str, kind: str) -> LLMConfigError:
    return LLMConfigError(f"{what} {path} is a {kind}, not a regular file", [fix])


def inside(path: Path, root: Path) -> bool:
    """True when `path`, symbolic links resolved, lies in the folder `root`."""
    return path.resolve().is_relative_to(root.resolve())
