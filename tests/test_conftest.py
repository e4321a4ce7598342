"""The suite's own settings for the processes it starts (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_suite_adds_its_git_setting_after_those_the_environment_gives_git(tmp_path: Path) -> None:
    """A container may give git its settings through GIT_CONFIG_COUNT (`safe.directory` for a checkout owned by
    another user): the suite's `maintenance.auto=false` is added after them, never in their place."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_CONFIG_")}
    env.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="user.name", GIT_CONFIG_VALUE_0="From The Environment")
    probe = ("import subprocess, sys, tests.conftest\n"
             "get = lambda key: subprocess.run(['git', '-C', sys.argv[1], 'config', '--get', key],"
             " capture_output=True, text=True).stdout.strip()\n"
             "print(get('user.name'), '|', get('maintenance.auto'))\n")
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "From The Environment | false"
