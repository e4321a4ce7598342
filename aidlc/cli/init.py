"""aidlc init: scaffold aidlc.yaml, the memory bank and the CI workflow in a Git repo."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import click

from aidlc.bank.config import CONFIG_FILE
from aidlc.cli.app import App, can_prompt, output_options
from aidlc.events.ledger import LEDGER_FILE
from aidlc.names import arg
from aidlc.plural import plural
from aidlc.scaffold.init import Action, Adopted, Found, init_project
from aidlc.vcs import head_commit

_MARK = {Action.created: "+", Action.updated: "~", Action.replaced: "!", Action.unchanged: "=", Action.kept: "="}


@click.command("init")
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option("--name", help="Project name (default: the folder name).")
@click.option("--type", "project_type", default=None,
              help="Project type recorded in project.yaml, e.g. web-app, cli-tool, library (default: application).")
@click.option("--git", "create_git", is_flag=True, help="Run `git init` first if PATH is not a Git repository.")
@click.option("--force", is_flag=True, help="Replace files aidlc owns (story index, CI workflow), after a backup. "
              "Files you own are never replaced.")
@click.option("--ci-action", metavar="OWNER/REPO@REF", help="The aidlc GitHub Action the CI workflow runs "
              "(ci.action in a new aidlc.yaml), e.g. OWNER/aidlc@v0.1.0.")
@click.option("--agent", type=click.Choice(["claude", "kiro", "cursor", "vscode", "q"]),
              help="Also set up this coding agent: its MCP configuration runs `aidlc mcp`, and a short rules file.")
@output_options
@click.pass_obj
def init_cmd(app: App, path: str | None, name: str | None, project_type: str | None, create_git: bool,
             force: bool, ci_action: str | None, agent: str | None) -> None:
    """Scaffold aidlc in a Git repo. Safe to rerun: it never overwrites your edits."""
    root = Path(path or app.repo or ".").resolve()
    if can_prompt() and not app.json:
        name = name or click.prompt("Project name", default=root.name)
        project_type = project_type or click.prompt("Project type", default="application")
        if ci_action is None and not (root / CONFIG_FILE).exists():
            ci_action = click.prompt("GitHub Action for CI, e.g. OWNER/aidlc@v0.1.0 (empty: set ci.action or "
                                     "ci.install in aidlc.yaml later)", default="", show_default=False) or None
    result = init_project(root, name, project_type or "application", force=force, create_git=create_git,
                          ci_action=ci_action)
    if agent:
        # Only with --agent.
        from aidlc.scaffold.agents import configure_agent

        result.outcomes.extend(configure_agent(result.root, agent))
    if app.json:
        app.emit_json({
            "root": str(result.root),
            "git_created": result.git_created,
            "ci_unset": result.ci_unset,
            "files": [{"path": o.path, "action": str(o.action), "detail": o.detail} for o in result.outcomes],
            "adopted": asdict(result.adopted) if result.adopted else None,
            "found": asdict(result.found) if result.found else None,
        })
        return
    if result.git_created:
        app.out(f"initialised a Git repository in {result.root}")
    for outcome in result.outcomes:
        detail = f"  ({outcome.detail})" if outcome.detail else ""
        app.out(f"  {_MARK[outcome.action]} {outcome.action:9} {outcome.path}{detail}")
    changed = sum(result.count(a) for a in (Action.created, Action.updated, Action.replaced))
    kept = result.count(Action.kept)
    app.out(f"aidlc init: {changed} files written, {kept} kept as they were, "
            f"{result.count(Action.unchanged)} already up to date")
    if result.adopted is not None:
        _adopted(app, result.adopted)
        return
    ledger_started = any(o.path.endswith(f"/{LEDGER_FILE}") and o.action == Action.created for o in result.outcomes)
    if result.found is not None:
        found = result.found
        app.out(f"\nthe bank as it is: {plural(found.adopted, 'finding')} of adopted history (completed before aidlc "
                f"governed this bank: warnings naming the commit that shows it), "
                f"{plural(found.errors, 'live defect')} (errors), {plural(found.warnings, 'other warning')}")
    steps = "\n".join(f"  {step}" for step in _next_steps(result.root, ledger_started, result.found))
    app.out(f"\nNext steps:\n{steps}\n"
            "  signed approvals (optional): set governance.require_signed_approvals in aidlc.yaml; its comment and "
            "aidlc docs/gates.md, 'Signed approvals', give the three set-up commands"
            + ("\n  CI: set ci.action (or ci.install) in aidlc.yaml, then `aidlc init --force` writes the workflow "
               "that installs aidlc from it (aidlc docs/ci.md); until then the workflow passes with a notice in the "
               "job summary" if result.ci_unset else ""))


def _adopted(app: App, adopted: Adopted) -> None:
    """What adopting an aidlc-docs folder kept, and how its records go on."""
    logs = ", ".join(adopted.audit_logs) or "no audit log yet"
    app.out(f"adopted {adopted.folder}/ (aidlc-workflows' layout; no memory-bank/ is made): "
            f"{plural(adopted.audit_entries, 'audit entry')} in {logs} and "
            f"{plural(adopted.stages_done, 'ticked stage')} are kept as history: they were not attested, and none "
            "is recorded in the ledger as a decision")
    app.out("\nNext steps:\n"
            f'  git add -A && git commit -m "Adopt aidlc"    # the ledger and aidlc.yaml, beside {adopted.folder}/\n'
            "  aidlc status    # stage progress, what waits for a person, the next safe action\n"
            '  aidlc audit append --stage STAGE --user-input "..." --ai-response "..."    # each new entry, '
            "with the real time (aidlc docs/aidlc-docs.md)")


def _next_steps(root: Path, ledger_started: bool, found: Found | None, limit: int = 3) -> list[str]:
    """For a new bank, its first intent; for an existing one, what it needs: where this run started its ledger,
    the commit of it (alone: what HEAD holds stays history), its live defects and the baseline that accepts them;
    otherwise its validation errors, then the next safe actions `aidlc status` would give."""
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.status.build import build_status
    from aidlc.workspace import open_bank

    bank = open_bank(root)
    if not bank.intents:
        return ['aidlc new intent "TITLE"', "aidlc validate", "aidlc status"]
    if ledger_started and found is not None:
        typed = arg(str(root))
        here = "" if root == Path.cwd().resolve() else f" {typed}"
        steps = []
        if not found.adopted and head_commit(root) is None:
            # Adoption is what git shows before the ledger: a bank never committed has no history to show yet.
            ledger = f"{bank.rel_root}/{LEDGER_FILE}".removeprefix("./")
            steps.append(f"git -C {typed} add -A -- . ':(exclude){ledger}' && git -C {typed} commit -m \"The bank "
                         "before aidlc\"    # nothing is committed yet: commit the bank without the ledger first, so "
                         "git shows what it held before aidlc governed it (its completions become adopted history)")
            steps.append(f"aidlc validate{here}    # then: what that commit shows complete is adopted history, "
                         "the rest live defects: fix them, or accept them below")
        else:
            steps.append(f"aidlc validate{here}    # the {plural(found.errors, 'live defect')}: fix them, or accept "
                         "them below")
        if found.errors or found.warnings:
            steps.append(f"aidlc ci --write-baseline{here}    # accept today's live findings (.aidlc-baseline.json): "
                         "CI then fails only on new ones")
        return [*steps, f'git -C {typed} add -A && git -C {typed} commit -m "Adopt aidlc"    # the ledger in a '
                "commit of its own: what was committed before it stays adopted history", "aidlc status"]
    report = build_status(bank)
    steps = []
    if report.errors or report.warnings:
        steps.append(f"aidlc validate    # the bank as it is: {plural(report.errors, 'error')}, "
                     f"{plural(report.warnings, 'warning')}")
    for action in [a for a in report.next_actions if a.command != "aidlc validate"][:limit]:
        steps.append(f"{action.command}    # {action.reason}" if action.command else f"# {action.reason}")
    return [*steps, "aidlc status    # where everything stands"]
