"""The well-known body structures real memory banks keep links in.

Only what the validator needs is read: headings, checkbox lists, requirement
blocks and the ``**Related Requirements**`` line. Fenced code is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from aidlc.bank.wording import may_hold_opinion

_HEADING = re.compile(r"^(#{1,6})(?:\s+(.*))?$")  # a lazy title before optional closing #s backtracks
_CHECKBOX = re.compile(r"^\s*[-*+]\s+\[([ xX])\]\s*(.*)$")
_PLAIN_BOXES = ("- [ ]", "- [x]", "- [X]")  # the checkbox most lists write, read without the regex
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

# People typing in Chinese, Japanese or Korean input modes write the markers with full-width forms
# (`**Priority**：Must`, `FR－3`, `［x］`, `FR-1，FR-2`): read as their ASCII forms, one character
# for one, so line numbers and offsets stay. U+FF01-FF5E are ASCII 0x21-0x7E shifted by 0xFEE0.
_HALFWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {
    0x3000: " ", 0x3001: ",", 0x3010: "[", 0x3011: "]"}


def halfwidth(text: str) -> str:
    """`text` with full-width punctuation, letters and digits as ASCII (only non-ASCII text pays)."""
    return text if text.isascii() else text.translate(_HALFWIDTH)


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
    for offset, text in enumerate(halfwidth(body).splitlines()):
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
    return len(match.group(1)), _title(match.group(2))


def _title(raw: str | None) -> str:
    title = (raw or "").strip()
    if title.endswith("#"):  # an optional closing sequence: "## Title ##"
        title = title.rstrip("#").rstrip()
    return title


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
    return listed_criteria((line.number, line.text) for line in lines)


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
    box = _CHECKBOX.match(text)
    if box:
        return Criterion(number, box.group(2).strip(), box.group(1) != " ", True)
    bullet = _BULLET.match(text)
    if bullet and not text.startswith((" " * 4, "\t")):
        return Criterion(number, bullet.group(1).strip(), False, False)
    return None


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


_UNIT_LINE = re.compile(r"^\s*[-*+]?\s*\*\*Unit:?\*\*\s*:?\s*`?([\w.-]+)`?\s*$", re.IGNORECASE)


def unit_line(body: str, first_line: int) -> tuple[int, str] | None:
    """The unit a story body names on a line of its own, `**Unit:** 001-core-local-data` (line, name)."""
    if "**" not in body:
        return None
    for line in prose_lines(body, first_line):
        match = _UNIT_LINE.match(line.text) if "**" in line.text else None
        if match:
            return line.number, match.group(1)
    return None


def related_requirements(lines: list[Line]) -> tuple[int | None, list[str]]:
    for line in lines:
        match = _RELATED.search(line.text) if "**" in line.text else None
        if match:
            return line.number, REQUIREMENT_ID.findall(match.group(1))
    return None, []


@dataclass(slots=True)
class StoryParts:
    criteria_line: int | None
    criteria: list[Criterion]
    related_line: int | None
    related: list[str]
    # False: no criterion can hold an opinion word (wording.may_hold_opinion over their text, or over the section
    # that holds them: true more often, never less, and each criterion is then tested on its own).
    opinion_hint: bool = True


def story_parts(body: str, first_line: int) -> StoryParts:
    """The acceptance criteria and related requirements of a story body, and whether a criterion
    may hold an opinion word."""
    return _story_parts(halfwidth(body), first_line)


def _story_parts(body: str, first_line: int) -> StoryParts:
    """Same result as `acceptance_criteria` and `related_requirements` over `prose_lines` (tests
    hold them equal), usually found without reading the body line by line: stories are the bulk
    of a large bank. A body with unusual line breaks (where line numbers would differ) is read
    line by line."""
    parts = None if _odd_breaks(body) else _jump_to_parts(body, first_line)
    if parts is None:
        lines = list(prose_lines(body, first_line))
        parts = StoryParts(*acceptance_criteria(lines), *related_requirements(lines))
        parts.opinion_hint = may_hold_opinion("\n".join([criterion.text for criterion in parts.criteria]))
    return parts


def _jump_to_parts(body: str, first_line: int) -> StoryParts | None:
    """The parts found by jumping to the few lines that hold them: the acceptance heading, the next
    heading that ends its section, the related-requirements line. None where fenced code comes
    before any of them (it could hide one), or where there is no acceptance heading."""
    text = "\n" + body  # a line is found from the "\n" before it: offsets are one past the body's
    heading = _ACCEPTANCE_HEADING.search(text)
    if heading is None:
        return None  # perhaps the "**Acceptance Criteria**:" label form
    # The regex scans the whole body; its "**" and then an R or r (nothing else matches that R, even ignoring
    # case) are found faster, and most stories have no such line.
    related = _RELATED_ONE_LINE.search(text) if "**R" in text or "**r" in text else None
    start = text.find("\n", heading.end())  # the end of the heading line
    if start == -1:  # the heading is the last line
        start = len(text)
    end = _section_end(text, start, len(heading.group(1)))
    read_to = max(end, related.end() if related else 0)
    # One character looked for first (memchr: a fraction of a three-character search); most have none there.
    if (text.find("`", 0, read_to) != -1 and text.find("```", 0, read_to) != -1) \
            or (text.find("~", 0, read_to) != -1 and text.find("~~~", 0, read_to) != -1):
        return None
    criteria_line = first_line + text.count("\n", 1, heading.start() + 1)
    section = text[start + 1 : end]
    criteria = listed_criteria(enumerate(section.split("\n"), criteria_line + 1))
    # The hint read over the section, which holds every criterion's text: no joined copy of them to make.
    hint = may_hold_opinion(section)
    if related is None:
        return StoryParts(criteria_line, criteria, None, [], hint)
    return StoryParts(criteria_line, criteria, first_line + text.count("\n", 1, related.start()),
                      REQUIREMENT_ID.findall(related.group(1)), hint)


# Searched from the "\n" before a line, with a literal start ("\n#", "**") where the regex engine skips
# to: not with ^ and MULTILINE, which tries every character. Without odd breaks a "\r" can only end a
# line, so the whitespace within a line (\s in the general readers' patterns) is [^\S\n] or [^\S\r\n].
_ACCEPTANCE_HEADING = re.compile(r"\n#(#{0,5})[^\S\n]+[^\n]*?acceptance[^\S\n]+criteria", re.IGNORECASE)
_HEADING_START = re.compile(r"\n#(#{0,5})(?=\s|\Z)")  # an ATX heading's hashes after the first
_RELATED_ONE_LINE = re.compile(r"\*\*Related Requirements?\*\*[^\S\r\n]*:?[^\S\r\n]*([^\r\n][^\n]*)",
                               re.IGNORECASE)
_ITEM_STARTS = frozenset("-*+0123456789")  # a list item starts so, after optional blanks


def _section_end(text: str, start: int, level: int) -> int:
    """Where the section whose heading ends at `start` ends: the next heading with no more hashes
    (`level`: its hashes after the first)."""
    # Each heading starts with "\n#": found by str.find, faster than the regex engine's scan for it.
    at = text.find("\n#", start)
    while at != -1:
        heading = _HEADING_START.match(text, at)
        if heading is not None and len(heading.group(1)) <= level:
            return at
        at = text.find("\n#", at + 1)
    return len(text)


def _odd_breaks(body: str) -> bool:
    """Line breaks that splitlines() honours besides \\n (and \\r\\n): line numbers would differ."""
    if "\r" in body and body.count("\r") != body.count("\r\n"):
        return True
    # Written out, not any() over a generator: this runs for every story.
    if "\x0b" in body or "\x0c" in body or "\x1c" in body or "\x1d" in body or "\x1e" in body:
        return True
    return not body.isascii() and ("\x85" in body or "\u2028" in body or "\u2029" in body)


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
                said = _PRIORITY.search(line.text)
                if said:
                    priority = said.group(1).lower()
            sub_id = _SUB_REQ.match(line.text)
            if sub_id:
                sub_ids.append(sub_id.group(1))
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


_TABLE_RULE = frozenset("-: ")


def table_rows(lines: list[Line]) -> Iterator[tuple[int, list[str]]]:
    """The rows of the pipe tables in `lines` (line number, cells), without the |---| rules."""
    for line in lines:
        text = line.text.strip()
        if text.startswith("|"):
            cells = [cell.strip() for cell in text.strip("|").split("|")]
            if not all(_TABLE_RULE.issuperset(cell) for cell in cells):
                yield line.number, cells


def heading_titles(lines: list[Line]) -> list[tuple[int, str]]:
    return [(line.number, head[1]) for line in lines if (head := heading(line.text))]
