"""Validation findings and the JSON document `aidlc validate --format json` prints."""

from __future__ import annotations

from pydantic import BaseModel, Field

from aidlc.model.types import Severity


class Finding(BaseModel):
    code: str = Field(description="stable rule code, e.g. AIDLC-REF-001")
    severity: Severity
    path: str = Field(description="file path relative to the repo root, POSIX separators")
    line: int | None = Field(default=None, ge=1)
    message: str
    fix: str
    adopted: str | None = Field(default=None, description="adopted history: the last commit before the ledger's "
                                "first event, which already shows this completion, its file unchanged since; such a "
                                "finding is a warning (which fails under --strict) until the file changes")

    def sort_key(self) -> tuple[str, int, str, str]:
        # The message last: findings at one place come out in one order, whatever order the rules found them in.
        return (self.path, self.line or 0, self.code, self.message)


class Summary(BaseModel):
    files: int
    errors: int
    warnings: int
    infos: int = 0
    adopted: int = Field(default=0, description="of the warnings, those that are adopted history (the finding's "
                         "`adopted` names the commit)")


class ValidationReport(BaseModel):
    version: int = 1
    root: str
    findings: list[Finding]
    summary: Summary
