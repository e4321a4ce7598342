"""Reading a model's plain-text answer as edit blocks, tolerantly (models decorate paths and fences
in many ways) but never guessing at what a block says.

SEARCH/REPLACE (the default): a line holding the path, an optional ``` fence, then

    <<<<<<< SEARCH
    lines as they are now (empty: create the file)
    =======
    the lines that take their place
    >>>>>>> REPLACE

Whole-file (for a weak model, or after malformed answers): a line holding the path, then a fenced
block holding the file's complete new content. In either mode a path line followed by a line
`<<<<<<< DELETE` deletes the file. The path line may be wrapped in backticks or bold, start with
'#' or 'File:', end with ':', or be the fence's info string (```src/app.py). A block with no path
before it belongs to the file of the block before (models repeat the fence, not the path).

Anything else in the answer (prose, explanations) is ignored. An answer that cannot be read raises
EditFormatError, whose message tells the model what was wrong, where, and shows the format again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aidlc.errors import AidlcError


@dataclass(frozen=True)
class EditBlock:
    path: str  # as the model wrote it (POSIX, relative to the repository root)
    search: str | None  # None: a whole-file block (the new content is `replace`); "" creates the file
    replace: str
    delete: bool = False  # the file is to be deleted (search None, replace "")


class EditFormatError(AidlcError):
    """The answer could not be read as edit blocks; `message` is for the model (`problem` alone, too)."""

    def __init__(self, problem: str, whole_file: bool) -> None:
        super().__init__(f"{problem}\n\n{edit_format_prompt(whole_file)}")
        self.problem = problem


def edit_format_prompt(whole_file: bool = False) -> str:
    """How to write edit blocks (templates/prompts/edit_format.md.j2), for the model."""
    from aidlc.llm.prompts import render_prompt  # jinja2 only when a prompt is built

    return render_prompt("edit_format.md.j2", whole_file=whole_file)


_HEAD = re.compile(r"<{5,9}\s*SEARCH>?")
_DIVIDER = re.compile(r"={5,9}")
_UPDATED = re.compile(r">{5,9}\s*REPLACE<?")
_DELETE = re.compile(r"<{5,9}\s*DELETE>?")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_LABEL = re.compile(r"(?:file(?:name)?|path)\s*:\s*", re.IGNORECASE)
_BACKTICKED = re.compile(r"`([^`\s]+)`")
_EXTENSIONLESS = re.compile(r"[A-Z][A-Za-z]*file|[A-Z][A-Z_]+")  # Makefile, Dockerfile, LICENSE, CODEOWNERS
_LOOK_BACK = 4  # lines above a marker or fence searched for its path (blank lines and fences skipped)


def parse_edit_blocks(text: str, whole_file: bool = False) -> list[EditBlock]:
    """The edit blocks of an answer, in order. SEARCH/REPLACE blocks are read in either mode (a model
    told to send whole files may still send them, and they say exactly what they change)."""
    lines = text.replace("\r\n", "\n").split("\n")
    if whole_file and not any(_HEAD.fullmatch(line.strip()) for line in lines):
        blocks = _whole_files(lines)
    else:
        blocks = _search_replace(lines, whole_file)
    if not blocks:
        raise EditFormatError("Your answer holds no edit block, so nothing was changed.", whole_file)
    return blocks


def _search_replace(lines: list[str], whole_file: bool) -> list[EditBlock]:
    blocks: list[EditBlock] = []
    current: str | None = None  # the path of the block before
    i = 0
    while i < len(lines):
        marker = lines[i].strip()
        if _UPDATED.fullmatch(marker):
            raise EditFormatError(f"Line {i + 1} of your answer, `{marker}`, ends a block that never began with "
                                  "`<<<<<<< SEARCH`.", whole_file)
        if not (_HEAD.fullmatch(marker) or _DELETE.fullmatch(marker)):
            i += 1
            continue
        path = _path_before(lines, i) or current
        if path is None:
            raise EditFormatError(f"Line {i + 1} of your answer, `{marker}`, has no file path on a line of its "
                                  "own before it.", whole_file)
        current = path
        if _DELETE.fullmatch(marker):
            blocks.append(EditBlock(path, None, "", delete=True))
            i += 1
            continue
        divider = _find(lines, i + 1, _DIVIDER, (_HEAD, _UPDATED, _DELETE))
        if divider is None or not _DIVIDER.fullmatch(lines[divider].strip()):
            where = "the answer ends" if divider is None else f"line {divider + 1} says `{lines[divider].strip()}`"
            raise EditFormatError(f"The block for {path} that begins on line {i + 1} has no `=======` line "
                                  f"between SEARCH and REPLACE: {where} first.", whole_file)
        end = _find(lines, divider + 1, _UPDATED, (_HEAD, _DELETE))
        if end is None or not _UPDATED.fullmatch(lines[end].strip()):
            where = "the answer ends" if end is None else f"line {end + 1} begins another block"
            raise EditFormatError(f"The block for {path} that begins on line {i + 1} is never closed with "
                                  f"`>>>>>>> REPLACE`: {where} first.", whole_file)
        blocks.append(EditBlock(path, _joined(lines[i + 1:divider]), _joined(lines[divider + 1:end])))
        i = end + 1
    return blocks


def _find(lines: list[str], start: int, wanted: re.Pattern[str], stops: tuple[re.Pattern[str], ...]) -> int | None:
    """The first line from `start` that is `wanted` or one of `stops`; None at the end of the answer."""
    for number in range(start, len(lines)):
        marker = lines[number].strip()
        if wanted.fullmatch(marker) or any(stop.fullmatch(marker) for stop in stops):
            return number
    return None


def _whole_files(lines: list[str]) -> list[EditBlock]:
    blocks: list[EditBlock] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if _DELETE.fullmatch(stripped) and (path := _path_before(lines, i)):
            blocks.append(EditBlock(path, None, "", delete=True))
        elif fence := _FENCE.fullmatch(stripped):
            info = fence.group(2).strip()
            path = info if _looks_like_path(info) else _path_before(lines, i)
            end = _closing(lines, i + 1, fence.group(1))
            if path is not None:  # a fence with no path is an example in the prose, not a file
                if end is None:
                    raise EditFormatError(f"The block for {path} that begins on line {i + 1} is never closed with "
                                          f"a line `{fence.group(1)}`.", whole_file=True)
                blocks.append(EditBlock(path, None, _joined(lines[i + 1:end])))
            i = len(lines) if end is None else end
        i += 1
    return blocks


def _closing(lines: list[str], start: int, fence: str) -> int | None:
    """The line closing a fence opened with `fence`. A fence with an info string inside opens a nested
    one (a Markdown file's ```python example), closed by the next bare fence."""
    depth = 0
    for number in range(start, len(lines)):
        stripped = lines[number].strip()
        run = len(stripped) - len(stripped.lstrip(fence[0]))
        if run < len(fence):
            continue
        if run == len(stripped):
            if depth == 0:
                return number
            depth -= 1
        else:
            depth += 1
    return None


def _path_before(lines: list[str], index: int) -> str | None:
    """The path named on the nearest line above `index` that is neither blank nor a fence."""
    for number in range(index - 1, max(-1, index - 1 - _LOOK_BACK), -1):
        stripped = lines[number].strip()
        if not stripped:
            continue
        if fence := _FENCE.fullmatch(stripped):
            info = fence.group(2).strip()
            if _looks_like_path(info):
                return info
            continue
        if any(marker.fullmatch(stripped) for marker in (_HEAD, _DIVIDER, _UPDATED, _DELETE)):
            return None
        return _path_in(stripped)
    return None


def _path_in(line: str) -> str | None:
    """`src/app.py` from `src/app.py`, `**src/app.py**`, `# File: src/app.py`, `src/app.py:`, or from a
    sentence naming one path in backticks."""
    candidate = _LABEL.sub("", line.lstrip("#").strip(), count=1)
    candidate = candidate.strip("*`").strip().rstrip(":").strip().strip("*`").strip()
    if _looks_like_path(candidate):
        return candidate
    named = {span for span in _BACKTICKED.findall(line) if _looks_like_path(span)}
    return named.pop() if len(named) == 1 else None


def _looks_like_path(text: str) -> bool:
    if not text or any(char.isspace() for char in text) or set(text) <= {".", "`", "~", "*"}:
        return False
    return "/" in text or "." in text.strip(".") or _EXTENSIONLESS.fullmatch(text) is not None


def _joined(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)
