"""Shell completion: `aidlc` asked as a shell asks it (click's completion variables), and a real bash that sources
the script a real `aidlc` process writes and completes a word with it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import Bank, in_process


def _complete(root: Path, words: str) -> list[str]:
    """What `aidlc` offers for the last word of `words` (ends in a space: a new word), as bash asks it: in this
    process, with the environment bash gives the command (a real bash completes one below)."""
    env = {**os.environ, "_AIDLC_COMPLETE": "bash_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    done = in_process([], env, cwd=root)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if line]


@pytest.mark.parametrize(("words", "offered"), [
    ("aidlc gate approve ", ["001-checkout", "001-checkout-api", "002-checkout-refunds"]),
    ("aidlc gate approve 001-checkout --stage bo", ["bolt-plan"]),
    ("aidlc walkthrough ", ["001-checkout-api", "002-checkout-refunds"]),
    ("aidlc bolt start 002", ["002-checkout-refunds"]),
    ("aidlc bolt resume ", ["001-checkout-api", "002-checkout-refunds"]),
    ("aidlc draft units ", ["001-checkout"]),
    ("aidlc status --bolt 001", ["001-checkout-api"]),
    ("aidlc new story Title --unit ", ["001-checkout-api"]),
    ("aidlc new bolt --unit 001-checkout-api --stories 00", ["001-pay-by-card", "002-refund-order"]),
    ("aidlc rules REF-00", ["AIDLC-REF-001", "AIDLC-REF-002", "AIDLC-REF-003", "AIDLC-REF-004", "AIDLC-REF-005",
                            "AIDLC-REF-006", "AIDLC-REF-007", "AIDLC-REF-008", "AIDLC-REF-009"]),
    ("aidlc stat", ["status"]),
])
def test_names_are_completed_from_the_bank(bank: Bank, words: str, offered: list[str]) -> None:
    assert _complete(bank.root, words) == offered


def test_a_folder_without_a_bank_completes_nothing_and_fails_nothing(tmp_path: Path) -> None:
    assert _complete(tmp_path, "aidlc walkthrough ") == []


def test_bash_sources_the_script_and_completes_a_bolt(bank: Bank) -> None:
    shell = ('eval "$(_AIDLC_COMPLETE=bash_source aidlc)"\n'
             'COMP_WORDS=(aidlc walkthrough 002); COMP_CWORD=2\n'
             '_aidlc_completion aidlc\n'
             'printf "%s\\n" "${COMPREPLY[@]}"\n')
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # the installed `aidlc`
    done = subprocess.run(["bash", "-c", shell], cwd=bank.root, env={**os.environ, "PATH": path},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["002-checkout-refunds"]


@pytest.mark.parametrize(("shell", "marker"), [("bash", "complete -o nosort -F _aidlc_completion aidlc"),
                                               ("zsh", "compdef _aidlc_completion aidlc"),
                                               ("fish", "complete --no-files --command aidlc")])
def test_each_shell_gets_its_script(shell: str, marker: str) -> None:
    done = subprocess.run([sys.executable, "-m", "aidlc"], env={**os.environ, "_AIDLC_COMPLETE": f"{shell}_source"},
                          capture_output=True, text=True)
    assert done.returncode == 0 and marker in done.stdout
