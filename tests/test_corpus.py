"""A real memory bank from the wild (specsmd): validation must not crash and must report its real drift."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from aidlc.bank.config import load_config
from aidlc.bank.loader import load_bank
from aidlc.model.findings import ValidationReport
from aidlc.model.types import Severity
from aidlc.rules import CATALOGUE, validate
from tests.helpers import Bank, corpus_dir, run_cli

CORPUS = corpus_dir()
STORIES = "memory-bank/intents/011-vscode-extension/units"

pytestmark = pytest.mark.skipif(not (CORPUS / "memory-bank").is_dir(), reason="the specsmd corpus is not present")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy: the shared corpus is read-only and must stay as it is."""
    root = tmp_path_factory.mktemp("corpus") / "specsmd"
    shutil.copytree(CORPUS, root)
    return root


@pytest.fixture(scope="module")
def report(corpus: Path) -> ValidationReport:
    return validate(load_bank(corpus, load_config(corpus)))


def codes(report: ValidationReport) -> Counter[str]:
    return Counter(f.code for f in report.findings)


def test_validates_without_crashing_and_reads_every_file(report: ValidationReport) -> None:
    assert report.summary.files > 100
    assert report.summary.errors > 0 and report.summary.warnings > 0
    assert report.summary.errors == sum(f.severity == Severity.error for f in report.findings)


def test_every_finding_points_into_the_tree(corpus: Path, report: ValidationReport) -> None:
    for finding in report.findings:
        assert finding.code in CATALOGUE
        assert not finding.path.startswith("/") and "\\" not in finding.path
        path = corpus / finding.path
        if finding.line is not None:
            assert path.is_file(), finding
            assert 1 <= finding.line <= len(path.read_bytes().splitlines()) + 1, finding
        assert len(finding.message) <= 400 and finding.fix


def test_complete_stories_with_unchecked_boxes_are_reported(corpus: Path, report: ValidationReport) -> None:
    path = f"{STORIES}/artifact-parser/stories/004-frontmatter-parser.md"
    (finding,) = [f for f in report.findings if f.code == "AIDLC-STATE-001" and f.path == path]
    bank = Bank(corpus)
    assert finding.line == bank.line(path, "- [ ] **Given** a markdown file with YAML frontmatter")
    assert finding.message == ("story vscode-extension-story-ap-004 is complete but 7 of 7 acceptance boxes "
                               "are unchecked")
    assert codes(report)["AIDLC-STATE-001"] > 10


def test_story_ids_that_do_not_match_their_file_are_reported(report: ValidationReport) -> None:
    path = f"{STORIES}/artifact-parser/stories/004-frontmatter-parser.md"
    (finding,) = [f for f in report.findings if f.code == "AIDLC-ID-002" and f.path == path]
    assert finding.line == 2
    assert finding.message == ("story id 'vscode-extension-story-ap-004' does not match its file name "
                               "'004-frontmatter-parser.md'")
    assert codes(report)["AIDLC-ID-002"] > 10


def test_real_drift_of_several_kinds_is_reported(report: ValidationReport) -> None:
    found = codes(report)
    for code in ("AIDLC-STATE-001", "AIDLC-ID-002", "AIDLC-STATE-003", "AIDLC-STATE-004", "AIDLC-REF-004",
                 "AIDLC-SCHEMA-001", "AIDLC-SCHEMA-005", "AIDLC-STRUCT-006"):
        assert found[code] > 0, code


def test_bolt_started_after_it_completed(report: ValidationReport) -> None:
    hits = [f for f in report.findings if f.code == "AIDLC-STATE-004"
            and f.path == "memory-bank/bolts/016-analytics-tracker/bolt.md"]
    assert [h.message for h in hits] == ["bolt 016-analytics-tracker started 2025-12-28T18:30:00+00:00 after it "
                                         "completed 2025-12-28T17:29:23+00:00"]


def test_stories_referenced_by_id_resolve(report: ValidationReport) -> None:
    # Old bolts list stories by their `id` (vscode-extension-story-ap-004), not by file name.
    assert not [f for f in report.findings if f.code == "AIDLC-REF-004"
                and f.path == "memory-bank/bolts/bolt-artifact-parser-1/bolt.md"]


def test_units_without_numeric_prefix_resolve(report: ValidationReport) -> None:
    assert not [f for f in report.findings if f.code in ("AIDLC-REF-002", "AIDLC-REF-005")]


def test_process_json(corpus: Path) -> None:
    proc = run_cli("--format", "json", "validate", str(corpus))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc) == {"version", "root", "findings", "summary"}
    assert doc["summary"]["errors"] > 0
    assert {f["code"] for f in doc["findings"]} >= {"AIDLC-STATE-001", "AIDLC-ID-002"}


def test_process_text_from_inside_the_bank(corpus: Path) -> None:
    proc = run_cli("validate", cwd=corpus / "memory-bank" / "intents")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "✗ [ERROR] memory-bank/" in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1].startswith("  aidlc validate")
    assert "validation failed: " in proc.stdout


def test_validation_leaves_the_corpus_untouched(corpus: Path) -> None:
    def tree(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    before = tree(corpus)
    run_cli("validate", str(corpus))
    assert tree(corpus) == before == tree(CORPUS)
