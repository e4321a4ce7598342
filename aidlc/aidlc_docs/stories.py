"""The story ids of the aidlc-docs layout: those the headings of stories.md define, and those the unit-of-work story
map assigns to units."""

from __future__ import annotations

import re

from aidlc.aidlc_docs.markdown import HEADING
from aidlc.aidlc_docs.model import StoryRef
from aidlc.aidlc_docs.units import unit_of

_STORY_ID = r"(?:US-[A-Za-z]*\d+(?:\.\d+)*|Story[ \t]+\d+(?:\.\d+)*)"
_STORY = re.compile(rf"\b{_STORY_ID}\b")
# A range, `US-A1..A7`, `US-EV1~9`, `US-1..US-14`, `US-3.1~3.7` (ratiel/aidlc-workshop-nexon's story map): an id,
# `..`, a tilde (`〜`), an ellipsis or an en dash (or a hyphen before a repeated `US-`), then the other end, written
# whole or only its last parts, which the first end's complete. Its ends have nine digits at most, as a unit's number.
_STORY_RANGE = re.compile(r"\bUS-(?P<prefix>[A-Za-z]*)(?P<head>(?:\d+\.)*)(?P<first>\d{1,9})"
                          r"(?:[ \t]*(?:\.\.|~|〜|～|…|–)[ \t]*(?P<again>US-)?|[ \t]*-[ \t]*(?P<repeated>US-))"
                          r"(?P<last_prefix>[A-Za-z]*)(?P<last_head>(?:\d+\.)*)(?P<last>\d{1,9})\b")
MAX_RANGE = 200


def story_headings(text: str, rel: str) -> list[StoryRef]:
    """The story each heading of stories.md names first (`### US-1.1: Table login`, `### Story 1.3 — ...`)."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("#") and HEADING.match(line):
            match = _STORY.search(line)
            if match:
                found.append(StoryRef(id=_spaced(match.group()), path=rel, line=number))
    return found


def story_assignments(text: str, rel: str) -> list[StoryRef]:
    """Every story id the map assigns: in a table row, in any line (or deeper heading) of a section whose heading
    names a unit, and in a list item whose lead (the text before `:` or a dash) names one. A note in other prose
    (`the former US-RA1~8 were retired`) assigns nothing."""
    found = []
    sections: list[tuple[int, bool]] = []  # (level, names a unit) of the headings above
    for number, line in enumerate(text.split("\n"), start=1):
        heading = HEADING.match(line) if line.startswith("#") else None
        if heading:
            level = len(heading.group(1))
            sections = [s for s in sections if s[0] < level]
            if any(unit for _, unit in sections):  # `### US-001: Auto login` under `## Unit 1: Customer Frontend`
                found += _story_ids(heading.group(2), rel, number)
            sections.append((level, unit_of(heading.group(2)) is not None))
        elif _assigns(line, sections):
            found += _story_ids(line, rel, number)
    return found


def _assigns(line: str, sections: list[tuple[int, bool]]) -> bool:
    """Whether the map's line assigns the ids it names: a table row, a line under a heading naming a unit, or a
    list item whose lead names one."""
    stripped = line.strip()
    item = re.match(r"[-*+][ \t]", stripped)
    lead = re.split(r"[:：]|[ \t][-—–][ \t]", stripped[2:], maxsplit=1)[0] if item else ""
    return stripped.startswith("|") or any(unit for _, unit in sections) or unit_of(lead) is not None


def _story_ids(line: str, rel: str, number: int) -> list[StoryRef]:
    """The ids a line names: each of a range (`US-A1..A7`), then each single id outside the ranges."""
    found = []
    ranged = [(m.start(), m.end()) for m in _STORY_RANGE.finditer(line)]
    for match in _STORY_RANGE.finditer(line):
        found += [StoryRef(id=story, path=rel, line=number, within=within) for story, within in _range(match)]
    found += [StoryRef(id=_spaced(m.group()), path=rel, line=number) for m in _STORY.finditer(line)
              if not any(start <= m.start() < end for start, end in ranged)]
    return found


def _range(match: re.Match[str]) -> list[tuple[str, bool]]:
    """(id, whether it lies between the ends) of each id a range names: every id from the first end to the last,
    when the two share everything but the last number and they are at most MAX_RANGE apart; else the two ends."""
    prefix, head, first = match.group("prefix"), match.group("head"), match.group("first")
    written = match.group("again") or match.group("repeated") or match.group("last_prefix")
    last_prefix = match.group("last_prefix") if written else prefix  # `US-EV1~9`: the second end's letters are EV
    first_parts = [*head.split(".")[:-1], first]
    last_parts = [*match.group("last_head").split(".")[:-1], match.group("last")]
    last_parts = first_parts[:len(first_parts) - len(last_parts)] + last_parts  # `US-3.1~7` ends at US-3.7
    last_head = "".join(f"{part}." for part in last_parts[:-1])
    start, end = int(first), int(last_parts[-1])
    if (last_prefix, last_head) != (prefix, head) or not start < end <= start + MAX_RANGE:
        ends = [f"US-{prefix}{head}{first}", f"US-{last_prefix}{last_head}{last_parts[-1]}"]
        return [(story, False) for story in dict.fromkeys(ends)]
    # `US-001 ~ US-008` names US-001 to US-008, as stories.md writes them: the first number's zeros pad them all.
    width = len(first) if first.startswith("0") else 0
    return [(f"US-{prefix}{head}{n:0{width}d}", start < n < end) for n in range(start, end + 1)]


def _spaced(story: str) -> str:
    return re.sub(r"[ \t]+", " ", story)
