"""ANSI colour, applied only when the caller says the terminal wants it."""

from __future__ import annotations

_CODES = {"red": "31", "yellow": "33", "green": "32", "blue": "34", "dim": "2", "bold": "1"}


class Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, name: str) -> str:
        return f"\033[{_CODES[name]}m{text}\033[0m" if self.color else text
