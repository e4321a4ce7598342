"""The Markdown line shapes every file of the aidlc-docs layout shares: headings, checkbox lines, git
merge-conflict markers, and line ends read as one."""

from __future__ import annotations

import re
from collections.abc import Iterator

# The title, then closing blanks and #s: each run of them taken whole before the next character (a lazy title tried
# the closing part at every one of a hostile heading's 100,000 blanks: a minute).
HEADING = re.compile(r"^(#{1,6})[ \t]+((?:[ \t#]*+[^ \t#\n])*)[ \t#]*$")
LIST_ITEM = re.compile(r"^(?P<indent>[ \t]*)[-*+][ \t]+(?P<text>.*)$")  # a list item, checkbox or not
# `[~]`, `[/]` and `[-]` in progress (`[/]` as task-list plugins write it; `[-]` partly done, as v2 marks a stage in
# progress), `[S]` skipped, `[?]` awaiting, `[R]` revising: state_line.mark_of reads them.
BOX = re.compile(r"^(?P<indent>[ \t]*)[-*+][ \t]+\[(?P<box>[ xX~/\-SR?])\][ \t]*(?P<text>.*)$")
_CONFLICT = re.compile(r"^(<{7}( |$)|={7}$|>{7}( |$)|\|{7}( |$))")


def shown_lines(text: str) -> Iterator[tuple[int, str]]:
    """(number, line) of each line a reader of the rendered file sees as text: not inside a code fence (an example
    of the format) or an HTML comment (a line kept out of sight), nor a fence's or a comment's own lines."""
    fence = comment = False
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip()
        if comment:
            comment = "-->" not in line
        elif stripped.startswith(("```", "~~~")):
            fence = not fence
        elif not fence and stripped.startswith("<!--"):
            comment = "-->" not in stripped[4:]
        elif not fence:
            yield number, line


def one_line_end(text: str) -> str:
    """The text with CRLF and CR line ends read as LF: a file's line ends never change what it says."""
    # Most files hold no CR: one search for it costs a fifteenth of the two replacements, which the history rules
    # would run on every version of the audit log (742 versions of a 700 KB log: 0.16 s).
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def marker_lines(text: str) -> list[int]:
    """Every line shaped as a merge-conflict marker, the `=======` under a heading included: within one entry a
    conflict's middle marker may stand alone, its other markers in the entries around it."""
    return [number for number, line in enumerate(text.split("\n"), start=1) if _CONFLICT.match(line)]


def conflict_lines(text: str) -> list[int]:
    """The lines of git merge-conflict markers. A `=======` right under a line of text outside a conflict is the
    underline of a Markdown heading, not a marker."""
    lines = text.split("\n")
    found: list[int] = []
    inside = False
    for index, line in enumerate(lines):
        if not _CONFLICT.match(line):
            continue
        if line.startswith("=") and not inside and index and lines[index - 1].strip() \
                and not _CONFLICT.match(lines[index - 1]):
            continue
        inside = line.startswith("<") or (inside and not line.startswith(">"))
        found.append(index + 1)
    return found
