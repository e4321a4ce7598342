"""Finding the JSON in a model's answer, whatever it wrapped it in.

Models (small local ones especially) put JSON in code fences, add prose before and after,
leave trailing commas and // or /* */ comments, put raw newlines inside strings, or stop in the
middle. `parse_json_answer` tries, in order: the whole answer; each fenced block; each balanced
{...} or [...] span (which drops prose around it and any trailing garbage); each of these again
with comments and trailing commas removed. An object wins over an array (we ask for objects).
When nothing parses, JSONAnswerError says why in words a model can act on.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_MAX_STARTS = 50  # bracket positions tried; an answer with more is prose, not JSON
_PAIRS = {"{": "}", "[": "]"}


class JSONAnswerError(ValueError):
    """No JSON value could be read from the answer; the message says why."""


def parse_json_answer(text: str) -> Any:
    stripped = text.strip().lstrip("\ufeff")
    if not stripped:
        raise JSONAnswerError("the answer is empty; expected a JSON object")
    candidates = [stripped, *(m.group(1).strip() for m in _FENCE.finditer(stripped))]
    unclosed: int | None = None
    starts = [i for i, ch in enumerate(stripped) if ch in _PAIRS][:_MAX_STARTS]
    for start in starts:
        end = _balanced_end(stripped, start)
        if end is None:
            unclosed = start if unclosed is None else unclosed
            continue
        candidates.append(stripped[start:end])
    fallback: Any = None
    found = False
    last_error: ValueError | None = None
    for candidate in dict.fromkeys(candidates):  # unique, in order
        for variant in (candidate, clean_json(candidate)):
            try:
                value = json.loads(variant, strict=False)  # strict=False: raw newlines inside strings
            except ValueError as exc:
                last_error = exc
                continue
            if isinstance(value, dict):
                return value
            if not found and isinstance(value, list):
                fallback, found = value, True
    if found:
        return fallback
    if not starts:
        raise JSONAnswerError("the answer contains no JSON object (no '{' found)")
    if unclosed is not None and unclosed == starts[0]:  # the outermost bracket never closes
        raise JSONAnswerError(f"the JSON starting at character {unclosed} never closes: the answer looks truncated")
    raise JSONAnswerError(f"the answer is not valid JSON: {last_error}")


def clean_json(text: str) -> str:
    """Remove // and /* */ comments and trailing commas, leaving string contents alone."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
        elif ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # a trailing comma: drop it
            else:
                out.append(ch)
                i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket that closes the one at `start`, or None if it never closes."""
    stack = [_PAIRS[text[start]]]
    i, n = start + 1, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i = _string_end(text, i)
            continue
        if text.startswith("//", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            continue
        if ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif ch in "}]":
            if ch != stack[-1]:
                return None  # mismatched: not JSON from here
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return None


def _string_end(text: str, start: int) -> int:
    """Index just past the closing quote of the string opening at `start` (or the end of text)."""
    i, n = start + 1, len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return n
