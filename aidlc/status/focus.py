"""The part of a status report one subject needs: an intent, a bolt, or what waits for a person."""

from __future__ import annotations

from aidlc.bank.items import strip_number
from aidlc.model.status import Action, StatusReport
from aidlc.names import gate_command


def on_intent(report: StatusReport, intent_id: str) -> StatusReport:
    """The intent, its bolts, their gates and the actions that name any of them."""
    bolts = [b for b in report.bolts if b.intent and strip_number(b.intent) == strip_number(intent_id)]
    subjects = {intent_id, *(b.id for b in bolts)}
    return _narrowed(report, [i for i in report.intents if i.id == intent_id], bolts, subjects)


def on_bolt(report: StatusReport, bolt_id: str) -> StatusReport:
    return _narrowed(report, [], [b for b in report.bolts if b.id == bolt_id], {bolt_id})


def on_waiting(report: StatusReport) -> StatusReport:
    """What waits for a person: every gate with something to judge."""
    pending = {(a.command or "") for a in report.waiting}
    gates = [g for g in report.gates
             if g.pending and gate_command(g.id, g.pending) in pending]
    return report.model_copy(update={"intents": [], "bolts": [], "gates": gates, "next_actions": report.waiting})


def _narrowed(report: StatusReport, intents: list, bolts: list, subjects: set[str]) -> StatusReport:
    def names(action: Action) -> bool:
        words = set(f"{action.reason} {action.command or ''}".replace(":", " ").replace(",", " ").split())
        return not subjects.isdisjoint(words)

    return report.model_copy(update={
        "intents": intents, "bolts": bolts, "gates": [g for g in report.gates if g.id in subjects],
        "next_actions": [a for a in report.next_actions if names(a)],
        "waiting": [a for a in report.waiting if names(a)]})
