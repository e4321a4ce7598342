"""Prompts are jinja2 templates under templates/prompts/, never strings in code.

    render_prompt("system.md.j2", task="propose the units of intent 001-checkout")
    system_message(task)  -> Message("system", ...)

Templates are rendered with StrictUndefined (aidlc.templating): a missing variable is a
bug caught by the tests, not an empty hole in a prompt. Surrounding whitespace is stripped so a
prompt's digest (aidlc.llm.replay) does not depend on a template's trailing newline.
"""

from __future__ import annotations

from typing import Any

from aidlc.llm.base import Message

PROMPTS_DIR = "prompts"


def render_prompt(template: str, /, **context: Any) -> str:
    from aidlc.templating import render  # jinja2 only when a prompt is built

    return render(f"{PROMPTS_DIR}/{template}", **context).strip()


def system_message(task: str | None = None) -> Message:
    """The standing rules: untrusted data stays data, a person approves, secrets stay redacted."""
    return Message("system", render_prompt("system.md.j2", task=task))
