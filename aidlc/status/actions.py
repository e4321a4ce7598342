"""The next safe actions, in the order the method takes them: fix, finish, plan, decompose, start.

Each kind of action is found by a function of its own; `next_actions` lists them in that order.
"""

from __future__ import annotations

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.gates.catalogue import fingerprint
from aidlc.gates.decide import refusal
from aidlc.gates.history import standing
from aidlc.model.findings import Finding
from aidlc.model.status import Action, GateStatus
from aidlc.model.types import BoltStatus, Severity, StoryStatus
from aidlc.names import arg, gate_command
from aidlc.plural import plural
from aidlc.rules.ledger import view
from aidlc.status.gates import gate_targets


def next_actions(bank: MemoryBank, index: BankIndex, findings: list[Finding], gates: list[GateStatus],
                 waiting: list[Action] | None = None) -> list[Action]:
    """`waiting`: the gate decisions `decide_gates` found already (computed once, it reads files)."""
    decisions = decide_gates(bank, index, gates) if waiting is None else waiting
    return [*fix_errors(findings), *finish_bolts_in_progress(bank), *plan_stories_into_bolts(findings),
            *cover_must_requirements(findings), *decisions, *prepare_gates(bank, index, gates),
            *decompose_intents(bank), *review_draft_stories(bank), *start_bolts(bank, index),
            *write_a_first_intent(bank)]


def count(findings: list[Finding], severity: Severity) -> int:
    """How many of `findings` are of `severity` (a status report's errors and warnings)."""
    return sum(finding.severity == severity for finding in findings)


def fix_errors(findings: list[Finding], more: bool = False) -> list[Action]:
    """`more`: errors of the same run were given actions of their own before this one, and are left out of it."""
    errors = [f for f in findings if f.severity == Severity.error]
    if not errors:
        return []
    first = errors[0]
    counted = plural(len(errors), "more validation error" if more else "validation error")
    return [Action(reason=f"{counted}; the first: {first.path}:{first.line or 1} {first.code} {first.message}",
                   command="aidlc validate")]


def finish_bolts_in_progress(bank: MemoryBank) -> list[Action]:
    actions = []
    for bolt in bank.bolts:
        if bolt.meta and bolt.meta.status == BoltStatus.in_progress:
            stage = f" (stage {bolt.meta.current_stage})" if bolt.meta.current_stage else ""
            actions.append(Action(reason=f"bolt {bolt.id} is in progress{stage}: finish it before starting another",
                                  command=f"aidlc status --bolt {arg(bolt.id)}    # its gates and what each waits for"))
    return actions


def plan_stories_into_bolts(findings: list[Finding]) -> list[Action]:
    """A ready (or later) story in no bolt (AIDLC-COV-002)."""
    return [Action(reason=f.message.replace("but no bolt includes it", "but is in no bolt"), command=f.fix)
            for f in findings if f.code == "AIDLC-COV-002"]


def cover_must_requirements(findings: list[Finding]) -> list[Action]:
    """A Must requirement without a story (AIDLC-COV-001)."""
    return [Action(reason=f.message, command=f.fix) for f in findings if f.code == "AIDLC-COV-001"]


def decide_gates(bank: MemoryBank, index: BankIndex, gates: list[GateStatus]) -> list[Action]:
    """A gate waiting for a person, whose approval the gate would record now."""
    return [action for action, ready in _pending_gates(bank, index, gates) if ready]


def prepare_gates(bank: MemoryBank, index: BankIndex, gates: list[GateStatus]) -> list[Action]:
    """A gate with something to judge that would refuse an approval now: what it needs first, as it says."""
    return [action for action, ready in _pending_gates(bank, index, gates) if not ready]


def _pending_gates(bank: MemoryBank, index: BankIndex, gates: list[GateStatus]) -> list[tuple[Action, bool]]:
    led = view(index)
    if led is None:
        return []
    targets = {(t.kind, t.id): t for t in gate_targets(bank)}
    found = []
    for gate in gates:
        target = targets[(gate.kind, gate.id)]
        if not gate.pending or fingerprint(bank, index, target, gate.pending) is None:
            continue  # nothing to judge yet: the actions that write it come from the bank
        refused = refusal(bank, index, led.history, target, gate.pending)
        if refused is None:
            approve = gate_command(gate.id, gate.pending)
            # A gate that was decided says why its decision does not stand (stale, rejected, no person's)
            decided = led.history.latest(target.kind, target.id, gate.pending) is not None
            why = standing(led.history, bank, index, target, gate.pending) if decided else None
            why = "waits for a person's decision" if why is None else f"{why}: a person decides it"
            reason = f"{gate.kind} {gate.id}: the {gate.pending} gate {why}"
            found.append((Action(reason=reason, command=approve), True))
        else:
            found.append((Action(reason=refused.message,
                                 command=refused.next_steps[0] if refused.next_steps else None), False))
    return found


def decompose_intents(bank: MemoryBank) -> list[Action]:
    """An intent without requirements yet, or with requirements but no units."""
    actions = []
    for intent in bank.intents:
        if intent.requirements_doc is not None and not intent.requirements:
            actions.append(Action(reason=f"intent {intent.id} has no requirements yet",
                                  command=f"aidlc new requirement \"TITLE\" --intent {arg(intent.id)}"))
        elif intent.requirements and not intent.units:
            actions.append(Action(reason=f"intent {intent.id} has requirements but no units",
                                  command=f"aidlc new unit \"TITLE\" --intent {arg(intent.id)} --requirements "
                                          f"{arg(intent.requirements[0].id)}"))
    return actions


def review_draft_stories(bank: MemoryBank) -> list[Action]:
    """A draft story: a person reviews it and marks it ready (no command does that for them)."""
    return [Action(reason=f"story {story.id} of intent {story.meta.intent} is a draft: review it, then set "
                          "`status: ready` in its front matter",
                   command=f"$EDITOR {arg(story.rel)}    # then: aidlc validate")
            for story in bank.stories if story.meta and story.meta.status == StoryStatus.draft]


def start_bolts(bank: MemoryBank, index: BankIndex) -> list[Action]:
    """A planned bolt whose stories are ready and whose required bolts are complete."""
    actions = []
    for bolt in bank.bolts:
        if not bolt.meta or bolt.meta.status != BoltStatus.planned:
            continue
        blockers = [name for name in bolt.meta.requires_bolts or []
                    if (b := index.bolt(name)) is None or not b.meta or b.meta.status != BoltStatus.complete]
        unready = [name for name in bolt.meta.stories or []
                   if (s := index.story(name)) is None or not s.meta or s.meta.status == StoryStatus.draft]
        if blockers or unready:
            continue
        if bank.config.verify:
            actions.append(Action(reason=f"bolt {bolt.id} is planned, its stories are ready and no bolt "
                                         "blocks it: it can start", command=f"aidlc bolt start {arg(bolt.id)}"))
        else:  # a run checks its work with them: `aidlc bolt start` refuses without
            actions.append(Action(reason=f"bolt {bolt.id} can start once aidlc.yaml has a verify command, e.g. "
                                         "`- {name: tests, run: python -m pytest -q}` under verify:",
                                  command=f"aidlc bolt start {arg(bolt.id)} --dry-run    # says what else a run needs"))
    return actions


def write_a_first_intent(bank: MemoryBank) -> list[Action]:
    return [] if bank.intents else [Action(reason="no intents yet", command="aidlc new intent \"TITLE\"")]
