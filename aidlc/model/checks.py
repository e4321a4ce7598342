"""What a verify command found (docs/design.md, The bolt: Checks are aidlc's, not the model's): one check's result,
the test counts it reported, and a run's verify round (the results of every check at one of its commits), as
state.json keeps them."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field


class TestCounts(BaseModel):
    __test__: ClassVar[bool] = False  # a model, not a pytest test class

    total: int = Field(ge=0)
    failures: int = Field(ge=0)
    errors: int = Field(ge=0)
    skipped: int = Field(ge=0)


class CheckResult(BaseModel):
    name: str
    command: str
    exit_code: int | None = None  # None: it never started, or it was killed at its timeout
    passed: bool
    timed_out: bool
    duration_s: float
    head: str
    tail: str  # empty when `head` holds the whole output
    output_sha256: str  # of every byte the check printed
    output_bytes: int
    omitted_bytes: int  # between head and tail
    tests: TestCounts | None = None  # from JUnit XML when the check sets `junit`, else from the runner's closing line
    notes: list[str] = []  # why it did not start, why its JUnit report was not read, ...

    def excerpt(self) -> str:
        """Head and tail with what lies between them counted, then the notes (why a check that exited 0 failed):
        the output as a model or a person sees it."""
        text = self.head + self.tail if not self.omitted_bytes else \
            f"{self.head}\n[... {self.omitted_bytes:,} bytes of output omitted ...]\n{self.tail}"
        return text + "".join(f"\n[aidlc] {note}" for note in self.notes)

    def summary(self) -> str:
        """One line: `tests: failed (exit 1) in 2.31 s; 12 tests, 1 failure, 0 errors, 0 skipped`."""
        if self.timed_out:
            verdict = "timed out"
        elif self.exit_code is None:
            verdict = "did not start"
        else:
            verdict = f"{'passed' if self.passed else 'failed'} (exit {self.exit_code})"
        line = f"{self.name}: {verdict} in {self.duration_s:.2f} s"
        if self.tests is not None:
            t = self.tests
            line += f"; {t.total} tests, {t.failures} failures, {t.errors} errors, {t.skipped} skipped"
        return line


class VerifyRound(BaseModel):
    """The verify commands run once at a commit of a run: `RunState.checks` holds one per round."""

    model_config = ConfigDict(extra="forbid")

    stage: str  # the step whose commit was checked: execute, repair-1, rework-1.execute, ...
    commit: str
    results: list[CheckResult]

    def failing(self) -> list[CheckResult]:
        return [result for result in self.results if not result.passed]
