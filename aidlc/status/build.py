"""The status report: counts and state of every intent, unit, story and bolt, the gates, and the
next safe actions."""

from __future__ import annotations

from collections import Counter

from aidlc.bank.index import BankIndex, names
from aidlc.bank.items import Intent, MemoryBank
from aidlc.events.ledger import Ledger, no_ledger
from aidlc.model.status import Action, BoltLine, IntentStatus, StatusReport, UnitStatus
from aidlc.model.types import Severity
from aidlc.rules import run_rules
from aidlc.rules.ledger import view
from aidlc.status.actions import count, decide_gates, next_actions
from aidlc.status.gates import gate_statuses


def build_status(bank: MemoryBank) -> StatusReport:
    index = BankIndex(bank)
    findings = run_rules(bank, index)
    bolts = bolt_lines(bank)
    gates = gate_statuses(bank, index)
    has_ledger = view(index) is not None
    waiting = decide_gates(bank, index, gates)
    return StatusReport(
        root=bank.repo_root,
        counts={"intents": len(bank.intents), "requirements": len(bank.requirements), "units": len(bank.units),
                "stories": len(bank.stories), "bolts": len(bank.bolts)},
        stories=_by_status([s.meta.status if s.meta else None for s in bank.stories]),
        bolts_by_status=_by_status([b.status for b in bolts]),
        intents=[intent_status(intent) for intent in bank.intents],
        bolts=bolts,
        gates=gates,
        ledger=has_ledger,
        no_ledger=None if has_ledger else _without_ledger(bank),
        errors=count(findings, Severity.error),
        warnings=count(findings, Severity.warning),
        next_actions=next_actions(bank, index, findings, gates, waiting),
        waiting=waiting,
    )


def _without_ledger(bank: MemoryBank) -> Action:
    """Why there is no ledger and what brings one: git restore where history holds one, else aidlc init."""
    missing = no_ledger(Ledger.of_bank(bank.repo_root, bank.rel_root))
    return Action(reason=missing.message, command=missing.next_steps[0] if missing.next_steps else None)


def intent_status(intent: Intent) -> IntentStatus:
    units = []
    for unit in intent.units:
        stories = _by_status([s.meta.status if s.meta else None for s in unit.stories])
        status = str(unit.meta.status) if unit.meta and unit.meta.status else None
        units.append(UnitStatus(id=unit.id, status=status, stories=stories,
                                derived_status=derived_status(status, stories)))
    stories = _by_status([s.meta.status if s.meta else None for unit in intent.units for s in unit.stories])
    meta = intent.requirements_meta
    status = str(meta.status) if meta and meta.status else None
    phase = str(meta.phase) if meta and meta.phase else None
    return IntentStatus(id=intent.id, status=status, phase=phase, requirements=len(intent.requirements), units=units,
                        stories=stories, derived_status=derived_status(status, stories))


_STARTED = ("in-progress", "complete")


def derived_status(written: str | None, stories: dict[str, int]) -> str | None:
    """The status to show: what the file says, unless it says nothing or draft while its stories have moved
    on (all complete: complete; some started: in-progress). A file that says more (approved, blocked, ...)
    is taken at its word."""
    if written not in (None, "draft") or not stories or set(stories) == {"unknown"}:
        return written
    if set(stories) == {"complete"}:
        return "complete"
    return "in-progress" if any(stories.get(status) for status in _STARTED) else written


def bolt_lines(bank: MemoryBank) -> list[BoltLine]:
    return [BoltLine(id=b.id, status=str(b.meta.status) if b.meta and b.meta.status else None,
                     unit=b.meta.unit if b.meta else None,
                     stories=len(b.meta.stories) if b.meta and isinstance(b.meta.stories, list) else 0,
                     risk=str(b.meta.risk) if b.meta and b.meta.risk else None,
                     current_stage=b.meta.current_stage if b.meta else None,
                     intent=b.meta.intent if b.meta and isinstance(b.meta.intent, str) else None,
                     story_ids=names(b.meta.stories) if b.meta else [],
                     requires_bolts=names(b.meta.requires_bolts) if b.meta else [])
            for b in bank.bolts]


def _by_status(statuses: list[object]) -> dict[str, int]:
    return dict(sorted(Counter(str(s) if s else "unknown" for s in statuses).items()))
