"""Moving a torn last line aside: a crash while appending can only leave an incomplete *last* line; the next append
copies it, durably, to a file beside the ledger (`events.jsonl.torn-<time>`, never overwriting an earlier one), cuts
the ledger back to its last complete line, and records a `ledger.tail_recovered` event naming the copy."""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime
from pathlib import Path

from aidlc.bank.write import fsync_folder

_PIECE = 1 << 20  # a fragment may be huge: it is copied a piece at a time


def move_aside(fd: int, path: Path, good_size: int) -> tuple[Path, int, str]:
    """Copy what follows `good_size` in the ledger open at `fd` to a new file beside `path` (synced before the
    ledger is cut), then cut the ledger there. Returns the copy, its size and its sha256."""
    size = os.fstat(fd).st_size
    aside = _aside_path(path)
    digest = hashlib.sha256()
    out = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        for start in range(good_size, size, _PIECE):
            piece = os.pread(fd, min(_PIECE, size - start), start)
            digest.update(piece)
            os.write(out, piece)
        os.fsync(out)
    finally:
        os.close(out)
    fsync_folder(aside.parent)
    os.ftruncate(fd, good_size)
    os.fsync(fd)
    return aside, size - good_size, digest.hexdigest()


def _aside_path(path: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}.torn-{stamp}")
    counter = 1
    while aside.exists() or aside.is_symlink():  # never overwrite an earlier fragment
        aside = path.with_name(f"{path.name}.torn-{stamp}-{counter}")
        counter += 1
    return aside
