"""Appending to an aidlc-docs audit log (`aidlc audit append`); aidlc/events/audit_records.py checks later that
what was appended is still there, byte for byte.

An entry is written in the rules' format (core-workflow.md "Prompts Logging Requirements") with the real time, at
the end of the file, which is never rewritten; on aidlc-workflows v2 intent records, a block in the format of v2's
audit tool at the end of this clone's shard (`append_event`). Under an exclusive lock (.aidlc/locks/audit.lock; the
ledger's own lock is taken inside it, never the other way round):
1. an append a crash interrupted is settled first (`_settle`);
2. audit.md (the shard) must be a regular file inside the repository, never a symbolic link;
3. the bytes about to be written and where they go are saved to .aidlc/audit-pending.json (fsync);
4. the entry, after a newline if the file's last line lacks one, goes out in one write() on an O_APPEND
   descriptor, then fsync;
5. the ledger records an `audit.appended` event: the entry's line, offset, length and the sha256 of its bytes
   (AuditRecord), so an edit or a deletion is caught (`audit_records.check_records`) even where git history was
   rewritten;
6. the pending record is removed.
After a kill -9 between 3 and 6, the next append finds the entry whole (and records it now), or cut short at the
end of the file (the fragment, which only this tool wrote, is moved to .aidlc/ and cut off: no half entry stays
for a reader to take for a whole one; unless HEAD holds it, committed since: history, which stays), or not written
at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import stat
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from aidlc import vcs
from aidlc.aidlc_docs.reader import AUDIT_FILE
from aidlc.aidlc_docs.records import WORKSPACE
from aidlc.aidlc_docs.stages import BY_SLUG, stage_of, title
from aidlc.bank.walk import read_inside
from aidlc.bank.write import atomic_write, fsync_folder
from aidlc.errors import AidlcError, UsageError
from aidlc.events.ledger import Appended as LedgerAppended
from aidlc.events.ledger import Ledger, LedgerError, no_ledger
from aidlc.model.events import Actor, AuditRecord, EventType
from aidlc.names import arg

LOCK = Path(".aidlc") / "locks" / "audit.lock"
# v2 (core/tools/aidlc-audit.ts, aidlc-lib.ts): a shard's first line, the event appended, its heading, the clone id.
V2_HEADER = "# AI-DLC Audit Log"
V2_EVENT, V2_HEADING = "DECISION_RECORDED", "Decision Recorded"
CLONE_ID = f"{WORKSPACE}/.aidlc-clone-id"
_CLONE = re.compile(r"[a-z0-9]{1,32}")
PENDING = Path(".aidlc") / "audit-pending.json"
MAX_TEXT = 256 * 1024  # bytes of one text; the reader reads audit logs up to 1 MiB
_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_LINE_BREAK = re.compile("\r\n?|\n|\u2028|\u2029")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class Texts(BaseModel):
    """What an entry says, as given: the stage (a slug of aidlc/aidlc_docs/stages.py, or a heading of its own),
    the person's input verbatim, the agent's response and the context."""

    stage: str
    user_input: str
    ai_response: str
    context: str | None = None


@dataclass
class Appended:
    record: AuditRecord
    seq: int  # the ledger event's
    stage: str | None  # the slug the entry is about, if it names a known stage
    settled: str | None = None  # what the settling of an interrupted append did, if there was one


def append_entry(root: Path, folder: str, texts: Texts, actor: Actor) -> Appended:
    """Append one entry to `folder`/audit.md of the repository at `root` and record it in `folder`'s ledger."""
    heading, slug, fields = _entry_fields(texts)  # the texts checked before anything is opened
    path = _audit_path(root, f"{folder}/{AUDIT_FILE}")
    return _append(root, folder, path, heading, slug, _separator,
                   lambda: _entry(heading, utc_now(), fields).encode("utf-8"), actor)


def entry_text(texts: Texts, now: str) -> str:
    """The entry `append_entry` writes for `texts` with the time `now`, from its heading on; a UsageError for a
    text it refuses."""
    heading, _, fields = _entry_fields(texts)
    return _entry(heading, now, fields)


def _entry_fields(texts: Texts) -> tuple[str, str | None, list[str]]:
    """The entry's heading, the stage it is about, and its lines after the timestamp."""
    heading, slug = heading_of(texts.stage)
    return heading, slug, [f'**User Input**: "{_text("--user-input", texts.user_input)}"',
                           f'**AI Response**: "{_text("--ai-response", texts.ai_response)}"',
                           f"**Context**: {_text('--context', texts.context or _context(heading, slug))}", "", "---",
                           ""]


def _entry(heading: str, now: str, fields: list[str]) -> str:
    return "\n".join([f"## {heading}", f"**Timestamp**: {now}", *fields])


def append_event(root: Path, folder: str, record: str, texts: Texts, actor: Actor) -> Appended:
    """Append one block to this clone's shard of the v2 intent record `record` (audit/<host>-<clone>.md, as v2
    names it: `shard_name`), as v2's audit tool renders a block, and record it in `folder`'s ledger.

    The block is a DECISION_RECORDED event (Stage, User Input, AI Response, Context): the events v2's gates read as
    authority (HUMAN_TURN, GATE_APPROVED, STAGE_COMPLETED, ...) are its hooks' and engine's to write, and its own
    audit CLI refuses them too. A new shard starts with v2's header line."""
    _, slug = heading_of(texts.stage)
    stage = slug or texts.stage.strip()
    fields = [("Stage", stage), ("User Input", _text("--user-input", texts.user_input)),
              ("AI Response", _text("--ai-response", texts.ai_response)),
              ("Context", _text("--context", texts.context or _context(title(slug) if slug else stage, slug)))]
    body = "".join(f"**{key}**: {value}\n" for key, value in fields)
    path = _audit_path(root, f"{record}/audit/{shard_name(root)}")
    return _append(root, folder, path, V2_HEADING, slug, _block_lead, lambda: (
        f"## {V2_HEADING}\n**Timestamp**: {utc_now()}\n**Event**: {V2_EVENT}\n{body}\n---\n").encode(), actor)


def shard_name(root: Path) -> str:
    """This clone's shard file name as v2's auditShardName makes it: the host name, lower case, runs of other
    characters than [a-z0-9-] as one `-`, trimmed of `-`, at most 48 characters (else `host`), `-`, the clone id of
    aidlc/.aidlc-clone-id; minted there as v2 mints it (12 hex characters and a newline) when there is none."""
    host = re.sub(r"[^a-z0-9-]+", "-", socket.gethostname().lower()).strip("-")[:48] or "host"
    path = root / CLONE_ID
    try:
        clone = read_inside(path, root).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        clone = ""
    if not _CLONE.fullmatch(clone):
        clone = uuid.uuid4().hex[:12]
        atomic_write(path, clone + "\n", root)
    return f"{host}-{clone}.md"


def _append(root: Path, folder: str, path: Path, heading: str, slug: str | None, lead: Callable[[int, int], bytes],
            entry_of: Callable[[], bytes], actor: Actor) -> Appended:
    """One entry at the end of the audit file at `path`, under the lock, recorded in `folder`'s ledger (the
    module's steps): `lead` gives what goes before it from the file's descriptor and size, `entry_of` its bytes,
    from its heading on, with the time now."""
    ledger = Ledger.of_bank(root, folder)
    if not ledger.exists():
        raise no_ledger(ledger)
    rel = path.relative_to(root).as_posix()
    with _locked(root):
        settled = _settle(root, ledger, actor)
        _check_ledger(ledger)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = _open(path, rel)
        try:
            size = os.fstat(fd).st_size
            separator = lead(fd, size)
            entry = entry_of()
            record = AuditRecord(path=rel, line=_count_lines(fd, size) + separator.count(b"\n") + 1,
                                 offset=size + len(separator), bytes=len(entry),
                                 sha256=hashlib.sha256(entry).hexdigest(), heading=heading)
            _save_pending(root, size, separator + entry, record, slug)
            _write(fd, separator + entry, size, rel, root)
        finally:
            os.close(fd)
        try:
            event = _record(ledger, actor, record, slug).event
        except LedgerError as exc:
            raise LedgerError(f"{exc.message}; the entry is in {rel} at line {record.line}, and the next "
                              "`aidlc audit append` records it in the ledger", exc.next_steps) from None
        (root / PENDING).unlink()
    return Appended(record=record, seq=event.seq, stage=slug, settled=settled)


def heading_of(stage: str) -> tuple[str, str | None]:
    """(the entry's heading, the slug of the stage it is about): a slug gives its stage's title; other text is the
    heading as written, about the stage it names, if any (never guessed)."""
    stage = stage.strip()
    if not stage or _LINE_BREAK.search(stage) or _CONTROL.search(stage) or len(stage) > 200:
        raise UsageError(f"--stage {stage[:60]!r}: expected a stage slug (e.g. requirements-analysis) or a heading "
                         "of one line, at most 200 characters", ["aidlc audit append --help    # the stage slugs"])
    if stage in BY_SLUG:
        return title(stage), stage
    return stage, stage_of(stage)


def _context(heading: str, slug: str | None) -> str:
    return f"{BY_SLUG[slug].phase.upper()} - {heading}" if slug else heading


def _text(option: str, value: str) -> str:
    """The text written verbatim on its field's line: a line break becomes the two characters `\\n` (as
    aidlc-workflows' own audit tool writes them), so nothing a person typed can end the entry early."""
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{option}: the text is not valid UTF-8; nothing was written",
                         [f"{option} @FILE    # the text from a UTF-8 file"]) from None
    if len(data) > MAX_TEXT:
        raise UsageError(f"{option}: {len(data):,} bytes; an entry's text holds at most {MAX_TEXT:,}; nothing "
                         "was written", ["write the long text to a file in the repository and name it in the entry"])
    if (control := _CONTROL.search(value)) is not None:
        raise UsageError(f"{option}: the text holds the control character {control.group()!r}; nothing was written",
                         [f"{option} @FILE    # the text from a file, without control characters"])
    return _LINE_BREAK.sub(r"\\n", value)


def utc_now() -> str:
    """The time now as audit entries are stamped: UTC, to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _audit_path(root: Path, rel: str) -> Path:
    """The audit file at `rel`, refused when its folder leads outside the repository or the file is a symbolic
    link."""
    folder = rel.rsplit("/", 1)[0]
    top = os.path.realpath(root)
    real = os.path.realpath(root / folder)
    if not (root / rel.split("/", 1)[0]).is_dir():
        raise UsageError(f"no {rel.split('/', 1)[0]}/ folder in {root}",
                         [f"aidlc init {arg(str(root))}    # adopt the project's records"])
    if not real.startswith(top.rstrip(os.sep) + os.sep):
        raise UsageError(f"{folder}/ leads to {real}, outside the repository; nothing was written",
                         [f"replace the link {folder} with the folder itself"])
    path = root / rel
    if path.is_symlink():
        raise UsageError(f"{rel} is a symbolic link; entries are appended only to the file itself, "
                         "nothing was written", [f"ls -la {rel}    # where it leads",
                                                 f"replace the link with the audit log itself: {rel}"])
    return path


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    from aidlc.locking import exclusive  # appending only: reading the audit log takes no lock

    with exclusive(root / LOCK):
        yield


def _check_ledger(ledger: Ledger) -> None:
    """Before the entry is written: a ledger that will not take its event refuses the append (a torn last line
    does not: the ledger's append moves it aside)."""
    state = ledger.state()
    if not state.ok and not state.torn:
        problem = next(p for p in state.problems if p.is_error)
        raise LedgerError(f"{ledger.rel}:{problem.line}: {problem.kind}: {problem.message}; no audit entry is "
                          "written while the ledger that records it does not verify",
                          ["aidlc log verify    # the first problem, in full", f"git log -p -- {arg(ledger.rel)}"])


def _open(path: Path, rel: str) -> int:
    try:
        fd = os.open(path, _FLAGS, 0o644)
    except OSError as exc:
        raise UsageError(f"{rel} cannot be opened for appending: {exc.strerror or exc}; nothing was written",
                         [f"ls -la {rel}    # what is there"]) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"{rel} is not a regular file; nothing was written", [f"ls -la {rel}    # what is there"])
    return fd


def _block_lead(fd: int, size: int) -> bytes:
    """What goes before a v2 block's heading: v2's header line in a new shard, a newline to end a last line that
    lacks one, and the blank line each block begins with."""
    if size == 0:
        return f"{V2_HEADER}\n\n".encode()
    return b"\n" if os.pread(fd, 1, size - 1) == b"\n" else b"\n\n"


def _separator(fd: int, size: int) -> bytes:
    """What goes before the heading: a newline to end a last line that lacks one, and a blank line."""
    if size == 0:
        return b""
    tail = os.pread(fd, 2, max(0, size - 2))
    if not tail.endswith(b"\n"):
        return b"\n\n"
    return b"" if tail == b"\n\n" or size == 1 else b"\n"


def _count_lines(fd: int, size: int) -> int:
    count, at = 0, 0
    while at < size:
        piece = os.pread(fd, min(1 << 20, size - at), at)
        if not piece:
            break
        count += piece.count(b"\n")
        at += len(piece)
    return count


def _save_pending(root: Path, size: int, data: bytes, record: AuditRecord, slug: str | None) -> None:
    pending: dict[str, Any] = {"size": size, "data": data.decode("utf-8"), "stage": slug,
                               "record": record.model_dump(mode="json", exclude_none=True)}
    atomic_write(root / PENDING, json.dumps(pending, ensure_ascii=False) + "\n", root)


def _write(fd: int, data: bytes, size: int, rel: str, root: Path) -> None:
    """One write() and fsync; a short write (a full disk) is cut back at once, so nothing half-written stays."""
    try:
        written = os.write(fd, data)
        if written == len(data):
            os.fsync(fd)
            return
        reason = f"short write ({written} of {len(data)} bytes); disk full?"
    except OSError as exc:
        reason = exc.strerror or str(exc)
    if os.fstat(fd).st_size > size:
        os.ftruncate(fd, size)
        os.fsync(fd)
    (root / PENDING).unlink(missing_ok=True)
    raise AidlcError(f"cannot append to {rel}: {reason}; nothing was written", ["fix the cause, then rerun"])


def _record(ledger: Ledger, actor: Actor, record: AuditRecord, slug: str | None) -> LedgerAppended:
    return ledger.append(EventType.audit_appended, actor, key=f"audit:{record.path}:{record.offset}:{record.sha256}",
                         stage=slug, data=record)


def interrupted_append(root: Path) -> str | None:
    """The audit file an interrupted append was writing to (None: none was; "": one whose record cannot be read)."""
    try:
        record = json.loads(read_inside(root / PENDING, root)).get("record")
        return record["path"] if isinstance(record["path"], str) else ""
    except FileNotFoundError:
        return None
    except (OSError, ValueError, AttributeError, TypeError, KeyError):  # not the JSON `_save_pending` writes
        return ""


def _settle(root: Path, ledger: Ledger, actor: Actor) -> str | None:
    """Finish or undo an append a crash interrupted (see the module's docstring); what was done, or None."""
    pending_path = root / PENDING
    if not pending_path.exists():
        return None
    try:
        pending = json.loads(read_inside(pending_path, root))
        record = AuditRecord.model_validate(pending["record"])
        data, size, slug = pending["data"].encode("utf-8"), int(pending["size"]), pending.get("stage")
    except (OSError, ValueError, KeyError, TypeError, ValidationError):
        raise AidlcError(f"{PENDING} (an interrupted `aidlc audit append`) cannot be read; nothing was written",
                         [f"cat {PENDING}    # compare it with the end of the audit log",
                          f"rm {PENDING}    # once the audit log is as it should be"]) from None
    fd = _open(_audit_path(root, record.path), record.path)
    try:
        now = os.fstat(fd).st_size
        written = os.pread(fd, min(max(now - size, 0), len(data)), size)
        if written == data:  # the entry is whole: the crash came before its event
            done = _record(ledger, actor, record.model_copy(update={"recovered": True}), slug)
            note = (f"the entry at {record.path}:{record.line}, written by an interrupted append, is now recorded "
                    f"(ledger seq {done.event.seq})") if done.recorded else None
        elif now == size + len(written) and data.startswith(written):
            note = None
            if written:
                note = (_left(written, record) if _committed(root, record.path, size) else
                        _cut(root, fd, size, written, record))
        else:
            raise AidlcError(f"{record.path}: an interrupted `aidlc audit append` left its entry unfinished at line "
                             f"{record.line}, and the file changed after it; nothing was written",
                             [f"cat {PENDING}    # what the append was writing, and where",
                              f"rm {PENDING}    # once {record.path} is as it should be"])
    finally:
        os.close(fd)
    pending_path.unlink()
    fsync_folder(pending_path.parent)
    return note


def _committed(root: Path, rel: str, size: int) -> bool:
    """Whether HEAD's audit file holds bytes past `size`: a torn end committed since is history, never cut."""
    history = vcs.history(root)
    if history is None or history.head is None:
        return False
    held = history.read("HEAD", [rel])[rel]
    return held is not None and len(held) > size


def _left(fragment: bytes, record: AuditRecord) -> str:
    return (f"an interrupted append had written {len(fragment)} of its entry's bytes at {record.path}:{record.line}, "
            "and HEAD holds them (committed since): they stay, unfinished, since the audit log only grows; the new "
            "entry follows them")


def _cut(root: Path, fd: int, size: int, fragment: bytes, record: AuditRecord) -> str:
    """Move the torn end of the last append aside (durably, first), then cut it off the file."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    aside = root / ".aidlc" / f"audit-torn-{stamp}.md"
    atomic_write(aside, fragment, root)
    os.ftruncate(fd, size)
    os.fsync(fd)
    return (f"an interrupted append had written {len(fragment)} of its entry's bytes at {record.path}:{record.line}; "
            f"they were moved to {aside.relative_to(root).as_posix()} and cut off the audit log")

