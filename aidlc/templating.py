"""The jinja2 environment over the shipped templates/ folder: every file and prompt aidlc writes
from a template is rendered here, with the same settings."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aidlc
from aidlc.bank.write import yaml_scalar
from aidlc.mdtext import code, inline
from aidlc.untrusted import untrusted

if TYPE_CHECKING:
    import jinja2


def templates_dir() -> Path:
    """Inside an installed wheel the templates sit in the package; in a checkout, beside it."""
    package = Path(aidlc.__file__).parent
    for candidate in (package / "templates", package.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the aidlc templates folder is missing from this installation")


@cache
def environment() -> jinja2.Environment:
    import jinja2  # imported here: only commands that write files or build prompts need it

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,  # a missing variable is a bug the tests catch, not an empty hole
        autoescape=False,  # Markdown, YAML and prompts, not HTML
    )
    env.filters["yaml_flow"] = yaml_scalar
    env.filters["md"] = inline  # model or repository text as literal Markdown: hides nothing, adds no structure
    env.filters["code"] = code
    env.filters["untrusted"] = lambda text, name: untrusted(name, str(text))  # repository text in a prompt: data
    env.filters["workflow_text"] = workflow_text
    return env


def workflow_text(text: str) -> str:
    """`text` as a YAML value a GitHub workflow reads as exactly that text. GitHub evaluates `${{ ... }}` in a
    value as an expression: text holding `${{` is written as the expression fromJSON('"..."') with its braces
    escaped (\\u007b, \\u007d), so no part of it is ever evaluated."""
    import json

    if "${{" not in text:
        return json.dumps(text, ensure_ascii=False)
    literal = json.dumps(text, ensure_ascii=False).replace("{", "\\u007b").replace("}", "\\u007d")
    return json.dumps("${{ fromJSON('" + literal.replace("'", "''") + "') }}", ensure_ascii=False)


def render(template: str, **context: Any) -> str:
    """Render `template` (a path under templates/)."""
    return environment().get_template(template).render(**context)
