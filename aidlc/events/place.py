"""Where a memory bank's ledger is and whether something is there: all a run needs that finds none, without importing
the modules that read and write a ledger (aidlc/events/ledger.py, its one owner, finds it here too)."""

from __future__ import annotations

import os
from pathlib import Path

from aidlc.bank.walk import LEDGER_FILE


def ledger_path(repo_root: Path | str, bank_rel: str) -> Path:
    """The ledger of the memory bank at `bank_rel` (relative to the repository root `repo_root`)."""
    return Path(repo_root) / bank_rel / LEDGER_FILE


def ledger_rel(path: Path, repo_root: Path) -> str:
    """The ledger's path as findings and messages name it: relative to the repository root."""
    try:
        return path.relative_to(repo_root).as_posix()
    except ValueError:  # a ledger outside the repo (tests, tools): its path says where it is
        return path.as_posix()


def something_at(path: Path) -> bool:
    """Something is there (a symbolic link or a folder too: reading it then says what is wrong). A path
    that cannot even be looked at (a folder without permission) counts as there: reading it says why."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True
