"""`aidlc ci`: its JSON document and the baseline file (.aidlc-baseline.json) of a brownfield bank."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from aidlc.model.findings import Finding
from aidlc.model.status import GateStatus
from aidlc.model.types import Severity


class CiFinding(Finding):
    fingerprint: str = Field(description="code, path and message without line numbers, hashed: stays the same when "
                             "lines move")
    baseline: Literal["new", "known"] = Field(default="new", description="known: in the baseline, does not fail")


class BaselineEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str
    severity: Severity
    path: str
    fingerprint: str
    message: str = Field(description="for a reader; the fingerprint is what is compared")


class Baseline(BaseModel):
    """The findings a bank had when the baseline was written: known ones do not fail `aidlc ci`."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    findings: list[BaselineEntry]


class CiSummary(BaseModel):
    files: int
    errors: int = Field(description="errors not in the baseline")
    warnings: int = Field(description="warnings not in the baseline")
    infos: int = 0
    adopted: int = Field(default=0, description="of the warnings not in the baseline, those that are adopted history "
                         "(the finding's `adopted` names the commit)")
    known: int = Field(default=0, description="findings the baseline holds (they do not fail)")
    fixed: int = Field(default=0, description="baseline findings no longer found")


class AddedDecision(BaseModel):
    """A gate decision the pull request adds to the ledger: a reviewer reads them all here, whatever the diff
    shows of the ledger."""

    path: str = Field(description="the ledger, relative to the project")
    line: int = Field(description="its line in the ledger HEAD holds")
    decision: str = Field(description="`seq 7: bolt 001-x walkthrough (approve) by Ada <ada@x.org>`")
    actor_kind: str = Field(description="human, agent, ci or policy")
    signed: bool = Field(description="whether the decision carries a signature (whether it verifies is a rule's)")
    commit: str | None = Field(description="the commit that added it (12 hex digits); null: none of the pull "
                               "request's commits is found to (the base kept its ledger elsewhere)")


class LoggedApproval(BaseModel):
    """An audit entry the pull request adds on which a ticked stage stands as its approval (aidlc-docs layout)."""

    path: str = Field(description="the audit log, relative to the project")
    line: int = Field(description="the entry's first line")
    stages: list[str] = Field(description="what it is read as approving: `Build and Test`, `Code Generation of unit "
                              "payments`")
    said: str = Field(description="the person's words as the entry logs them (User Input), cut to 200 characters")


class CiReport(BaseModel):
    version: int = 1
    root: str
    base: str | None = Field(description="the base commit; null: the checks that need no base only")
    checks: list[str] = Field(description="what ran: validate, rules-from-base, ledger-against-base, "
                              "approval-authorship, pull-request-scope")
    baseline: str | None = Field(default=None, description="the baseline file applied, relative to the root")
    prefix: str = Field(default="", description="the project's folder in the Git repository, ending in '/' ('' at "
                        "its top): GitHub annotations and SARIF locations, relative to the repository, start with it")
    passed: bool
    findings: list[CiFinding]
    fixed: list[BaselineEntry] = Field(default_factory=list)
    waiting: list[GateStatus] = Field(default_factory=list, description="subjects whose next gate waits for a "
                                      "person's decision: reported, never a failure (only a person decides)")
    decisions: list[AddedDecision] = Field(default_factory=list, description="with a base: the gate decisions the "
                                           "pull request adds to the ledger, in its order")
    logged_approvals: list[LoggedApproval] = Field(default_factory=list, description="with a base, on the aidlc-docs "
                                                   "layout: the audit entries the pull request adds that ticked "
                                                   "stages stand on as their approvals")
    summary: CiSummary
