"""A tolerant reader of the aidlc-docs layout that agents write following AWS aidlc-workflows.

It reads what repositories hold, not only the rules' templates: stage lines with or without a phase prefix
(`INCEPTION - `), with `— COMPLETE`, `(COMPLETED - <ts>)`, `(SKIPPED)`, `- SKIP`, with `[~]`, `[-]`, `[S]`, `[?]`,
stage names in other languages (aidlc/aidlc_docs/stages.py); audit entries with English, localised or older
(`AI Prompt`/`User Response`/`Status`) fields, with or without a heading or a `---`, oldest or newest first, in one
`audit.md` or several (`audit/*.md`, v2's shards); CRLF line ends; plan files named per unit or not. A state file
may write its stages as a table (`| Stage | Status |` rows, `| Code Generation | ✅ Complete |`) and stand at
`state/<branch>.md` (a per-branch fork of the rules keeps one state and one audit log per branch).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from aidlc.aidlc_docs.model import (
    AuditEntry,
    AuditLog,
    DocsProject,
    Mark,
    PlanFile,
    StageLine,
    StateFile,
    StoryRef,
    Unreadable,
)
from aidlc.aidlc_docs.stages import plan_stage, stage_of
from aidlc.bank.frontmatter import MAX_FILE_BYTES, decode, read_bytes

STATE_FILE = "aidlc-state.md"
STORIES_FILE = "stories.md"
STORY_MAP_FILE = "unit-of-work-story-map.md"
AUDIT_FILE = "audit.md"
AUDIT_FOLDER = "audit"
STATE_FOLDER = "state"
AUDIT_INDEX = f"{AUDIT_FOLDER}/audit-index.md"  # the per-branch layout's list of its branches' logs
# An audit log only grows: 5,000 entries of a real log's size are 1-5 MiB, over the limit of other files.
MAX_AUDIT_BYTES = 64 << 20
# Folders of construction/ that are no unit: the plans, shared parts, and a stage's folder (a system-wide
# infrastructure-design/, as units are `construction/<unit>/<stage>/`).
NOT_UNITS = frozenset({"plans", "build-and-test", "shared", "shared-infrastructure", "code", "functional-design",
                       "nfr-requirements", "nfr-design", "infrastructure-design", "code-generation"})

_BOX = re.compile(r"^(?P<indent>[ \t]*)[-*+][ \t]+\[(?P<box>[ xX~\-SR?])\][ \t]*(?P<text>.*)$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_BOLD_HEADING = re.compile(r"^\*\*(?P<text>[^*]+)\*\*")
_ROW = re.compile(r"^[ \t]*\|(?P<cells>.*)\|[ \t]*$")
_RULE_ROW = re.compile(r"^[ \t|:-]+$")  # a table's |---|:---:| line
_STAGE_COLUMN = re.compile(r"^(?:stage|stage name|단계|스테이지|阶段|ステージ|段階|etapa|fase)$", re.IGNORECASE)
_STATUS_COLUMN = re.compile(r"^(?:status|state|상태|진행 상태|状态|ステータス|状態|estado|status da etapa|situação)$",
                            re.IGNORECASE)
# What a stage table's status cell says, read in this order: skipped, awaiting a person, in progress, done, else
# pending (a cell aidlc cannot read claims nothing).
_CELL_SKIP = re.compile(r"⏭|(?<![/\w])skip(?:ped)?\b(?!/)|\bn/a\b|건너뜀|생략|跳过|スキップ|ignorad[oa]|pulad[oa]",
                        re.IGNORECASE)
_CELL_PROGRESS = re.compile(r"🔄|⏳|🚧|in[ -]progress|진행[ \t]*중|进行中|進行中|em andamento|em progresso",
                            re.IGNORECASE)
_CELL_DONE = re.compile(r"✅|✔|☑|(?<!not )(?<!not yet )\b(?:complete|completed|done|approved|finished)\b|완료|승인됨|"
                        r"完成|完了|conclu[íi]d[oa]", re.IGNORECASE)
_FIELD = re.compile(r"^[ \t]*(?:[-*][ \t]+)?\*\*(?P<key>[^*\n]{1,60}?)\*\*[ \t]*[:：][ \t]*(?P<value>.*)$")
_CONFLICT = re.compile(r"^(<{7}( |$)|={7}$|>{7}( |$)|\|{7}( |$))")
_ISO = re.compile(r"^\s*\"?(?P<date>\d{4}-\d{2}-\d{2})(?:[T ](?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)"
                  r"(?P<zone>Z|[+-]\d{2}:?\d{2})?)?")
_LEAD = re.compile(r"^[^\w(]+")  # bold markers, emoji, a bracket before a stage line's name
_PHASE_PREFIX = re.compile(r"^(?:inception|construction)(?:[ \t]+phase)?[ \t]*[-—–:][ \t]*",
                           re.IGNORECASE)
_NAME_END = re.compile(r"[ \t]+[-—–][ \t]|[(（:：]|[ \t]+\[| —|—")
_CLAUSE_END = re.compile(r"[.;。](?:\s|$)|:\s", re.MULTILINE)
_UNIT = re.compile(r"\b(?:unit|유닛|단위)[ \t]*[-#]?[ \t]*(?P<n>\d+)|\b[Uu](?P<u>\d+)\b", re.IGNORECASE)
_SKIP = re.compile(r"(?<![/\w])skip(?:ped)?\b(?!/)|\bn/a\b|건너뜀|생략|跳过|スキップ|ignorad[oa]|pulad[oa]",
                   re.IGNORECASE)
_AWAITING = re.compile(r"awaiting[ \t]+(?:user[ \t]+|human[ \t]+)?(?:approval|review)|pending[ -]approval|"
                       r"승인[ \t]*대기|리뷰[ \t]*게이트[ \t]*대기|等待(?:批准|审批)|承認待ち|aguardando[ \t]+aprova",
                       re.IGNORECASE)
# Field names as written (lower case, without a parenthesised note) -> the canonical name.
FIELD_NAMES = {
    "timestamp": "timestamp", "time": "timestamp", "시각": "timestamp", "시간": "timestamp", "타임스탬프": "timestamp",
    "时间": "timestamp", "时间戳": "timestamp", "タイムスタンプ": "timestamp", "日時": "timestamp",
    "data/hora": "timestamp", "carimbo de data/hora": "timestamp",
    "user input": "user_input", "사용자 입력": "user_input", "用户输入": "user_input", "ユーザー入力": "user_input",
    "entrada do usuário": "user_input", "user response": "user_response", "사용자 응답": "user_response",
    "ai response": "ai_response", "ai 응답": "ai_response", "ai回应": "ai_response", "ai 回应": "ai_response",
    "ai応答": "ai_response", "resposta da ia": "ai_response", "ai prompt": "ai_prompt",
    "context": "context", "맥락": "context", "컨텍스트": "context", "上下文": "context", "コンテキスト": "context",
    "contexto": "context", "status": "status", "상태": "status", "状态": "status", "event": "event",
    "stage": "stage",
}


def read_project(root: Path, rel: str) -> DocsProject:
    """The docs folder `rel` of the repository at `root`: every file it holds, the state file, the audit logs, the
    plans and the unit folders. A file that cannot be read is listed in `unreadable`, never a crash."""
    folder = root / rel
    project = DocsProject(root=str(root), rel=rel)
    for path in sorted(p for p in folder.rglob("*") if p.is_file() or p.is_symlink()):
        project.files.append(path.relative_to(root).as_posix())
    state = state_file([path_rel[len(rel) + 1:] for path_rel in project.files])
    construction = folder / "construction"
    if construction.is_dir():
        project.units = sorted(p.name for p in construction.iterdir() if p.is_dir() and p.name not in NOT_UNITS)
    for path_rel in project.files:
        name = path_rel.rsplit("/", 1)[-1]
        if not name.endswith(".md"):
            continue
        inside = path_rel[len(rel) + 1:]
        text = _text(root, path_rel, project, MAX_AUDIT_BYTES if is_audit(inside) else MAX_FILE_BYTES)
        if text is None:
            continue
        if inside == state:
            project.state = read_state(text, path_rel, project.units)
        elif is_audit(inside):
            project.audits.append(read_audit(text, path_rel))
        else:
            if name == STORIES_FILE and "user-stories/" in inside:
                project.stories.defined += story_headings(text, path_rel)
            elif name == STORY_MAP_FILE:
                project.stories.mapped += story_assignments(text, path_rel)
                project.stories.maps.append(path_rel)
            if name.endswith("plan.md") or "-plan-" in name or "/plans/" in f"/{inside}":
                plan = read_plan(text, path_rel)
                if plan is not None:
                    project.plans.append(plan)
            lines = conflict_lines(text)
            if lines:
                project.conflicts[path_rel] = lines
    mark_superseded(project.plans)
    return project


def is_audit(inside: str) -> bool:
    """Whether the file at `inside` (relative to the docs folder) is an audit log: audit.md, or a file of audit/
    (v2's per-clone shards, per-branch logs) other than the per-branch layout's index of its logs."""
    return inside == AUDIT_FILE or (inside.startswith(f"{AUDIT_FOLDER}/") and inside.count("/") == 1
                                    and inside.endswith(".md") and inside != AUDIT_INDEX)


def state_file(inside: list[str]) -> str | None:
    """Which file (relative to the docs folder, of those `inside` lists) is the state file: aidlc-state.md, else
    the one branch file of state/ (`state/main.md`; `state/state-index.md` lists the branches). Several branch
    files are several projects' states, and none is read as the project's: aidlc does not choose one."""
    if STATE_FILE in inside:
        return STATE_FILE
    branches = [name for name in inside if name.startswith(f"{STATE_FOLDER}/") and name.count("/") == 1
                and name.endswith(".md") and not name.endswith("-index.md")]
    return branches[0] if len(branches) == 1 else None


def one_line_end(text: str) -> str:
    """The text with CRLF and CR line ends read as LF: a file's line ends never change what it says."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _text(root: Path, rel: str, project: DocsProject, limit: int) -> str | None:
    try:
        data = read_bytes(root / rel, limit)
    except OSError as exc:
        project.unreadable.append(Unreadable(path=rel, message=exc.strerror or str(exc)))
        return None
    text, problem = decode(data, rel)
    if problem is not None:
        project.unreadable.append(Unreadable(path=rel, message=f"line {problem.line}: {problem.message}"))
        return None
    return one_line_end(text)


def marker_lines(text: str) -> list[int]:
    """Every line shaped as a merge-conflict marker, the `=======` under a heading included: within one entry a
    conflict's middle marker may stand alone, its other markers in the entries around it."""
    return [number for number, line in enumerate(text.split("\n"), start=1) if _CONFLICT.match(line)]


def conflict_lines(text: str) -> list[int]:
    """The lines of git merge-conflict markers. A `=======` right under a line of text outside a conflict is the
    underline of a Markdown heading, not a marker."""
    lines = text.split("\n")
    found: list[int] = []
    inside = False
    for index, line in enumerate(lines):
        if not _CONFLICT.match(line):
            continue
        if line.startswith("=") and not inside and index and lines[index - 1].strip() \
                and not _CONFLICT.match(lines[index - 1]):
            continue
        inside = line.startswith("<") or (inside and not line.startswith(">"))
        found.append(index + 1)
    return found


# -- aidlc-state.md ------------------------------------------------------------------------------------------------
def read_state(text: str, rel: str, units: list[str] | None = None) -> StateFile:
    """Each checkbox line with its stage, unit and what it says; a line's unit may come from its parent line or
    from the heading (or bold paragraph) above it. A line that names a unit but no stage, under a line that names
    a stage (`- [~] Functional Design (per-unit)` / `  - [x] U1 Chat Core — approved`), is that stage of the
    unit. A table whose header names a stage column and a status column (`| Stage | Status | Artifacts |`) gives
    one stage line per row: `| Code Generation | ✅ Complete | ... |` is ticked, `⏭️ Skipped` skipped. A heading
    naming one of `units` (the unit folders) that has no number (`**v4-migration** (...)`) makes the lines under it
    that unit's."""
    named = [unit for unit in units or [] if unit_of(unit) is None]
    state = StateFile(path=rel, conflict_lines=conflict_lines(text))
    context_unit: str | None = None
    parents: list[_Parent] = []  # the open list items above
    table = False  # the line is in a table
    columns: tuple[int, int] | None = None  # (stage, status) of that table, when its header names them
    for number, line in enumerate(text.split("\n"), start=1):
        row = _ROW.match(line)
        if row is None:
            table, columns = False, None
        else:
            cells = [cell.strip() for cell in row.group("cells").split("|")]
            if not table:
                table, columns = True, _stage_columns(cells)
            elif columns is not None and not _RULE_ROW.match(line) and max(columns) < len(cells):
                state.stages.append(_table_line(number, cells, columns, context_unit))
            continue
        heading = _HEADING.match(line) or _BOLD_HEADING.match(line)
        if heading:
            title = heading.group(2) if heading.re is _HEADING else heading.group("text")
            context_unit = (unit_of(title) or _folder_in(title, named)) if "phase" not in title.lower() else None
            parents = []
            continue
        match = _BOX.match(line)
        plain = re.match(r"^(?P<indent>[ \t]*)[-*+][ \t]+(?P<text>.*)$", line)
        if match is None:
            if plain is not None:  # a list item without a box may name the unit its children are about
                indent = len(plain.group("indent").expandtabs(2))
                parents = [p for p in parents if p.indent < indent] + [_Parent(indent, unit_of(plain.group("text")))]
            continue
        indent = len(match.group("indent").expandtabs(2))
        parents = [p for p in parents if p.indent < indent]
        body = match.group("text")
        name, status = split_stage_line(body)
        own_unit = unit_of(body)
        unit = own_unit or next((p.unit for p in reversed(parents) if p.unit), None) or context_unit
        boxed = next((p for p in reversed(parents) if p.line is not None), None)
        stage = stage_of(name) or _bilingual(name, body)
        if stage is None and own_unit is not None and boxed is not None:
            stage = boxed.stage
        state.stages.append(StageLine(
            line=number, text=body, mark=_mark(match.group("box")), stage=stage, unit=unit,
            skipped=bool(_SKIP.search(status)) or match.group("box") == "S", awaiting=bool(_AWAITING.search(body)),
            depth=len(parents), parent=boxed.line if boxed else None))
        parents.append(_Parent(indent, own_unit, number, stage))
    return state


def _folder_in(title: str, folders: list[str]) -> str | None:
    found = folders_named(title, folders)
    return found[0] if len(found) == 1 else None


def folder_words(folder: str) -> str:
    """A regex of a folder's name as text writes it: `v4-migration`, `v4 migration`, `V4_Migration` (as a word)."""
    spelled = re.escape(folder).replace(r"\-", "[-_ ]")
    return rf"(?<![\w-]){spelled}(?![\w-])"


def folders_named(text: str, folders: list[str]) -> list[str]:
    """The folders of `folders` that `text` names (case ignored)."""
    return [folder for folder in folders if re.search(folder_words(folder), text, re.IGNORECASE)]


def _stage_columns(header: list[str]) -> tuple[int, int] | None:
    """(the stage column, the status column) of a table's header row; None when it is not a stage table."""
    names = [cell.strip("*_ ") for cell in header]
    stage = next((i for i, name in enumerate(names) if _STAGE_COLUMN.match(name)), None)
    status = next((i for i, name in enumerate(names) if _STATUS_COLUMN.match(name)), None)
    return None if stage is None or status is None else (stage, status)


def _table_line(number: int, cells: list[str], columns: tuple[int, int], context_unit: str | None) -> StageLine:
    name, said = cells[columns[0]].strip("*_ "), cells[columns[1]]
    awaiting = bool(_AWAITING.search(said))
    if _CELL_SKIP.search(said):
        mark = Mark.skipped
    elif _CELL_DONE.search(said) and not _CELL_PROGRESS.search(said):
        mark = Mark.done
    elif awaiting:
        mark = Mark.awaiting
    elif _CELL_PROGRESS.search(said):
        mark = Mark.in_progress
    else:
        mark = Mark.pending
    return StageLine(line=number, text=" | ".join(cells), mark=mark, stage=stage_of(name),
                     unit=unit_of(name) or context_unit, skipped=mark == Mark.skipped, awaiting=awaiting)


def _bilingual(name: str, body: str) -> str | None:
    """The stage a name's parenthesised translation names: `유닛별 설계(Functional Design)`."""
    after = body[body.find(name) + len(name):] if name else ""
    match = re.match(r"[ \t]*[(（]([^)）]{1,60})[)）]", after)
    return stage_of(match.group(1)) if match else None


class _Parent(NamedTuple):
    indent: int
    unit: str | None
    line: int | None = None  # a checkbox line's number (None: a list item without a box)
    stage: str | None = None


def split_stage_line(body: str) -> tuple[str, str]:
    """(the stage's name, what the line says of it) of a checkbox line's text: `INCEPTION - Units Generation
    (SKIP)` -> ('Units Generation', '(SKIP)'); the name ends at ` - `, ` — `, `(` or `:`, after a phase prefix.
    What it says is its first clause only: a later sentence may speak of other stages (`... only Reverse
    Engineering is SKIP`)."""
    text = _PHASE_PREFIX.sub("", _LEAD.sub("", body))
    end = _NAME_END.search(text)
    if end is None:
        return text.strip(), ""
    name, rest = text[:end.start()], text[end.start():]
    return name.strip(), rest[:1] + _CLAUSE_END.split(rest[1:], maxsplit=1)[0]


def _mark(box: str) -> Mark:
    return {"x": Mark.done, "X": Mark.done, " ": Mark.pending, "S": Mark.skipped, "?": Mark.awaiting
            }.get(box, Mark.in_progress)


def units_of(text: str) -> list[str]:
    """Every unit a text names by number, in order: `Unit 1 and U3` -> ['1', '3']."""
    return list(dict.fromkeys(str(int(m.group("n") or m.group("u"))) for m in _UNIT.finditer(text)))


def unit_of(text: str) -> str | None:
    """The unit a line names: `Unit 1`, `U2`, `유닛 3` -> '1', '2', '3'; None when it names none."""
    match = _UNIT.search(text)
    if match is None:
        return None
    return str(int(match.group("n") or match.group("u")))


# -- audit.md ----------------------------------------------------------------------------------------------------
def read_audit(text: str, rel: str) -> AuditLog:
    """The entries of an audit log: each starts at a heading, or at a timestamp field after a `---` (an entry
    without a heading); a block without a timestamp field is a preamble or a note, not an entry."""
    return AuditLog(path=rel, conflict_lines=conflict_lines(text), entries=audit_entries(text.split("\n")))


def audit_entries(lines: list[str], offset: int = 0) -> list[AuditEntry]:
    """The entries of `lines`, the lines of an audit log from line `offset` + 1 on. Reading from the first line of
    an entry reads what the whole file would from there: an entry's block ends at the next heading or `---`."""
    blocks: list[tuple[int, int]] = []  # (first, last) line indexes
    start: int | None = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        if (line.startswith("#") and _HEADING.match(line)) or stripped == "---":
            if start is not None:
                blocks.append((start, index - 1))
            start = None if stripped == "---" else index
        elif start is None and stripped:
            start = index
    if start is not None:
        blocks.append((start, len(lines) - 1))
    return [entry for first, last in blocks if (entry := _entry(lines, first, last, offset)) is not None]


def _entry(lines: list[str], first: int, last: int, offset: int) -> AuditEntry | None:
    while last > first and not lines[last].strip():
        last -= 1
    heading_match = _HEADING.match(lines[first])
    fields: dict[str, str] = {}
    key: str | None = None
    for line in lines[first + (1 if heading_match else 0):last + 1]:
        field = _FIELD.match(line)
        if field:
            key = field_name(field.group("key"))
            fields[key] = field.group("value").strip() if key not in fields else fields[key]
        elif key is not None and line.strip():
            fields[key] = f"{fields[key]}\n{line.strip()}".strip()
    if "timestamp" not in fields:
        return None
    stamp = fields["timestamp"].splitlines()[0].strip() if fields["timestamp"] else ""
    at, zoned = parse_timestamp(stamp)
    return AuditEntry(line=offset + first + 1, end=offset + last + 1,
                      heading=heading_match.group(2).strip() if heading_match else None, fields=fields,
                      timestamp=stamp, at=at, zoned=zoned,
                      text="\n".join(line.rstrip() for line in lines[first:last + 1]))


@functools.cache  # a log writes the same few names in every entry
def field_name(written: str) -> str:
    """The canonical name of a field as written: `User Input(원문)`, `사용자 입력(원문)` -> user_input."""
    name = re.sub(r"[（(].*?[)）]", "", written).strip().lower()
    return FIELD_NAMES.get(name, name)


def parse_timestamp(value: str) -> tuple[datetime | None, bool]:
    """(the moment, whether it named its zone) of an ISO 8601 timestamp at the start of `value` (a note may
    follow: `2026-07-30T19:41:26Z (retrospective)`); (None, False) when it is not one."""
    match = _ISO.match(value)
    if match is None or match.group("time") is None:
        return None, False
    zone = match.group("zone")
    text = f"{match.group('date')}T{match.group('time')}"
    if zone:
        text += "+00:00" if zone == "Z" else (zone if ":" in zone else f"{zone[:3]}:{zone[3:]}")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None, False
    return (moment if zone else moment.replace(tzinfo=UTC)), bool(zone)


# -- story ids ---------------------------------------------------------------------------------------------------
_STORY_ID = r"(?:US-[A-Za-z]*\d+(?:\.\d+)*|Story[ \t]+\d+(?:\.\d+)*)"
_STORY = re.compile(rf"\b{_STORY_ID}\b")
# `US-A1..A7`, `US-EV1~9`, `US-1..US-14`: the same prefix, a last number after it.
_STORY_RANGE = re.compile(r"\bUS-(?P<prefix>[A-Za-z]*)(?P<first>\d+)[ \t]*(?:\.\.|~|…|–)[ \t]*(?:US-)?(?P=prefix)?"
                          r"(?P<last>\d+)\b")
MAX_RANGE = 200
_REVISION = re.compile(r"revised|revision|updated|v\d+|rev\d*|\d+", re.IGNORECASE)  # a plan's successor's suffix


def story_headings(text: str, rel: str) -> list[StoryRef]:
    """The story each heading of stories.md names first (`### US-1.1: Table login`, `### Story 1.3 — ...`)."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("#") and _HEADING.match(line):
            match = _STORY.search(line)
            if match:
                found.append(StoryRef(id=_spaced(match.group()), path=rel, line=number))
    return found


def story_assignments(text: str, rel: str) -> list[StoryRef]:
    """Every story id the map assigns: in a table row, in any line of a section whose heading names a unit, and in
    a list item whose lead (the text before `:` or a dash) names one. A note in other prose (`the former US-RA1~8
    were retired`) assigns nothing."""
    found = []
    sections: list[tuple[int, bool]] = []  # (level, names a unit) of the headings above
    for number, line in enumerate(text.split("\n"), start=1):
        heading = _HEADING.match(line) if line.startswith("#") else None
        if heading:
            level = len(heading.group(1))
            sections = [s for s in sections if s[0] < level] + [(level, unit_of(heading.group(2)) is not None)]
            continue
        stripped = line.strip()
        item = re.match(r"[-*+][ \t]", stripped)
        lead = re.split(r"[:：]|[ \t][-—–][ \t]", stripped[2:], maxsplit=1)[0] if item else ""
        if not (stripped.startswith("|") or any(unit for _, unit in sections) or unit_of(lead) is not None):
            continue
        ranged = [(m.start(), m.end()) for m in _STORY_RANGE.finditer(line)]
        for match in _STORY_RANGE.finditer(line):
            first, last = int(match.group("first")), int(match.group("last"))
            if first < last <= first + MAX_RANGE:
                found += [StoryRef(id=f"US-{match.group('prefix')}{n}", path=rel, line=number)
                          for n in range(first, last + 1)]
        found += [StoryRef(id=_spaced(m.group()), path=rel, line=number) for m in _STORY.finditer(line)
                  if not any(start <= m.start() < end for start, end in ranged)]
    return found


def _spaced(story: str) -> str:
    return re.sub(r"[ \t]+", " ", story)


# -- plans ---------------------------------------------------------------------------------------------------------
def read_plan(text: str, rel: str) -> PlanFile | None:
    """A plan's checkboxes (outside code fences); None for a file that has none."""
    stage, unit = plan_stage(rel.rsplit("/", 1)[-1])
    plan = PlanFile(path=rel, stage=stage, unit=unit)
    for number, box, _ in plan_boxes(text):
        if box in "xX":
            plan.done += 1
        elif box == " ":
            plan.open.append(number)
    return plan if plan.done or plan.open else None


def mark_superseded(plans: list[PlanFile]) -> None:
    """Set `superseded_by` on each plan that a revised plan beside it replaces: `X.md` by `X-revised.md`
    (`-revision`, `-updated`, `-v2`, `-rev2`, `-2`), in the same folder. The name says which one governs; a plan
    that merely repeats another's stage under another name (`unit-2-...` beside `customer-spa-...`) says nothing
    of the kind, and both are judged."""
    stems = {plan.path.removesuffix(".md"): plan for plan in plans}
    for stem, plan in stems.items():
        plan.superseded_by = next((other.path for other_stem, other in sorted(stems.items())
                                   if other_stem.startswith(f"{stem}-")
                                   and _REVISION.fullmatch(other_stem[len(stem) + 1:])), None)


def plan_boxes(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, box character, text after the box) of each checkbox line outside code fences."""
    fence = False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        match = None if fence else _BOX.match(line)
        if match is not None:
            yield number, match.group("box"), match.group("text")
