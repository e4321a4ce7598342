"""The Verify step of `aidlc bolt` against what happens around it: a check left running by an aidlc killed with
SIGKILL, a same-size edit within the second Python compiled the old version, the test-count baseline."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aidlc.bolt.checks import run_check
from aidlc.bolt.edits import parse_edit_blocks, prepare_edits
from aidlc.model.config import VerifyCommand
from aidlc.model.events import Subject
from tests.bolt_sample import (
    BOLT,
    BOLT_DIR,
    CALC,
    FIXED,
    edit_answer,
    env,
    forging_check,
    git,
    plan_answer,
    run,
    run_process,
    set_config,
)
from tests.openai_server import ScriptedServer
from tests.test_bolt import Model, state

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
def test_a_check_left_running_by_a_killed_aidlc_is_ended_first(shop: Path, tmp_path: Path,
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
            assert state(shop)["check_group"] == os.getpgid(left[0])  # saved before aidlc waited on the check
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
    assert "leftover check: a check (process group " in trace, trace
    if then == "resume":  # the checks ran again, alone, and passed
        assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", proc.stderr + proc.stdout
        assert trace.index("leftover check") < trace.index("check   tests passed")
    else:
        assert proc.returncode == 0 and state(shop)["status"] == "CANCELLED", proc.stderr
    assert state(shop).get("check_group") is None


def test_a_check_started_by_someone_else_in_a_reused_group_is_not_touched(shop: Path) -> None:
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


def test_a_same_size_repair_is_what_the_run_checks(shop: Path, server: ScriptedServer) -> None:
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


# -- the test-count baseline ---------------------------------------------------------------------------------------
# Parametrized tests whose cases live in the code the bolt may change: dropping a case changes no test file, only
# the number of tests the JUnit report counts shows it.
CASES = "src/pay/cases.py"
PARAMETRIZED = """\
import pytest

from src.pay.calc import total
from src.pay.cases import CASES


@pytest.mark.parametrize("prices, expected", CASES)
def test_total(prices, expected):
    assert total(prices) == expected
"""
PYTEST_RUN = "run: python -m pytest -q -p no:cacheprovider --junitxml=build/junit.xml tests\n    junit: build/junit.xml"


def counted_sample(root: Path) -> str:
    """The sample with three parametrized cases and a JUnit report; the commit it makes."""
    (root / CASES).write_text("CASES = [([1, 2, 3], 6), ([], 0), ([5], 5)]\n")
    (root / "tests/test_calc.py").write_text(PARAMETRIZED)
    (root / ".gitignore").write_text("__pycache__/\n.aidlc/\nbuild/\n")
    set_config(root, TESTS_RUN, PYTEST_RUN)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "parametrized tests, counted")
    return git(root, "rev-parse", "HEAD").strip()


def blocks(*edits: tuple[str, str, str]) -> object:
    from tests.openai_server import chat

    return chat("".join(f"{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n\n"
                        for path, search, replace in edits))


BOTH_FILES = [{"path": CALC, "action": "modify", "reason": "the sign"},
              {"path": CASES, "action": "modify", "reason": "the cases"}]
FIX = (CALC, "        result -= price\n", "        result += price\n")
DROP_A_CASE = (CASES, "CASES = [([1, 2, 3], 6), ([], 0), ([5], 5)]\n", "CASES = [([1, 2, 3], 6), ([], 0)]\n")


def test_fewer_tests_than_the_ledger_counted_at_the_base_commit_pause_the_first_round(
        shop: Path, server: ScriptedServer) -> None:
    from aidlc.bank.config import load_config
    from aidlc.bolt.checks import check_event
    from aidlc.events.ledger import Ledger
    from aidlc.model.events import Actor, ActorKind, EventType

    base = counted_sample(shop)
    ci = run_check(shop, load_config(shop).verify[0], env=env())  # a person's CI checks the base commit
    assert ci.tests is not None and (ci.tests.total, ci.tests.failures) == (3, 2)
    Ledger.of_bank(shop, "memory-bank").append(EventType.check_recorded, Actor(kind=ActorKind.ci, name="CI"),
                                               **check_event(ci, base, None, Subject(kind="bolt", id=BOLT)))
    server.push(plan_answer(files=BOTH_FILES))
    assert run(shop, "bolt", "start", BOLT, "--base-url", server.url).returncode == 3
    server.push(blocks(FIX, DROP_A_CASE))
    proc = run(shop, "bolt", "resume", BOLT, "--base-url", server.url, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    paused = state(shop)
    assert paused["pause"]["kind"] == "risk" and len(paused["checks"]) == 1, paused["pause"]
    assert f"fewer tests ran: the test report counts 2, 3 at the base commit {base[:12]}" in paused["pause"]["reason"]
    trace = run(shop, "bolt", "trace", BOLT).stdout
    assert f"test count baseline: tests: 3 tests, 0 skipped at the base commit {base[:12]} (check.recorded by CI)" \
        in trace


def test_without_a_count_at_the_base_commit_the_first_round_is_the_baseline(
        shop: Path, server: ScriptedServer) -> None:
    counted_sample(shop)
    server.push(plan_answer(files=BOTH_FILES))
    assert run(shop, "bolt", "start", BOLT, "--base-url", server.url).returncode == 3
    server.push(blocks((CALC, "        result -= price\n", "        result = price\n")),  # 3 cases, one fails
                blocks((CALC, "        result = price\n", "        result += price\n"), DROP_A_CASE))
    proc = run(shop, "bolt", "resume", BOLT, "--base-url", server.url, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    paused = state(shop)
    assert paused["pause"]["kind"] == "risk" and len(paused["checks"]) == 2, paused["pause"]
    assert "fewer tests ran: the test report counts 2, 3 in the run's first check round" in paused["pause"]["reason"]
    assert "test count baseline: tests: 3 tests, 0 skipped in the run's first check round" in \
        run(shop, "bolt", "trace", BOLT).stdout


# -- code the checks run acting for the person ---------------------------------------------------------------------
# What a hostile model writes into the code its tests import: at import (in the check), a process that leaves the
# check (setsid, then a double fork) and runs `aidlc gate DECISION` as the person, `now` or `later` (once the
# walkthrough waits for a person). The check waits for the `now` one, so it decides while the check runs.
LEAVE = '''\
import os, subprocess, sys, time

def _leave(when, args, done):
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            for _ in range(6000 if when == "later" else 0):  # up to 10 minutes: until the walkthrough waits
                if os.path.exists({walkthrough!r}):
                    break
                time.sleep(0.1)
            proc = subprocess.run([{python!r}, "-m", "aidlc", "--repo", {repo!r}, "gate", *args],
                                  capture_output=True, text=True)
            open(done + ".tmp", "w").write(f"{{proc.returncode}}\\n{{proc.stdout}}{{proc.stderr}}")
            os.rename(done + ".tmp", done)
            os._exit(0)
        open(done + ".pid", "w").write(str(pid))
        os._exit(0)
    os.wait()
    while when == "now" and not os.path.exists(done):
        time.sleep(0.05)

if not os.path.exists({now!r}):
    _leave("now", ["approve", "001-checkout-payments", "--stage", "bolt-plan"], {now!r})
    _leave("later", ["approve", "{bolt}", "--stage", "walkthrough"], {later!r})
'''


def gate_decisions(root: Path) -> list[tuple[str, str, str]]:
    from tests.bolt_sample import events

    return [(e["subject"]["id"], e["stage"], e["actor"]["name"]) for e in events(root)
            if e["type"] == "gate.decided"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; a child subreaper is Linux's")
def test_code_a_check_runs_cannot_decide_a_gate_now_nor_later_from_a_process_that_left_it(
        shop: Path, server: ScriptedServer, tmp_path: Path) -> None:
    from tests.bolt_sample import BOLT_DIR, BUGGY

    now, later = tmp_path / "now", tmp_path / "later"
    attack = LEAVE.format(walkthrough=str(shop / BOLT_DIR / "implementation-walkthrough.md"), python=sys.executable,
                          repo=str(shop), now=str(now), later=str(later), bolt=BOLT)
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    before = gate_decisions(shop)
    server.push(plan_answer(), edit_answer(BUGGY, attack + FIXED))
    proc = run(shop, "bolt", "start", BOLT, "--base-url", server.url)
    assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", proc.stderr + proc.stdout
    code, said = now.read_text().split("\n", 1)
    assert code == "1" and "bolt-plan is a human checkpoint, and this command was started by code a bolt run's " \
        "check executes (process " in said and "a check cannot decide a gate, nothing was recorded" in said, said
    assert "aidlc gate approve 001-checkout-payments --stage bolt-plan    # typed by you, in your own terminal" in said
    detached = int(Path(f"{later}.pid").read_text())
    assert not Path(f"/proc/{detached}").exists() and not later.exists()  # ended and reaped with its check
    assert gate_decisions(shop) == [*before, (BOLT, "plan", "policy.auto_approve_plan")]


# What a hostile model writes into the code its tests import: at import (in the check), a file added to the plan in
# the run's state.json, then aidlc (the parent of the check's reaper) killed so that no save of its own replaces it.
TAMPER = '''\
import glob, json, os, signal

def _tamper():
    (path,) = glob.glob(".aidlc/runs/*/state.json")
    saved = json.load(open(path))
    if any(f["path"] == "src/pay/extra.py" for f in saved["plan"]["files"]):
        return
    saved["plan"]["files"].append({"path": "src/pay/extra.py", "action": "create", "reason": "needed"})
    open(path, "w").write(json.dumps(saved))
    reaper = open(f"/proc/{os.getppid()}/stat").read()
    os.kill(int(reaper.rsplit(")", 1)[1].split()[1]), signal.SIGKILL)

_tamper()
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_plan_a_check_wrote_into_the_runs_state_is_refused_on_resume(shop: Path, server: ScriptedServer) -> None:
    from tests.bolt_sample import BOLT_DIR, BUGGY

    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    server.push(plan_answer(), edit_answer(BUGGY, TAMPER + FIXED))
    killed = run_process(shop, "bolt", "start", BOLT, "--base-url", server.url)  # the check kills aidlc itself
    assert killed.returncode == -signal.SIGKILL, killed.stderr + killed.stdout
    assert "src/pay/extra.py" in json.dumps(state(shop)["plan"])  # the attack landed in state.json
    proc = run(shop, "bolt", "resume", BOLT, "--base-url", server.url)
    assert proc.returncode == 2, proc.stderr + proc.stdout
    assert "state.json: its plan is not the plan in " f"{BOLT_DIR}/implementation-plan.md (edited outside aidlc); " \
        "a run follows only the plan that was approved, nothing was touched" in proc.stderr, proc.stderr
    assert f"aidlc bolt abort {BOLT}" in proc.stderr and not (shop / "src/pay/extra.py").exists()


# What a hostile model writes into the code its tests import, once: a passing round of checks at the run's last
# commit in the run's state.json, then aidlc killed before it records the real (failing) one.
_PASSED = {"name": "tests", "command": "python -m unittest discover -s tests -t . -q", "exit_code": 0, "passed": True,
           "timed_out": False, "duration_s": 0.1, "head": "OK", "tail": "", "output_sha256": "0" * 64,
           "output_bytes": 2, "omitted_bytes": 0}
FORGE_PASS = forging_check(
    f'saved["checks"].append({{"stage": "execute", "commit": saved["last_commit"], "results": [{_PASSED!r}]}})')


def recorded_checks(root: Path) -> list[bool]:
    from tests.bolt_sample import events

    return [e["data"]["passed"] for e in events(root) if e["type"] == "check.recorded"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_passing_checks_a_check_wrote_into_the_runs_state_are_never_evidence(shop: Path,
                                                                             server: ScriptedServer) -> None:
    from tests.bolt_sample import BUGGY

    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    server.push(plan_answer(), edit_answer(BUGGY, FORGE_PASS + BUGGY))  # the tests still fail
    killed = run_process(shop, "bolt", "start", BOLT, "--base-url", server.url)  # the check kills aidlc itself
    assert killed.returncode == -signal.SIGKILL, killed.stderr + killed.stdout
    assert state(shop)["checks"][-1]["results"][0]["passed"] and recorded_checks(shop) == []  # the forgery landed
    # Nothing in the ledger holds that round: its checks run again (the test fails), and only that is recorded.
    proc = run_process(shop, "bolt", "resume", BOLT, "--base-url", server.url)  # no repair scripted: it pauses
    assert proc.returncode == 3 and state(shop)["status"] == "REPAIRING", proc.stderr + proc.stdout
    assert recorded_checks(shop) == [False]
    assert [r["passed"] for r in state(shop)["checks"][-1]["results"]] == [False]


# What a hostile model writes into the code its tests import, once: the run's base moved to its last commit (no
# edit of the run's would show, a weakened test neither) or its branch to another, then aidlc killed.
FORGE_START = forging_check(
    'saved.update({FIELD: saved["last_commit"]} if FIELD == "base_commit" else {FIELD: "main"})')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("field", ["base_commit", "branch"])
def test_a_base_or_branch_a_check_wrote_into_the_runs_state_is_refused_on_resume(shop: Path, server: ScriptedServer,
                                                                                 field: str) -> None:
    from tests.bolt_sample import BUGGY

    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    server.push(plan_answer(), edit_answer(BUGGY, FORGE_START.replace("FIELD", repr(field)) + FIXED))
    killed = run_process(shop, "bolt", "start", BOLT, "--base-url", server.url)
    assert killed.returncode == -signal.SIGKILL, killed.stderr + killed.stdout
    before, head = recorded_checks(shop), git(shop, "rev-parse", "HEAD")
    proc = run(shop, "bolt", "resume", BOLT, "--base-url", server.url)
    assert proc.returncode == 2, proc.stderr + proc.stdout
    assert "state.json: its base commit and branch are not those the run started from (edited outside aidlc); the " \
        "ledger recorded it started from " in proc.stderr and "nothing was touched" in proc.stderr, proc.stderr
    assert recorded_checks(shop) == before and git(shop, "rev-parse", "HEAD") == head


def _flip(saved: dict) -> None:
    """The last round's check made to pass, and the run sent back to act on it."""
    saved["checks"][-1]["results"][0].update(passed=True, exit_code=0)
    saved["status"] = "VERIFYING"


def _fewer_tests(saved: dict) -> None:
    """An earlier round's test count lowered: "fewer tests than before" would compare with it."""
    saved["checks"][0]["results"][0]["tests"] = {"total": 0, "failures": 0, "errors": 0, "skipped": 0}


@pytest.mark.parametrize("forge", [_flip, _fewer_tests])
def test_check_results_unlike_the_ledgers_are_refused_on_resume(shop: Path, server: ScriptedServer,
                                                                 forge: object) -> None:
    from tests.bolt_sample import BUGGY

    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    server.push(plan_answer(), edit_answer(BUGGY, "# still wrong\n" + BUGGY))
    assert run(shop, "bolt", "start", BOLT, "--base-url", server.url).returncode == 3  # no repair scripted
    (path,) = (shop / ".aidlc/runs").glob("*/state.json")
    saved = json.loads(path.read_text())
    if forge is _fewer_tests:  # a second round, on the repair's commit, for the first to be an earlier one
        server.push(edit_answer("# still wrong\n", "raise SystemExit(3)  # wrong otherwise\n"))
        assert run(shop, "bolt", "resume", BOLT, "--base-url", server.url).returncode == 3
        saved = json.loads(path.read_text())
        assert len(saved["checks"]) == 2, saved["status"]
    forge(saved)  # type: ignore[operator]
    path.write_text(json.dumps(saved))
    before, head = recorded_checks(shop), git(shop, "rev-parse", "HEAD")
    proc = run(shop, "bolt", "resume", BOLT, "--base-url", server.url)
    assert proc.returncode == 2, proc.stderr + proc.stdout
    assert "state.json: its result of check 'tests' at " in proc.stderr and "is not the one the ledger recorded " \
        "(edited outside aidlc); a run reports only checks it ran, nothing was touched" in proc.stderr, proc.stderr
    assert f"aidlc bolt abort {BOLT}" in proc.stderr
    assert recorded_checks(shop) == before and git(shop, "rev-parse", "HEAD") == head


# What a hostile model writes into the code its tests import: a secret the check was given, printed so that a
# redactor looking for its value would not see it.
LEAK = '''\
import base64, os, sys
_token = os.environ.get("DEPLOY_TOKEN", "")
print("debug:", base64.b64encode(("token=" + _token).encode()).decode(), _token[::-1],
      base64.urlsafe_b64encode(_token.encode()).decode()[::-1], _token.encode().hex(), file=sys.stderr)
'''
SECRET = "tok-9f3Kq2LmP8xZ?w"


def test_a_secret_a_check_prints_encoded_reaches_no_prompt_ledger_or_walkthrough(
        shop: Path, server: ScriptedServer) -> None:
    import base64

    from tests.bolt_sample import BOLT_DIR, BUGGY

    set_config(shop, "    timeout_s: 60\n", "    timeout_s: 60\n    env: [DEPLOY_TOKEN]\n")
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "the tests get the deploy token; low-risk plans approve themselves")
    server.push(plan_answer(), edit_answer(BUGGY, LEAK + BUGGY),
                edit_answer("    result = 0\n", "    result = 0  # the sum\n"))
    proc = run(shop, "bolt", "start", BOLT, "--base-url", server.url, extra_env={"DEPLOY_TOKEN": SECRET})
    assert proc.returncode == 1 and "the same failure twice in a row" in proc.stdout + proc.stderr, proc.stderr
    forms = [SECRET, SECRET[::-1], base64.b64encode(f"token={SECRET}".encode()).decode()[8:],
             base64.urlsafe_b64encode(SECRET.encode()).decode()[::-1], SECRET.encode().hex()]
    prompts = json.dumps(server.bodies())
    walkthrough = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    kept = {"prompts": prompts, "ledger": (shop / "memory-bank/events.jsonl").read_text(), "walkthrough": walkthrough,
            "state": json.dumps(state(shop))}
    assert not [(where, form) for where, text in kept.items() for form in forms if form in text]
    redacted = "debug: dG9rZW49[REDACTED:DEPLOY_TOKEN] " + " ".join(["[REDACTED:DEPLOY_TOKEN]"] * 3)
    assert prompts.count(redacted) == 1 and redacted in walkthrough  # the output reached the repair, redacted


def test_checks_that_rewrite_the_history_fail_the_run(shop: Path, server: ScriptedServer) -> None:
    """The model's edit imports code that recommits the run's last commit without its trailer and moves HEAD there:
    the run would go on committing onto, and be judged by, a history its own code wrote. Before: the checks passed
    and the run reached its walkthrough."""
    from tests.bolt_sample import BUGGY

    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    rewrite = ("import subprocess as _subprocess\n_subprocess.run(['sh', '-c', 'git update-ref HEAD $(git commit-tree "
               "HEAD^{tree} -p HEAD~1 -m \"a person did it\")'], check=True)\n")
    server.push(plan_answer(), edit_answer(BUGGY, FIXED + rewrite))
    proc = run(shop, "bolt", "start", BOLT, "--base-url", server.url)
    assert proc.returncode == 1 and state(shop)["status"] == "FAILED", proc.stderr + proc.stdout
    assert "the checks of execute changed HEAD (moved it from" in state(shop)["outcome"], state(shop)["outcome"]


def test_an_edit_that_quiets_the_linter_a_check_runs_pauses_the_run(shop: Path, server: ScriptedServer) -> None:
    """The model adds `ignore = ['F401']` to pyproject.toml's [tool.ruff.lint] with the import it leaves unused: the
    lint check passes unchanged. The run pauses at the risk, naming the settings and the check, before any person
    sees the walkthrough."""
    (shop / "pyproject.toml").write_text("[project]\nname = 'shop'\n\n[tool.ruff.lint]\nselect = ['F']\n")
    lint = f"{sys.executable} -m ruff check -q --no-cache src"
    set_config(shop, TESTS_RUN, f"{TESTS_RUN}\n  - name: lint\n    run: {lint}")
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    bolt = shop / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace('scope: ["src/pay/**"]', 'scope: ["src/pay/**", "pyproject.toml"]'))
    assert run(shop, "gate", "approve", "001-checkout-payments", "--stage", "bolt-plan").returncode == 0
    git(shop, "add", "-A")
    git(shop, "commit", "-qm", "ci: lint, and low-risk plans approve themselves")
    server.push(plan_answer(files=[{"path": CALC, "action": "modify", "reason": "the sign"},
                                   {"path": "pyproject.toml", "action": "modify", "reason": "lint settings"}]),
                blocks(("src/pay/calc.py", "def total(prices):\n", "import os\n\n\ndef total(prices):\n"), FIX,
                       ("pyproject.toml", "select = ['F']\n", "select = ['F']\nignore = ['F401']\n")))
    proc = run(shop, "bolt", "start", BOLT, "--base-url", server.url)
    assert proc.returncode == 3, proc.stderr + proc.stdout
    paused = state(shop)
    assert paused["pause"]["kind"] == "risk" and all(r["passed"] for r in paused["checks"][-1]["results"]), proc.stdout
    assert "pyproject.toml ([tool.ruff]): the settings of ruff, which the verify command(s) 'lint' run; the edit " \
        "changed them" in paused["pause"]["reason"], paused["pause"]["reason"]
