"""`aidlc status`: per intent and bolt, the pending gate and the last decision, with who and when."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema

from aidlc.model.status import StatusReport
from tests.helpers import run_cli
from tests.test_gate import (
    BOLT_ID,
    INTENT_ID,
    REQUIREMENTS,
    approve,
    decisions,
    edit,
    gate,
    run,
    through_inception,
    through_walkthrough,
    write,
)


def status_json(root: Path) -> dict:
    result = run(root, "--format", "json", "status")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    jsonschema.Draft202012Validator(StatusReport.model_json_schema()).validate(document)
    return document


def status_text(root: Path) -> str:
    result = run(root, "--no-color", "status", "--all")  # each gate with its last decision
    assert result.exit_code == 0, result.stderr
    return result.stdout


def gates_of(document: dict) -> dict[tuple[str, str], dict]:
    return {(g["kind"], g["id"]): g for g in document["gates"]}


def test_before_any_decision_each_subject_waits_at_its_first_gate(chain: Path) -> None:
    gates = gates_of(status_json(chain))
    assert gates == {
        ("intent", INTENT_ID): {"kind": "intent", "id": INTENT_ID, "pending": "requirements", "last": None,
                                  "evidence": None},
        ("bolt", BOLT_ID): {"kind": "bolt", "id": BOLT_ID, "pending": "plan", "last": None, "evidence": None}}
    text = status_text(chain)
    assert f"gates intent {INTENT_ID}: pending gate: requirements; no decisions yet" in text
    assert f"gates bolt {BOLT_ID}: pending gate: plan; no decisions yet" in text


def test_the_last_decision_says_who_and_when_and_the_next_gate_is_pending(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    approve(chain, INTENT_ID, "units", "--as", "Grace Hopper <grace@navy.mil>")
    event = decisions(chain)[-1]
    intent = gates_of(status_json(chain))[("intent", INTENT_ID)]
    assert intent["pending"] == "stories"
    assert intent["last"] == {"stage": "units", "decision": "approve", "by": "Grace Hopper", "at": event["ts"]}
    assert (f"gates intent {INTENT_ID}: pending gate: stories; last: units approve by Grace Hopper at {event['ts']}"
            in status_text(chain))


def test_a_rejection_is_the_last_decision_and_the_gate_stays_pending(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    assert gate(chain, "reject", INTENT_ID, "units", "--reason", "split the unit").exit_code == 0
    intent = gates_of(status_json(chain))[("intent", INTENT_ID)]
    assert intent["pending"] == "units"
    assert intent["last"]["decision"] == "reject" and intent["last"]["by"] == "Ada Lovelace"


def test_the_pending_gate_is_a_next_action_with_its_command(chain: Path) -> None:
    through_inception(chain)
    commands = [a["command"] for a in status_json(chain)["next_actions"]]
    assert f"aidlc gate approve {BOLT_ID} --stage plan" not in commands  # nothing to judge: no plan written yet
    write(chain, f"memory-bank/bolts/{BOLT_ID}/implementation-plan.md", "# Plan\n")
    commands = [a["command"] for a in status_json(chain)["next_actions"]]
    assert f"aidlc gate approve {BOLT_ID} --stage plan" in commands


def test_a_stale_approval_makes_its_gate_pending_again(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    assert gates_of(status_json(chain))[("intent", INTENT_ID)]["pending"] == "units"
    edit(chain, REQUIREMENTS, "an order is created", "an order is created and mailed")
    document = status_json(chain)
    assert gates_of(document)[("intent", INTENT_ID)]["pending"] == "requirements"
    assert f"aidlc gate approve {INTENT_ID} --stage requirements" in [a["command"] for a in document["next_actions"]]


def test_after_the_whole_chain_nothing_is_pending(chain: Path) -> None:
    through_walkthrough(chain)
    document = status_json(chain)
    gates = gates_of(document)
    assert gates[("intent", INTENT_ID)]["pending"] is None
    assert gates[("intent", INTENT_ID)]["last"]["stage"] == "bolt-plan"
    assert gates[("bolt", BOLT_ID)]["pending"] is None
    assert gates[("bolt", BOLT_ID)]["last"]["stage"] == "walkthrough"
    assert document["errors"] == 0 and not any("gate" in (a["command"] or "") for a in document["next_actions"])
    proc = run_cli("--repo", str(chain), "status", "--all")  # the real process, as a person reads it
    assert proc.returncode == 0, proc.stderr
    assert f"gates intent {INTENT_ID}: all gates approved; last: bolt-plan approve by Ada Lovelace" in proc.stdout
    assert f"gates bolt {BOLT_ID}: all gates approved; last: walkthrough approve by Ada Lovelace" in proc.stdout


def test_without_a_ledger_status_says_so(chain: Path) -> None:
    (chain / "memory-bank/events.jsonl").unlink()
    document = status_json(chain)
    assert document["gates"] == [] and document["ledger"] is False
    text = status_text(chain)
    assert "no ledger at memory-bank/events.jsonl: gate decisions cannot be recorded" in text
    assert f"aidlc init {chain.resolve()}" in text
    assert document["no_ledger"]["command"].startswith("aidlc init")


def test_a_ledger_git_holds_is_restored_not_recreated(chain: Path) -> None:
    subprocess.run(["git", "add", "-A"], cwd=chain, check=True)
    subprocess.run(["git", "commit", "-qm", "the chain and its ledger"], cwd=chain, check=True)
    (chain / "memory-bank/events.jsonl").unlink()
    result = run(chain, "--format", "json", "status")
    document = json.loads(result.stdout)
    assert document["ledger"] is False and document["errors"] >= 1  # AIDLC-LEDGER-013
    assert document["no_ledger"]["command"] == ("git restore --source=HEAD --staged --worktree -- "
                                                "memory-bank/events.jsonl")
    text = run(chain, "status").stdout
    assert "aidlc init" not in text and "git restore --source=HEAD" in text
