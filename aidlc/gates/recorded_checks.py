"""The checks of the evidence report: the latest result of each verify command the ledger records (or a caller
ran itself), whether it was recorded for the head's code, and running the verify commands at HEAD and recording
each result where none was."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aidlc import vcs
from aidlc.bolt.checks import check_event, run_checks_watched
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger
from aidlc.gates.facts import EXCERPT_CHARS, Facts
from aidlc.model import evidence as ev
from aidlc.model.config import VerifyCommand
from aidlc.model.events import Actor, ActorKind, CheckRecord, Event, EventType, Subject
from aidlc.names import arg


class CodeMatch:
    """Whether a commit holds the same code as the report's head (cached: one git call per commit)."""

    def __init__(self, repo: Path, head: str, outside: tuple[str, ...]) -> None:
        self.repo, self.head, self.outside = repo, head, outside
        self._known: dict[str, bool] = {head: True}

    @classmethod
    def of(cls, facts: Facts) -> CodeMatch:
        return cls(facts.repo, facts.head, facts.outside)

    def __call__(self, commit: str | None) -> bool:
        if not commit:
            return False
        if commit not in self._known:
            try:
                self._known[commit] = vcs.same_code(self.repo, commit, self.head, self.outside)
            except UsageError:
                self._known[commit] = False  # a commit this clone does not hold
        return self._known[commit]


def checks(records: list[CheckRecord], current: CodeMatch, excerpts: dict[tuple[str, str], str]) -> list[ev.Check]:
    """The latest result of each check among `records` (in the order they were recorded), with its history."""
    by_name: dict[str, list[CheckRecord]] = {}
    for record in records:
        by_name.setdefault(record.name, []).append(record)
    found = []
    for name, runs in by_name.items():
        latest = runs[-1]
        found.append(ev.Check(
            name=name, command=latest.command, current=current(latest.commit), passed=latest.passed,
            exit_code=latest.exit_code, tests=latest.tests,
            excerpt=None if latest.passed else excerpts.get((str(latest.commit), name)),
            history=[ev.CheckRun(commit=run.commit or "", passed=run.passed, exit_code=run.exit_code,
                                 duration_ms=run.duration_ms, seq=run.seq) for run in runs]))
    return found


def run_excerpts(facts: Facts) -> dict[tuple[str, str], str]:
    """(commit, check name) -> the failing output a run kept in its state."""
    found = {}
    for run in facts.runs:
        for round_ in run.checks:
            for result in round_.failing():
                found[(round_.commit, result.name)] = (result.head + result.tail)[-EXCERPT_CHARS:]
    return found


def run_checks_now(facts: Facts, note: Callable[[str], None]) -> dict[tuple[str, str], str]:
    """Run the verify commands at HEAD (the same runner as `aidlc bolt`) and record each result; the failing
    outputs are returned. Nothing runs when HEAD does not hold the head's code, or files are uncommitted."""
    recorded = record_checks(facts.repo, facts.bank.config.verify, facts.ledger,
                             Subject(kind="bolt", id=facts.bolt.id), CodeMatch.of(facts), note,
                             f"aidlc walkthrough {arg(facts.bolt.id)}")
    facts.events.extend(recorded.events)
    facts.checks.extend(recorded.checks)
    facts.notes.extend(recorded.notes)
    return recorded.excerpts


@dataclass
class RecordedChecks:
    """What running the verify commands once left: the `check.recorded` events appended, the failing outputs by
    (commit, check name), and why nothing ran where nothing did."""

    events: list[Event] = field(default_factory=list)
    excerpts: dict[tuple[str, str], str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def checks(self) -> list[CheckRecord]:
        return [CheckRecord.of_event(event) for event in self.events]


def record_checks(repo: Path, verify: list[VerifyCommand], ledger: Ledger, subject: Subject, code: CodeMatch,
                  note: Callable[[str], None], again: str, actor: Actor | None = None) -> RecordedChecks:
    """Run `verify` at HEAD (the same runner as `aidlc bolt`) and record each result in `ledger` about `subject`,
    by `actor` (default: the agent `aidlc walkthrough`). Nothing runs when HEAD does not hold the code `code` judges
    against, or files outside `code.outside` are uncommitted; `again`: the command to run once that is fixed."""

    recorded = RecordedChecks()
    head_now = vcs.head_commit(repo)
    if not verify:
        recorded.notes.append("aidlc.yaml has no verify commands: no check could run")
        return recorded
    if head_now is None or not code(head_now):
        recorded.notes.append(f"checks not run: the work tree's HEAD does not hold the head {code.head[:12]} "
                              f"(check it out, then run {again})")
        return recorded
    dirty = [p for p in vcs.changed_paths(repo) if vcs.is_outside(p, code.outside)]
    if dirty:
        recorded.notes.append(f"checks not run: uncommitted changes to {', '.join(dirty[:3])} would be checked "
                              "instead of the commit")
        return recorded
    note(f"running {len(verify)} verify command(s) at {head_now[:12]} ...")
    results, moved = run_checks_watched(repo, verify)
    if moved:
        recorded.notes.append(f"the checks ran and changed {', '.join(moved)}: code a check runs rewrote the history "
                              "this report is built from, so no result is recorded (`git reflog` shows where HEAD "
                              "was; put it back, and look at the code before running it again)")
        return recorded
    actor = actor or Actor(kind=ActorKind.agent, name="aidlc walkthrough")
    for result in results:
        fields = check_event(result, head_now, None, subject)
        fields = {k: v for k, v in fields.items() if v is not None}
        recorded.events.append(ledger.append(EventType.check_recorded, actor, **fields).event)
        if not result.passed:
            recorded.excerpts[(head_now, result.name)] = result.excerpt()[-EXCERPT_CHARS:]
        note(f"  {result.summary()}")
    return recorded
