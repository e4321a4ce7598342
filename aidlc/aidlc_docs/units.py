"""Which unit of work a line of the aidlc-docs layout names: by number (`Unit 1`, `U2`, `유닛 3`) or by the name of
its folder under construction/ (`v4-migration`)."""

from __future__ import annotations

import re

_UNIT = re.compile(r"\b(?:unit|유닛|단위)[ \t]*[-#]?[ \t]*(?P<n>\d+)|\b[Uu](?P<u>\d+)\b", re.IGNORECASE)


def units_of(text: str) -> list[str]:
    """Every unit a text names by number, in order: `Unit 1 and U3` -> ['1', '3']."""
    return list(dict.fromkeys(str(int(m.group("n") or m.group("u"))) for m in _UNIT.finditer(text)))


def unit_of(text: str) -> str | None:
    """The unit a line names: `Unit 1`, `U2`, `유닛 3` -> '1', '2', '3'; None when it names none."""
    match = _UNIT.search(text)
    if match is None:
        return None
    return str(int(match.group("n") or match.group("u")))


def folder_words(folder: str) -> str:
    """A regex of a folder's name as text writes it: `v4-migration`, `v4 migration`, `V4_Migration` (as a word)."""
    spelled = re.escape(folder).replace(r"\-", "[-_ ]")
    return rf"(?<![\w-]){spelled}(?![\w-])"


def folders_named(text: str, folders: list[str]) -> list[str]:
    """The folders of `folders` that `text` names (case ignored)."""
    return [folder for folder in folders if re.search(folder_words(folder), text, re.IGNORECASE)]
