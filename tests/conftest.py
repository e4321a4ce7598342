"""Shared fixtures: a clean memory bank in a real git repo, and a repo scaffolded by `aidlc init`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import Bank, build_clean_bank


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    """A memory bank that validates with zero findings; a test breaks one thing in it."""
    return build_clean_bank(tmp_path / "repo")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repo scaffolded by a real `aidlc init --git` subprocess (empty bank, ledger started)."""
    root = tmp_path / "shop"
    proc = subprocess.run([sys.executable, "-m", "aidlc", "init", "--git", str(root)], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "CI": "true"})
    assert proc.returncode == 0, proc.stderr
    return root
