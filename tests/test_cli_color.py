"""Colour as the conventions say: NO_COLOR when not empty, TERM=dumb, FORCE_COLOR and CLICOLOR_FORCE; a real
`aidlc` process, on a pipe and on a terminal (a pseudo-terminal)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import Bank, on_terminal

GREEN = "\x1b[32m"
COLOUR_VARIABLES = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "TERM", "CI")


def _env(**variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in COLOUR_VARIABLES}
    return {**env, **variables}


def _piped(root: Path, **variables: str) -> str:
    done = subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(root), "validate"], capture_output=True,
                          text=True, env=_env(**variables))
    assert done.returncode == 0, done.stderr
    return done.stdout


def _on_terminal(root: Path, **variables: str) -> str:
    """validate's stdout and stderr on a pseudo-terminal, as a person at a terminal sees them."""
    code, seen = on_terminal(["--repo", str(root), "validate"], _env(**variables))
    assert code == 0
    return seen


@pytest.mark.parametrize(("variables", "coloured"), [
    ({}, False),  # a pipe: no colour
    ({"FORCE_COLOR": "1"}, True),
    ({"CLICOLOR_FORCE": "1"}, True),
    ({"CLICOLOR_FORCE": "0"}, False),
    ({"FORCE_COLOR": ""}, False),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),  # NO_COLOR is the stronger word
    ({"FORCE_COLOR": "1", "TERM": "dumb"}, True),  # forcing beats the terminal's guess
])
def test_colour_on_a_pipe(bank: Bank, variables: dict[str, str], coloured: bool) -> None:
    out = _piped(bank.root, **variables)
    assert "validation passed" in out
    assert (GREEN in out) is coloured


@pytest.mark.parametrize(("variables", "coloured"), [
    ({"TERM": "xterm"}, True),
    ({"TERM": "xterm", "NO_COLOR": ""}, True),  # set but empty: not a request (no-color.org)
    ({"TERM": "xterm", "NO_COLOR": "1"}, False),
    ({"TERM": "dumb"}, False),
])
def test_colour_on_a_terminal(bank: Bank, variables: dict[str, str], coloured: bool) -> None:
    out = _on_terminal(bank.root, **variables)
    assert "validation passed" in out
    assert (GREEN in out) is coloured


def test_the_flag_beats_forcing(bank: Bank) -> None:
    done = subprocess.run([sys.executable, "-m", "aidlc", "--no-color", "rules", "NOPE"], capture_output=True,
                          text=True, env=_env(FORCE_COLOR="1"))
    assert done.returncode == 2
    assert done.stderr.startswith("error: no rule NOPE")
    forced = subprocess.run([sys.executable, "-m", "aidlc", "rules", "NOPE"], capture_output=True, text=True,
                            env=_env(FORCE_COLOR="1"))
    assert forced.stderr.startswith("\x1b[31merror: \x1b[0m")
