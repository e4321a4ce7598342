"""Recording a human gate decision: checks, the ledger event, and the status change it implies.

Order of writes: a pending note in .aidlc/ naming the decision's idempotency key,
then the event (the ledger is the record), then the artifact files, then the note
is removed. The event carries the changes it implies (`data.effects`); if a crash
falls anywhere in between, the next gate command finds the note and applies the
recorded event's changes (`reconcile`). Without a note nothing is re-applied, so a
fresh clone never overwrites a person's later edits with an old decision.

A project in the aidlc-docs layout (`decide_docs`) has the same checks and the same record, and no status
changes: its files are the agent's to write (aidlc-state.md, audit.md), the ledger is the person's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.aidlc_docs.model import DocsProject, RecordsWorkspace
from aidlc.bank import frontmatter
from aidlc.bank.index import BankIndex
from aidlc.bank.items import STATEMENT_PLACEHOLDER, BoltItem, Intent, MemoryBank
from aidlc.bank.write import atomic_write, set_front_matter, update_front_matter, yaml_scalar
from aidlc.errors import AidlcError, UsageError
from aidlc.events.ledger import Ledger, Signer, new_event_id, no_ledger, utc_now
from aidlc.events.verify import ProblemKind
from aidlc.events.view import GateHistory, LedgerView, open_view
from aidlc.gates.actor import bot_identity, same_person
from aidlc.gates.catalogue import (
    DOCS_ALWAYS,
    DOCS_PHASE_STAGES,
    DOCS_UNIT_STAGES,
    INTENT_STAGES,
    POLICY_STAGES,
    RELEASE_STAGES,
    GateTarget,
    combine,
    docs_judged_files,
    docs_skipped,
    docs_targets,
    intent_bolts,
    judged_digests,
    judged_files,
    record_earlier,
    record_judged_files,
    record_targets,
    refused,
    stages_for,
)
from aidlc.gates.history import approvals_short, standing
from aidlc.model.config import Config
from aidlc.model.events import Actor, ActorKind, Decision, Event, EventType, FileDigest, Subject
from aidlc.model.types import Risk, StoryStatus
from aidlc.processes import run_ancestor

PENDING_NOTE = Path(".aidlc") / "gate-pending"


class GateRefused(AidlcError):
    """The decision is not allowed now; nothing was recorded."""


@dataclass
class Recorded:
    event: Event
    changed: list[str] = field(default_factory=list)
    recovered: str | None = None  # a torn last line found on the way, moved aside to this file (repo-relative)
    completed: bool = False  # the ledger's last line lacked its newline, and got it
    waiting: str | None = None  # recorded, but the gate waits for another person (two-person rule)


def resolve(bank: MemoryBank, index: BankIndex, subject: str, stage: str | None = None) -> GateTarget:
    """The subject a name means; when an intent and a bolt share it, the stage tells them apart."""
    kind, _, name = subject.partition(":") if ":" in subject else ("", "", subject)
    if kind == "release":
        return _release(bank, name)
    if subject in ("policy", "policy:rules"):
        return GateTarget("policy", "rules", POLICY_STAGES)
    candidates = []
    # Named as `aidlc new` names them: `001`, the slug or the full name.
    if kind in ("", "bolt") and (bolt := index.bolt_named(name)) is not None:
        candidates.append(GateTarget("bolt", bolt.id, stages_for(bolt), bolt=bolt))
    if kind in ("", "intent") and (intent := index.intent_named(name)) is not None:
        candidates.append(GateTarget("intent", intent.id, INTENT_STAGES, intent=intent))
    if not candidates:
        kinds = {"bolt": "bolt", "intent": "intent"}.get(kind, "intent or bolt")
        existing = [f"intent {i.id}" for i in bank.intents if kind in ("", "intent")] + \
                   [f"bolt {b.id}" for b in bank.bolts if kind in ("", "bolt")]
        raise UsageError(f"no {kinds} named {subject!r}; there are: {', '.join(existing[:12]) or 'none'}"
                         + (f" and {len(existing) - 12} more" if len(existing) > 12 else ""),
                         ["aidlc status    # the intents and bolts that exist",
                          "name one by its number (001), its name (checkout) or its folder (001-checkout); "
                          "prefix the kind when a name is both: bolt:ID, intent:ID, release:ID"])
    fitting = [t for t in candidates if stage is None or stage in t.stages]
    if len(candidates) > 1 and not fitting:
        gates = "; ".join(f"{t.kind} {t.id}: {', '.join(t.stages)}" for t in candidates)
        raise UsageError(f"{subject!r} names an intent and a bolt, and neither has a {stage!r} gate ({gates})",
                         [f"aidlc gate ... intent:{name} --stage STAGE    # or bolt:{name}"])
    return (fitting or candidates)[0]


def _release(bank: MemoryBank, name: str) -> GateTarget:
    path = Path(bank.repo_root) / bank.rel_root / "operations" / "releases" / f"{name}.md"
    if not name or name.startswith(".") or "/" in name or "\\" in name:  # a name, not a path out of releases/
        raise UsageError(f"release:{name}: a release is named by its file in "
                         f"{bank.rel_root}/operations/releases/, without folders")
    if path.is_file():
        return GateTarget("release", name, RELEASE_STAGES, release_file=path)
    raise UsageError(f"no release {name!r}: expected {path.relative_to(bank.repo_root).as_posix()}",
                     ["write the release note there, then decide its deploy gate"])


def resolve_docs(project: DocsProject, subject: str, stage: str) -> GateTarget:
    """The subject of an aidlc-docs project a name means: `inception`, `construction` (build and test) or a unit's
    folder under construction/; refused with the subjects and stages there are when it has no such gate."""
    targets = {target.id: target for target in reversed(docs_targets(project))}  # a phase wins over a unit
    target = targets.get(subject)
    if target is None:
        raise UsageError(f"no subject {subject!r} in {project.rel}: the subjects are inception, "
                         f"{''.join(f'{unit}, ' for unit in project.units)}construction (build and test); a unit is "
                         f"a folder under {project.rel}/construction/",
                         [f"aidlc gate approve inception --stage {DOCS_PHASE_STAGES['inception'][1]}",
                          f"aidlc gate approve UNIT --stage {DOCS_UNIT_STAGES[0]}"])
    if stage not in target.stages:
        owner = ("a unit's (SUBJECT: its folder under construction/)" if stage in DOCS_UNIT_STAGES else
                 next((f"the {phase}'s" for phase, stages in DOCS_PHASE_STAGES.items() if stage in stages), None))
        known = f"; {stage} is {owner} gate" if owner else ""
        raise UsageError(f"{target.kind} {target.id} has no {stage!r} gate; its gates are "
                         f"{', '.join(target.stages)}{known}",
                         [f"aidlc gate approve {target.id} --stage {target.stages[0]}"])
    return target


def resolve_record(workspace: RecordsWorkspace, subject: str, stage: str) -> GateTarget:
    """The subject of a v2 workspace a name means: `[SPACE/]INTENT` (an intent record's folder name) or
    `[SPACE/]INTENT/UNIT` (a unit folder under its construction/); refused with the subjects there are when it names
    none, or more than one, or has no such gate."""
    targets = [target for record in workspace.records if record.record is not None
               for target in record_targets(record)]
    found = [t for t in targets if t.id == subject or t.id.split("/", 1)[1] == subject]
    listed = ", ".join(t.id for t in targets) or "none"
    if len(found) != 1:
        problem = f"{subject!r} names {len(found)} of them" if found else f"no subject {subject!r}"
        raise UsageError(f"{problem} in {workspace.rel}/: the subjects are an intent record, [SPACE/]INTENT, or one "
                         f"of its units, [SPACE/]INTENT/UNIT: {listed}",
                         [f"aidlc gate approve {targets[0].id} --stage {targets[0].stages[0]}" if targets and
                          targets[0].stages else "aidlc status    # the records, their stages and units"])
    target = found[0]
    if stage not in target.stages:
        raise UsageError(f"{target.kind} {target.id} has no {stage!r} gate; its gates are "
                         f"{', '.join(target.stages) or 'none (no stage row past initialization)'}",
                         [f"aidlc gate approve {target.id} --stage {target.stages[0]}" if target.stages else
                          "aidlc status    # the record's stage rows"])
    return target


def decide_docs(target: GateTarget, folder: str, config: Config, subject: str, stage: str, decision: Decision,
                reason: str | None, actor: Actor, *, head: str | None = None) -> Recorded:
    """Record a person's decision on a stage of an aidlc-docs subject (`resolve_docs`, or on v2 records
    `resolve_record`), in the ledger of `folder` (aidlc.workspace.records_folder): the same checks as `decide` (a
    person, not a bot, signed where required, the earlier stages first, bound to the bytes judged), nothing else
    written. Approvals audit.md or v2's shards record stay history: none is read as a decision."""
    _refuse_below_a_check(subject, stage, decision)
    assert target.docs is not None
    repo = Path(target.docs.root)
    ledger = Ledger.of_bank(repo, folder)
    if not ledger.exists():
        raise no_ledger(ledger)
    if actor.kind != ActorKind.human:
        raise _not_a_person(subject, stage, decision, actor)
    _refuse_bot(config.governance.bot_emails, stage, actor)
    sign = _signer(repo, folder, config, actor)
    led = open_view(ledger, keep=True)
    _check_intact(led)
    judged, digest, _ = _judge(None, None, led.history, target, stage, decision, subject)
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
    return Recorded(appended.event, [], recovered, appended.completed)


def decide(bank: MemoryBank, subject: str, stage: str, decision: Decision, reason: str | None,
           actor: Actor, *, policy_risk: Risk | None = None, head: str | None = None) -> Recorded:
    """Record a person's decision; or, with a `policy` actor, a plan approval policy.auto_approve_plan allows
    for `policy_risk` (low or medium only). `head`: HEAD's commit when the caller knows it (a bolt run checks
    it before every step), else it is asked of git."""
    _refuse_below_a_check(subject, stage, decision)
    repo = Path(bank.repo_root)
    ledger = Ledger.of_bank(repo, bank.rel_root)
    if not ledger.exists():
        raise no_ledger(ledger)
    if actor.kind == ActorKind.policy:
        _check_policy(bank, stage, decision, policy_risk)
        sign = None
    elif actor.kind != ActorKind.human:
        raise _not_a_person(subject, stage, decision, actor)
    else:
        _refuse_bot(bank.config.governance.bot_emails, stage, actor)
        sign = _signer(Path(bank.repo_root), bank.rel_root, bank.config, actor)
    index = BankIndex(bank)
    target = resolve(bank, index, subject, stage)
    if stage not in target.stages:
        raise UsageError(f"{target.kind} {target.id} has no {stage!r} gate; its gates are {', '.join(target.stages)}")
    led = open_view(ledger, keep=True)  # a decision writes anyway: what it reads in full is kept for the next
    _check_intact(led)
    judged, digest, effects = _judge(bank, index, led.history, target, stage, decision, subject)
    data: dict[str, Any] = {}
    waiting = None
    if target.kind == "bolt" and stage == "walkthrough" and decision == Decision.approve \
            and actor.kind == ActorKind.human and target.bolt is not None:
        waiting = _walkthrough_evidence(bank, led.history, target, actor, digest.sha256, data)
        effects = [] if waiting else effects
    if effects:
        data["effects"] = effects
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
    return Recorded(appended.event, apply_effects(repo, appended.event), recovered, appended.completed, waiting)


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
           stage: str, decision: Decision, subject: str) -> tuple[list[FileDigest], FileDigest, list[dict[str, Any]]]:
    """The checks of the subject a decision passes first; the digests it judges and the changes it implies
    (an aidlc-docs subject has no bank, and no changes: None)."""
    if target.docs is not None:
        repo = Path(target.docs.root)
        _check_docs_order(history, target, stage)
    else:
        assert bank is not None and index is not None
        repo = Path(bank.repo_root)
        _check_open(history, target)
        _check_order(bank, history, index, target, stage)
    if target.kind == "policy":
        return [], _rules_digest(repo), []
    label, files = judged_files(bank, index, target, stage)
    if not_read := refused(repo, files):
        raise GateRefused(f"the {stage} gate judges files aidlc does not read: {'; '.join(not_read)}",
                          ["replace each with the file itself, inside the repository, then decide",
                           "aidlc validate    # AIDLC-FILE-007/008 name them too"])
    if target.intent is not None and stage == "requirements" and decision == Decision.approve:
        _check_requirements_written(target.intent)
    judged = judged_digests(bank, index, target, stage)
    digest = combine(label, judged)
    if digest is None:
        steps = [f"write {label}, then: aidlc gate {decision.value} {subject} --stage {stage}"]
        if target.kind == "bolt" and stage == "plan":
            steps[:0] = [f"aidlc bolt start {target.id}    # the model writes the plan, then waits for a person",
                         f"aidlc new plan {target.id}    # or its template, for you to write"]
        raise GateRefused(f"nothing to judge for the {stage} gate: {label} does not exist", steps)
    effects = _effects(bank, index, target, stage, decision) if bank is not None and index is not None else []
    _check_writable(repo, effects)
    return judged, digest, effects


def _rules_digest(repo: Path) -> FileDigest:
    """The rule files as the work tree holds them: what an approval of a change of the rules binds to."""
    # Only a decision on the rules' change reads the rule files.
    from aidlc.bank import rulefiles

    top = vcs.repo_root(repo) or repo
    return FileDigest(path="rules", sha256=rulefiles.fingerprint(rulefiles.work_tree(repo, top)))


def _walkthrough_evidence(bank: MemoryBank, history: GateHistory, target: GateTarget, actor: Actor, judged: str,
                          data: dict[str, Any]) -> str | None:
    """Refuse the approval while the evidence report is missing, older than the bolt's head or its verification
    unmet; bind it to the report's digest. High and critical risk need two distinct people: the first approval
    is recorded and the gate waits (returned: why)."""
    # validate imports this module (rules/ledger.py): the evidence builder loads only for a walkthrough.
    from aidlc.gates.walkthrough import walkthrough_evidence

    assert target.bolt is not None
    evidence = walkthrough_evidence(bank, target.bolt)
    if evidence.missing:
        raise GateRefused(f"bolt {target.id}: the walkthrough's evidence is not complete: "
                          + "; ".join(evidence.missing),
                          [f"aidlc walkthrough {target.id}    # writes the report again, runs the checks it lacks",
                           "meet each missing item, then approve"])
    data["report"] = {"head": evidence.head, "sha256": evidence.digest}
    if evidence.risk not in (Risk.high, Risk.critical):
        return None
    data["approvals_required"] = 2
    named = target.bolt.meta.risk if target.bolt.meta else None
    level = f"{evidence.risk} risk" if named == evidence.risk else \
        (f"{evidence.risk} risk (its bolt.md says {named or 'none'}; its plan was approved or estimated at "
         f"{evidence.risk}, and a lowered risk keeps the approvals the higher one required)")
    first = history.latest(target.kind, target.id, "walkthrough")
    pending = first is not None and first.decision == Decision.approve and first.fingerprint is not None \
        and first.fingerprint.sha256 == judged and first.datum("approvals") == 1
    if pending and first is not None:
        if same_person(first.actor, actor.name, actor.email):
            raise GateRefused(f"bolt {target.id} is {level}: {actor.name} approved its walkthrough "
                              "already; a second, different person approves",
                              [f"another person: aidlc gate approve {target.id} --stage walkthrough"])
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


def _check_policy(bank: MemoryBank, stage: str, decision: Decision, risk: Risk | None) -> None:
    allowed = bank.config.policy.auto_approve_plan
    if stage != "plan" or decision != Decision.approve or risk not in (Risk.low, Risk.medium) or risk not in allowed:
        raise GateRefused(f"policy.auto_approve_plan ({', '.join(allowed) or 'empty'}) cannot decide the {stage} "
                          f"gate ({decision.value}, risk {risk or 'unknown'}): only plan approvals of low or medium "
                          "risk it lists", ["a person decides: aidlc gate approve BOLT --stage plan"])


def _check_requirements_written(intent: Intent) -> None:
    """An approval of requirements needs a requirement to approve (a file still as `aidlc new intent` wrote
    it, placeholder statement and no requirement, has none)."""
    if intent.requirements:
        return
    doc = intent.requirements_doc
    rel = doc.rel if doc is not None else f"{intent.rel}/requirements.md"
    what = ("is still the template: its statement is the placeholder and it defines no requirement"
            if doc is not None and STATEMENT_PLACEHOLDER in doc.body
            else "defines no requirement (no `### FR-n:` or `### NFR-n:` heading)")
    raise GateRefused(f"intent {intent.id} has nothing to approve at its requirements gate: {rel} {what}",
                      [f'aidlc new requirement "TITLE" --intent {intent.id} --priority must --criterion '
                       '"**Given** ..., **When** ..., **Then** ..."',
                       f"aidlc draft requirements {intent.id}    # or have the model propose them"])


def _not_a_person(subject: str, stage: str, decision: Decision, actor: Actor) -> GateRefused:
    """The refusal of an agent or a CI run, shown as what it is (not under the git name it runs with)."""
    command = f"aidlc gate {decision.value} {subject} --stage {stage}"
    if actor.kind == ActorKind.ci:
        return GateRefused(f"{stage} is a human checkpoint, and CI cannot decide one: this run is CI (CI is set). "
                           "A person decides; CI then checks the decision.",
                           [f"{command}    # a person, from their own shell, then push the ledger"])
    return GateRefused(f"{stage} is a human checkpoint, and this command runs as an agent, whatever name git "
                       f"gives: its actor kind (AIDLC_ACTOR_KIND) is {actor.kind}. AI proposes, a human decides.",
                       [f"{command}    # a person, from their own shell"])


def _refuse_below_a_check(subject: str, stage: str, decision: Decision) -> None:
    """Code a bolt run's checks execute (the tests a model wrote) runs as the person, with their git identity:
    a decision from a process started below a check, however it left the check, is that code's, not theirs."""
    why = run_ancestor()
    if why is not None:
        raise GateRefused(f"{stage} is a human checkpoint, and this command was started by code a bolt run's check "
                          f"executes ({why}): a check cannot decide a gate, nothing was recorded",
                          [f"aidlc gate {decision.value} {subject} --stage {stage}    # typed by you, in your own "
                           "terminal"])


def _refuse_bot(bot_emails: list[str], stage: str, actor: Actor) -> None:
    """A human decision names a person: a bot's identity is an agent's, also when given through --as."""
    why = bot_identity(actor.name, actor.email, bot_emails)
    if why is not None:
        raise GateRefused(f"{stage} is a human checkpoint, and {actor.name} <{actor.email or ''}> is a bot ({why}). "
                          "A bot proposes, a person decides.",
                          ["a person decides with their own identity: git config user.name \"Your Name\" && "
                           "git config user.email you@example.org", 'or: --as "Your Name <you@example.org>"'])


def _signer(repo: Path, rel: str, config: Config, actor: Actor) -> Signer | None:
    """With governance.require_signed_approvals, what signs the decision (refused now if it cannot be signed):
    a key allowed_signers lists, in the folder of the ledger (`rel`: the memory bank or the aidlc-docs folder)."""
    if not config.governance.require_signed_approvals:
        return None
    from aidlc.gates.signing import signer_for  # subprocess and friends: only where decisions are signed

    return signer_for(repo, rel, actor.email)


def _check_intact(led: LedgerView) -> None:
    """The order check trusts the recorded decisions, so they must be the ones the chain vouches for.

    A torn last line is no reason to refuse: the append moves it aside (docs/design.md, The ledger).
    """
    problem, ledger = led.first_error, led.ledger
    if problem is not None and problem.kind != ProblemKind.torn:
        raise GateRefused(f"the ledger is damaged at {ledger.rel}:{problem.line} ({problem.kind}: {problem.message}); "
                          "no decision is chained onto it",
                          ["aidlc log verify    # names the first bad line",
                           f"restore {ledger.rel} from the last good commit, then decide again"])


def _decided_on_other_branches(led: LedgerView, target: GateTarget, stage: str) -> list[str]:
    """The standing decisions of this gate the new one would not follow on its `prev` chain: made on a branch
    merged since. This person sees them (and `aidlc status` shows them) and decides after all of them."""
    tip = led.state.tip_line
    return [head.hash for head in led.history.heads(target.kind, target.id, stage)
            if not led.state.decisions.is_ancestor(head.line, tip)]


def _check_open(history: GateHistory, target: GateTarget) -> None:
    """A bolt whose walkthrough approval completed it is closed: a second decision of any of its gates would
    contradict the completion the ledger and its files record. (A high-risk bolt waiting for its second
    approver is not complete yet.)"""
    if target.kind != "bolt":
        return
    last = history.latest("bolt", target.id, "walkthrough")
    if last is None or last.decision != Decision.approve:
        return
    if approvals_short(last):
        return
    who = last.actor.name or "a person"
    unit = target.bolt.meta.unit if target.bolt is not None and target.bolt.meta is not None else "UNIT"
    raise GateRefused(f"bolt {target.id} is complete: {who} approved its walkthrough (ledger seq {last.seq}, "
                      f"{last.ts[:10]}); the gates of a completed bolt take no second decision",
                      [f"aidlc new bolt --unit {unit} --stories STORIES    # further work is a new bolt",
                       "aidlc status    # what is open"])


def _check_order(bank: MemoryBank, history: GateHistory, index: BankIndex, target: GateTarget, stage: str) -> None:
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
                     stage: str, why: str) -> None:
    state = standing(history, bank, index, target, stage)
    if state is not None:
        steps = [f"aidlc gate approve {target.id} --stage {stage}"]
        if target.docs is not None and target.docs.state is not None and stage not in DOCS_ALWAYS \
                and history.latest(target.kind, target.id, stage) is None:
            steps.append(f"or, if the project skips {stage}, mark it SKIP in {target.docs.state.path}")
        raise GateRefused(f"{target.kind} {target.id}: the {stage} gate {state}; {why}", steps)


def _check_docs_order(history: GateHistory, target: GateTarget, stage: str) -> None:
    """An aidlc-docs stage waits for the earlier stages of its subject; a unit's stages wait for the inception,
    build and test for every unit's code generation (core-workflow.md's order). A stage aidlc-state.md marks
    skipped is not waited for, nor a conditional one that has written nothing (it did not run)."""
    assert target.docs is not None
    if target.docs.record is not None:  # v2: the order of its state rows; a stage that wrote nothing did not run
        for subject, before in record_earlier(target, stage):
            if record_judged_files(subject, before)[1]:
                where = "" if subject is target else f" of {target.kind} {target.id}"
                _require_current(None, history, None, subject, before, f"the {stage} gate{where} comes after it")
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
        _require_current(None, history, None, subject, before, f"the {stage} gate{where} comes after it")


def _effects(bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str,
             decision: Decision) -> list[dict[str, Any]]:
    """The status changes a decision implies, as {path, set} records."""
    if decision != Decision.approve:
        return []
    if target.kind == "bolt" and target.bolt is not None:
        return _bolt_effects(index, target.bolt, stage)
    if target.kind == "intent" and stage == INTENT_STAGES[-1] and target.intent is not None:
        doc = target.intent.requirements_doc
        return [{"path": doc.rel, "set": {"phase": "construction"}}] if doc is not None else []
    return []


def _bolt_effects(index: BankIndex, bolt: BoltItem, stage: str) -> list[dict[str, Any]]:
    if stage not in ("plan", "walkthrough"):
        return []
    if bolt.meta is None:
        raise GateRefused(f"cannot read the front matter of {bolt.rel}, and approving the {stage} changes its status",
                          [f"aidlc validate    # shows what is wrong with {bolt.rel}"])
    now = utc_now().split(".")[0] + "Z"
    if stage == "plan":
        return [{"path": bolt.rel, "set": {"status": "in-progress", "started": now}}] \
            if bolt.meta.status == "planned" else []
    unit = index.unit(bolt.meta.unit)
    stories = [s for name in bolt.meta.stories or [] if (s := index.story(name, unit)) is not None]
    for story in stories:
        open_boxes = [c for c in story.criteria if c.checkbox and not c.checked]
        if open_boxes:
            raise GateRefused(
                f"story {story.id} has {len(open_boxes)} unchecked acceptance boxes "
                f"(first at {story.rel}:{open_boxes[0].line}); approving the walkthrough completes it",
                [f"check each box the evidence supports in {story.rel}, then approve",
                 f"or: aidlc gate reject {bolt.id} --stage walkthrough --reason '...'"])
    effects = [{"path": bolt.rel, "set": {"status": "complete", "completed": now}}]
    return effects + [{"path": s.rel, "set": {"status": StoryStatus.complete.value, "implemented": True}}
                      for s in stories]


def _check_writable(repo: Path, effects: list[dict[str, Any]]) -> None:
    """Dry-run every file change before the event is appended: the record must not claim what cannot be written."""
    for effect in effects:
        path = repo / effect["path"]
        try:
            set_front_matter(path.read_bytes().decode("utf-8"), effect["set"], path.name)
        except (OSError, UnicodeDecodeError, AidlcError) as exc:
            reason = exc.message if isinstance(exc, AidlcError) else str(exc)
            raise GateRefused(f"{effect['path']} cannot take the status change this decision implies: {reason}",
                              [f"aidlc validate    # shows what is wrong with {effect['path']}", "fix it, then decide"]
                              ) from None


def apply_effects(repo: Path, event: Event) -> list[str]:
    """Set the keys an event implies where the file differs; mark the event applied. Returns the changed files."""
    changed = []
    for effect in event.datum("effects") or []:
        path = repo / effect["path"]
        if not path.is_file():
            continue
        pending = _differing(path, effect["set"])
        if pending:
            update_front_matter(path, pending, repo)
            changed.append(effect["path"])
    (repo / PENDING_NOTE).unlink(missing_ok=True)
    return changed


def _differing(path: Path, wanted: dict[str, Any]) -> dict[str, Any]:
    """The keys whose value in the file is not yet the one wanted (compared as written YAML)."""
    meta = frontmatter.split(path.read_bytes().decode("utf-8", errors="replace"), path.name).meta or {}
    return {k: v for k, v in wanted.items() if k not in meta or yaml_scalar(meta[k]) != yaml_scalar(v)}


def reconcile(bank: MemoryBank) -> list[str]:
    """Finish a decision a crash interrupted (see module docstring); returns the files changed."""
    repo = Path(bank.repo_root)
    note = repo / PENDING_NOTE
    if not note.is_file():
        return []
    key = note.read_text(encoding="utf-8").strip()
    event = Ledger.of_bank(repo, bank.rel_root).find_key(key) if key else None
    if event is None:  # the crash came before the append: nothing was decided
        note.unlink(missing_ok=True)
        return []
    return apply_effects(repo, event)
