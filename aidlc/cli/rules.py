"""aidlc rules: the catalogue of every check, with its code, severity and fix."""

from __future__ import annotations

import click

from aidlc.cli import complete
from aidlc.cli.app import App, output_options
from aidlc.errors import UsageError
from aidlc.rules import every_rule


@click.command("rules")
@click.argument("code", required=False, shell_complete=complete.rule_codes)
@output_options
@click.pass_obj
def rules_cmd(app: App, code: str | None) -> None:
    """List the validation rules, or explain one (aidlc rules AIDLC-REF-001)."""
    rules = list(every_rule().values())
    if code:
        wanted = code.strip().upper()
        rules = [r for r in rules if r.code in (wanted, f"AIDLC-{wanted}")]  # REF-001 is AIDLC-REF-001
        if not rules:
            raise UsageError(f"no rule {code}", ["aidlc rules    # the whole catalogue"])
    if app.json:
        app.emit_json({"rules": [r.described() for r in rules]})
        return
    for r in rules:
        click.echo(f"{r.code:18} {r.severity:8} {r.family:11} {r.summary}")
        if code or app.verbosity > 0:
            click.echo(f"{'':18} fix: {r.fix}")
