"""A run's state.json forged in aidlc's own shape, continued from tests/test_bolt_forged.py: the loop's counts and
where the run stands at the end of its loop. Each counts only as the ledger records the run; a run refuses (exit 2,
naming the file) to act on what the ledger does not bear out."""

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
    run_process,
    set_config,
)
from tests.openai_server import ScriptedServer
from tests.test_bolt_forged import forge, refused, resume, start, state

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
