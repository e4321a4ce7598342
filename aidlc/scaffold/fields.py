"""Text a person or a model gives for an artifact, checked before it is written into Markdown.

A title, a criterion or a role is written into one line of a template; a statement, a
description, a purpose or an objective is a paragraph. Either must not be able to add
structure that aidlc (or a Markdown renderer) would read: a heading (`### FR-9: ...`), a
checkbox (`- [x]`, which reads as checked evidence), a front-matter fence (`---`), a fenced
code block (which hides the requirements after it from aidlc's reader), an HTML block (which
hides text from a reader of the rendered page), or the `**Related Requirements**` marker a
story's links are read from.

Such text is refused with the reason, never escaped: a one-line field has no faithful way to
hold a second line, and an escaped marker (`\\- [x] approved`) still renders as what it
imitates, so a reviewer would see a checked box aidlc does not count. People get a usage error
naming the field and the line; the drafting loop feeds the same sentence back to the model.
"""

from __future__ import annotations

import re
from typing import overload

from aidlc.errors import UsageError
from aidlc.names import hidden_character

# Characters that break a line for Python's splitlines (aidlc's reader) or for Markdown.
_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_MARKER = re.compile(r"\*\*\s*related\s+requirements?\s*\*\*", re.IGNORECASE)

# What a line of a paragraph must not start with (after its indentation), and why.
_BLOCKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"#"), "a heading ('#')"),
    (re.compile(r"(?:[-*+]|\d+[.)])(?:\s|$)"), "a list item (a checkbox, or a bullet aidlc may read as a criterion)"),
    (re.compile(r"(?:`{3}|~{3})"), "a fenced code block"),
    (re.compile(r"(?:[-=*_]\s*){3,}$|=+\s*$"), "a rule or heading underline ('---' is also a front-matter fence)"),
    (re.compile(r"<"), "an HTML block"),
)


def check_line(field: str, value: str) -> str | None:
    """Why `value` cannot be the one-line `field` (a title, criterion, role), or None."""
    if any(char in _BREAKS for char in value):
        return f"{field} must be one line; it holds a line break"
    return _common(field, value)


def check_paragraphs(field: str, value: str) -> str | None:
    """Why `value` cannot be the paragraph text `field` (statement, description, ...), or None.

    Line breaks and blank lines are fine ('\\r\\n' counts as '\\n'); structure is not."""
    text = value.replace("\r\n", "\n")
    if any(char in _BREAKS and char != "\n" for char in text):
        return f"{field} may break lines only with '\\n'"
    for number, line in enumerate(text.split("\n"), start=1):
        start = line.lstrip(" \t")
        for pattern, what in _BLOCKS:
            if pattern.match(start):
                return (f"line {number} of {field} starts {what}; {field} is plain paragraphs "
                        f"(rephrase the line, or add structure to the file by hand)")
    return _common(field, text)


@overload
def paragraphs(field: str, value: str) -> str: ...


@overload
def paragraphs(field: str, value: None) -> None: ...


def paragraphs(field: str, value: str | None) -> str | None:
    """`value` as written ('\\r\\n' as '\\n'), or a UsageError saying why it cannot be."""
    if value is None:
        return None
    problem = check_paragraphs(field, value)
    if problem:
        raise UsageError(problem, [f"aidlc new ... --{field} 'TEXT'    # plain paragraphs, no Markdown structure"])
    return value.replace("\r\n", "\n")


@overload
def line(field: str, value: str) -> str: ...


@overload
def line(field: str, value: None) -> None: ...


def line(field: str, value: str | None) -> str | None:
    """`value`, or a UsageError saying why it cannot be one line of an artifact."""
    if value is None:
        return None
    problem = check_line(field, value)
    if problem:
        raise UsageError(problem, ["give it as one line of text, without Markdown structure"])
    return value


def _common(field: str, value: str) -> str | None:
    hidden = hidden_character(value, allowed="\t\n")
    if hidden is not None:
        return f"{field} holds {hidden}, which hides or disguises text"
    if _MARKER.search(value):
        return f"{field} holds '**Related Requirements**', the marker aidlc reads a story's links from"
    return None
