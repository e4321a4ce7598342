"""List items read as acceptance criteria: each item one criterion, a checkbox (`- [x] ...`) or a plain bullet.

Split from aidlc/bank/markdown.py, which finds the lists (under an "Acceptance Criteria" heading, in a requirement
block) and reads them with these.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

CHECKBOX = re.compile(r"^\s*[-*+]\s+\[([ xX])\]\s*(.*)$")
_PLAIN_BOXES = ("- [ ]", "- [x]", "- [X]")  # the checkbox most lists write, read without the regex
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_ITEM_STARTS = frozenset("-*+0123456789")  # a list item starts so, after optional blanks


@dataclass(slots=True)
class Criterion:
    line: int
    text: str
    checked: bool
    checkbox: bool


def listed_criteria(lines: Iterable[tuple[int, str]]) -> list[Criterion]:
    """The criteria of a list, by its structure: each item is one, and so is a checkbox nested in one;
    a plain bullet nested in an item (indented to its text, as CommonMark nests) is detail of that
    criterion (`- [ ] Frontmatter contains:` over `  - source: original JSONL filename`)."""
    found: list[Criterion] = []
    outer: str | None = None  # the line of the last outer item: a line indented to its text is within it
    after_blank = False
    for number, text in lines:
        lead = text[:1]
        if lead == " " or lead == "\t":  # only an indented line can be nested: the rest skip the arithmetic
            if text.isspace():
                after_blank = True
                continue
            nested = outer is not None and _indent(text) >= _text_column(outer)
        elif not lead or lead == "\r":
            after_blank = True
            continue
        elif lead == "-" and text.startswith(_PLAIN_BOXES) and "\n" not in text:
            # `- [x] ...`, as most criteria are: an outer checkbox, read as `criterion` reads it, without its regex.
            found.append(Criterion(number, text[5:].strip(), text[3] != " ", True))
            outer = text
            after_blank = False
            continue
        else:
            nested = False
        if (lead in _ITEM_STARTS or text.lstrip()[:1] in _ITEM_STARTS) \
                and (item := criterion(number, text.rstrip("\r"))) is not None:
            if not nested:
                found.append(item)
                outer = text
            elif item.checkbox:
                found.append(item)
        elif after_blank and not nested:  # a paragraph after the list: it has ended
            outer = None
        after_blank = False
    return found


# A list item's marker and the blanks after it: its text starts one to four columns after the marker.
_LIST_ITEM = re.compile(r"([ \t]*)([-*+]|\d+[.)])([ \t]+)")


def _indent(text: str) -> int:
    return len(text[: len(text) - len(text.lstrip(" \t"))].expandtabs(4))


def _text_column(item: str) -> int:
    """The column an item's text starts at (`- [ ] x`: 2; `10.  x`: 5)."""
    marker = _LIST_ITEM.match(item)
    if marker is None:  # a checkbox written with full-width blanks, read through halfwidth
        return _indent(item) + 2
    lead, bullet, gap = marker.groups()
    width = len(gap.expandtabs(4))
    return len(lead.expandtabs(4)) + len(bullet) + (width if width <= 4 else 1)


def criterion(number: int, text: str) -> Criterion | None:
    """The criterion a line states: a checkbox, or a plain bullet or numbered item (not an indented one)."""
    box = CHECKBOX.match(text)
    if box:
        return Criterion(number, box.group(2).strip(), box.group(1) != " ", True)
    bullet = BULLET.match(text)
    if bullet and not text.startswith((" " * 4, "\t")):
        return Criterion(number, bullet.group(1).strip(), False, False)
    return None


# A list as most stories write their criteria: blank lines and, at the margin, `- [ ] text` or `- [x] text` checkboxes
# whose text starts with a non-blank (so it is never empty), nothing else. `listed_criteria` reads each of its
# checkboxes as one criterion, in its plain-checkbox branch.
# Possessive (`*+`, `?+`): a line's text ends at "\n" or the end whatever is given back, so nothing is, and the regex
# engine keeps no state to backtrack into (a third fewer instructions).
_PLAIN_CHECKLIST = re.compile(r"(?:- \[[ xX]\] \S[^\n]*+)?+(?:\n(?:- \[[ xX]\] \S[^\n]*+)?+)*+")


def plain_checklist(text: str) -> tuple[int, int] | None:
    """(criteria, unchecked boxes) where `text` (lines joined by "\\n") is a plain checklist, counted without
    making its criteria; None where it is another list."""
    if _PLAIN_CHECKLIST.fullmatch(text) is None:
        return None
    # Every line is blank or a checkbox: a checkbox starts the text or follows a "\n".
    return text.count("\n- [") + text.startswith("- ["), text.count("\n- [ ]") + text.startswith("- [ ]")
