"""aidlc status: where the chain stands and the next safe actions; a summary by default, detail on request."""

from __future__ import annotations

import json
from pathlib import Path

import click

from aidlc.bank.config import load_config
from aidlc.bank.index import find_bolt, find_intent
from aidlc.bank.walk import shown_json
from aidlc.cli import complete
from aidlc.cli.app import App, echo, output_options
from aidlc.errors import UsageError
from aidlc.model.config import Config
from aidlc.model.status import RecordsStatusReport
from aidlc.report.docs_status import (
    render_docs_counts,
    render_docs_status,
    render_records_counts,
    render_records_status,
)
from aidlc.report.status import render_counts, render_detail, render_summary
from aidlc.status.build import build_status
from aidlc.status.focus import on_bolt, on_intent, on_waiting
from aidlc.status.project import docs_status
from aidlc.workspace import layout_of, open_bank

_COUNTS = ("version", "root", "counts", "stories", "bolts_by_status", "errors", "warnings")


@click.command("status")
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option("--all", "everything", is_flag=True, help="Every intent, unit, bolt, gate and next action.")
@click.option("--intent", "intent_ref", metavar="INTENT", shell_complete=complete.intents,
              help="One intent (001, its name or folder): its units, "
              "bolts, gates and next actions.")
@click.option("--bolt", "bolt_ref", metavar="BOLT", shell_complete=complete.bolts,
              help="One bolt (001, its id or folder): its stories, "
              "dependencies, gates and next actions.")
@click.option("--pending", is_flag=True, help="Every gate waiting for a person's decision.")
@output_options
@click.pass_obj
def status_cmd(app: App, path: str | None, everything: bool, intent_ref: str | None, bolt_ref: str | None,
               pending: bool) -> None:
    """Show where the chain stands and the next safe actions.

    By default a summary that fits a screen: counts, the first intents, what waits for a person and the
    next few actions. -q prints the counts only. --format json holds everything (or, with --intent,
    --bolt or --pending, that part).
    """
    if sum(map(bool, (everything, intent_ref, bolt_ref, pending))) > 1:
        raise UsageError("choose one of --all, --intent, --bolt and --pending",
                         ["aidlc status --intent 001", "aidlc status --bolt 001", "aidlc status --pending"])
    root = app.root(path)
    config = load_config(root)
    if layout_of(root, config) == "aidlc-docs":
        if intent_ref or bolt_ref:
            raise UsageError(f"{config.aidlc_docs}/ keeps stages and units, not intents and bolts: --intent and "
                             "--bolt are for a memory bank", ["aidlc status    # every phase and unit",
                                                             "aidlc status --pending    # what waits for a person"])
        _docs_status(app, root, config, pending)
        return
    bank = open_bank(root, config=config)
    report = build_status(bank)
    if intent_ref:
        report = on_intent(report, find_intent(bank, intent_ref).id)
    elif bolt_ref:
        report = on_bolt(report, find_bolt(bank, bolt_ref).id)
    elif pending:
        report = on_waiting(report)
    if app.json:
        document = report.model_dump(mode="json")
        if app.verbosity < 0:
            document = {key: document[key] for key in _COUNTS}
        echo(shown_json(json.dumps(document, ensure_ascii=False, indent=2)))
    elif app.verbosity < 0:
        echo(render_counts(report))
    elif everything or intent_ref or bolt_ref or pending:
        echo(render_detail(report, app.style, one_bolt=bool(bolt_ref)))
    else:
        echo(render_summary(report, app.style))


def _docs_status(app: App, root: Path, config: Config, pending: bool) -> None:
    """The aidlc-docs layout's status (aidlc.status.project.docs_status), the same options."""
    report = docs_status(root, config)
    if app.json:
        document = report.model_dump(mode="json")
        if pending:
            document = {key: document[key] for key in ("version", "layout", "root", "folder", "waiting")}
        echo(shown_json(json.dumps(document, ensure_ascii=False, indent=2)))
    elif isinstance(report, RecordsStatusReport):
        echo(render_records_counts(report) if app.verbosity < 0
             else render_records_status(report, app.style, waiting_only=pending))
    elif app.verbosity < 0:
        echo(render_docs_counts(report))
    else:
        echo(render_docs_status(report, app.style, waiting_only=pending))
