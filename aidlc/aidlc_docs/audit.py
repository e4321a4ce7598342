"""The audit logs of the aidlc-docs layout: their entries, each a block of `**Field**: value` lines under a heading
or after a `---`, with English, localised or older field names, and the entry's timestamp read as a moment."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime

from aidlc.aidlc_docs.markdown import HEADING, conflict_lines
from aidlc.aidlc_docs.model import AuditEntry, AuditLog

_FIELD = re.compile(r"^[ \t]*(?:[-*][ \t]+)?\*\*(?P<key>[^*\n]{1,60}?)\*\*[ \t]*[:：][ \t]*(?P<value>.*)$")
_ISO = re.compile(r"^\s*\"?(?P<date>\d{4}-\d{2}-\d{2})(?:[T ](?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)"
                  r"(?P<zone>Z|[+-]\d{2}:?\d{2})?)?")
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


def read_audit(text: str, rel: str) -> AuditLog:
    """The entries of an audit log: each starts at a heading, or at a timestamp field after a `---` (an entry
    without a heading); a block without a timestamp field is a preamble or a note, not an entry."""
    lines = text.split("\n")
    return AuditLog(path=rel, conflict_lines=conflict_lines(text), entries=audit_entries(lines),
                    text_lines=sum(1 for line in lines if line.strip()))


def audit_entries(lines: list[str], offset: int = 0) -> list[AuditEntry]:
    """The entries of `lines`, the lines of an audit log from line `offset` + 1 on. Reading from the first line of
    an entry reads what the whole file would from there: an entry's block ends at the next heading or `---`."""
    blocks: list[tuple[int, int]] = []  # (first, last) line indexes
    start: int | None = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        if (line.startswith("#") and HEADING.match(line)) or stripped == "---":
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
    heading_match = HEADING.match(lines[first])
    fields = _fields(lines[first + (1 if heading_match else 0):last + 1])
    if "timestamp" not in fields:
        return None
    stamp = fields["timestamp"].splitlines()[0].strip() if fields["timestamp"] else ""
    at, zoned = parse_timestamp(stamp)
    return AuditEntry(line=offset + first + 1, end=offset + last + 1,
                      heading=heading_match.group(2).strip() if heading_match else None, fields=fields,
                      timestamp=stamp, at=at, zoned=zoned,
                      text="\n".join(line.rstrip() for line in lines[first:last + 1]))


def _fields(lines: list[str]) -> dict[str, str]:
    """The fields of an entry's lines by canonical name: a field's first value counts, and the lines after it (up
    to the next field) continue it."""
    # Each field's parts are joined once at the end: joining as each line came copied the field so far every time,
    # and an entry of many lines (a pasted log) took minutes.
    parts: dict[str, list[str]] = {}
    key: str | None = None
    for line in lines:
        field = _FIELD.match(line)
        if field:
            key = field_name(field.group("key"))
            parts.setdefault(key, [field.group("value").strip()])
        elif key is not None and line.strip():
            parts[key].append(line.strip())
    return {key: "\n".join(part for part in values if part) for key, values in parts.items()}


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
