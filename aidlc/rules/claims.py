"""Completion claims: every completion or phase change is backed by the gate decisions it needs.

A bank adopted from elsewhere has history from before its ledger, and git, not the bank's own dates,
says which: a completion that the last commit before the ledger already shows, in a file unchanged since,
is an unattested warning (AIDLC-LEDGER-008); any other completion without its decisions is an error, which
says what git shows instead (aidlc/rules/evidence.py). A bank that never had a ledger gets one warning
(AIDLC-LEDGER-007); a ledger that git holds but the work tree lacks is an error (AIDLC-LEDGER-013).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, Intent, StoryItem, status_word
from aidlc.bank.walk import LEDGER_FILE
from aidlc.events.lost import lost_ledger
from aidlc.events.place import ledger_path, ledger_rel, something_at
from aidlc.model.artifacts import Bolt, FrontMatter, Story
from aidlc.model.types import BoltStatus, Severity, StoryStatus
from aidlc.names import arg, gate_command
from aidlc.rules.catalogue import Hit, rule
from aidlc.rules.evidence import Birth, adopted_note, birth_of, verdict
from aidlc.rules.ledger import view

if TYPE_CHECKING:
    from aidlc.events.view import LedgerView

E, W = Severity.error, Severity.warning
_STARTED = (BoltStatus.in_progress.value, BoltStatus.complete.value)


@dataclass(frozen=True)
class Claim:
    """A status that claims gates were passed, which the ledger lacks, and how to tell whether git shows the
    same status in the last commit before the ledger (adopted history)."""

    code: str
    hit: Hit
    paths: tuple[str, ...]  # the files that test reads; the first is the claim's own
    held_then: Callable[[Birth], bool]
    not_then: str  # what the claim's file was not in that commit: "complete", "in construction"


def _missing_bolt_gates(led: LedgerView, bolt: BoltItem) -> list[str]:
    # Here, not at the top, as below: only with a ledger (aidlc/rules/ledger.py, view).
    from aidlc.gates.catalogue import stages_for

    return [stage for stage in stages_for(bolt) if not led.history.approved("bolt", bolt.id, stage)]


def _status_then(model: type[FrontMatter], rel: str, status: str) -> Callable[[Birth], bool]:
    # A file kept as it was then says then what it says now; else its status then, however it is spelled.
    return lambda birth: rel in birth.kept or status_word(model, (birth.meta(rel) or {}).get("status")) == status


def _covering(index: BankIndex, story: StoryItem) -> list[BoltItem]:
    """The bolts whose approved walkthrough may cover a story: they list it and belong to its intent.
    (`assigned_bolt` alone grants nothing: a bolt's walkthrough judged the stories it lists.)"""
    intent = story.unit.intent if story.unit else None
    return [bolt for bolt in index.bolts_of(story)
            if bolt.meta is not None and intent is not None and index.intent(bolt.meta.intent) is intent]


def _story_claim(index: BankIndex, led: LedgerView, story: StoryItem) -> Claim | None:
    bolts = _covering(index, story)
    if any(led.history.approved("bolt", bolt.id, "walkthrough") for bolt in bolts):
        return None
    if bolts:
        target, fix = f"its bolt {bolts[0].id}", gate_command(bolts[0].id, "walkthrough")
    else:
        assigned = index.bolt(story.meta.assigned_bolt) if story.meta else None
        target = "it (no bolt of its intent lists it" + (
            f"; its assigned_bolt {assigned.id} does not)" if assigned is not None else ")")
        fix = (f"add {story.stem} to the `stories:` of bolt {assigned.id}, then a person approves its walkthrough"
               if assigned is not None else
               f"aidlc new bolt --unit {arg(story.unit.id) if story.unit else 'UNIT'} --stories {arg(story.stem)}")
    return Claim("AIDLC-LEDGER-003", Hit(
        story.rel, story.doc.line_of("status"),
        f"story {story.id} is complete but no approved walkthrough covers {target}", fix),
        (story.rel,), _status_then(Story, story.rel, StoryStatus.complete.value), "complete")


def _intent_claim(index: BankIndex, led: LedgerView, intent: Intent) -> Claim | None:
    from aidlc.gates.catalogue import INTENT_STAGES  # here, not at the top: only with a ledger (see view)

    bolts = [b for b in index.bank.bolts if b.meta and index.intent(b.meta.intent) is intent]
    phase = intent.requirements_meta.phase if intent.requirements_meta else None
    past = phase == "construction" or any(b.meta.status in _STARTED for b in bolts if b.meta)
    missing = [s for s in INTENT_STAGES if not led.history.approved("intent", intent.id, s)] if past else []
    if not missing:
        return None
    doc = intent.requirements_doc
    own = doc.rel if doc else intent.rel

    def held_then(birth: Birth) -> bool:
        if (birth.meta(own, doc.meta if doc else None) or {}).get("phase") == "construction":
            return True
        return any((then := birth.meta(b.rel, b.doc.meta)) is not None
                   and status_word(Bolt, then.get("status")) in _STARTED
                   and index.intent(then.get("intent")) is intent for b in bolts)

    return Claim("AIDLC-LEDGER-004", Hit(
        own, doc.line_of("phase") if doc else None,
        f"intent {intent.id} is in construction but the ledger has no approved {', '.join(missing)} gate",
        gate_command(intent.id, missing[0])), (own, *(b.rel for b in bolts)), held_then,
        "in construction")


def _claims(index: BankIndex, led: LedgerView) -> Iterator[Claim]:
    for bolt in index.bank.bolts:
        if bolt.meta is None or bolt.meta.status != BoltStatus.complete:
            continue
        missing = _missing_bolt_gates(led, bolt)
        if missing:
            yield Claim("AIDLC-LEDGER-002", Hit(
                bolt.rel, bolt.doc.line_of("status"),
                f"bolt {bolt.id} is complete but the ledger has no approved {', '.join(missing)} gate",
                gate_command(bolt.id, missing[0])),
                (bolt.rel,), _status_then(Bolt, bolt.rel, BoltStatus.complete.value), "complete")
    for story in index.bank.stories:
        complete = story.meta is not None and story.meta.status == StoryStatus.complete
        if complete and (claim := _story_claim(index, led, story)) is not None:
            yield claim
    for intent in index.bank.intents:
        if (claim := _intent_claim(index, led, intent)) is not None:
            yield claim


@dataclass(frozen=True)
class Judged:
    code: str
    hit: Hit  # adopted history when its `adopted` names a commit


# The four rules of one run judge the claims once.
_JUDGED: WeakKeyDictionary[BankIndex, tuple[LedgerView, list[Judged]]] = WeakKeyDictionary()


def _judged(index: BankIndex) -> list[Judged]:
    led = view(index)
    if led is None:
        return []
    cached = _JUDGED.get(index)
    if cached is not None and cached[0] is led:
        return cached[1]
    claims = list(_claims(index, led))
    birth = birth_of(index) if claims else None
    judged = [_judge(birth, claim) for claim in claims] if birth is not None else []
    _JUDGED[index] = (led, judged)
    return judged


def _judge(birth: Birth, claim: Claim) -> Judged:
    hit = claim.hit
    found = verdict(birth, claim.paths[0], claim.held_then(birth), claim.not_then)
    if found.adopted is not None:
        was = "completed" if claim.not_then == "complete" else claim.not_then
        return Judged(claim.code, Hit(hit.path, hit.line, f"unattested, {adopted_note(birth, was)}: {hit.message}",
                                      "history before the ledger cannot be attested; nothing to fix unless it "
                                      "changes", adopted=found.adopted))
    # The fix stays the decision; the message says what git shows instead.
    return Judged(claim.code, Hit(hit.path, hit.line, f"{hit.message} ({found.why_not})", hit.fix))


def _unbacked(index: BankIndex, code: str) -> Iterator[Hit]:
    for judged in _judged(index):
        if judged.code == code and judged.hit.adopted is None:
            yield judged.hit


@rule("AIDLC-LEDGER-002", E, "ledger", "a bolt is marked complete without approved gate decisions",
      "a person approves the missing gates: `aidlc gate approve BOLT --stage plan` / `--stage walkthrough`")
def complete_bolt_attested(index: BankIndex) -> Iterator[Hit]:
    yield from _unbacked(index, "AIDLC-LEDGER-002")


@rule("AIDLC-LEDGER-003", E, "ledger", "a story is marked complete but no approved walkthrough of a bolt that lists "
      "it (in its intent) covers it",
      "a person reviews the walkthrough: `aidlc gate approve BOLT --stage walkthrough`")
def complete_story_attested(index: BankIndex) -> Iterator[Hit]:
    yield from _unbacked(index, "AIDLC-LEDGER-003")


@rule("AIDLC-LEDGER-004", E, "ledger", "an intent is past inception without its approved inception gates",
      "a person approves each inception gate in order: requirements, units, stories, bolt-plan")
def inception_gates(index: BankIndex) -> Iterator[Hit]:
    yield from _unbacked(index, "AIDLC-LEDGER-004")


@rule("AIDLC-LEDGER-008", W, "ledger", "a completion without gate decisions that git shows already there in the "
      "last commit before the ledger, in a file unchanged since (history of a bank adopted from elsewhere)",
      "nothing to do for history; from now on completions need gate decisions")
def unattested_history(index: BankIndex) -> Iterator[Hit]:
    for judged in _judged(index):
        if judged.hit.adopted is not None:
            yield judged.hit


def _completions(index: BankIndex) -> tuple[int, int]:
    bank = index.bank
    return (sum(1 for b in bank.bolts if b.meta and b.meta.status == BoltStatus.complete),
            sum(1 for s in bank.stories if s.meta and s.meta.status == StoryStatus.complete))


def _lost(index: BankIndex) -> Hit | None:
    """The lost-ledger finding, once per run (it asks git): None when there is a ledger or git shows none ever."""
    bank = index.bank
    path = ledger_path(bank.repo_root, bank.rel_root)
    if something_at(path):
        return None
    rel = ledger_rel(path, Path(bank.repo_root))
    lost = lost_ledger(Path(bank.repo_root), rel)
    # A shallow clone cannot show that a ledger never existed: that matters where there are completions to attest.
    if lost is None or (lost.shallow and _completions(index) == (0, 0)):
        return None
    return Hit(rel, None, lost.message, "; ".join(lost.next_steps))


_LOST: WeakKeyDictionary[BankIndex, Hit | None] = WeakKeyDictionary()


def _lost_once(index: BankIndex) -> Hit | None:
    if index not in _LOST:
        _LOST[index] = _lost(index)
    return _LOST[index]


@rule("AIDLC-LEDGER-007", W, "ledger", "no ledger, and none in git history: completions and phase changes are "
      "unattested",
      "run `aidlc init` to start the ledger; later completions then need gate decisions")
def ledger_exists(index: BankIndex) -> Iterator[Hit]:
    bank = index.bank
    if view(index) is not None or something_at(ledger_path(bank.repo_root, bank.rel_root)):
        return
    bolts, stories = _completions(index)
    if (bolts or stories) and _lost_once(index) is None:
        yield Hit(f"{bank.rel_root}/{LEDGER_FILE}", None,
                  f"no ledger: {bolts} complete bolts and {stories} complete stories have no recorded "
                  "gate decisions")


@rule("AIDLC-LEDGER-013", E, "ledger", "the ledger is missing from the work tree, but git history holds it (or, "
      "in a shallow clone with completions to attest, may hold it)",
      "restore it with the `git restore --source=COMMIT ...` command the message gives; never start a new one")
def ledger_not_lost(index: BankIndex) -> Iterator[Hit]:
    hit = _lost_once(index)
    if hit is not None:
        yield hit
