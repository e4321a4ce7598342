"""Baselines for brownfield banks: the findings a bank already had are known and do not fail; new ones do.

A finding is matched by its code, path and fingerprint: a digest of the code, the path and the message with the
numbers that name lines taken out, so editing a file above a finding (which moves it) keeps it known."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

from pydantic import ValidationError

from aidlc.errors import UsageError
from aidlc.model.ci import Baseline, BaselineEntry, CiFinding
from aidlc.model.findings import Finding
from aidlc.names import arg

# `line 12`, `lines 3, 7 and 9`, `file.md:12`: where a finding is, not what it is.
_LINES = re.compile(r"\b(lines?)\s+\d+(?:\s*(?:,|and|-)\s*\d+)*")
_PATH_LINE = re.compile(r"(\S):\d+\b")


def fingerprint(finding: Finding) -> str:
    message = _PATH_LINE.sub(r"\1", _LINES.sub(r"\1", finding.message))
    return hashlib.sha256("\0".join((finding.code, finding.path, message)).encode()).hexdigest()[:32]


def with_fingerprint(finding: Finding) -> CiFinding:
    return CiFinding(**finding.model_dump(), fingerprint=fingerprint(finding))


def apply(findings: list[CiFinding], baseline: Baseline) -> tuple[list[CiFinding], list[BaselineEntry]]:
    """The findings marked known or new, and the baseline's entries no longer found (fixed). A baseline entry
    counts once: a second finding with the same fingerprint is new."""
    left = Counter((entry.code, entry.path, entry.fingerprint) for entry in baseline.findings)
    marked = []
    for finding in findings:
        key = (finding.code, finding.path, finding.fingerprint)
        known = left[key] > 0
        left[key] -= known
        marked.append(finding.model_copy(update={"baseline": "known" if known else "new"}))
    return marked, taken(baseline.findings, left)


def taken(entries: list[BaselineEntry], counts: Counter[tuple[str, str, str]]) -> list[BaselineEntry]:
    """The entries `counts` holds (by code, path and fingerprint), each taking one of its count."""
    found = []
    for entry in entries:
        key = (entry.code, entry.path, entry.fingerprint)
        if counts[key] > 0:
            counts[key] -= 1
            found.append(entry)
    return found


def of(findings: list[CiFinding]) -> Baseline:
    """The baseline of today's findings but adopted history: git, not the baseline, keeps that a warning (one
    `--strict` fails on), and only while its file stays as it was before the ledger."""
    return Baseline(findings=[BaselineEntry(code=f.code, severity=f.severity, path=f.path,
                                            fingerprint=f.fingerprint, message=f.message)
                              for f in findings if f.adopted is None])


def render(baseline: Baseline) -> str:
    return json.dumps(baseline.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"


def load(path: Path, shown: str) -> Baseline:
    """The baseline in `path`; anything else is a usage error naming the file, the line and the fix."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{shown}: cannot be read ({exc.strerror or exc})",
                         [_rewrite(shown), "aidlc ci    # without a baseline: every finding counts"]) from None
    return parse(data, shown)


def _rewrite(shown: str) -> str:
    return f"aidlc ci --write-baseline --baseline {arg(shown)}    # write it again from the current findings"


def parse(data: bytes, shown: str) -> Baseline:
    """A baseline's bytes (from the work tree, or from the base commit: `shown` says which)."""
    rewrite = _rewrite(shown)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{shown}: byte {exc.start} is not UTF-8; expected the JSON aidlc ci writes",
                         [rewrite]) from None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{shown}:{exc.lineno}: not JSON ({exc.msg}); expected the JSON aidlc ci writes",
                         [rewrite]) from None
    try:
        return Baseline.model_validate(parsed)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "the document"
        raise UsageError(f"{shown}: {where}: {first['msg']}; expected the format of `aidlc schema export DIR` "
                         "(ci-baseline.schema.json)", [rewrite]) from None
