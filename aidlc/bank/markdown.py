"""The well-known body structures real memory banks keep links in.

Only what the validator needs is read: headings, checkbox lists, requirement
blocks and the ``**Related Requirements**`` line. Fenced code is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_HEADING = re.compile(r"^(#{1,6})(?:\s+(.*))?$")  # a lazy title before optional closing #s backtracks
_CHECKBOX = re.compile(r"^\s*[-*+]\s+\[([ xX])\]\s*(.*)$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_REQ_HEADING = re.compile(r"^((?:FR|NFR)-\d+(?:\.\d+)*)(?:\s*[:\-–—.]\s*|\s+|$)(.*)$")
_SUB_REQ = re.compile(r"^\s*[-*+]\s+\**((?:FR|NFR)-\d+(?:\.\d+)+)\**\s*:")
_PRIORITY = re.compile(r"\bpriority\b\**\s*[:|]?\s*\**\s*(must|should|could)\b", re.IGNORECASE)
_PRIORITY_TAG = re.compile(r"\((must|should|could)\)\s*$", re.IGNORECASE)
_ACCEPTANCE = re.compile(r"acceptance\s+criteria", re.IGNORECASE)
_RELATED = re.compile(r"\*\*Related Requirements?\*\*\s*:?\s*(.+)", re.IGNORECASE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# "**Acceptance Criteria**:" on a line of its own, as requirements.md writes it (stories usually use a heading).
_ACCEPTANCE_LABEL = re.compile(r"^\s*\**\s*acceptance\s+criteria\s*:?\s*\**\s*:?\s*$", re.IGNORECASE)
REQUIREMENT_ID = re.compile(r"\b(?:FR|NFR)-\d+(?:\.\d+)*\b")


@dataclass(slots=True)
class Line:
    number: int
    text: str


def prose_lines(body: str, first_line: int) -> Iterator[Line]:
    """Body lines outside fenced code blocks, with their file line numbers.

    As in CommonMark, a fence closes only with the same character, at least as many of them,
    and nothing after: a ``` line inside a ```` block is content.
    """
    fence: str | None = None
    for offset, text in enumerate(body.splitlines()):
        # Only a line starting (after up to 3 spaces) with ` or ~ can be a fence: skip the regex otherwise.
        match = _FENCE.match(text) if text[:4].lstrip(" ")[:1] in ("`", "~") else None
        if match and fence is None:
            fence = match.group(1)
            continue
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not match.group(2).strip():
                fence = None
            continue
        yield Line(first_line + offset, text)


def heading(text: str) -> tuple[int, str] | None:
    if not text.startswith("#"):
        return None
    match = _HEADING.match(text)
    if not match:
        return None
    title = (match.group(2) or "").strip()
    if title.endswith("#"):  # an optional closing sequence: "## Title ##"
        title = title.rstrip("#").rstrip()
    return len(match.group(1)), title


@dataclass(slots=True)
class Criterion:
    line: int
    text: str
    checked: bool
    checkbox: bool


@dataclass
class Section:
    title: str
    level: int
    line: int
    lines: list[Line] = field(default_factory=list)


def sections(lines: list[Line]) -> list[Section]:
    """Split lines at headings; each section holds the lines up to the next heading."""
    result: list[Section] = []
    current: Section | None = None
    for line in lines:
        head = heading(line.text)
        if head:
            current = Section(title=head[1], level=head[0], line=line.number)
            result.append(current)
        elif current is not None:
            current.lines.append(line)
    return result


def criteria_in(lines: list[Line]) -> list[Criterion]:
    found: list[Criterion] = []
    for line in lines:
        box = _CHECKBOX.match(line.text)
        if box:
            found.append(Criterion(line.number, box.group(2).strip(), box.group(1) != " ", True))
            continue
        bullet = _BULLET.match(line.text)
        if bullet and not line.text.startswith((" " * 4, "\t")):
            found.append(Criterion(line.number, bullet.group(1).strip(), False, False))
    return found


def acceptance_criteria(lines: list[Line]) -> tuple[int | None, list[Criterion]]:
    """The list under the first "Acceptance Criteria" heading (line of that heading, items)."""
    parts = sections(lines)
    for index, part in enumerate(parts):
        if _ACCEPTANCE.search(part.title):
            body = list(part.lines)
            # Sub-headings (### Scenario ...) belong to the section until a heading of its level.
            for sub in parts[index + 1 :]:
                if sub.level <= part.level:
                    break
                body.extend(sub.lines)
            return part.line, criteria_in(body)
    return _labelled_criteria(lines)


def _labelled_criteria(lines: list[Line]) -> tuple[int | None, list[Criterion]]:
    """The list after a "**Acceptance Criteria**:" line, up to the next heading or blank-line gap."""
    for start, line in enumerate(lines):
        if _ACCEPTANCE_LABEL.match(line.text):
            body: list[Line] = []
            for item in lines[start + 1 :]:
                if heading(item.text) or (body and not item.text.strip()):
                    break
                body.append(item)
            return line.number, criteria_in(body)
    return None, []


def related_requirements(lines: list[Line]) -> tuple[int | None, list[str]]:
    for line in lines:
        match = _RELATED.search(line.text) if "**" in line.text else None
        if match:
            return line.number, REQUIREMENT_ID.findall(match.group(1))
    return None, []


_RELATED_ONE_LINE = re.compile(r"\*\*Related Requirements?\*\*[^\S\n]*:?[^\S\n]*([^\n]+)", re.IGNORECASE)


@dataclass(slots=True)
class StoryParts:
    criteria_line: int | None
    criteria: list[Criterion]
    related_line: int | None
    related: list[str]


def story_parts(body: str, first_line: int) -> StoryParts:
    """The acceptance criteria and related requirements of a story body.

    Same result as `acceptance_criteria` and `related_requirements` over `prose_lines`
    (tests hold them equal). Stories are the bulk of a large bank, so the body is read with
    whole-text regexes, fenced code blanked out, instead of line by line; only a body with
    unusual line breaks (where line numbers would differ) takes the line-by-line way.
    """
    if _odd_breaks(body):
        lines = list(prose_lines(body, first_line))
        return StoryParts(*acceptance_criteria(lines), *related_requirements(lines))
    original = body
    if "``" in body or "~~" in body:
        body = _blank_fences(body)
    level: int | None = None
    heading_line: int | None = None
    start = end = len(body)
    for line_start, line_end in _lines_starting_with(body, "#"):
        head = heading(body[line_start:line_end])
        if head is None:
            continue
        if level is None:
            if _ACCEPTANCE.search(head[1]):
                level, heading_line, start = head[0], first_line + body.count("\n", 0, line_start), line_end
        elif head[0] <= level:
            end = line_start
            break
    related_line: int | None = None
    related: list[str] = []
    found = _RELATED_ONE_LINE.search(body)
    if found:
        related_line = first_line + body.count("\n", 0, found.start())
        related = REQUIREMENT_ID.findall(found.group(1))
    if level is None:  # the rare "**Acceptance Criteria**:" label form, read the general way
        heading_line, criteria = _labelled_criteria(list(prose_lines(original, first_line)))
        return StoryParts(heading_line, criteria, related_line, related)
    assert heading_line is not None
    section = body[start:end].split("\n")[1:]  # [0] is the end of the heading line itself
    lines = [Line(heading_line + number, text.rstrip("\r")) for number, text in enumerate(section, start=1)
             if text[:1] in _ITEM_STARTS or text.lstrip()[:1] in _ITEM_STARTS]
    return StoryParts(heading_line, criteria_in(lines), related_line, related)


_ITEM_STARTS = frozenset("-*+0123456789")


def _odd_breaks(body: str) -> bool:
    """Line breaks that splitlines() honours besides \\n (and \\r\\n): line numbers would differ."""
    if "\r" in body and body.count("\r") != body.count("\r\n"):
        return True
    if any(char in body for char in "\x0b\x0c\x1c\x1d\x1e"):
        return True
    return not body.isascii() and any(char in body for char in "\x85\u2028\u2029")


def _blank_fences(body: str) -> str:
    """The body with fenced code blocks (fence lines included) replaced by empty lines."""
    pieces: list[str] = []
    done = 0
    fence: str | None = None
    opened = 0
    for line_start, line_end in _fence_lines(body):
        match = _FENCE.match(body[line_start:line_end])
        if match is None:
            continue
        marker, rest = match.group(1), match.group(2)
        if fence is None:
            fence, opened = marker, line_start
        elif marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip():
            pieces += [body[done:opened], "\n" * body.count("\n", opened, line_end)]
            done, fence = line_end, None
    if fence is not None:
        pieces += [body[done:opened], "\n" * body.count("\n", opened)]
        done = len(body)
    return "".join(pieces) + body[done:]


def _lines_starting_with(body: str, prefix: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each line that starts with `prefix`, found with str.find (no per-line loop)."""
    position = 0 if body.startswith(prefix) else body.find("\n" + prefix)
    while position != -1:
        start = position if position == 0 and body.startswith(prefix) else position + 1
        end = body.find("\n", start)
        end = len(body) if end == -1 else end
        yield start, end
        position = body.find("\n" + prefix, end)


def _fence_lines(body: str) -> Iterator[tuple[int, int]]:
    """Lines that may be fences: ``` or ~~~ after at most three spaces, in order."""
    found: set[tuple[int, int]] = set()
    for token in ("```", "~~~"):
        position = body.find(token)
        while position != -1:
            start = body.rfind("\n", 0, position) + 1
            if position - start <= 3 and not body[start:position].strip(" "):
                end = body.find("\n", position)
                found.add((start, len(body) if end == -1 else end))
            position = body.find(token, position + 3)
    return iter(sorted(found))


@dataclass
class RequirementBlock:
    id: str
    title: str
    line: int
    priority: str | None
    criteria: list[Criterion]
    sub_ids: list[str]


def requirement_blocks(lines: list[Line]) -> list[RequirementBlock]:
    """Every ``### FR-n: title`` / ``### NFR-n: title`` heading with its priority and criteria."""
    blocks: list[RequirementBlock] = []
    parts = sections(lines)
    for index, part in enumerate(parts):
        title = part.title.replace("*", "").strip()
        match = _REQ_HEADING.match(title)
        if not match:
            continue
        body = list(part.lines)
        for sub in parts[index + 1 :]:
            if sub.level <= part.level or _REQ_HEADING.match(sub.title.replace("*", "").strip()):
                break
            body.append(Line(sub.line, "#" * sub.level + " " + sub.title))
            body.extend(sub.lines)
        name = (match.group(2) or "").strip()
        priority = None
        tag = _PRIORITY_TAG.search(name)
        if tag:
            priority = tag.group(1).lower()
            name = name[: tag.start()].strip()
        criteria: list[Criterion] = []
        sub_ids: list[str] = []
        in_acceptance = False
        for line in body:
            if priority is None:
                found = _PRIORITY.search(line.text)
                if found:
                    priority = found.group(1).lower()
            sub = _SUB_REQ.match(line.text)
            if sub:
                sub_ids.append(sub.group(1))
            if _ACCEPTANCE.search(line.text) and not _CHECKBOX.match(line.text):
                in_acceptance = True
                continue
            if in_acceptance:
                if heading(line.text) or (line.text.strip().startswith("**") and not _BULLET.match(line.text)):
                    in_acceptance = False
                    continue
                criteria.extend(criteria_in([line]))
        blocks.append(RequirementBlock(match.group(1), name, part.line, priority, criteria, sub_ids))
    return blocks


def heading_titles(lines: list[Line]) -> list[tuple[int, str]]:
    return [(line.number, head[1]) for line in lines if (head := heading(line.text))]
