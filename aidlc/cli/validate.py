"""aidlc validate: check the project's records (a memory bank, or an aidlc-docs folder); never writes anything."""

from __future__ import annotations

import click

from aidlc.cli.app import App, echo, output_options
from aidlc.model.types import Severity
from aidlc.report import validation as render
from aidlc.rules import validate
from aidlc.workspace import folder_of, open_records


@click.command("validate")
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@output_options
@click.pass_obj
def validate_cmd(app: App, path: str | None, strict: bool) -> None:
    """Validate the Intent -> Requirements -> Units -> Stories -> Bolts chain (or aidlc-docs' records).

    In the aidlc-docs layout (AWS aidlc-workflows): aidlc-state.md against
    audit.md and the plans, the audit's timestamps, the story map, the files.

    Exit 0 when there are no errors (warnings allowed), 1 when there are
    (or warnings with --strict), 2 on a usage or configuration error.
    """
    records = open_records(app.root(path))
    if app.verbosity > 0:
        app.note(f"validating {folder_of(records)}/ ...")
    report = validate(records)
    if app.json:
        echo(render.render_json(report))
    else:
        echo(render.render_text(report, app.style, strict=strict, quiet=app.verbosity < 0))
    failed = report.summary.errors > 0 or (strict and any(f.severity == Severity.warning for f in report.findings))
    if failed:
        # SystemExit rather than click's Exit: under main(standalone_mode=False) click turns Exit into a
        # return value a caller may drop (it once made `aidlc validate` exit 0 with errors); SystemExit cannot be.
        raise SystemExit(1)
