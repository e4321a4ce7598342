"""Each intent's and bolt's gates: the first one still waiting for a person, and the last decision."""

from __future__ import annotations

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.gates.catalogue import INTENT_STAGES, GateTarget, stages_for
from aidlc.gates.history import standing
from aidlc.model.events import Event
from aidlc.model.status import GateStatus, LastDecision, WalkthroughEvidence
from aidlc.rules.ledger import view


def gate_targets(bank: MemoryBank) -> list[GateTarget]:
    """Every subject that has gates: each intent, and each bolt whose front matter could be read."""
    targets = [GateTarget("intent", i.id, INTENT_STAGES, intent=i) for i in bank.intents]
    return targets + [GateTarget("bolt", b.id, stages_for(b), bolt=b) for b in bank.bolts if b.meta]


def gate_statuses(bank: MemoryBank, index: BankIndex) -> list[GateStatus]:
    """The gates of every subject; none without a ledger (no decision can be recorded)."""
    led = view(index)
    if led is None:
        return []
    result = []
    for target in gate_targets(bank):
        # A stale approval judged other bytes: the gate waits for a person again (as AIDLC-LEDGER-005 says).
        pending = next((s for s in target.stages if standing(led.history, bank, index, target, s) is not None), None)
        last = led.history.last_of(target.kind, target.id)
        evidence = None
        if target.kind == "bolt" and pending == "walkthrough" and target.bolt is not None:
            evidence = _evidence(bank, target, standing(led.history, bank, index, target, pending))
        result.append(GateStatus(kind=target.kind, id=target.id, pending=pending,
                                 last=None if last is None else last_decision(last), evidence=evidence))
    return result


def _evidence(bank: MemoryBank, target: GateTarget, why: str | None) -> WalkthroughEvidence:
    # `aidlc status` builds evidence only for a bolt at its walkthrough: the builder loads then.
    from aidlc.gates.walkthrough import walkthrough_evidence

    assert target.bolt is not None
    missing = walkthrough_evidence(bank, target.bolt).missing
    return WalkthroughEvidence(complete=not missing, missing=missing,
                               waiting=why if why is not None and why.startswith("has ") else None)


def last_decision(event: Event) -> LastDecision:
    """A gate's last decision as status shows it: the stage, the decision, who and when."""
    return LastDecision(stage=str(event.stage), decision=str(event.decision), by=event.actor.name, at=event.ts)
