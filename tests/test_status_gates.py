"""`aidlc status`: per intent and bolt, the pending gate and the last decision, with who and when."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest

from aidlc.events.ledger import Ledger
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from aidlc.model.status import StatusReport
from tests.evidence_sample import give_evidence
from tests.helpers import run_cli
from tests.test_gate import (
    BOLT,
    BOLT_ID,
    INTENT_ID,
    REQUIREMENTS,
    WALKTHROUGH,
    approve,
    check_boxes,
    decisions,
    edit,
    front,
    gate,
    run,
    through_inception,
    through_plan,
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


def _append_as(root: Path, actor: Actor, subject: tuple[str, str], stage: str, fingerprint: dict) -> None:
    """A decision written into the ledger past the gate, which refuses one no person makes (a script, an old
    version, a forger): chained and hashed as aidlc writes every line."""
    Ledger(root / "memory-bank/events.jsonl", root).append(
        EventType.gate_decided, actor, subject=Subject(kind=subject[0], id=subject[1]),  # type: ignore[arg-type]
        stage=stage, decision=Decision.approve, fingerprint=FileDigest(**fingerprint))


@pytest.mark.parametrize(("actor", "who"), [
    (Actor(kind=ActorKind.agent, name="coder"), "agent coder"),
    (Actor(kind=ActorKind.ci, name="ci"), "ci ci"),
    (Actor(kind=ActorKind.human, name="dependabot[bot]", email="49699333+dependabot[bot]@users.noreply.github.com"),
     "dependabot[bot], a bot (the name 'dependabot[bot]' ends in [bot])"),
    (Actor(kind=ActorKind.human, name="Release Robot", email="release@x.org"),  # governance.bot_emails lists it
     "Release Robot, a bot (release@x.org is listed in governance.bot_emails)")])
def test_an_approval_no_person_made_leaves_its_gate_waiting_for_one(chain: Path, actor: Actor, who: str) -> None:
    # The approval judged the requirements as they are (a person's fingerprint), so only its decider is wrong.
    config = (chain / "aidlc.yaml").read_text()
    write(chain, "aidlc.yaml", config.replace("bot_emails: []", "bot_emails: [release@x.org]"))
    approve(chain, INTENT_ID, "requirements")
    fingerprint = decisions(chain)[-1]["fingerprint"]
    approve(chain, INTENT_ID, "units")
    _append_as(chain, actor, ("intent", INTENT_ID), "requirements", fingerprint)
    document = status_json(chain)
    assert gates_of(document)[("intent", INTENT_ID)]["pending"] == "requirements"
    reasons = {a["command"]: a["reason"] for a in document["next_actions"]}
    reason = reasons[f"aidlc gate approve {INTENT_ID} --stage requirements"]
    assert f"the requirements gate was approved by {who}, not by a person (ledger seq " in reason
    # nor does it open the gates after it: a person decides it first, as AIDLC-LEDGER-006 and 014 ask
    refused = gate(chain, "approve", INTENT_ID, "stories")
    assert refused.exit_code == 1 and f"the requirements gate was approved by {who}, not by a person" in refused.stderr
    approve(chain, INTENT_ID, "requirements")
    assert gates_of(status_json(chain))[("intent", INTENT_ID)]["pending"] == "stories"  # the units approval stands


def test_a_walkthrough_approval_no_person_made_does_not_close_the_bolt(chain: Path) -> None:
    through_plan(chain)
    _append_as(chain, Actor(kind=ActorKind.agent, name="coder"), ("bolt", BOLT_ID), "walkthrough",
               {"path": WALKTHROUGH, "sha256": "0" * 64})
    assert gates_of(status_json(chain))[("bolt", BOLT_ID)]["pending"] == "walkthrough"
    write(chain, WALKTHROUGH, "# Walkthrough\n\nPOST /orders works; tests pass.\n")
    check_boxes(chain)
    give_evidence(chain, BOLT_ID, run)
    result = gate(chain, "approve", BOLT_ID, "walkthrough")  # a person decides it: the bolt was never complete
    assert result.exit_code == 0, result.stderr + (chain / WALKTHROUGH).read_text()
    assert front(chain, BOLT)["status"] == "complete"
