"""The `aidlc` command line: parses arguments, calls the domain, renders results.

Subcommands are imported only when invoked, so `aidlc --version` and `aidlc --help` stay fast.
"""

from __future__ import annotations

import gc
import importlib
import sys
from typing import NamedTuple

import click

from aidlc import __version__
from aidlc.cli.app import App, report_error, run_safely, wants_color
from aidlc.errors import AidlcError


class Entry(NamedTuple):
    target: str  # "module:attribute" under aidlc.cli
    help: str  # the command's short help, listed by `aidlc --help` without importing it (a test keeps it true)


COMMANDS = {
    "init": Entry("init:init_cmd", "Scaffold aidlc in a Git repo."),
    "new": Entry("new:new_group", "Create an intent, requirement, unit, story or bolt with the next free number."),
    "validate": Entry("validate:validate_cmd",
                      "Validate the Intent -> Requirements -> Units -> Stories -> Bolts chain (or aidlc-docs' "
                      "records)."),
    "ci": Entry("ci:ci_cmd", "The CI gate: validate, plus (with --base) the pull request's history."),
    "rules": Entry("rules:rules_cmd", "List the validation rules, or explain one (aidlc rules AIDLC-REF-001)."),
    "status": Entry("status:status_cmd", "Show where the chain stands and the next safe actions."),
    "schema": Entry("schema:schema_group", "JSON Schemas of aidlc's file formats (generated from its models)."),
    "gate": Entry("gate:gate_group", "Record a human decision at a gate, bound to the bytes it judged."),
    "mcp": Entry("mcp:mcp_cmd", "Serve aidlc's tools to a coding agent over stdio (Model Context Protocol); no "
                 "tool decides a gate."),
    "log": Entry("log:log_group", "The ledger: memory-bank/events.jsonl (aidlc-docs/events.jsonl in the aidlc-docs "
                 "layout)."),
    "audit": Entry("audit:audit_group", "The aidlc-docs audit log: append entries with the real time, recorded in "
                   "the ledger."),
    "draft": Entry("draft:draft_cmd", "Ask the model for the next LEVEL of INTENT and write it as draft artifacts."),
    "llm": Entry("llm:llm_group", "The LLM layer: providers, structured output, record/replay."),
    "bolt": Entry("bolt:bolt_group", "Run a bolt: the model plans, a person approves, the model edits, checks "
                  "verify, a person accepts."),
    "help": Entry("help:help_cmd", "Show the help of aidlc, or of a command (aidlc help gate approve)."),
    "walkthrough": Entry("walkthrough:walkthrough_cmd", "Write the evidence report of BOLT into its "
                         "implementation-walkthrough.md (on the aidlc-docs layout: of UNIT's code generation, a folder "
                         "under construction/, into its code/walkthrough.md)."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attribute = entry.target.split(":")
        module = importlib.import_module(f"aidlc.cli.{module_name}")
        return getattr(module, attribute)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                            list[str]]:
        """As click's, but an unknown name is told the nearest of the table's (click suggests from the
        commands it has loaded, and this group loads none until asked)."""
        name = args[0]
        if name not in COMMANDS and not name.startswith("-") and not ctx.resilient_parsing:
            raise click.exceptions.NoSuchCommand(name, possibilities=list(COMMANDS), ctx=ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table, as click would write it, without importing every command."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        with formatter.section("Commands"):
            # A bare Command shortens the help to the limit exactly as the real one would.
            formatter.write_dl([(name, click.Command(name, help=COMMANDS[name].help).get_short_help_str(limit))
                                for name in names])

    def invoke(self, ctx: click.Context) -> object:
        # Handled here, not only in main(), so every entry point (tests included) renders user errors the same.
        try:
            return super().invoke(ctx)
        except AidlcError as exc:
            wants_json = isinstance(ctx.obj, App) and ctx.obj.json
            report_error(exc.message, exc.next_steps, exc.exit_code, wants_json)
            raise click.exceptions.Exit(exc.exit_code) from None


@click.group(cls=LazyGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="aidlc")
@click.option("--repo", type=click.Path(file_okay=False, path_type=str), default=None,
              help="Repository root (default: the current directory).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="json: exactly one JSON document on stdout.")
@click.option("--no-color", is_flag=True, help="No ANSI colour (also NO_COLOR, TERM=dumb; FORCE_COLOR forces it).")
@click.option("-q", "--quiet", count=True, help="Less output.")
@click.option("-v", "--verbose", count=True, help="More output.")
@click.pass_context
def cli(ctx: click.Context, repo: str | None, output_format: str, no_color: bool, quiet: int, verbose: int) -> None:
    """AI-DLC delivery governance: the Intent -> Bolt chain, validated, in your Git repo."""
    if ctx.invoked_subcommand is None:  # a bare `aidlc` asks what there is: the help, and success
        click.echo(ctx.get_help())
        return
    color = wants_color(sys.stdout, no_color)
    ctx.color = color  # click keeps the escapes it would strip from a pipe when colour is forced
    ctx.obj = App(repo=repo, output_format=output_format, color=color, verbosity=verbose - quiet)


def main() -> None:
    """The console script: the command line, run safely; then the process ends."""
    try:
        run_safely(cli)
    finally:
        # At exit Python would walk every object still alive to find cycles, then free them one by one:
        # after validating 10,000 stories that is a tenth of the run. The operating system takes the
        # memory back whole; frozen objects are skipped by that last collection. Nothing else changes:
        # atexit handlers run and the streams are flushed and closed as usual.
        gc.freeze()
