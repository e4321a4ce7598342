"""The evidence report of a unit's code generation on the aidlc-docs layout (`aidlc walkthrough UNIT --format json`):
its plan, the commits that changed its code, the checks at HEAD, the approvals and the findings about the unit. The
bolt's report (aidlc/model/evidence.py) lends its commit and check records.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from aidlc.model import evidence as ev
from aidlc.model.findings import Finding


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlanStep(_Strict):
    line: int
    done: bool
    text: str = Field(description="the step after its checkbox, as one line")


class UnitPlan(_Strict):
    path: str = Field(description="the unit's code-generation plan, relative to the repository")
    steps: list[PlanStep]
    done: int
    open: int


class UnitCommit(_Strict):
    commit: ev.Commit
    found_by: list[Literal["path", "message"]] = Field(
        description="path: it changed a path the unit's code summary or plan names; message: its subject or its "
                    "`Aidlc-Unit` trailer names the unit's folder")
    paths: list[str] = Field(description="the files it changed outside the docs folder")


class SilencedLines(_Strict):
    """Lines one of the unit's commits added that silence a check (a `noqa`, an `eslint-disable`)."""

    path: str
    commit: str = Field(description="the commit that added them, abbreviated")
    lines: list[str] = Field(description="each as `NUMBER: TEXT`, its number in that commit, as one line")


class GateDecision(_Strict):
    seq: int
    ts: str
    stage: str
    decision: str
    actor: str
    reason: str | None = None
    current: bool = Field(description="an approval whose judged files are unchanged since (not stale); other "
                          "decisions: false")


class AuditApproval(_Strict):
    """An approval audit.md records: history a person cannot be shown to have given, never a gate decision."""

    path: str
    line: int
    stage: str
    timestamp: str | None
    heading: str | None
    user_input: str = Field(description="the person's words as the entry logs them, as one line")


class UnitEvidenceReport(_Strict):
    version: Literal[1] = 1
    unit: str = Field(description="the unit's folder under construction/; of a v2 intent record, SPACE/INTENT/UNIT")
    docs: str = Field(description="the docs folder, e.g. aidlc-docs; or the v2 intent record's folder")
    head: str = Field(description="HEAD's commit when the report was made")
    plan: UnitPlan | None
    code_paths: list[str] = Field(description="the paths outside the docs the unit's code summary or plan names "
                                  "that exist at HEAD: a commit touching one counts as the unit's")
    commits: list[UnitCommit] = Field(description="oldest first")
    silenced: list[SilencedLines] = Field(default_factory=list, description="the lines the unit's commits added that "
                                          "silence a check (aidlc/bolt/suppressions.py): for the reader to weigh")
    checks: list[ev.Check]
    checks_passed: bool = Field(description="at least one check was recorded for HEAD's code and all of those passed")
    decisions: list[GateDecision] = Field(description="the ledger's gate decisions on the unit's stages, in order")
    audit_approvals: list[AuditApproval] = Field(description="approvals of the unit's stages audit.md records: "
                                                 "history only")
    findings: list[Finding] = Field(description="the findings of the aidlc-docs rules about the unit")
    satisfied: bool = Field(description="the checks passed and no error finding concerns the unit")
    notes: list[str] = Field(default_factory=list, description="what could not be established, and why")
