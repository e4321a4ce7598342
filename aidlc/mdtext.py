"""Text from a model or a repository written into a Markdown file aidlc renders (the plan, the walkthrough).

Such text must read as what it is, and hide nothing: an HTML comment (`<!-- the real file list -->`) or any
raw HTML would vanish from the rendered page, a link or image would show one thing and point at another,
a `|` or a line break would end a table row and start a forged one, and a leading `#`, `-` or `>` would add
a heading, a list item or a quote. So `inline` makes it one line of literal text: line breaks become
spaces, `<`, `>` and `&` become entities, Markdown's emphasis, code, link and table marks (and a
leading heading or list mark) are backslash-escaped, and hiding characters
(controls, bidirectional and zero-width ones) are shown as escapes. `code` puts it in a code span whose fence
is longer than any run of backticks inside, so it cannot close early.
"""

from __future__ import annotations

import re

from aidlc.names import shown

_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")
_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")  # emphasis, code, links and images, table cells, strikethrough
_LEADING = re.compile(r"^(\s*|\s*\d+(?=[.)]))([#+=.)-])")  # starts a heading, a list item (`-`, `1.`), an underline


def inline(value: object) -> str:
    """`value` as one line of literal Markdown text (see the module docstring)."""
    text = _BREAKS.sub(" ", str(value))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _LEADING.sub(r"\1\\\2", _PUNCTUATION.sub(r"\\\1", text), count=1)
    return shown(text, keep="\t")


def code(value: object) -> str:
    """`value` as one Markdown code span, on one line, that nothing inside can close."""
    text = shown(_BREAKS.sub(" ", str(value)), keep="\t")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"
