"""aidlc draft requirements|units|stories|bolts INTENT: the model proposes, a person approves."""

from __future__ import annotations

import click

from aidlc.cli import complete
from aidlc.cli.app import App, output_options
from aidlc.cli.modelflags import ModelFlags, model_options
from aidlc.events.canonical import plain


@click.command("draft")
@click.argument("level", type=click.Choice(["requirements", "units", "stories", "bolts"]))
@click.argument("intent", shell_complete=complete.intents)
@click.option("--dry-run", is_flag=True, help="Print the files it would write; write nothing.")
@model_options
@click.option("--budget", "budget_tokens", type=click.IntRange(min=1000), default=12_000, show_default=True,
              help="Tokens of context (the intent's files, standards) the prompt may hold.")
@click.option("--max-tokens", type=click.IntRange(min=64), default=4096, show_default=True,
              help="Tokens the answer may use.")
@output_options
@click.pass_obj
def draft_cmd(app: App, level: str, intent: str, dry_run: bool, model_flags: ModelFlags, budget_tokens: int,
              max_tokens: int) -> None:
    """Ask the model for the next LEVEL of INTENT and write it as draft artifacts.

    Nothing is approved: the command prints the gate a person runs to accept the draft.
    """
    from aidlc.draft.run import draft  # the LLM layer loads only for this command

    root = app.root()
    llm = model_flags.build(app, root,
                            on_degrade=lambda d: app.note(f"{d.failed} failed ({d.reason}); trying {d.next}"))
    app.note(f"drafting the {level} of {intent} ...")
    result = draft(root, level, intent, llm, dry_run=dry_run, budget_tokens=budget_tokens,  # type: ignore[arg-type]  # click's choice is one of the levels
                   max_tokens=max_tokens)
    if result.context_trimmed:
        app.note(f"the context exceeded the budget of {budget_tokens} tokens: {result.context_trimmed}")
    if app.json:
        app.emit_json({
            "level": result.level, "intent": result.intent, "dry_run": result.dry_run, "ids": result.written.ids,
            "created": result.written.created, "updated": result.written.updated,
            "kept": [{"id": id_, "path": rel} for id_, rel in result.written.kept.items()],
            "previews": [{"path": p.path, "action": p.action, "text": p.text} for p in result.previews],
            "model": result.model, "target": result.target, "mode": result.mode, "rounds": result.rounds,
            "usage": result.usage.to_dict(),
            "prompt_sha256": result.prompt_sha256, "context_trimmed": result.context_trimmed,
            "event": plain(result.event) if result.event is not None else None, "errors_after": result.errors_after,
            "next_steps": [result.gate_command],
        })
        return
    if result.dry_run:
        for preview in result.previews:
            app.out(app.style(f"--- would be {preview.action}: {preview.path}", "bold"))
            app.out(preview.text.rstrip("\n"))
        for id_, path in result.written.kept.items():
            app.out(app.style(f"--- kept as it is: {path} ({id_} exists)", "bold"))
        app.out(f"\n(dry run: nothing written; {len(result.previews)} files)")
        return
    app.out(f"drafted {result.written.new_count()} new {level} for intent {result.intent} "
            f"(model {result.model or result.target}, {result.mode}, {result.rounds} round(s), "
            f"{result.usage.prompt_tokens}+{result.usage.completion_tokens} tokens)")
    for path in result.written.created:
        app.out(f"  + {path}")
    for path in result.written.updated:
        app.out(f"  ~ {path}")
    for id_, path in result.written.kept.items():
        app.out(f"  = {path}    ({id_} exists: kept as it is, a re-draft never rewrites it)")
    if result.errors_after:
        app.out(app.style(f"{result.errors_after} validation errors in the written files: aidlc validate", "red"))
    if not result.written.new_count():
        app.out(f"\nNothing new was written: the bank already has all the {level} the model proposed. Where it stands:")
        app.out("  aidlc status")
        return
    app.out("\nNothing is approved yet. Review the drafts, edit them as you see fit, then:")
    app.out(f"  {result.gate_command}")
