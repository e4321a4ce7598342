"""aidlc llm check|trust: does the configured provider (and structured output) work; which servers may get a key."""

from __future__ import annotations

from typing import Any

import click

from aidlc.bank.config import load_config
from aidlc.cli.app import App, output_options, report_error
from aidlc.cli.modelflags import ModelFlags, model_options


@output_options
@click.group("llm")
def llm_group() -> None:
    """The LLM layer: providers, structured output, record/replay."""


@llm_group.command("check")
@model_options
@output_options
@click.pass_obj
def check_cmd(app: App, model_flags: ModelFlags) -> None:
    """Send a tiny prompt and a tiny structured request; exit 1 with the reason if either fails.

    A model that answers but ignores what it was asked (another word than "pong") is a warning:
    the exit code stays 0.
    """
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.cli.waiting import shows_waiting
    from aidlc.llm.check import run_check  # the LLM layer loads only for this command

    root = app.root()
    config = load_config(root)
    app.note(f"checking {model_flags.provider or config.llm.provider} ...")
    report = run_check(config.llm, **model_flags.settings(), root=root,
                       wrap=lambda provider: shows_waiting(app, provider))
    if app.json:
        app.emit_json(report.to_dict())
    else:
        _render(app, report.to_dict())
        if report.error:
            report_error(report.error, report.next_steps, 1, wants_json=False)
    if not report.ok:
        raise click.exceptions.Exit(1)


@llm_group.command("trust")
@click.argument("url", required=False)
@click.option("--revoke", is_flag=True, help="Withdraw this repository's trust (for URL only, if given).")
@output_options
@click.pass_obj
def trust_cmd(app: App, url: str | None, revoke: bool) -> None:
    """Let this repository's aidlc.yaml send your key to the server it names (URL, or every one it names).

    A repository chooses neither where your keys go nor which of them is sent: a base_url or
    api_key_env that only aidlc.yaml sets is refused until you trust it here, once, for this
    repository (its path and first commit). The record goes to your user config file.
    """
    import os

    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.llm.trust import revoke as revoke_trust
    from aidlc.llm.trust import trust

    root = app.root()
    change = revoke_trust(root, os.environ, url) if revoke else trust(load_config(root).llm, root, os.environ, url)
    records = [{"base_url": r.base_url, "api_key_env": r.api_key_env} for r in change.changed]
    if app.json:
        app.emit_json({"repository": change.repository, "root_commit": change.root_commit, "config": change.config,
                       "revoked" if revoke else "trusted": records,
                       "already_trusted": [{"base_url": r.endpoint, "api_key_env": r.key_env} for r in change.kept]})
        return
    commit = f"first commit {change.root_commit[:12]}" if change.root_commit else "no git history"
    verb = "no longer sends" if revoke else "may send"
    for record in records:
        app.out(f"{change.repository} ({commit}) {verb} the key in {record['api_key_env']} to {record['base_url']}")
    for kept in change.kept:
        app.out(f"already trusted: the key in {kept.key_env} to {kept.endpoint}")
    if records:
        app.note(f"your user config file: {change.config}")
    elif not change.kept:
        app.out("nothing to revoke" if revoke else
                "nothing to trust: aidlc.yaml sends no key to a server or from a variable you did not choose")


def _render(app: App, report: dict[str, Any]) -> None:
    style = app.style
    app.out(f"provider    {report['provider']}")
    app.out(f"model       {report['model']}")
    app.out(f"base_url    {report['base_url'] or '(provider default)'}")
    if report["fallback"]:
        app.out(f"fallback    {', '.join(report['fallback'])}")
    for name in ("plain", "structured"):
        part = report.get(name)
        if part is None:
            app.out(f"{name:<11} " + style("not run", "yellow"))
            continue
        if not part.get("ok", True):
            app.out(f"{name:<11} " + style("failed", "red") + f"  {part.get('kind', '')}")
            continue
        usage = part["usage"]
        tokens = f"{usage['prompt_tokens']}+{usage['completion_tokens']} tokens" + (
            f" ({usage['corrected']})" if usage.get("corrected")
            else " (estimated)" if usage["estimated"] else "")
        line = f"{name:<11} " + style("ok", "green") + f"  {part['latency_s']:.2f}s  {tokens}"
        if name == "plain":
            line += f"  answer: {part['text'][:60]!r}"
        else:
            line += f"  mode: {part['mode']}  attempts: {part['attempts']}"
            if part["refused_modes"]:
                line += f"  (refused: {', '.join(part['refused_modes'])})"
        if part.get("degraded"):
            line += "  " + style(f"degraded: answered by {part['answered_by']}", "yellow")
        if part.get("instruction_followed") is False:
            line += "  " + style("instruction not followed", "yellow")
        app.out(line)
    for warning in report["warnings"]:
        app.out(style("warning: ", "yellow") + warning)
