"""aidlc mcp: serve the project's governance to a coding agent over stdio (Model Context Protocol)."""

from __future__ import annotations

import click

from aidlc.cli.app import App
from aidlc.errors import UsageError


@click.command("mcp")
@click.option("--repo", metavar="PATH", help="Repository root (default: the nearest folder up with aidlc.yaml, a "
              "memory bank, an aidlc-docs folder or .git).")
@click.pass_obj
def mcp_cmd(app: App, repo: str | None) -> None:
    """Serve aidlc's tools to a coding agent over stdio (Model Context Protocol); no tool decides a gate.

    Read: status, validate, next_actions, rules, show, bolt_status, bolt_trace, walkthrough, log. Written as the
    agent (mcp:<client name>): new, audit_append, check. Started by the coding agent from its MCP configuration;
    stdout carries the protocol only."""
    try:
        # The mcp extra may be missing: that is a usage error below, not a failed start of every command.
        from aidlc.mcp.server import serve
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("mcp"):
            raise
        raise UsageError("aidlc mcp needs the MCP SDK, an optional extra", ['pip install "aidlc[mcp]"']) from None
    serve(app.root(repo))
