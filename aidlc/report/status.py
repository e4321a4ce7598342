"""`aidlc status` as text: counts, the state of each intent, unit and bolt, gates, and the next safe action."""

from __future__ import annotations

from aidlc.model.status import StatusReport
from aidlc.report.style import Style


def render_text(report: StatusReport, style: Style, limit: int = 8) -> str:
    c = report.counts
    lines = [style("aidlc status", "bold") + f"  {report.root}",
             f"  {c['intents']} intents, {c['requirements']} requirements, {c['units']} units, "
             f"{c['stories']} stories, {c['bolts']} bolts",
             f"  stories: {_fmt(report.stories)}",
             f"  bolts:   {_fmt(report.bolts_by_status)}",
             f"  validation: {report.errors} errors, {report.warnings} warnings", ""]
    for intent in report.intents:
        lines.append(style(f"intent {intent.id}", "bold") + f"  [{intent.status or 'no status'}]  "
                     f"{intent.requirements} requirements, stories: {_fmt(intent.stories)}")
        for unit in intent.units:
            lines.append(f"  unit {unit.id}  [{unit.status or 'no status'}]  stories: {_fmt(unit.stories)}")
    if report.bolts:
        lines.append("")
        for bolt in report.bolts:
            stage = f", stage {bolt.current_stage}" if bolt.current_stage else ""
            lines.append(f"bolt {bolt.id}  [{bolt.status or '?'}{stage}]  unit {bolt.unit}, "
                         f"{bolt.stories} stories, risk {bolt.risk or 'unset'}")
    if report.gates:
        lines.append("")
        for gate in report.gates:
            last = (f"last: {gate.last.stage} {gate.last.decision} by {gate.last.by} at {gate.last.at}"
                    if gate.last else "no decisions yet")
            pending = f"pending gate: {gate.pending}" if gate.pending else "all gates approved"
            lines.append(f"gates {gate.kind} {gate.id}: {pending}; {last}")
            if gate.evidence is not None:
                e = gate.evidence
                lines.append("  evidence " + ("complete" if e.complete else "incomplete: " + "; ".join(e.missing))
                             + (f"; the gate {e.waiting}" if e.waiting else ""))
    elif report.no_ledger is not None:
        lines.extend(["", f"{report.no_ledger.reason}: gate decisions cannot be recorded"])
        if report.no_ledger.command:
            lines.append(f"  {report.no_ledger.command}")
    lines.append("")
    if report.next_actions:
        first, *rest = report.next_actions
        lines.append(style("Next safe action:", "green") + f" {first.reason}")
        if first.command:
            lines.append(f"  {first.command}")
        if rest:
            lines.append("Then:")
            for action in rest[: limit - 1]:
                lines.append(f"  - {action.reason}" + (f"\n      {action.command}" if action.command else ""))
            if len(rest) > limit - 1:
                lines.append(f"  ... and {len(rest) - limit + 1} more (aidlc --format json status lists all)")
    else:
        lines.append(style("Nothing to do: every story is complete and validation is clean.", "green"))
    return "\n".join(lines)


def _fmt(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in counts.items()) or "none"
