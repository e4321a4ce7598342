"""What one stage line of the aidlc-docs state file says by itself, whatever stands above it: its stage's name and
what it says of it (`split_stage_line`), the parts a line with a box before each stage is (`boxed_parts`), the units
and stages it lists (`box_text`). The file's shape around the lines (headings, tables, parents, the current status):
aidlc/aidlc_docs/state.py."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from aidlc.aidlc_docs.model import Mark
from aidlc.aidlc_docs.stages import (
    label_starts,
    stage_at,
    stage_of,
    stages_followed_by,
    stages_named,
    without_stage_names,
)
from aidlc.aidlc_docs.units import folders_named, leading_unit, letter_unit, listed_units, unit_of

_LEAD = re.compile(r"^[^\w(]+")  # bold markers, emoji, a bracket before a stage line's name
# A phase, or the construction's per-unit loop, before the stage: `CONSTRUCTION - `, `Per-unit: ` (polycyclopedia).
_PHASE_PREFIX = re.compile(r"^(?:inception|construction|per[- ]unit)(?:[ \t]+phase)?[ \t]*[-—–:][ \t]*",
                           re.IGNORECASE)
_NAME_END = re.compile(r"[ \t]+[-—–][ \t]|[(（:：]|[ \t]+\[| —|—")
_UNIT_CUT = re.compile(r"(?:[ \t]+-|[—–:：])[ \t]*")  # where a unit's label may end: `Unit 1 (Backend) - `, `Unit 1: `
# A line about every unit at once names none: its unit is not its heading's, nor a folder's it mentions.
ALL_UNITS = re.compile(r"\ball (?:(?:\d{1,9}|two|three|four|five|six|seven|eight|nine|ten)[ \t]+)?units\b|"
                       r"\bboth units\b|\bevery unit\b|모든 유닛|전체 유닛|全(?:\d+[ \t]*)?ユニット|全部单元|所有单元|"
                       r"todas as unidades|todas las unidades|"
                       # a range, then all: `(Unit 1~4 전체)` (caujms123)
                       r"\b(?:units?|u)[ \t]*\d+[ \t]*[~〜–-][ \t]*(?:(?:units?|u)[ \t]*)?\d+[ \t]*"
                       r"(?:전체|모두|all\b)",
                       re.IGNORECASE)
# What ends a unit folder's name at a line's start: `Frontend (FE) - `, `frontend: `.
_FOLDER_LEAD_END = re.compile(r"[ \t]*(?:[(（][^)）\n]{0,40}[)）])?[ \t]*[-—–:：][ \t]*")
_JOINERS = re.compile(r"(?:[\s/+,&·、]|\band\b|및)*", re.IGNORECASE)  # what joins stage names in one name
_CHAIN = re.compile(r"[ \t]*(?:\[[ xX]\][ \t]*)?(?:→|->|=>|⇒)")  # a stage, then an arrow to the next
# A further box on a checkbox line, after a separator: `Functional Design / [x] NFR Requirements` (DallYeo_FE).
# (`marks`: the bold or italic marks after it, before a stage's name: `/ [x] **Code Generation**`)
_INNER_BOX = re.compile(r"(?:[/|,;·、→+&]|->|=>|(?<=[ \t])[-—–]|[-—–](?=[ \t]))[ \t]*\[(?P<box>[ xX])\][ \t]*"
                        r"(?=(?P<marks>[*_]*))")
_CLAUSE_END = re.compile(r"[.;。](?:\s|$)|:\s", re.MULTILINE)
# What says a stage was or will be skipped; Portuguese "ignorado", "pulado", Spanish and Portuguese "omitido"
# (YordayFigueroaSanchez/test-web-001's `User Stories (omitido — cambio centrado en UI/arquitectura)`).
SKIPPED = re.compile(r"(?<![/\w])skip(?:ped)?\b(?!/)|\bn/a\b|건너뜀|생략|跳过|スキップ|ignorad[oa]|pulad[oa]|"
                     r"\bomitid[oa]s?\b", re.IGNORECASE)
# A stage's name followed by the word skipped says the stage was set aside: a heading (ValiaVl/copilot-aidlc's `## User
# Stories - Skipped by User`, "I dont want to include user stories ...") or a state line with nothing between
# (waikato-ahuora-smart-energy-systems/OpenPinch's `- [x] CONSTRUCTION - Infrastructure Design skipped`).
SKIPPED_AFTER = re.compile(r"[ \t]*+[-–—:(]?[ \t]*+(?:" + SKIPPED.pattern + ")", re.IGNORECASE)
# What a line says while a person's approval is awaited, not given.
AWAITING = re.compile(r"(?:awaiting|waiting[ \t]+for)[ \t]+(?:the[ \t]+)?(?:explicit[ \t]+|final[ \t]+)?"
                      r"(?:user[ \t]+|human[ \t]+)?(?:approval|review)|"
                      # jongon/betmeet-clone's Context `Unit 10 code generation remains pending explicit approval.`
                      r"pending[ \t-](?:explicit[ \t]+|final[ \t]+)?(?:user[ \t]+|human[ \t]+)?approval|"
                      r"승인[ \t]*(?:게이트[ \t]*)?대기|리뷰[ \t]*게이트[ \t]*대기|承認待ち|"
                      r"等待(?:用户|您的?)?(?:批准|审批)|"  # "awaiting (the user's) approval" (Clipboard--Mac)
                      r"aguardando[ \t]+aprova", re.IGNORECASE)


def folder_in(text: str, named: tuple[str, ...]) -> str | None:
    """The one unit folder without a number (of `named`) that a heading or line names, in words or as written."""
    found = folders_named(text, list(named))
    return found[0] if len(found) == 1 else None


class BoxText(NamedTuple):
    """What a checkbox line's text says by itself, whatever stands above it."""

    name: str  # the stage's name as written
    status: str  # what the line says of it
    stage: str | None  # the stage it names
    every: bool  # about every unit: `Build and Test (all units) (... api/web images ...)`
    own_unit: str | None  # the unit it names with the stage: `Functional Design — B2 Soul ...`, `U3 Code Generation`
    said_unit: str | None  # the unit it names anywhere: `NFR Requirements (approved; inherits U1/shared)`
    skipped: bool
    awaiting: bool
    listed: tuple[str, ...]  # the units it lists from its first: `Unit 1 Backend + Unit 2 Frontend`
    also: tuple[str, ...]  # the stages a name joins after its first: `Functional Design / NFR Requirements`


@lru_cache(maxsize=4096)
def box_text(body: str, named: tuple[str, ...]) -> BoxText:
    """Read once per text: the versions of a state file that the history rules read (hundreds, in a long history)
    share most of their lines, and these patterns cost tens of microseconds on a long line."""
    name, status = split_stage_line(body)
    if stage_of(name) is None and folder_in(name, named) is not None:
        # `CONSTRUCTION - Frontend (FE) - Functional Design (...)`: a unit folder's name, then the stage
        lead = _FOLDER_LEAD_END.match(body, body.find(name) + len(name))
        rest = body[lead.end():] if lead is not None else ""
        if stage_at(rest) is not None and len(stages_named(rest)) == 1:  # never a guess among several
            name, status = split_stage_line(rest)
    every = ALL_UNITS.search(body) is not None
    said_unit = None if every else _unit_in(body, named)
    stage, also = stage_of(name) or _bilingual(name, body), _joined_stages(name)
    if stage is None and (span := _span(body)):
        stage, also = span[0], span[1:]
    # A unit named only in what the line says of its stage may be another unit's mention (`inherits U1/U2/shared`
    # under U5's heading, soneda-yuya/ontology-agent): the heading's unit comes first (aidlc/aidlc_docs/state.py),
    # unless what the line says starts with units (`Functional Design - Unit 1 Backend + Unit 2 Frontend`).
    through = body[:body.find(name) + len(name)] if stage is not None and name and name in body else body
    after = body[len(through):].lstrip(" \t-—–:：(（[*_")
    own_unit = said_unit if through == body or leading_unit(after) is not None else None if every else _unit_in(
        through, named)
    skipped = SKIPPED.search(status) is not None or stage in stages_followed_by(name, SKIPPED_AFTER)
    return BoxText(name, status, stage, every, own_unit, said_unit, skipped, AWAITING.search(body) is not None,
                   tuple(listed_units(body)), also)


def _unit_in(text: str, named: tuple[str, ...]) -> str | None:
    return unit_of(text) or folder_in(text, named) or letter_unit(text)


# A line's closing parenthesis naming the stages it went through, joined or from one to the other: ajy92's
# `CONSTRUCTION - Unit 1: shared-db (Functional Design → Code Generation)`.
_SPAN = re.compile(r"[(（](?P<named>[^()（）\n]{1,200})[)）][ \t]*$")
_SPAN_JOINERS = re.compile(r"(?:[\s/+,&·、~]|→|->|=>|⇒|\band\b|및)*", re.IGNORECASE)


def _span(body: str) -> tuple[str, ...]:
    """The stages a line names in its closing parenthesis and nothing else (`(Functional Design → Code
    Generation)`), each claimed at that line: the two it names, not the ones between (the plan may skip them)."""
    found = _SPAN.search(body)
    if found is None:
        return ()
    named = stages_named(found.group("named"))
    return tuple(named) if len(named) > 1 and _SPAN_JOINERS.fullmatch(without_stage_names(found.group("named"))) \
        else ()


@lru_cache(maxsize=4096)
def boxed_parts(box: str, body: str) -> tuple[tuple[str, str], ...]:
    """(box, text) of each part of a checkbox line's text that has a box before its stage's name, up to the next:
    `Functional Design / [x] Infrastructure Design (SKIP) / [x] Code Generation` (DallYeo_FE) is three, the SKIP
    the second's only; a box after a separator (`/`, `,`, an arrow), not in a code span, once a first stage is named."""
    plain = re.sub(r"(`+)[^`]*?\1", lambda span: " " * len(span.group()), body)  # a code span holds no box
    labels = label_starts(body)  # once: each box of a hostile run of them read the line to its end
    cuts = [cut for cut in _INNER_BOX.finditer(plain) if cut.end() + len(cut.group("marks")) in labels]
    if not cuts or stage_of(split_stage_line(body[:cuts[0].start()])[0]) is None:
        return ((box, body),)
    starts = [(box, 0), *((cut.group("box"), cut.end()) for cut in cuts)]
    ends = [*(cut.start() for cut in cuts), len(body)]
    return tuple((mark, body[start:end].rstrip()) for (mark, start), end in zip(starts, ends, strict=True))


def _joined_stages(name: str) -> tuple[str, ...]:
    """The stages after the first of a name that joins stages' names and nothing else (after its unit): `U3
    Functional Design / NFR Req / NFR Design`, `Code Generation + Build & Test`; none of a name that says more
    (`Functional Design for NFR Design review`)."""
    named = stages_named(name)
    rest = without_stage_names(name)[leading_unit(name) or 0:]
    return tuple(named[1:]) if len(named) > 1 and _JOINERS.fullmatch(rest) else ()


def _bilingual(name: str, body: str) -> str | None:
    """The stage a name's parenthesised translation names: `유닛별 설계(Functional Design)`."""
    after = body[body.find(name) + len(name):] if name else ""
    match = re.match(r"[ \t]*[(（]([^)）]{1,60})[)）]", after)
    return stage_of(match.group(1)) if match else None


def split_stage_line(body: str) -> tuple[str, str]:
    """(the stage's name, what the line says of it) of a checkbox line's text: `INCEPTION - Units Generation
    (SKIP)` -> ('Units Generation', '(SKIP)'); the name ends at ` - `, ` — `, `(` or `:`, after a phase prefix;
    a line naming its unit first names its stage after the unit (`Unit 1 (Backend) - Code Generation (...)`).
    What it says is its first clause only: a later sentence may speak of other stages (`... only Reverse
    Engineering is SKIP`)."""
    text = _PHASE_PREFIX.sub("", _LEAD.sub("", body))
    name, said = _cut(text)
    if stage_of(name) is None:
        after = _after_unit(text)
        if after is not None:
            return _cut(after)
    return name, said


def _cut(text: str) -> tuple[str, str]:
    end = _NAME_END.search(text)
    if end is None:
        return text.strip(), ""
    name, rest = text[:end.start()], text[end.start():]
    return name.strip(), rest[:1] + _CLAUSE_END.split(rest[1:], maxsplit=1)[0]


def _after_unit(text: str) -> str | None:
    """The text from the stage a line names after the unit it starts with: `Unit 1: Infrastructure — Code
    Generation COMPLETED` -> `Code Generation COMPLETED`; None unless a part after it starts with a stage's name
    and names that stage alone (`Unit 1: Functional Design, NFR Design` is several stages, never a guess)."""
    lead = leading_unit(text)
    if lead is None:
        return None
    for cut in _UNIT_CUT.finditer(text, lead):
        rest = text[cut.end():]
        stage = stage_at(rest)
        if stage is not None:
            name = _cut(rest)[0]
            chained = _CHAIN.match(rest, len(name)) is not None  # `Functional Design [x] → Code Generation [x]`
            return rest if stages_named(name) == [stage] and not chained else None
    return None


def mark_of(box: str) -> Mark:
    return {"x": Mark.done, "X": Mark.done, " ": Mark.pending, "S": Mark.skipped, "?": Mark.awaiting
            }.get(box, Mark.in_progress)
