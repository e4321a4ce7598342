"""Verification strength by risk (docs/design.md, Gates): what a bolt's risk requires before its walkthrough is
approved, and what the repository shows is achieved.

| risk | minimum |
|---|---|
| low | deterministic checks pass |
| medium | + independent tests (that existed at the bolt's base, or were last changed by a person) pass |
| high | + a model review recorded, and a second person approves |
| critical | + two distinct people approve |

Independent tests are judged from git: a test file the bolt's own commits wrote last is not independent, even
when it passes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from aidlc import vcs
from aidlc.bank.walk import read_inside
from aidlc.bolt import check_settings, settings_bases
from aidlc.bolt.counts import junit_cases as read_cases
from aidlc.bolt.weakening import is_test_name
from aidlc.errors import AidlcError
from aidlc.gates.actor import bot_identity
from aidlc.gates.facts import TRAILER, Facts, is_test_file, settings_changed_by_bolt
from aidlc.gates.recorded_checks import CodeMatch
from aidlc.model import evidence as ev
from aidlc.model.events import CheckRecord
from aidlc.model.types import Risk
from aidlc.names import path_segment

REVIEW_EVENT = "review.recorded"
DIFF_CHARS = 24_000  # of the diff sent for review
REVIEWS = Path(".aidlc") / "evidence"
MAX_CONCERNS = 30
CONCERN_CHARS = 600


class _ReviewAnswer(BaseModel):
    """What the model answers: candidate concerns, each with the file it is about where there is one."""

    model_config = ConfigDict(extra="forbid")
    concerns: list[ev.ModelConcern]


def verification(facts: Facts, risk: Risk | None, checks: list[ev.Check], current: CodeMatch,
                 verify_changed: list[ev.Deviation], *, run: bool, reviewer: Callable[[], Any] | None,
                 note: Callable[[str], None]) -> ev.Verification:
    level = RISK_LEVEL.get(risk, 1) if risk is not None else 1  # unknown risk asks at least what low risk asks
    items = [_checks_item(checks)]
    tests = test_files(facts)
    cases = junit_cases(facts, checks, tests.independent)
    if level >= 2:
        items.append(_verify_item(verify_changed))
        ran = sum(max(0, c.tests.total - c.tests.skipped) for c in checks if c.current and c.passed and c.tests)
        items.append(_independent_item(tests, cases, items[0].satisfied, ran))
    review = None
    if level >= 3:
        review = recorded_review(facts, current)
        if review is None and run:
            review = ask_review(facts, risk, reviewer, note)
        items.append(_review_item(review, run))
        people = "a second person approves the walkthrough" if level == 3 else \
            "two distinct people approve explicitly; nothing is approved automatically"
        items.append(ev.VerificationItem(
            id="second-reviewer" if level == 3 else "two-approvals", at_gate=True, satisfied=False,
            requirement=people, detail="met at the gate by the approvals themselves: the first is recorded and the "
                                       "bolt waits for another person (aidlc status shows how many stand)"))
    return ev.Verification(
        risk=risk, required=[i.requirement for i in items], achieved=[i.requirement for i in items if i.satisfied],
        satisfied=all(i.satisfied for i in items if not i.at_gate), items=items,
        independent_tests=cases if cases is not None else tests.independent, bolt_tests=tests.own,
        removed_tests=tests.removed, model_review=review)


RISK_LEVEL = {Risk.low: 1, Risk.medium: 2, Risk.high: 3, Risk.critical: 4}


def _checks_item(checks: list[ev.Check]) -> ev.VerificationItem:
    requirement = "deterministic checks pass at the bolt's head"
    current = [c for c in checks if c.current]
    if not current:
        return ev.VerificationItem(id="checks", requirement=requirement, satisfied=False,
                                   detail="no check was recorded for the code at the head")
    failing = [c.name for c in current if not c.passed]
    if failing:
        return ev.VerificationItem(id="checks", requirement=requirement, satisfied=False,
                                   detail=f"failing: {', '.join(failing)}")
    return ev.VerificationItem(id="checks", requirement=requirement, satisfied=True,
                               detail=f"passed: {', '.join(c.name for c in current)}")


def _verify_item(verify_changed: list[ev.Deviation]) -> ev.VerificationItem:
    requirement = "the checks are the base's: the bolt's own commits changed no verify command, nor a file one runs"
    if not verify_changed:
        return ev.VerificationItem(id="verify-unchanged", requirement=requirement, satisfied=True,
                                   detail="unchanged since the bolt's base")
    return ev.VerificationItem(id="verify-unchanged", requirement=requirement, satisfied=False, detail=(
        "; ".join(f"{d.path}: {d.detail}" for d in verify_changed)
        + ". A check the bolt rewrote proves nothing about the bolt: revert the change, or have a person make it "
          "in a commit of their own (without the trailer)"))


@dataclass
class TestFiles:
    """The test files as the bolt left them, by who wrote them."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    independent: list[str]  # at the head; at the base and left alone by the bolt, or last changed by a person
    own: list[str]  # at the head, last written by the bolt's own commits (or a bot's)
    removed: list[str]  # at the base, deleted (or moved away) by the bolt's own commits
    harness: list[str]  # the files the runner loads with the tests (HARNESS) that the bolt's own commits changed


# What a test runner loads with the tests it runs, able to change what any assertion does: `assertEqual = lambda
# *a: None` in tests/__init__.py passes every test. Besides these names (Python loads them on its own), every file
# among the test files that is no test itself counts (an __init__.py, a helper module, the data a test compares
# with), as do the runners' settings (check_settings.TEST_RUNNERS: pytest.ini, jest.config.js; of pyproject.toml,
# setup.cfg and package.json, which a bolt changes for much else, only the runner's part).
HARNESS = re.compile(r"^(?:conftest|sitecustomize|usercustomize)\.py$")


def test_files(facts: Facts) -> TestFiles:
    """A test file at the head is independent when the bolt did not change it and it existed at the base, or when
    the last commit that changed it is a person's: no `Aidlc-Bolt` trailer and not a bot's identity. A test file
    of the base that is gone at the head and whose removal was not a person's is the bolt's removal."""
    repo = facts.repo
    patterns = facts.bank.config.evidence.test_patterns
    bots = facts.bank.config.governance.bot_emails

    def is_test(path: str) -> bool:
        # The tests are outside the bank, as the files the bolt changed that line_counts lists.
        return is_test_file(path, patterns) and vcs.is_outside(path, facts.outside) and not path.endswith("__init__.py")

    def persons(path: str) -> bool:
        last = vcs.last_commit_of(repo, path, facts.head)
        return last is not None and TRAILER not in last.trailers and bot_identity(last.author, last.email, bots) is None

    def is_harness(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        return vcs.is_outside(path, facts.outside) and bool(
            HARNESS.match(name) or (is_test_file(path, patterns) and not is_test_name(name)))

    at_head = vcs.files_at(repo, facts.head)
    tests = [p for p in at_head if is_test(p)]
    fresh = facts.base == vcs.EMPTY_TREE
    changed = set(tests) if fresh else {c.path for c in facts.line_counts}
    independent = [p for p in tests if p not in changed or persons(p)]
    own = [p for p in tests if p not in independent]
    gone = [] if fresh else [p for p in vcs.files_at(repo, facts.base) if is_test(p) and p not in set(at_head)]
    harness = [] if fresh else sorted(c.path for c in facts.line_counts if is_harness(c.path) and not persons(c.path))
    runners = _test_runners(facts, at_head)
    settings = [] if fresh else [c.path for c in facts.line_counts if c.path not in harness and vcs.is_outside(
        c.path, facts.outside) and check_settings.may_hold_settings(c.path, runners) and not persons(c.path)]
    harness += [check_settings.named(path, sorted({part for parts in by_tool.values() for part in parts}))
                for path, by_tool in settings_changed_by_bolt(facts, settings, runners).items()]
    return TestFiles(independent, own, [p for p in gone if not persons(p)], harness)


def _test_runners(facts: Facts, at_head: list[str]) -> list[check_settings.Tool]:
    """The test runners, each with the files its settings extend (`./config/jest.base.js`) among those the bolt
    changed (aidlc/bolt/settings_bases.py)."""
    runners: dict[check_settings.Tool, list[str]] = {runner: [] for runner in check_settings.TEST_RUNNERS}
    changed = [] if facts.base == vcs.EMPTY_TREE else [c.path for c in facts.line_counts]
    return list(settings_bases.extended_at(facts.repo, facts.head, runners, changed, lambda: at_head))


def junit_cases(facts: Facts, checks: list[ev.Check], independent: list[str]) -> list[str] | None:
    """The passing test cases, named `FILE::NAME`, of the independent test files, from the JUnit XML reports of
    the checks that passed at the head; None when no such report is at hand. A report counts only when it was
    written while its check ran (its modification time within the run recorded in the ledger); a configured one
    that does not is noted."""

    passed = {c.name: c for c in checks if c.current and c.passed}
    found: list[str] | None = None
    for command in facts.bank.config.verify:
        recorded = _latest_check(facts, command.name)
        if not command.junit or command.name not in passed or recorded is None:
            continue
        report, problem = read_cases(facts.repo, command.junit)
        if report is None or not _written_during(report.modified_ns, recorded):
            facts.notes.append(f"the JUnit report {command.junit} of check '{command.name}' is not the one its "
                               f"recorded run wrote ({problem or 'written at another time'}): the test cases that ran "
                               "are not named; the test files are counted")
            continue
        found = found or []
        for file, classname, name in report.cases:
            owner = _owner(file, classname, independent)
            if owner is not None and f"{owner}::{name}" not in found:
                found.append(f"{owner}::{name}")
    return found


def _latest_check(facts: Facts, name: str) -> CheckRecord | None:
    return next((check for check in reversed(facts.checks) if check.name == name), None)


def _written_during(modified_ns: int, check: CheckRecord) -> bool:
    from datetime import datetime

    try:
        ended = datetime.fromisoformat(str(check.ts).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return False
    took = (check.duration_ms or 0) / 1000
    return ended - took - SLACK_S <= modified_ns / 1e9 <= ended + SLACK_S


SLACK_S = 60.0  # between a check's end and its ledger event, and clocks that round


def _owner(file: str, classname: str, independent: list[str]) -> str | None:
    """The independent test file a case belongs to: by its `file` attribute, else by its dotted classname
    (Python: tests.test_calc.TotalTest lives in tests/test_calc.py)."""
    file = file.removeprefix("./")
    if file:
        return file if file in independent else None
    for path in independent:
        module = path.removesuffix(".py").replace("/", ".")
        if path.endswith(".py") and (classname == module or classname.startswith(module + ".")):
            return path
    return None


def _independent_item(tests: TestFiles, cases: list[str] | None, checks_pass: bool, ran: int) -> ev.VerificationItem:
    """Met by passing test cases a JUnit report names in independent test files; without a report, by independent
    test files that still exist while the runner's own count (its closing line) says tests ran and passed."""
    requirement = "independent tests (existing before the bolt, or written by a person) ran and passed"

    def unmet(detail: str) -> ev.VerificationItem:
        return ev.VerificationItem(id="independent-tests", requirement=requirement, satisfied=False, detail=detail)

    if tests.removed:
        return unmet(f"the bolt's own commits deleted {', '.join(tests.removed)}, test(s) that existed before it: no "
                     "other test stands in for them (restore them, or have a person delete them in a commit of their "
                     "own)")
    if tests.harness:
        return unmet(f"the bolt's own commits changed {', '.join(tests.harness)}, which the test runner loads with "
                     "the tests: the tests that existed before it no longer run as they were (revert the change, or "
                     "have a person make it in a commit of their own)")
    own = f"; the bolt itself wrote {', '.join(tests.own)}" if tests.own else ""
    counted = cases if cases is not None else tests.independent
    if not counted:
        if cases is not None:
            return unmet(f"no JUnit report names a passing test case of a test file that existed before the bolt{own}")
        return unmet(f"no independent test ran{own}")
    if not checks_pass:
        return unmet(f"{len(counted)} independent test(s), but the checks at the head did not all pass")
    if cases is None and not ran:
        return unmet(f"{len(counted)} independent test file(s), but no check's JUnit report nor its test runner's "
                     "closing line (pytest's `N passed`, unittest's `Ran N tests`) shows that a test ran: set "
                     "`junit:` on the verify command that runs the tests")
    named = ", ".join(counted[:10]) + (" ..." if len(counted) > 10 else "")
    if cases is not None:
        detail = f"{len(cases)} test case(s) the JUnit report names as run and passed, in test files that existed " \
                 f"before the bolt or a person wrote: {named}"
    else:
        detail = f"{len(counted)} test file(s) that existed before the bolt or a person wrote, while the test runner " \
                 f"counted {ran} test(s) run and passed (no JUnit report names the cases): {named}"
    return ev.VerificationItem(id="independent-tests", requirement=requirement, satisfied=True,
                               detail=f"passed with the checks: {detail}")


# -- the model review ------------------------------------------------------------------------------------------------
def _review_file(facts: Facts, head: str) -> Path:
    folder = path_segment(facts.bolt.id, f"{facts.bolt.rel}: the bolt id", [f"make `id:` in {facts.bolt.rel} its "
                          f"folder's name, {Path(facts.bolt.rel).parent.name}", "aidlc validate"])
    return facts.repo / REVIEWS / folder / f"review-{head[:12]}.json"


def recorded_review(facts: Facts, current: CodeMatch) -> ev.ModelReview | None:
    """The newest review recorded for the head's code, with the concerns kept beside the ledger's record."""
    for event in reversed(facts.events):
        if event.type == REVIEW_EVENT and current(event.commit):
            path = _review_file(facts, str(event.commit))
            try:
                text = read_inside(path, facts.repo)
                if hashlib.sha256(text).hexdigest() != event.datum("review_sha256"):
                    raise ValueError("changed since it was recorded")
                concerns = ev.ModelReview.model_validate_json(text).concerns
            except (OSError, ValueError):
                facts.notes.append(f"the model review recorded at seq {event.seq} has "
                                   f"{event.datum('concerns')} concern(s); their text ({path.relative_to(facts.repo)}) "
                                   "is missing here or changed")
                concerns = []
            return ev.ModelReview(model=str(event.datum("model")), commit=str(event.commit), concerns=concerns,
                                  event_seq=event.seq)
    return None


def ask_review(facts: Facts, risk: Risk | None, reviewer: Callable[[], Any] | None,
               note: Callable[[str], None]) -> ev.ModelReview | None:
    """One model call listing candidate concerns about the diff, recorded as a `review.recorded` event (digests
    and counts; the concerns themselves in .aidlc/evidence/<bolt>/). None, with a note, when no model answers."""
    # The model stack and the writers only when a review is asked: a report without one never loads them.
    from aidlc.bank.write import atomic_write
    from aidlc.llm.base import Message
    from aidlc.llm.prompts import render_prompt, system_message
    from aidlc.llm.structured import complete_structured
    from aidlc.model.events import Actor, ActorKind, EventType, Subject

    if reviewer is None:
        facts.notes.append("no model review: no model is configured")
        return None
    paths = [c.path for c in facts.line_counts]
    diff = vcs.diff_text(facts.repo, facts.base, facts.head, paths)
    cut = max(0, len(diff) - DIFF_CHARS)
    user = render_prompt("evidence_review.md.j2", bolt=facts.bolt.id, risk=risk or "unknown", diff=diff[:DIFF_CHARS],
                         cut=cut)
    note("asking the model for a review of the diff ...")
    try:
        provider = reviewer()
        answer = complete_structured(provider, [system_message(f"review bolt {facts.bolt.id}"), Message("user", user)],
                                     _ReviewAnswer, max_tokens=1024, attempts=1)
    except AidlcError as exc:
        facts.notes.append(f"no model review: {exc.message}")
        return None
    review = ev.ModelReview(model=answer.completion.model or "unknown", commit=facts.head,
                            concerns=[_one_line(c) for c in answer.value.concerns[:MAX_CONCERNS]])
    path = _review_file(facts, facts.head)
    text = review.model_dump_json(indent=2) + "\n"
    atomic_write(path, text, facts.repo)
    appended = facts.ledger.append(
        EventType.review_recorded, Actor(kind=ActorKind.agent, name=f"aidlc walkthrough ({review.model})"),
        subject=Subject(kind="bolt", id=facts.bolt.id), commit=facts.head,
        data={"model": review.model, "concerns": len(review.concerns), "tokens": answer.usage.total,
              **({"tokens_corrected": answer.usage.corrected} if answer.usage.corrected else {}),
              "diff_sha256": hashlib.sha256(diff.encode()).hexdigest(),
              "review_sha256": hashlib.sha256(text.encode()).hexdigest()})
    facts.events.append(appended.event)
    review.event_seq = appended.event.seq
    return review


def _one_line(concern: ev.ModelConcern) -> ev.ModelConcern:
    """Model output is untrusted: one line each, bounded, so it cannot add a heading or a section to the report."""
    def flat(text: str) -> str:
        return " ".join(text.split())[:CONCERN_CHARS]

    return ev.ModelConcern(path=flat(concern.path) if concern.path else None, concern=flat(concern.concern))


def _review_item(review: ev.ModelReview | None, run: bool) -> ev.VerificationItem:
    requirement = "a model review of the diff is recorded (candidate concerns, the model's words)"
    if review is None:
        why = "none recorded for the head's code (--no-run asks no model)" if not run else \
            "none recorded: no model answered (see the notes)"
        return ev.VerificationItem(id="model-review", requirement=requirement, satisfied=False, detail=why)
    return ev.VerificationItem(id="model-review", requirement=requirement, satisfied=True,
                               detail=f"{len(review.concerns)} concern(s) by {review.model} at seq {review.event_seq}")
