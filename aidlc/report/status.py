"""`aidlc status` as text: a summary that fits a screen, or the detail of everything or of one subject."""

from __future__ import annotations

from aidlc.model.status import Action, BoltLine, GateStatus, IntentStatus, StatusReport, WalkthroughEvidence
from aidlc.names import gate_command, shown
from aidlc.plural import plural, plural_of
from aidlc.report.style import Style

SUMMARY_INTENTS = 10  # intents listed one line each in the summary
SUMMARY_WAITING = 5  # gates waiting for a person listed in the summary
SUMMARY_ACTIONS = 5  # next safe actions listed in the summary
MORE = "aidlc status --all | --intent ID | --bolt ID | --pending    # the detail; -q: counts only"


def validation_line(errors: int, warnings: int) -> str:
    """`validation: 2 errors, 1 warning`: the counts of `aidlc validate`'s findings, on either layout."""
    return f"validation: {plural(errors, 'error')}, {plural(warnings, 'warning')}"


def render_counts(report: StatusReport) -> str:
    """Counts only (`aidlc status -q`)."""
    c = report.counts
    return "\n".join([
        ", ".join(plural(c[kind], noun) for kind, noun in (("intents", "intent"), ("requirements", "requirement"),
                                                            ("units", "unit"), ("stories", "story"),
                                                            ("bolts", "bolt"))),
        f"stories: {_fmt(report.stories)}",
        f"bolts: {_fmt(report.bolts_by_status)}",
        validation_line(report.errors, report.warnings),
        f"waiting for a person: {plural(len(report.waiting), 'gate')}",
    ])


def render_summary(report: StatusReport, style: Style) -> str:
    """The default: counts, the intents (the first few), what waits for a person, the next few safe actions."""
    lines = [style("aidlc status", "bold") + f"  {report.root}", *(f"  {line}" for line in render_counts(report)
                                                                    .splitlines()[:4]), ""]
    if report.intents:
        lines.append(style("Intents:", "bold"))
        lines += [f"  {_intent_line(intent)}" for intent in report.intents[:SUMMARY_INTENTS]]
        lines += _more(len(report.intents) - SUMMARY_INTENTS, "intent", "aidlc status --all")
        lines.append("")
    lines += _waiting(report, style)
    lines += _actions(report, style, SUMMARY_ACTIONS, "aidlc status --all")
    lines += ["", style(MORE, "dim")]
    return "\n".join(lines)


def render_detail(report: StatusReport, style: Style, one_bolt: bool = False) -> str:
    """Everything the report holds (`--all`), or the part one subject needs (`--intent`, `--bolt`,
    `--pending`, which narrow the report first). `one_bolt`: also each story and dependency of the bolt."""
    lines = [style("aidlc status", "bold") + f"  {report.root}", *(f"  {line}" for line in render_counts(report)
                                                                    .splitlines()[:4]), ""]
    for intent in report.intents:
        lines.append(style(f"intent {intent.id}", "bold") + f"  {_intent_line(intent, with_id=False)}")
        for unit in intent.units:
            lines.append(f"  unit {unit.id}  [{_shown(unit.derived_status, unit.status)}]  "
                         f"stories: {_fmt(unit.stories)}")
    if report.bolts:
        lines.append("")
        lines += [_bolt_line(bolt) for bolt in report.bolts]
        if one_bolt:
            for bolt in report.bolts:
                lines.append(f"  stories: {', '.join(bolt.story_ids) or 'none'}")
                lines.append(f"  requires bolts: {', '.join(bolt.requires_bolts) or 'none'}")
    if report.gates:
        lines.append("")
        for gate in report.gates:
            lines.append(gate_line(gate))
            if gate.evidence is not None:
                lines.append(_evidence_line(gate.evidence))
    elif report.no_ledger is not None:
        lines.extend(["", f"{report.no_ledger.reason}: gate decisions cannot be recorded"])
        if report.no_ledger.command:
            lines.append(f"  {report.no_ledger.command}")
    lines.append("")
    lines += _actions(report, style, None, None)
    return "\n".join(lines)


def _intent_line(intent: IntentStatus, with_id: bool = True) -> str:
    head = f"{intent.id}  " if with_id else ""
    phase = f"{intent.phase} phase, " if intent.phase else ""
    return (f"{head}[{_shown(intent.derived_status, intent.status)}]  {phase}"
            f"{plural(intent.requirements, 'requirement')}, {plural(len(intent.units), 'unit')}, "
            f"stories: {_fmt(intent.stories)}")


def _bolt_line(bolt: BoltLine) -> str:
    stage = f", stage {bolt.current_stage}" if bolt.current_stage else ""
    return (f"bolt {bolt.id}  [{bolt.status or '?'}{stage}]  unit {bolt.unit}, {plural(bolt.stories, 'story')}, "
            f"risk {bolt.risk or 'unset'}")


def _shown(derived: str | None, written: str | None) -> str:
    """The status to show; where it is derived from the stories, what the file says too."""
    if derived == written:
        return written or "no status"
    return f"{derived}, from its stories; the file says {written or 'nothing'}"


def gate_line(gate: GateStatus) -> str:
    """One subject's gates: the first waiting for a person, and the last decision."""
    last = (f"last: {gate.last.stage} {gate.last.decision} by {gate.last.by} at {gate.last.at}"
            if gate.last else "no decisions yet")
    pending = f"pending gate: {gate.pending}" if gate.pending else "all gates approved"
    return f"gates {gate.kind} {shown(gate.id)}: {pending}; {last}"  # an aidlc-docs unit is a folder: any name


def _evidence_line(evidence: WalkthroughEvidence) -> str:
    """Whether a bolt at its walkthrough gate has the evidence the gate asks for (aidlc walkthrough)."""
    return ("  evidence " + ("complete" if evidence.complete else "incomplete: " + "; ".join(evidence.missing))
            + (f"; the gate {evidence.waiting}" if evidence.waiting else ""))


def _waiting(report: StatusReport, style: Style) -> list[str]:
    if not report.gates and report.no_ledger is not None:
        lines = [f"{report.no_ledger.reason}: gate decisions cannot be recorded"]
        return lines + ([f"  {report.no_ledger.command}"] if report.no_ledger.command else []) + [""]
    if not report.waiting:
        return []
    lines = [style(f"Waiting for a person ({plural(len(report.waiting), 'gate')}):", "bold")]
    evidence = {gate_command(g.id, "walkthrough"): g.evidence for g in report.gates if g.evidence}
    for action in report.waiting[:SUMMARY_WAITING]:
        lines.append(f"  {action.command}" if action.command else f"  {action.reason}")
        if action.command in evidence:
            lines.append(f"  {_evidence_line(evidence[action.command])}")
    return lines + _more(len(report.waiting) - SUMMARY_WAITING, "gate", "aidlc status --pending") + [""]


def _actions(report: StatusReport, style: Style, limit: int | None, more: str | None) -> list[str]:
    if not report.next_actions:
        return [style("Nothing to do: every story is complete and validation is clean.", "green")]
    first, *rest = report.next_actions
    lines = [style("Next safe action:", "green") + f" {first.reason}"]
    if first.command:
        lines.append(f"  {first.command}")
    shown = rest if limit is None else rest[: limit - 1]
    if shown:
        lines.append("Then:")
        lines += [_action(action) for action in shown]
    if more is not None:
        lines += _more(len(rest) - len(shown), "action", more)
    return lines


def _action(action: Action) -> str:
    return f"  - {action.reason}" + (f"\n      {action.command}" if action.command else "")


def _more(count: int, noun: str, command: str) -> list[str]:
    return [f"  ... and {count} more {noun if count == 1 else plural_of(noun)}: {command}"] if count > 0 else []


def _fmt(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in counts.items()) or "none"
