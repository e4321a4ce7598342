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
from aidlc.rules import every_rule, validate
from tests.helpers import Bank, corpus_dir, run_cli

CORPUS = corpus_dir()
STORIES = "memory-bank/intents/011-vscode-extension/units"

@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy: the corpus in tests/ is read-only and must stay as it is."""
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
        assert finding.code in every_rule()
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


# The corpus's errors before aidlc read real-world syntax: 146, of which 63 were about conventions the
# bank keeps consistently (45 AIDLC-ID-002: story ids of its own scheme, `vscode-extension-story-ap-004`
# in 004-frontmatter-parser.md, unique and used by its bolts; 18 AIDLC-SCHEMA-001: `story:` written for
# `id:` in 17 stories, `id:` for `unit:` in one unit brief), and one more (AIDLC-SCHEMA-002) was `status: done`,
# which specs.md reads as complete. These are its true defects, every one an error.
TRUE_DEFECTS = Counter({
    "AIDLC-STATE-001": 48,  # complete stories with unchecked acceptance boxes
    "AIDLC-STATE-003": 10,  # complete bolts whose stories are draft or in progress
    "AIDLC-STATE-002": 5,  # complete stories without `implemented: true`
    "AIDLC-STATE-004": 4,  # bolts that started after they completed (time travel)
    "AIDLC-REF-004": 11,  # a bolt listing stories that do not exist
    "AIDLC-REF-006": 1,  # a bolt enabling a bolt that does not exist
    "AIDLC-REF-008": 2,  # stories assigned to a bolt that does not exist
    "AIDLC-SCHEMA-003": 1,  # `implemented: partial`
})


def test_errors_are_the_true_defects_and_nothing_about_conventions(report: ValidationReport) -> None:
    errors = Counter(f.code for f in report.findings if f.severity == Severity.error)
    assert errors == TRUE_DEFECTS
    assert sum(errors.values()) == 82


def test_conventions_are_notes_naming_the_canonical_key(report: ValidationReport) -> None:
    notes = [f for f in report.findings if f.code == "AIDLC-SCHEMA-006"]
    assert len(notes) == 19 and all(f.severity == Severity.info for f in notes)
    unit = "memory-bank/intents/011-vscode-extension/units/webview-lit-migration/unit-brief.md"
    assert [(f.line, f.message) for f in notes if f.path == unit] == [
        (2, "`id:` is read as `unit:`, the canonical key")]


def test_story_ids_of_the_banks_own_scheme_resolve_without_errors(report: ValidationReport) -> None:
    assert not [f for f in report.findings if f.code == "AIDLC-ID-002"]
    assert not [f for f in report.findings if f.code == "AIDLC-REF-004"
                and f.path == "memory-bank/bolts/bolt-artifact-parser-1/bolt.md"]


def test_requirements_mapped_in_unit_briefs_are_covered(report: ValidationReport) -> None:
    # intent 012's stories name no requirement; its unit briefs map FR-1..FR-5 in tables.
    assert not [f for f in report.findings if f.code == "AIDLC-COV-001"]


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
    assert {f["code"] for f in doc["findings"]} >= {"AIDLC-STATE-001", "AIDLC-REF-004"}


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
