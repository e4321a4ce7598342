"""A tolerant reader of the aidlc-docs layout that agents write following AWS aidlc-workflows.

It reads what repositories hold, not only the rules' templates: stage lines with or without a phase prefix
(`INCEPTION - `), with `— COMPLETE`, `(COMPLETED - <ts>)`, `(SKIPPED)`, `- SKIP`, with `[~]`, `[-]`, `[S]`, `[?]`,
stage names in other languages (aidlc/aidlc_docs/stages.py); audit entries with English, localised or older
(`AI Prompt`/`User Response`/`Status`) fields, with or without a heading or a `---`, oldest or newest first, in one
`audit.md` or several (`audit/*.md`, v2's shards); CRLF line ends; plan files named per unit or not.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from aidlc.aidlc_docs.model import (
    AuditEntry,
    AuditLog,
    DocsProject,
    Mark,
    PlanFile,
    StageLine,
    StateFile,
    Unreadable,
)
from aidlc.aidlc_docs.stages import plan_stage, stage_of
from aidlc.bank.frontmatter import MAX_FILE_BYTES, decode, read_bytes

STATE_FILE = "aidlc-state.md"
AUDIT_FILE = "audit.md"
AUDIT_FOLDER = "audit"
NOT_UNITS = frozenset({"plans", "build-and-test", "shared", "shared-infrastructure", "code"})

_BOX = re.compile(r"^(?P<indent>[ \t]*)[-*+][ \t]+\[(?P<box>[ xX~\-SR?])\][ \t]*(?P<text>.*)$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_BOLD_HEADING = re.compile(r"^\*\*(?P<text>[^*]+)\*\*")
_FIELD = re.compile(r"^[ \t]*(?:[-*][ \t]+)?\*\*(?P<key>[^*\n]{1,60}?)\*\*[ \t]*[:：][ \t]*(?P<value>.*)$")
_CONFLICT = re.compile(r"^(<{7}( |$)|={7}$|>{7}( |$)|\|{7}( |$))")
_ISO = re.compile(r"^\s*\"?(?P<date>\d{4}-\d{2}-\d{2})(?:[T ](?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)"
                  r"(?P<zone>Z|[+-]\d{2}:?\d{2})?)?")
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
    for path_rel in project.files:
        name = path_rel.rsplit("/", 1)[-1]
        if not name.endswith(".md"):
            continue
        text = _text(root, path_rel, project)
        if text is None:
            continue
        inside = path_rel[len(rel) + 1:]
        if inside == STATE_FILE:
            project.state = read_state(text, path_rel)
        elif is_audit(inside):
            project.audits.append(read_audit(text, path_rel))
        else:
            if name.endswith("plan.md") or "-plan-" in name or "/plans/" in f"/{inside}":
                plan = read_plan(text, path_rel)
                if plan is not None:
                    project.plans.append(plan)
            lines = conflict_lines(text)
            if lines:
                project.conflicts[path_rel] = lines
    construction = folder / "construction"
    if construction.is_dir():
        project.units = sorted(p.name for p in construction.iterdir() if p.is_dir() and p.name not in NOT_UNITS)
    return project


def is_audit(inside: str) -> bool:
    """Whether the file at `inside` (relative to the docs folder) is an audit log: audit.md, or a file of audit/
    (v2's per-clone shards, per-branch logs)."""
    return inside == AUDIT_FILE or (inside.startswith(f"{AUDIT_FOLDER}/") and inside.count("/") == 1
                                    and inside.endswith(".md"))


def one_line_end(text: str) -> str:
    """The text with CRLF and CR line ends read as LF: a file's line ends never change what it says."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _text(root: Path, rel: str, project: DocsProject) -> str | None:
    try:
        data = read_bytes(root / rel, MAX_FILE_BYTES)
    except OSError as exc:
        project.unreadable.append(Unreadable(path=rel, message=exc.strerror or str(exc)))
        return None
    text, problem = decode(data, rel)
    if problem is not None:
        project.unreadable.append(Unreadable(path=rel, message=f"line {problem.line}: {problem.message}"))
        return None
    return one_line_end(text)


def conflict_lines(text: str) -> list[int]:
    return [number for number, line in enumerate(text.split("\n"), start=1) if _CONFLICT.match(line)]


# -- aidlc-state.md ------------------------------------------------------------------------------------------------
def read_state(text: str, rel: str) -> StateFile:
    """Each checkbox line with its stage, unit and what it says; a line's unit may come from its parent line or
    from the heading (or bold paragraph) above it."""
    state = StateFile(path=rel, conflict_lines=conflict_lines(text))
    context_unit: str | None = None
    parents: list[tuple[int, str | None]] = []  # (indent, unit) of the open list items above
    for number, line in enumerate(text.split("\n"), start=1):
        heading = _HEADING.match(line) or _BOLD_HEADING.match(line)
        if heading:
            title = heading.group(2) if heading.re is _HEADING else heading.group("text")
            context_unit = unit_of(title) if "phase" not in title.lower() else None
            parents = []
            continue
        match = _BOX.match(line)
        plain = re.match(r"^(?P<indent>[ \t]*)[-*+][ \t]+(?P<text>.*)$", line)
        if match is None:
            if plain is not None:  # a list item without a box may name the unit its children are about
                indent = len(plain.group("indent").expandtabs(2))
                parents = [p for p in parents if p[0] < indent] + [(indent, unit_of(plain.group("text")))]
            continue
        indent = len(match.group("indent").expandtabs(2))
        parents = [p for p in parents if p[0] < indent]
        body = match.group("text")
        unit = unit_of(body) or next((u for _, u in reversed(parents) if u), None) or context_unit
        state.stages.append(StageLine(
            line=number, text=body, mark=_mark(match.group("box")), stage=stage_of(body), unit=unit,
            skipped=bool(_SKIP.search(body)) or match.group("box") == "S", awaiting=bool(_AWAITING.search(body)),
            depth=len(parents)))
        parents.append((indent, unit_of(body)))
    return state


def _mark(box: str) -> Mark:
    return {"x": Mark.done, "X": Mark.done, " ": Mark.pending, "S": Mark.skipped, "?": Mark.awaiting
            }.get(box, Mark.in_progress)


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
    lines = text.split("\n")
    log = AuditLog(path=rel, conflict_lines=conflict_lines(text))
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
    for first, last in blocks:
        entry = _entry(lines, first, last)
        if entry is not None:
            log.entries.append(entry)
    return log


def _entry(lines: list[str], first: int, last: int) -> AuditEntry | None:
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
    return AuditEntry(line=first + 1, end=last + 1, heading=heading_match.group(2).strip() if heading_match else None,
                      fields=fields, timestamp=stamp, at=at, zoned=zoned,
                      text="\n".join(line.rstrip() for line in lines[first:last + 1]))


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


# -- plans ---------------------------------------------------------------------------------------------------------
def read_plan(text: str, rel: str) -> PlanFile | None:
    """A plan's checkboxes (outside code fences); None for a file that has none."""
    stage, unit = plan_stage(rel.rsplit("/", 1)[-1])
    plan = PlanFile(path=rel, stage=stage, unit=unit)
    fence = False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        match = None if fence else _BOX.match(line)
        if match is None:
            continue
        if match.group("box") in "xX":
            plan.done += 1
        elif match.group("box") == " ":
            plan.open.append(number)
    return plan if plan.done or plan.open else None
