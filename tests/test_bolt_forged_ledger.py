"""A run's state.json forged in aidlc's own shape, continued from tests/test_bolt_forged.py: the loop's counts, where
the run stands at the end of its loop, whether it ended, and what the walkthrough shows of it. Each counts only as
the ledger records the run; a run refuses (exit 2, naming the file) to act on what the ledger does not bear out."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from tests.bolt_sample import (
    BOLT,
    BOLT_DIR,
    BUGGY,
    FIXED,
    edit_answer,
    events,
    forging_check,
    git,
    plan_answer,
    run,
    run_process,
    set_config,
)
from tests.openai_server import ScriptedServer
from tests.test_bolt_forged import forge, refused, resume, start, state, walkthrough, walkthrough_waiting

STILL_WRONG = "# still wrong\n" + BUGGY  # the execute step's edit: the test still fails (total is -6)
TWICE = ("        result -= price\n", "        result -= 2 * price\n")  # a repair that fails otherwise (-12)


def repairing(shop: Path, server: ScriptedServer) -> None:
    """A run at REPAIRING with its first repair's round failed too: the ledger holds the repair-1 commit."""
    start(shop, server, plan_answer())
    server.push(edit_answer(BUGGY, STILL_WRONG))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["repairs"] == 1
    server.push(edit_answer(*TWICE))
    assert resume(shop, server).returncode == 3  # no second repair scripted: the run pauses
    assert state(shop)["status"] == "REPAIRING" and state(shop)["repairs"] == 2, state(shop)["status"]


def auto_approved(shop: Path) -> None:
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low-risk plans approve themselves")


# -- the loop's counts: never fewer repairs nor calls than the ledger holds ---------------------------------------
@pytest.mark.parametrize("repairs", [0, 1, 5])
def test_a_repair_count_unlike_the_ledgers_is_refused(shop: Path, server: ScriptedServer, repairs: int) -> None:
    repairing(shop, server)
    forge(shop, repairs=repairs)  # 0, 1: more rounds than policy.max_repairs; 5: no harm, but not the run's
    before = events(shop)
    refused(resume(shop, server), f"its repair count {repairs} is not the ledger's: ")
    assert events(shop) == before


def test_a_rework_round_the_ledger_holds_no_walkthrough_for_is_refused(shop: Path, server: ScriptedServer) -> None:
    repairing(shop, server)
    forge(shop, reworks=["a person asked for more"], repairs=0)  # a new round: policy.max_repairs afresh
    refused(resume(shop, server), "it is at REPAIRING of rework round 1, but the ledger holds 0 walkthrough(s)")


FORGE_REPAIRS = forging_check('saved["repairs"] = 0')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_repair_count_a_check_lowered_is_refused(shop: Path, server: ScriptedServer) -> None:
    start(shop, server, plan_answer())
    server.push(edit_answer(BUGGY, STILL_WRONG))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["repairs"] == 1
    server.push(edit_answer(STILL_WRONG, FORGE_REPAIRS + STILL_WRONG.replace(*TWICE)))
    killed = run_process(shop, "bolt", "resume", BOLT, "--base-url", server.url)  # the check kills aidlc itself
    assert killed.returncode == -signal.SIGKILL, killed.stderr + killed.stdout
    assert state(shop)["repairs"] == 0  # the forgery landed
    refused(resume(shop, server), "its repair count 0 is not the ledger's: ")


FORGE_BUDGET = forging_check('saved["budget"].update(steps=0, tokens=0)')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_budget_a_check_lowered_is_refused(shop: Path, server: ScriptedServer) -> None:
    auto_approved(shop)
    server.push(plan_answer(), edit_answer(BUGGY, FORGE_BUDGET + FIXED))
    killed = run_process(shop, "bolt", "start", BOLT, "--base-url", server.url)  # the check kills aidlc itself
    assert killed.returncode == -signal.SIGKILL, killed.stderr + killed.stdout
    assert state(shop)["budget"]["steps"] == 0  # the forgery landed
    refused(resume(shop, server), "it has spent 0 model call(s) and 0 token(s), but the ledger recorded 2 and ")


# -- the end of the loop: the walkthrough follows passing checks only -----------------------------------------------
@pytest.mark.parametrize("status", ["WALKTHROUGH", "AWAIT_ACCEPTANCE"])
def test_a_walkthrough_status_written_while_repairing_is_refused(shop: Path, server: ScriptedServer,
                                                                 status: str) -> None:
    start(shop, server, plan_answer())
    server.push(edit_answer(BUGGY, STILL_WRONG))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["status"] == "REPAIRING"
    forge(shop, status=status)  # the repairs left skipped, the failing work sent to a person as done
    before = events(shop)
    refused(resume(shop, server), f"it is at {status}, but the checks the ledger recorded for the run's last step "
                                  "(execute) do not all pass")
    assert events(shop) == before and not (shop / BOLT_DIR / "implementation-walkthrough.md").exists()


def test_a_walkthrough_status_with_a_failed_outcome_ends_the_run_failed(shop: Path, server: ScriptedServer) -> None:
    """What a kill leaves in the middle of a run's stop (aidlc.bolt.run._fail): the stop is done again whole, never
    a walkthrough of failing work waiting for a person."""
    start(shop, server, plan_answer())
    server.push(edit_answer(BUGGY, STILL_WRONG))
    assert resume(shop, server, "--approve").returncode == 3 and state(shop)["status"] == "REPAIRING"
    forge(shop, status="WALKTHROUGH", outcome="failed: the model call failed at repair-1: down")
    proc = resume(shop, server)
    assert proc.returncode == 1 and state(shop)["status"] == "FAILED", proc.stderr + proc.stdout
    (finished,) = [e for e in events(shop) if e["type"] == "run.finished"]
    assert finished["data"]["status"] == "FAILED"
    assert "This walkthrough is partial" in (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()


# -- the end of the run: only as the ledger records it ------------------------------------------------------------
@pytest.mark.parametrize("status", ["COMPLETED", "FAILED", "CANCELLED"])
def test_an_end_the_ledger_does_not_record_is_refused_and_abort_ends_the_run(shop: Path, server: ScriptedServer,
                                                                            status: str) -> None:
    walkthrough_waiting(shop, server)
    forge(shop, status=status, outcome="completed: the walkthrough was accepted")
    shown = run(shop, "bolt", "status", BOLT)
    assert status in shown.stdout and "the ledger records no end of it (edited outside aidlc)" in shown.stdout \
        and f"aidlc bolt abort {BOLT}" in shown.stdout, shown.stdout
    assert "the walkthrough was accepted" not in shown.stdout
    refused(resume(shop, server, "--approve"), f"it says the run ended {status}, but the ledger records no end of it")
    started = run(shop, "bolt", "start", BOLT, "--base-url", server.url)
    assert started.returncode == 2 and "has an unfinished run" in started.stderr, started.stderr
    assert not [e for e in events(shop) if e["type"] == "run.finished" or e.get("stage") == "walkthrough"]
    aborted = run(shop, "bolt", "abort", BOLT, "--reason", "state.json was forged")
    assert aborted.returncode == 0 and state(shop)["status"] == "CANCELLED", aborted.stderr
    (finished,) = [e for e in events(shop) if e["type"] == "run.finished"]
    assert finished["data"]["status"] == "CANCELLED" and status in finished["data"]["outcome"]
    assert run(shop, "bolt", "abort", BOLT).returncode == 2  # ended now, as the ledger records


def test_a_resume_after_the_ledger_recorded_the_runs_end_is_refused(shop: Path, server: ScriptedServer) -> None:
    walkthrough_waiting(shop, server)
    assert run(shop, "bolt", "abort", BOLT).returncode == 0
    forge(shop, status="AWAIT_ACCEPTANCE")  # the run brought back to life
    proc = resume(shop, server, "--approve")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "but the ledger recorded the run's end (CANCELLED, seq " in proc.stderr and "(edited outside aidlc, or " \
        "an abort stopped before it saved it); a run that ended goes no further" in proc.stderr, proc.stderr
    assert f"aidlc bolt abort {BOLT}" in proc.stderr
    assert not [e for e in events(shop) if e["type"] == "gate.decided" and e.get("stage") == "walkthrough"]


# -- the walkthrough: the run as the ledger records it --------------------------------------------------------------
def test_a_model_or_cost_state_json_names_is_not_the_ledgers(shop: Path, server: ScriptedServer) -> None:
    walkthrough_waiting(shop, server)
    assert walkthrough(shop)["run"]["model"] == "test-model" and walkthrough(shop)["cost"]["model_calls"] == 2
    forge(shop, model="gpt-certified", budget={**state(shop)["budget"], "steps": 0, "tokens": 0})
    report = walkthrough(shop)
    assert report["run"]["model"] == "test-model" and report["cost"]["model_calls"] == 2, report["run"]
    assert any("names model 'gpt-certified', its plan.proposed event recorded 'test-model' (edited outside aidlc)"
               in note for note in report["notes"]), report["notes"]
    assert any("counts 0 model call(s) and 0 token(s), fewer than its ledger events recorded (2 and " in note
               for note in report["notes"]), report["notes"]
    assert run(shop, "walkthrough", BOLT, "--no-run").returncode in (0, 1)
    text = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert "gpt-certified" not in text.split("## Notes")[0] and "model test-model" in text
    assert "2 model calls" in text and "as the runs' own record (state.json)" in text


@pytest.mark.parametrize("ended", [False, True])
def test_an_outcome_state_json_names_is_shown_only_as_the_ledger_records_the_end(shop: Path, server: ScriptedServer,
                                                                                  ended: bool) -> None:
    walkthrough_waiting(shop, server)
    if ended:
        assert run(shop, "bolt", "abort", BOLT, "--reason", "not needed").returncode == 0
    forge(shop, status="COMPLETED", outcome="completed: the walkthrough was accepted")
    report = walkthrough(shop)
    assert report["run"]["status"] == ("CANCELLED" if ended else None), report["run"]
    assert run(shop, "walkthrough", BOLT, "--no-run").returncode in (0, 1)
    text = (shop / BOLT_DIR / "implementation-walkthrough.md").read_text()
    assert "the walkthrough was accepted" not in text.split("## Notes")[0]
    assert ("Outcome: cancelled: not needed" in text) if ended else ("Outcome: checks passed; waiting" in text)
    said = "its run.finished event recorded CANCELLED" if ended else "the ledger records no end of it"
    assert any(f"says it ended COMPLETED, but {said}" in note for note in report["notes"]), report["notes"]
