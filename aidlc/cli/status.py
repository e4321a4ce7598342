"""aidlc status: where the chain stands and the next safe actions; a summary by default, detail on request."""

from __future__ import annotations

import json

import click

from aidlc.bank.walk import shown_json
from aidlc.cli.app import App, echo, output_options
from aidlc.errors import UsageError
from aidlc.report.status import render_counts, render_detail, render_summary
from aidlc.status.build import build_status
from aidlc.status.focus import find_bolt, find_intent, on_bolt, on_intent, on_waiting
from aidlc.workspace import open_bank

_COUNTS = ("version", "root", "counts", "stories", "bolts_by_status", "errors", "warnings")


@click.command("status")
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option("--all", "everything", is_flag=True, help="Every intent, unit, bolt, gate and next action.")
@click.option("--intent", "intent_ref", metavar="INTENT", help="One intent (001, its name or folder): its units, "
              "bolts, gates and next actions.")
@click.option("--bolt", "bolt_ref", metavar="BOLT", help="One bolt (001, its id or folder): its stories, "
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
    bank = open_bank(app.root(path))
    report = build_status(bank)
    if intent_ref:
        report = on_intent(report, find_intent(bank, intent_ref))
    elif bolt_ref:
        report = on_bolt(report, find_bolt(bank, bolt_ref))
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
