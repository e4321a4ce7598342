"""The audit logs of the aidlc-docs layout: their entries, each a block of `**Field**: value` lines under a heading
or after a `---`, with English, localised or older field names, and the entry's timestamp read as a moment.

Some logs carry an entry's moment in its heading instead (`### Requirements Approval: 2026-02-09T13:15:21+09:00`,
`## 2026-05-09T23:50:00+08:00 — B6 API Layer Functional Design`), with the person's words under a sub-heading
(`#### User Response`) or on a bullet (`- User: "批准并继续"`). Such an entry runs over its sub-headings to the next
heading of its level or above, or a `---`."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime
from itertools import pairwise

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
    "ai応答": "ai_response", "ai响应": "ai_response", "ai 响应": "ai_response", "resposta da ia": "ai_response",
    "ai prompt": "ai_prompt",
    "context": "context", "맥락": "context", "컨텍스트": "context", "上下文": "context", "コンテキスト": "context",
    "contexto": "context", "status": "status", "상태": "status", "状态": "status", "event": "event",
    "stage": "stage", "input": "user_input", "user approval": "user_input", "user": "user_input",
    # A date field is the timestamp of an entry that has no timestamp field (`- **Date**: 2026-08-16T21:00:00Z`).
    "date": "date", "날짜": "date", "日付": "date", "日期": "date",
    "user request": "user_input", "사용자 요청": "user_input", "用户请求": "user_input", "ユーザー要求": "user_input",
    # The rules describe User Input as "[Complete raw user input - never summarized]": some logs name it so.
    "raw input": "user_input", "raw user input": "user_input", "action": "ai_response",
    "complete raw user input": "user_input", "complete raw user input/response": "user_input",  # cu-aaii
    "complete raw user response": "user_response", "raw user response": "user_response",  # cu-aaii's approvals
    # Spanish: "the user's (exact) answer" (Programa-Dx---bts-integral, every gate), "the user's input". Not
    # `Respuestas del usuario`, "the user's answers": the answers to a stage's questions, listed by the agent.
    "respuesta exacta del usuario": "user_response", "respuesta del usuario": "user_response",
    "entrada del usuario": "user_input",
    "approval response": "approval_response",  # the agent's report of the answer: `_fields` takes its quotes
    "approval": "approval",  # jku-win-se's `**Approval**: "approved, please go on" (user)`: `_fields` takes its quotes
    # The user's approval in Japanese, and the approver's comment (NESIC-aws-ai-hackathon/GEZA: `- **承認者コメント**:
    # 「承認します」`, "approver's comment: I approve"); the user's response (YutaIke/aidlc-claude-sample's gates).
    "ユーザー承認": "user_input", "承認者コメント": "user_input", "ユーザー応答": "user_response",
}
_KNOWN = frozenset(FIELD_NAMES.values())
PERSON = ("user_input", "user_response")  # the fields that hold the person's words
_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”')
# A plain bullet naming a field, in an entry stamped in its heading: `- User: "Approve & Continue" → Operations`.
_PLAIN_FIELD = re.compile(r"^[ \t]*[-*][ \t]+(?P<key>[^:：\n]{1,30}?)[ \t]*[:：][ \t]*(?P<value>.*)$")
_STAMP = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?P<zone>Z|[+-]\d{2}:?\d{2})?)?"
# The stamp is taken whole (an atomic group), then a separator: a closing bracket (hygef-v4/valo-checker's
# `[2026-08-21T18:00:08+07:00] Initial User Request`) or a zone (Mbg999/aidlc-factory's `2026-05-09T07:44:39Z
# WORKSPACE DETECTION - START`) ends it as one would. Cut at its minutes' colon, the seconds and zone were read as the
# title's. A word after a time with no zone may be the zone's name (`2026-06-05 15:40 JST`): no stamp.
_STAMP_FIRST = re.compile(rf"^[\[(]?(?P<stamp>(?>{_STAMP}))[\])]?(?:(?:[ \t]*[-—–:：|]|(?<=[\])])[ \t]|"
                          r"(?(zone)[ \t]|(?!)))[ \t]*(?P<title>.*))?$")
_STAMP_LAST = re.compile(rf"[ \t]*[-—–:：|,@]?[ \t]*[\[(]?(?P<stamp>{_STAMP})[\])]?$")


def read_audit(text: str, rel: str) -> AuditLog:
    """The entries of an audit log: each starts at a heading, or at a timestamp field after a `---` (an entry
    without a heading); a block without a timestamp field is a preamble or a note, not an entry, unless it holds the
    person's words (User Input or User Response): an entry without its time."""
    lines = text.split("\n")
    return AuditLog(path=rel, conflict_lines=conflict_lines(text), entries=audit_entries(lines),
                    text_lines=sum(1 for line in lines if line.strip()))


def as_logged(entries: list[AuditEntry]) -> list[AuditEntry]:
    """The entries in the order they were logged: as written, unless the log is kept newest first (more than three
    times as many of its timed entries earlier than the timed entry above them as later: drpacman/BattleTrs writes
    each session's entries above the last session's), then from the bottom up. A person's go-ahead answers the entry
    logged before it, not the one written above it. Read from the bottom up, not sorted by time: a time that
    disagrees with the order is more often estimated than the order wrong (kondo97/mattermost-plugin-rtk stamps
    entries of two sessions alike; sorted, one session's "approve the plan" answered the other's design). A log of
    both orders is left as written (socar-rieul/aidlc-modu-2 logged its first ten entries oldest first, then 23 newest
    first above them; jongon/betmeet-clone puts each unit's entries, oldest first, above the last unit's)."""
    timed = [entry.at for entry in entries if entry.at is not None]
    earlier = later = 0
    for above, below in pairwise(timed):
        earlier += below < above
        later += below > above
    return entries[::-1] if earlier > 3 * later else entries


def audit_entries(lines: list[str], offset: int = 0) -> list[AuditEntry]:
    """The entries of `lines`, the lines of an audit log from line `offset` + 1 on. Reading from the first line of
    an entry reads what the whole file would from there: an entry's block ends at the next heading or `---`, and an
    entry stamped in its heading takes in the deeper headings after it that hold no timestamp field of their own; an
    entry with a timestamp field, those that hold none of the person's words either (`_section`)."""
    lines = _unglued(lines)
    blocks = _blocks(lines)
    entries: list[AuditEntry] = []
    at = 0
    while at < len(blocks):
        first, last = blocks[at]
        at += 1
        heading = HEADING.match(lines[first]) if lines[first].startswith("#") else None
        stamped = heading_stamp(heading.group(2)) if heading else None
        if stamped is None or "timestamp" in _fields(lines[first + 1:last + 1]):
            own, sections = last, []  # the entry's own block ends at `own`; the fields of each of its sections
            while heading is not None and at < len(blocks) and blocks[at][0] == last + 1 and \
                    (section := _section(lines, blocks[at], len(heading.group(1)))) is not None:
                sections.append(section)
                last = blocks[at][1]
                at += 1
            entry = _entry(lines, (first, own, last), offset, heading, sections)
        else:
            level = len(heading.group(1)) if heading else 0
            while at < len(blocks) and blocks[at][0] == last + 1 and _sub_heading(lines, blocks[at], level):
                last = blocks[at][1]
                at += 1
            entry = _stamped_entry(lines, first, last, offset, stamped)
        if entry is not None:
            entries.append(entry)
    return entries


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """The (first, last) line indexes of each block of the lines: a block ends at a heading or a `---`, unless that
    stands inside the person's quoted words."""
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    quoted = False  # inside a field's quoted value that runs over several lines
    for index, line in enumerate(lines):
        stripped = line.strip()
        if '"' in line and _quotes(line) % 2 == 1:  # a quote opens or closes on this line
            quoted = not quoted and _opens_quote(line)
        ends = stripped == "---" or (line.startswith("#") and HEADING.match(line) is not None)
        if ends and quoted and _quote_closes(lines, index + 1):
            continue  # a rule or heading inside the person's quoted words (a pasted prompt's `## My request`)
        if ends:
            quoted = False
            if start is not None:
                blocks.append((start, index - 1))
            start = None if stripped == "---" else index
        elif start is None and stripped:
            start = index
    if start is not None:
        blocks.append((start, len(lines) - 1))
    return blocks


def _unglued(lines: list[str]) -> list[str]:
    """The lines with each entry's heading that a writer glued to the `---` before it, and broke over two lines, put
    back on its own: dragon4499's `---## U`, then `ser Stories Approved` (`---#`, then `# Workflow Planning
    Complete`), read as one entry from the log's fourth to its eleventh, whose approvals were lost. The heading's
    second part, where one follows (no field, blank or `---`), is joined to it and its line left blank: every line
    keeps its number."""
    if not any(line.startswith("---#") for line in lines):
        return lines
    lines = list(lines)
    for index, line in enumerate(lines):
        if not line.startswith("---#"):
            continue
        heading, after = line[3:], lines[index + 1] if index + 1 < len(lines) else ""
        if after.strip() and after.strip() != "---" and _FIELD.match(after) is None:
            heading, lines[index + 1] = heading + after, ""
        lines[index] = heading
    return lines


def _quotes(line: str) -> int:
    """The double quotes of a line that are not escaped (`\\"Bootcamp\\"` inside a quoted value is none)."""
    return line.count('"') - line.count('\\"')


def _opens_quote(line: str) -> bool:
    """Whether a line is a field whose value starts with a quote (`**User Input**: "I still think ...`)."""
    field = _FIELD.match(line) if "**" in line else None
    return field is not None and field.group("value").lstrip().startswith('"')


def _quote_closes(lines: list[str], start: int) -> bool:
    """Whether an open quoted value closes before the next field, `---` or heading that carries a time (within 500
    lines): a `---` or heading before a quote that never closes ends the entry still, so a stray quote cannot join
    the entries after it (each starts with a field, or a heading that carries its time)."""
    for line in lines[start:start + 500]:
        heading = HEADING.match(line) if line.startswith("#") else None
        if line.strip() == "---" or (heading is not None and heading_stamp(heading.group(2)) is not None) \
                or ("**" in line and _FIELD.match(line)):
            return False
        if _quotes(line) % 2 == 1:
            return True
    return False


def heading_stamp(text: str) -> tuple[str, str] | None:
    """(the timestamp, the rest) of a heading that carries one first or last (`Requirements Approval:
    2026-02-09T13:15:21+09:00`, `2026-05-09 — B2 Functional Design`); None when it carries none."""
    # Most headings carry none: a first and a last character that cannot start or end a timestamp settle it.
    if text[:1].isdigit() or text[:1] in "[(":
        match = _STAMP_FIRST.match(text)
        if match:
            return match.group("stamp"), (match.group("title") or "").strip()
    if text[-1:].isdigit() or text[-1:] in "Z)]":
        tail = len(text) - 48  # a timestamp and its separator fit in the last 48 characters
        match = _STAMP_LAST.search(text, max(tail, 0))
        if match:
            return match.group("stamp"), text[:match.start()].strip()
    return None


def _sub_heading(lines: list[str], block: tuple[int, int], level: int) -> bool:
    """Whether a block is part of the entry above it, stamped in a heading of `level`: it starts at a deeper heading
    that carries no timestamp, and holds no timestamp field (else it is an entry of its own)."""
    first, last = block
    heading = HEADING.match(lines[first])
    return (heading is not None and len(heading.group(1)) > level and heading_stamp(heading.group(2)) is None
            and "timestamp" not in _fields(lines[first + 1:last + 1]))


def _section(lines: list[str], block: tuple[int, int], level: int) -> dict[str, str] | None:
    """The fields of a block that is a section of the entry above it, whose heading of `level` it follows with no
    `---` between: a deeper heading (`### ⛔ GATE`) over no time and none of the person's words (those make an entry
    of its own). miura-bd's entries each run `## ...`, Timestamp, User Input, AI Response, `###` sections, Context
    last: cut at their first section, they lost their Context (`Step 17 (承認待ち)`, awaiting approval)."""
    if not _sub_heading(lines, block, level):
        return None
    fields = _fields(lines[block[0] + 1:block[1] + 1])
    return None if any(key in fields for key in PERSON) else fields


def _entry(lines: list[str], span: tuple[int, int, int], offset: int, heading_match: re.Match[str] | None,
           sections: list[dict[str, str]]) -> AuditEntry | None:
    """The entry whose lines run from `first` to `last` of `span`, its own block to `own` and its sections' after:
    a section's field counts where the block lacks it, and the block's fields stop at the first section (a `###
    Stage Progress` table naming every stage is not the AI response's, to be read as stages it says approved)."""
    first, own, last = span
    while last > first and not lines[last].strip():
        last -= 1
    fields = _fields(lines[first + (1 if heading_match else 0):own + 1])
    for section in sections:
        fields = {**section, **fields}
    if "timestamp" not in fields:
        if not any(key in fields for key in PERSON):
            return None  # a preamble or a note
        # The person's words, logged without the entry's time (DocSuri's `## U8 NFR Design — ...` with "다음 단계를
        # 진행해 주세요"): an entry still, whose missing time AIDLC-DOCS-008 reports, not words silently left unread.
        fields["timestamp"] = ""
    stamp = fields["timestamp"].splitlines()[0].strip() if fields["timestamp"] else ""
    return _made(lines, first, last, offset, heading_match.group(2).strip() if heading_match else None, fields,
                 stamp)


def _stamped_entry(lines: list[str], first: int, last: int, offset: int,
                   stamped: tuple[str, str]) -> AuditEntry | None:
    """The entry under a heading that carries its timestamp; None for a heading with nothing under it (a session's
    `## Start Date: ...` before a `---`)."""
    while last > first and not lines[last].strip():
        last -= 1
    if last == first:
        return None
    stamp, title = stamped
    fields = {"timestamp": stamp, **_fields(lines[first + 1:last + 1], plain=True)}
    # A heading that is its time alone leaves the entry's name to its Stage field (e88z4/hdhomerun-linux: `##
    # 2026-05-20T23:32:16Z`, `- **Stage**: Requirements Review Approval`, `- **User Response**: approve`).
    title = title or fields.get("stage", "").partition("\n")[0]
    return _made(lines, first, last, offset, title or None, fields, stamp)


def _made(lines: list[str], first: int, last: int, offset: int, heading: str | None, fields: dict[str, str],
          stamp: str) -> AuditEntry:
    at, zoned = parse_timestamp(stamp)
    return AuditEntry(line=offset + first + 1, end=offset + last + 1, heading=heading, fields=fields,
                      timestamp=stamp, at=at, zoned=zoned,
                      text="\n".join(line.rstrip() for line in lines[first:last + 1]))


def _fields(lines: list[str], plain: bool = False) -> dict[str, str]:
    """The fields of an entry's lines by canonical name: a field's first value counts, and the lines after it (up
    to the next field) continue it. With `plain` (an entry stamped in its heading), a sub-heading naming a field
    (`#### User Response`) starts it, its code fences aside, and a bullet naming a known field is that field's one
    line (`- User: "批准"`)."""
    # Each field's parts are joined once at the end: joining as each line came copied the field so far every time,
    # and an entry of many lines (a pasted log) took minutes.
    parts: dict[str, list[str]] = {}
    key: str | None = None
    for line in lines:
        field = _FIELD.match(line)
        if field:
            key = field_name(field.group("key"))
            parts.setdefault(key, [field.group("value").strip()])
        elif plain and (heading := HEADING.match(line)) and line.startswith("#"):
            key = field_name(heading.group(2))
            key = key if key in _KNOWN else None
            if key is not None:
                parts.setdefault(key, [])
        elif plain and (bullet := _PLAIN_FIELD.match(line)) and field_name(bullet.group("key")) in _KNOWN:
            parts.setdefault(field_name(bullet.group("key")), [bullet.group("value").strip()])
            key = None
        elif key is not None and line.strip() and not (plain and line.lstrip().startswith(("```", "~~~"))):
            parts[key].append(line.strip())
    fields = {key: "\n".join(part for part in values if part) for key, values in parts.items()}
    if "timestamp" not in fields and "date" in fields:
        fields["timestamp"] = fields["date"]
    # `**Approval response**: User approved — "Approved". Units Generation complete.` (DDthonWinner/CompanyOps, every
    # gate): the agent's report of the answer, in which the quoted words are the person's, the rest its own. So in an
    # `**Approval**` field whose quoted words come first (jku-win-se's `"approved, please go on" (user)`); not the
    # agent's `Pending — "Approve & Continue" presented`, which quotes the option it put to the person.
    led = fields.get("approval", "")
    reported = fields.get("approval_response") or (led if led.startswith(('"', "“")) else "")
    if "user_response" not in fields and (quoted := _QUOTED.findall(reported)):
        fields["user_response"] = " ".join(f'"{plain or curly}"' for plain, curly in quoted)
    return fields


# The context Codex's IDE extension puts before the person's request, which agents log with it as the raw input
# (jin-101/SPA-BRIDGE: 91 entries): `# Context from my IDE setup:`, the active file, the open tabs, then
# `## My request for Codex:` and the words.
# And the time an IDE stamps on each message, and its notice that tools changed, which oliver-koeth/hre-demo logs
# before the words of 82 entries: `"<current_datetime>2026-07-23T07:54:30.538+02:00</current_datetime>`, a blank
# line, `<tools_changed_notice>...</tools_changed_notice>`, then "Continue to Next Stage" (a go-ahead is short: with
# the stamp it was not one).
_IDE_CONTEXT = re.compile(r"([\"“'`]?)[ \t]*(?:#[ \t]+(?:Context from my IDE setup|Files mentioned by the user)[ \t]*:"
                          r".*?^##[ \t]+My request for Codex[ \t]*:[ \t]*\n?|"
                          r"(?:<current_datetime>[^<\n]{0,64}</current_datetime>\s*|"
                          r"<tools_changed_notice>[^<]{0,2000}</tools_changed_notice>\s*)+)", re.DOTALL | re.MULTILINE)


def person_words(text: str) -> str:
    """A person's input as they wrote it: without the IDE context an agent's extension put before it (its opening
    quote kept)."""
    found = _IDE_CONTEXT.match(text)
    return text if found is None else found.group(1) + text[found.end():]


# A log writes the same few names in every entry; bounded, since `aidlc mcp` lives on and a hostile log may write
# a new name on each of a million lines.
@functools.lru_cache(maxsize=1024)
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
