"""Ledger rules: the chain is intact, and every completion or phase change is backed by the
gate decisions it needs, made by a person, on bytes that have not changed since.

A bank adopted from elsewhere has history from before its ledger: completions dated
before the `ledger.created` event are reported as unattested warnings, later ones as errors.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path
from typing import Any

from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, Intent
from aidlc.errors import UsageError
from aidlc.events.ledger import LEDGER_FILE, Ledger
from aidlc.events.verify import Verification, verify_lines
from aidlc.gates.catalogue import INTENT_STAGES, fingerprint, stages_for
from aidlc.gates.decide import resolve
from aidlc.gates.history import GateHistory
from aidlc.model.events import ActorKind
from aidlc.model.types import BoltStatus, Severity, StoryStatus
from aidlc.rules.catalogue import Hit, rule

E, W = Severity.error, Severity.warning


@dataclass
class LedgerView:
    ledger: Ledger
    verification: Verification
    history: GateHistory
    events: list[dict[str, Any]]

    @property
    def created(self) -> datetime | None:
        return _instant(self.history.created_ts)


@cache
def _view_cached(path: str, repo: str, mtime: float, size: int) -> LedgerView:
    ledger = Ledger(Path(path), Path(repo))
    events = list(ledger.events())
    return LedgerView(ledger, verify_lines(ledger.lines, stop_at_first=True), GateHistory.from_events(events),
                      events)


def view(index: BankIndex) -> LedgerView | None:
    bank = index.bank
    path = Path(bank.repo_root) / bank.rel_root / LEDGER_FILE
    if not path.is_file():
        return None
    stat = path.stat()
    return _view_cached(str(path), bank.repo_root, stat.st_mtime, stat.st_size)


def _instant(value: object) -> datetime | None:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return None


def _before_ledger(led: LedgerView, when: object) -> bool:
    """True when `when` predates the ledger: that completion could not have been recorded."""
    created, moment = led.created, _instant(when)
    return created is not None and moment is not None and moment < created


@rule("AIDLC-LEDGER-001", E, "ledger", "the ledger's hash chain is broken (edited, removed, reordered, "
      "duplicated or torn lines)",
      "restore memory-bank/events.jsonl from the last good commit; `aidlc log verify` names the first bad line")
def chain_intact(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is not None and led.verification.problems:
        problem = led.verification.problems[0]
        yield Hit(led.ledger.rel, problem.line, f"seq {problem.seq}: {problem.kind}: {problem.message}")


def _missing_bolt_gates(led: LedgerView, bolt: BoltItem) -> list[str]:
    return [stage for stage in stages_for(bolt) if not led.history.approved("bolt", bolt.id, stage)]


def _bolt_of(index: BankIndex, story: Any) -> BoltItem | None:
    for bolt in index.bank.bolts:
        if bolt.meta and isinstance(bolt.meta.stories, list):
            unit = index.unit(bolt.meta.unit)
            if any(index.story(name, unit) is story for name in bolt.meta.stories):
                return bolt
    assigned = story.meta.assigned_bolt if story.meta else None
    return index.bolt(assigned) if isinstance(assigned, str) else None


def _past_inception(index: BankIndex, intent: Intent) -> tuple[bool, object]:
    """(past inception?, when construction started if known)."""
    bolts = [b for b in index.bank.bolts if b.meta and index.intent(b.meta.intent) is intent
             and b.meta.status in (BoltStatus.in_progress, BoltStatus.complete)]
    starts = sorted(m for b in bolts if (m := _instant(b.meta.started if b.meta else None)) is not None)
    phase = intent.requirements_meta.phase if intent.requirements_meta else None
    return bool(bolts) or phase == "construction", starts[0] if starts else None


@dataclass(frozen=True)
class Claim:
    """A status that claims gates were passed, and the gates the ledger lacks for it."""

    code: str  # the error code when the claim postdates the ledger
    hit: Hit
    before_ledger: bool


def _claims(index: BankIndex, led: LedgerView) -> Iterator[Claim]:
    for bolt in index.bank.bolts:
        if bolt.meta is None or bolt.meta.status != BoltStatus.complete:
            continue
        missing = _missing_bolt_gates(led, bolt)
        if missing:
            yield Claim("AIDLC-LEDGER-002", Hit(
                bolt.rel, bolt.doc.line_of("status"),
                f"bolt {bolt.id} is complete but the ledger has no approved {', '.join(missing)} gate",
                f"aidlc gate approve {bolt.id} --stage {missing[0]}"), _before_ledger(led, bolt.meta.completed))
    for story in index.bank.stories:
        if story.meta is None or story.meta.status != StoryStatus.complete:
            continue
        bolt = _bolt_of(index, story)
        if bolt is not None and led.history.approved("bolt", bolt.id, "walkthrough"):
            continue
        when = bolt.meta.completed if bolt is not None and bolt.meta else None
        target = f"its bolt {bolt.id}" if bolt else "it (it is in no bolt)"
        fix = (f"aidlc gate approve {bolt.id} --stage walkthrough" if bolt else
               f"aidlc new bolt --unit {story.unit.id if story.unit else 'UNIT'} --stories {story.stem}")
        yield Claim("AIDLC-LEDGER-003", Hit(
            story.rel, story.doc.line_of("status"),
            f"story {story.id} is complete but no approved walkthrough covers {target}", fix),
            _before_ledger(led, when))
    for intent in index.bank.intents:
        past, since = _past_inception(index, intent)
        missing = [s for s in INTENT_STAGES if not led.history.approved("intent", intent.id, s)] if past else []
        if missing:
            doc = intent.requirements_doc
            yield Claim("AIDLC-LEDGER-004", Hit(
                doc.rel if doc else intent.rel, doc.line_of("phase") if doc else None,
                f"intent {intent.id} is in construction but the ledger has no approved {', '.join(missing)} gate",
                f"aidlc gate approve {intent.id} --stage {missing[0]}"), _before_ledger(led, since))


def _unbacked(index: BankIndex, code: str | None) -> Iterator[Hit]:
    """Claims for one error code made after the ledger existed, or (code None) unattested older ones."""
    led = view(index)
    if led is None:
        return
    for claim in _claims(index, led):
        if (code is None and claim.before_ledger) or (claim.code == code and not claim.before_ledger):
            yield claim.hit


@rule("AIDLC-LEDGER-002", E, "ledger", "a bolt is marked complete without approved gate decisions",
      "a person approves the missing gates: `aidlc gate approve BOLT --stage plan` / `--stage walkthrough`")
def complete_bolt_attested(index: BankIndex) -> Iterator[Hit]:
    yield from _unbacked(index, "AIDLC-LEDGER-002")


@rule("AIDLC-LEDGER-003", E, "ledger", "a story is marked complete but its bolt's walkthrough is not approved",
      "a person reviews the walkthrough: `aidlc gate approve BOLT --stage walkthrough`")
def complete_story_attested(index: BankIndex) -> Iterator[Hit]:
    yield from _unbacked(index, "AIDLC-LEDGER-003")


@rule("AIDLC-LEDGER-004", E, "ledger", "an intent is past inception without its approved inception gates",
      "a person approves each inception gate in order: requirements, units, stories, bolt-plan")
def inception_gates(index: BankIndex) -> Iterator[Hit]:
    yield from _unbacked(index, "AIDLC-LEDGER-004")


@rule("AIDLC-LEDGER-008", W, "ledger", "a completion predates the ledger, so no gate decision could record it "
      "(a bank adopted from elsewhere)",
      "nothing to do for history; from now on completions need gate decisions")
def unattested_history(index: BankIndex) -> Iterator[Hit]:
    for hit in _unbacked(index, None):
        yield Hit(hit.path, hit.line, f"unattested (before the ledger was created): {hit.message}",
                  "history before the ledger cannot be attested; nothing to fix")


@rule("AIDLC-LEDGER-005", E, "ledger", "an approval is stale: the artifact changed after it was approved",
      "a person reviews the change and decides again: `aidlc gate approve SUBJECT --stage STAGE`")
def approvals_current(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is None:
        return
    for (kind, subject_id, stage), decisions in led.history.decisions.items():
        last = decisions[-1]
        recorded = (last.get("fingerprint") or {}).get("sha256")
        if last.get("decision") != "approve" or not recorded or kind == "release":
            continue
        try:
            target = resolve(index.bank, index, f"{kind}:{subject_id}")
        except UsageError:  # a subject that no longer exists has nothing to go stale
            continue
        if stage not in target.stages:
            continue
        current = fingerprint(index.bank, index, target, stage)
        if current is None or current.sha256 != recorded:
            path = current.path if current else last["fingerprint"].get("path", led.ledger.rel)
            yield Hit(path, None, f"the {stage} approval of {kind} {subject_id} (seq {last.get('seq')}) is stale: "
                      f"{path} changed since", f"aidlc gate approve {subject_id} --stage {stage}")


@rule("AIDLC-LEDGER-006", E, "ledger", "a human checkpoint was decided by an agent or CI actor",
      "a person decides the gate again from their own shell; agent decisions do not count")
def human_deciders(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is None:
        return
    for line, event in enumerate(led.events, start=1):
        actor = event.get("actor") or {}
        if event.get("type") == "gate.decided" and actor.get("kind") != ActorKind.human:
            subject = event.get("subject") or {}
            yield Hit(led.ledger.rel, line, f"seq {event.get('seq')}: {subject.get('kind')} {subject.get('id')} "
                      f"{event.get('stage')} was decided by {actor.get('kind')} {actor.get('name')}")


@rule("AIDLC-LEDGER-007", W, "ledger", "no ledger: completions and phase changes are unattested",
      "run `aidlc init` to start the ledger; later completions then need gate decisions")
def ledger_exists(index: BankIndex) -> Iterator[Hit]:
    bank = index.bank
    if view(index) is not None:
        return
    done = [s for s in bank.stories if s.meta and s.meta.status == StoryStatus.complete]
    bolts = [b for b in bank.bolts if b.meta and b.meta.status == BoltStatus.complete]
    if done or bolts:
        yield Hit(f"{bank.rel_root}/{LEDGER_FILE}", None,
                  f"no ledger: {len(bolts)} complete bolts and {len(done)} complete stories have no recorded "
                  "gate decisions")
