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

    def sort_key(self) -> tuple[str, int, str]:
        return (self.path, self.line or 0, self.code)


class Summary(BaseModel):
    files: int
    errors: int
    warnings: int
    infos: int = 0


class ValidationReport(BaseModel):
    version: int = 1
    root: str
    findings: list[Finding]
    summary: Summary
