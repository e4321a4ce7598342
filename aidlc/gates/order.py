"""The order gates are decided in: a subject's earlier stages first, a bolt's first gate after its intent's
inception, an aidlc-docs stage after the stages core-workflow.md puts before it; and a completed bolt takes no
second decision."""

from __future__ import annotations

from collections.abc import Sequence

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.events.view import GateHistory
from aidlc.gates.catalogue import (
    DOCS_ALWAYS,
    INTENT_STAGES,
    GateTarget,
    docs_judged_files,
    docs_skipped,
    docs_targets,
    record_earlier,
    record_judged_files,
)
from aidlc.gates.history import approvals_short, approved_by_a_person, standing
from aidlc.gates.refusals import GateRefused
from aidlc.names import arg, gate_command


def check_open(history: GateHistory, target: GateTarget, bots: Sequence[str]) -> None:
    """A bolt whose walkthrough approval completed it is closed: a second decision of any of its gates would
    contradict the completion the ledger and its files record. (A high-risk bolt waiting for its second
    approver is not complete yet; nor is one whose approval no person made, `bots` the bank's bot_emails: a person
    decides it.)"""
    if target.kind != "bolt":
        return
    last = history.latest("bolt", target.id, "walkthrough")
    if not approved_by_a_person(last, bots) or approvals_short(last):
        return
    who = last.actor.name or "a person"
    unit = target.bolt.meta.unit if target.bolt is not None and target.bolt.meta is not None else "UNIT"
    raise GateRefused(f"bolt {target.id} is complete: {who} approved its walkthrough (ledger seq {last.seq}, "
                      f"{last.ts[:10]}); the gates of a completed bolt take no second decision",
                      [f"aidlc new bolt --unit {arg(unit)} --stories STORIES    # further work is a new bolt",
                       "aidlc status    # what is open"])


def check_order(bank: MemoryBank, history: GateHistory, index: BankIndex, target: GateTarget, stage: str) -> None:
    """Earlier stages of the subject first; a bolt's first gate also waits for its intent's inception gates."""
    for earlier in target.stages[: target.stages.index(stage)]:
        _require_current(bank, history, index, target, earlier, f"the {stage} gate comes after it")
    if target.kind == "bolt" and stage == target.stages[0] and target.bolt is not None:
        intent = index.intent(target.bolt.meta.intent) if target.bolt.meta else None
        if intent is not None:  # approving the plan starts the bolt: construction needs a finished inception
            parent = GateTarget("intent", intent.id, INTENT_STAGES, intent=intent)
            _require_current(bank, history, index, parent, INTENT_STAGES[-1],
                             f"the {stage} gate of bolt {target.id} comes after it")


def _require_current(bank: MemoryBank | None, history: GateHistory, index: BankIndex | None, target: GateTarget,
                     stage: str, why: str, bots: Sequence[str] = ()) -> None:
    state = standing(history, bank, index, target, stage, bots)
    if state is not None:
        steps = [gate_command(target.id, stage)]
        if target.docs is not None and target.docs.state is not None and stage not in DOCS_ALWAYS \
                and history.latest(target.kind, target.id, stage) is None:
            steps.append(f"or, if the project skips {stage}, mark it SKIP in {target.docs.state.path}")
        raise GateRefused(f"{target.kind} {target.id}: the {stage} gate {state}; {why}", steps)


def check_docs_order(history: GateHistory, target: GateTarget, stage: str, bots: Sequence[str]) -> None:
    """An aidlc-docs stage waits for the earlier stages of its subject; a unit's stages wait for the inception,
    build and test for every unit's code generation (core-workflow.md's order). A stage aidlc-state.md marks
    skipped is not waited for, nor a conditional one that has written nothing (it did not run). `bots`:
    aidlc.yaml's governance.bot_emails (an approval under one is no person's)."""
    assert target.docs is not None
    if target.docs.record is not None:  # v2: the order of its state rows; a stage that wrote nothing did not run
        for subject, before in record_earlier(target, stage):
            if record_judged_files(subject, before)[1]:
                where = "" if subject is target else f" of {target.kind} {target.id}"
                _require_current(None, history, None, subject, before, f"the {stage} gate{where} comes after it",
                                 bots)
        return
    earlier = [(target, before) for before in target.stages[: target.stages.index(stage)]]
    subjects = docs_targets(target.docs)
    if target.kind == "unit":
        earlier = [(subjects[0], before) for before in subjects[0].stages] + earlier
    elif target.id == "construction":
        earlier = [(unit, "code-generation") for unit in subjects if unit.kind == "unit"] + earlier
    for subject, before in earlier:
        if docs_skipped(subject, before) or (before not in DOCS_ALWAYS and not docs_judged_files(subject, before)[1]):
            continue
        where = "" if subject is target else f" of {target.kind} {target.id}"
        _require_current(None, history, None, subject, before, f"the {stage} gate{where} comes after it", bots)
