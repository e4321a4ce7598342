"""Shared fixtures: a clean memory bank in a real git repo, one per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import Bank, build_clean_bank


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    """A memory bank that validates with zero findings; a test breaks one thing in it."""
    return build_clean_bank(tmp_path / "repo")
