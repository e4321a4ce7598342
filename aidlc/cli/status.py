"""aidlc status: counts and state of the chain, and the next safe action."""

from __future__ import annotations

import json

import click

from aidlc.bank.walk import shown_json
from aidlc.cli.app import App, output_options
from aidlc.report.status import render_text
from aidlc.status.build import build_status
from aidlc.workspace import open_bank


@click.command("status")
@click.argument("path", required=False, type=click.Path(file_okay=False))
@output_options
@click.pass_obj
def status_cmd(app: App, path: str | None) -> None:
    """Show each intent, unit, story and bolt, and what to do next."""
    report = build_status(open_bank(app.root(path)))
    if app.json:
        click.echo(shown_json(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2)))
    else:
        click.echo(render_text(report, app.style))
