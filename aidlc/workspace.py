"""Opening a repository's memory bank with its configuration."""

from __future__ import annotations

from pathlib import Path

from aidlc.bank.config import load_config
from aidlc.bank.items import MemoryBank
from aidlc.bank.loader import load_bank
from aidlc.errors import UsageError


def open_bank(root: Path) -> MemoryBank:
    """Load the bank under `root`; no bank at all is a usage error with the command to create one."""
    config = load_config(root)
    bank = load_bank(root, config)
    if not bank.exists:
        raise UsageError(
            f"no memory bank at {root / config.memory_bank}",
            [f"aidlc init {root}    # scaffold aidlc.yaml and memory-bank/",
             "aidlc validate PATH    # or point at a repo that has one"],
        )
    return bank
