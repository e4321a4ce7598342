"""Which unit of work a line of the aidlc-docs layout names: by number (`Unit 1`, `U2`, `유닛 3`, with a letter when
one number holds several units: `Unit 3-A`, `unit-3b-backend`) or by the name of its folder under construction/
(`v4-migration`)."""

from __future__ import annotations

import re

from aidlc.aidlc_docs.readings import Readings
from aidlc.aidlc_docs.stages import without_stage_names

# A unit's number has at most nine digits: a longer one names no unit (5,000 digits stopped validate, as int()
# refuses them). A letter right after the number, as a word's end (`3-A:`, `3b-backend`, not `3-api`), is part of the
# unit's name.
# Not Korean 단위 (unit, as in 단위 테스트, unit test): in public state files it only counts (`단위 86/86 통과`).
# A unit of work is also `UOW-01`, `UoW-1`, standing alone: `V2-GAP-UOW-01` is a unit of another set, named by its
# folder (jin-101/SPA-BRIDGE holds both). `U01-H20`, `U08-H7` are ids of a unit's handoffs (u-10bei), not the unit.
_UNIT = re.compile(r"(?:\b(?:unit|unidade?|유닛)|(?<![\w-])uow)[ \t]*[-#]?[ \t]*(?P<n>\d{1,9})(?!\d)"
                   r"(?:-?(?P<letter>[a-z])\b)?"
                   # `U3`, `U-01` (cu-aaii); not in another id, `BR-U6-12` (a business rule, u-10bei/nazokake-judge)
                   # `U06b`, `u4a`: a small letter right after the number is part of the name, as a folder's
                   # (zizuiliaoya-droid/clothinkai keeps U06a to U06e beside U01 to U18); never a character's escape,
                   # `\u200b` (kondo97/mattermost-plugin-rtk), `\u2014`
                   r"|(?<![^\W\d_]-)(?<!\\)\b[Uu]-?(?P<u>\d{1,9})(?!\d)(?P<u_letter>(?-i:[a-z]))?\b(?!-(?!u\d)[a-z]+\d)",
                   re.IGNORECASE)


def _name(match: re.Match[str]) -> str:
    letter = match.group("letter") or match.group("u_letter") or ""
    return str(int(match.group("n") or match.group("u"))) + letter.upper()


# A unit named by a capital letter alone, where the state file's stage lines name units so (drpacman/BattleTrs:
# `Functional Design — Unit A (Server WS+HTTP)`, `Code Generation — Unit B`); never a word (`Unit Tests`, `Unit Of
# Work`) nor a small letter (`unit a lot`).
_LETTER_UNIT = re.compile(r"\b(?:Unit|UNIT|unit)[ \t]+(?P<letter>[A-Z])(?![\w'’-])")


def letter_unit(text: str, letters: frozenset[str] | None = None) -> str | None:
    """The unit a text names by a letter (`Unit A` -> 'A'), of `letters` when given (the letters a state file names
    units by); None when it names none."""
    match = _LETTER_UNIT.search(text)
    return match.group("letter") if match is not None and (letters is None or match.group("letter") in letters) \
        else None


def letters_of(units: list[str | None]) -> frozenset[str]:
    """The units of `units` named by a letter alone: `['1', 'A', None]` -> {'A'}."""
    return frozenset(unit for unit in units if unit is not None and _LETTER_UNIT.fullmatch(f"Unit {unit}"))


def units_of(text: str) -> list[str]:
    """Every unit a text names by number, in order: `Unit 1 and U3` -> ['1', '3']."""
    return list(dict.fromkeys(_name(match) for match in _UNIT.finditer(text)))


def unit_of(text: str) -> str | None:
    """The unit a line names: `Unit 1`, `U2`, `유닛 3`, `Unit 3-B` -> '1', '2', '3', '3B'; None when it names none."""
    return _units_read(text)


def _first_unit(text: str) -> str | None:
    match = _UNIT.search(text)
    return None if match is None else _name(match)


# The rules ask one heading or Context for its unit many times over (a hostile heading of a megabyte, a hundred times).
_units_read = Readings(_first_unit, budget=4_000_000)


# What a line sets aside before it lists units: an aside (`Unit 1 Backend (82 Java, 10 SQL) + Unit 2 ...`, `Unit 2
# (reuses Unit 1's models)`), which may name a unit the line is not about.
_ASIDE = re.compile(r"\([^()\n]*\)|（[^（）\n]*）")
# Between two units of one list: the first's label (`: DataStore`, ` Backend`), then a list's joint and nothing
# after it: `Unit 1 and Unit 2`, `U1, U2`, `Unit 1 Backend + Unit 2 Frontend`; never a sentence (`Unit 2, after Unit
# 1`, `Unit 2 replaces Unit 1`, `Unit 1 done; Unit 3 skipped`).
_JOINT = re.compile(r"[^,;.&+/、，・\n]{0,40}?(?:,|&|\+|/|、|，|・|\band\b|\b[ey]\b|및|와|과|と)[ \t]*", re.IGNORECASE)
# A range of units after the first's number: `U1~U6`, `Unit 2〜6`, `U1..U10`, `U1-U4` (a hyphen only between the
# two, never `Unit 1 - 2 files`); a span over more units than a project has is no range.
_RANGE = re.compile(r"(?:[ \t]*(?:~|〜|～|\.\.|–)[ \t]*|-)(?:unit[ \t]*|unidade?[ \t]*|유닛[ \t]*|uow[ \t]*-?|U)?"
                    r"(?P<last>\d{1,9})\b",
                    re.IGNORECASE)
_MOST_IN_RANGE = 50
# A label that says how far its unit is (`Unit 1 done and Unit 2 pending`): each unit has its own state, no list;
# unless each unit's label says the same (`Unit 1 Complete (...), Unit 3 Complete (...)`: both are done).
_STATE_WORD = re.compile(r"\b(?:complete[ds]?|done|approved|pending|skip(?:ped)?|progress|open|todo|wip|blocked)\b|"
                         r"완료|승인|대기|진행|생략|完了|完成|承認|待|済|进行|跳过", re.IGNORECASE)
_DONE_WORD = re.compile(r"complete[ds]?|done|approved|완료|승인|完了|完成|承認|済", re.IGNORECASE)


def listed_units(text: str) -> list[str]:
    """The units a line lists from its first: `Code Generation - Unit 1 Backend + Unit 2 Frontend` -> ['1', '2'],
    `U1~U3` -> ['1', '2', '3']; one unit, or none, when it lists no two (`Functional Design - Unit 2, after Unit 1`
    -> ['2']). Units in an aside count only where the line names none outside one (`Code Generation (Unit 1 +
    Unit 2)`)."""
    plain = _ASIDE.sub(" ", text)
    found = list(_UNIT.finditer(plain))
    if not found:  # the units in an aside alone: `Code Generation (Unit 1 + Unit 2)`
        return next((inside for aside in _ASIDE.finditer(text) if (inside := listed_units(aside.group()[1:-1]))), [])
    listed: list[str] = []
    end = found[0].start()
    for n, match in enumerate(found):
        if match.start() < end:
            continue  # the last unit of a range read already (`U1~U6`)
        gap = plain[end:match.start()]
        label = plain[match.end():found[n + 1].start() if n + 1 < len(found) else len(plain)]
        if listed and (not _JOINT.fullmatch(gap) or not _same_state(gap, label)):
            break
        listed.append(_name(match))
        end = match.end()
        span = _RANGE.match(plain, end) if match.group("letter") is None else None
        first = int(match.group("n") or match.group("u"))
        if span is not None and first < int(span.group("last")) <= first + _MOST_IN_RANGE:
            listed += [str(number) for number in range(first + 1, int(span.group("last")) + 1)]
            end = span.end()
    return list(dict.fromkeys(listed))


def _state(text: str) -> str | None:
    """The state a unit's label says, the words for done as one: `Complete` and `approved` are the same state."""
    said = _STATE_WORD.search(text)
    if said is None:
        return None
    return "done" if _DONE_WORD.fullmatch(said.group()) else said.group().lower()


def _same_state(gap: str, label: str) -> bool:
    """Whether the unit before `gap` and the one `label` follows are in one state: the gap says none (`Unit 1 and
    Unit 2 pending`: a list), or the label says the one the gap does."""
    before = _state(gap)
    return before is None or before == _state(label)


# A unit named by its folder in backticks at a line's start: `Unit \`web\`: Code Generation [x]` (wc2026-predictor).
_NAMED_UNIT = re.compile(r"(?:unit|유닛|단위)[ \t]+`[^`\n]{1,60}`", re.IGNORECASE)


def leading_unit(text: str) -> int | None:
    """Where the unit a text starts with ends (`Unit 1 (Backend) - ...` -> 6, ``Unit `web`: ...`` -> 10); None when
    it starts with none."""
    match = _UNIT.match(text) or _NAMED_UNIT.match(text)
    return None if match is None else match.end()


def folder_words(folder: str) -> str:
    """A regex of a folder's name as text writes it: `v4-migration`, `v4 migration`, `V4_Migration`, and a folder of
    two names joined as the text joins them, `order-sse` as `Order + SSE` (as a word)."""
    spelled = re.escape(folder).replace(r"\-", r"(?:[-_ ]|[ \t]*[+&][ \t]*)")
    return rf"(?<![\w-]){spelled}(?![\w-])"


# What may stand between a unit's number and its folder's name in one label: markup, brackets, a colon or a dash.
_LABEL_GAP = re.compile(r"[\s*_`()（）\[\]:：—–-]*")


def numbered_folder(text: str, folders: list[str]) -> tuple[str, str] | None:
    """(number, folder) where `text` names one unit by number and one of `folders` side by side, as one label
    (`**Cost Analytics Service** (Unit 1)`, `Unit 1: backend-api`); None otherwise (`Unit 2 (reuses backend-api)`)."""
    numbers = list(_UNIT.finditer(text))
    named = folders_named(text, folders)
    if len(numbers) != 1 or len(named) != 1:
        return None
    number = numbers[0]
    folder = re.search(folder_words(named[0]), without_stage_names(text), re.IGNORECASE)
    if folder is None:
        return None
    gap = text[folder.end():number.start()] if folder.start() < number.start() else text[number.end():folder.start()]
    return (_name(number), named[0]) if _LABEL_GAP.fullmatch(gap) else None


def folders_named(text: str, folders: list[str]) -> list[str]:
    """The folders of `folders` that `text` names (case ignored), not as a word of a stage's name: a unit folder
    `infrastructure` is not named by `Next: Infrastructure Design`."""
    found = [folder for folder in folders if re.search(folder_words(folder), text, re.IGNORECASE)]
    if found:  # rarely: most texts name no folder
        text = without_stage_names(text)
        found = [folder for folder in found if re.search(folder_words(folder), text, re.IGNORECASE)]
    return found
