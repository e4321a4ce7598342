"""What keeps `aidlc mcp` warm: a result computed from the whole records (status, validation: the document, redacted
and marked) is kept with a fingerprint of what it was computed from, and given again while the fingerprint holds.

The fingerprint is the stat (inode, size, modification and change times in nanoseconds) of every entry under the
records folder (the ledger included), of aidlc.yaml, and of git's HEAD, index and refs: a file edited, added, removed
or renamed, a commit or a checkout changes it, and the next call computes the document again. Taking it costs a
stat per file, a few percent of reading and parsing them. A write that leaves a file's size and both its times as
they were (within the file system's time resolution) goes unseen until the next change; `.aidlc/` (run states,
caches) is not part of it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from aidlc.mcp.documents import record_folders

T = TypeVar("T")
GIT_FILES = (".git/HEAD", ".git/index", ".git/packed-refs")


def fingerprint(root: Path, folders: list[str]) -> int:
    """The fingerprint of the records in `folders` of the repository at `root` (see the module's docstring)."""
    found = [_stat(root / name) for name in ("aidlc.yaml", *GIT_FILES)]
    for folder in folders:
        found.extend(_walk(root / folder))
    found.extend(_walk(root / ".git" / "refs"))
    return hash(tuple(found))


def _stat(path: Path | str) -> tuple[Any, ...]:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return (str(path),)
    return str(path), info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _walk(folder: Path) -> Iterator[tuple[Any, ...]]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        yield _stat(entry.path)
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(Path(entry.path))


class Warm:
    """Results kept by name with the fingerprint they were computed at; safe to use from worker threads."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._kept: dict[str, tuple[int, Any]] = {}
        self._lock = threading.Lock()

    def kept(self, name: str, compute: Callable[[], T]) -> T:
        """`compute()`'s result, or the one kept under `name` if the project's records did not change."""

        now = fingerprint(self.root, record_folders(self.root))
        with self._lock:
            kept = self._kept.get(name)
        if kept is not None and kept[0] == now:
            return kept[1]
        found = compute()
        with self._lock:
            self._kept[name] = (now, found)
        return found
