"""Recording a human gate decision: the checks (`refusals`, `order`), the ledger event, and the status changes
it implies (`effects`, which also says the order of writes that survives a crash).

A project in the aidlc-docs layout (`decide_docs`) has the same checks and the same record, and no status
changes: its files are the agent's to write (aidlc-state.md, audit.md), the ledger is the person's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.bank.write import atomic_write
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger, Signer, new_event_id, no_ledger
from aidlc.events.view import GateHistory, LedgerView, open_view
from aidlc.gates.actor import same_person
from aidlc.gates.catalogue import (
    INTENT_STAGES,
    GateTarget,
    combine,
    intent_bolts,
    judged_digests,
    judged_files,
    refused,
)
from aidlc.gates.effects import PENDING_NOTE, StatusChange, apply_effects, check_writable, status_changes
from aidlc.gates.order import check_docs_order, check_open, check_order
from aidlc.gates.refusals import (
    GateRefused,
    check_intact,
    check_policy,
    check_requirements_written,
    not_a_person,
    refuse_below_a_check,
    refuse_bot,
)
from aidlc.gates.resolve import resolve
from aidlc.model.config import Config
from aidlc.model.events import Actor, ActorKind, Decision, Event, EventType, FileDigest, Subject
from aidlc.model.types import Risk
from aidlc.names import arg, gate_command


@dataclass
class Recorded:
    event: Event
    changed: list[str] = field(default_factory=list)
    recovered: str | None = None  # a torn last line found on the way, moved aside to this file (repo-relative)
    completed: bool = False  # the ledger's last line lacked its newline, and got it
    waiting: str | None = None  # recorded, but the gate waits for another person (two-person rule)
    # The ledger as the decision read it, its own line added (current while nobody else wrote: `LedgerView.current`).
    view: LedgerView | None = None


def decide_docs(target: GateTarget, folder: str, config: Config, subject: str, stage: str, decision: Decision,
                reason: str | None, actor: Actor, *, head: str | None = None) -> Recorded:
    """Record a person's decision on a stage of an aidlc-docs subject (`resolve_docs`, or on v2 records
    `resolve_record`), in the ledger of `folder` (aidlc.workspace.records_folder): the same checks as `decide` (a
    person, not a bot, signed where required, the earlier stages first, bound to the bytes judged), nothing else
    written. Approvals audit.md or v2's shards record stay history: none is read as a decision."""
    refuse_below_a_check(subject, stage, decision)
    assert target.docs is not None
    repo = Path(target.docs.root)
    ledger = Ledger.of_bank(repo, folder)
    if not ledger.exists():
        raise no_ledger(ledger)
    if actor.kind != ActorKind.human:
        raise not_a_person(subject, stage, decision, actor)
    refuse_bot(config.governance.bot_emails, stage, actor)
    sign = _signer(repo, folder, config, actor)
    led = open_view(ledger, keep=True)
    check_intact(led)
    judged, digest, _ = _judge(None, None, led.history, target, stage, decision, subject,
                               config.governance.bot_emails)
    data: dict[str, Any] = {}
    if len(judged) > 1:
        data["judged"] = [d.model_dump() for d in judged]
    if unseen := _decided_on_other_branches(led, target, stage):
        data["supersedes"] = unseen
    appended = ledger.append(
        EventType.gate_decided, actor, key=f"gate:{new_event_id()}",
        subject=Subject(kind=target.kind, id=target.id),  # type: ignore[arg-type]  # target.kind is one of Subject's kinds
        stage=stage, decision=decision, reason=reason, fingerprint=digest, commit=head or vcs.head_commit(repo),
        data=data or None, sign=sign,
    )
    recovered = appended.recovered.relative_to(repo).as_posix() if appended.recovered else None
    return Recorded(appended.event, [], recovered, appended.completed, view=led)


def decide(bank: MemoryBank, subject: str, stage: str, decision: Decision, reason: str | None,
           actor: Actor, *, policy_risk: Risk | None = None, head: str | None = None,
           index: BankIndex | None = None) -> Recorded:
    """Record a person's decision; or, with a `policy` actor, a plan approval policy.auto_approve_plan allows
    for `policy_risk` (low or medium only). `head`: HEAD's commit when the caller knows it (a bolt run checks
    it before every step), else it is asked of git. `index`: the bank's, when the caller holds it."""
    refuse_below_a_check(subject, stage, decision)
    repo = Path(bank.repo_root)
    ledger = Ledger.of_bank(repo, bank.rel_root)
    if not ledger.exists():
        raise no_ledger(ledger)
    if actor.kind == ActorKind.policy:
        check_policy(bank, stage, decision, policy_risk)
        sign = None
    elif actor.kind != ActorKind.human:
        raise not_a_person(subject, stage, decision, actor)
    else:
        refuse_bot(bank.config.governance.bot_emails, stage, actor)
        sign = _signer(Path(bank.repo_root), bank.rel_root, bank.config, actor)
    index = index or BankIndex(bank)
    target = resolve(bank, index, subject, stage)
    if stage not in target.stages:
        raise UsageError(f"{target.kind} {target.id} has no {stage!r} gate; its gates are {', '.join(target.stages)}")
    led = open_view(ledger, keep=True)  # a decision writes anyway: what it reads in full is kept for the next
    check_intact(led)
    judged, digest, changes = _judge(bank, index, led.history, target, stage, decision, subject)
    data: dict[str, Any] = {}
    waiting = None
    if target.kind == "bolt" and stage == "walkthrough" and decision == Decision.approve \
            and actor.kind == ActorKind.human and target.bolt is not None:
        waiting = _walkthrough_evidence(bank, index, led, target, actor, digest.sha256, data)
        changes = [] if waiting else changes
    if changes:
        data["effects"] = [change.recorded() for change in changes]
    if actor.kind == ActorKind.policy:
        data["risk"] = str(policy_risk)
    data.update(_risks_judged(bank, index, target, stage))
    if len(judged) > 1:
        data["judged"] = [d.model_dump() for d in judged]
    if unseen := _decided_on_other_branches(led, target, stage):
        data["supersedes"] = unseen
    key = f"gate:{new_event_id()}"
    atomic_write(repo / PENDING_NOTE, key + "\n", repo)
    appended = ledger.append(
        EventType.gate_decided, actor, key=key,
        subject=Subject(kind=target.kind, id=target.id),  # type: ignore[arg-type]  # target.kind is one of Subject's kinds
        stage=stage, decision=decision, reason=reason, fingerprint=digest, commit=head or vcs.head_commit(repo),
        data=data or None, sign=sign,
    )
    recovered = appended.recovered.relative_to(repo).as_posix() if appended.recovered else None
    return Recorded(appended.event, apply_effects(repo, appended.event), recovered, appended.completed, waiting, led)


def refusal(bank: MemoryBank | None, index: BankIndex | None, history: GateHistory, target: GateTarget,
            stage: str) -> GateRefused | None:
    """Why `aidlc gate approve` of this gate would be refused now, judged by what the gate itself checks of the
    subject (not of the person deciding, nor the walkthrough's evidence); None when it would be recorded."""
    try:
        _judge(bank, index, history, target, stage, Decision.approve, target.id)
    except GateRefused as exc:
        return exc
    return None


def _judge(bank: MemoryBank | None, index: BankIndex | None, history: GateHistory, target: GateTarget,
           stage: str, decision: Decision, subject: str, bots: Sequence[str] = (),
           ) -> tuple[list[FileDigest], FileDigest, list[StatusChange]]:
    """The checks of the subject a decision passes first; the digests it judges and the changes it implies
    (an aidlc-docs subject has no bank, and no changes: None; `bots`, its governance.bot_emails)."""
    if target.docs is not None:
        repo = Path(target.docs.root)
        check_docs_order(history, target, stage, bots)
    else:
        assert bank is not None and index is not None
        repo = Path(bank.repo_root)
        check_open(history, target, bank.config.governance.bot_emails)
        check_order(bank, history, index, target, stage)
    if target.kind == "policy":
        return [], _rules_digest(repo), []
    label, files = judged_files(bank, index, target, stage)
    if not_read := refused(repo, files):
        raise GateRefused(f"the {stage} gate judges files aidlc does not read: {'; '.join(not_read)}",
                          ["replace each with the file itself, inside the repository, then decide",
                           "aidlc validate    # AIDLC-FILE-007/008 name them too"])
    if target.intent is not None and stage == "requirements" and decision == Decision.approve:
        check_requirements_written(target.intent)
    judged = judged_digests(bank, index, target, stage)
    digest = combine(label, judged)
    if digest is None:
        steps = [f"write {label}, then: aidlc gate {decision.value} {arg(subject)} --stage {arg(stage)}"]
        if target.kind == "bolt" and stage == "plan":
            steps[:0] = [f"aidlc bolt start {arg(target.id)}    # the model writes the plan, then waits for a person",
                         f"aidlc new plan {arg(target.id)}    # or its template, for you to write"]
        raise GateRefused(f"nothing to judge for the {stage} gate: {label} does not exist", steps)
    changes = status_changes(bank, index, target, stage, decision) if bank is not None and index is not None else []
    check_writable(repo, changes)
    return judged, digest, changes


def _rules_digest(repo: Path) -> FileDigest:
    """The rule files as the work tree holds them: what an approval of a change of the rules binds to."""
    # Only a decision on the rules' change reads the rule files.
    from aidlc.bank import rulefiles

    top = vcs.repo_root(repo)
    rules = rulefiles.work_tree(repo, top or repo, in_git=top is not None)
    return FileDigest(path="rules", sha256=rulefiles.fingerprint(rules))


def _walkthrough_evidence(bank: MemoryBank, index: BankIndex, led: LedgerView, target: GateTarget, actor: Actor,
                          judged: str, data: dict[str, Any]) -> str | None:
    """Refuse the approval while the evidence report is missing, older than the bolt's head or its verification
    unmet; bind it to the report's digest. High and critical risk need two distinct people: the first approval
    is recorded and the gate waits (returned: why). `led`: the ledger as the decision reads it, the evidence too."""
    # status imports this module (status/actions.py): the evidence builder loads only for a walkthrough.
    from aidlc.gates.walkthrough import walkthrough_evidence

    assert target.bolt is not None
    evidence = walkthrough_evidence(bank, target.bolt, index=index, view=led)
    if evidence.missing:
        raise GateRefused(f"bolt {target.id}: the walkthrough's evidence is not complete: "
                          + "; ".join(evidence.missing),
                          [f"aidlc walkthrough {arg(target.id)}    # writes the report again, runs the checks it lacks",
                           "meet each missing item, then approve"])
    data["report"] = {"head": evidence.head, "sha256": evidence.digest}
    if evidence.risk not in (Risk.high, Risk.critical):
        return None
    data["approvals_required"] = 2
    named = target.bolt.meta.risk if target.bolt.meta else None
    level = f"{evidence.risk} risk" if named == evidence.risk else \
        (f"{evidence.risk} risk (its bolt.md says {named or 'none'}; its plan was approved or estimated at "
         f"{evidence.risk}, and a lowered risk keeps the approvals the higher one required)")
    first = led.history.latest(target.kind, target.id, "walkthrough")
    pending = first is not None and first.decision == Decision.approve and first.fingerprint is not None \
        and first.fingerprint.sha256 == judged and first.datum("approvals") == 1
    if pending and first is not None:
        if same_person(first.actor, actor.name, actor.email):
            raise GateRefused(f"bolt {target.id} is {level}: {actor.name} approved its walkthrough "
                              "already; a second, different person approves",
                              [f"another person: {gate_command(target.id, 'walkthrough')}"])
        data["approvals"] = 2
        data["with"] = first.hash
        return None
    data["approvals"] = 1
    return (f"bolt {target.id} is {level}: this first approval is recorded; the bolt completes when a "
            "second person approves the same walkthrough")


def _risks_judged(bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str) -> dict[str, Any]:
    """The risk a plan is decided under, kept in the decision so the ledger alone tells a bolt's highest approved
    risk (`approved_risks`): a bolt's plan gate records the bolt's risk, an intent's bolt-plan gate each bolt's."""
    if target.bolt is not None and stage == "plan":
        meta = target.bolt.meta
        return {"bolt_risk": str(meta.risk) if meta and meta.risk else None}
    if target.intent is not None and stage == INTENT_STAGES[-1]:
        return {"bolt_risks": {b.id: str(b.meta.risk) for b in intent_bolts(bank, index, target.intent)
                               if b.meta and b.meta.risk}}
    return {}


def _signer(repo: Path, rel: str, config: Config, actor: Actor) -> Signer | None:
    """With governance.require_signed_approvals, what signs the decision (refused now if it cannot be signed):
    a key allowed_signers lists, in the folder of the ledger (`rel`: the memory bank or the aidlc-docs folder)."""
    if not config.governance.require_signed_approvals:
        return None
    from aidlc.gates.signing import signer_for  # subprocess and friends: only where decisions are signed

    return signer_for(repo, rel, actor.email)


def _decided_on_other_branches(led: LedgerView, target: GateTarget, stage: str) -> list[str]:
    """The standing decisions of this gate the new one would not follow on its `prev` chain: made on a branch
    merged since. This person sees them (and `aidlc status` shows them) and decides after all of them."""
    tip = led.state.tip_line
    return [head.hash for head in led.history.heads(target.kind, target.id, stage)
            if not led.state.decisions.is_ancestor(head.line, tip)]
