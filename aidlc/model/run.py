"""A bolt run (`aidlc bolt`): its plan, its state and the records of its steps (docs/design.md, The bolt).

`.aidlc/runs/<run-id>/state.json` holds one `RunState`, rewritten atomically after every
transition; `trace.jsonl` beside it holds one `Span` a line. A plan is what the model proposes
at PLANNING (through the structured-output layer) and a person approves at the plan gate.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypedDict

from aidlc.model.checks import VerifyRound
from aidlc.model.types import Risk
from aidlc.names import segment_problem


class RunStatus(StrEnum):
    init = "INIT"
    planning = "PLANNING"
    await_plan_approval = "AWAIT_PLAN_APPROVAL"
    executing = "EXECUTING"
    verifying = "VERIFYING"
    repairing = "REPAIRING"
    walkthrough = "WALKTHROUGH"
    await_acceptance = "AWAIT_ACCEPTANCE"
    completed = "COMPLETED"
    failed = "FAILED"
    cancelled = "CANCELLED"


TERMINAL = frozenset({RunStatus.completed, RunStatus.failed, RunStatus.cancelled})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Kept(BaseModel):
    """A record of state.json: only as aidlc writes it (a count written as text, or a flag as a number, is not)."""

    model_config = ConfigDict(extra="forbid", strict=True)


# -- the plan: what the model answers at PLANNING ------------------------------------------------------------------
class PlannedFile(_Strict):
    path: str = Field(description="relative to the repository root, POSIX separators")
    action: Literal["create", "modify", "delete"]
    reason: str
    stories: list[str] = Field(default_factory=list, description="ids of the bolt's stories this file serves; "
                               "empty: all of them (as in plans recorded before the field existed)")


class PlannedTest(_Strict):
    command: str | None = Field(default=None, description="a command that runs tests")
    path: str | None = Field(default=None, description="a test file to add or run")
    purpose: str

    @model_validator(mode="after")
    def _command_or_path(self) -> PlannedTest:
        if not (self.command or self.path):
            raise ValueError("a test needs a command or a path")
        return self


class Plan(_Strict):
    """An implementation plan: the files to change and why, the tests, the risks and the way back."""

    summary: str
    files: list[PlannedFile] = Field(min_length=1)
    tests: list[PlannedTest]
    risks: list[str]
    rollback: str
    risk_level: Risk | None = Field(default=None, description="the model's estimate of the change's risk")


# -- the run ---------------------------------------------------------------------------------------------------------
# What state.json may hold, as aidlc writes it: a count is a whole number from 0, a duration a finite one from 0, a
# commit a full hash (it reaches git as a revision: never an option), a run id a folder name. A state.json edited by
# hand, or by code a check ran, that holds anything else is refused with its file named (RunStore.load).
Count = Annotated[int, Field(ge=0, le=2**63 - 1)]  # what a 64-bit counter holds: never past a float
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
CommitHash = Annotated[str, Field(pattern=r"^([0-9a-f]{40}|[0-9a-f]{64})$")]
# A branch as git allows one (no space, no ~^:?*[\), never an option.
Branch = Annotated[str, Field(pattern=r"^[^-\x00-\x20\x7f~^:?*\[\\][^\x00-\x20\x7f~^:?*\[\\]*$")]
RunId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")]


def _one_file_name(value: str) -> str:
    problem = segment_problem(value)
    if problem:
        raise ValueError(f"{value!r} {problem}: it must be one file or folder name")
    return value


FileName = Annotated[str, AfterValidator(_one_file_name)]


class Budget(_Kept):
    """What the run has used: model calls, tokens, and seconds of work (time paused for a person not counted)."""

    steps: Count = 0
    tokens: Count = 0
    elapsed_s: Seconds = 0.0
    warned: bool = False  # the 70% warning was given


class Step(_Kept):
    """One model call and what came of it."""

    index: Count
    stage: str  # plan-1.1, execute, repair-1, walkthrough; in a rework round rework-1.execute, ...
    kind: Literal["plan", "edit"]
    model: str = ""
    tokens: Count = 0
    elapsed_s: Seconds = 0.0
    request_sha256: str = ""
    answer_sha256: str = ""
    error: str | None = None
    result: str | None = None  # what the code did with the answer: "committed abc123", "refused: ..."


class Pending(_Kept):
    """An Execute/Repair step whose answer is saved but whose commit may not exist yet: resume redoes it
    from the saved answer (never asking the model again) unless the commit is found by its trailers. The answer is
    applied only as its `edits.proposed` event in the ledger recorded it (aidlc.bolt.guards.check_pending)."""

    stage: str
    answer_file: FileName  # in the run's folder, never a path leading out of it
    whole_file: bool = False
    answer: int | None = Field(default=None, ge=1, description="the answer's number among the step's answers: its "
                               "edits.proposed event's key ends in it (None: saved by an aidlc that recorded none)")


class Pause(_Kept):
    kind: Literal["plan_gate", "walkthrough_gate", "risk", "provider", "interrupted"]
    reason: str


class StepCommit(TypedDict):
    """The commit of one Execute or Repair step."""

    stage: str
    commit: CommitHash


# Verifying and repairing, a run has committed its execute step: its commit and the digest of its tree are kept (a
# walkthrough may follow a failure before any commit).
_COMMITTED = frozenset({RunStatus.verifying, RunStatus.repairing})


class RunState(_Kept):
    v: Literal[1] = 1
    run_id: RunId
    bolt: FileName = Field(description="the bolt's id: its folder's name (it names the run's lock file and branch)")
    goal: str
    status: RunStatus = RunStatus.init
    created: str
    updated: str
    branch: Branch
    start_branch: Branch | None = None  # what was checked out when the run started
    base_commit: CommitHash
    last_commit: CommitHash
    model: str = ""
    plan: Plan | None = None
    plan_hash: str | None = Field(default=None, description="sha256 of implementation-plan.md as rendered")
    plan_rounds: Count = 0
    rejections: list[str] = Field(default_factory=list, description="reasons the plan gate gave, in order")
    reworks: list[str] = Field(default_factory=list, description="reasons the walkthrough gate gave, in order: each "
                               "sent the work back to a new plan (a rework round)")
    steps: list[Step] = Field(default_factory=list)
    budget: Budget = Field(default_factory=Budget)
    pending: Pending | None = None
    check_group: int | None = Field(default=None, ge=2, le=2**31 - 1, description="process group of the check last "
                                    "started; a resume or abort ends it if a killed aidlc left it running")
    repairs: Count = 0
    format_failures: Count = 0
    whole_file: bool = False
    checks: list[VerifyRound] = Field(default_factory=list, description="each verify round: stage, commit, results")
    failures: list[str] = Field(default_factory=list, description="signature of each failing verify round")
    trees: list[str] = Field(default_factory=list, description="digest of the planned files at each step's commit")
    commits: list[StepCommit] = Field(default_factory=list, description="stage, commit, for each step")
    touched: list[str] = Field(default_factory=list, description="files the run's edits wrote")
    risks: list[str] = Field(default_factory=list, description="what the run flagged for a person")
    accepted_risks: list[str] = Field(default_factory=list)
    pause: Pause | None = None
    pauses: Count = 0
    outcome: str | None = Field(default=None, description="why the run ended as it did")
    warnings: list[str] = Field(default_factory=list)
    calls: list[str] = Field(default_factory=list, description="request digests, for the loop detector")
    answers: list[str] = Field(default_factory=list, description="answer digests, for the loop detector")
    errors_in_row: Count = 0

    @model_validator(mode="after")
    def _committed(self) -> RunState:
        if self.status in _COMMITTED and not (self.commits and self.trees):
            raise ValueError(f"a run at {self.status.value} has committed its execute step, but no commit or tree "
                             "of it is recorded")
        return self

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


class Span(_Strict):
    """One line of trace.jsonl."""

    ts: str
    kind: Literal["llm_call", "tool_call", "edit", "check", "state_transition", "error", "degradation", "warning",
                  "decision"]
    name: str
    status: str | None = None
    duration_s: float | None = None
    tokens: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)
