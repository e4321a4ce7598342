"""A tiny project with a failing test, in a real git repo with a memory bank whose inception gates a person
approved: what `aidlc bolt` runs on in the tests. Built once per session, copied for each test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import in_process
from tests.openai_server import Reply, chat
from tests.test_new import build_chain

BOLT = "001-checkout-api"
MB = "memory-bank"
BOLT_DIR = f"{MB}/bolts/{BOLT}"
CALC = "src/pay/calc.py"
STORY = f"{MB}/intents/001-checkout-payments/units/001-checkout-api/stories/001-pay-by-card.md"

BUGGY = "def total(prices):\n    result = 0\n    for price in prices:\n        result -= price\n    return result\n"
FIXED = BUGGY.replace("result -= price", "result += price")
TEST = """\
import unittest

from src.pay.calc import total


class TotalTest(unittest.TestCase):
    def test_adds_prices(self):
        self.assertEqual(total([1, 2, 3]), 6)


if __name__ == "__main__":
    unittest.main()
"""
VERIFY = """verify:
  - name: tests
    run: python -m unittest discover -s tests -t . -q
    timeout_s: 60
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def env(**extra: str) -> dict[str, str]:
    """A person at a terminal (not CI), with git and this Python on PATH."""
    base = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    return {**base, **extra}


def build_sample(root: Path) -> None:
    """The chain of test_new, the inception gates approved by a person, a bug in src/pay/calc.py, committed."""
    git(root, "config", "user.name", "Ada Lovelace")
    git(root, "config", "user.email", "ada@example.org")
    build_chain(root)
    (root / "src/pay").mkdir(parents=True)
    (root / "src/__init__.py").write_text("")
    (root / "src/pay/__init__.py").write_text("")
    (root / CALC).write_text(BUGGY)
    (root / "tests").mkdir()
    (root / "tests/__init__.py").write_text("")
    (root / "tests/test_calc.py").write_text(TEST)
    set_config(root, "verify: []\n", VERIFY)
    (root / ".gitignore").write_text("__pycache__/\n.aidlc/\n")
    for stage in ("requirements", "units", "stories", "bolt-plan"):
        proc = run(root, "gate", "approve", "001-checkout-payments", "--stage", stage)
        assert proc.returncode == 0, proc.stderr
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "sample: a shop with a bug in total()")


def set_config(root: Path, old: str, new: str) -> None:
    config = root / "aidlc.yaml"
    text = config.read_text()
    assert old in text
    config.write_text(text.replace(old, new))


def run(root: Path, *args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`aidlc --repo ROOT ARGS` in this process, with the environment `env` gives a person's terminal."""
    return in_process(["--repo", str(root), *args], env(**(extra_env or {})), cwd=root)


def run_process(root: Path, *args: str, extra_env: dict[str, str] | None = None,
                timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """As `run`, in a real `python -m aidlc` process: for what only a process shows (a kill, its exit status, a
    wait that never ends: with `timeout`, subprocess.TimeoutExpired fails the test instead of hanging the suite)."""
    return subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(root), *args], capture_output=True,
                          text=True, env=env(**(extra_env or {})), cwd=root, timeout=timeout)


def copy(template: Path, root: Path) -> Path:
    shutil.copytree(template, root, symlinks=True)
    return root


def plan_answer(**changes: Any) -> Reply:
    plan = {"summary": "Make total() add the prices instead of subtracting them.",
            "files": [{"path": CALC, "action": "modify", "reason": "total() subtracts each price"}],
            "tests": [{"command": "python -m unittest discover -s tests", "purpose": "the existing total test"}],
            "risks": ["callers that relied on the wrong sign"], "rollback": "git revert the run's commits",
            "risk_level": "low", **changes}
    return answer(json.dumps(plan))


def edit_answer(search: str, replace: str, path: str = CALC) -> Reply:
    return answer(f"{path}\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")


def answer(text: str) -> Reply:
    """`text` with the count a real server would report (about 4 bytes a token): the client replaces counts that
    cannot be true."""
    return chat(text, completion_tokens=len(text) // 4)


def events(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / MB / "events.jsonl").read_text().splitlines()]


def log(root: Path, since: str = "HEAD~20") -> list[str]:
    return git(root, "log", "--format=%s%n%(trailers:only,unfold)", "--all").split("\n")


_FORGING = """\
import glob, json, os, signal

def _forge():
    if os.path.exists(".aidlc/forged"):
        return
    open(".aidlc/forged", "w").close()
    (path,) = glob.glob(".aidlc/runs/*/state.json")
    saved = json.load(open(path))
    {change}
    open(path, "w").write(json.dumps(saved))
    reaper = open(f"/proc/{{os.getppid()}}/stat").read()
    os.kill(int(reaper.rsplit(")", 1)[1].split()[1]), signal.SIGKILL)

_forge()
"""


def forging_check(change: str) -> str:
    """What a hostile model writes into the code its tests import: at import, in the check, once (a flag file in
    .aidlc/), the statement `change` applied to the run's state.json as `saved`, then aidlc (the parent of the
    check's reaper) killed, so that no save of its own replaces the forgery."""
    return _FORGING.format(change=change)

