"""Memory banks as teams write them: full-width punctuation, key variants, ids of a bank's own
scheme, requirement maps in unit briefs, specs.md's status words and names taken from folders are
read, not reported as defects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc.bank.config import load_config
from aidlc.bank.loader import load_bank
from tests import specsmd_sample as sample
from tests.helpers import BOLT1, BOLT2, REQUIREMENTS, STORY1, STORY2, UNIT_BRIEF, Bank, complete_first_bolt, run_cli
from tests.specsmd_sample import build_specsmd_bank


def story(bank: Bank, stem: str):  # type: ignore[no-untyped-def]
    (found,) = [s for s in load_bank(bank.root, load_config(bank.root)).stories if s.stem == stem]
    return found


def bolt(bank: Bank, folder: str):  # type: ignore[no-untyped-def]
    (found,) = [b for b in load_bank(bank.root, load_config(bank.root)).bolts if b.folder == folder]
    return found


def requirements(bank: Bank):  # type: ignore[no-untyped-def]
    (intent,) = load_bank(bank.root, load_config(bank.root)).intents
    return {r.id: r.block for r in intent.requirements}


# Each marker the parser reads, written with the full-width forms of a CJK input mode.
@pytest.mark.parametrize("written", ["**Priority**：Must", "**Priority**： Must", "**Ｐｒｉｏｒｉｔｙ**：Ｍｕｓｔ",
                                     "- **Priority**：Must", "| Priority ｜ Must |"])
def test_full_width_priority_is_read(bank: Bank, written: str) -> None:
    bank.replace(REQUIREMENTS, "### NFR-1: Payment latency\n\n**Priority**: Must",
                 f"### NFR-1: Payment latency\n\n{written}")
    assert requirements(bank)["NFR-1"].priority == "must"
    assert bank.findings() == []


def test_full_width_priority_makes_an_uncovered_must_requirement_reported(bank: Bank) -> None:
    # Before: the full-width colon hid the priority, so a Must requirement with no story was a mere
    # "no priority" note. Now it is the coverage warning it should be.
    bank.replace(REQUIREMENTS, "### NFR-1: Payment latency\n\n**Priority**: Must",
                 "### NFR-1: Payment latency\n\n**Priority**：Must")
    bank.set_key(STORY1, "requirements", "[FR-1]")
    bank.replace(STORY2, "FR-2 / NFR-1", "FR-2")
    assert [(f.code, f.line) for f in bank.findings()] == [("AIDLC-COV-001", bank.line(REQUIREMENTS, "### NFR-1"))]


def test_full_width_requirement_heading_and_priority_tag(bank: Bank) -> None:
    bank.replace(REQUIREMENTS, "### FR-2: Refund an order\n\n**Priority**: Should",
                 "### ＦＲ－２：Refund an order（Should）")
    block = requirements(bank)["FR-2"]
    assert (block.title, block.priority) == ("Refund an order", "should")
    assert bank.findings() == []


def test_full_width_acceptance_label_and_checkboxes_in_requirements(bank: Bank) -> None:
    bank.replace(REQUIREMENTS, "**Acceptance Criteria**:\n- [ ] **Given** a cart",
                 "**Acceptance Criteria**：\n- ［ ］ **Given** a cart")
    (criterion,) = requirements(bank)["FR-1"].criteria
    assert criterion.checkbox and not criterion.checked


def test_full_width_related_requirements_with_full_width_commas(bank: Bank) -> None:
    bank.replace(STORY2, "**Related Requirements**: FR-2 / NFR-1", "**Related Requirements**：FR-2，NFR-1")
    assert story(bank, "002-refund-order").requirement_links == ["FR-2", "NFR-1"]
    bank.replace(STORY2, "FR-2，NFR-1", "【FR-2】、ＮＦＲ－１")
    assert story(bank, "002-refund-order").requirement_links == ["FR-2", "NFR-1"]
    assert bank.findings() == []


def test_full_width_checkboxes_in_a_story(bank: Bank) -> None:
    bank.replace(STORY1, "- [x] **Given** a cart", "- ［ｘ］ **Given** a cart")
    bank.replace(STORY1, "- [ ] **Given** a declined", "-　［　］ **Given** a declined")  # ideographic spaces
    found = story(bank, "001-pay-by-card")
    assert [(c.checked, c.checkbox) for c in found.criteria] == [(True, True), (False, True)]
    assert found.criteria[0].line == bank.line(STORY1, "［ｘ］")
    bank.set_key(STORY1, "status", "complete")
    assert "1 of 2" in next(f.message for f in bank.findings("AIDLC-STATE-001"))


def test_story_key_stands_for_id(bank: Bank) -> None:
    bank.replace(STORY1, "id: 001-pay-by-card", "story: 001-pay-by-card")
    assert story(bank, "001-pay-by-card").meta.id == "001-pay-by-card"
    assert [(f.code, f.severity, f.line) for f in bank.findings()] == [
        ("AIDLC-SCHEMA-006", "info", bank.line(STORY1, "story: 001-pay-by-card"))]


def test_both_keys_written_the_canonical_one_counts(bank: Bank) -> None:
    bank.add_key(STORY1, "story", "something-else")
    assert story(bank, "001-pay-by-card").meta.id == "001-pay-by-card"
    assert bank.findings() == []


def test_unit_brief_id_stands_for_unit(bank: Bank) -> None:
    bank.replace(UNIT_BRIEF, "unit: 001-checkout-api", "id: 002-wrong")
    # Read as the unit's name: a wrong one is still the identity error, at the line it is written on.
    hits = [(f.code, f.line) for f in bank.findings()]
    assert hits == [("AIDLC-ID-002", bank.line(UNIT_BRIEF, "id: 002-wrong")),
                    ("AIDLC-SCHEMA-006", bank.line(UNIT_BRIEF, "id: 002-wrong"))]


def test_story_ids_of_the_banks_own_scheme_are_not_errors(bank: Bank) -> None:
    bank.set_key(STORY1, "id", "checkout-story-ap-001")
    bank.set_key(STORY2, "id", "checkout-story-ap-002")
    assert bank.findings() == []


def test_a_unit_brief_table_maps_requirements_for_coverage(bank: Bank) -> None:
    # Stories that name no requirement: the unit brief's table is the map.
    bank.set_key(STORY1, "requirements", None)
    bank.replace(STORY2, "**Related Requirements**: FR-2 / NFR-1\n", "")
    bank.write("memory-bank/intents/001-checkout/units.md", "# Units\n")
    assert sorted(f.message for f in bank.findings("AIDLC-COV-001")) == [
        "Must requirement 001-checkout/FR-1 has no story", "Must requirement 001-checkout/NFR-1 has no story"]
    bank.write(UNIT_BRIEF, bank.read(UNIT_BRIEF) + "\n## Requirements\n\n| FR | Requirement | Priority |\n"
               "|----|-------------|----------|\n| FR-1 | Pay by card | Must |\n| NFR-1.1 | Latency | Must |\n")
    assert bank.findings("AIDLC-COV-001") == []


def test_units_md_maps_requirements_for_coverage(bank: Bank) -> None:
    bank.set_key(STORY1, "requirements", None)
    bank.replace(STORY2, "**Related Requirements**: FR-2 / NFR-1\n", "")
    # The clean bank's units.md maps FR-1, FR-2 and NFR-1 to the unit, by folder name.
    assert bank.findings("AIDLC-COV-001") == []
    bank.write("memory-bank/intents/001-checkout/units.md",
               "| Unit | Requirements |\n|---|---|\n| [`checkout-api`](units/001-checkout-api/) | FR-1 |\n")
    assert [f.message for f in bank.findings("AIDLC-COV-001")] == ["Must requirement 001-checkout/NFR-1 has no story"]


def test_a_map_does_not_cover_for_stories_that_name_their_requirements(bank: Bank) -> None:
    # Every story of the unit names its requirements: they, not the map, say what is covered.
    bank.set_key(STORY1, "requirements", "[FR-1]")
    bank.replace(STORY2, "FR-2 / NFR-1", "FR-2")
    assert [f.code for f in bank.findings()] == ["AIDLC-COV-001"]


def test_full_width_commas_in_a_front_matter_list(bank: Bank) -> None:
    bank.set_key(STORY1, "requirements", "[FR-1，NFR-1]")
    assert story(bank, "001-pay-by-card").requirement_links == ["FR-1", "NFR-1"]
    assert bank.findings() == []


# --- status words: read as specs.md's reader reads them (lower-cased; its synonyms), with a note ---------------


@pytest.mark.parametrize(("written", "read"), [
    ("Ready", "ready"), ("READY", "ready"), ("planned", "draft"), ("pending", "draft"), ("In Progress", "in-progress"),
    ("in_progress", "in-progress"), ("wip", "in-progress"), ("tested", "in-progress"), ("Draft", "draft"),
    ("Blocked", "blocked")])
def test_story_status_words(bank: Bank, written: str, read: str) -> None:
    line = bank.set_key(STORY2, "status", f'"{written}"' if " " in written else written)
    assert story(bank, "002-refund-order").meta.status == read
    found = bank.findings()
    assert [(f.code, f.severity, f.path, f.line, f.message) for f in found if f.code == "AIDLC-SCHEMA-006"] == [
        ("AIDLC-SCHEMA-006", "info", STORY2, line, f"`status: {written}` is read as `status: {read}`")]
    assert [f for f in found if f.severity == "error"] == []


@pytest.mark.parametrize("written", ["completed", "done", "Complete", "finished"])
def test_words_for_complete_make_the_claims_complete_makes(bank: Bank, written: str) -> None:
    # Read as complete, the story answers for its boxes as any complete story: the true defect stays.
    bank.set_key(STORY1, "status", written)
    bank.set_key(STORY1, "implemented", "true")
    assert story(bank, "001-pay-by-card").meta.status == "complete"
    assert [f.message for f in bank.findings("AIDLC-STATE-001")] == [
        "story 001-pay-by-card is complete but 1 of 2 acceptance boxes is unchecked"]


def test_bolt_status_words(bank: Bank) -> None:
    complete_first_bolt(bank)
    bank.set_key(BOLT1, "status", "completed")
    bank.set_key(STORY1, "status", "done")
    line = bank.set_key(BOLT2, "status", "Ready")  # a ready bolt has not started: planned
    assert (bolt(bank, "001-checkout-api").meta.status, bolt(bank, "002-checkout-refunds").meta.status) == (
        "complete", "planned")
    notes = [(f.path, f.message) for f in bank.findings("AIDLC-SCHEMA-006")]
    assert notes == [(BOLT1, "`status: completed` is read as `status: complete`"),
                     (BOLT2, "`status: Ready` is read as `status: planned`"),
                     (STORY1, "`status: done` is read as `status: complete`")]
    assert bank.findings("AIDLC-SCHEMA-006")[1].line == line


def test_a_bolt_completed_in_words_with_a_planned_story_is_still_reported(bank: Bank) -> None:
    # claude-code-logs' bolt 010: `status: completed` over stories still `planned`. Read, the contradiction shows.
    complete_first_bolt(bank)
    bank.set_key(BOLT1, "status", "completed")
    bank.set_key(STORY1, "status", "planned")
    assert [f.message for f in bank.findings("AIDLC-STATE-003")] == [
        "bolt 001-checkout-api is complete but its story 001-pay-by-card is draft"]


@pytest.mark.parametrize("written", ["success", "accepted", "implemented: true"])
def test_a_word_specs_md_does_not_read_stays_an_error(bank: Bank, written: str) -> None:
    bank.set_key(STORY2, "status", f'"{written}"')
    assert [f.code for f in bank.findings()] == ["AIDLC-SCHEMA-002"]


# --- names from folders: a story's unit and intent, a bolt's `bolt-id:` -----------------------------------


def test_a_story_without_unit_and_intent_takes_them_from_its_folder(bank: Bank) -> None:
    bank.set_key(STORY1, "unit", None)
    bank.set_key(STORY1, "intent", None)
    found = story(bank, "001-pay-by-card")
    assert (found.meta.unit, found.meta.intent) == ("001-checkout-api", "001-checkout")
    assert bank.findings() == []


def test_a_story_body_may_name_its_unit(bank: Bank) -> None:
    bank.set_key(STORY2, "unit", None)
    bank.set_key(STORY2, "intent", None)
    bank.replace(STORY2, "**Related Requirements**", "**Unit:** 001-checkout-api\n\n**Related Requirements**")
    assert story(bank, "002-refund-order").meta.unit == "001-checkout-api"
    assert bank.findings() == []


def test_a_story_body_naming_another_unit_is_reported_at_that_line(bank: Bank) -> None:
    bank.set_key(STORY2, "unit", None)
    bank.replace(STORY2, "**Related Requirements**", "**Unit:** 002-payouts\n\n**Related Requirements**")
    assert [(f.code, f.line, f.message) for f in bank.findings()] == [
        ("AIDLC-REF-002", bank.line(STORY2, "**Unit:** 002-payouts"),
         "story 002-refund-order names unit '002-payouts', which does not exist (its folder is 001-checkout-api)")]


def test_a_unit_key_in_front_matter_is_what_counts(bank: Bank) -> None:
    bank.replace(STORY2, "**Related Requirements**", "**Unit:** 002-payouts\n\n**Related Requirements**")
    assert bank.findings() == []  # `unit: checkout-api` is written: the body line is prose


def test_bolt_id_and_bolt_type_keys(bank: Bank) -> None:
    bank.replace(BOLT2, "id: 002-checkout-refunds", 'bolt-id: "002-checkout-refunds"')
    bank.replace(BOLT2, "type: simple-construction-bolt", 'bolt_type: "simple-construction-bolt"')
    found = bolt(bank, "002-checkout-refunds")
    assert (found.meta.id, found.meta.type) == ("002-checkout-refunds", "simple-construction-bolt")
    assert [(f.code, f.line, f.message) for f in bank.findings()] == [
        ("AIDLC-SCHEMA-006", bank.line(BOLT2, "bolt-id:"), "`bolt-id:` is read as `id:`, the canonical key"),
        ("AIDLC-SCHEMA-006", bank.line(BOLT2, "bolt_type:"), "`bolt_type:` is read as `type:`, the canonical key")]


def test_a_bolt_id_key_naming_another_folder_is_reported_at_its_line(bank: Bank) -> None:
    bank.replace(BOLT2, "id: 002-checkout-refunds", "bolt-id: 009-other")
    assert [(f.code, f.line) for f in bank.findings() if f.code == "AIDLC-ID-002"] == [
        ("AIDLC-ID-002", bank.line(BOLT2, "bolt-id: 009-other"))]


# --- a completed stage's artifact: several files, one at the repository root, or none -----------------------


def test_a_stage_artifact_may_list_files_in_the_bolt_folder_or_at_the_root(bank: Bank) -> None:
    bank.replace(BOLT1, "artifact: implementation-plan.md", "artifact: implementation-plan.md, main.go")
    bank.write("main.go", "package main\n")
    assert bank.findings() == []


def test_a_listed_artifact_that_does_not_exist_is_reported_by_name(bank: Bank) -> None:
    bank.replace(BOLT1, "artifact: implementation-plan.md", "artifact: implementation-plan.md, server.go, cli.go")
    bank.write("cli.go", "package main\n")
    assert [(f.code, f.line, f.message) for f in bank.findings()] == [
        ("AIDLC-STRUCT-004", bank.line(BOLT1, "server.go"),
         "bolt 001-checkout-api records a completed stage whose artifact server.go does not exist")]


@pytest.mark.parametrize("written", ["none", "None", "null"])
def test_a_stage_that_wrote_no_file_says_none(bank: Bank, written: str) -> None:
    bank.replace(BOLT1, "artifact: implementation-plan.md", f"artifact: {written}")
    assert bank.findings() == []


def test_a_root_folder_or_a_link_at_the_root_is_not_the_artifact(bank: Bank) -> None:
    bank.replace(BOLT1, "artifact: implementation-plan.md", "artifact: src, link.go")
    bank.path("src").mkdir()
    (bank.root / "link.go").symlink_to("/etc/hostname")
    assert [f.message.split(" whose ")[1] for f in bank.findings("AIDLC-STRUCT-004")] == [
        "artifact link.go does not exist", "artifact src does not exist"]  # at one line: by message


def test_an_nfr_without_priority_is_no_finding(bank: Bank) -> None:
    # specs.md's requirements template gives NFRs targets, not priorities; an FR without one is still a note.
    bank.replace(REQUIREMENTS, "### NFR-1: Payment latency\n\n**Priority**: Must\n", "### NFR-1: Payment latency\n")
    bank.replace(REQUIREMENTS, "### FR-2: Refund an order\n\n**Priority**: Should\n", "### FR-2: Refund an order\n")
    assert [(f.code, f.message) for f in bank.findings()] == [
        ("AIDLC-STRUCT-006", "requirement 001-checkout/FR-2 has no priority")]


# --- acceptance criteria: a list's structure, as CommonMark nests it --------------------------------------


DETAILED = """\
- [ ] **Given** a paid order, **When** support refunds it, **Then** the card is credited with the full amount
- [ ] Frontmatter contains:
  - `source`: original JSONL filename
  - `title`: session summary
    * and its length
- [ ] A Monthly table and:
  1. a QoQ table,
  2. a YoY table,
  each with period label and total value columns.
"""


def test_bullets_under_a_checkbox_are_detail_of_that_criterion(bank: Bank) -> None:
    bank.replace(STORY2, "- [ ] **Given** a paid order, **When** support refunds it, **Then** the card is credited "
                 "with the full amount\n", DETAILED)
    found = story(bank, "002-refund-order")
    assert [(c.line, c.text) for c in found.criteria] == [
        (bank.line(STORY2, "- [ ] **Given** a paid order"), found.criteria[0].text),
        (bank.line(STORY2, "Frontmatter contains:"), "Frontmatter contains:"),
        (bank.line(STORY2, "A Monthly table"), "A Monthly table and:")]
    assert bank.findings() == []


def test_a_checkbox_nested_in_a_criterion_is_a_criterion(bank: Bank) -> None:
    # Each box is a claim someone can check: a complete story answers for the nested one too.
    bank.replace(STORY1, "- [ ] **Given** a declined card", "  - [ ] **Given** a declined card")
    bank.set_key(STORY1, "status", "complete")
    bank.set_key(STORY1, "implemented", "true")
    assert [(f.line, f.message) for f in bank.findings("AIDLC-STATE-001")] == [
        (bank.line(STORY1, "  - [ ] **Given** a declined card"),
         "story 001-pay-by-card is complete but 1 of 2 acceptance boxes is unchecked")]


def test_a_list_after_the_criteria_and_a_paragraph_is_a_list_of_its_own(bank: Bank) -> None:
    # Not nested in any criterion: its bullets are criteria that are not checkboxes (the true defect stays).
    bank.write(STORY2, bank.read(STORY2) + "\nAlso:\n  - the order shows as refunded\n")
    assert [(f.code, f.line) for f in bank.findings()] == [
        ("AIDLC-STRUCT-002", bank.line(STORY2, "  - the order shows as refunded"))]


def test_a_story_without_id_is_named_by_its_file(bank: Bank) -> None:
    bank.set_key(STORY2, "id", None)
    assert story(bank, "002-refund-order").meta.id == "002-refund-order"
    assert bank.findings() == []


# --- a bank in the shapes specs.md banks take, committed to git, through the CLI ----------------------------


@pytest.fixture
def specsmd(tmp_path: Path) -> Bank:
    return build_specsmd_bank(tmp_path / "session-logs")


def test_a_specs_md_bank_validates_with_notes_and_the_ledger_warning_only(specsmd: Bank) -> None:
    proc = run_cli("validate", str(specsmd.root), "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = [(f["code"], f["path"], f["line"]) for f in json.loads(proc.stdout)["findings"]]
    assert found == [
        ("AIDLC-SCHEMA-006", sample.BOLT, 2), ("AIDLC-SCHEMA-006", sample.BOLT, 3),
        ("AIDLC-SCHEMA-006", sample.BOLT, 6), ("AIDLC-LEDGER-007", f"{sample.MB}/events.jsonl", None),
        ("AIDLC-SCHEMA-006", sample.SESSION, 5), ("AIDLC-SCHEMA-006", sample.INDEX, 2),
        ("AIDLC-SCHEMA-006", sample.MTIME, 2), ("AIDLC-SCHEMA-006", sample.ORPHANS, 5)]


# Each true defect in that bank's shapes stays an error.
def _started_late(b: Bank) -> str:
    b.set_key(sample.BOLT, "started", "2026-01-17T19:00:00Z")
    return "AIDLC-STATE-004"


def _listed_artifact_gone(b: Bank) -> str:
    b.remove("frontmatter.go")
    return "AIDLC-STRUCT-004"


def _done_with_an_open_box(b: Bank) -> str:
    b.replace(sample.INDEX, "- [x] Per-project", "- [ ] Per-project")
    return "AIDLC-STATE-001"


def _completed_bolt_over_a_planned_story(b: Bank) -> str:
    b.replace(sample.BOLT, '  - "002-index-markdown"\n', '  - "002-index-markdown"\n  - 003-mtime-skip\n')
    b.set_key(sample.NEXT_BOLT, "stories", "[004-orphan-preserve]")
    return "AIDLC-STATE-003"


def _a_word_no_reader_knows(b: Bank) -> str:
    b.set_key(sample.ORPHANS, "status", "accepted")
    return "AIDLC-SCHEMA-002"


def _unit_line_naming_another_unit(b: Bank) -> str:
    b.replace(sample.INDEX, "**Unit:** 001-markdown-generator", "**Unit:** 002-core-local-data")
    return "AIDLC-REF-002"


@pytest.mark.parametrize("defect", [_started_late, _listed_artifact_gone, _done_with_an_open_box,
                                    _completed_bolt_over_a_planned_story, _a_word_no_reader_knows,
                                    _unit_line_naming_another_unit])
def test_true_defects_in_a_specs_md_bank_stay_errors(specsmd: Bank, defect) -> None:  # type: ignore[no-untyped-def]
    code = defect(specsmd)
    proc = run_cli("validate", str(specsmd.root), "--format", "json")
    assert proc.returncode == 1
    errors = [f["code"] for f in json.loads(proc.stdout)["findings"] if f["severity"] == "error"]
    assert errors == [code]
