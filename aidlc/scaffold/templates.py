"""The jinja2 environment over the shipped templates/ folder."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import aidlc
from aidlc.bank.write import yaml_scalar


def templates_dir() -> Path:
    """Inside an installed wheel the templates sit in the package; in a checkout, beside it."""
    package = Path(aidlc.__file__).parent
    for candidate in (package / "templates", package.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the aidlc templates folder is missing from this installation")


@cache
def _environment():  # type: ignore[no-untyped-def]
    import jinja2  # imported here: only commands that write files need it

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # Markdown and YAML, not HTML
    )
    env.filters["yaml_flow"] = yaml_scalar
    return env


def render(template: str, **context: Any) -> str:
    return _environment().get_template(template).render(**context)


def now() -> str:
    return yaml_scalar(now_utc())


def now_utc() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
