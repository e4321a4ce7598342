"""GitHub Actions: workflow commands that annotate the pull request, and the job summary.

Everything shown comes from the repository (paths, messages quoting its files) and is untrusted: a story titled
`::set-env name=X::y` must not become a command. So values are escaped as the runner unescapes them (a line break
can never start a new command line), and the report printed around the annotations is wrapped in
`::stop-commands::TOKEN` ... `::TOKEN::`, which makes the runner ignore every command until it sees the token
again; the token is random, so text written before the run cannot name it."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

from aidlc.model.ci import CiFinding, CiReport
from aidlc.model.types import Severity
from aidlc.report.ci import decision_line, logged_line
from aidlc.report.validation import counts

MAX_PER_LEVEL = 10  # GitHub shows at most 10 annotations of each level per step; the summary counts the rest
_LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.info: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: CiFinding, prefix: str = "") -> str:
    """`prefix`: the project's folder in the repository (GitHub places annotations by paths from its top)."""
    props = [f"file={escape_property(prefix + finding.path)}"]
    if finding.line:
        props.append(f"line={finding.line}")
    props.append(f"title={escape_property(finding.code)}")
    message = f"{finding.message}\nfix: {finding.fix}"
    return f"::{_LEVEL[finding.severity]} {','.join(props)}::{escape_data(message)}"


def annotation_commands(report: CiReport) -> tuple[list[str], dict[Severity, int]]:
    """The commands for the new findings (at most MAX_PER_LEVEL of each level), and how many were left out."""
    shown: list[str] = []
    left_out = dict.fromkeys(Severity, 0)
    per_level = dict.fromkeys(Severity, 0)
    for finding in report.findings:
        if finding.baseline != "new":
            continue
        if per_level[finding.severity] < MAX_PER_LEVEL:
            per_level[finding.severity] += 1
            shown.append(annotation(finding, report.prefix))
        else:
            left_out[finding.severity] += 1
    return shown, left_out


def guarded(text: str) -> Iterator[str]:
    """`text` as lines the runner reads as no command at all."""
    token = secrets.token_hex(16)
    while token in text:  # cannot happen by chance; costs nothing to be sure
        token = secrets.token_hex(16)
    yield f"::stop-commands::{token}"
    yield from text.splitlines()
    yield f"::{token}::"


def _cell(text: str) -> str:
    """Text from the repository as one Markdown table cell: no markup, no HTML, no line break, no column."""
    out = text.replace("\r", " ").replace("\n", " ").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for char in "\\`*_[]|#!":
        out = out.replace(char, f"\\{char}")
    return out


def step_summary(report: CiReport, left_out: dict[Severity, int]) -> str:
    s = report.summary
    verdict = "passed" if report.passed else "failed"
    lines = [f"### aidlc ci {verdict}", "",
             counts(s)
             + (f"; {s.known} known from the baseline" if report.baseline else "")
             + (f"; {s.fixed} baseline findings fixed" if s.fixed else "")
             + (f" (base {report.base[:12]})" if report.base else " (no base: the checks that need no history)"), ""]
    hidden = sum(left_out.values())
    if hidden:
        lines += [f"{hidden} more not annotated (GitHub shows {MAX_PER_LEVEL} of each level): "
                  + ", ".join(f"{n} {_LEVEL[level]}s" for level, n in left_out.items() if n), ""]
    rows = [f for f in report.findings if f.baseline == "new"]
    if rows:
        lines += ["| severity | code | where | message |", "|---|---|---|---|"]
        for f in rows:
            where = report.prefix + (f"{f.path}:{f.line}" if f.line else f.path)
            lines.append(f"| {f.severity} | {f.code} | {_cell(where)} | {_cell(f.message)} |")
        lines.append("")
    if report.decisions:
        lines += [f"Decisions this pull request adds ({len(report.decisions)}), each for a reviewer to read:", "",
                  "| where | decision |", "|---|---|"]
        lines += [f"| {_cell(report.prefix + decision.path)}:{decision.line} | {_cell(decision_line(decision))} |"
                  for decision in report.decisions]
        lines.append("")
    if report.logged_approvals:
        lines += [f"Approvals this pull request logs ({len(report.logged_approvals)}), each for a reviewer to read:",
                  "", "| where | approval |", "|---|---|"]
        lines += [f"| {_cell(report.prefix + logged.path)}:{logged.line} | {_cell(logged_line(logged))} |"
                  for logged in report.logged_approvals]
        lines.append("")
    if report.waiting:
        lines += [f"Waiting for a person ({len(report.waiting)}, not a failure): "
                  + ", ".join(f"{gate.kind} {_cell(gate.id)} {gate.pending}" for gate in report.waiting), ""]
    if report.fixed:
        lines += [f"Fixed since the baseline: {len(report.fixed)} (remove them with `aidlc ci --write-baseline`)", ""]
    return "\n".join(lines) + "\n"
