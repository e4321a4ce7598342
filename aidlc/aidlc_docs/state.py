"""The state file of the aidlc-docs layout (aidlc-state.md, or state/<branch>.md): its stage lines, as checkbox lines
or as the rows of a stage table, each with its stage, its unit and what it says of the stage.

A line is read by its shape, top to bottom: a table row, a heading (or bold paragraph), a checkbox line, a list item
without a box; what a line means may depend on the lines above it (the heading's unit, the parent item's stage).
What one line's text says by itself: aidlc/aidlc_docs/state_line.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from aidlc.aidlc_docs.markdown import BOX, HEADING, LIST_ITEM, conflict_lines, shown_lines
from aidlc.aidlc_docs.model import CurrentStage, Mark, StageLine, StateFile
from aidlc.aidlc_docs.stages import BY_SLUG, stage_of
from aidlc.aidlc_docs.state_line import (
    AWAITING,
    SKIPPED,
    BoxText,
    box_text,
    boxed_parts,
    folder_in,
    mark_of,
    split_stage_line,
)
from aidlc.aidlc_docs.units import letter_unit, unit_of, units_of

# A bold line names the unit of the lines under it, as a heading does; not a field, `**背景**: ...` ("background",
# u-10bei/nazokake-judge: under `#### U5: ...`, it took the unit from the unit's stage lines).
_BOLD_HEADING = re.compile(r"^\*\*(?P<text>[^*]+)\*\*(?![ \t]*[:：])")
_ROW = re.compile(r"^[ \t]*\|(?P<cells>.*)\|[ \t]*$")
_RULE_ROW = re.compile(r"^[ \t|:-]+$")  # a table's |---|:---:| line
_STAGE_COLUMN = re.compile(r"^(?:stage|stage name|단계|스테이지|阶段|ステージ|段階|etapa|fase)$", re.IGNORECASE)
_STATUS_COLUMN = re.compile(r"^(?:status|state|상태|진행 상태|状态|ステータス|状態|estado|status da etapa|situação)$",
                            re.IGNORECASE)
# What a stage table's status cell says, read in this order: skipped, awaiting a person, in progress, done, else
# pending (a cell aidlc cannot read claims nothing).
_CELL_SKIP = re.compile(r"⏭|" + SKIPPED.pattern, re.IGNORECASE)
_CELL_BOX = re.compile(r"^[ \t]*\[(?P<box>[ xX~/\-SR?])\]")  # a cell that starts with a checkbox
_CELL_PROGRESS = re.compile(r"🔄|⏳|🚧|in[ -]progress|진행[ \t]*중|进行中|進行中|em andamento|em progresso",
                            re.IGNORECASE)
_CELL_DONE = re.compile(r"✅|✔|☑|(?<!not )(?<!not yet )\b(?:complete|completed|done|approved|finished)\b|완료|승인됨|"
                        r"完成|完了|conclu[íi]d[oa]", re.IGNORECASE)
_APPROVAL_LINE = re.compile(r"^[ \t]*[-—–:][ \t]*(?:approval|approved)\b", re.IGNORECASE)  # `... - Approval (...)`
# The section that says where the workflow stands (`## Current Status`, `## 現在のステータス`), and its fields.
_STATUS_HEADING = re.compile(r"^\W*(?:current[ \t]+(?:status|state)|현재[ \t]*(?:상태|상황)|"
                             r"現在の(?:ステータス|状態|状況)|当前状态|status[ \t]+atual|estado[ \t]+atual)\b",
                             re.IGNORECASE)
# A section that keeps earlier features' stage lines below the current one (`## Completed features (archive)`).
_ARCHIVE_HEADING = re.compile(r"\barchived?\b|\b(?:completed|previous|past|earlier)[ \t]+features?\b|아카이브|"
                              r"(?:이전|완료된)[ \t]*기능|アーカイブ|归档|已完成的功能", re.IGNORECASE)
_FIELD_ITEM = re.compile(r"^\*\*(?P<key>[^*\n]{1,40})\*\*[ \t]*[:：][ \t]*(?P<value>.*)$")
_CURRENT_STAGE = re.compile(r"^(?:current[ \t]+stage|현재[ \t]*(?:단계|스테이지)|現在のステージ|当前阶段|"
                            r"etapa[ \t]+atual)$", re.IGNORECASE)


def read_state(text: str, rel: str, units: list[str] | None = None) -> StateFile:
    """Each checkbox line with its stage, unit and what it says; a line's unit may come from its parent line or
    from the heading (or bold paragraph) above it. A line that names a unit but no stage, under a line that names
    a stage (`- [~] Functional Design (per-unit)` / `  - [x] U1 Chat Core — approved`), is that stage of the
    unit. A table whose header names a stage column and a status column (`| Stage | Status | Artifacts |`) gives
    one stage line per row: `| Code Generation | ✅ Complete | ... |` is ticked, `⏭️ Skipped` skipped. A unit
    folder without a number (of `units`, the unit folders) is named by its name: on the line (`Functional Design —
    B2 Soul Registry completed`, folder B2-soul-registry), or in a heading (`**v4-migration** (...)`), which makes
    the lines under it that unit's."""
    reader = _StateReader(StateFile(path=rel, conflict_lines=conflict_lines(text)),
                          tuple(unit for unit in units or [] if unit_of(unit) is None))
    for number, line in shown_lines(text):  # a box in a code fence or an HTML comment is no stage line
        reader.read(number, line)
    reader.state.current = _current_stage(reader.status)
    builds = [line for line in reader.state.stages if line.stage == "build-and-test"]
    if len(builds) == 1 and unit_of(builds[0].text) is None and reader.folder_in(builds[0].text) is None:
        # The only Build and Test line is the project's, whichever unit's list it ends (HCSES, cheongYak-radar):
        # the rules run it once, after every unit. One naming its unit keeps it.
        builds[0].unit = None
    return reader.state


def restate(state: StateFile, old: str, new: str) -> StateFile | None:
    """The state file `new` read from `state`, the reading of `old`, when `new` only ticks or unticks boxes of
    `old`'s stage lines, as most commits of a state file do: then only those lines' marks change. None when `new`
    changes anything else, or a line that becomes ticked may record its stage's approval (`_approval_of_last`):
    then it is read whole."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    if len(old_lines) != len(new_lines):
        return None
    marks: dict[int, Mark] = {}
    for number, (was, now) in enumerate(zip(old_lines, new_lines, strict=True), start=1):
        if was == now:
            continue
        before, after = BOX.match(was), BOX.match(now)
        if before is None or after is None or before["box"] not in " xX" or after["box"] not in " xX" \
                or was[:before.start("box")] != now[:after.start("box")] \
                or was[before.end("box"):] != now[after.end("box"):] or len(boxed_parts(" ", after["text"])) > 1:
            return None  # a line of several boxes is read whole: its first box is only its first part's
        marks[number] = mark_of(after["box"])
    lines = {line.line: line for line in state.stages}
    for number, mark in marks.items():
        line = lines.get(number)
        if line is None or (mark == Mark.done and _APPROVAL_LINE.match(split_stage_line(line.text)[1])):
            return None
    return state.model_copy(update={"stages": [line.model_copy(update={"mark": marks[line.line]})
                                               if line.line in marks else line for line in state.stages]})


class _Parent(NamedTuple):
    indent: int
    unit: str | None
    line: int | None = None  # a checkbox line's number (None: a list item without a box)
    stage: str | None = None


@dataclass
class _StateReader:
    """What the lines above tell of the next one: the unit its heading names, the list items it may stand under,
    the stage table it may be a row of."""

    state: StateFile
    named: tuple[str, ...]  # the unit folders without a number, as a heading may name them
    context_unit: str | None = None
    parents: list[_Parent] = field(default_factory=list)  # the open list items above
    table: bool = False  # the line is in a table
    columns: tuple[int, int] | None = None  # (stage, status) of that table, when its header names them
    in_status: bool = False  # under the Current Status heading
    archive: int = 0  # the level of the archive heading the lines are under (0: none)
    status: list[tuple[int, str, str]] = field(default_factory=list)  # (line, key, value) of that section's fields

    def read(self, number: int, line: str) -> None:
        row = _ROW.match(line)
        if row is not None:
            self._row(number, line, row)
            return
        self.table, self.columns = False, None
        for shape, read in ((HEADING, self._heading), (_BOLD_HEADING, self._heading), (BOX, self._box),
                            (LIST_ITEM, self._item)):
            match = shape.match(line)
            if match is not None:
                read(number, match)
                return

    def _row(self, number: int, line: str, row: re.Match[str]) -> None:
        """A table's first row is its header; each later row of a stage table (its rule row aside) is a stage."""
        cells = [cell.strip() for cell in row.group("cells").split("|")]
        if not self.table:
            self.table, self.columns = True, _stage_columns(cells)
        elif self.columns is not None and not _RULE_ROW.match(line) and max(self.columns) < len(cells):
            stage = _table_line(number, cells, self.columns, self.context_unit)
            self.state.stages.append(stage.model_copy(update={"archived": True}) if self.archive else stage)

    def _heading(self, number: int, match: re.Match[str]) -> None:
        """A heading names the unit of the lines under it and closes every list. A phase's heading names a unit
        only when it names one alone (`CONSTRUCTION PHASE — Unit 0: Core`), not a span (`Phase 2 (U1-U4)`)."""
        title = match.group(2) if match.re is HEADING else match.group("text")
        if match.re is HEADING:
            self.in_status = _STATUS_HEADING.match(title) is not None
            level = len(match.group(1))
            if self.archive and level <= self.archive:
                self.archive = 0
            if not self.archive and _ARCHIVE_HEADING.search(title):
                self.archive = level
        if "phase" in title.lower():
            named = units_of(title)
            self.context_unit = named[0] if len(named) == 1 else None
        else:
            self.context_unit = unit_of(title) or self.folder_in(title)
        self.parents = []

    def _item(self, number: int, match: re.Match[str]) -> None:
        """A list item without a box may name the unit its children are about."""
        indent = len(match.group("indent").expandtabs(2))
        self.parents = [p for p in self.parents if p.indent < indent] + [_Parent(indent, unit_of(match.group("text")))]
        if self.in_status and (said := _FIELD_ITEM.match(match.group("text"))) is not None:
            self.status.append((number, said.group("key").strip(), said.group("value").strip()))

    def _box(self, number: int, match: re.Match[str]) -> None:
        """A checkbox line; one with a box before each stage it names is a line of each (`boxed_parts`)."""
        indent = len(match.group("indent").expandtabs(2))
        self.parents = [p for p in self.parents if p.indent < indent]
        boxed = next((p for p in reversed(self.parents) if p.line is not None), None)
        parts = boxed_parts(match.group("box"), match.group("text"))
        first = box_text(parts[0][1], self.named).own_unit  # the unit the first part names: the others' too
        kept: _Parent | None = None
        for box, body in parts:
            said = box_text(body, self.named)
            own_unit = said.own_unit or (None if said.every else first)
            stage, names_unit = said.stage, own_unit or said.said_unit
            if stage is None and names_unit is not None and boxed is not None:
                stage = boxed.stage  # a line naming only a unit, under a checkbox line, is that line's stage
            elif boxed is not None and names_unit is None and stage == boxed.stage:
                stage = None  # a step of the stage line above (`  - [x] Build and Test Summary 문서 생성`), not again
            # A unit its heading or parent names, where the line names one only after its stage: that unit's line,
            # not those the words list (`inherits U1/U2/shared` under U5's heading).
            above = None if said.every or own_unit is not None else self._unit(None)
            line = StageLine(line=number, text=body, mark=mark_of(box), stage=stage,
                             unit=None if said.every else self._unit(own_unit) or said.said_unit,
                             every_unit=said.every,
                             skipped=said.skipped or box == "S", awaiting=said.awaiting, depth=len(self.parents),
                             parent=boxed.line if boxed else None, archived=bool(self.archive))
            if not self._approval_of_last(line, said.status):
                self.state.stages += _lines_of(line, said if above is None else said._replace(listed=()))
                kept = _Parent(indent, first, number, stage if len(parts) == 1 else None)
        self.parents += [kept] if kept is not None else []

    def _approval_of_last(self, line: StageLine, status: str) -> bool:
        """Whether a ticked line records the approval of the stage line right above it (`- [x] Application Design
        - Approval (APPROVED)` under `- [x] Application Design`): no stage of its own, not counted or judged
        twice; the audit log, not this tick, holds the approval."""
        last = self.state.stages[-1] if self.state.stages else None
        return (line.mark == Mark.done and line.stage is not None and _APPROVAL_LINE.match(status) is not None
                and last is not None and (last.stage, last.depth) == (line.stage, line.depth)
                and line.unit in (None, last.unit))  # `Functional Design (COMPLETED - Unit 1)`, then its approval

    def _unit(self, own: str | None) -> str | None:
        """The unit a checkbox line is about: its own, else its nearest parent's, else its heading's."""
        return own or next((p.unit for p in reversed(self.parents) if p.unit), None) or self.context_unit

    def folder_in(self, text: str) -> str | None:
        return folder_in(text, self.named)


def _lines_of(line: StageLine, said: BoxText) -> list[StageLine]:
    """The stage lines a checkbox line is, all at its line: one of each stage it joins (`U3 Functional Design / NFR
    Requirements`), and of a per-unit stage one of each unit it lists (`Code Generation - Unit 1 Backend + Unit 2
    Frontend`)."""
    found = []
    for stage in (line.stage, *(said.also if line.stage == said.stage else ())):
        listed = said.listed if stage is not None and BY_SLUG[stage].per_unit and not said.every else ()
        units = [line.unit, *(unit for unit in listed if unit != line.unit)] if len(listed) > 1 else [line.unit]
        found += [line if (stage, unit) == (line.stage, line.unit) else
                  line.model_copy(update={"stage": stage, "unit": unit}) for unit in units]
    return found


def _current_stage(fields: list[tuple[int, str, str]]) -> CurrentStage | None:
    """The Current Status section's current stage (`- **Current Stage**: Units Generation Complete`), with the
    line of the section that says it awaits approval (`- **Status**: Awaiting user approval`, `インフラ設計承認待ち`);
    the stage only when the value starts with its name, never a guess (`Workflow complete (Build and Test ...)`)."""
    number, value = next(((number, value) for number, key, value in fields if _CURRENT_STAGE.match(key)), (0, ""))
    if not number:
        return None
    awaiting = next((line for line, _, said in fields if AWAITING.search(said)), None)
    return CurrentStage(line=number, text=value, stage=stage_of(split_stage_line(value)[0]), unit=unit_of(value),
                        awaiting=awaiting)


def _stage_columns(header: list[str]) -> tuple[int, int] | None:
    """(the stage column, the status column) of a table's header row; None when it is not a stage table."""
    names = [cell.strip("*_ ") for cell in header]
    stage = next((i for i, name in enumerate(names) if _STAGE_COLUMN.match(name)), None)
    status = next((i for i, name in enumerate(names) if _STATUS_COLUMN.match(name)), None)
    return None if stage is None or status is None else (stage, status)


def _table_line(number: int, cells: list[str], columns: tuple[int, int], context_unit: str | None) -> StageLine:
    name, said = cells[columns[0]].strip("*_ "), cells[columns[1]]
    awaiting = bool(AWAITING.search(said))
    box = _CELL_BOX.match(said)
    if _CELL_SKIP.search(said) or (box is not None and box.group("box") == "S"):
        mark = Mark.skipped
    elif box is not None:  # `| Code Generation | [x] | ... |`: the box says it, as on a list line
        mark = mark_of(box.group("box"))
    elif _CELL_DONE.search(said) and not _CELL_PROGRESS.search(said):
        mark = Mark.done
    elif awaiting:
        mark = Mark.awaiting
    elif _CELL_PROGRESS.search(said):
        mark = Mark.in_progress
    else:
        mark = Mark.pending
    return StageLine(line=number, text=" | ".join(cells), mark=mark, stage=stage_of(name),
                     unit=unit_of(name) or letter_unit(name) or context_unit, skipped=mark == Mark.skipped,
                     awaiting=awaiting)

