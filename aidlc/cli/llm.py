"""aidlc llm check: call the configured provider and report whether it (and structured output) works."""

from __future__ import annotations

from typing import Any

import click

from aidlc.bank.config import load_config
from aidlc.cli.app import App, output_options, report_error


@click.group("llm")
def llm_group() -> None:
    """The LLM layer: providers, structured output, record/replay."""


@llm_group.command("check")
@click.option("--provider", type=click.Choice(["openai", "anthropic", "replay"]),
              help="Override llm.provider (also AIDLC_LLM_PROVIDER).")
@click.option("--model", help="Override llm.model (also AIDLC_LLM_MODEL).")
@click.option("--base-url", help="Override llm.base_url, e.g. http://localhost:11434/v1 (also AIDLC_LLM_BASE_URL).")
@click.option("--record", type=click.Path(dir_okay=False), help="Append the answers to this cassette "
              "(also AIDLC_LLM_RECORD).")
@click.option("--replay", type=click.Path(dir_okay=False), help="Answer from this cassette only "
              "(also AIDLC_LLM_REPLAY).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), help="Seconds per call "
              "(default 120; also AIDLC_LLM_TIMEOUT).")
@output_options
@click.pass_obj
def check_cmd(app: App, provider: str | None, model: str | None, base_url: str | None, record: str | None,
              replay: str | None, timeout_s: float | None) -> None:
    """Send a tiny prompt and a tiny structured request; exit 1 with the reason if either fails."""
    from aidlc.llm.check import run_check  # the LLM layer loads only for this command

    root = app.root()
    config = load_config(root)
    app.note(f"checking {provider or config.llm.provider} ...")
    report = run_check(config.llm, provider=provider, model=model, base_url=base_url, record=record, replay=replay,
                       timeout_s=timeout_s, root=root)
    if app.json:
        app.emit_json(report.to_dict())
    else:
        _render(app, report.to_dict())
        if report.error:
            report_error(report.error, report.next_steps, 1, wants_json=False)
    if not report.ok:
        raise click.exceptions.Exit(1)


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
            " (estimated)" if usage["estimated"] else "")
        line = f"{name:<11} " + style("ok", "green") + f"  {part['latency_s']:.2f}s  {tokens}"
        if name == "plain":
            line += f"  answer: {part['text'][:60]!r}"
        else:
            line += f"  mode: {part['mode']}  attempts: {part['attempts']}"
            if part["refused_modes"]:
                line += f"  (refused: {', '.join(part['refused_modes'])})"
        if part.get("degraded"):
            line += "  " + style(f"degraded: answered by {part['answered_by']}", "yellow")
        app.out(line)
