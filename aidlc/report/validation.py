"""The validation report as text (grouped by file) or as one JSON document."""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import groupby
from typing import TYPE_CHECKING

from aidlc.bank.walk import shown_json
from aidlc.model.findings import Finding, Summary, ValidationReport
from aidlc.model.types import Severity
from aidlc.names import shown
from aidlc.plural import plural
from aidlc.report.style import Style

if TYPE_CHECKING:
    from aidlc.model.ci import CiSummary

_MARK = {Severity.error: ("✗", "red"), Severity.warning: ("!", "yellow"), Severity.info: ("i", "blue")}


def render_json(report: ValidationReport) -> str:
    return shown_json(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))


def render_text(report: ValidationReport, style: Style, strict: bool = False, quiet: bool = False) -> str:
    lines: list[str] = []
    listed = [f for f in report.findings if not (quiet and f.severity == Severity.info)]
    for path, group in groupby(listed, key=lambda f: f.path):
        lines.append(style(shown(path), "bold"))
        for finding in group:
            lines.extend(finding_lines(finding, style))
        lines.append("")
    s = report.summary
    verdict = "failed" if s.errors or (strict and s.warnings) else "passed"
    colour = "red" if verdict == "failed" else "green"
    lines.append(
        style(f"validation {verdict}", colour)
        + f": {plural(s.files, 'file')}, {counts(s)}"
        + (" (--strict: warnings fail)" if strict and s.warnings and not s.errors else "")
    )
    if verdict == "failed":
        lines.extend(["", "Next steps:", *(f"  {step}" for step in next_steps(report))])
    return "\n".join(lines)


def finding_lines(finding: Finding, style: Style) -> list[str]:
    """A finding as its two lines: a name a file or folder carries into its path or message (a line break, an escape
    sequence: any name git takes) is shown escaped, so that no line of the report is written by a repository."""
    mark, colour = _MARK[finding.severity]
    where = f"{shown(finding.path)}:{finding.line}" if finding.line else shown(finding.path)
    head = f"  {style(mark, colour)} [{finding.severity.upper()}] {where} {finding.code} {shown(finding.message)}"
    return [head, style(f"      fix: {shown(finding.fix)}", "dim")]


def first_failing(findings: Sequence[Finding]) -> Finding | None:
    """The finding whose rule the next steps name: the first error (errors fail the run), else the first warning
    (--strict fails on those); never a note printed before them."""
    return next((f for f in findings if f.severity == Severity.error), None) or \
        next((f for f in findings if f.severity == Severity.warning), None)


def next_steps(report: ValidationReport) -> list[str]:
    first = first_failing(report.findings)
    steps = [f"aidlc rules {first.code}    # what the rule checks and how to fix it"] if first else []
    steps += [
        "aidlc validate --format json    # the findings as one JSON document",
        "aidlc validate    # rerun after fixing",
    ]
    return steps


def counts(summary: Summary | CiSummary) -> str:
    """"1 error, 2 warnings (1 adopted history), 0 notes": a summary's findings by severity."""
    adopted = f" ({summary.adopted} adopted history)" if summary.adopted else ""
    return (f"{plural(summary.errors, 'error')}, {plural(summary.warnings, 'warning')}{adopted}, "
            f"{plural(summary.infos, 'note')}")
