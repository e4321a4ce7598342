"""The status of a project in the aidlc-docs layout: stage progress per phase and per unit from aidlc-state.md and
the plans, what waits for a person, and the next safe actions; and of each aidlc-workflows v2 intent record, from
its stage rows."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from aidlc.aidlc_docs.model import AuditEntry, DocsProject, Mark, PlanFile, RecordsWorkspace, StageLine, StateRow
from aidlc.aidlc_docs.plans import names_unit, plan_of_unit
from aidlc.aidlc_docs.stages import BY_SLUG, ORDER, STAGES, title
from aidlc.events.audit import PENDING as AUDIT_PENDING
from aidlc.events.audit import interrupted_append
from aidlc.events.ledger import Ledger, no_ledger
from aidlc.events.view import GateHistory, LedgerView, readable_view
from aidlc.gates.catalogue import DOCS_ALWAYS, GateTarget, docs_judged_files, docs_skipped, docs_targets
from aidlc.gates.history import standing
from aidlc.gates.order import check_docs_order
from aidlc.gates.refusals import GateRefused
from aidlc.model.events import EventType
from aidlc.model.findings import Finding
from aidlc.model.status import (
    Action,
    DocsPhase,
    DocsPlan,
    DocsStageLine,
    DocsStatusReport,
    DocsUnit,
    GateStatus,
    RecordPhase,
    RecordRow,
    RecordsStatusReport,
    RecordStatus,
    UnreadLog,
)
from aidlc.model.types import Severity
from aidlc.names import arg, gate_command, shown
from aidlc.plural import plural
from aidlc.rules import run_docs_rules, run_records_rules
from aidlc.rules.docs_approvals import Units, approvals, logged_approval
from aidlc.rules.docs_history import LOG_REMOVED, STATE_REMOVED
from aidlc.rules.docs_layout import LOG_OUTSIDE, conflict_markers, cut, some_lines, unread_logs
from aidlc.rules.docs_standing import Claim, approval_claims, logs_unreadable
from aidlc.status.actions import count, fix_errors
from aidlc.status.gates import last_decision

PHASES = tuple(dict.fromkeys(stage.phase for stage in STAGES))


def build_docs_status(project: DocsProject, ledger: Ledger, bots: Sequence[str]) -> DocsStatusReport:
    """`bots`: aidlc.yaml's governance.bot_emails (an approval under one is no person's). Every rule of `aidlc
    validate` runs, as on a memory bank: its errors come first among the next safe actions."""
    lines = project.state.stages if project.state else []
    state = project.state.path if project.state else None
    placed = [line for line in lines if line.stage is not None
              and not (project.state and project.state.earlier_feature(line))]
    units = Units(project)  # one reading of the audit entries for approvals, for every reader below
    approvals = _AuditApprovals(project, units, placed)
    phases = [_phase(phase, [line for line in placed if _phase_of(line) == phase and line.unit is None],
                     [plan for plan in project.plans if plan.unit is None and plan.stage is not None
                      and BY_SLUG[plan.stage].phase == phase], approvals) for phase in PHASES]
    views: dict[Path, LedgerView] = {}  # the ledger the rules open, read once for the gates too
    findings = run_docs_rules(project, ledgers=views, units=units)
    gates, decide = _gates(project, ledger, bots, views)
    waiting = decide + _waiting(project, units, placed, state)
    has_ledger = ledger.exists()
    # The records' own files first (the log deleted, then the rule that ignores it): restoring them comes first.
    put_back = sorted((finding for finding in findings if finding.code in _PUT_BACK),
                      key=lambda finding: not finding.path.startswith(f"{project.rel}/"))
    return DocsStatusReport(
        root=project.root, folder=project.rel, state=state,
        phases=[phase for phase in phases if phase.total or phase.plans],
        units=_units(project, placed, approvals),
        audit_entries=sum(len(log.entries) for log in project.audits),
        unread_logs=[UnreadLog(path=log.path, text_lines=log.text_lines) for log in unread_logs(project)],
        recorded_entries=sum(event.type == EventType.audit_appended for event in ledger.events())
        if has_ledger else 0,
        audit_notes=[_said(finding) for finding in put_back if finding.code in _LOG_MISSING],
        ledger=has_ledger,
        gates=gates,
        errors=count(findings, Severity.error),
        warnings=count(findings, Severity.warning),
        ticked=len(approvals.claimed),
        unapproved=None if approvals.unknown else len(approvals.unapproved),
        notes=_notes(project, lines, state),
        waiting=waiting,
        next_actions=_next_actions(project, placed, waiting, approvals, ledger, has_ledger, state, findings,
                                   put_back),
    )


# The findings that the project's audit log is not where the rules read it, kept outside the docs folder or deleted,
# emptied or git-ignored by a commit (bart2001/aidlc-workshop's 8482418), and that the state file was deleted: putting
# them back comes before `aidlc init`, whose ledger records how many entries the log held, and before the other errors.
_LOG_MISSING = (LOG_OUTSIDE.code, LOG_REMOVED.code)
_PUT_BACK = (*_LOG_MISSING, STATE_REMOVED.code)


def _said(finding: Finding) -> str:
    return f"{finding.message} ({finding.code})"


class _AuditApprovals:
    """The approval each ticked line of `placed` stands on, as AIDLC-DOCS-003 reads it (aidlc/rules/docs_standing.py):
    by line, the claims of the stage of each unit it claims; `unknown` where an audit log cannot be read."""

    def __init__(self, project: DocsProject, units: Units, placed: list[StageLine]) -> None:
        self.unknown = logs_unreadable(project)
        shown = {id(line) for line in placed}
        self.claimed: dict[int, list[Claim]] = {}
        for claim in approval_claims(project, units):
            if id(claim.line) in shown:
                self.claimed.setdefault(id(claim.line), []).append(claim)
        self.unapproved = [] if self.unknown else [claims[0].line for claims in self.claimed.values()
                                                   if any(claim.approval is None for claim in claims)]

    def of(self, line: StageLine) -> tuple[bool | None, list[str]]:
        """(approved, where) of a line: None where it claims nothing that needs an approval, or is unknown."""
        claims = self.claimed.get(id(line))
        if not claims or self.unknown:
            return None, []
        where = [f"{claim.log}:{claim.approval.line}" for claim in claims if claim.approval is not None]
        return all(claim.approval is not None for claim in claims), list(dict.fromkeys(where))


def _gates(project: DocsProject, ledger: Ledger, bots: Sequence[str], views: dict[Path, LedgerView],
           ) -> tuple[list[GateStatus], list[Action]]:
    """Each subject's gates in the ledger beside the docs, once a person has decided one of the project's (until then
    audit.md is the record, as AIDLC-DOCS-041 reads it): its first stage, in the documented order, that waits for a
    person's current approval, and its last decision; and that stage's decision as a step. None while the ledger
    does not verify (`aidlc validate` says why)."""
    if project.record is not None or not ledger.exists():
        return [], []
    view = views[ledger.path] if ledger.path in views else readable_view(ledger)
    if view.error is not None or view.first_error is not None \
            or not any(kind in ("phase", "unit") for kind, _, _ in view.history.gates()):
        return [], []
    gates, decide = [], []
    for target in docs_targets(project):
        pending, why = next(((stage, why) for stage in target.stages
                             if (why := _waits(view.history, target, stage, bots)) is not None), (None, None))
        last = view.history.last_of(target.kind, target.id)
        gates.append(GateStatus(kind=target.kind, id=target.id, pending=pending,
                                last=None if last is None else last_decision(last)))
        if pending is not None and _in_order(view.history, target, pending, bots):
            decide.append(Action(reason=f"{target.kind} {shown(target.id)}: the {pending} gate {why}",
                                 command=gate_command(target.id, pending)))
    return gates, decide


def _in_order(history: GateHistory, target: GateTarget, stage: str, bots: Sequence[str]) -> bool:
    """Whether the gate would take a decision of the stage now: the stages it comes after are approved."""
    try:
        check_docs_order(history, target, stage, bots)
    except GateRefused:
        return False
    return True


def _waits(history: GateHistory, target: GateTarget, stage: str, bots: Sequence[str]) -> str | None:
    """Why a stage of a subject waits for a person's decision, as the gates read it; None where it does not: approved
    as its files stand, marked skipped, or a conditional stage that wrote nothing (it did not run)."""
    if docs_skipped(target, stage) or (stage not in DOCS_ALWAYS and not docs_judged_files(target, stage)[1]):
        return None
    return standing(history, None, None, target, stage, bots)


def _phase_of(line: StageLine) -> str | None:
    return BY_SLUG[line.stage].phase if line.stage is not None else None


def _line(line: StageLine, approvals: _AuditApprovals) -> DocsStageLine:
    approved, where = approvals.of(line)
    return DocsStageLine(line=line.line, text=line.text, stage=line.stage, mark=str(line.mark), skipped=line.skipped,
                         awaiting=line.awaiting or line.mark == Mark.awaiting, unit=line.unit, approved=approved,
                         approvals=where)


def _phase(phase: str, lines: list[StageLine], plans: list[PlanFile], approvals: _AuditApprovals) -> DocsPhase:
    return DocsPhase(phase=phase, done=sum(line.mark == Mark.done for line in lines), total=len(lines),
                     stages=[_line(line, approvals) for line in lines], plans=[_plan(plan) for plan in plans])


def _plan(plan: PlanFile) -> DocsPlan:
    return DocsPlan(path=plan.path, stage=plan.stage, done=plan.done, open=len(plan.open))


def _units(project: DocsProject, placed: list[StageLine], approvals: _AuditApprovals) -> list[DocsUnit]:
    """Each unit as the state's lines or the plans' names give it, in the order first met, with its folders; a plan
    under the unit of the state's lines the rules judge it with (`unit1-backend-...-plan.md` is unit 1's, as `Unit
    1` is named there), else under its own name."""
    # A line naming a folder that a heading ties to a number (`(EXECUTE, frontend)` under `## Unit 2: Frontend`) is
    # that number's unit, as the rules read it: one unit, not two.
    named = list(dict.fromkeys(project.unit_numbers.get(line.unit, line.unit) for line in placed if line.unit))
    owner = {plan.path: plan.unit if plan.unit in named else
             next((name for name in named if plan_of_unit(project, plan, name)), plan.unit)
             for plan in project.plans if plan.unit is not None}
    units = []
    for name in dict.fromkeys([*named, *owner.values()]):
        lines = [line for line in placed if line.unit and project.unit_numbers.get(line.unit, line.unit) == name]
        folders = [folder for folder in project.units if names_unit(project, folder, name)]
        units.append(DocsUnit(unit=name, folders=folders, done=sum(line.mark == Mark.done for line in lines),
                              total=len(lines), stages=[_line(line, approvals) for line in lines],
                              plans=[_plan(plan) for plan in project.plans if owner.get(plan.path) == name]))
    return units


def _waiting(project: DocsProject, units: Units, placed: list[StageLine], state: str | None) -> list[Action]:
    """The stages waiting for a person's approval: not a ticked line that says it awaits one already logged (u-10bei:
    ten such lines, never brought up to date; AIDLC-DOCS-004 says so among the next actions, and to log no second)."""
    @functools.cache
    def given() -> dict[tuple[str, str | None], list[AuditEntry]]:
        return approvals(project, units)

    waiting = []
    for line in placed:
        awaiting = line.awaiting or line.mark == Mark.awaiting
        if not awaiting or (line.mark == Mark.done and logged_approval(project, given(), units, line)):
            continue
        name = _name(line)
        command = (f'aidlc audit append --stage {line.stage} --user-input "<the person\'s words, verbatim>" '
                   '--ai-response "<what the agent does next>"')
        if line.mark == Mark.done:
            waiting.append(Action(reason=f"{name} is ticked yet says it awaits approval ({state}:{line.line}): a "
                                  "person approves it, or the tick comes off", command=command))
        else:
            waiting.append(Action(reason=f"{name} waits for a person's approval ({state}:{line.line})",
                                  command=command))
    return waiting


def _name(line: StageLine) -> str:
    assert line.stage is not None
    return title(line.stage) + (f" of unit {line.unit}" if line.unit else "")


def _next_actions(project: DocsProject, placed: list[StageLine], waiting: list[Action], approvals: _AuditApprovals,
                  ledger: Ledger, has_ledger: bool, state: str | None, findings: list[Finding],
                  put_back: list[Finding]) -> list[Action]:
    actions = [Action(reason=f"{path} holds merge-conflict markers (lines {', '.join(map(str, lines[:5]))}): "
                      "resolve them before anything else is decided", command=f"git log -p -- {arg(path)}")
               for path, lines in conflict_markers(project).items()]
    actions += [Action(reason=_said(finding), command=finding.fix) for finding in put_back]
    if not has_ledger:
        missing = no_ledger(ledger)
        actions.append(Action(reason=missing.message, command=missing.next_steps[0] if missing.next_steps else None))
    actions += fix_errors([finding for finding in findings if finding not in put_back], more=bool(put_back)) + waiting
    if approvals.unapproved:
        first = approvals.unapproved[0]
        actions.append(Action(reason=f"{plural(len(approvals.unapproved), 'ticked stage')} with no approval of "
                              f"a person in the audit log, the first {_name(first)} ({state}:{first.line}): the person "
                              "reviews and approves each, their words logged, or its tick comes off",
                              command="aidlc validate    # AIDLC-DOCS-003 names each"))
    if waiting or approvals.unapproved:  # the documented order: nothing after a stage that waits for its approval
        return actions
    upcoming = sorted((line for line in placed if line.mark not in (Mark.done, Mark.skipped) and not line.skipped),
                      key=lambda line: (ORDER[line.stage or ""], line.line))
    if upcoming:
        line = upcoming[0]
        actions.append(Action(reason=f"next stage: {_name(line)} ({state}:{line.line}); log each exchange with "
                              "the person as it happens", command=f'aidlc audit append --stage {line.stage} '
                              '--user-input "<the person\'s words, verbatim>" --ai-response "<the answer>"'))
    elif placed:
        actions.append(Action(reason=f"every stage line of {state} is ticked or skipped"))
    else:
        listed = "aidlc-state.md lists no stage aidlc knows yet" if state is not None else \
            f"{project.rel}/ holds no aidlc-state.md to list a stage"
        actions.append(Action(reason=f"{listed}: the workflow starts with Workspace Detection", command=None))
    if has_ledger:
        actions.append(Action(reason="check the ledger and every audit entry it records", command="aidlc log verify"))
    return actions


def _notes(project: DocsProject, lines: list[StageLine], state: str | None) -> list[str]:
    unknown = [line for line in lines if line.stage is None and line.depth == 0 and not line.archived]
    notes = [f"{state}:{line.line}: {cut(line.text)!r} names no stage aidlc knows; it is not counted"
             for line in unknown[:_UNKNOWN_SHOWN if len(unknown) > _UNKNOWN_AT_MOST else None]]
    if len(unknown) > _UNKNOWN_AT_MOST:  # a state file that keeps a diary in checkboxes: the progress stays on screen
        rest = [line.line for line in unknown[_UNKNOWN_SHOWN:]]
        notes.append(f"{state}: {len(rest)} more lines name no stage aidlc knows (lines {some_lines(rest, 40)}); "
                     "they are not counted: `aidlc validate` names each (AIDLC-DOCS-012)")
    earlier = [line.line for line in lines if project.state and project.state.earlier_feature(line)]
    if earlier:
        notes.append(f"{state}:{earlier[0]}-{earlier[-1]}: {len(earlier)} stage lines under an archive heading "
                     "are earlier features'; they are not counted")
    notes += [f"{item.path}: {item.message}" for item in project.unreadable]
    if state is None:
        notes.append(f"no {project.rel}/aidlc-state.md: no stage progress to show")
    return notes + _interrupted(project)


_UNKNOWN_AT_MOST = 5  # unknown lines given a note each; beyond, the first _UNKNOWN_SHOWN and one for the rest
_UNKNOWN_SHOWN = 3


def _interrupted(project: DocsProject) -> list[str]:
    """A note when an `aidlc audit append` into this folder was interrupted: until the next append settles it, the
    end of that log may be part of an entry (aidlc/events/audit.py)."""
    pending = interrupted_append(Path(project.root))
    if pending is None or not (pending == "" or pending.startswith(f"{project.rel}/")):
        return []
    where = pending or "the audit log"
    return [f"an `aidlc audit append` was interrupted ({AUDIT_PENDING.as_posix()}): the end of {where} may be part of "
            "the entry it was writing; the next `aidlc audit append` finishes it or cuts it off"]


# -- aidlc-workflows v2 intent records ------------------------------------------------------------------------------
# v2's engine owns every state transition (aidlc-orchestrate report --stage <slug> --result ...); aidlc only reads
# the rows, so what it names for a person is the step v2 expects, not a command of its own.
def build_records_status(workspace: RecordsWorkspace) -> RecordsStatusReport:
    """Every rule of `aidlc validate` runs: each record counts the findings on its own files, its errors first among
    its next safe actions."""
    findings = run_records_rules(workspace)
    records = [_record(project, [found for found in findings if found.path.startswith(f"{project.rel}/")])
               for project in workspace.records]
    return RecordsStatusReport(root=workspace.root, folder=workspace.rel, migrated=workspace.migrated,
                               records=records, errors=count(findings, Severity.error),
                               warnings=count(findings, Severity.warning),
                               waiting=[action for record in records for action in record.waiting])



def _record(project: DocsProject, findings: list[Finding]) -> RecordStatus:
    assert project.record is not None
    record = project.record
    state = project.state.path if project.state else None
    phases: dict[str, list[StateRow]] = {}
    for row in record.rows:
        phases.setdefault(row.phase or "", []).append(row)
    where = f"record {record.name}"
    waiting = [Action(reason=f"{where}: the gate of `{row.slug}` is open ({state}:{row.line}): the person approves "
                      "or rejects it in the agent's session, where v2's human-turn hook records their prompt, and "
                      f"v2's engine records the decision (`aidlc-orchestrate report --stage {row.slug} --result "
                      "approved` or `rejected`); then `aidlc validate` checks the approval has its human turn")
               for row in record.rows if row.mark == Mark.awaiting]
    notes = [f"{item.path}: {item.message}" for item in project.unreadable] + _interrupted(project)
    if state is None:
        notes.append(f"no {project.rel}/aidlc-state.md: no stage rows to show")
    elif not record.rows:
        notes.append(f"{state} holds no stage row (`- [ ] <slug> — EXECUTE`)")
    return RecordStatus(
        folder=project.rel, space=record.space, name=record.name, state=state,
        phases=[RecordPhase(phase=phase, done=sum(row.mark == Mark.done for row in rows),
                            skipped=sum(row.mark == Mark.skipped for row in rows), total=len(rows),
                            rows=[_row(row) for row in rows]) for phase, rows in phases.items()],
        audit_events=len(record.events), shards=len(project.audits), errors=count(findings, Severity.error),
        warnings=count(findings, Severity.warning), notes=notes, waiting=waiting,
        next_actions=_record_next(project, waiting, state, findings))


def _row(row: StateRow) -> RecordRow:
    return RecordRow(line=row.line, slug=row.slug, box=row.box, mark=str(row.mark), decision=row.decision)


def _record_next(project: DocsProject, waiting: list[Action], state: str | None, findings: list[Finding],
                 ) -> list[Action]:
    """Conflicts first, then the open gates; else the first row neither completed nor skipped, in the file's order
    (v2 writes the rows in the order its engine runs them)."""
    assert project.record is not None
    actions = [Action(reason=f"{path} holds merge-conflict markers (lines {', '.join(map(str, lines[:5]))}): "
                      "resolve them before anything else is decided", command=f"git log -p -- {arg(path)}")
               for path, lines in conflict_markers(project).items()]
    actions += fix_errors(findings) + waiting
    if waiting:  # nothing after a stage whose gate is open
        return actions
    where = f"record {project.record.name}"
    upcoming = [row for row in project.record.rows if row.mark not in (Mark.done, Mark.skipped)]
    if upcoming:
        row = upcoming[0]
        doing = "under way" if row.mark == Mark.in_progress else "next"
        actions.append(Action(reason=f"{where}: `{row.slug}` is {doing} ({state}:{row.line}); v2's engine runs it "
                              "in the agent's session (`/aidlc`), and its gate waits for the person"))
    elif project.record.rows:
        actions.append(Action(reason=f"{where}: every stage row of {state} is completed or skipped"))
    actions.append(Action(reason="check the record's audit evidence (human turns, completed stages, guards, "
                          "append-only shards)", command="aidlc validate"))
    return actions
