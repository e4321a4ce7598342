"""The evidence report of a bolt, built from facts: git (the commits carrying `Aidlc-Bolt: <B>`, their diff),
the ledger (check results, gate decisions, the model review), the bank (intent, requirements, stories) and the
runs of `aidlc bolt` when there are any. The same report describes a bolt a run made and one made by hand.

A bolt's base is the parent of its first commit; its head is its newest commit that changed something outside
the memory bank (the run's walkthrough commit, a person's checked boxes and the ledger are records of the bolt,
not its code).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bank.index import BankIndex, find_bolt
from aidlc.bank.items import BoltItem, MemoryBank, StoryItem
from aidlc.bank.walk import CONFIG_FILE, read_inside
from aidlc.bolt.checks import check_event, run_checks
from aidlc.bolt.plan import ALL_STORIES, NO_RISKS, PLAN_FILE, RISK_ORDER
from aidlc.bolt.store import runs_of
from aidlc.bolt.weakening import named_by_verify, verify_of
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger
from aidlc.events.view import open_view, verified_ledger
from aidlc.gates.history import approved_risks
from aidlc.model import evidence as ev
from aidlc.model.config import VerifyCommand
from aidlc.model.events import Actor, ActorKind, CheckRecord, Decision, Event, EventType, Subject
from aidlc.model.run import RunState
from aidlc.model.types import Risk

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
    notes: list[str] = field(default_factory=list)
    approved_risks: list[Risk] = field(default_factory=list)  # what its plan approvals were made under
    checks: list[CheckRecord] = field(default_factory=list)  # its checks' results, from `check.recorded` events

    @property
    def run(self) -> RunState | None:
        return self.runs[-1] if self.runs else None

    @functools.cached_property
    def index(self) -> BankIndex:
        return BankIndex(self.bank)

    @functools.cached_property
    def line_counts(self) -> list[vcs.LineCounts]:
        """The files changed from base to head outside the bank, with their lines (asked of git once)."""
        return vcs.line_counts(self.repo, self.base, self.head, self.outside)


def gather(repo: Path, bank: MemoryBank, bolt_ref: str) -> Facts:

    bolt = find_bolt(bank, bolt_ref)
    outside = (bank.rel_root, ".aidlc")
    runs = runs_of(repo, bolt.id)
    commits = vcs.commits_with_trailer(repo, TRAILER, bolt.id, files=True)
    notes: list[str] = []
    if commits:
        base = commits[0].parents[0] if commits[0].parents else vcs.EMPTY_TREE
        code = [c for c in commits if any(vcs.is_outside(p, outside) for p in c.paths)]
        head = (code or commits)[-1].sha
    elif runs:
        base, head = runs[-1].base_commit, runs[-1].last_commit
        notes.append(f"no commit carries `{TRAILER}: {bolt.id}` yet: the run's base and last commit are used")
    else:
        raise UsageError(f"no commit in the history of HEAD carries the trailer `{TRAILER}: {bolt.id}`, and bolt "
                         f"{bolt.id} has no run: there is nothing to report on",
                         [f'git commit --trailer "{TRAILER}: {bolt.id}" ...    # mark the bolt\'s commits',
                          f"aidlc bolt start {bolt.id}    # or let a run make them"])
    # Evidence is read from the ledger, and checks and reviews are recorded there: only from an intact chain.
    ledger = verified_ledger(bank.repo_root, bank.rel_root, "no evidence is read from it or recorded in it")
    every = [e for _, e in open_view(ledger).events]
    events = [e for e in every if e.subject is not None and e.subject.kind == "bolt" and e.subject.id == bolt.id]
    return Facts(repo, bank, bolt, commits, base, head, outside, runs, events, notes, approved_risks(every, bolt.id),
                 [CheckRecord.of_event(e) for e in events if e.type == EventType.check_recorded])


# -- the plan ------------------------------------------------------------------------------------------------------
_PATH = re.compile(r"`([^`\s]+)`")


@dataclass(frozen=True)
class Planned:
    """What the plan says of one file: why, and the stories it serves as the plan names them (none: all)."""

    reason: str
    stories: tuple[str, ...] = ()


def plan_text(facts: Facts) -> str | None:
    """implementation-plan.md when it is a regular file inside the repository (not through a link leading out)."""
    rel = f"{Path(facts.bolt.rel).parent.as_posix()}/{PLAN_FILE}"
    try:
        return read_inside(facts.repo / rel, facts.repo).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        facts.notes.append(f"{rel} is not read ({exc.strerror or exc})")
        return None


def planned_files(facts: Facts) -> dict[str, Planned] | None:
    """Path -> what the plan says of it: the run's approved plan, else the Files section of implementation-plan.md
    (its stories from a table's Stories column, as the plan's template writes it). None when the bolt has no plan."""
    run = next((r for r in reversed(facts.runs) if r.plan is not None), None)
    if run is not None and run.plan is not None:
        return {f.path.lstrip("./"): Planned(f.reason, tuple(f.stories)) for f in run.plan.files}
    text = plan_text(facts)
    if text is None:
        return None
    planned: dict[str, Planned] = {}
    in_files, stories_at = False, None
    for line in text.splitlines():
        if line.startswith("#"):
            in_files, stories_at = "file" in line.lower(), None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if in_files and "stories" in (lowered := [cell.lower() for cell in cells]):  # a table's header row
            stories_at = lowered.index("stories")
            continue
        match = _PATH.search(line) if in_files and line.lstrip().startswith(("-", "*", "|")) else None
        if match:
            rest = line[match.end():].strip(" |:-—")
            named = cells[stories_at] if stories_at is not None and stories_at < len(cells) else ALL_STORIES
            stories = () if named == ALL_STORIES else tuple(n.strip() for n in named.split(",") if n.strip())
            planned[match.group(1).lstrip("./")] = Planned(rest.split("|")[-1].strip() or rest, stories)
    return planned


_ESTIMATE = re.compile(r"estimated risk:\s*(\S+?)\.?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class PlanRisks:
    """The Risks section of a plan: the risk it estimates (`Estimated risk: high`) and the risks it names."""

    estimate: Risk | None
    named: list[str]


def plan_risks(facts: Facts) -> PlanRisks:
    """The run's approved plan's risks, else those of the Risks section of implementation-plan.md (a person's
    plan: `aidlc new plan BOLT` writes its template). Its bullets are the risks, `(none named)` none; an
    `Estimated risk:` that is no risk level is noted."""
    run = next((r for r in reversed(facts.runs) if r.plan is not None), None)
    if run is not None and run.plan is not None:
        return PlanRisks(run.plan.risk_level, list(run.plan.risks))
    text = plan_text(facts)
    estimate, risks, inside = None, [], False
    for line in (text or "").splitlines():
        if line.startswith("#"):
            inside = "risk" in line.lower()
        elif inside and (said := _ESTIMATE.match(line.strip())):
            level = said.group(1).strip("*_`").lower()
            if level in {r.value for r in Risk}:
                estimate = Risk(level)
            elif level not in ("not", "none"):
                note = (f"{PLAN_FILE}: 'Estimated risk: {one_line(said.group(1))}' is no risk level (low, "
                        "medium, high or critical): the plan's estimate is not counted")
                if note not in facts.notes:  # the section is read for the risk and for the risks
                    facts.notes.append(note)
        elif inside and line.lstrip().startswith(("- ", "* ")) and line.strip()[2:].strip() != NO_RISKS:
            risks.append(line.strip()[2:].strip())
    return PlanRisks(estimate, risks)


def bolt_risk(facts: Facts) -> Risk | None:
    """The highest of the bolt's `risk`, the run plan's estimate and a high or critical risk its plan was approved
    under. Lowering a risk needs the approvals the higher one required: one person may lower medium to low (one
    person approves a medium bolt), but what high or critical required (two people) stays."""
    known = [facts.bolt.meta.risk] if facts.bolt.meta and facts.bolt.meta.risk else []
    known += [risk for risk in facts.approved_risks if risk in (Risk.high, Risk.critical)]
    known += [r.plan.risk_level for r in facts.runs if r.plan is not None and r.plan.risk_level is not None]
    if not facts.runs and (estimate := plan_risks(facts).estimate) is not None:  # a person's plan
        known.append(estimate)
    return max(known, key=RISK_ORDER.index) if known else None


# -- sections ------------------------------------------------------------------------------------------------------
def traceability(facts: Facts, checks: list[ev.Check]) -> ev.Traceability:
    index = facts.index
    meta = facts.bolt.meta
    intent = index.intent(meta.intent) if meta else None
    stories = index.stories_of(facts.bolt)
    wanted = {link for story in stories for link in story.requirement_links}
    requirements = [ev.RequirementTrace(id=r.id, title=r.block.title) for r in (intent.requirements if intent else [])
                    if r.id in wanted or any(link.startswith(r.id + ".") for link in wanted)]
    return ev.Traceability(
        intent=intent.id if intent else (meta.intent if meta else None),
        requirements=requirements,
        stories=[ev.StoryTrace(id=s.id, path=s.rel, requirements=list(s.requirement_links),
                               criteria=[ev.Criterion(text=c.text, checked=c.checked) for c in s.criteria])
                 for s in stories],
        bolt=facts.bolt.id, commits=[c.sha[:12] for c in facts.commits], checks=[c.name for c in checks])


def changes(facts: Facts, planned: dict[str, Planned] | None) -> list[ev.FileChangeLine]:
    """Each changed file with the plan's reason and the stories it serves: those the plan names for it, else
    (a file the plan names no story for, or does not name) all of the bolt's."""
    lines = []
    for c in facts.line_counts:
        entry = planned.get(c.path) if planned else None
        named = entry.stories if entry else ()
        stories = named_stories(facts, c.path, named) if named else facts.index.stories_of(facts.bolt)
        lines.append(ev.FileChangeLine(
            path=c.path, status=c.status, added=c.added, removed=c.removed,
            reason=one_line(entry.reason) if entry else None, stories=[s.id for s in stories],
            stories_from="plan" if named else "bolt",
            requirements=list(dict.fromkeys(link for s in stories for link in s.requirement_links))))
    return lines


def named_stories(facts: Facts, path: str, refs: tuple[str, ...]) -> list[StoryItem]:
    """The bolt's stories `refs` name, once each; a name that is not one of them (the bank changed after the plan
    was checked, or a person wrote it) is noted, not guessed at."""
    found: dict[str, StoryItem] = {}
    for ref in refs:
        story = facts.index.story_of(facts.bolt, ref)
        if story is None:
            facts.notes.append(f"the plan names story {one_line(ref)!r} for {path}, which is not one of bolt "
                               f"{facts.bolt.id}'s stories")
        else:
            found.setdefault(story.id, story)
    return list(found.values())


def deviations(changed: list[ev.FileChangeLine], planned: dict[str, Planned] | None) -> list[ev.Deviation]:
    if planned is None:
        return [ev.Deviation(path=c.path, kind="unplanned") for c in changed]
    paths = {c.path for c in changed}
    return [*(ev.Deviation(path=c.path, kind="unplanned") for c in changed if c.path not in planned),
            *(ev.Deviation(path=p, kind="untouched") for p in sorted(planned) if p not in paths)]


def verify_changes(facts: Facts) -> list[ev.Deviation]:
    """What decides whether the bolt passes, changed by the bolt's own commits: aidlc.yaml's `verify` commands
    (when one of its commits changed them and the head's differ from the base's), and each file a verify command
    of the base or the head names (`./scripts/check.sh`) that one of its commits changed and that differs at the
    head. A
    person's commit (without the trailer) changing them is the person's decision, not the bolt's."""

    history = vcs.history(facts.repo)
    if history is None:
        return []

    def verify_at(commit: str) -> Any:
        return verify_of(history.read(commit, [CONFIG_FILE])[CONFIG_FILE])

    before, after = verify_at(facts.base), verify_at(facts.head)
    found = []
    if before != after:
        changing = [c.sha[:12] for c in facts.commits if CONFIG_FILE in c.paths
                    and verify_at(c.parents[0] if c.parents else vcs.EMPTY_TREE) != verify_at(c.sha)]
        if changing:
            found.append(ev.Deviation(path=CONFIG_FILE, kind="verify-changed", detail=one_line(
                f"the bolt's own commit(s) {', '.join(changing)} changed the verify commands: "
                f"{_verify_difference(before, after)}")))
    touched = {p for c in facts.commits for p in c.paths} & {c.path for c in facts.line_counts}
    named = [c for value in (before, after) if isinstance(value, list) for c in value]
    for path, name in dict(named_by_verify(named, touched - {CONFIG_FILE})).items():
        changing = [c.sha[:12] for c in facts.commits if path in c.paths]
        found.append(ev.Deviation(path=path, kind="verify-changed", detail=one_line(
            f"the bolt's own commit(s) {', '.join(changing)} changed it, and the verify command '{name}' runs it")))
    return found


def _verify_difference(before: Any, after: Any) -> str:
    """Which checks were added, removed or given another command, each with its command (cut to 80 characters)."""
    def runs(value: Any) -> dict[str, str] | None:
        if not isinstance(value, list):
            return None
        return {str(c.get("name")): str(c.get("run"))[:80] for c in value if isinstance(c, dict)}

    old, new = runs(before), runs(after)
    if old is None or new is None:
        return "the list of checks is missing or does not parse on one side"
    said = [f"'{name}' runs `{new[name]}` (was `{old[name]}`)" for name in new
            if name in old and new[name] != old[name]]
    said += [f"'{name}' removed (was `{old[name]}`)" for name in old if name not in new]
    said += [f"'{name}' added (`{new[name]}`)" for name in new if name not in old]
    return "; ".join(said) or "their other settings (a timeout, a JUnit report)"


def commits(found: list[vcs.Commit]) -> list[ev.Commit]:
    return [ev.Commit(sha=c.sha, short=c.sha[:12], subject=c.subject, author=c.author, email=c.email, date=c.date,
                      trailers=c.trailers) for c in found]


def rollback(facts: Facts) -> list[str]:
    return [f"git revert --no-edit {c.sha[:12]}    # {c.subject[:60]}" for c in reversed(facts.commits)]


def timeline(facts: Facts) -> list[ev.TimelineEntry]:
    """The bolt's ledger events but its checks (their own section) and the approvals of its walkthrough: those
    judge this report, and it must not change under them (writing it again would make them stale)."""
    shown = []
    for event in facts.events:
        if event.type == EventType.check_recorded or \
                (event.stage == "walkthrough" and event.decision == Decision.approve):
            continue
        detail = event.reason or event.datum("status") or event.datum("stage") or None
        shown.append(ev.TimelineEntry(seq=event.seq, ts=event.ts, type=str(event.type),
                                      actor=one_line(f"{event.actor.name} ({event.actor.kind})"), stage=event.stage,
                                      decision=str(event.decision) if event.decision else None,
                                      detail=one_line(str(detail)) if detail else None))
    return shown


def decision(facts: Facts, risk: Risk | None) -> ev.Decision:
    needed = 2 if risk in (Risk.high, Risk.critical) else 1
    who = "a person (not an agent, CI or a bot)" if needed == 1 else \
        "two distinct people (not agents, CI or bots), one after the other"
    return ev.Decision(gate="walkthrough", who=who, approvals_needed=needed,
                       command=f"aidlc gate approve {facts.bolt.id} --stage walkthrough --reason '...'")


def cost(facts: Facts) -> ev.Cost | None:
    if not facts.runs:
        return None
    return ev.Cost(runs=[r.run_id for r in facts.runs], model_calls=sum(r.budget.steps for r in facts.runs),
                   tokens=sum(r.budget.tokens for r in facts.runs), repairs=sum(r.repairs for r in facts.runs),
                   wall_time_s=round(sum(r.budget.elapsed_s for r in facts.runs), 1))


def flagged_risks(facts: Facts) -> list[str]:
    found = plan_risks(facts).named
    for run in facts.runs:
        found += [r for r in run.risks if r not in run.accepted_risks]
        found += [f"accepted by a person when the run paused: {r}" for r in run.accepted_risks]
    return list(dict.fromkeys(one_line(risk) for risk in found))


def one_line(text: str) -> str:
    """Text from the repository, a person or a model, as one line: it cannot start a heading or a section of
    the report."""
    return " ".join(text.split())


# -- checks --------------------------------------------------------------------------------------------------------
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
            for result in round_.get("results", []):
                if not result.get("passed"):
                    text = (result.get("head") or "") + (result.get("tail") or "")
                    found[(str(round_.get("commit")), str(result.get("name")))] = text[-EXCERPT_CHARS:]
    return found


def run_checks_now(facts: Facts, note: Callable[[str], None]) -> dict[tuple[str, str], str]:
    """Run the verify commands at HEAD (the same runner as `aidlc bolt`) and record each result; the failing
    outputs are returned. Nothing runs when HEAD does not hold the head's code, or files are uncommitted."""
    recorded = record_checks(facts.repo, facts.bank.config.verify, Ledger.of_bank(facts.repo, facts.bank.rel_root),
                             Subject(kind="bolt", id=facts.bolt.id), CodeMatch.of(facts), note,
                             f"aidlc walkthrough {facts.bolt.id}")
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
    results = run_checks(repo, verify)
    actor = actor or Actor(kind=ActorKind.agent, name="aidlc walkthrough")
    for result in results:
        fields = check_event(result, head_now, None, subject)
        fields = {k: v for k, v in fields.items() if v is not None}
        recorded.events.append(ledger.append(EventType.check_recorded, actor, **fields).event)
        if not result.passed:
            recorded.excerpts[(head_now, result.name)] = result.excerpt()[-EXCERPT_CHARS:]
        note(f"  {result.summary()}")
    return recorded


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
