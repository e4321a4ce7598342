"""The ledger event: one line of memory-bank/events.jsonl (docs/design.md, The ledger)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from aidlc.model.checks import TestCounts

GENESIS = "0" * 64


class EventType(StrEnum):
    ledger_created = "ledger.created"
    gate_decided = "gate.decided"
    check_recorded = "check.recorded"
    run_started = "run.started"
    run_paused = "run.paused"
    run_resumed = "run.resumed"
    run_finished = "run.finished"
    breaker_tripped = "breaker.tripped"
    degraded = "degraded"
    ledger_tail_recovered = "ledger.tail_recovered"
    draft_proposed = "draft.proposed"
    plan_proposed = "plan.proposed"
    edits_proposed = "edits.proposed"  # a model's answer to an Execute/Repair step (its digest), before it is applied
    edits_committed = "edits.committed"
    walkthrough_proposed = "walkthrough.proposed"
    review_recorded = "review.recorded"  # a model's candidate concerns about a bolt's diff (digests, counts)
    audit_appended = "audit.appended"  # an entry `aidlc audit append` wrote to aidlc-docs' audit.md (AuditRecord)


class Decision(StrEnum):
    approve = "approve"
    reject = "reject"
    escalate = "escalate"
    defer = "defer"


class ActorKind(StrEnum):
    human = "human"
    agent = "agent"
    ci = "ci"
    policy = "policy"  # a rule of aidlc.yaml deciding for people (policy.auto_approve_plan), never a person


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Actor(_Strict):
    kind: ActorKind
    name: str
    email: str | None = None


class Subject(_Strict):
    kind: Literal["intent", "bolt", "release", "ledger", "policy", "phase", "unit"] = Field(
        description="phase and unit: a subject of the aidlc-docs layout (its inception or construction; a unit folder)")
    id: str


class FileDigest(_Strict):
    path: str = Field(description="path relative to the repo root, POSIX separators")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class Signature(_Strict):
    """An SSH signature of a human decision (`ssh-keygen -Y sign -n aidlc`) over the event's canonical bytes
    without `hash` and without `signature` itself; checked against memory-bank/allowed_signers."""

    format: Literal["ssh"] = "ssh"
    namespace: Literal["aidlc"] = "aidlc"
    sig: str = Field(pattern=r"^[A-Za-z0-9+/]+={0,2}$",
                     description="the SSHSIG blob in base64: the armored signature without its BEGIN/END lines")


class Event(_Strict):
    """Fields are omitted from the line when None; `hash` covers every other field."""

    v: Literal[1] = 1
    seq: int = Field(ge=1)
    id: str = Field(pattern=r"^evt_[0-9a-z]+$")
    ts: str = Field(description="ISO 8601 UTC, e.g. 2026-11-30T08:00:00Z")
    type: EventType
    actor: Actor
    subject: Subject | None = None
    stage: str | None = None
    decision: Decision | None = None
    reason: str | None = None
    fingerprint: FileDigest | None = None
    evidence: list[FileDigest] | None = None
    commit: str | None = None
    run: str | None = None
    key: str | None = None
    data: dict[str, Any] | None = Field(default=None, description="type-specific details, e.g. a check's result "
                                        "(check.recorded: each detail of CheckData's that it holds, of that type)")
    signature: Signature | None = None
    prev: str = Field(pattern=r"^[0-9a-f]{64}$")
    hash: str = Field(pattern=r"^[0-9a-f]{64}$")

    @field_validator("data")
    @classmethod
    def _typed_data(cls, data: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        """A check result's details are of the types aidlc writes them in (CheckData), so that every reader can trust
        them: a line whose `passed` is "yes" or whose test count is "many" holds no event (AIDLC-LEDGER-018)."""
        if data is not None and info.data.get("type") == EventType.check_recorded:
            try:
                CheckData.model_validate(data, strict=True)  # strict throughout: the test counts too
            except ValidationError as exc:
                error = exc.errors(include_url=False)[0]
                raise PydanticCustomError("check_data", "a check result's {field}: {problem}", {
                    "field": ".".join(map(str, error["loc"])), "problem": error["msg"].lower()}) from None
        return data

    def datum(self, name: str) -> Any:
        """One of the type-specific details in `data` (None when the event has no such detail)."""
        return self.data.get(name) if self.data is not None else None


class AuditRecord(_Strict):
    """The `data` of an `audit.appended` event: where an entry of an aidlc-docs audit log stands and the digest of
    its exact bytes, so an edit or a deletion is caught even where git history was rewritten."""

    path: str = Field(description="the audit log, relative to the repo root, POSIX separators")
    line: int = Field(ge=1, description="the entry's first line (its `## ` heading)")
    offset: int = Field(ge=0, description="the byte offset of that line in the file")
    bytes: int = Field(ge=1, description="the entry's length in bytes, its final newline included")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="of the entry's exact bytes")
    heading: str = Field(description="the entry's heading, without `## `")
    recovered: bool | None = Field(default=None, description="recorded by the next append: the one that wrote the "
                                   "entry was interrupted before it recorded it")


class CheckData(BaseModel):
    """The `data` of a `check.recorded` event, as `bolt.checks.check_event` writes it. A detail may be absent (an
    earlier version left it out); one that is there has the type aidlc writes it in, which `Event` holds every
    check.recorded line to. Other details are kept and not read."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None
    command: str | None = None
    exit_code: int | None = None
    passed: bool | None = None
    timed_out: bool | None = None
    duration_ms: int | None = Field(default=None, ge=0)
    tests: TestCounts | None = None
    output_sha256: str | None = None
    output_bytes: int | None = Field(default=None, ge=0)


class Spent(_Strict):
    """`data.spent` of each event a run of `aidlc bolt` appends (check.recorded aside): the model calls and tokens the
    run had spent by then. A run never spends less later, so a state.json counting fewer was not written by it."""

    steps: int = Field(ge=0)
    tokens: int = Field(ge=0)


def most_spent(events: Iterable[Event], run: str) -> tuple[Spent, int] | None:
    """The most run `run`'s events recorded it had spent (each count its highest), and the seq of the event that
    recorded the latest of them; None when none of them records it (a run of an earlier aidlc)."""
    found = None
    for event in events:
        try:
            spent = Spent.model_validate(event.datum("spent"), strict=True) if event.run == run else None
        except ValidationError:  # not as aidlc writes it: recorded by nothing that counts
            spent = None
        if spent is not None:
            most = found[0] if found else spent
            found = Spent(steps=max(most.steps, spent.steps), tokens=max(most.tokens, spent.tokens)), event.seq
    return found


class CheckRecord(BaseModel):
    """One check's result as a `check.recorded` event holds it (its `data`, as `bolt.checks.check_event` writes it,
    with the event's commit, time and seq), or as a caller ran the check itself just now (aidlc ci: no seq, no
    time). The evidence report reads checks only in this form."""

    name: str
    command: str = ""
    commit: str | None = None
    passed: bool = False
    exit_code: int | None = None
    duration_ms: int | None = None
    tests: TestCounts | None = None
    seq: int | None = None
    ts: str | None = None

    @classmethod
    def of_event(cls, event: Event) -> CheckRecord:
        """The record of a `check.recorded` event (a detail absent where an earlier version left it out; each one there
        of its type: see CheckData)."""
        return cls(name=str(event.datum("name")), command=str(event.datum("command") or ""), commit=event.commit,
                   passed=bool(event.datum("passed")), exit_code=event.datum("exit_code"),
                   duration_ms=event.datum("duration_ms"), tests=event.datum("tests"), seq=event.seq, ts=event.ts)
