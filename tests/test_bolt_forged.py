"""A run's state.json forged in aidlc's own shape: by a careless hand, or by code a check ran (it runs in the
repository, as the user). state.json is the run's notebook, never its evidence: what it says counts only where the
ledger or git bears it out, and a run refuses (exit 2, naming the file) to act on what they do not."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.bolt_sample import (
    BOLT,
    BOLT_DIR,
    BUGGY,
    CALC,
    STORY,
    answer,
    edit_answer,
    events,
    forging_check,
    git,
    plan_answer,
    run,
    run_process,
    set_config,
)
from tests.openai_server import ScriptedServer, error

SKIPPED = "    @unittest.skip('later')\n    def test_adds_prices(self):\n"
FLAG = "tests/test_calc.py:7: a test is skipped: `@unittest.skip('later')`"  # what the run flags for SKIPPED
FIX = ("        result -= price\n", "        result += price\n")
WITH_TEST = [{"path": CALC, "action": "modify", "reason": "the sign"},
             {"path": "tests/test_calc.py", "action": "modify", "reason": "the test"}]
REFUSED = "(edited outside aidlc)"


def state_file(root: Path) -> Path:
    (path,) = (root / ".aidlc/runs").glob("*/state.json")
    return path


def state(root: Path) -> dict:
    return json.loads(state_file(root).read_text())


def forge(root: Path, **fields: object) -> None:
    state_file(root).write_text(json.dumps({**state(root), **fields}))


def start(root: Path, server: ScriptedServer, *answers: object) -> None:
    server.push(*answers)  # type: ignore[arg-type]
    assert run(root, "bolt", "start", BOLT, "--base-url", server.url).returncode == 3


def resume(root: Path, server: ScriptedServer, *args: str):  # type: ignore[no-untyped-def]
    return run(root, "bolt", "resume", BOLT, "--base-url", server.url, *args)


def walkthrough(root: Path) -> dict:
    return json.loads(run(root, "walkthrough", BOLT, "--no-run", "--format", "json").stdout)


def with_its_test(root: Path) -> None:
    """The bolt's scope takes in its tests (a person widens it and approves the bolt plan again)."""
    bolt = root / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace('scope: ["src/pay/**"]', 'scope: ["src/pay/**", "tests/**"]'))
    assert run(root, "gate", "approve", "001-checkout-payments", "--stage", "bolt-plan").returncode == 0
    git(root, "commit", "-qam", "the bolt may change its tests")


def refused(proc, what: str) -> None:  # type: ignore[no-untyped-def]
    assert proc.returncode == 2, proc.stderr + proc.stdout
    assert "state.json: " in proc.stderr and what in proc.stderr and REFUSED in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and f"aidlc bolt abort {BOLT}" in proc.stderr


# -- risks: a person accepts them, only through the ledger -------------------------------------------------------
def test_accepted_risks_written_before_the_checks_still_pause_the_run(shop: Path, server: ScriptedServer) -> None:
    with_its_test(shop)
    start(shop, server, plan_answer(files=WITH_TEST))
    forge(shop, accepted_risks=[FLAG])  # the flag can be foreseen from the edit
    server.push(edit_answer("    def test_adds_prices(self):\n", SKIPPED, path="tests/test_calc.py"))
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3 and state(shop)["pause"]["kind"] == "risk", proc.stderr + proc.stdout
    (paused,) = [e for e in events(shop) if e["type"] == "run.paused" and e["data"].get("risks")]
    assert paused["data"]["risks"] == [FLAG]
    assert f"accepted by a person when the run paused: {FLAG}" not in walkthrough(shop)["risks"]


FORGE_ACCEPT = forging_check(f"saved[\"accepted_risks\"] = [{FLAG!r}]")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_risks_a_check_accepted_in_state_json_still_pause_the_run(shop: Path, server: ScriptedServer) -> None:
    with_its_test(shop)
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    fixed_and_forging = FORGE_ACCEPT + BUGGY.replace(*FIX)
    edit = (f"{CALC}\n```python\n<<<<<<< SEARCH\n{BUGGY}=======\n{fixed_and_forging}>>>>>>> REPLACE\n```\n\n"
            f"tests/test_calc.py\n```python\n<<<<<<< SEARCH\n    def test_adds_prices(self):\n=======\n{SKIPPED}"
            ">>>>>>> REPLACE\n```\n")
    server.push(plan_answer(files=WITH_TEST), answer(edit))
    killed = run_process(shop, "bolt", "start", BOLT, "--base-url", server.url)  # the check kills aidlc itself
    assert killed.returncode == -signal.SIGKILL, killed.stderr + killed.stdout
    assert state(shop)["accepted_risks"] == [FLAG]
    proc = resume(shop, server)
    assert proc.returncode == 3 and state(shop)["pause"]["kind"] == "risk", proc.stderr + proc.stdout


def test_a_pause_count_written_lower_never_keeps_a_pause_out_of_the_ledger(shop: Path, server: ScriptedServer) -> None:
    with_its_test(shop)
    start(shop, server, plan_answer(files=WITH_TEST))
    forge(shop, pauses=0)  # the next pause would be numbered 1, as the plan gate's already is
    server.push(edit_answer("    def test_adds_prices(self):\n", SKIPPED, path="tests/test_calc.py"))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["pause"]["kind"] == "risk"
    assert [e["data"]["risks"] for e in events(shop) if e["type"] == "run.paused" and e["data"].get("risks")] \
        == [[FLAG]]
    assert resume(shop, server).returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE"  # a person accepts
    forge(shop, risks=[], accepted_risks=[])
    assert f"accepted by a person when the run paused: {FLAG}" in walkthrough(shop)["risks"]


# -- the plan: what the run proposed, as the ledger recorded it ---------------------------------------------------
def walkthrough_waiting(shop: Path, server: ScriptedServer, **plan: object) -> None:
    start(shop, server, plan_answer(**plan))
    server.push(edit_answer(*FIX))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE"
    story = shop / STORY
    story.write_text(story.read_text().replace("- [ ] **Given**", "- [x] **Given**"))
    assert not any("edited outside aidlc" in note for note in walkthrough(shop)["notes"])  # as the run wrote it


@pytest.mark.parametrize("forged", ["risk level low", "no risk level", "no plan"])
def test_a_plan_risk_lowered_in_state_json_never_lowers_what_the_walkthrough_gate_requires(
        shop: Path, server: ScriptedServer, forged: str) -> None:
    walkthrough_waiting(shop, server, risk_level="high")
    assert walkthrough(shop)["risk"] == "high"
    plan = state(shop)["plan"]
    lowered = {**plan, "risk_level": "low" if forged == "risk level low" else None}
    forge(shop, plan=None if forged == "no plan" else lowered)
    report = walkthrough(shop)
    assert report["risk"] == "high", report["notes"]
    proc = run(shop, "gate", "approve", BOLT, "--stage", "walkthrough", "--reason", "ok")
    assert proc.returncode == 1, proc.stderr  # a model review and a second person are still required
    assert not [e for e in events(shop) if e["type"] == "gate.decided" and e["stage"] == "walkthrough"]


def test_a_plan_rewritten_in_state_json_is_not_the_evidence_its_file_is(shop: Path, server: ScriptedServer) -> None:
    walkthrough_waiting(shop, server)
    plan = state(shop)["plan"]
    forge(shop, plan={**plan, "risks": [], "files": [{**f, "reason": "approved by security"} for f in plan["files"]]})
    report = walkthrough(shop)
    assert "callers that relied on the wrong sign" in report["risks"]
    assert [c["reason"] for c in report["changes"]] != ["approved by security"]
    assert any("its plan is not one the run proposed (edited outside aidlc)" in note for note in report["notes"])


@pytest.mark.parametrize("plan", ["with another file", "none"])
def test_a_run_past_its_plan_without_a_plan_hash_is_refused(shop: Path, server: ScriptedServer, plan: str) -> None:
    start(shop, server, plan_answer())
    server.push(edit_answer(BUGGY, "# still wrong\n" + BUGGY))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["status"] == "REPAIRING"
    saved = state(shop)
    saved.pop("plan_hash")
    if plan == "none":
        saved["plan"] = None
    else:
        saved["plan"]["files"].append({"path": "src/pay/extra.py", "action": "create", "reason": "needed"})
    state_file(shop).write_text(json.dumps(saved))
    head = git(shop, "rev-parse", "HEAD")
    server.push(edit_answer("", "print('not in the approved plan')\n", path="src/pay/extra.py"))
    refused(resume(shop, server), "it holds no plan or no plan hash at REPAIRING")
    assert git(shop, "rev-parse", "HEAD") == head and not (shop / "src/pay/extra.py").exists()


# -- where the run stands: as the ledger and git show it ----------------------------------------------------------
def test_a_status_moved_back_to_the_plan_gate_is_refused(shop: Path, server: ScriptedServer) -> None:
    walkthrough_waiting(shop, server)
    before = events(shop)
    forge(shop, status="AWAIT_PLAN_APPROVAL")  # --approve would approve the plan, and the model execute again
    refused(resume(shop, server, "--approve"), "it is at AWAIT_PLAN_APPROVAL, but the run committed its execute step")
    assert events(shop) == before


def test_repairing_after_passing_checks_is_refused(shop: Path, server: ScriptedServer) -> None:
    walkthrough_waiting(shop, server)
    forge(shop, status="REPAIRING")
    refused(resume(shop, server), "it is repairing, but its last round of checks failed none")


@pytest.mark.parametrize("where", ["another branch's commit", "no commit of this repository"])
def test_a_last_commit_state_json_names_is_evidence_only_when_it_is_the_runs_own(
        shop: Path, server: ScriptedServer, where: str) -> None:
    start(shop, server, plan_answer())  # no commit of the bolt yet
    git(shop, "checkout", "-qb", "experiment", "HEAD~0")
    (shop / CALC).write_text(BUGGY.replace(*FIX))
    git(shop, "commit", "-qm", "an experiment", "--", CALC)  # the run's ledger lines stay in the work tree
    other = git(shop, "rev-parse", "HEAD").strip() if where == "another branch's commit" else "a" * 40
    git(shop, "checkout", "-q", f"aidlc/{BOLT}")
    forge(shop, last_commit=other)
    report = walkthrough(shop)
    assert report["changes"] == [] and report["head"] == state(shop)["base_commit"], report
    assert any("names a last commit that is not the run's own: no change is shown" in n for n in report["notes"])


def test_a_walkthrough_of_a_run_whose_checks_fail_never_says_they_passed(shop: Path, server: ScriptedServer) -> None:
    start(shop, server, plan_answer())
    server.push(edit_answer(BUGGY, "# still wrong\n" + BUGGY))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["status"] == "REPAIRING"
    assert run(shop, "walkthrough", BOLT, "--no-run").returncode in (0, 1)
    text = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert "checks passed" not in text and "the checks at the head do not all pass (see Checks)" in text


def test_a_rework_or_outcome_state_json_names_is_not_in_the_walkthrough(shop: Path, server: ScriptedServer) -> None:
    walkthrough_waiting(shop, server)
    # No person rejected a walkthrough (the ledger holds none), and the run has not ended.
    forge(shop, reworks=["security signed this off"], outcome="completed: the walkthrough was accepted")
    assert run(shop, "walkthrough", BOLT, "--no-run").returncode in (0, 1)
    text = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert "Rework round" not in text and "security signed this off" not in text
    assert "the walkthrough was accepted" not in text and "Outcome: checks passed; waiting for a person" in text


# -- a saved answer: applied only as the model gave it -------------------------------------------------------------
WRONG = edit_answer("        result -= prices\n", "        result += price\n")  # its SEARCH matches nothing
PLANTED = edit_answer("        result -= price\n", "        result += price\n        import os  # planted\n"
                      ).body["choices"][0]["message"]["content"]


def answer_saved(shop: Path, server: ScriptedServer) -> Path:
    """A run paused with an answer saved and not applied: the model's first edit matched nothing, and the provider
    was down when it was asked again. Returns the saved answer's file."""
    start(shop, server, plan_answer())
    server.push(WRONG, *[error(503, "down")] * 4)
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 3 and state(shop)["pause"]["kind"] == "provider", proc.stderr + proc.stdout
    server.replies.clear()
    return state_file(shop).parent / state(shop)["pending"]["answer_file"]


def test_each_edit_answer_is_recorded_before_it_is_saved_and_a_resume_applies_it_as_recorded(
        shop: Path, server: ScriptedServer) -> None:
    saved = answer_saved(shop, server)
    (proposed,) = [e for e in events(shop) if e["type"] == "edits.proposed"]
    assert proposed["key"] == f"run:{state(shop)['run_id']}:answer:execute:1" and saved.name == "execute.answer-1.txt"
    assert proposed["data"]["sha256"] == hashlib.sha256(saved.read_bytes()).hexdigest()
    assert proposed["actor"]["kind"] == "agent" and proposed["data"]["stage"] == "execute"
    server.push(edit_answer(*FIX))  # the saved answer is tried again, refused again, and the model asked again
    proc = resume(shop, server)
    assert proc.returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", proc.stderr + proc.stdout
    assert [e["data"]["answer"] for e in events(shop) if e["type"] == "edits.proposed"] == [1, 2]
    assert (shop / CALC).read_text() == BUGGY.replace(*FIX) and run(shop, "log", "verify").returncode == 0


@pytest.mark.parametrize("how", ["changed", "missing", "a FIFO"])
def test_a_saved_answer_changed_after_the_model_gave_it_is_never_applied(
        shop: Path, server: ScriptedServer, how: str) -> None:
    saved = answer_saved(shop, server)
    original, head, before, asked = saved.read_bytes(), git(shop, "rev-parse", "HEAD"), events(shop), \
        len(server.requests)
    saved.unlink()
    if how == "changed":
        saved.write_text(PLANTED)  # an edit that applies, and is not what the model said
    elif how == "a FIFO":
        os.mkfifo(saved)  # never waited on
    server.push(edit_answer(*FIX))
    proc = resume(shop, server)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr + proc.stdout
    what = "is not the answer the model gave" if how == "changed" else "is missing or cannot be read"
    assert f".aidlc/runs/{state(shop)['run_id']}/execute.answer-1.txt: the saved answer for execute {what}" \
        in proc.stderr and "nothing was touched" in proc.stderr and f"aidlc bolt abort {BOLT}" in proc.stderr
    assert git(shop, "rev-parse", "HEAD") == head and (shop / CALC).read_text() == BUGGY and events(shop) == before
    assert len(server.requests) == asked  # the model was not asked either
    saved.unlink(missing_ok=True)
    saved.write_bytes(original)  # put back as the model gave it: the run goes on
    server.push(edit_answer(*FIX))
    assert resume(shop, server).returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE"


def test_a_saved_answer_changed_after_the_resume_checked_it_is_never_applied(
        shop: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process a check left behind rewrites the saved answer after the resume's first look at it, while git puts
    the planned files back: the answer applied is the one read and checked, so the planted edit is refused, not
    committed as the model's."""
    from aidlc import vcs

    saved = answer_saved(shop, server)
    original, head = saved.read_bytes(), git(shop, "rev-parse", "HEAD")
    restore = vcs.restore_paths

    def restore_and_plant(*args: object, **kwargs: object) -> None:
        restore(*args, **kwargs)  # type: ignore[arg-type]
        saved.write_text(PLANTED)  # the other process, in between

    monkeypatch.setattr(vcs, "restore_paths", restore_and_plant)
    proc = resume(shop, server)
    assert proc.returncode == 2 and "is not the answer the model gave" in proc.stderr, proc.stderr + proc.stdout
    assert git(shop, "rev-parse", "HEAD") == head and (shop / CALC).read_text() == BUGGY
    monkeypatch.setattr(vcs, "restore_paths", restore)
    saved.write_bytes(original)
    server.push(edit_answer(*FIX))
    assert resume(shop, server).returncode == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE"


def test_a_saved_answer_the_ledger_records_no_model_giving_is_refused(shop: Path, server: ScriptedServer) -> None:
    saved = answer_saved(shop, server)
    planted = saved.with_name("execute.answer-7.txt")
    planted.write_text(PLANTED)
    forge(shop, pending={**state(shop)["pending"], "answer_file": planted.name, "answer": 7})
    head = git(shop, "rev-parse", "HEAD")
    refused(resume(shop, server), "it holds a saved answer for execute that the ledger records no model giving")
    forge(shop, pending={**state(shop)["pending"], "answer": None})  # as a run saved by an aidlc that recorded none
    proc = resume(shop, server)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "it holds a saved answer for execute that the ledger records no model giving (edited outside aidlc, or " \
        "saved by an aidlc that recorded no answer)" in proc.stderr and f"aidlc bolt abort {BOLT}" in proc.stderr
    assert git(shop, "rev-parse", "HEAD") == head and (shop / CALC).read_text() == BUGGY
