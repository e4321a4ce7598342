"""Completion claims: every completion or phase change is backed by the gate decisions it needs.

A bank adopted from elsewhere has history from before its ledger: completions dated
before the `ledger.created` event are reported as unattested warnings, later ones as errors.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, Intent
from aidlc.events.ledger import LEDGER_FILE
from aidlc.gates.catalogue import INTENT_STAGES, stages_for
from aidlc.model.types import BoltStatus, Severity, StoryStatus, instant
from aidlc.rules.catalogue import Hit, rule
from aidlc.rules.ledger import LedgerView, view

E, W = Severity.error, Severity.warning


def _before_ledger(led: LedgerView, when: object) -> bool:
    """True when `when` predates the ledger: that completion could not have been recorded."""
    created, moment = led.created, instant(when)
    # Status timestamps are written to the second; the ledger's to the microsecond. A bolt started in the
    # second the ledger was created does not predate it.
    return created is not None and moment is not None and moment < created.replace(microsecond=0)


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
