"""`aidlc status` as text on the aidlc-docs layout: stage progress per phase and unit, what waits for a person,
the next safe actions; per intent record on aidlc-workflows v2."""

from __future__ import annotations

from aidlc.model.status import (
    Action,
    DocsPhase,
    DocsPlan,
    DocsStageLine,
    DocsStatusReport,
    DocsUnit,
    RecordPhase,
    RecordsStatusReport,
    RecordStatus,
)
from aidlc.names import shown
from aidlc.plural import plural
from aidlc.report.status import gate_line, validation_line
from aidlc.report.style import Style

_BOX = {"done": "x", "pending": " ", "in-progress": "~", "skipped": "S", "awaiting": "?"}


def render_docs_counts(report: DocsStatusReport) -> str:
    """Counts only (`aidlc status -q`)."""
    phases = ", ".join(f"{phase.phase} {_done(phase)}" for phase in report.phases if phase.total)
    units = ", ".join(f"unit {shown(unit.unit)} {_done(unit)}" for unit in report.units if unit.total)
    return "\n".join([
        f"stages done: {'; '.join(part for part in (phases, units) if part) or 'no stage lines'}",
        f"audit: {plural(report.audit_entries, 'entry')}{_unread(report)}, {report.recorded_entries} recorded in "
        "the ledger" + "".join(f"; {note}" for note in report.audit_notes),
        # audit.md is the agent's own record: what it logs is a claim, not a decision aidlc attests (the ledger's gates)
        *([f"approval logged in the audit log: {report.ticked - report.unapproved} of "
           f"{plural(report.ticked, 'ticked stage')}" + (f"; {report.unapproved} without one" if report.unapproved
                                                         else "")]
          if report.ticked and report.unapproved is not None else []),
        f"waiting for a person: {plural(len(report.waiting), 'stage')}",
        validation_line(report.errors, report.warnings),
    ])


def _unread(report: DocsStatusReport) -> str:
    """Why entries a log holds count 0 (SUNCHANG-KWON/aidlc-workshop-tableorder keeps its log as `- Timestamp:`
    bullets): ` read (aidlc-docs/audit.md holds 118 lines of text in no entry form aidlc reads: AIDLC-DOCS-017)`."""
    if not report.unread_logs:
        return ""
    logs = "; ".join(f"{shown(log.path)} holds {plural(log.text_lines, 'line')} of text" for log in report.unread_logs)
    return f" read ({logs} in no entry form aidlc reads: AIDLC-DOCS-017)"


def _done(part: DocsPhase | DocsUnit, word: str = "") -> str:
    """`5/7`, and `(2 skipped)` where lines not ticked say the stage was skipped: `5/7 done (2 skipped)` with `word`."""
    skipped = sum(stage.skipped and stage.mark != "done" for stage in part.stages)
    return f"{part.done}/{part.total}{word}" + (f" ({skipped} skipped)" if skipped else "")


def render_docs_status(report: DocsStatusReport, style: Style, waiting_only: bool = False) -> str:
    lines = [style("aidlc status", "bold") + f"  {report.root}  (aidlc-docs layout: {report.folder}/)",
             *(f"  {line}" for line in render_docs_counts(report).splitlines()), ""]
    if not waiting_only:
        for phase in report.phases:
            lines.append(style(phase.phase.upper(), "bold") + (f"  {_done(phase, ' done')}" if phase.total else ""))
            lines += [_stage(stage) for stage in phase.stages] + _plans(phase.plans)
        for unit in report.units:
            # a unit folder may be named anything, a line break too: shown escaped, as one line
            named = unit.folders and unit.folders != [unit.unit]
            folders = f" ({', '.join(map(shown, unit.folders))})" if named else ""
            lines.append(style(f"unit {shown(unit.unit)}{folders}", "bold") + (f"  {_done(unit, ' done')}"
                                                                        if unit.total else ""))
            lines += [_stage(stage) for stage in unit.stages]
            lines += _plans(unit.plans)
        if report.phases or report.units:
            lines.append("")
        if report.gates:
            lines += [gate_line(gate) for gate in report.gates] + [""]
        lines += [f"note: {shown(note)}" for note in report.notes] + ([""] if report.notes else [])
    if report.waiting:
        lines.append(style(f"Waiting for a person ({plural(len(report.waiting), 'stage')}):", "bold"))
        lines += [_action(action) for action in report.waiting] + [""]
    elif waiting_only:
        lines.append("Nothing waits for a person.")
    if not waiting_only:
        first, *rest = report.next_actions
        lines.append(style("Next safe action:", "green") + f" {shown(first.reason)}")
        lines += [f"  {first.command}"] if first.command else []
        if rest:
            lines.append("Then:")
            lines += [_action(action) for action in rest]
    return "\n".join(lines).rstrip("\n")


def _stage(stage: DocsStageLine) -> str:
    flags = " (skipped)" if stage.skipped and stage.mark != "skipped" else ""
    flags += " (awaiting approval)" if stage.awaiting else ""
    if stage.approved is not None:  # a ticked stage that needs a person's approval
        flags += f"  logged approval: {', '.join(stage.approvals)}" if stage.approved else "  no approval logged" + (
            f" for some of its units (logged: {', '.join(stage.approvals)})" if stage.approvals else "")
    return f"  [{_BOX[stage.mark]}] {stage.stage:<22} line {stage.line}{flags}"


def _plans(plans: list[DocsPlan]) -> list[str]:
    return [f"  plan {shown(plan.path)}: {plan.done}/{plan.done + plan.open} boxes ticked" for plan in plans]


def _action(action: Action) -> str:
    """An action's reason on one line (a name a repository gives is shown escaped), then its command."""
    return f"  - {shown(action.reason)}" + (f"\n      {action.command}" if action.command else "")


def render_records_counts(report: RecordsStatusReport) -> str:
    """Counts only (`aidlc status -q`), one line per record."""
    return "\n".join(f"{shown(record.name)}: {_record_counts(record)}" for record in report.records)


def _record_counts(record: RecordStatus) -> str:
    phases = ", ".join(f"{phase.phase or 'no phase'} {_record_done(phase)}" for phase in record.phases)
    return (f"{phases or 'no stage rows'}; {plural(record.audit_events, 'audit event')} in "
            f"{plural(record.shards, 'shard')}; {plural(len(record.waiting), 'open gate')}; "
            f"{validation_line(record.errors, record.warnings)}")


def _record_done(phase: RecordPhase, word: str = "") -> str:
    """`3/7`, and `(4 skipped)` where rows were skipped, as a flat folder's phases show it."""
    return f"{phase.done}/{phase.total}{word}" + (f" ({phase.skipped} skipped)" if phase.skipped else "")


def render_records_status(report: RecordsStatusReport, style: Style, waiting_only: bool = False) -> str:
    lines = [style("aidlc status", "bold") + f"  {report.root}  (aidlc-workflows v2: "
             f"{plural(len(report.records), 'intent record')} under {report.folder}/)",
             f"  {validation_line(report.errors, report.warnings)} (the workspace's, its records' among them)", ""]
    for record in report.records:
        if waiting_only:
            continue
        lines.append(style(shown(record.name), "bold") + f"  (space {shown(record.space)}, {shown(record.folder)}/)")
        lines.append(f"  {_record_counts(record)}")
        for phase in record.phases:
            lines.append(f"  {(phase.phase or 'no phase').upper()}  {_record_done(phase, ' done')}")
            lines += [f"    [{row.box}] {row.slug:<26} line {row.line}  {row.decision}" for row in phase.rows]
        lines += [f"  note: {shown(note)}" for note in record.notes]
        first, *rest = record.next_actions
        lines.append("  " + style("Next safe action:", "green") + f" {shown(first.reason)}")
        lines += [f"    {first.command}"] if first.command else []
        lines += [f"  {_action(action)}" for action in rest]
        lines.append("")
    if report.waiting:
        lines.append(style(f"Waiting for a person ({plural(len(report.waiting), 'open gate')}):", "bold"))
        lines += [_action(action) for action in report.waiting]
    else:
        lines.append("Nothing waits for a person.")
    return "\n".join(lines).rstrip("\n")
