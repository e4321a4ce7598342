"""Counts in messages: "1 requirement", "2 requirements", "1 box", "3 stories"."""

from __future__ import annotations


def plural(count: int, noun: str) -> str:
    """`count` and `noun`, the noun's last word in the plural unless the count is one."""
    return f"{count} {noun if count == 1 else plural_of(noun)}"


def plural_of(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"
