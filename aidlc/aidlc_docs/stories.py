"""The story ids of the aidlc-docs layout: those the headings of stories.md define, and those the unit-of-work story
map assigns to units."""

from __future__ import annotations

import re

from aidlc.aidlc_docs.markdown import HEADING
from aidlc.aidlc_docs.model import StoryRef
from aidlc.aidlc_docs.units import unit_of

_STORY_ID = r"(?:US-[A-Za-z]*\d+(?:\.\d+)*|Story[ \t]+\d+(?:\.\d+)*)"
_STORY = re.compile(rf"\b{_STORY_ID}\b")
# `US-A1..A7`, `US-EV1~9`, `US-1..US-14`: the same prefix, a last number after it.
_STORY_RANGE = re.compile(r"\bUS-(?P<prefix>[A-Za-z]*)(?P<first>\d+)[ \t]*(?:\.\.|~|…|–)[ \t]*(?:US-)?(?P=prefix)?"
                          r"(?P<last>\d+)\b")
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
        first, last = int(match.group("first")), int(match.group("last"))
        # `US-001 ~ US-008` names US-001 to US-008, as stories.md writes them: the first number's zeros pad them all.
        width = len(match.group("first")) if match.group("first").startswith("0") else 0
        if first < last <= first + MAX_RANGE:
            found += [StoryRef(id=f"US-{match.group('prefix')}{n:0{width}d}", path=rel, line=number)
                      for n in range(first, last + 1)]
    found += [StoryRef(id=_spaced(m.group()), path=rel, line=number) for m in _STORY.finditer(line)
              if not any(start <= m.start() < end for start, end in ranged)]
    return found


def _spaced(story: str) -> str:
    return re.sub(r"[ \t]+", " ", story)
