"""The `aidlc` command line: parses arguments, calls the domain, renders results.

Subcommands are imported only when invoked, so `aidlc --version` stays fast.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from aidlc import __version__
from aidlc.cli.app import App, report_error, run_safely
from aidlc.errors import AidlcError

# command name -> "module:attribute" under aidlc.cli
COMMANDS = {
    "init": "init:init_cmd",
    "new": "new:new_group",
    "validate": "validate:validate_cmd",
    "rules": "rules:rules_cmd",
    "status": "status:status_cmd",
    "schema": "schema:schema_group",
    "gate": "gate:gate_group",
    "log": "log:log_group",
    "draft": "draft:draft_cmd",
    "llm": "llm:llm_group",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        module = importlib.import_module(f"aidlc.cli.{module_name}")
        return getattr(module, attribute)

    def invoke(self, ctx: click.Context) -> object:
        # Handled here, not only in main(), so every entry point (tests included) renders user errors the same.
        try:
            return super().invoke(ctx)
        except AidlcError as exc:
            wants_json = isinstance(ctx.obj, App) and ctx.obj.json
            report_error(exc.message, exc.next_steps, exc.exit_code, wants_json)
            raise click.exceptions.Exit(exc.exit_code) from None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="aidlc")
@click.option("--repo", type=click.Path(file_okay=False, path_type=str), default=None,
              help="Repository root (default: the current directory).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="json: exactly one JSON document on stdout.")
@click.option("--no-color", is_flag=True, help="No ANSI colour (also NO_COLOR).")
@click.option("-q", "--quiet", count=True, help="Less output.")
@click.option("-v", "--verbose", count=True, help="More output.")
@click.pass_context
def cli(ctx: click.Context, repo: str | None, output_format: str, no_color: bool, quiet: int, verbose: int) -> None:
    """AI-DLC delivery governance: the Intent -> Bolt chain, validated, in your Git repo."""
    color = not no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()
    ctx.obj = App(repo=repo, output_format=output_format, color=color, verbosity=verbose - quiet)


def main() -> None:
    run_safely(cli)
