"""The suite's own settings for the processes it starts (tests/conftest.py)."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_the_folders_of_earlier_runs_pytest_would_delete_are_moved_aside_before_the_tests(tmp_path: Path) -> None:
    """pytest deletes the folders of runs beyond the newest three after the last test, about 200,000 files a run of
    the suite: the suite moves them aside as it starts and deletes them beside the tests. A folder whose run still
    holds its lock, and the newest two, stay. (Left to pytest, the oldest is still there while the tests run.)"""
    root = tmp_path / "temp" / f"pytest-of-{getpass.getuser()}"
    for number in (1, 2, 3, 4):
        (root / f"pytest-{number}" / "a-test").mkdir(parents=True)
    (root / "pytest-2" / ".lock").write_text("", encoding="utf-8")  # a session still running
    (root / "trash-pytest-0-1" / "left").mkdir(parents=True)  # a deletion an earlier run did not finish
    probe = tmp_path / "probe" / "test_probe.py"
    probe.parent.mkdir()
    probe.write_text(f"from pathlib import Path\n\nROOT = Path({str(root)!r})\n\n\n"
                     "def test_the_old_runs_are_gone_before_the_tests() -> None:\n"
                     "    assert not (ROOT / 'pytest-1').exists()\n"
                     "    assert all((ROOT / f'pytest-{number}').is_dir() for number in (2, 3, 4))\n", encoding="utf-8")
    env = {**os.environ, "PYTEST_DEBUG_TEMPROOT": str(tmp_path / "temp"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p", "no:cacheprovider",
                           str(probe)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    names = {path.name for path in root.iterdir()}
    assert {"pytest-2", "pytest-3", "pytest-4"} <= names and "pytest-1" not in names, names


def test_a_folder_another_user_made_under_this_users_name_is_left_alone(tmp_path: Path) -> None:
    """In a /tmp shared with others, another user may make `pytest-of-<this user>` first, with folders in it: the
    suite moves nothing there (pytest refuses such a folder before it deletes anything in it)."""
    if os.getuid() != 0:
        pytest.skip("making a folder another user's takes root")
    root = tmp_path / "temp" / f"pytest-of-{getpass.getuser()}"
    for number in (1, 2, 3, 4):
        (root / f"pytest-{number}" / "theirs").mkdir(parents=True)
    os.chown(root, 54321, 54321)
    probe = tmp_path / "probe" / "test_probe.py"
    probe.parent.mkdir()
    probe.write_text(f"from pathlib import Path\n\n\ndef test_theirs_stays() -> None:\n"
                     f"    assert (Path({str(root)!r}) / 'pytest-1' / 'theirs').is_dir()\n", encoding="utf-8")
    env = {**os.environ, "PYTEST_DEBUG_TEMPROOT": str(tmp_path / "temp"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p", "no:cacheprovider",
                           str(probe)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(path.name for path in root.iterdir()) == ["pytest-1", "pytest-2", "pytest-3", "pytest-4"]
