"""The well-known body structures real memory banks keep links in.

Only what the validator needs is read: headings, checkbox lists, requirement
blocks and the ``**Related Requirements**`` line. Fenced code is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from aidlc.bank.criteria import BULLET, CHECKBOX, Criterion, listed_criteria, plain_checklist
from aidlc.bank.wording import may_hold_opinion, opinion_hints

_HEADING = re.compile(r"^(#{1,6})(?:\s+(.*))?$")  # a lazy title before optional closing #s backtracks
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


@dataclass
class StoryParts:
    """What the rules read of a story body: its acceptance criteria (the line of their heading, the criteria), its
    related requirements (the line, the ids), and what most stories' rules need of the criteria, counted as they
    are read. Criteria written as a plain checklist (criteria.plain_checklist) are made into `Criterion` objects
    only when first asked for, from `checklist`: at 10,000 stories the objects cost more than the rules that read
    them, and those rules need no more than the counts for most stories."""

    criteria_line: int | None
    related_line: int | None
    related: list[str]
    # False: no criterion can hold an opinion word (wording.may_hold_opinion over their text, or over the section
    # that holds them: true more often, never less, and each criterion is then tested on its own).
    opinion_hint: bool
    count: int  # criteria
    unchecked: int  # checkboxes left unchecked
    plain: bool  # every criterion is a checkbox with text
    checklist: str = ""  # the plain checklist the criteria are made from (its first line follows criteria_line)
    made: list[Criterion] | None = None  # the criteria, once made

    @classmethod
    def of(cls, criteria_line: int | None, criteria: list[Criterion], related_line: int | None, related: list[str],
           opinion_hint: bool) -> StoryParts:
        """The parts where the criteria are made already: counted from them."""
        return cls(criteria_line, related_line, related, opinion_hint, len(criteria),
                   sum(c.checkbox and not c.checked for c in criteria), all(c.checkbox and c.text for c in criteria),
                   made=criteria)

    @property
    def criteria(self) -> list[Criterion]:
        if self.made is None:
            assert self.criteria_line is not None  # a checklist is read under its heading
            self.made = listed_criteria(enumerate(self.checklist.split("\n"), self.criteria_line + 1))
            self.checklist = ""
        return self.made


def story_parts(body: str, first_line: int, batch_hint: bool = False) -> StoryParts:
    """The acceptance criteria and related requirements of a story body, and whether a criterion
    may hold an opinion word. With `batch_hint`, a plain checklist's opinion hint is left True (a rule
    then looks closer, never less) for `settle_opinion_hints` to find with many others at once."""
    return _story_parts(halfwidth(body), first_line, batch_hint)


def settle_opinion_hints(parts: list[StoryParts]) -> None:
    """The hints `story_parts` left for a batch, each as it finds one: a plain checklist's (its criteria not made
    yet, `checklist` holding them) is may_hold_opinion of its text, found for all of them in one batch."""
    pending = [part for part in parts if part.made is None]
    for part, hint in zip(pending, opinion_hints([part.checklist for part in pending]), strict=True):
        part.opinion_hint = hint


def _story_parts(body: str, first_line: int, batch_hint: bool = False) -> StoryParts:
    """Same result as `acceptance_criteria` and `related_requirements` over `prose_lines` (tests
    hold them equal), usually found without reading the body line by line: stories are the bulk
    of a large bank. A body with unusual line breaks (where line numbers would differ) is read
    line by line."""
    parts = None if _odd_breaks(body) else _jump_to_parts(body, first_line, batch_hint)
    if parts is None:
        lines = list(prose_lines(body, first_line))
        criteria_line, criteria = acceptance_criteria(lines)
        hint = may_hold_opinion("\n".join([criterion.text for criterion in criteria]))
        parts = StoryParts.of(criteria_line, criteria, *related_requirements(lines), hint)
    return parts


def _jump_to_parts(body: str, first_line: int, batch_hint: bool) -> StoryParts | None:
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
    related_line, related_ids = (None, []) if related is None else (
        first_line + text.count("\n", 1, related.start()), REQUIREMENT_ID.findall(related.group(1)))
    counted = plain_checklist(section)
    # The hint read over the section, which holds every criterion's text: no joined copy of them to make.
    if counted is None:
        criteria = listed_criteria(enumerate(section.split("\n"), criteria_line + 1))
        return StoryParts.of(criteria_line, criteria, related_line, related_ids, may_hold_opinion(section))
    hint = True if batch_hint else may_hold_opinion(section)
    return StoryParts(criteria_line, related_line, related_ids, hint, *counted, plain=True, checklist=section)


# Searched from the "\n" before a line, with a literal start ("\n#", "**") where the regex engine skips
# to: not with ^ and MULTILINE, which tries every character. Without odd breaks a "\r" can only end a
# line, so the whitespace within a line (\s in the general readers' patterns) is [^\S\n] or [^\S\r\n].
_ACCEPTANCE_HEADING = re.compile(r"\n#(#{0,5})[^\S\n]+[^\n]*?acceptance[^\S\n]+criteria", re.IGNORECASE)
_HEADING_START = re.compile(r"\n#(#{0,5})(?=\s|\Z)")  # an ATX heading's hashes after the first
_RELATED_ONE_LINE = re.compile(r"\*\*Related Requirements?\*\*[^\S\r\n]*:?[^\S\r\n]*([^\r\n][^\n]*)",
                               re.IGNORECASE)


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
            if _ACCEPTANCE.search(line.text) and not CHECKBOX.match(line.text):
                in_acceptance = True
                continue
            if in_acceptance:
                if heading(line.text) or (line.text.strip().startswith("**") and not BULLET.match(line.text)):
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
