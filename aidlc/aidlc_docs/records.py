"""The reader of aidlc-workflows v2 records: a workspace folder `aidlc/` whose intent records
(`spaces/<space>/intents/<dir>/`) each hold an `aidlc-state.md` of stage rows (`- [x] <slug> — EXECUTE`) and per-clone
audit shards (`audit/<host>-<clone>.md`) of `**Event**:` blocks that readers merge by timestamp.

Each record is read as a docs folder (aidlc/aidlc_docs/reader.py reads its shards, plans and files); this module
adds what v2 says beyond v1: the state rows, and the shards' blocks in one order.
"""

from __future__ import annotations

import re
from pathlib import Path

from aidlc.aidlc_docs.markdown import one_line_end
from aidlc.aidlc_docs.model import (
    AuditLog,
    DocsProject,
    IntentRecord,
    Mark,
    RecordEvent,
    RecordsWorkspace,
    StateRow,
)
from aidlc.aidlc_docs.reader import STATE_FILE, read_project
from aidlc.bank.config import V2_SPACES
from aidlc.bank.frontmatter import MAX_FILE_BYTES, decode, read_bytes
from aidlc.bank.walk import read_inside

WORKSPACE = "aidlc"
MIGRATED = f"{WORKSPACE}/.migrated"
# state-template.md's row, as v2's parseCheckboxes reads it: a marker, the slug, an em dash, the decision.
_ROW = re.compile(r"^- \[(?P<box>[ xSR?-])\] (?P<slug>\S+)\s*—\s*(?P<decision>.*)$")
# The heading each row stands under: `### CONSTRUCTION PHASE`.
_PHASE = re.compile(r"^#{2,4}\s+(?P<phase>[A-Za-z]+)\s+PHASE\s*$", re.IGNORECASE)
_MARKS = {" ": Mark.pending, "-": Mark.in_progress, "?": Mark.awaiting, "R": Mark.in_progress, "x": Mark.done,
          "S": Mark.skipped}
# state-template.md's decision, `EXECUTE` or `SKIP: <reason>`: a stage the scope leaves out keeps an empty box.
_SKIP = re.compile(r"SKIP(?:PED)?\b", re.IGNORECASE)


def record_folders(root: Path) -> list[str]:
    """The v2 intent records under `root` (relative paths, sorted): the folders of
    `aidlc/spaces/<space>/intents/<dir>/` that hold an aidlc-state.md (v2 counts no other folder as a record)."""
    spaces = root / V2_SPACES
    if not spaces.is_dir():
        return []
    return sorted(state.parent.relative_to(root).as_posix()
                  for state in spaces.glob(f"*/intents/*/{STATE_FILE}") if state.is_file())


def is_workspace(root: Path) -> bool:
    """Whether aidlc/spaces/ is a v2 workspace: a space folder holding its memory/ or intents/, as v2 sets one up
    before the first intent (yokozi-jp/spring-modulith-ai-dlc: `aidlc/spaces/default/memory/` and no intent yet)."""
    spaces = root / V2_SPACES
    return spaces.is_dir() and any((space / "memory").is_dir() or (space / "intents").is_dir()
                                   for space in spaces.iterdir())


def active_record(root: Path, records: list[str]) -> str | None:
    """The record v2's cursors point at, if it is one of `records`: aidlc/active-space (else the space `default`),
    then that space's intents/active-intent (a record's folder name)."""
    def cursor(rel: str) -> str | None:  # a regular file inside the repository, else none
        try:
            return read_inside(root / rel, root)[:4096].decode("utf-8").strip() or None
        except (OSError, UnicodeDecodeError):
            return None

    space = cursor(f"{WORKSPACE}/active-space") or "default"
    name = cursor(f"{WORKSPACE}/spaces/{space}/intents/active-intent")
    rel = f"{WORKSPACE}/spaces/{space}/intents/{name}"
    return rel if name and rel in records else None


def read_workspace(root: Path) -> RecordsWorkspace:
    """Every intent record of the v2 workspace at `root`, and its migration marker."""
    marker = root / MIGRATED
    migrated = None
    if marker.is_file():
        migrated = decode(read_bytes(marker, MAX_FILE_BYTES), MIGRATED)[0]
    return RecordsWorkspace(root=str(root), records=[read_record(root, rel) for rel in record_folders(root)],
                            migrated=migrated)


def read_record(root: Path, rel: str) -> DocsProject:
    """One intent record: the docs folder's reading, with its state rows and its shards' blocks merged."""
    project = read_project(root, rel)
    parts = rel.split("/")  # aidlc/spaces/<space>/intents/<dir>
    record = IntentRecord(space=parts[2], name=parts[-1], events=merge_shards(project.audits))
    state_path = root / rel / STATE_FILE
    if project.state is not None:
        text, _ = decode(read_bytes(state_path, MAX_FILE_BYTES), project.state.path)
        if text is not None:  # a state file that is not UTF-8 is reported where the project is read
            record.rows = read_rows(one_line_end(text))
    project.record = record
    return project


def read_rows(text: str) -> list[StateRow]:
    """The stage rows of a v2 aidlc-state.md, each with the phase heading it stands under; other lines
    (`Per unit: [TBD]`, fields, headings) are not rows. A row not started whose decision is SKIP is skipped, as an
    `[S]` row is: v2 leaves the box empty for a stage its scope leaves out (RKuji/aidlc-v2-sogo,
    b0ho/running_crew: `- [ ] market-research — SKIP`)."""
    rows = []
    phase = None
    for number, line in enumerate(text.split("\n"), start=1):
        heading = _PHASE.match(line)
        if heading:
            phase = heading.group("phase").lower()
        match = _ROW.match(line)
        if match:
            box, decision = match.group("box"), match.group("decision").strip()
            mark = _MARKS[box]
            if mark == Mark.pending and _SKIP.match(decision):  # out of scope: never run, so never next
                mark = Mark.skipped
            rows.append(StateRow(line=number, box=box, mark=mark, slug=match.group("slug"), decision=decision,
                                 phase=phase))
    return rows


def merge_shards(shards: list[AuditLog]) -> list[RecordEvent]:
    """The timestamped blocks of every shard in one order, as v2's readers merge them: by timestamp, then by place
    within the shard. A block sharing its second with a block of another shard is marked tied: which came first
    is not known."""
    events = [RecordEvent(path=log.path, entry=entry, event=entry.fields.get("event", "").strip())
              for log in shards for entry in log.entries if entry.at is not None]
    events.sort(key=lambda e: (e.entry.at, e.path, e.entry.line))
    shards_at: dict[object, set[str]] = {}
    for event in events:
        shards_at.setdefault(event.entry.at, set()).add(event.path)
    for event in events:
        event.tied = len(shards_at[event.entry.at]) > 1
    return events


def before(first: RecordEvent, second: RecordEvent) -> bool | None:
    """Whether `first` happened before `second`: by timestamp, then by place in one shard; None for blocks of two
    shards in one second (causally unordered)."""
    if first.entry.at != second.entry.at:
        return bool(first.entry.at and second.entry.at and first.entry.at < second.entry.at)
    if first.path != second.path:
        return None
    return first.entry.line < second.entry.line
