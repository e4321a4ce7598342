"""aidlc bolt start|resume|status|abort|trace: the governed Plan -> Execute -> Verify -> Repair -> Walkthrough loop.

Exit codes: 0 done, 1 the run failed, 2 usage/config, 3 paused waiting for a person, 130 interrupted.
"""

from __future__ import annotations

import click

from aidlc.cli import complete
from aidlc.cli.app import App, can_prompt, echo, output_options
from aidlc.cli.modelflags import ModelFlags, model_options


@output_options
@click.group("bolt")
def bolt_group() -> None:
    """Run a bolt: the model plans, a person approves, the model edits, checks verify, a person accepts."""


def _asker(app: App, no_input: bool):
    """Asking at the gates: only for a person at a terminal (stdin and stdout), not under CI, not for JSON."""
    return None if no_input or app.json or not can_prompt() else _ask_at_terminal


def _ask_at_terminal(question):
    """Show what the gate judges; approve, reject (with a reason) or pause. End of input (Ctrl-D) pauses."""
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bolt.session import GateAnswer
    from aidlc.model.events import Decision

    echo(f"\nThe {question.stage} of bolt {question.bolt} waits for your decision: {question.path}")
    echo(f"  {question.summary}")
    for label, items in (("files", question.files), ("risks", question.risks)):
        if items:
            echo(f"  {label}:")
            for item in items:
                echo(f"    - {item}")
    try:
        while True:
            word = input(f"approve, reject ({question.after_reject}) or pause? [a/r/p] ").strip().lower()
            if word in ("a", "approve"):
                return GateAnswer(Decision.approve)
            if word in ("p", "pause"):
                return None
            if word in ("r", "reject"):
                reason = ""
                while not reason:
                    reason = input("why (recorded in the ledger)? ").strip()
                return GateAnswer(Decision.reject, reason)
    except EOFError:
        echo()
        return None


_no_input = click.option("--no-input", is_flag=True, help="Never ask at a gate; pause there (exit 3) as in CI.")
def _report(app: App, outcome) -> None:
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bolt.store import run_summary

    state = outcome.state
    if app.json:
        app.emit_json({"run": run_summary(state), "exit_code": outcome.exit_code, "message": outcome.message,
                       "next_steps": outcome.next_steps})
    else:
        app.out(f"{state.bolt}: {state.status.value} (run {state.run_id}, branch {state.branch})")
        app.out(outcome.message)
        if outcome.next_steps:
            app.out("Next steps:")
            for step in outcome.next_steps:
                app.out(f"  {step}")
    raise click.exceptions.Exit(outcome.exit_code)


@bolt_group.command("start")
@click.argument("bolt", shell_complete=complete.bolts)
@model_options
@_no_input
@click.option("--dry-run", is_flag=True, help="Check that the run could start; touch nothing, ask no model.")
@output_options
@click.pass_obj
def start_cmd(app: App, bolt: str, model_flags: ModelFlags, no_input: bool, dry_run: bool) -> None:
    """Start a run of BOLT on branch aidlc/BOLT: plan, then pause at the plan gate (exit 3)."""
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bolt.guards import preflight
    from aidlc.bolt.start import start
    from aidlc.workspace import Workspace

    workspace = Workspace.open(app.root())
    build = model_flags.builder(app, workspace.root, workspace.config)
    if dry_run:
        found = preflight(workspace, bolt)
        build()  # the provider's settings and key, as `start` checks them (no model is asked)
        verify = [v.name for v in workspace.config.verify]
        if app.json:
            app.emit_json({"dry_run": True, "bolt": found.bolt.id, "branch": found.branch, "base": found.base,
                           "verify": verify})
        else:
            app.out(f"bolt {found.bolt.id} can start: branch {found.branch} from {found.base[:12]}, "
                    f"{len(verify)} verify command(s)")
        return
    _report(app, start(workspace, bolt, build, model=model_flags.model or "", ask=_asker(app, no_input),
                       progress=app.note))


@bolt_group.command("resume")
@click.argument("ref", metavar="BOLT|RUN", shell_complete=complete.bolts)
@click.option("--approve", "verdict", flag_value="approve", help="Approve the gate the run waits at, then go on.")
@click.option("--reject", "verdict", flag_value="reject", help="Reject it, with --reason: the model plans again "
              "(after a walkthrough, a rework on top of the work so far).")
@click.option("--reason", help="Why; recorded in the ledger.")
@model_options
@_no_input
@output_options
@click.pass_obj
def resume_cmd(app: App, ref: str, verdict: str | None, reason: str | None, model_flags: ModelFlags,
               no_input: bool) -> None:
    """Continue a paused or interrupted run; --approve/--reject first record the pending gate decision."""
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bolt.start import resume
    from aidlc.bolt.store import find_run
    from aidlc.model.events import Decision
    from aidlc.workspace import Workspace

    workspace = Workspace.open(app.root())
    decision = Decision(verdict) if verdict else None
    build = model_flags.builder(app, workspace.root, workspace.config)
    run = find_run(workspace, ref)
    run.progress = app.note  # each step on stderr as the run goes (the lines of `aidlc bolt trace`); not with -q
    _report(app, resume(workspace, run, build, decision, reason, _asker(app, no_input)))


@bolt_group.command("status")
@click.argument("bolt", required=False, shell_complete=complete.bolts)
@output_options
@click.pass_obj
def status_cmd(app: App, bolt: str | None) -> None:
    """The runs (of BOLT), where each stands and what to do next."""
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bolt.store import bolt_id, run_problem, run_summary, runs_of
    from aidlc.workspace import Workspace

    workspace = Workspace.open(app.root())
    runs = runs_of(workspace.root, bolt_id(workspace, bolt) if bolt else None)
    # An end state.json names that the ledger does not record is not shown as the run's.
    problems = {r.run_id: problem for r in runs if (problem := run_problem(workspace.ledger, r))}
    if app.json:
        app.emit_json({"runs": [{**run_summary(r), "problem": problems.get(r.run_id)} for r in runs]})
        return
    if not runs:
        app.out("no runs" + (f" of bolt {bolt}" if bolt else "") + "; start one: aidlc bolt start BOLT")
        return
    for run in runs:
        line = f"{run.bolt}  {run.status.value:<19} {run.run_id}  {run.budget.steps} calls, {run.budget.tokens} tokens"
        if run.run_id in problems:
            line += f"\n    {problems[run.run_id]}"
        elif run.pause:
            line += f"\n    paused ({run.pause.kind}): {run.pause.reason}"
        elif run.outcome:
            line += f"\n    {run.outcome}"
        app.out(line)


@bolt_group.command("abort")
@click.argument("ref", metavar="BOLT|RUN", shell_complete=complete.bolts)
@click.option("--reason", help="Why; recorded in the ledger.")
@output_options
@click.pass_obj
def abort_cmd(app: App, ref: str, reason: str | None) -> None:
    """End the run CANCELLED; its branch, commits and trail stay."""
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bolt.start import abort
    from aidlc.bolt.store import find_run, run_summary
    from aidlc.workspace import Workspace

    workspace = Workspace.open(app.root())
    state = abort(workspace, find_run(workspace, ref), reason)
    if app.json:
        app.emit_json({"run": run_summary(state)})
    else:
        app.out(f"run {state.run_id} of bolt {state.bolt} is CANCELLED; branch {state.branch} is kept")


@bolt_group.command("trace")
@click.argument("ref", metavar="BOLT|RUN", shell_complete=complete.bolts)
@output_options
@click.pass_obj
def trace_cmd(app: App, ref: str) -> None:
    """The decision trail of a run: transitions, model calls, edits, checks, and why."""
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bolt.store import find_run, run_summary
    from aidlc.bolt.trail import render_trail
    from aidlc.workspace import Workspace

    run = find_run(Workspace.open(app.root()), ref)
    state, spans = run.load(), run.spans()
    if app.json:
        app.emit_json({"run": run_summary(state), "spans": [s.model_dump(exclude_none=True) for s in spans]})
        return
    app.out(render_trail(state, spans))
