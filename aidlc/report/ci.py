"""The `aidlc ci` report as text (grouped by file, as validate's) or as one JSON document."""

from __future__ import annotations

import json
from itertools import groupby

from aidlc.bank.walk import shown_json
from aidlc.model.ci import AddedDecision, CiReport, LoggedApproval
from aidlc.model.config import RecordsLayout
from aidlc.names import arg, shown
from aidlc.plural import plural
from aidlc.report.style import Style
from aidlc.report.validation import counts, finding_lines, first_failing


def render_json(report: CiReport) -> str:
    return shown_json(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))


def decision_line(decision: AddedDecision) -> str:
    """`seq 7: bolt 001-x plan (approve) by Ada <ada@x.org>: human, signed, commit 1a2b3c4d5e6f`."""
    where = f"commit {decision.commit}" if decision.commit else "not committed"
    return f"{decision.decision}: {decision.actor_kind}, {'signed' if decision.signed else 'not signed'}, {where}"


def logged_line(logged: LoggedApproval) -> str:
    """`Build and Test: "yes, approved"`. The rules log the person's input in quotes: words the log quotes are shown
    as logged (`"b" (승인 - ...)`), other words quoted here."""
    said = logged.said if logged.said.startswith(('"', "“")) else f'"{logged.said}"'
    return f"{', '.join(logged.stages)}: {said}"


def render_text(report: CiReport, style: Style, strict: bool = False, base_ref: str | None = None,
                layout: RecordsLayout = "memory-bank") -> str:
    """`base_ref`: `--base` as given; the next steps repeat it, where the findings they name were judged against
    it (docs/ci.md writes the baseline with `--base`). `layout`: the records judged, "memory-bank" or
    "aidlc-docs", which the next steps name."""
    lines: list[str] = []
    for path, group in groupby(report.findings, key=lambda f: f.path):
        lines.append(style(path, "bold"))
        for finding in group:
            head, fix = finding_lines(finding, style)
            lines += [head + (style("  (known: in the baseline)", "dim") if finding.baseline == "known" else ""), fix]
        lines.append("")
    for entry in report.fixed:
        lines.append(f"  fixed since the baseline: {entry.path} {entry.code} {entry.message}")
    if report.fixed:
        lines.append("")
    if report.decisions:
        lines.append(f"decisions this pull request adds ({len(report.decisions)}), each for a reviewer to read:")
        lines += [f"  {shown(decision.path)}:{decision.line}  {shown(decision_line(decision))}"
                  for decision in report.decisions]
        lines.append("")
    if report.logged_approvals:
        lines.append(f"approvals this pull request logs ({len(report.logged_approvals)}), each for a reviewer to read:")
        lines += [f"  {shown(logged.path)}:{logged.line}  {shown(logged_line(logged))}"
                  for logged in report.logged_approvals]
        lines.append("")
    if report.waiting:
        lines.append(f"waiting for a person ({len(report.waiting)}; this does not fail CI):")
        lines += [f"  {gate.kind} {gate.id}: {gate.pending}" for gate in report.waiting]
        lines.append("")
    s = report.summary
    verdict = "passed" if report.passed else "failed"
    scope = f"against base {report.base[:12]}" if report.base else "no base: validate rules only"
    lines.append(style(f"aidlc ci {verdict}", "green" if report.passed else "red")
                 + f" ({scope}): {plural(s.files, 'file')}, {counts(s)}"
                 + (f", {s.known} known and {s.fixed} fixed (baseline {report.baseline})" if report.baseline else "")
                 + (" (--strict: warnings fail)" if strict and s.warnings and not s.errors else ""))
    if not report.passed:
        # As validate's: the rule of the first new error, else of the first new warning (not the first code by name).
        first = first_failing([f for f in report.findings if f.baseline == "new"])
        against = f" --base {arg(base_ref)}" if base_ref is not None else ""
        lines += ["", "Next steps:",
                  *([f"  aidlc rules {first.code}    # what the rule checks and how to fix it"] if first else []),
                  f"  aidlc ci{against} --format json    # the findings as one JSON document"]
        if s.errors or s.warnings > s.adopted:
            adopted = "a bank adopted as it is" if layout == "memory-bank" else "records adopted as they are"
            lines.append(f"  aidlc ci{against} --write-baseline    # only to accept today's findings of {adopted}")
        else:  # only adopted history fails, under --strict: no baseline holds it
            lines.append(f"  aidlc ci{against}    # without --strict, the {plural(s.adopted, 'warning')} of adopted "
                         "history do not fail; each stays a warning while its file is as it was before the ledger")
    return "\n".join(lines)
