"""`aidlc status`: where every intent, unit, story and bolt stands, and the next safe action."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.gates.catalogue import INTENT_STAGES, GateTarget, fingerprint, stages_for
from aidlc.gates.history import standing
from aidlc.model.findings import Finding
from aidlc.model.types import BoltStatus, Severity, StoryStatus
from aidlc.report.style import Style
from aidlc.rules import run_rules
from aidlc.rules.ledger import view


class Action(BaseModel):
    reason: str
    command: str | None = None


class UnitStatus(BaseModel):
    id: str
    status: str | None
    stories: dict[str, int]


class IntentStatus(BaseModel):
    id: str
    status: str | None
    requirements: int
    units: list[UnitStatus]
    stories: dict[str, int]


class BoltLine(BaseModel):
    id: str
    status: str | None
    unit: str | None
    stories: int
    risk: str | None
    current_stage: str | None


class LastDecision(BaseModel):
    stage: str
    decision: str
    by: str
    at: str


class GateStatus(BaseModel):
    kind: str
    id: str
    pending: str | None = Field(description="the first gate, in order, without a current (non-stale) approval; "
                                "None when all passed")
    last: LastDecision | None = None


class StatusReport(BaseModel):
    version: int = 1
    root: str
    counts: dict[str, int]
    stories: dict[str, int] = Field(description="stories by status")
    bolts_by_status: dict[str, int]
    intents: list[IntentStatus]
    bolts: list[BoltLine]
    gates: list[GateStatus]
    ledger: bool = Field(description="whether the bank has a ledger")
    errors: int
    warnings: int
    next_actions: list[Action]


def _story_counts(statuses: list[object]) -> dict[str, int]:
    return dict(sorted(Counter(str(s) if s else "unknown" for s in statuses).items()))


def build_status(bank: MemoryBank) -> StatusReport:
    index = BankIndex(bank)
    findings = run_rules(bank, index)
    intents = []
    for intent in bank.intents:
        units = [
            UnitStatus(id=unit.id, status=unit.meta.status if unit.meta else None,
                       stories=_story_counts([s.meta.status if s.meta else None for s in unit.stories]))
            for unit in intent.units
        ]
        stories = [s for u in intent.units for s in u.stories]
        intents.append(IntentStatus(
            id=intent.id,
            status=intent.requirements_meta.status if intent.requirements_meta else None,
            requirements=len(intent.requirements),
            units=units,
            stories=_story_counts([s.meta.status if s.meta else None for s in stories]),
        ))
    bolts = [
        BoltLine(id=b.id, status=str(b.meta.status) if b.meta and b.meta.status else None,
                 unit=b.meta.unit if b.meta else None,
                 stories=len(b.meta.stories) if b.meta and isinstance(b.meta.stories, list) else 0,
                 risk=str(b.meta.risk) if b.meta and b.meta.risk else None,
                 current_stage=b.meta.current_stage if b.meta else None)
        for b in bank.bolts
    ]
    gates = gate_statuses(bank, index)
    return StatusReport(
        root=bank.repo_root,
        counts={"intents": len(bank.intents), "requirements": len(bank.requirements), "units": len(bank.units),
                "stories": len(bank.stories), "bolts": len(bank.bolts)},
        stories=_story_counts([s.meta.status if s.meta else None for s in bank.stories]),
        bolts_by_status=_story_counts([b.status for b in bolts]),
        intents=intents,
        bolts=bolts,
        gates=gates,
        ledger=view(index) is not None,
        errors=sum(f.severity == Severity.error for f in findings),
        warnings=sum(f.severity == Severity.warning for f in findings),
        next_actions=next_actions(bank, index, findings, gates),
    )


def _targets(bank: MemoryBank, index: BankIndex) -> list[GateTarget]:
    targets = [GateTarget("intent", i.id, INTENT_STAGES, intent=i) for i in bank.intents]
    return targets + [GateTarget("bolt", b.id, stages_for(b), bolt=b) for b in bank.bolts if b.meta]


def gate_statuses(bank: MemoryBank, index: BankIndex) -> list[GateStatus]:
    led = view(index)
    if led is None:
        return []
    result = []
    for target in _targets(bank, index):
        last = led.history.last_of(target.kind, target.id)
        # A stale approval judged other bytes: the gate waits for a person again (as AIDLC-LEDGER-005 says).
        pending = next((s for s in target.stages if standing(led.history, bank, index, target, s) is not None), None)
        result.append(GateStatus(kind=target.kind, id=target.id, pending=pending, last=None if last is None else
                                 LastDecision(stage=str(last.get("stage")), decision=str(last.get("decision")),
                                              by=str((last.get("actor") or {}).get("name")), at=str(last.get("ts")))))
    return result


def next_actions(bank: MemoryBank, index: BankIndex, findings: list[Finding],
                 gates: list[GateStatus] | None = None) -> list[Action]:
    """Safe next steps in the order the method takes them: fix, finish, plan, decompose, start."""
    actions: list[Action] = []
    errors = [f for f in findings if f.severity == Severity.error]
    if errors:
        first = errors[0]
        actions.append(Action(reason=f"{len(errors)} validation errors; the first: {first.path}:{first.line or 1} "
                              f"{first.code} {first.message}", command="aidlc validate"))
    for bolt in bank.bolts:
        if bolt.meta and bolt.meta.status == BoltStatus.in_progress:
            stage = f" (stage {bolt.meta.current_stage})" if bolt.meta.current_stage else ""
            actions.append(Action(reason=f"bolt {bolt.id} is in progress{stage}: finish it before starting another"))
    for finding in findings:
        if finding.code == "AIDLC-COV-002":
            actions.append(Action(reason=finding.message.replace("but no bolt includes it", "but is in no bolt"),
                                  command=finding.fix))
    for finding in findings:
        if finding.code == "AIDLC-COV-001":
            actions.append(Action(reason=finding.message, command=finding.fix))
    targets = {(t.kind, t.id): t for t in _targets(bank, index)}
    for gate in gates if gates is not None else gate_statuses(bank, index):
        target = targets[(gate.kind, gate.id)]
        if gate.pending and fingerprint(bank, index, target, gate.pending) is not None:
            actions.append(Action(reason=f"{gate.kind} {gate.id}: the {gate.pending} gate waits for a person's "
                                         "decision", command=f"aidlc gate approve {gate.id} --stage {gate.pending}"))
    for intent in bank.intents:
        if intent.requirements_doc is not None and not intent.requirements:
            actions.append(Action(reason=f"intent {intent.id} has no requirements yet",
                                  command=f"aidlc new requirement \"TITLE\" --intent {intent.id}"))
        elif intent.requirements and not intent.units:
            actions.append(Action(reason=f"intent {intent.id} has requirements but no units",
                                  command=f"aidlc new unit \"TITLE\" --intent {intent.id} --requirements "
                                          f"{intent.requirements[0].id}"))
    for story in bank.stories:
        if story.meta and story.meta.status == StoryStatus.draft:
            actions.append(Action(reason=f"story {story.id} is a draft: review it, then set `status: ready` "
                                         f"in {story.rel}"))
    for bolt in bank.bolts:
        if bolt.meta and bolt.meta.status == BoltStatus.planned:
            blockers = [name for name in bolt.meta.requires_bolts or []
                        if (b := index.bolt(name)) is None or not b.meta or b.meta.status != BoltStatus.complete]
            unready = [name for name in bolt.meta.stories or []
                       if (s := index.story(name)) is None or not s.meta or s.meta.status == StoryStatus.draft]
            if not blockers and not unready:
                actions.append(Action(reason=f"bolt {bolt.id} is planned, its stories are ready and no bolt "
                                             "blocks it: it can start"))
    if not bank.intents:
        actions.append(Action(reason="no intents yet", command="aidlc new intent \"TITLE\""))
    return actions


def render_text(report: StatusReport, style: Style, limit: int = 8) -> str:
    c = report.counts
    lines = [style("aidlc status", "bold") + f"  {report.root}",
             f"  {c['intents']} intents, {c['requirements']} requirements, {c['units']} units, "
             f"{c['stories']} stories, {c['bolts']} bolts",
             f"  stories: {_fmt(report.stories)}",
             f"  bolts:   {_fmt(report.bolts_by_status)}",
             f"  validation: {report.errors} errors, {report.warnings} warnings", ""]
    for intent in report.intents:
        lines.append(style(f"intent {intent.id}", "bold") + f"  [{intent.status or 'no status'}]  "
                     f"{intent.requirements} requirements, stories: {_fmt(intent.stories)}")
        for unit in intent.units:
            lines.append(f"  unit {unit.id}  [{unit.status or 'no status'}]  stories: {_fmt(unit.stories)}")
    if report.bolts:
        lines.append("")
        for bolt in report.bolts:
            stage = f", stage {bolt.current_stage}" if bolt.current_stage else ""
            lines.append(f"bolt {bolt.id}  [{bolt.status or '?'}{stage}]  unit {bolt.unit}, "
                         f"{bolt.stories} stories, risk {bolt.risk or 'unset'}")
    if report.gates:
        lines.append("")
        for gate in report.gates:
            last = (f"last: {gate.last.stage} {gate.last.decision} by {gate.last.by} at {gate.last.at}"
                    if gate.last else "no decisions yet")
            pending = f"pending gate: {gate.pending}" if gate.pending else "all gates approved"
            lines.append(f"gates {gate.kind} {gate.id}: {pending}; {last}")
    elif not report.ledger:
        lines.extend(["", "no ledger: gate decisions are not recorded (aidlc init creates one)"])
    lines.append("")
    if report.next_actions:
        first, *rest = report.next_actions
        lines.append(style("Next safe action:", "green") + f" {first.reason}")
        if first.command:
            lines.append(f"  {first.command}")
        if rest:
            lines.append("Then:")
            for action in rest[: limit - 1]:
                lines.append(f"  - {action.reason}" + (f"\n      {action.command}" if action.command else ""))
            if len(rest) > limit - 1:
                lines.append(f"  ... and {len(rest) - limit + 1} more (aidlc --format json status lists all)")
    else:
        lines.append(style("Nothing to do: every story is complete and validation is clean.", "green"))
    return "\n".join(lines)


def _fmt(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in counts.items()) or "none"
