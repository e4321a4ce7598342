"""Recording a human gate decision: checks, the ledger event, and the status change it implies.

Order of writes: the event first (the ledger is the record), then the artifact
files. The event carries the changes it implies (`data.effects`); if a crash
falls between the two, the next gate command applies them (`reconcile`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.bank.write import atomic_write, update_front_matter
from aidlc.errors import AidlcError, UsageError
from aidlc.events.ledger import Ledger, utc_now
from aidlc.gates.catalogue import (
    INTENT_STAGES,
    RELEASE_STAGES,
    GateTarget,
    fingerprint,
    judged_files,
    stages_for,
)
from aidlc.gates.history import GateHistory
from aidlc.model.events import Actor, ActorKind, Decision, EventType, Subject
from aidlc.model.types import StoryStatus

APPLIED_MARKER = Path(".aidlc") / "ledger-effects-applied"


class GateRefused(AidlcError):
    """The decision is not allowed now; nothing was recorded."""


@dataclass
class Recorded:
    event: dict[str, Any]
    changed: list[str] = field(default_factory=list)


def ledger_for(bank: MemoryBank) -> Ledger:
    repo = Path(bank.repo_root)
    return Ledger(repo / bank.rel_root / "events.jsonl", repo)


def resolve(bank: MemoryBank, index: BankIndex, subject: str) -> GateTarget:
    kind, _, name = subject.partition(":") if ":" in subject else ("", "", subject)
    if kind in ("", "bolt") and (bolt := index.bolt(name)) is not None:
        return GateTarget("bolt", bolt.id, stages_for(bolt), bolt=bolt)
    if kind in ("", "intent") and (intent := index.intent(name)) is not None:
        return GateTarget("intent", intent.id, INTENT_STAGES, intent=intent)
    if kind == "release":
        path = Path(bank.repo_root) / bank.rel_root / "operations" / "releases" / f"{name}.md"
        if path.is_file():
            return GateTarget("release", name, RELEASE_STAGES, release_file=path)
        raise UsageError(f"no release {name!r}: expected {path.relative_to(bank.repo_root).as_posix()}",
                         ["write the release note there, then decide its deploy gate"])
    raise UsageError(f"no intent or bolt named {subject!r}",
                     ["aidlc status    # the intents and bolts that exist",
                      "prefix the kind when a name is ambiguous: bolt:ID, intent:ID, release:ID"])


def decide(bank: MemoryBank, subject: str, stage: str, decision: Decision, reason: str | None,
           actor: Actor) -> Recorded:
    repo = Path(bank.repo_root)
    ledger = ledger_for(bank)
    if not ledger.exists():
        raise UsageError(f"no ledger at {ledger.rel}", [f"aidlc init {repo}    # creates it"])
    if actor.kind != ActorKind.human:
        raise GateRefused(f"{stage} is a human checkpoint; actor {actor.name} is {actor.kind}. "
                          "AI proposes, a human decides.",
                          ["a person runs this command from their own shell (AIDLC_ACTOR_KIND unset)"])
    index = BankIndex(bank)
    target = resolve(bank, index, subject)
    if stage not in target.stages:
        raise UsageError(f"{target.kind} {target.id} has no {stage!r} gate; its gates are {', '.join(target.stages)}")
    history = GateHistory.read(ledger)
    for earlier in target.stages[: target.stages.index(stage)]:
        last = history.latest(target.kind, target.id, earlier)
        if last is None or last.get("decision") != Decision.approve:
            state = f"was decided '{last['decision']}'" if last else "has no decision"
            raise GateRefused(f"{target.kind} {target.id}: the {earlier} gate {state}; "
                              f"the {stage} gate comes after it",
                              [f"aidlc gate approve {target.id} --stage {earlier}"])
    digest = fingerprint(bank, index, target, stage)
    if digest is None:
        label, _ = judged_files(bank, index, target, stage)
        raise GateRefused(f"nothing to judge for the {stage} gate: {label} does not exist",
                          [f"write {label}, then decide"])
    effects = _effects(bank, index, target, stage, decision)
    appended = ledger.append(
        EventType.gate_decided, actor,
        subject=Subject(kind=target.kind, id=target.id),  # type: ignore[arg-type]
        stage=stage, decision=decision, reason=reason, fingerprint=digest, commit=vcs.head_commit(repo),
        data={"effects": effects} if effects else None,
    )
    return Recorded(appended.event, apply_effects(repo, appended.event))


def _effects(bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str,
             decision: Decision) -> list[dict[str, Any]]:
    """The status changes a decision implies, as {path, set} records."""
    if decision != Decision.approve:
        return []
    now = utc_now().split(".")[0] + "Z"
    if target.kind == "bolt":
        assert target.bolt is not None and target.bolt.meta is not None
        bolt = target.bolt
        if stage == "plan" and bolt.meta.status == "planned":
            return [{"path": bolt.rel, "set": {"status": "in-progress", "started": now}}]
        if stage == "walkthrough":
            unit = index.unit(bolt.meta.unit)
            stories = [index.story(name, unit) for name in bolt.meta.stories or []]
            for story in stories:
                open_boxes = [c for c in (story.criteria if story else []) if c.checkbox and not c.checked]
                if story is not None and open_boxes:
                    raise GateRefused(
                        f"story {story.id} has {len(open_boxes)} unchecked acceptance boxes "
                        f"(first at {story.rel}:{open_boxes[0].line}); approving the walkthrough completes it",
                        [f"check each box the evidence supports in {story.rel}, then approve",
                         f"or: aidlc gate reject {bolt.id} --stage walkthrough --reason '...'"])
            effects = [{"path": bolt.rel, "set": {"status": "complete", "completed": now}}]
            effects += [{"path": s.rel, "set": {"status": StoryStatus.complete.value, "implemented": True}}
                        for s in stories if s is not None]
            return effects
    if target.kind == "intent" and stage == "bolt-plan":
        assert target.intent is not None and target.intent.requirements_doc is not None
        return [{"path": target.intent.requirements_doc.rel, "set": {"phase": "construction"}}]
    return []


def apply_effects(repo: Path, event: dict[str, Any]) -> list[str]:
    changed = []
    for effect in (event.get("data") or {}).get("effects", []):
        path = repo / effect["path"]
        if path.is_file():
            update_front_matter(path, effect["set"], repo)
            changed.append(effect["path"])
    atomic_write(repo / APPLIED_MARKER, event["id"] + "\n", repo)
    return changed


def reconcile(bank: MemoryBank) -> list[str]:
    """Apply the effects of the last gate event if a crash stopped them (see module docstring)."""
    repo = Path(bank.repo_root)
    ledger = ledger_for(bank)
    if not ledger.exists():
        return []
    last = ledger.last_event()
    marker = repo / APPLIED_MARKER
    done = marker.read_text(encoding="utf-8").strip() if marker.exists() else None
    if last is None or last.get("type") != EventType.gate_decided or last["id"] == done:
        return []
    return apply_effects(repo, last)
