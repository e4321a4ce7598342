"""Finding a SEARCH block's one place in a file and replacing it, the way Aider tolerates models:
an exact match first, then one ignoring trailing whitespace, then one where every line is shifted
by the same indentation (the REPLACE lines are then shifted alike); each also tried without blank
lines the model added around SEARCH. The first way that finds anything decides: one place is the
match, several are ambiguous. No fuzzy matching beyond that: a near miss is told to the model
with the nearest lines, never applied.

Lines are compared without their line endings, and the lines outside the match keep theirs
byte for byte: a CRLF file stays CRLF (new lines take the file's usual ending).
"""

from __future__ import annotations

from collections.abc import Callable
from difflib import SequenceMatcher

_NEAREST_MAX_LINES = 5_000  # beyond this, looking for the nearest lines costs more than it helps
_NEAREST_RATIO = 0.6
_NEAREST_MAX_WINDOW = 40  # lines of SEARCH compared, at most
_NEAREST_LINE_CHARS = 200  # characters of a line compared, at most (a minified line is not read whole)


class MatchProblem(ValueError):
    """SEARCH matches no place or several; the message (without the path) is for the model."""


def replace_once(text: str, search: str, replace: str) -> str:
    """`text` with the one place matching `search` replaced by `replace` (MatchProblem if not one)."""
    lines = split_lines(text)
    bodies = [_body(line) for line in lines] if "\r" in text else text.split("\n")[:len(lines)]
    part, new = _model_lines(search), _model_lines(replace)
    for variant in _variants(part):
        for way in _WAYS:
            found = way(bodies, variant, new)
            if len(found) > 1:
                places = ", ".join(str(start + 1) for start, _ in found)
                raise MatchProblem(f"SEARCH matches {len(found)} places (lines {places}); add lines around the "
                                   "change so that it matches one place only")
            if found:
                (start, replacement), = found
                return _spliced(lines, start, len(variant), replacement, newline_of(text))
    raise MatchProblem(_no_match(bodies, part, new))


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split at '\\n' only (str.splitlines also splits at \\f, \\x1c, ...)."""
    parts = text.split("\n")
    lines = [f"{part}\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def newline_of(text: str) -> str:
    """The ending most lines of a text have: '\\r\\n' or '\\n'."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def _body(line: str) -> str:
    return line.removesuffix("\n").removesuffix("\r")


def _model_lines(text: str) -> list[str]:
    return [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")] if text else []


def _variants(part: list[str]) -> list[list[str]]:
    trimmed = list(part)
    while trimmed and not trimmed[0].strip():
        trimmed.pop(0)
    while trimmed and not trimmed[-1].strip():
        trimmed.pop()
    return [part, trimmed] if trimmed and trimmed != part else [part]


Found = list[tuple[int, list[str]]]  # (first line of a match, the lines that replace it)


def _windows(bodies: list[str], size: int) -> range:
    return range(len(bodies) - size + 1) if size else range(0)


def _exact(bodies: list[str], part: list[str], new: list[str]) -> Found:
    first = part[0]
    return [(start, new) for start in _windows(bodies, len(part))
            if bodies[start] == first and bodies[start:start + len(part)] == part]


def _trailing_space(bodies: list[str], part: list[str], new: list[str]) -> Found:
    wanted = [line.rstrip() for line in part]
    have = [line.rstrip() for line in bodies]
    return [(start, new) for start in _windows(bodies, len(part))
            if have[start] == wanted[0] and have[start:start + len(part)] == wanted]


def _indentation(bodies: list[str], part: list[str], new: list[str]) -> Found:
    """Every non-blank line of the place is the SEARCH line (outdented as far as SEARCH and REPLACE
    allow together) behind one and the same whitespace prefix; REPLACE gets that prefix too."""
    indents = [len(line) - len(line.lstrip()) for line in part + new if line.strip()]
    if not any(line.strip() for line in part):
        return []
    cut = min(indents)
    part = [line[cut:].rstrip() if line.strip() else "" for line in part]
    new = [line[cut:] if line.strip() else line for line in new]
    found: Found = []
    for start in _windows(bodies, len(part)):
        prefix = _common_prefix(bodies[start:start + len(part)], part)
        if prefix is not None:
            found.append((start, [prefix + line if line.strip() else line for line in new]))
    return found


def _common_prefix(window: list[str], part: list[str]) -> str | None:
    prefixes = set()
    for have, want in zip(window, part, strict=True):
        have = have.rstrip()
        if not want:
            if have:
                return None
            continue
        if not have.endswith(want) or have[:len(have) - len(want)].strip():
            return None
        prefixes.add(have[:len(have) - len(want)])
    return prefixes.pop() if len(prefixes) == 1 else None


_WAYS: tuple[Callable[[list[str], list[str], list[str]], Found], ...] = (_exact, _trailing_space, _indentation)


def _spliced(lines: list[str], start: int, size: int, replacement: list[str], newline: str) -> str:
    new = [line + newline for line in replacement]
    end = start + size
    if new and end == len(lines) and not lines[-1].endswith("\n"):
        new[-1] = replacement[-1]  # the file ended without a newline: so does it still
    return "".join(lines[:start] + new + lines[end:])


def _no_match(bodies: list[str], part: list[str], new: list[str]) -> str:
    message = "SEARCH matches no place in the file; copy its lines exactly as they are now"
    if new and any(way(bodies, new, new) for way in _WAYS):
        message += ". The REPLACE lines are in the file already: this change may have been made before"
    nearest = _nearest(bodies, part)
    if nearest:
        message += f". The nearest lines are:\n{nearest}"
    return message


def _nearest(bodies: list[str], part: list[str]) -> str:
    """The lines of the file most like SEARCH, with a little context and their numbers.

    Whole windows are compared only where one of a few SEARCH lines (first, middle, last) has a
    close line in the file: a window per line of a large file would cost seconds."""
    size = min(len(part), len(bodies), _NEAREST_MAX_WINDOW)
    if not size or len(bodies) > _NEAREST_MAX_LINES:
        return ""
    stripped = [line.strip()[:_NEAREST_LINE_CHARS] for line in bodies]
    wanted = [line.strip()[:_NEAREST_LINE_CHARS] for line in part[:size]]
    starts = {min(max(0, index - offset), len(bodies) - size)
              for offset in sorted({0, size // 2, size - 1}) if wanted[offset]
              for index in _close_lines(wanted[offset], stripped)}
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2("\n".join(wanted))  # characters: one word off still counts
    best, best_start = _NEAREST_RATIO, None
    for start in sorted(starts):
        matcher.set_seq1("\n".join(stripped[start:start + size]))
        if matcher.quick_ratio() >= best and (ratio := matcher.ratio()) >= best:
            best, best_start = ratio + 1e-9, start  # a tie keeps the first place
    if best_start is None:
        return ""
    first, last = max(0, best_start - 2), min(len(bodies), best_start + size + 2)
    return "\n".join(f"{number + 1:>5} | {bodies[number]}" for number in range(first, last))


def _close_lines(wanted: str, lines: list[str], keep: int = 3) -> list[int]:
    """The indexes of the (at most `keep`) lines most like `wanted`."""
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(wanted)
    scored = []
    for index, line in enumerate(lines):
        matcher.set_seq1(line)
        if matcher.real_quick_ratio() >= _NEAREST_RATIO and matcher.quick_ratio() >= _NEAREST_RATIO \
                and (ratio := matcher.ratio()) >= _NEAREST_RATIO:
            scored.append((-ratio, index))
    return [index for _, index in sorted(scored)[:keep]]
