"""aidlc ci: the checks a pull request cannot merge without (validate, the ledger against the base, who
committed each approval, every governed change traced to an approved bolt), with CI outputs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from aidlc.cli.app import App, echo, output_options, write_output
from aidlc.errors import UsageError
from aidlc.plural import plural

if TYPE_CHECKING:
    from aidlc.ci.run import Judged


@click.command("ci")
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option("--base", "base_ref", metavar="REF", help="The pull request's base commit (e.g. origin/main): also "
              "check the ledger against it, who committed each approval, and that every commit since it that "
              "changes governed code names an approved bolt.")
@click.option("--sarif", "sarif_file", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              metavar="FILE", help="Also write the findings as SARIF 2.1.0 (for code scanning); `-`: to stdout, "
              "and the report to stderr.")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="The baseline file (default: .aidlc-baseline.json at the root, used when it exists).")
@click.option("--write-baseline", is_flag=True, help="Write today's findings as the baseline, then exit 0.")
@click.option("--strict", is_flag=True, help="New warnings fail too (exit 1).")
@output_options
@click.pass_obj
def ci_cmd(app: App, path: str | None, base_ref: str | None, sarif_file: Path | None, baseline_file: Path | None,
           write_baseline: bool, strict: bool) -> None:
    """The CI gate: validate, plus (with --base) the pull request's history.

    Exit 0 when nothing new fails, 1 when it does, 2 on a usage or configuration error.
    """
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bank.rulefiles import BASELINE_FILE
    from aidlc.ci import github, sarif
    from aidlc.ci.run import judging_baseline, open_ci
    from aidlc.report import ci as render

    if base_ref is not None and not base_ref.strip():  # an unset CI variable must not silently skip the checks
        raise UsageError("--base needs a git ref, e.g. origin/main", ["git branch -a    # the refs that exist"])
    to_stdout = str(sarif_file) == "-"
    if to_stdout and app.json:
        raise UsageError("--sarif - and --format json both write to stdout: choose one, or name a file",
                         ["aidlc ci --format json --sarif aidlc.sarif"])
    root = app.root(path)
    explicit = baseline_file is not None
    baseline_path = (baseline_file or root / BASELINE_FILE).absolute()
    shown = _shown(baseline_path, root)
    inside = baseline_path.is_relative_to(root.absolute())
    judged = open_ci(root, base_ref, shown if inside else BASELINE_FILE)
    if write_baseline:
        _write_baseline(app, root, judged, baseline_path, shown, strict)
        return
    baseline = judging_baseline(root, judged, baseline_path, shown, explicit)
    report = judged.report(baseline, shown if baseline else None, strict)
    if to_stdout:
        echo(sarif.render(report), nl=False)
    elif sarif_file is not None:
        write_output(sarif_file, sarif.render(report), "--sarif", "aidlc ci --sarif PATH")
    text = render.render_json(report) if app.json else \
        render.render_text(report, app.style, strict, base_ref, judged.layout)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        commands, left_out = github.annotation_commands(report)
        # Annotations outside the guarded block; in JSON mode on stderr, which the runner reads as well.
        for line in commands:
            echo(line, err=app.json or to_stdout)
        if not app.json:
            text = "\n".join(github.guarded(text))
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(github.step_summary(report, left_out))
    echo(text, err=to_stdout)  # stdout holds only the SARIF document then
    if not report.passed:
        raise SystemExit(1)


def _write_baseline(app: App, root: Path, judged: Judged, path: Path, shown: str, strict: bool) -> None:
    """`--write-baseline`: today's findings written as the baseline, and what it will not make known."""
    from aidlc.ci import baseline as baselines  # here: as in ci_cmd
    from aidlc.ci.run import not_at_base

    report = judged.report(None, None, strict)
    written = baselines.of(report.findings)
    write_output(path, baselines.render(written), "--baseline", "aidlc ci --write-baseline --baseline PATH")
    adopted, lacking = report.summary.adopted, not_at_base(root, judged, written, path)
    if app.json:
        app.emit_json({"baseline": shown, "findings": len(written.findings), "adopted": adopted,
                       "not_at_base": lacking})
        return
    verb = "is" if len(written.findings) == 1 else "are"
    adopted_note = (f" ({plural(adopted, 'warning')} of adopted history {'is' if adopted == 1 else 'are'} left "
                    "out: git keeps them warnings while their files are as they were before the ledger, and "
                    "--strict fails on them)") if adopted else ""
    lacking_note = (f"; {lacking} of them the base did not have: this pull request adopts aidlc, so the baseline "
                    "it brings covers only what the base had, and they stay new") if lacking else ""
    app.out(f"wrote {shown}: {plural(len(written.findings), 'finding')} {verb} known from now on; new ones "
            f"fail{adopted_note}{lacking_note}")


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
