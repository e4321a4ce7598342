"""The evidence report of a unit's code generation on the aidlc-docs layout (`aidlc walkthrough UNIT`), as a bolt's
is on the memory bank: the unit's code-generation plan, the commits that changed its code, the verify commands run
at HEAD (recorded in the ledger beside the docs), the ledger's gate decisions on its stages, the approvals audit.md
records for it (history only), and the findings of the layout's rules about it.

Which commits are the unit's is a heuristic, said in the report. A commit is the unit's when it changes a path the
unit's code summary or code-generation plan names (a backticked or slashed path outside the docs that exists at
HEAD), or when it changes a file outside the docs and its subject or `Aidlc-Unit` trailer names the unit: its folder
(`customer-spa`, also written `Customer SPA`), the folder's name without its number (`api-server` of
`unit-1-api-server`), its number (`Unit 1`, `unit1`, `U1`: from the folder's name, or for a folder without one,
from the audit log's entries naming both), or a conventional-commit scope that is the name or its first word
(`feat(customer): ...`). A path another unit's files name too (a root `pom.xml`, a module every unit depends on) is
shared, and counts only for the unit whose name it spells (`plsql2java-discovery` for `unit1-discovery`). A commit
that changed the unit's code under a path no file names, at a path since deleted or renamed, or saying so only in
its message body, is not found.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.aidlc_docs.audit import person_words
from aidlc.aidlc_docs.model import DocsProject, RecordsWorkspace
from aidlc.aidlc_docs.plans import plan_boxes, unit_plan
from aidlc.aidlc_docs.records import WORKSPACE
from aidlc.aidlc_docs.stages import BY_SLUG
from aidlc.aidlc_docs.units import folder_words, unit_of, units_of
from aidlc.bank.config import load_config, records_folder
from aidlc.bank.walk import read_inside
from aidlc.bank.write import atomic_write
from aidlc.bolt import suppressions
from aidlc.bolt.walkthrough_file import fence, generated_block, merge, person_text
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger
from aidlc.events.view import open_view, verified
from aidlc.gates.catalogue import DOCS_UNIT_STAGES, GateTarget, fingerprint, record_targets
from aidlc.gates.evidence import commits
from aidlc.gates.evidence_report import digest
from aidlc.gates.facts import one_line
from aidlc.gates.recorded_checks import CodeMatch, checks, record_checks
from aidlc.model import unit_evidence as uev
from aidlc.model.config import Config
from aidlc.model.events import CheckRecord, Decision, Event, EventType, Subject
from aidlc.model.findings import Finding
from aidlc.model.types import Severity
from aidlc.names import command
from aidlc.rules import validate
from aidlc.rules.docs_approvals import Units, approvals
from aidlc.templating import render

TRAILER = "Aidlc-Unit"
STAGE = "code-generation"
WALKTHROUGH = "walkthrough.md"  # in construction/<unit>/code/; not judged by the code-generation gate
# A path in a code summary or plan: in backticks, or a word with a slash (`src/orders.py`, src/app/).
_PATH = re.compile(r"`([^`\s]+)`|(?<![\w/.:-])((?:[\w.-]+/)+[\w.-]*)")
_SCOPE = re.compile(r"^\w+\(([^)]{1,40})\)!?:")  # a conventional commit's scope: feat(customer): ...


def walkthrough_rel(project: DocsProject, unit: str) -> str:
    """The unit's walkthrough file: in its code/ folder; on a v2 record beside its stage folders (in none, so no
    gate judges it)."""
    if project.record is not None:
        return f"{project.rel}/construction/{unit}/{WALKTHROUGH}"
    return f"{project.rel}/construction/{unit}/code/{WALKTHROUGH}"


def record_unit(workspace: RecordsWorkspace, name: str) -> GateTarget:
    """The unit of a v2 workspace that `name` means: UNIT, INTENT/UNIT or SPACE/INTENT/UNIT (a folder under an intent
    record's construction/); refused with the units there are when it names none, or several."""
    units = [target for record in workspace.records if record.record is not None
             for target in record_targets(record)[1:]]
    found = [t for t in units if name in (t.id, t.id.split("/", 1)[1], t.id.rsplit("/", 1)[1])]
    if len(found) != 1:
        listed = ", ".join(t.id for t in units) or "none"
        raise UsageError(f"{'more than one unit' if found else 'no unit'} {name!r} in {workspace.rel}/spaces/ (the "
                         f"units, SPACE/INTENT/UNIT: {listed})", ["aidlc status    # the records and their stages",
                                                                 "aidlc walkthrough INTENT/UNIT"])
    return found[0]


def build_unit(project: DocsProject, config: Config, unit: str, *, run: bool = True,
               note: Callable[[str], None] = lambda _: None, target: GateTarget | None = None
               ) -> uev.UnitEvidenceReport:
    """The report of `unit` (a folder under construction/; of a v2 record: `target`, from `record_unit`). With
    `run`, the verify commands run at HEAD, and are recorded, when no check was recorded for HEAD's code."""

    if target is None:
        if unit not in project.units:
            units = ", ".join(project.units) or "none"
            raise UsageError(f"no unit {unit!r} in {project.rel}/construction/ (the units: {units})",
                             ["aidlc status    # the units and their stages", "aidlc walkthrough UNIT"])
        target = GateTarget("unit", unit, DOCS_UNIT_STAGES, docs=project)
    unit = target.id.rsplit("/", 1)[-1]
    v2 = project.record is not None
    # a v2 record's ledger is the records folder's; its code is outside the whole workspace
    folder = records_folder(load_config(Path(project.root)), "aidlc-docs") if v2 else project.rel
    docs = WORKSPACE if v2 else project.rel
    repo = Path(project.root)
    head = vcs.head_commit(repo)
    if head is None:
        raise UsageError(f"{repo}: no commit yet: there is nothing to report on", ["git commit ..."])
    notes: list[str] = []
    plan = _plan(project, unit, notes)
    outside = tuple(dict.fromkeys((docs, folder, ".aidlc")))  # the records, their ledger, aidlc's own
    paths = _code_paths(project, unit, repo, head, docs)
    found = _commits(project, unit, paths, outside)
    if not found:
        notes.append(f"no commit changed a path the unit's code summary or plan names, nor changed code naming "
                     f"{unit} (its name, number or scope) in its subject or an `{TRAILER}: {unit}` trailer")
    view = verified(Ledger.of_bank(project.root, folder), "no evidence is read from it or recorded in it", open_view)
    subject = Subject(kind="unit", id=target.id)
    events = [e for _, e in view.events if e.subject == subject]
    current = CodeMatch(repo, head, outside)
    recorded = [CheckRecord.of_event(e) for e in events if e.type == EventType.check_recorded]
    excerpts: dict[tuple[str, str], str] = {}
    if run and not any(current(check.commit) for check in recorded):
        ran = record_checks(repo, config.verify, view.ledger, subject, current, note,
                            command("walkthrough", target.id))
        recorded += ran.checks
        excerpts, notes = ran.excerpts, notes + ran.notes
    found_checks = checks(recorded, current, excerpts)
    at_head = [c for c in found_checks if c.current]
    passed = bool(at_head) and all(c.passed for c in at_head)
    findings = unit_findings(project, unit, validate(project).findings, folder)
    return uev.UnitEvidenceReport(
        unit=target.id, docs=project.rel, head=head, plan=plan, code_paths=paths, commits=found,
        silenced=_silenced(repo, found), checks=found_checks,
        checks_passed=passed, decisions=_decisions(target, events), audit_approvals=_audit(project, unit),
        findings=findings, satisfied=passed and not any(f.severity == Severity.error for f in findings),
        notes=list(dict.fromkeys(notes)))


def _plan(project: DocsProject, unit: str, notes: list[str]) -> uev.UnitPlan | None:
    rel = next((rel for rel in project.files if _is_plan(project, rel, unit)), None)
    if rel is None:
        where = f"{unit}/{STAGE}" if project.record is not None else "plans"
        notes.append(f"no code-generation plan of {unit} in {project.rel}/construction/{where}/")
        return None
    text = _read(Path(project.root), rel, notes)
    steps = [uev.PlanStep(line=line, done=box in "xX", text=one_line(said))
             for line, box, said in plan_boxes(text or "")]
    done = sum(step.done for step in steps)
    return uev.UnitPlan(path=rel, steps=steps, done=done, open=len(steps) - done)


def _read(repo: Path, rel: str, notes: list[str]) -> str | None:
    try:
        return read_inside(repo / rel, repo).decode("utf-8", errors="replace")
    except OSError as exc:
        notes.append(f"{rel} is not read ({exc.strerror or exc})")
        return None


def _is_plan(project: DocsProject, rel: str, unit: str) -> bool:
    """Whether `rel` is the unit's code-generation plan: construction/plans/<unit>-code-generation-plan.md, or on a
    v2 record construction/<unit>/code-generation/code-generation-plan.md."""
    if project.record is not None:
        return rel == f"{project.rel}/construction/{unit}/{STAGE}/{STAGE}-plan.md"
    return unit_plan(project, rel, STAGE) == unit


def _code_paths(project: DocsProject, unit: str, repo: Path, head: str, docs: str) -> list[str]:
    """The paths outside `docs` that the unit's code summary (construction/<unit>/code/*.md; on a v2 record the
    Markdown of construction/<unit>/code-generation/) and code-generation plan name, and HEAD holds (a file, or a
    folder holding files); a path another unit's files name too only when it spells the unit's name."""
    named = {name: _named_paths(project, name, repo, docs) for name in dict.fromkeys([*project.units, unit])}
    shared = {path for other, paths in named.items() if other != unit for path in paths}
    spelled = _name(unit).lower()
    files = vcs.files_at(repo, head)
    return [path for path in named[unit] if (path not in shared or spelled in path.lower())
            and any(f == path or f.startswith(path.rstrip("/") + "/") for f in files)]


def _named_paths(project: DocsProject, unit: str, repo: Path, docs: str) -> list[str]:
    code = f"{project.rel}/construction/{unit}/{STAGE if project.record is not None else 'code'}/"
    sources = [rel for rel in project.files if rel.startswith(code) and rel.endswith(".md")
               and rel != walkthrough_rel(project, unit)]
    sources += [rel for rel in project.files if _is_plan(project, rel, unit) and rel not in sources]
    named: list[str] = []
    for rel in sources:
        for match in _PATH.finditer(_read(repo, rel, []) or ""):
            path = (match.group(1) or match.group(2)).strip("./").rstrip(".,;:)")
            if path and vcs.is_outside(path, (docs,)) and path not in named:
                named.append(path)
    return named


def _name(unit: str) -> str:
    """The unit folder's name without its number: `unit-1-api-server` -> api-server, `u2-chat` -> chat."""
    return re.sub(r"^(?:unit|u)[-_ ]?\d+[-_ ]?", "", unit, flags=re.IGNORECASE) or unit


def _commits(project: DocsProject, unit: str, paths: list[str], outside: tuple[str, ...]) -> list[uev.UnitCommit]:
    """The unit's commits; `outside`: the folders whose files are no code (the records, their ledger, .aidlc)."""
    repo = Path(project.root)
    name = _name(unit)
    # `customer-spa` is also written `Customer SPA` or `customer_spa`
    named = re.compile("|".join(folder_words(word) for word in dict.fromkeys((unit, name))), re.IGNORECASE)
    scopes = {unit.lower(), name.lower(), name.split("-")[0].lower()}
    number = unit_of(unit) or Units(project).alias.get(unit)
    found = []
    for commit in vcs.commits_in(repo):
        code = [p for p in commit.paths if vcs.is_outside(p, outside)]
        how: list[Any] = []
        if any(p == path or p.startswith(path.rstrip("/") + "/") for p in code for path in paths):
            how.append("path")
        scope = _SCOPE.match(commit.subject)
        if code and (named.search(commit.subject) or commit.trailers.get(TRAILER) == unit
                or (scope is not None and scope.group(1).strip().lower() in scopes)
                or (number is not None and number in units_of(commit.subject))):
            how.append("message")
        if how:
            found.append(uev.UnitCommit(commit=commits([commit])[0], found_by=how, paths=code))
    return found


def _silenced(repo: Path, found: list[uev.UnitCommit]) -> list[uev.SilencedLines]:
    """The lines each of the unit's commits added to its code that silence a check (one `git diff` a commit)."""
    silenced = []
    for unit_commit in found:
        commit = unit_commit.commit
        for path, lines in suppressions.added(vcs.commit_diff(repo, commit.sha, unit_commit.paths)).items():
            silenced.append(uev.SilencedLines(path=path, commit=commit.short, lines=[
                one_line(f"{number}: {text}") for number, text in lines]))
    return silenced


def _decisions(target: GateTarget, events: list[Event]) -> list[uev.GateDecision]:
    latest: dict[str, int] = {}
    decided = [e for e in events if e.type == EventType.gate_decided]
    for event in decided:
        latest[str(event.stage)] = event.seq
    shown = []
    for event in decided:
        stage = str(event.stage)
        recorded = event.fingerprint.sha256 if event.fingerprint is not None else None
        now = fingerprint(None, None, target, stage, event) if stage in target.stages else None
        shown.append(uev.GateDecision(
            seq=event.seq, ts=event.ts, stage=stage, decision=str(event.decision),
            actor=one_line(f"{event.actor.name} ({event.actor.kind})"),
            reason=one_line(event.reason) if event.reason else None,
            current=event.decision == Decision.approve and latest.get(stage) == event.seq
            and now is not None and now.sha256 == recorded))
    return shown


def _audit(project: DocsProject, unit: str) -> list[uev.AuditApproval]:
    if project.record is not None:  # v2: the shards' GATE_APPROVED rows naming the unit
        return [uev.AuditApproval(path=e.path, line=e.entry.line, stage=e.entry.fields.get("stage", "").strip(),
                                  timestamp=e.entry.timestamp, heading=e.entry.heading,
                                  user_input=one_line(e.entry.fields.get("user_input", "")))
                for e in project.record.events
                if e.event == "GATE_APPROVED" and e.entry.fields.get("unit", "").strip() == unit]
    keys = {unit, unit_of(unit), Units(project).alias.get(unit)} - {None}
    entries = approvals(project)
    shown = []
    for stage in DOCS_UNIT_STAGES:
        for key in keys:
            for entry in entries.get((stage, key), []):
                log = next(log.path for log in project.audits if entry in log.entries)
                said = person_words(entry.fields.get("user_input") or entry.fields.get("user_response") or "")
                shown.append(uev.AuditApproval(path=log, line=entry.line, stage=stage, timestamp=entry.timestamp,
                                               heading=entry.heading, user_input=one_line(said).strip("\"“”")))
    return sorted(shown, key=lambda a: (a.path, a.line))


def unit_findings(project: DocsProject, unit: str, findings: list[Finding], ledger_folder: str | None = None
                  ) -> list[Finding]:
    """The findings about the unit: on its folder or its plans, on a line of aidlc-state.md or an entry of an audit
    log about it (a v2 block whose Unit is the unit), or on the ledger (of `ledger_folder`, default the docs
    folder's) naming it."""
    folder = f"{project.rel}/construction/{unit}/"
    plans = {rel for rel in project.files for stage in DOCS_UNIT_STAGES if unit_plan(project, rel, stage) == unit}
    keys = {unit, unit_of(unit)} - {None}
    state_lines = {line.line for line in (project.state.stages if project.state else [])
                   if line.unit in keys and line.stage is not None and BY_SLUG[line.stage].per_unit}
    units = Units(project)
    entries = {log.path: [(e.line, e.end) for e in log.entries if units.of(e) in keys
                          or e.fields.get("unit", "").strip() == unit] for log in project.audits}
    ledger = Ledger.of_bank(project.root, ledger_folder or project.rel).rel
    named = re.compile(rf"(?<![\w-]){re.escape(unit)}(?![\w-])")

    def about(finding: Finding) -> bool:
        if finding.path.startswith(folder) or finding.path in plans:
            return True
        if project.state is not None and finding.path == project.state.path:
            return finding.line in state_lines
        if finding.path in entries:
            return any(first <= (finding.line or 0) <= last for first, last in entries[finding.path])
        return finding.path == ledger and bool(named.search(finding.message))

    return [finding for finding in findings if about(finding)]


@dataclass(frozen=True)
class UnitWritten:
    report: uev.UnitEvidenceReport
    digest: str
    rel: str  # the walkthrough file, relative to the repository
    block: str  # the generated block, as it is (or would be) written


def write_unit_walkthrough(project: DocsProject, config: Config, unit: str, *, run: bool = True,
                           note: Callable[[str], None] = lambda _: None, write: bool = True,
                           target: GateTarget | None = None) -> UnitWritten:
    """Build the unit's report and write it into construction/<unit>/code/walkthrough.md (on a v2 record, of
    `target`: construction/<unit>/walkthrough.md; not with `write` False), inside the generated block: a person's
    notes around it survive."""

    report = build_unit(project, config, unit, run=run, note=note, target=target)
    unit = report.unit.rsplit("/", 1)[-1]
    found = digest(report)
    body = render("artifacts/unit-walkthrough.md.j2", r=report, fence=fence)
    block = generated_block(report.head, found, body)
    repo = Path(project.root)
    rel = walkthrough_rel(project, unit)
    if write:
        existing = None
        if (repo / rel).exists():
            try:
                existing = person_text(read_inside(repo / rel, repo), rel, command("walkthrough", report.unit))
            except OSError:
                raise UsageError(f"{rel}: not rewritten (not a regular file inside the repository)",
                                 ["replace it with a regular file, then run " + command("walkthrough", report.unit)]
                                 ) from None
        atomic_write(repo / rel, merge(existing, block), repo)
    return UnitWritten(report, found, rel, block)
