"""Evidence a walkthrough approval needs, made for real in a test repository: a person's test and a `verify`
command committed, the bolt's change committed with its `Aidlc-Bolt` trailer, and `aidlc walkthrough` run
(its checks pass). Shared by the tests that approve a walkthrough."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.bolt_sample import BUGGY, CALC, FIXED, TEST

VERIFY = f"""verify:
  - name: tests
    run: {sys.executable} -m unittest discover -s tests -t . -q
    timeout_s: 60
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)


def person_commit(root: Path, message: str = "a person's work") -> None:
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--allow-empty", "-m", message)


def bolt_commit(root: Path, bolt: str, message: str = "fix total()", **trailers: str) -> None:
    lines = "".join(f"{key}: {value}\n" for key, value in {"Aidlc-Bolt": bolt, **trailers}.items())
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--allow-empty", "-m", f"{message}\n\n{lines}")


def add_project(root: Path) -> None:
    """src/pay/calc.py with a bug, the test that shows it, and the verify command that runs it."""
    for rel, text in (("src/__init__.py", ""), ("src/pay/__init__.py", ""), (CALC, BUGGY), ("tests/__init__.py", ""),
                      ("tests/test_calc.py", TEST)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    config = root / "aidlc.yaml"
    text = config.read_text()
    if "verify: []\n" in text:
        config.write_text(text.replace("verify: []\n", VERIFY))


def give_evidence(root: Path, bolt: str, run: object) -> None:
    """The evidence of a medium-risk bolt done by hand; `run(root, *args)` runs an aidlc command."""
    add_project(root)
    person_commit(root)
    (root / CALC).write_text(FIXED)
    bolt_commit(root, bolt)
    result = run(root, "walkthrough", bolt)  # type: ignore[operator]
    code = getattr(result, "exit_code", getattr(result, "returncode", None))
    assert code == 0, getattr(result, "stderr", result)
