"""Who has approved a bolt's walkthrough as it stands, and which decision the report asks for."""

from __future__ import annotations

from aidlc.bank.index import BankIndex
from aidlc.gates.catalogue import GateTarget, fingerprint, stages_for
from aidlc.model import evidence as ev
from aidlc.model.types import Risk
from aidlc.report.evidence import Facts

TWO_PEOPLE = (Risk.high, Risk.critical)


def distinct_approvers(facts: Facts) -> list[str]:
    """The people whose approvals of the walkthrough stand for the file as it is now (since the gate's last
    other decision), each named once."""
    index = BankIndex(facts.bank)
    target = GateTarget("bolt", facts.bolt.id, stages_for(facts.bolt), bolt=facts.bolt)
    now = fingerprint(facts.bank, index, target, "walkthrough")
    people: list[str] = []
    for event in facts.events:
        if event.get("type") != "gate.decided" or event.get("stage") != "walkthrough":
            continue
        if event.get("decision") != "approve":
            people = []
            continue
        actor = event.get("actor") or {}
        same = now is not None and (event.get("fingerprint") or {}).get("sha256") == now.sha256
        who = person(actor)
        if actor.get("kind") == "human" and same and who not in people:
            people.append(who)
    return people


def person(actor: dict) -> str:
    return f"{actor.get('name')} <{actor.get('email') or ''}>"


def decision(facts: Facts, risk: Risk | None) -> ev.Decision:
    needed = 2 if risk in TWO_PEOPLE else 1
    who = "a person (not an agent, CI or a bot)" if needed == 1 else \
        "two distinct people (not agents, CI or bots), one after the other"
    return ev.Decision(gate="walkthrough", who=who, approvals_needed=needed, approvals_so_far=distinct_approvers(facts),
                       command=f"aidlc gate approve {facts.bolt.id} --stage walkthrough --reason '...'")
