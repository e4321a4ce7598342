"""Ledger rules: the chain is intact, and every completion or phase change is backed by the
gate decisions it needs, made by a person, on bytes that have not changed since.

A bank adopted from elsewhere has history from before its ledger: completions dated
before the `ledger.created` event are reported as unattested warnings, later ones as errors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, Intent
from aidlc.errors import UsageError
from aidlc.events.ledger import LEDGER_FILE, Ledger, event_of
from aidlc.events.verify import Verification, verify_lines
from aidlc.gates.catalogue import INTENT_STAGES, GateTarget, fingerprint, judged_digests, stages_for
from aidlc.gates.decide import resolve
from aidlc.gates.history import GateHistory
from aidlc.model.events import ActorKind, FileDigest
from aidlc.model.types import BoltStatus, Severity, StoryStatus, instant
from aidlc.rules.catalogue import Hit, rule

E, W = Severity.error, Severity.warning


@dataclass
class LedgerView:
    ledger: Ledger
    verification: Verification
    history: GateHistory
    events: list[tuple[int, dict[str, Any]]]  # (line in the file, event): damaged lines are left out

    @property
    def created(self) -> datetime | None:
        return instant(self.history.created_ts)


# The rules of one run share one view. Keyed by the file's bytes, not its mtime: an edit within the
# file system's clock tick that keeps the size would otherwise be served the old view.
_VIEWS: dict[tuple[str, str, str], LedgerView] = {}


def view(index: BankIndex) -> LedgerView | None:
    bank = index.bank
    path = Path(bank.repo_root) / bank.rel_root / LEDGER_FILE
    if not path.is_file():
        return None
    data = path.read_bytes()
    key = (str(path), bank.repo_root, hashlib.sha256(data).hexdigest())
    if key not in _VIEWS:
        _VIEWS.clear()
        _VIEWS[key] = _build_view(Ledger(path, Path(bank.repo_root)), data)
    return _VIEWS[key]


def _build_view(ledger: Ledger, data: bytes) -> LedgerView:
    lines = [line + b"\n" for line in data.split(b"\n")]  # split as the file reads: at b"\n" only
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    events = [(number, event) for number, line in enumerate(lines, start=1) if (event := event_of(line)) is not None]
    return LedgerView(ledger, verify_lines(lambda: iter(lines), stop_at_first=True),
                      GateHistory.from_events(e for _, e in events), events)


def _before_ledger(led: LedgerView, when: object) -> bool:
    """True when `when` predates the ledger: that completion could not have been recorded."""
    created, moment = led.created, instant(when)
    # Status timestamps are written to the second; the ledger's to the microsecond. A bolt started in the
    # second the ledger was created does not predate it.
    return created is not None and moment is not None and moment < created.replace(microsecond=0)


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


def _bolts_of_stories(index: BankIndex) -> dict[int, BoltItem]:
    """The first bolt that includes each story (by id() of the story), built once per run of the claims."""
    found: dict[int, BoltItem] = {}
    for bolt in index.bank.bolts:
        if bolt.meta and isinstance(bolt.meta.stories, list):
            unit = index.unit(bolt.meta.unit)
            for name in bolt.meta.stories:
                story = index.story(name, unit)
                if story is not None:
                    found.setdefault(id(story), bolt)
    return found


def _bolt_of(index: BankIndex, story: Any, bolts_of: dict[int, BoltItem]) -> BoltItem | None:
    if id(story) in bolts_of:
        return bolts_of[id(story)]
    assigned = story.meta.assigned_bolt if story.meta else None
    return index.bolt(assigned) if isinstance(assigned, str) else None


def _past_inception(index: BankIndex, intent: Intent) -> tuple[bool, object]:
    """(past inception?, when construction started if known)."""
    bolts = [b for b in index.bank.bolts if b.meta and index.intent(b.meta.intent) is intent
             and b.meta.status in (BoltStatus.in_progress, BoltStatus.complete)]
    starts = sorted(m for b in bolts if (m := instant(b.meta.started if b.meta else None)) is not None)
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
    bolts_of = _bolts_of_stories(index)
    for story in index.bank.stories:
        if story.meta is None or story.meta.status != StoryStatus.complete:
            continue
        bolt = _bolt_of(index, story, bolts_of)
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
            path, change = _what_changed(index, target, stage, last, current)
            yield Hit(path, None, f"the {stage} approval of {kind} {subject_id} (seq {last.get('seq')}) is stale: "
                      f"{path} {change} since", f"aidlc gate approve {subject_id} --stage {stage}")


def _what_changed(index: BankIndex, target: GateTarget, stage: str, last: dict[str, Any],
                  current: FileDigest | None) -> tuple[str, str]:
    """(path, how) of the first judged file that differs from what was approved.

    A decision on several files records each file's digest (`data.judged`); without it, the
    finding names the whole set (its label) or the one file.
    """
    judged = (last.get("data") or {}).get("judged")
    recorded = {d["path"]: d.get("sha256") for d in judged if isinstance(d, dict) and isinstance(d.get("path"), str)
                } if isinstance(judged, list) else {}
    if recorded:
        now = {d.path: d.sha256 for d in judged_digests(index.bank, index, target, stage)}
        for path in sorted(set(recorded) | set(now)):
            if path not in now:
                return path, "was removed"
            if path not in recorded:
                return path, "was added"
            if now[path] != recorded[path]:
                return path, "changed"
    if current is None:
        return str((last.get("fingerprint") or {}).get("path")), "was removed"
    return current.path, "changed"


@rule("AIDLC-LEDGER-006", E, "ledger", "a human checkpoint was decided by an agent or CI actor",
      "a person decides the gate again from their own shell; agent decisions do not count")
def human_deciders(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is None:
        return
    for line, event in led.events:
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
