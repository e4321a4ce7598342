"""aidlc bolt: the governed loop on a tiny project with a failing test, in a real git repo, against a real
OpenAI-protocol server on 127.0.0.1 playing the model."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bolt_sample import (
    BOLT,
    BOLT_DIR,
    BUGGY,
    CALC,
    FIXED,
    MB,
    STORY,
    edit_answer,
    env,
    events,
    git,
    plan_answer,
    run,
    run_process,
    set_config,
)
from tests.openai_server import Reply, ScriptedServer, chat, error


def start(root: Path, server: ScriptedServer, *args: str, **extra: str):  # type: ignore[no-untyped-def]
    return run(root, "bolt", "start", BOLT, "--base-url", server.url, "--model", "test-model", *args,
               extra_env=extra or None)


def resume(root: Path, server: ScriptedServer, *args: str, **extra: str):  # type: ignore[no-untyped-def]
    return run(root, "bolt", "resume", BOLT, "--base-url", server.url, *args, extra_env=extra or None)


def state(root: Path) -> dict:
    (folder,) = (root / ".aidlc/runs").iterdir()
    return json.loads((folder / "state.json").read_text())


def test_happy_path_pauses_at_the_plan_gate_then_at_the_walkthrough_gate(shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer())
    proc = start(shop, server)
    assert proc.returncode == 3, proc.stderr
    assert f"aidlc gate approve {BOLT} --stage plan" in proc.stdout and "--approve" in proc.stdout
    plan = (shop / BOLT_DIR / "implementation-plan.md").read_text()
    assert "Make total() add the prices" in plan and f"`{CALC}`" in plan
    assert git(shop, "branch", "--show-current").strip() == f"aidlc/{BOLT}"
    assert state(shop)["status"] == "AWAIT_PLAN_APPROVAL"

    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    proc = resume(shop, server, "--approve", "--reason", "looks right")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert (shop / CALC).read_text() == FIXED
    assert state(shop)["status"] == "AWAIT_ACCEPTANCE"
    assert "started: " in (shop / BOLT_DIR / "bolt.md").read_text()  # the plan's approval stamped it ...
    assert "started: " not in json.dumps(server.bodies()[-1]["messages"])  # ... but prompts stay the same
    walkthrough = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert "PASS `tests`" in walkthrough
    trailers = git(shop, "log", "--format=%(trailers:key=Aidlc-Stage,valueonly)", "-3").split()
    assert trailers == ["walkthrough", "execute"]
    body = git(shop, "log", "--format=%an <%ae>%n%B", "-1", "HEAD~1")
    assert "Ada Lovelace <ada@example.org>" in body and f"Aidlc-Bolt: {BOLT}" in body
    assert "Aidlc-Model: test-model" in body and "Aidlc-Run: run-" in body
    kinds = [(e["type"], e["actor"]["kind"]) for e in events(shop)]
    assert ("gate.decided", "human") in kinds and ("check.recorded", "agent") in kinds
    assert ("plan.proposed", "agent") in kinds and ("walkthrough.proposed", "agent") in kinds
    assert run(shop, "log", "verify").returncode == 0
    trace = run(shop, "bolt", "trace", BOLT)
    assert trace.returncode == 0 and "EXECUTING -> VERIFYING" in trace.stdout and "check   tests passed" in trace.stdout


def test_a_wrong_first_edit_is_repaired(shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer())
    assert start(shop, server).returncode == 3
    # Each edit changes the file's size: Python's bytecode cache trusts size and mtime (to the second).
    server.push(edit_answer("        result -= price\n", "        result = price\n"),
                edit_answer("        result = price\n", "        result += price\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert (shop / CALC).read_text() == FIXED
    repair = server.bodies()[-1]["messages"][-1]["content"]
    assert "AssertionError: 3 != 6" in repair and "result = price" in repair  # the failing output and the touched file
    stages = git(shop, "log", "--format=%(trailers:key=Aidlc-Stage,valueonly)", "-4").split()
    assert stages == ["walkthrough", "repair-1", "execute"]
    assert sum(e["type"] == "check.recorded" for e in events(shop)) == 2
    # The ledger is shared and append-only: no line of any prompt, nor of the check's output, ever lands in it.
    ledger = (shop / "memory-bank/events.jsonl").read_text()
    sent = {line.strip() for body in server.bodies() for message in body["messages"]
            for line in str(message["content"]).splitlines() if len(line.strip()) >= 20}
    assert len(sent) > 20 and [line for line in sent if line in ledger] == []


def test_the_same_failure_twice_in_a_row_stops_the_repairs(shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer())
    assert start(shop, server).returncode == 3
    # Two different trees that fail the same way (3 != 6): a third answer would not help either.
    server.push(edit_answer("        result -= price\n", "        result = price\n"),
                edit_answer("        result = price\n", "        result = 0 + price\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert "the same failure twice in a row (tests)" in state(shop)["outcome"]
    assert sum(e["type"] == "check.recorded" for e in events(shop)) == 2
    assert len(server.requests) == 3  # the plan, the edit, one repair: no call after the repeat


def test_repairs_exhausted_fail_with_a_partial_walkthrough(shop: Path, server: ScriptedServer) -> None:
    set_config(shop, "max_repairs: 3", "max_repairs: 1")
    git(shop, "commit", "-qam", "one repair only")
    server.push(plan_answer())
    assert start(shop, server).returncode == 3
    server.push(edit_answer("        result -= price\n", "        result = price\n"),
                edit_answer("        result = price\n", "        result *= price\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert state(shop)["status"] == "FAILED" and "max_repairs" in state(shop)["outcome"]
    walkthrough = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert "partial" in walkthrough and "FAIL `tests`" in walkthrough
    assert events(shop)[-1]["type"] == "run.finished"
    assert run(shop, "log", "verify").returncode == 0


def test_a_dirty_tree_is_refused_before_anything_is_touched(shop: Path, server: ScriptedServer) -> None:
    (shop / "notes.txt").write_text("mine\n")
    before = (shop / "memory-bank/events.jsonl").read_bytes()
    proc = start(shop, server)
    assert proc.returncode == 2 and "notes.txt" in proc.stderr and "Next steps:" in proc.stderr
    assert server.requests == [] and (shop / "memory-bank/events.jsonl").read_bytes() == before
    assert git(shop, "branch", "--show-current").strip() != f"aidlc/{BOLT}"


def test_a_ledger_that_does_not_verify_starts_nothing(shop: Path, server: ScriptedServer) -> None:
    ledger = shop / "memory-bank/events.jsonl"
    lines = ledger.read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b'"ledger.created"', b'"ledger.creatEd"')  # an edited line: its hash fails
    ledger.write_bytes(b"".join(lines))
    proc = start(shop, server)
    assert proc.returncode == 1, proc.stderr
    assert "memory-bank/events.jsonl:1:" in proc.stderr and "starts nothing while the ledger does not verify" in \
        proc.stderr and "git log -p -- memory-bank/events.jsonl" in proc.stderr
    assert server.requests == [] and not (shop / ".aidlc/runs").exists()
    assert git(shop, "branch", "--show-current").strip() != f"aidlc/{BOLT}"


def test_head_moved_under_a_paused_run_is_refused(shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer())
    assert start(shop, server).returncode == 3
    (shop / "NOTES.md").write_text("a note\n")
    git(shop, "add", "NOTES.md")
    git(shop, "commit", "-qm", "someone else's commit")
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 2 and "HEAD moved" in proc.stderr, proc.stderr
    assert "git reset --keep" in proc.stderr  # that commit changed no file of aidlc's: going back loses nothing
    git(shop, "add", "-A")
    git(shop, "commit", "-qm", "someone else's commit of the ledger")
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 2 and "HEAD moved" in proc.stderr, proc.stderr
    assert "reset" not in proc.stderr and f"aidlc bolt abort {BOLT}" in proc.stderr  # it would take the ledger back
    assert (shop / CALC).read_text() == BUGGY


def test_the_advice_for_uncommitted_changes_never_sets_the_ledger_aside(shop: Path, server: ScriptedServer) -> None:
    """A person's gate decision not yet committed (the ledger is dirty), plus edits of their own: following the
    advice of the refusal to the letter sets their edits aside and keeps the decision."""
    assert run(shop, "gate", "approve", "001-checkout-payments", "--stage", "bolt-plan").returncode == 0
    ledger = (shop / MB / "events.jsonl").read_text()
    (shop / CALC).write_text(BUGGY + "# mine\n")
    (shop / "my notes.txt").write_text("untracked\n")
    proc = start(shop, server, "--dry-run")
    assert proc.returncode == 2 and "uncommitted changes to 2 file(s)" in proc.stderr, proc.stderr
    (advice,) = [line.strip() for line in proc.stderr.splitlines() if "git stash" in line]
    assert "memory-bank" not in advice and ".aidlc" not in advice
    subprocess.run(["sh", "-c", advice.split("    #")[0]], cwd=shop, check=True, capture_output=True)
    assert (shop / MB / "events.jsonl").read_text() == ledger and not (shop / "my notes.txt").exists()
    assert (shop / CALC).read_text() == BUGGY
    assert start(shop, server, "--dry-run").returncode == 0


def test_provider_down_pauses_and_resume_continues(shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer())
    assert start(shop, server).returncode == 3
    server.push(*[error(503, "down")] * 4)  # every attempt of the one configured target
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert state(shop)["pause"]["kind"] == "provider"
    (degraded,) = [e for e in events(shop) if e["type"] == "degraded"]
    assert degraded["actor"]["kind"] == "agent" and degraded["data"].pop("spent")["steps"] >= 1
    assert degraded["data"] == {"stage": "execute", "outcome": "paused"}
    server.replies.clear()
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    proc = resume(shop, server)
    assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", proc.stderr
    assert run(shop, "log", "verify").returncode == 0


def test_bolt_start_and_resume_take_the_model_options_of_draft(shop: Path, server: ScriptedServer) -> None:
    """--api-key-env names the variable whose key is sent; --timeout bounds each call (a server that never
    answers pauses the run, naming the time out)."""
    server.push(plan_answer())
    proc = start(shop, server, "--api-key-env", "MY_MODEL_KEY", MY_MODEL_KEY="k-123")
    assert proc.returncode == 3, proc.stderr
    assert server.requests[-1].headers["authorization"] == "Bearer k-123"
    server.push(*[Reply(body=None, delay_s=30)] * 4)  # every attempt of the one target hangs
    proc = resume(shop, server, "--approve", "--timeout", "0.5")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert state(shop)["pause"]["kind"] == "provider"
    assert "0.5" in state(shop)["pause"]["reason"] and "time" in state(shop)["pause"]["reason"]


# -- SIGKILL at real points of a run, then resume ----------------------------------------------------------------
# A sitecustomize on the PYTHONPATH of the killed process only (the code under test has no test switch) sends
# SIGKILL to its own process at the N-th atomic rename under the repository (state.json, the plan, the
# walkthrough), just before the N-th `git commit` starts, or as the ledger is opened for the N-th append.
KILLER = '''
import os, signal, sys
_root, _at = os.environ["AIDLC_TEST_ROOT"], os.environ["AIDLC_TEST_KILL_AT"]
_seen = {"rename": 0, "commit": 0, "append": 0}


def _kill(event, args):
    if event == "open" and isinstance(args[0], (str, bytes)) and os.fsdecode(args[0]).endswith("events.jsonl") \
            and isinstance(args[2], int) and args[2] & os.O_APPEND:
        _seen["append"] += 1
        if _at == f"append:{_seen['append']}":
            os.kill(os.getpid(), signal.SIGKILL)
    elif event == "os.rename" and os.fsdecode(args[1]).startswith(_root):
        _seen["rename"] += 1
        if _at == f"rename:{_seen['rename']}":
            os.kill(os.getpid(), signal.SIGKILL)
    elif event == "subprocess.Popen" and "commit" in [os.fsdecode(a) for a in (args[1] or [])]:
        _seen["commit"] += 1
        if _at == f"commit:{_seen['commit']}":
            os.kill(os.getpid(), signal.SIGKILL)


sys.addaudithook(_kill)
'''


class Model(ScriptedServer):
    """Answers by what is asked, so a resumed run may ask again what a killed one asked: a plan when a JSON
    schema is requested, else the fixing edit."""

    def _next(self, received):  # type: ignore[no-untyped-def]
        self.requests.append(received)
        body = received.body if isinstance(received.body, dict) else {}
        if body.get("response_format") or "JSON" in json.dumps(body.get("messages", []))[-2000:]:
            return plan_answer()
        return edit_answer("        result -= price\n", "        result += price\n")


@pytest.fixture(scope="module")
def killer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("killer")
    (folder / "sitecustomize.py").write_text(KILLER)
    return folder


@pytest.mark.parametrize("at", ["append:1", "rename:2", "rename:5", "rename:7", "rename:9", "rename:12",
                                "rename:14", "commit:1", "commit:2"])
def test_sigkill_then_resume_makes_no_duplicate_commit_or_event(shop: Path, killer: Path, at: str) -> None:
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")  # all in one process
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    with Model() as model:
        killed = run_process(shop, "bolt", "start", BOLT, "--base-url", model.url, extra_env={
            "PYTHONPATH": str(killer), "AIDLC_TEST_ROOT": str(shop), "AIDLC_TEST_KILL_AT": at})
        assert killed.returncode == -9, (at, killed.stderr, killed.stdout)
        for _ in range(3):  # a kill before the state existed leaves nothing to resume: start again
            proc = run(shop, "bolt", "resume", BOLT, "--base-url", model.url) if (shop / ".aidlc/runs").is_dir() \
                and any((shop / ".aidlc/runs").iterdir()) else run(shop, "bolt", "start", BOLT, "--base-url", model.url)
            if proc.returncode != 3 or state(shop)["status"] == "AWAIT_ACCEPTANCE":
                break
        assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", (at, proc.stderr, proc.stdout)
    assert (shop / CALC).read_text() == FIXED
    stages = git(shop, "log", "--format=%(trailers:key=Aidlc-Stage,valueonly)", "HEAD").split()
    assert stages == ["walkthrough", "execute"], at
    keys = [e["key"] for e in events(shop) if e.get("key")]
    assert len(keys) == len(set(keys)), at
    assert sum(e["type"] == "check.recorded" for e in events(shop)) == 1
    assert sum(e["type"] == "run.started" for e in events(shop)) == 1  # a start killed before it recorded itself too
    assert sum(e["type"] == "gate.decided" and e["actor"]["kind"] == "policy" for e in events(shop)) == 1
    assert run(shop, "log", "verify").returncode == 0
    assert run(shop, "validate").returncode in (0, 1)


class ReworkModel(Model):
    """As Model; a step that reworks a rejected walkthrough gets the edit that answers the reviewer."""

    def _next(self, received):  # type: ignore[no-untyped-def]
        body = received.body if isinstance(received.body, dict) else {}
        if "reworks a walkthrough" in json.dumps(body.get("messages", [])):
            self.requests.append(received)
            return edit_answer("    return result\n", "    return result  # an empty cart totals 0\n")
        return super()._next(received)


@pytest.mark.parametrize("at", ["rename:3", "commit:1", "commit:2"])
def test_sigkill_in_a_rework_round_then_resume_makes_no_duplicate(shop: Path, killer: Path, at: str) -> None:
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    with ReworkModel() as model:
        assert run(shop, "bolt", "start", BOLT, "--base-url", model.url).returncode == 3
        killed = run_process(shop, "bolt", "resume", BOLT, "--base-url", model.url, "--reject", "--reason",
                             "empty cart?", extra_env={"PYTHONPATH": str(killer), "AIDLC_TEST_ROOT": str(shop),
                                                       "AIDLC_TEST_KILL_AT": at})
        assert killed.returncode == -9, (at, killed.stderr, killed.stdout)
        proc = run(shop, "bolt", "resume", BOLT, "--base-url", model.url)
        assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", (at, proc.stderr, proc.stdout)
    assert (shop / CALC).read_text().endswith("return result  # an empty cart totals 0\n")
    stages = git(shop, "log", "--format=%(trailers:key=Aidlc-Stage,valueonly)", "HEAD").split()
    assert stages == ["rework-1.walkthrough", "rework-1.execute", "walkthrough", "execute"], at
    keys = [e["key"] for e in events(shop) if e.get("key")]
    assert len(keys) == len(set(keys)), at
    assert run(shop, "log", "verify").returncode == 0


# -- what the model is told, and what is refused -----------------------------------------------------------------
def set_scope(shop: Path, glob: str) -> None:
    """A person widens the bolt's scope, approves the intent's bolt plan again and commits."""
    bolt = shop / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace('scope: ["src/pay/**"]', f'scope: ["{glob}"]'))
    assert run(shop, "gate", "approve", "001-checkout-payments", "--stage", "bolt-plan").returncode == 0
    git(shop, "commit", "-qam", "a wider scope")


def approved(shop: Path, server: ScriptedServer) -> None:
    """A run paused at the plan gate with the sample's plan."""
    server.push(plan_answer())
    assert start(shop, server).returncode == 3


def test_an_edit_outside_the_plan_is_refused_told_to_the_model_and_nothing_is_written(
        shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    test_file = (shop / "tests/test_calc.py").read_bytes()
    server.push(edit_answer("        self.assertEqual(total([1, 2, 3]), 6)\n",
                            "        self.assertEqual(total([1, 2, 3]), -6)\n", path="tests/test_calc.py"),
                edit_answer("        result -= price\n", "        result += price\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    told = server.bodies()[-1]["messages"][-1]["content"]
    assert "tests/test_calc.py" in told and "plan" in told
    assert (shop / "tests/test_calc.py").read_bytes() == test_file
    trace = run(shop, "bolt", "trace", BOLT).stdout
    assert "edit    execute refused: tests/test_calc.py" in trace


def test_a_search_that_matches_nothing_is_told_to_the_model(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    server.push(edit_answer("        result -= prices\n", "        result += price\n"),
                edit_answer("        result -= price\n", "        result += price\n"))
    assert resume(shop, server, "--approve").returncode == 3
    told = server.bodies()[-1]["messages"][-1]["content"]
    assert "src/pay/calc.py" in told and "SEARCH" in told
    assert (shop / CALC).read_text() == FIXED


def test_two_malformed_answers_switch_to_whole_file_blocks(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    server.push(chat("I would change the minus to a plus."), chat("Sure! Change -= to +=."),
                chat(f"{CALC}\n```python\n{FIXED}```\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert "Answer with whole files" in server.bodies()[-1]["messages"][-1]["content"]
    assert (shop / CALC).read_text() == FIXED and state(shop)["whole_file"] is True


def test_answers_that_never_validate_fail_the_run_and_the_trace_keeps_each_one(shop: Path,
                                                                                server: ScriptedServer) -> None:
    garbage = ["I will make a plan soon.", '{"summary": 2}', "```json\n{\"files\": []}\n```"]
    server.push(*(chat(text) for text in garbage))
    proc = start(shop, server)
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert len(server.requests) == 3 and "did not match Plan after 3 attempts" in state(shop)["outcome"]
    trace = run(shop, "bolt", "trace", BOLT).stdout
    (line,) = [line for line in trace.splitlines() if "model   plan-1.1" in line]
    files = line.split("answers it could not use: ")[1].split(", ")
    assert [(shop / f).read_text() for f in files] == garbage  # each raw answer, in order, as it came


def test_a_plan_valid_at_the_second_answer_keeps_the_first_in_the_trace(shop: Path, server: ScriptedServer) -> None:
    server.push(chat("Here is my plan: change calc.py."), plan_answer())
    assert start(shop, server).returncode == 3
    trace = run(shop, "bolt", "trace", BOLT).stdout
    assert "plan-1.1.rejected-1.txt" in trace and "plan-1.1.rejected-2.txt" not in trace
    (folder,) = (shop / ".aidlc/runs").iterdir()
    assert (folder / "plan-1.1.rejected-1.txt").read_text() == "Here is my plan: change calc.py."


def test_a_plan_naming_forbidden_paths_is_sent_back(shop: Path, server: ScriptedServer) -> None:
    bad = [{"path": ".github/workflows/ci.yml", "action": "create", "reason": "run tests"},
           {"path": "../outside.py", "action": "create", "reason": "helper"},
           {"path": "memory-bank/events.jsonl", "action": "modify", "reason": "log"},
           {"path": "src/pay/nothere.py", "action": "modify", "reason": "x"}]
    server.push(plan_answer(files=bad), plan_answer())
    assert start(shop, server).returncode == 3
    told = server.bodies()[1]["messages"][-1]["content"]
    for path in (".github/workflows/ci.yml", "../outside.py", "memory-bank/events.jsonl", "src/pay/nothere.py"):
        assert path in told
    assert not (shop.parent / "outside.py").exists()
    assert state(shop)["plan"]["files"][0]["path"] == CALC


PROTECTED = [
    ".gitattributes", ".GITATTRIBUTES", "src/pay/.gitattributes", ".github/CODEOWNERS", ".GitHub/codeowners",
    ".github/actions/setup/action.yml", ".github/workflows/ci.yml", "CODEOWNERS", "docs/CODEOWNERS",
    ".aidlc-baseline.json", "aidlc.yaml", "Aidlc.Yaml", ".GIT/config", "src/.Git/hooks/pre-commit",
    f"{BOLT_DIR}/bolt.md", f"{BOLT_DIR.upper()}/BOLT.MD", STORY, "memory-bank/allowed_signers",
    "memory-bank/Events.jsonl", "memory-bank./project.yaml", "memory-bank/bolts/002-new/bolt.md"]


def test_a_hostile_plan_naming_protected_files_in_any_case_is_sent_back(shop: Path, server: ScriptedServer) -> None:
    set_scope(shop, "**")  # the bolt may change anything: only the protection refuses these
    hostile = [{"path": path, "action": "create", "reason": "lower the risk"} for path in PROTECTED]
    server.push(plan_answer(files=hostile), plan_answer())
    assert start(shop, server).returncode == 3
    told = server.bodies()[1]["messages"][-1]["content"]
    for path in PROTECTED:
        assert f"{path}: is " in told, path
    assert told.count("leave it out of the plan") == len(PROTECTED)
    assert [f["path"] for f in state(shop)["plan"]["files"]] == [CALC]


def test_a_plan_creating_a_module_that_shadows_the_test_runner_or_the_standard_library_is_sent_back(
        shop: Path, server: ScriptedServer) -> None:
    set_scope(shop, "**")
    shadows = [{"path": "unittest.py", "action": "create", "reason": "print OK"},
               {"path": "json/__init__.py", "action": "create", "reason": "faster json"},
               {"path": "scripts/os.py", "action": "create", "reason": "helpers"}]
    fine = [{"path": "src/pay/json.py", "action": "create", "reason": "inside a package: src.pay.json"}]
    server.push(plan_answer(files=[*shadows, *fine]), plan_answer(files=fine))
    assert start(shop, server).returncode == 3
    told = server.bodies()[1]["messages"][-1]["content"]
    assert "unittest.py: would shadow the test runner 'unittest' for code run from the root/" in told, told
    assert "json/__init__.py: would shadow the Python standard-library module 'json'" in told
    assert "scripts/os.py: would shadow the Python standard-library module 'os' for code run from scripts/" in told
    assert "src/pay/json.py" not in told
    assert [f["path"] for f in state(shop)["plan"]["files"]] == ["src/pay/json.py"]


def test_while_pytest_runs_the_checks_a_plan_may_not_create_pytest_or_a_conftest(
        shop: Path, server: ScriptedServer) -> None:
    set_config(shop, "python -m unittest discover -s tests -t . -q", "pytest -q tests")
    set_scope(shop, "**")
    hostile = [{"path": "tests/conftest.py", "action": "create", "reason": "mark every test passed"},
               {"path": "pytest.py", "action": "create", "reason": "print 1 passed"}]
    server.push(plan_answer(files=hostile), plan_answer())
    assert start(shop, server).returncode == 3
    told = server.bodies()[1]["messages"][-1]["content"]
    assert "tests/conftest.py: is a pytest plugin file (conftest.py)" in told, told
    assert "pytest.py: would shadow the test runner 'pytest' for code run from the root/" in told


def test_an_edit_to_the_bolts_own_definition_is_refused_and_its_risk_stays(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    server.push(edit_answer("risk: medium\n", "risk: low\n", path=f"{BOLT_DIR}/bolt.md"),
                edit_answer("        result -= price\n", "        result += price\n"))
    assert resume(shop, server, "--approve").returncode == 3
    told = server.bodies()[-1]["messages"][-1]["content"]
    assert f"{BOLT_DIR}/bolt.md: is in the memory bank (memory-bank/)" in told, told
    assert "risk: medium" in (shop / BOLT_DIR / "bolt.md").read_text()


def test_a_plan_naming_a_story_not_of_the_bolt_is_sent_back_and_the_walkthrough_traces_the_story_it_names(
        shop: Path, server: ScriptedServer) -> None:
    fix = {"path": CALC, "action": "modify", "reason": "total() subtracts each price"}
    server.push(plan_answer(files=[{**fix, "stories": ["009-refunds"]}]),
                plan_answer(files=[{**fix, "stories": ["001-pay-by-card"]}]))
    assert start(shop, server).returncode == 3
    asked = server.bodies()[0]["messages"][-1]["content"]
    assert "The bolt's stories: <untrusted-data name=\"the bolt's stories\"" in asked and "\n001-pay-by-card\n" in asked
    told = server.bodies()[1]["messages"][-1]["content"]
    assert f"{CALC}: story '009-refunds' is not one of the bolt's stories (001-pay-by-card)" in told
    assert state(shop)["plan"]["files"][0]["stories"] == ["001-pay-by-card"]
    assert f"| modify | `{CALC}` | 001-pay-by-card | total() subtracts" in (shop / BOLT_DIR / "implementation-plan.md"
                                                                           ).read_text()
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    assert resume(shop, server, "--approve").returncode == 3
    walkthrough = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert f"| `{CALC}` | M | 1 | 1 | total() subtracts each price | 001-pay-by-card (FR-1) |" in walkthrough


def test_what_the_budget_leaves_out_of_the_context_is_traced(shop: Path, server: ScriptedServer) -> None:
    standards = shop / "memory-bank/standards/coding-standards.md"
    standards.parent.mkdir(exist_ok=True)
    standards.write_text("# Coding standards\n\n" + "Prefer plain code over clever code.\n" * 1500)  # ~13k tokens
    git(shop, "add", "-A")
    git(shop, "commit", "-qm", "long standards")
    approved(shop, server)
    assert "Prefer plain code" not in json.dumps(server.bodies()[-1]["messages"])
    trace = run(shop, "bolt", "trace", BOLT).stdout
    assert "plan: the context exceeded 12000 tokens: left out memory-bank/standards/coding-standards.md\n" in trace
    assert "Definition of Done" in json.dumps(server.bodies()[-1]["messages"])  # a short standard is kept


def test_a_rejected_plan_is_made_again_with_the_reason(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    server.push(plan_answer(summary="Add the prices; an empty cart totals 0."))
    proc = resume(shop, server, "--reject", "--reason", "say what an empty cart costs")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert "say what an empty cart costs" in json.dumps(server.bodies()[-1]["messages"])
    assert "an empty cart totals 0" in (shop / BOLT_DIR / "implementation-plan.md").read_text()
    decided = [e for e in events(shop) if e["type"] == "gate.decided" and e["subject"]["kind"] == "bolt"]
    assert [(e["decision"], e["actor"]["kind"]) for e in decided] == [("reject", "human")]


def test_under_ci_resume_cannot_decide_a_gate(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    proc = resume(shop, server, "--approve", CI="true")
    assert proc.returncode == 1 and "human checkpoint" in proc.stderr, proc.stderr
    assert state(shop)["status"] == "AWAIT_PLAN_APPROVAL"
    assert not [e for e in events(shop) if e["type"] == "gate.decided" and e["subject"]["kind"] == "bolt"]


def test_the_budget_warns_at_70_percent_and_stops_at_100_with_a_partial_walkthrough(
        shop: Path, server: ScriptedServer) -> None:
    set_config(shop, "max_tokens: 120000", "max_tokens: 140")  # the plan costs 109 tokens, the edit 40
    git(shop, "commit", "-qam", "a tiny budget")
    approved(shop, server)
    server.push(edit_answer("        result -= price\n", "        result = price\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert "Budget warning" in server.bodies()[-1]["messages"][-1]["content"]
    final = state(shop)
    assert final["status"] == "FAILED" and "budget spent: tokens" in final["outcome"]
    assert "partial" in (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert len(server.requests) == 2  # no call past the budget


def test_a_repair_that_brings_the_tree_back_stops_the_loop(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    server.push(edit_answer("        result -= price\n", "        result = price\n"),
                edit_answer("        result = price\n", "        result *= price\n"),
                edit_answer("        result *= price\n", "        result = price\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert "earlier state" in state(shop)["outcome"]


def test_abort_ends_the_run_cancelled_and_keeps_the_branch(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    proc = run(shop, "bolt", "abort", BOLT, "--reason", "not now")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(run(shop, "--format", "json", "bolt", "status", BOLT).stdout)
    assert doc["runs"][0]["status"] == "CANCELLED"
    assert json.loads(run(shop, "--format", "json", "bolt", "status", "001").stdout) == doc  # by its number too
    assert json.loads(run(shop, "--format", "json", "bolt", "status", "002").stdout)["runs"] == []
    assert git(shop, "branch", "--list", f"aidlc/{BOLT}").strip()
    assert events(shop)[-1]["type"] == "run.finished" and events(shop)[-1]["data"]["status"] == "CANCELLED"
    assert resume(shop, server).returncode == 2


def test_every_command_takes_the_bolt_as_aidlc_new_names_it(shop: Path, server: ScriptedServer) -> None:
    """`001`, `1` and the name without its number name the bolt for start, resume, status, trace, abort and
    walkthrough as they do for gate; a name no bolt has is refused listing the bolts."""
    assert run(shop, "bolt", "start", "001", "--dry-run", "--base-url", server.url).returncode == 0
    server.push(plan_answer())
    proc = run(shop, "bolt", "start", "1", "--base-url", server.url, "--model", "test-model")
    assert proc.returncode == 3, proc.stderr
    assert state(shop)["bolt"] == BOLT
    for ref in ("001", "1", "checkout-api", BOLT):
        doc = json.loads(run(shop, "--format", "json", "bolt", "status", ref).stdout)
        assert [r["bolt"] for r in doc["runs"]] == [BOLT], ref
        assert run(shop, "bolt", "trace", ref).returncode == 0
    walked = run(shop, "walkthrough", "001", "--no-run")
    assert walked.stdout.startswith(f"{BOLT}: evidence report written"), walked.stderr
    assert run(shop, "bolt", "abort", "001", "--reason", "not now").returncode == 0
    assert state(shop)["status"] == "CANCELLED"
    for command in (["walkthrough", "009", "--no-run"], ["bolt", "start", "009", "--dry-run"]):
        proc = run(shop, *command)
        assert proc.returncode == 2 and f"no bolt '009' in {MB}/bolts/; there are: {BOLT}" in proc.stderr


def test_json_output_of_start_is_one_document(shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer())
    proc = run(shop, "--format", "json", "bolt", "start", BOLT, "--base-url", server.url)
    assert proc.returncode == 3
    doc = json.loads(proc.stdout)
    assert doc["run"]["status"] == "AWAIT_PLAN_APPROVAL" and doc["exit_code"] == 3
    assert doc["run"]["pause"]["kind"] == "plan_gate" and doc["next_steps"]


def test_an_accepted_walkthrough_completes_the_bolt(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    assert resume(shop, server, "--approve").returncode == 3
    story = shop / STORY
    story.write_text(story.read_text().replace("- [ ] **Given**", "- [x] **Given**"))
    proc = resume(shop, server, "--approve", "--reason", "the test passes on the branch")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert state(shop)["status"] == "COMPLETED"
    assert "status: complete" in (shop / BOLT_DIR / "bolt.md").read_text()
    assert run(shop, "log", "verify").returncode == 0
    report = run(shop, "--format", "json", "validate")
    assert [f for f in json.loads(report.stdout)["findings"] if f["severity"] == "error"] == [], report.stdout


def test_a_rejected_walkthrough_sends_the_work_back_to_a_new_plan(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    assert resume(shop, server, "--approve").returncode == 3
    other = [{"path": "src/pay/empty.py", "action": "create", "reason": "what an empty cart totals"}]
    server.push(plan_answer(summary="Add an empty-cart helper.", files=other),  # leaves out the file changed so far
                plan_answer(summary="Say what an empty cart totals."))
    proc = resume(shop, server, "--reject", "--reason", "the empty cart is untested")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    told = server.bodies()[-1]["messages"][-1]["content"]
    assert f"{CALC}: changed by an earlier round of this bolt; list it in the plan too" in told
    assert state(shop)["status"] == "AWAIT_PLAN_APPROVAL" and state(shop)["reworks"] == ["the empty cart is untested"]
    asked = server.bodies()[-2]["messages"][1]["content"]
    assert "rejected the walkthrough" in asked and "the empty cart is untested" in asked
    assert "result += price" in asked  # the work so far, which the new plan builds on
    assert "Say what an empty cart totals" in (shop / BOLT_DIR / "implementation-plan.md").read_text()

    server.push(edit_answer("    return result\n", "    return result  # an empty cart totals 0\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    asked = server.bodies()[-1]["messages"][-1]["content"]
    assert "reworks a walkthrough a person rejected, for this reason:" in asked
    assert "\nthe empty cart is untested\n</untrusted-data" in asked
    stages = git(shop, "log", "--format=%(trailers:key=Aidlc-Stage,valueonly)", "-6").split()
    assert stages == ["rework-1.walkthrough", "rework-1.execute", "walkthrough", "execute"]
    walkthrough = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert 'Rework round 1: a person rejected a walkthrough of this run' in walkthrough
    assert '"the empty cart is untested"' in walkthrough and "PASS `tests`" in walkthrough
    keys = [e["key"] for e in events(shop) if e.get("key")]
    assert len(keys) == len(set(keys))
    decided = [(e["stage"], e["decision"]) for e in events(shop) if e["type"] == "gate.decided"
               and e["subject"]["kind"] == "bolt"]
    assert decided == [("plan", "approve"), ("walkthrough", "reject"), ("plan", "approve")]

    story = shop / STORY
    story.write_text(story.read_text().replace("- [ ] **Given**", "- [x] **Given**"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 0 and state(shop)["status"] == "COMPLETED", proc.stderr + proc.stdout
    assert run(shop, "log", "verify").returncode == 0


def test_each_step_is_printed_on_stderr_as_the_run_goes_and_not_with_quiet(shop: Path, server: ScriptedServer) -> None:
    # A check's name comes from aidlc.yaml: an escape sequence in it is shown as text, never sent to the terminal.
    set_config(shop, "name: tests", 'name: "tests\\e]0;owned\\a"')
    git(shop, "commit", "-qam", "a check with an odd name")
    server.push(plan_answer())
    proc = start(shop, server)
    assert proc.returncode == 3, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].endswith("state   INIT -> PLANNING: the run started on a clean tree"), proc.stderr
    assert any(line.endswith("model   plan-1.1: asking the model ...") for line in lines), proc.stderr
    assert lines[-1].endswith(f"decision paused: the plan of bolt {BOLT} waits for a person: {BOLT_DIR}/"
                              "implementation-plan.md"), proc.stderr
    assert "waits for a person" in proc.stdout  # the outcome stays on stdout
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stderr
    assert "check   execute: tests\\x1b]0;owned\\x07 ..." in proc.stderr and "\x1b" not in proc.stderr, proc.stderr
    assert "state   VERIFYING -> WALKTHROUGH: every check passed at execute" in proc.stderr
    quiet = run(shop, "bolt", "resume", BOLT, "--base-url", server.url, "-q")
    assert quiet.returncode == 3 and quiet.stderr == "" and "waits for a person" in quiet.stdout, quiet.stderr


def test_rejected_walkthroughs_are_bounded(shop: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("aidlc.bolt.run.MAX_REWORKS", 1)  # one rework round, as three would be
    approved(shop, server)
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    assert resume(shop, server, "--approve").returncode == 3
    server.push(plan_answer(summary="Make total() add the prices, tested."))
    assert resume(shop, server, "--reject", "--reason", "untested").returncode == 3  # the rework round's plan
    server.push(edit_answer("    return result\n", "    return result  # tested\n"))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE"
    requests = len(server.requests)
    proc = resume(shop, server, "--reject", "--reason", "still untested")
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert state(shop)["status"] == "FAILED"
    assert "a person rejected 2 walkthroughs; the last reason: still untested" in state(shop)["outcome"]
    assert len(server.requests) == requests  # no new plan asked for
    assert events(shop)[-1]["type"] == "run.finished"


def planned_with_its_test(shop: Path, server: ScriptedServer) -> None:
    """The bolt's scope takes in its tests, and the model's plan (approved) changes calc.py and its test."""
    bolt = shop / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace('scope: ["src/pay/**"]', 'scope: ["src/pay/**", "tests/**"]'))
    assert run(shop, "gate", "approve", "001-checkout-payments", "--stage", "bolt-plan").returncode == 0
    git(shop, "commit", "-qam", "the bolt may change its tests")
    server.push(plan_answer(files=[{"path": CALC, "action": "modify", "reason": "the sign"},
                                   {"path": "tests/test_calc.py", "action": "modify", "reason": "the test"}]))
    assert start(shop, server).returncode == 3


def test_a_skipped_test_pauses_the_run_for_a_person(shop: Path, server: ScriptedServer) -> None:
    planned_with_its_test(shop, server)
    skipped = "    @unittest.skip('later')\n    def test_adds_prices(self):\n"
    server.push(edit_answer("    def test_adds_prices(self):\n", skipped, path="tests/test_calc.py"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    paused = state(shop)
    assert paused["status"] == "VERIFYING" and paused["pause"]["kind"] == "risk"
    assert "tests/test_calc.py" in paused["pause"]["reason"]
    proc = resume(shop, server)  # a person looked and accepts the risk
    assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", proc.stderr + proc.stdout
    walkthrough = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert "accepted by a person when the run paused" in walkthrough and "tests/test_calc.py" in walkthrough
    assert sum(e["type"] == "check.recorded" for e in events(shop)) == 1  # the checks did not run twice


def test_a_risk_a_person_accepted_stays_in_the_evidence_when_state_json_forgets_it(shop: Path,
                                                                                   server: ScriptedServer) -> None:
    planned_with_its_test(shop, server)
    skipped = "    @unittest.skip('later')\n    def test_adds_prices(self):\n"
    server.push(edit_answer("    def test_adds_prices(self):\n", skipped, path="tests/test_calc.py"))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["pause"]["kind"] == "risk"
    assert resume(shop, server).returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE"
    # What code the check ran could write while the walkthrough waits: the run's risks forgotten.
    (path,) = (shop / ".aidlc/runs").glob("*/state.json")
    path.write_text(json.dumps({**state(shop), "risks": [], "accepted_risks": []}))
    proc = run(shop, "walkthrough", BOLT, "--no-run", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    (risk,) = [r for r in json.loads(proc.stdout)["risks"] if "tests/test_calc.py" in r]
    assert risk.startswith("accepted by a person when the run paused: tests/test_calc.py:7: a test is skipped"), risk


def test_an_assertion_that_cannot_fail_pauses_the_run_for_a_person(shop: Path, server: ScriptedServer) -> None:
    planned_with_its_test(shop, server)
    # The model leaves the bug in place and makes its test unable to fail: the check passes.
    server.push(edit_answer("        self.assertEqual(total([1, 2, 3]), 6)\n", "        self.assertEqual(6, 6)\n",
                            path="tests/test_calc.py"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stderr + proc.stdout
    paused = state(shop)
    assert paused["status"] == "VERIFYING" and paused["pause"]["kind"] == "risk"
    assert paused["checks"][-1]["results"][0]["passed"]
    reason = paused["pause"]["reason"]
    assert "tests/test_calc.py:8: an assertion that cannot fail: `self.assertEqual(6, 6)`" in reason, reason
    assert "tests/test_calc.py: assertion removed (line 8 at " in reason
    assert (shop / CALC).read_text() == BUGGY


def test_a_plan_changed_under_a_paused_run_is_refused(shop: Path, server: ScriptedServer) -> None:
    approved(shop, server)
    plan = shop / BOLT_DIR / "implementation-plan.md"
    plan.write_text(plan.read_text() + "\nAlso rewrite the payment provider.\n")
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 2 and "implementation-plan.md changed" in proc.stderr, proc.stderr
    assert not [e for e in events(shop) if e["type"] == "gate.decided" and e["subject"]["kind"] == "bolt"]


def test_dry_run_checks_and_touches_nothing(shop: Path, server: ScriptedServer) -> None:
    before = git(shop, "status", "--porcelain")
    proc = run(shop, "--format", "json", "bolt", "start", BOLT, "--dry-run", "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["dry_run"] is True and doc["branch"] == f"aidlc/{BOLT}" and doc["verify"] == ["tests"]
    assert server.requests == [] and git(shop, "status", "--porcelain") == before
    assert not (shop / ".aidlc/runs").exists()


def test_a_start_without_an_api_key_is_refused_before_it_touches_git(shop: Path) -> None:
    """A new user's first run: aidlc.yaml names the OpenAI API, OPENAI_API_KEY is not set. The refusal comes
    before the branch, the run, its ledger line or a commit exist, so the suggested start works once the key is
    there."""
    head, branch = git(shop, "rev-parse", "HEAD"), git(shop, "branch", "--show-current")
    ledger = (shop / MB / "events.jsonl").read_text()
    for args in ((), ("--dry-run",)):
        proc = run(shop, "bolt", "start", BOLT, *args)
        assert proc.returncode == 2, proc.stderr + proc.stdout
        assert "no API key" in proc.stderr and "OPENAI_API_KEY" in proc.stderr and "Traceback" not in proc.stderr
        assert git(shop, "branch", "--list", f"aidlc/{BOLT}") == ""
        assert git(shop, "branch", "--show-current") == branch
        assert git(shop, "rev-parse", "HEAD") == head and git(shop, "status", "--porcelain") == ""
        assert (shop / MB / "events.jsonl").read_text() == ledger and not (shop / ".aidlc/runs").exists()


def test_a_fallback_model_answers_when_the_primary_is_down_and_the_trail_says_so(
        shop: Path, server: ScriptedServer) -> None:
    backup = f"  fallback:\n    - {{provider: openai, model: backup, base_url: '{server.url}'}}"
    set_config(shop, "  fallback: []", backup)
    git(shop, "commit", "-qam", "a fallback model")
    server.push(*[error(503, "down")] * 4, plan_answer())  # the primary's four attempts, then the fallback
    proc = start(shop, server)
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert server.bodies()[-1]["model"] == "backup"
    assert "degradation" in run(shop, "bolt", "trace", BOLT).stdout
    (degraded,) = [e for e in events(shop) if e["type"] == "degraded"]
    assert degraded["data"]["outcome"] == "fallback answered" and degraded["data"]["target"].startswith("openai:")


def _waiting_on_the_model(root: Path, server: ScriptedServer, *args: str) -> subprocess.Popen[str]:
    """A real `aidlc bolt ...` that has asked the model and waits for its answer (the server holds it)."""
    asked = len(server.bodies())
    proc = subprocess.Popen([sys.executable, "-m", "aidlc", "--repo", str(root), "bolt", *args, "--base-url",
                             server.url, "--model", "test-model"], env=env(), cwd=root, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(2400):  # bounded: until the model is asked, or the process ends
        if len(server.bodies()) > asked or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    return proc


def test_one_run_per_bolt_a_second_start_or_resume_is_refused_naming_the_running_process(
        shop: Path, server: ScriptedServer) -> None:
    held = plan_answer()
    server.push(Reply(body=held.body, delay_s=600))  # the first run waits on its model, holding the bolt
    first = _waiting_on_the_model(shop, server, "start", BOLT)
    try:
        second = start(shop, server)
        assert second.returncode == 2, second.stdout + second.stderr
        assert f"bolt {BOLT} is being run by another aidlc (process {first.pid})" in second.stderr
        assert f"kill {first.pid}" in second.stderr and "Traceback" not in second.stderr
        again = resume(shop, server)
        assert again.returncode == 2 and f"process {first.pid}" in again.stderr, again.stderr
        assert len(list((shop / ".aidlc/runs").iterdir())) == 1  # one run, one branch
    finally:
        first.send_signal(signal.SIGKILL)  # the kernel releases the lock of a killed process
        first.communicate()
    server.push(plan_answer())
    proc = resume(shop, server)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert state(shop)["status"] == "AWAIT_PLAN_APPROVAL"


def test_a_hostile_plan_and_verify_name_hide_nothing_in_the_plan_the_walkthrough_or_the_terminal(
        shop: Path, server: ScriptedServer) -> None:
    set_config(shop, "  - name: tests\n", '  - name: "tests\\e[2J\\e]0;owned\\a\\u202e"\n')
    git(shop, "commit", "-qam", "a verify name with escape sequences")
    hidden = "<!-- | create | `src/evil.py` | every story | the real change | -->"
    server.push(plan_answer(summary=f"Make total() add the prices. {hidden}\n\n## Files\n\n| delete | `README.md` |",
                            files=[{"path": CALC, "action": "modify", "reason": f"fix it |\n| create | x | {hidden}"}],
                            rollback="[revert](https://evil.example) ![ok](https://evil.example/ok.png)"))
    assert start(shop, server).returncode == 3
    plan = (shop / BOLT_DIR / "implementation-plan.md").read_text()
    assert "<!--" not in plan and "&lt;!-- \\| create \\| \\`src/evil.py\\` \\|" in plan
    assert [line for line in plan.splitlines() if line.startswith("## ")] == [
        "## Summary", "## Files", "## Tests", "## Risks", "## Rollback"]  # the model's heading is text
    rows = [line for line in plan.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == 1 and rows[0].startswith(f"| modify | `{CALC}` |")  # one file: the one planned
    assert "\\[revert\\](https://evil.example) !\\[ok\\]" in plan  # neither a link nor an image
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    walkthrough = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert "PASS `tests\\x1b[2J\\x1b]0;owned\\x07\\u202e`" in walkthrough and "\x1b" not in walkthrough
    assert "<!--" not in walkthrough.split("aidlc:evidence")[1]  # inside the evidence block: no model HTML
    trace = run(shop, "bolt", "trace", BOLT)
    assert "check   tests\\x1b[2J" in trace.stdout and "\x1b" not in trace.stdout and "\u202e" not in trace.stdout
