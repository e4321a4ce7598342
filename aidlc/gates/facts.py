"""What the evidence report of a bolt is built from, gathered once: git (the commits carrying `Aidlc-Bolt: <B>`,
their diff), the ledger (check results, gate decisions, the model review), the bank (intent, requirements,
stories) and the runs of `aidlc bolt` when there are any. The same facts describe a bolt a run made and one made
by hand.

A bolt's base is the parent of its first commit; its head is its newest commit that changed something outside
the memory bank (the run's walkthrough commit, a person's checked boxes and the ledger are records of the bolt,
not its code).
"""

from __future__ import annotations

import fnmatch
import functools
from dataclasses import dataclass, field
from pathlib import Path

from aidlc import vcs
from aidlc.bank.index import BankIndex, find_bolt
from aidlc.bank.items import BoltItem, MemoryBank
from aidlc.bolt.check_settings import Tool, changed_parts
from aidlc.bolt.store import runs_of
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger
from aidlc.events.view import LedgerView, open_view, verified
from aidlc.gates.history import approved_risks
from aidlc.model.events import CheckRecord, Event, EventType
from aidlc.model.run import RunState
from aidlc.model.types import Risk
from aidlc.names import arg

TRAILER = "Aidlc-Bolt"
EXCERPT_CHARS = 2000


@dataclass
class Facts:
    """What the report is built from, gathered once."""

    repo: Path
    bank: MemoryBank
    bolt: BoltItem
    commits: list[vcs.Commit]
    base: str
    head: str
    outside: tuple[str, ...]
    runs: list[RunState]
    events: list[Event]  # the ledger's events about this bolt, in file order
    index: BankIndex
    ledger: Ledger  # the one the events were read from: checks and reviews are recorded through it
    notes: list[str] = field(default_factory=list)
    approved_risks: list[Risk] = field(default_factory=list)  # what its plan approvals were made under
    checks: list[CheckRecord] = field(default_factory=list)  # its checks' results, from `check.recorded` events

    @property
    def run(self) -> RunState | None:
        return self.runs[-1] if self.runs else None

    @functools.cached_property
    def line_counts(self) -> list[vcs.LineCounts]:
        """The files changed from base to head outside the bank, with their lines (asked of git once)."""
        return vcs.line_counts(self.repo, self.base, self.head, self.outside)


def gather(repo: Path, bank: MemoryBank, bolt_ref: str, index: BankIndex | None = None,
           view: LedgerView | None = None) -> Facts:
    """`index`: the bank's, when the caller holds it; `view`: the ledger's, as it is now, when the caller holds it
    (else it is opened)."""
    index = index or BankIndex(bank)
    bolt = find_bolt(bank, bolt_ref, index)
    outside = (bank.rel_root, ".aidlc")
    runs = runs_of(repo, bolt.id)
    commits = vcs.commits_with_trailer(repo, TRAILER, bolt.id, files=True)
    if not commits and not runs:
        raise UsageError(f"no commit in the history of HEAD carries the trailer `{TRAILER}: {bolt.id}`, and bolt "
                         f"{bolt.id} has no run: there is nothing to report on",
                         [f'git commit --trailer "{TRAILER}: {bolt.id}" ...    # mark the bolt\'s commits',
                          f"aidlc bolt start {arg(bolt.id)}    # or let a run make them"])
    # Evidence is read from the ledger, and checks and reviews are recorded there: only from an intact chain.
    read = verified(view.ledger if view is not None else Ledger.of_bank(bank.repo_root, bank.rel_root),
                    "no evidence is read from it or recorded in it", lambda ledger: view or open_view(ledger))
    every = [e for _, e in read.events]
    events = [e for e in every if e.subject is not None and e.subject.kind == "bolt" and e.subject.id == bolt.id]
    notes: list[str] = []
    if commits:
        base = commits[0].parents[0] if commits[0].parents else vcs.EMPTY_TREE
        code = [c for c in commits if any(vcs.is_outside(p, outside) for p in c.paths)]
        head = (code or commits)[-1].sha
    else:
        base, head = _run_range(repo, runs[-1], events, notes)
    return Facts(repo, bank, bolt, commits, base, head, outside, runs, events, index, read.ledger, notes,
                 approved_risks(every, bolt.id),
                 [CheckRecord.of_event(e) for e in events if e.type == EventType.check_recorded])


def _run_range(repo: Path, run: RunState, events: list[Event], notes: list[str]) -> tuple[str, str]:
    """The range a run's work spans when no commit of the bolt is in HEAD's history (its branch is not checked
    out): from the base its run.started event recorded to its last commit, where every commit between is the
    run's own. state.json is the run's notebook, which any process of the user's may rewrite: a range it names
    that the ledger and git do not bear out shows no change."""
    started = next((e for e in events if e.type == EventType.run_started and e.run == run.run_id), None)
    base = started.datum("base") if started is not None else None
    if not isinstance(base, str) or base != run.base_commit:
        notes.append(f"no commit carries `{TRAILER}: {run.bolt}` yet, and run {run.run_id}'s state.json names a base "
                     "its run.started event does not: no change is shown")
        return (base, base) if isinstance(base, str) else (run.base_commit, run.base_commit)
    try:
        between = vcs.commits_between(repo, base, run.last_commit)
    except UsageError:  # not a commit of this repository
        between = None
    if between is None or any(c.trailers.get("Aidlc-Run") != run.run_id for c in between):
        notes.append(f"no commit carries `{TRAILER}: {run.bolt}` yet, and run {run.run_id}'s state.json names a last "
                     "commit that is not the run's own: no change is shown")
        return base, base
    notes.append(f"no commit carries `{TRAILER}: {run.bolt}` yet: the run's base and last commit are used")
    return base, run.last_commit


def one_line(text: str) -> str:
    """Text from the repository, a person or a model, as one line: it cannot start a heading or a section of
    the report."""
    return " ".join(text.split())


def is_test_file(path: str, patterns: list[str]) -> bool:
    name = path.rsplit("/", 1)[-1]
    for pattern in patterns:
        if "/" in pattern:
            if fnmatch.fnmatchcase(path, pattern) or (pattern.endswith("/**") and
                                                      (path + "/").startswith(pattern[:-2])):
                return True
        elif fnmatch.fnmatchcase(name, pattern):
            return True
    return False


def settings_changed_by_bolt(facts: Facts, paths: list[str], tools: list[Tool]) -> dict[str, dict[Tool, list[str]]]:
    """path -> tool -> the parts of it the tool reads (aidlc/bolt/check_settings.py) that one of the bolt's own
    commits changed (from the base to the head for a run without commits); only paths and tools with such parts.
    Each commit's versions are read once, in one batch."""
    history = vcs.history(facts.repo) if paths and tools else None
    if history is None:
        return {}
    steps = [(c.parents[0] if c.parents else vcs.EMPTY_TREE, c.sha, [p for p in paths if p in c.paths])
             for c in facts.commits] if facts.commits else [(facts.base, facts.head, paths)]
    found: dict[str, dict[Tool, set[str]]] = {}
    for before, after, touched in steps:
        if touched:
            old, new = history.read(before, touched), history.read(after, touched)
            for path in touched:
                for tool in tools:
                    if parts := changed_parts(path, old[path], new[path], [tool]):
                        found.setdefault(path, {}).setdefault(tool, set()).update(parts)
    return {path: {tool: sorted(parts) for tool, parts in found[path].items()} for path in paths if path in found}
