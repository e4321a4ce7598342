"""The evidence report of a bolt (`aidlc walkthrough BOLT --format json`): what a person approves at the
walkthrough gate, every field from a fact of the repository (git, the ledger, check results), none from a
model's say-so. The one model-written part, the review of a high-risk change, is labelled as the model's.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from aidlc.model.checks import TestCounts
from aidlc.model.types import Risk


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Criterion(_Strict):
    text: str
    checked: bool


class StoryTrace(_Strict):
    id: str
    path: str
    requirements: list[str]
    criteria: list[Criterion]


class RequirementTrace(_Strict):
    id: str
    title: str


class Traceability(_Strict):
    intent: str | None
    requirements: list[RequirementTrace]
    stories: list[StoryTrace]
    bolt: str
    commits: list[str] = Field(description="short sha of each of the bolt's commits, oldest first")
    checks: list[str] = Field(description="the names of the checks recorded for the bolt")


class Commit(_Strict):
    sha: str
    short: str
    subject: str
    author: str
    email: str
    date: str
    trailers: dict[str, str]


class FileChangeLine(_Strict):
    path: str
    status: str = Field(description="git's letter: A added, M modified, D deleted, R renamed")
    added: int | None = Field(description="lines added; None for a binary file")
    removed: int | None
    reason: str | None = Field(description="the plan's reason for this file; None when the plan does not name it")
    stories: list[str] = Field(description="ids of the bolt's stories the file serves")
    stories_from: Literal["plan", "bolt"] = Field(description="plan: the plan names the file's stories; bolt: all "
                                                  "of the bolt's stories (the plan names none for the file, or does "
                                                  "not name the file)")
    requirements: list[str] = Field(description="the requirements those stories link to, in order, once each")


class Deviation(_Strict):
    path: str
    kind: Literal["unplanned", "untouched", "verify-changed", "check-silenced"] = Field(
        description="unplanned: changed, not in the approved plan; untouched: in the plan, never changed; "
                    "verify-changed: the bolt's own commits changed what decides whether it passes (aidlc.yaml's "
                    "verify commands, a file one of them runs, the settings of a tool it runs); check-silenced: "
                    "lines added since the bolt's base that silence a check (`noqa`, `eslint-disable`)")
    detail: str | None = Field(default=None, description="verify-changed: the commits and what they changed; "
                                                          "check-silenced: the lines, with their numbers at the head")


class CheckRun(_Strict):
    commit: str
    passed: bool
    exit_code: int | None
    duration_ms: int | None
    seq: int | None = Field(description="the check.recorded event's seq")


class Check(_Strict):
    name: str
    command: str
    current: bool = Field(description="its latest result was recorded for the code at the report's head")
    passed: bool
    exit_code: int | None
    tests: TestCounts | None
    excerpt: str | None = Field(description="the head and tail of a failing check's output, where known")
    history: list[CheckRun]


class VerificationItem(_Strict):
    id: Literal["checks", "verify-unchanged", "independent-tests", "model-review", "second-reviewer",
                "two-approvals"]
    requirement: str
    satisfied: bool
    detail: str
    at_gate: bool = Field(default=False, description="met by the gate decisions themselves (people), after the "
                          "report: never satisfied in it, and left out of `satisfied`")


class ModelConcern(_Strict):
    path: str | None = None
    concern: str


class ModelReview(_Strict):
    """Candidate concerns a model listed about the diff: the model's words, not findings of fact."""

    model: str
    commit: str
    concerns: list[ModelConcern]
    event_seq: int | None = None


class Verification(_Strict):
    risk: Risk | None
    required: list[str]
    achieved: list[str]
    satisfied: bool = Field(description="every item that can be met before the gate is met")
    items: list[VerificationItem]
    independent_tests: list[str] = Field(description="JUnit cases (FILE::NAME) that ran and passed in test files "
                                         "that count as independent; the files themselves where no check writes a "
                                         "JUnit report (see the independent-tests item's detail)")
    bolt_tests: list[str] = Field(description="test files the bolt's own commits wrote last: not independent")
    removed_tests: list[str] = Field(default_factory=list, description="test files at the bolt's base that its own "
                                     "commits deleted (or moved away): no independent test can stand in for them")
    model_review: ModelReview | None = None

    def tests_by_file(self) -> list[tuple[str, int]]:
        """The independent tests counted per test file, most first: what a report shows in place of every case
        (hundreds of names are no reading; the JSON keeps each one)."""
        counts = Counter(name.split("::", 1)[0] for name in self.independent_tests)
        return sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))


class Cost(_Strict):
    """What the bolt's runs spent. The ledger records no model call, only what a run had spent at each of its events:
    the calls and tokens are the runs' own record (state.json), never fewer than their events recorded."""

    runs: list[str]
    model_calls: int = Field(description="the runs' own record, never fewer than their ledger events recorded")
    tokens: int = Field(description="the runs' own record, never fewer than their ledger events recorded")
    repairs: int = Field(description="repair steps the runs committed, as their edits.committed events record them")
    wall_time_s: float = Field(description="seconds of work, the runs' own record (state.json)")


class RunRecord(_Strict):
    """The bolt's latest run of `aidlc bolt`, as its ledger events record it: state.json, which code a check ran can
    rewrite, is the run's own record, and where it says otherwise a note says so."""

    id: str
    branch: str | None = Field(description="the branch its run.started event recorded")
    model: str | None = Field(description="the model its first plan.proposed event recorded; None: the ledger names "
                              "none (the report shows state.json's, as the run's own record)")
    status: str | None = Field(description="COMPLETED, FAILED or CANCELLED, as its run.finished event recorded; None: "
                               "the ledger records no end of it")
    outcome: str | None = Field(description="why it ended so, as its run.finished event recorded")


class TimelineEntry(_Strict):
    seq: int
    ts: str
    type: str
    actor: str
    stage: str | None = None
    decision: str | None = None
    detail: str | None = None


class Decision(_Strict):
    gate: str
    who: str
    approvals_needed: int = Field(description="distinct people whose approvals complete the bolt")
    command: str


class EvidenceReport(_Strict):
    version: Literal[1] = 1
    bolt: str
    risk: Risk | None
    base: str = Field(description="the parent of the bolt's first commit")
    head: str = Field(description="the bolt's newest commit that changed files outside the memory bank")
    traceability: Traceability
    changes: list[FileChangeLine]
    deviations: list[Deviation]
    checks: list[Check]
    commits: list[Commit]
    verification: Verification
    risks: list[str]
    rollback: list[str] = Field(description="git revert commands, newest commit first")
    timeline: list[TimelineEntry]
    cost: Cost | None
    run: RunRecord | None = None
    decision: Decision
    notes: list[str] = Field(default_factory=list, description="what could not be established, and why")
