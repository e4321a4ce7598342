"""Which unit of work a line of the aidlc-docs layout names: by number (`Unit 1`, `U2`, `유닛 3`, with a letter when
one number holds several units: `Unit 3-A`, `unit-3b-backend`) or by the name of its folder under construction/
(`v4-migration`)."""

from __future__ import annotations

import re

# A letter right after the number, as a word's end (`3-A:`, `3b-backend`, not `3-api`), is part of the unit's name.
_UNIT = re.compile(r"\b(?:unit|유닛|단위)[ \t]*[-#]?[ \t]*(?P<n>\d+)(?:-?(?P<letter>[a-z])\b)?|\b[Uu](?P<u>\d+)\b",
                   re.IGNORECASE)


def _name(match: re.Match[str]) -> str:
    return str(int(match.group("n") or match.group("u"))) + (match.group("letter") or "").upper()


def units_of(text: str) -> list[str]:
    """Every unit a text names by number, in order: `Unit 1 and U3` -> ['1', '3']."""
    return list(dict.fromkeys(_name(match) for match in _UNIT.finditer(text)))


def unit_of(text: str) -> str | None:
    """The unit a line names: `Unit 1`, `U2`, `유닛 3`, `Unit 3-B` -> '1', '2', '3', '3B'; None when it names none."""
    match = _UNIT.search(text)
    return None if match is None else _name(match)


# A unit named by its folder in backticks at a line's start: `Unit \`web\`: Code Generation [x]` (wc2026-predictor).
_NAMED_UNIT = re.compile(r"(?:unit|유닛|단위)[ \t]+`[^`\n]{1,60}`", re.IGNORECASE)


def leading_unit(text: str) -> int | None:
    """Where the unit a text starts with ends (`Unit 1 (Backend) - ...` -> 6, ``Unit `web`: ...`` -> 10); None when
    it starts with none."""
    match = _UNIT.match(text) or _NAMED_UNIT.match(text)
    return None if match is None else match.end()


def folder_words(folder: str) -> str:
    """A regex of a folder's name as text writes it: `v4-migration`, `v4 migration`, `V4_Migration` (as a word)."""
    spelled = re.escape(folder).replace(r"\-", "[-_ ]")
    return rf"(?<![\w-]){spelled}(?![\w-])"


def folders_named(text: str, folders: list[str]) -> list[str]:
    """The folders of `folders` that `text` names (case ignored)."""
    return [folder for folder in folders if re.search(folder_words(folder), text, re.IGNORECASE)]
