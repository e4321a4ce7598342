"""The Verify step of `aidlc bolt` against what happens around it: a check left running by an aidlc killed with
SIGKILL, a same-size edit within the second Python compiled the old version, the test-count baseline."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aidlc.exsecutio.checks import run_check
from aidlc.exsecutio.edits import parse_edit_blocks, prepare_edits
from aidlc.model.config import VerifyCommand
from tests.bolt_sample import BOLT, CALC, FIXED, edit_answer, env, git, plan_answer, run, set_config
from tests.openai_server import ScriptedServer
from tests.test_bolt import Model, _sample, shop, state  # noqa: F401  (fixtures)

TESTS_RUN = "run: python -m unittest discover -s tests -t . -q"


def live(pid: int) -> bool:
    """The process exists and is not a zombie (a killed aidlc's children are reaped by their new parent, if ever)."""
    try:
        line = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return False
    return line[line.rindex(b")") + 2:].split()[0] not in (b"Z", b"X")


# -- a check a killed aidlc left running ---------------------------------------------------------------------------
SLOW_CHECK = '''\
import pathlib, subprocess, sys, time
flag = pathlib.Path({flag!r})
if not flag.exists():  # the first round: a check with a grandchild, both far longer than the test
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    flag.write_text(f"{{__import__('os').getpid()}} {{child.pid}}")
    time.sleep(600)
'''


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc to see the processes")
@pytest.mark.parametrize("then", ["resume", "abort"])
def test_a_check_left_running_by_a_killed_aidlc_is_ended_first(shop: Path, tmp_path: Path,  # noqa: F811
                                                                then: str) -> None:
    flag = tmp_path / "check-started"
    (shop / "scripts").mkdir()
    (shop / "scripts/slow_check.py").write_text(SLOW_CHECK.format(flag=str(flag)))
    set_config(shop, TESTS_RUN, "run: python scripts/slow_check.py")
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "add", "-A")
    git(shop, "commit", "-qm", "a slow check")
    left: list[int] = []
    with Model() as model:
        aidlc = subprocess.Popen([sys.executable, "-m", "aidlc", "--repo", str(shop), "bolt", "start", BOLT,
                                  "--base-url", model.url], env=env(), cwd=shop, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        try:
            for _ in range(2400):  # bounded: the run gets to its check, or exits
                if (flag.is_file() and len(flag.read_text().split()) == 2) or aidlc.poll() is not None:
                    break
                time.sleep(0.05)
            assert aidlc.poll() is None, f"aidlc ended ({aidlc.returncode}) before its check started"
            left = [int(pid) for pid in flag.read_text().split()]
            assert state(shop)["check_group"] == left[0]  # saved before aidlc waited on the check
            aidlc.send_signal(signal.SIGKILL)
            aidlc.wait()
            assert all(live(pid) for pid in left)  # SIGKILL ends aidlc, not its check: the hole
            proc = run(shop, "bolt", then, BOLT, *(["--base-url", model.url] if then == "resume" else []))
        finally:
            for pid in left:
                if live(pid):
                    os.kill(pid, signal.SIGKILL)
    assert not any(live(pid) for pid in left), "the leftover check still runs"
    trace = run(shop, "bolt", "trace", BOLT).stdout
    assert f"leftover check: a check (process group {left[0]}) was still running" in trace, trace
    if then == "resume":  # the checks ran again, alone, and passed
        assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", proc.stderr + proc.stdout
        assert trace.index("leftover check") < trace.index("check   tests passed")
    else:
        assert proc.returncode == 0 and state(shop)["status"] == "CANCELLED", proc.stderr
    assert state(shop).get("check_group") is None


def test_a_check_started_by_someone_else_in_a_reused_group_is_not_touched(shop: Path) -> None:  # noqa: F811
    """A recorded group whose processes do not carry the run's id (the id was reused) is left alone."""
    import json

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    try:
        with Model() as model:
            set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
            git(shop, "commit", "-qam", "low-risk plans approve themselves")
            assert run(shop, "bolt", "start", BOLT, "--base-url", model.url).returncode == 3
        (folder,) = (shop / ".aidlc/runs").iterdir()
        saved = json.loads((folder / "state.json").read_text())
        (folder / "state.json").write_text(json.dumps({**saved, "check_group": other.pid}))
        assert run(shop, "bolt", "abort", BOLT).returncode == 0
        assert live(other.pid) and "leftover check" not in run(shop, "bolt", "trace", BOLT).stdout
    finally:
        other.kill()
        other.wait()


# -- stale bytecode ------------------------------------------------------------------------------------------------
def test_a_same_size_edit_within_the_second_is_what_a_python_check_runs(tmp_path: Path) -> None:
    (tmp_path / "value.py").write_text("VALUE = 1\n")
    (tmp_path / "show.py").write_text("from value import VALUE\nprint('value is', VALUE)\n")
    check = VerifyCommand(name="show", run=f"{sys.executable} -m show")
    assert "value is 1" in run_check(tmp_path, check).excerpt()  # compiles value.py into __pycache__
    answer = "value.py\n<<<<<<< SEARCH\nVALUE = 1\n=======\nVALUE = 2\n>>>>>>> REPLACE\n"
    before = (tmp_path / "value.py").stat().st_mtime
    prepare_edits(tmp_path, parse_edit_blocks(answer), lambda rel: True, memory_bank="memory-bank").apply()
    assert int((tmp_path / "value.py").stat().st_mtime) != int(before)
    assert "value is 2" in run_check(tmp_path, check).excerpt()


def test_a_same_size_repair_is_what_the_run_checks(shop: Path, server: ScriptedServer) -> None:  # noqa: F811
    """`-=` -> `*=` -> `+=`: each edit keeps the file's size, the repair comes well within a second of the check
    that compiled the first edit."""
    server.push(plan_answer())
    assert run(shop, "bolt", "start", BOLT, "--base-url", server.url).returncode == 3
    server.push(edit_answer("        result -= price\n", "        result *= price\n"),
                edit_answer("        result *= price\n", "        result += price\n"))
    proc = run(shop, "bolt", "resume", BOLT, "--base-url", server.url, "--approve")
    assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", proc.stderr + proc.stdout
    assert (shop / CALC).read_text() == FIXED
    assert [r["passed"] for c in state(shop)["checks"] for r in c["results"]] == [False, True]
