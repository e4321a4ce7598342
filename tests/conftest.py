"""Shared fixtures: a clean memory bank in a real git repo, and a repo scaffolded by `aidlc init`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from aidlc.llm.structured import forget_modes
from tests.helpers import Bank, build_clean_bank
from tests.openai_server import ScriptedServer


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



@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A real HTTP server on 127.0.0.1 speaking the OpenAI (and Anthropic) protocol, scripted per test."""
    with ScriptedServer() as running:
        yield running


@pytest.fixture(autouse=True)
def _fresh_modes() -> Iterator[None]:
    """Structured output remembers per server which JSON mode works; tests must not share that."""
    forget_modes()
    yield
    forget_modes()


@pytest.fixture
def chain(repo: Path) -> Path:
    """The scaffolded repo with an intent -> requirement -> unit -> story -> bolt chain and a git identity."""
    from tests.test_gate import set_identity
    from tests.test_new import build_chain

    build_chain(repo)
    set_identity(repo)
    return repo
