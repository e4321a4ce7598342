"""How many tests a check ran, from the runner itself: its JUnit XML report when the check sets `junit`
(an untrusted file: read inside the repository, bounded, without DTD or entities, refused when stale), else the
closing line the runner printed (pytest, unittest, a plain `N passed, N failed`). docs/design.md, The bolt:
Checks are aidlc's, not the model's."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from aidlc.model.checks import TestCounts
from aidlc.names import id_number

MAX_JUNIT_BYTES = 64 * 1024 * 1024


# The closing lines of the test runners aidlc reads a count from when no JUnit report is configured:
# pytest's "===== 3 passed, 1 skipped in 0.12s =====" (without the rules under -q) and unittest's
# "Ran 4 tests in 0.001s" then "OK (skipped=1)".
_PYTEST_CLOSING = re.compile(r"^(?:=+ )?(?P<counts>\d+ [a-z]+(?:, \d+ [a-z]+)*) in [\d.]+s", re.MULTILINE | re.ASCII)
# and a plain "3 passed, 0 failed" (", 1 skipped" may follow) alone on a line, as a hand-written check prints it.
_PLAIN_CLOSING = re.compile(r"^(?P<passed>\d+) passed, (?P<failed>\d+) failed(?:, (?P<skipped>\d+) skipped)?$",
                            re.MULTILINE | re.ASCII)
_UNITTEST_RAN = re.compile(r"^Ran (?P<total>\d+) tests? in [\d.]+s\n+(?P<verdict>OK|FAILED)(?: \((?P<detail>[^)]*)\))?",
                           re.MULTILINE | re.ASCII)
MAX_COUNT_DIGITS = 12  # a count longer than this is no runner's: the check's own output, read as no count


def _count(text: str) -> int | None:
    """A count as a runner writes it (ASCII digits, at most MAX_COUNT_DIGITS), else None. The output and the report
    are the checked code's to write: `failures=abc` or a superscript digit is no count, and must not stop aidlc."""
    return id_number(text.strip(), MAX_COUNT_DIGITS)


def _counts(texts: Iterable[str]) -> list[int] | None:
    """Each text as a count, or None when one of them is none."""
    numbers = []
    for text in texts:
        number = _count(text)
        if number is None:
            return None
        numbers.append(number)
    return numbers


def runner_counts(output: str) -> TestCounts | None:
    """The test counts a runner printed in its closing line (unittest's first, then a plain `N passed, N failed`, then
    pytest's; of each, the last); None when it printed none. What a check without a JUnit report offers as evidence
    that tests ran. A line with a number that is no count (`_count`) is no closing line."""
    for reader in (_unittest_counts, _plain_counts, _pytest_counts):
        found = reader(output)
        if found is not None:
            return found
    return None


def _pytest_counts(output: str) -> TestCounts | None:
    found = None
    for match in _PYTEST_CLOSING.finditer(output):
        pairs = [part.split(" ", 1) for part in match.group("counts").split(", ")]
        numbers = _counts(number for number, _ in pairs)
        if numbers is None:
            continue
        counts = {word: number for (_, word), number in zip(pairs, numbers, strict=True)}
        failures, errors = counts.get("failed", 0), counts.get("errors", counts.get("error", 0))
        skipped = counts.get("skipped", 0) + counts.get("deselected", 0) + counts.get("xfailed", 0)
        total = counts.get("passed", 0) + failures + errors + skipped + counts.get("xpassed", 0)
        found = TestCounts(total=total, failures=failures, errors=errors, skipped=skipped)
    return found


def _plain_counts(output: str) -> TestCounts | None:
    found = None
    for match in _PLAIN_CLOSING.finditer(output):
        numbers = _counts(match.group(key) or "0" for key in ("passed", "failed", "skipped"))
        if numbers is not None:
            passed, failed, skipped = numbers
            found = TestCounts(total=passed + failed + skipped, failures=failed, errors=0, skipped=skipped)
    return found


def _unittest_counts(output: str) -> TestCounts | None:
    found = None
    for match in _UNITTEST_RAN.finditer(output):
        detail = dict(part.split("=", 1) for part in (match.group("detail") or "").split(", ") if "=" in part)
        kinds = (detail.get(kind, "0") for kind in ("failures", "errors", "skipped"))
        numbers = _counts([match.group("total"), *kinds])
        if numbers is not None:
            total, failures, errors, skipped = numbers
            found = TestCounts(total=total, failures=failures, errors=errors, skipped=skipped)
    return found


# -- JUnit XML ----------------------------------------------------------------------------------------------------

def _junit_path(repo_root: Path, junit: str) -> Path | None:
    """The report's real path when it lies inside the repository (symbolic links resolved), else None."""
    root = repo_root.resolve()
    path = (root / junit).resolve()
    return path if path.is_relative_to(root) and path != root else None


def junit_identity(repo_root: Path, junit: str) -> tuple[int, int, int, int] | None:
    """What tells a report written by this run from one left by an earlier run."""
    path = _junit_path(repo_root, junit)
    try:
        info = os.stat(path) if path is not None else None
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size) if info is not None else None


def read_junit(repo_root: Path, junit: str,
               before: tuple[int, int, int, int] | None = None) -> tuple[TestCounts | None, str | None]:
    """The counts of a JUnit XML report (`testsuites` or `testsuite` root), or None and the reason. The file is
    untrusted: it must be a regular file inside the repository, at most MAX_JUNIT_BYTES, without DTD or entity
    declarations; `before` (its identity before the check ran) refuses a stale report."""
    return _read_report(repo_root, junit, before, _JunitCounter())


def junit_cases(repo_root: Path, junit: str) -> tuple[JunitCases | None, str | None]:
    """The test cases a JUnit XML report names, read as `read_junit` reads it, or None and the reason."""
    return _read_report(repo_root, junit, None, _CaseLister())


class JunitCases(BaseModel):
    __test__: ClassVar[bool] = False

    modified_ns: int  # the report's modification time: which check run wrote it
    cases: list[tuple[str, str, str]]  # (file or "", classname, name) of each test case that did not fail or skip


def _read_report(repo_root: Path, junit: str, before: tuple[int, int, int, int] | None, reader: Any) -> Any:
    path = _junit_path(repo_root, junit)
    if path is None:
        return None, f"JUnit report {junit}: outside the repository; not read"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, f"JUnit report {junit}: the check wrote none"
    except OSError as exc:
        return None, f"JUnit report {junit}: cannot be read ({exc.strerror})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, f"JUnit report {junit}: not a regular file; not read"
        if before == (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size):
            return None, f"JUnit report {junit}: unchanged since before the check ran (a stale report); not read"
        if info.st_size > MAX_JUNIT_BYTES:
            return None, f"JUnit report {junit}: {info.st_size:,} bytes, more than {MAX_JUNIT_BYTES:,}; not read"
        if isinstance(reader, _CaseLister):
            reader.modified_ns = info.st_mtime_ns
        return _parse_junit(fd, junit, reader)
    finally:
        os.close(fd)


class _Refused(Exception):
    pass


class _JunitCounter:
    """Counts from the attributes of the root `testsuites`, else of each top-level `testsuite`, else from the
    `testcase` elements of a top-level suite without them (each with a failure, error or skipped child, or none)."""

    def __init__(self) -> None:
        self.root = ""
        self.depth = 0
        self.counts: dict[str, int] | None = None  # from the root's attributes
        self.suites = _zero()
        self.suite: dict[str, int] | None = None  # the top-level suite being read
        self.from_cases = False  # the suite has no counts of its own: its test cases are counted
        self.case: dict[str, int] | None = None

    def _top_suite(self) -> bool:
        return self.depth == (1 if self.root == "testsuite" else 2)

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        self.depth += 1
        if self.depth == 1:
            if tag not in ("testsuites", "testsuite"):
                raise _Refused(f"its root element is <{tag}>, not <testsuites> or <testsuite>")
            self.root = tag
            if tag == "testsuites" and "tests" in attrs:
                self.counts = _attribute_counts(attrs)
        if tag == "testsuite" and self._top_suite():
            self.from_cases = "tests" not in attrs
            self.suite = _zero() if self.from_cases else _attribute_counts(attrs)
        elif tag == "testcase" and self.suite is not None and self.from_cases:
            self.case = {**_zero(), "total": 1}
        elif tag in _CASE_RESULTS and self.case is not None:
            self.case[_CASE_RESULTS[tag]] = 1

    def end(self, tag: str) -> None:
        if tag == "testcase" and self.case is not None and self.suite is not None:
            if self.case["failures"] or self.case["errors"]:
                self.case["skipped"] = 0
            for key, value in self.case.items():
                self.suite[key] += value
            self.case = None
        elif tag == "testsuite" and self.suite is not None and self._top_suite():
            for key, value in self.suite.items():
                self.suites[key] += value
            self.suite = None
        self.depth -= 1

    def result(self) -> TestCounts:
        return TestCounts(**(self.counts if self.counts is not None else self.suites))


_CASE_RESULTS = {"failure": "failures", "error": "errors", "skipped": "skipped"}


def _zero() -> dict[str, int]:
    return {"total": 0, "failures": 0, "errors": 0, "skipped": 0}


def _attribute_counts(attrs: dict[str, str]) -> dict[str, int]:
    counts = {"total": attrs.get("tests", "0"), **{kind: attrs.get(kind, "0") for kind in _CASE_RESULTS.values()}}
    if "skipped" not in attrs and "skips" in attrs:
        counts["skipped"] = attrs["skips"]
    numbers: dict[str, int] = {}
    for key, value in counts.items():
        number = _count(value)
        if number is None:
            raise _Refused(f"{'tests' if key == 'total' else key}={value[:40]!r} is not a count")
        numbers[key] = number
    return numbers


class _CaseLister:
    """Each `testcase` element, with its `file`, `classname` and `name`; failing or skipped ones left out."""

    def __init__(self) -> None:
        self.modified_ns = 0
        self.cases: list[tuple[str, str, str]] = []
        self.case: tuple[str, str, str] | None = None

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag == "testcase":
            self.case = (attrs.get("file", ""), attrs.get("classname", ""), attrs.get("name", ""))
        elif tag in _CASE_RESULTS:
            self.case = None

    def end(self, tag: str) -> None:
        if tag == "testcase" and self.case is not None:
            self.cases.append(self.case)
            self.case = None

    def result(self) -> JunitCases:
        return JunitCases(modified_ns=self.modified_ns, cases=self.cases)


def _parse_junit(fd: int, junit: str, counter: Any) -> tuple[Any, str | None]:
    from xml.parsers import expat

    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def refuse(*_: object) -> None:
        raise _Refused("it declares a DTD or entities, which a test report never needs")

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse  # type: ignore[assignment]  # expat's handler slot takes any callable
    parser.StartElementHandler = counter.start
    parser.EndElementHandler = counter.end
    try:
        while chunk := os.read(fd, 1 << 20):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
        return counter.result(), None
    except _Refused as exc:
        return None, f"JUnit report {junit}: {exc}; not read"
    except expat.ExpatError as exc:
        return None, f"JUnit report {junit}:{exc.lineno}: not well-formed XML ({expat.ErrorString(exc.code)})"
    except (OSError, RecursionError) as exc:
        return None, f"JUnit report {junit}: cannot be read ({exc})"
