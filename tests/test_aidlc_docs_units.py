"""Which unit and which stage a line of aidlc-state.md names, in the shapes agents write them beyond the rules'
template: a unit with a letter (`Unit 3-A`), named by its folder on the stage line, named in a phase's heading,
written before the stage (`Unit 1 (Backend) - Code Generation`). Through the rules on the clean project of
tests/aidlc_docs_sample.py, each test changing it as a repository in the wild does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc.aidlc_docs.reader import read_project
from aidlc.aidlc_docs.state import read_state
from aidlc.aidlc_docs.units import folders_named, unit_of
from aidlc.rules.docs_approvals import Units
from tests.aidlc_docs_sample import AUDIT, DOCS, ENTRIES, STATE, DocsRepo, audit_text, build_docs_repo, iso, plan, stamp
from tests.helpers import run_cli

OPERATIONS = "### 🟡 OPERATIONS PHASE"


@pytest.fixture
def docs(tmp_path: Path) -> DocsRepo:
    return build_docs_repo(tmp_path / "shop")


def found(docs: DocsRepo) -> list[tuple[str, int | None]]:
    return [(f.code, f.line) for f in docs.findings()]


def approve(docs: DocsRepo, heading: str, context: str) -> None:
    """A person's approval appended to the audit log, after every entry of the clean one."""
    docs.write(AUDIT, docs.read(AUDIT) + f"## {heading}\n**Timestamp**: {iso(stamp(len(ENTRIES)))}\n"
               f'**User Input**: "approved"\n**AI Response**: "Proceeding."\n**Context**: {context}\n\n---\n\n')


def test_units_with_a_letter_are_three_units_not_one(docs: DocsRepo) -> None:
    # Unit 3-A and 3-B (folder unit-3b-admin): B's approval and B's open plan are not A's.
    docs.replace(STATE, OPERATIONS, "#### Unit 3-A: Storefront\n- [x] Functional Design — done\n\n"
                 "#### Unit 3-B: Admin\n- [ ] Functional Design\n\n" + OPERATIONS)
    docs.write(f"{DOCS}/construction/plans/unit-3b-admin-functional-design-plan.md", plan("Functional Design", 2, 0))
    approve(docs, "Functional Design - Unit 3-B Approval", "CONSTRUCTION - Unit 3-B admin")
    assert found(docs) == [("AIDLC-DOCS-003", docs.line(STATE, "Functional Design — done"))]
    assert "Functional Design of unit 3A" in docs.findings()[0].message
    report = json.loads(run_cli("status", "--format", "json", cwd=docs.root).stdout)
    assert [u["unit"] for u in report["units"]][:4] == ["1", "2", "3A", "3B"]


def test_units_named_by_a_letter_alone_are_each_their_own(docs: DocsRepo) -> None:
    # drpacman/BattleTrs names a feature's units by letter in its stage table: read as no unit, unit A's approval
    # did for unit B's line too ("line 57 ticks it too"), and an entry naming unit B in words approved no line.
    docs.replace(STATE, OPERATIONS, "| Stage | Status | Notes |\n|-------|--------|-------|\n"
                 "| Functional Design — Unit A (Server WS+HTTP) | COMPLETED | 2026-06-22 — 11 test scenarios |\n"
                 "| Functional Design — Unit B (battletris-web) | COMPLETED | 2026-06-22 — rAF loop pattern |\n\n"
                 + OPERATIONS)
    approve(docs, "Construction Unit A — Functional Design Approved",
            "CONSTRUCTION - Functional Design — Unit A: server-ws-http (APPROVED)")
    [finding] = docs.findings("AIDLC-DOCS-003")
    assert (finding.line, "Functional Design of unit B is ticked" in finding.message) == (
        docs.line(STATE, "Unit B (battletris-web)"), True)


@pytest.mark.parametrize(("row", "unit"), [
    ("| Code Generation — Unit B | COMPLETED | 0 errors |", "B"),
    ("| Code Generation — Unit Tests | COMPLETED | 0 errors |", None),  # a word, not a letter
    ("| Code Generation — unit a lot faster | COMPLETED | 0 errors |", None),
    ("| Code Generation — Unit Of Work | COMPLETED | 0 errors |", None),
])
def test_only_a_capital_letter_standing_alone_names_a_unit(row: str, unit: str | None) -> None:
    [read] = read_state(f"| Stage | Status | Notes |\n|---|---|---|\n{row}\n", "aidlc-state.md").stages
    assert read.unit == unit


def test_the_audit_log_names_a_unit_by_letter_only_where_the_state_file_does(docs: DocsRepo) -> None:
    # The units of the clean project are numbered: `Unit A` in an entry's heading is no unit of it.
    approve(docs, "Construction Unit A — Functional Design Approved", "CONSTRUCTION - Functional Design")
    [entry] = [entry for entry in read_project(docs.root, DOCS).audits[0].entries if "Unit A" in (entry.heading or "")]
    assert Units(read_project(docs.root, DOCS)).of(entry) is None
    docs.replace(STATE, OPERATIONS, "| Stage | Status |\n|---|---|\n| Functional Design — Unit A | COMPLETED |\n\n"
                 + OPERATIONS)
    assert Units(read_project(docs.root, DOCS)).of(entry) == "A"


def test_a_unit_named_by_its_folder_on_the_stage_line_is_that_unit(docs: DocsRepo) -> None:
    # Folders B1-search and B2-catalog-sync, each line naming its unit in words; B1's open plan is not B2's.
    for unit, done in (("B1-search", 1), ("B2-catalog-sync", 2)):
        docs.write(f"{DOCS}/construction/{unit}/functional-design/business-rules.md", "# Rules\n")
        docs.write(f"{DOCS}/construction/plans/{unit}-functional-design-plan.md", plan("Functional Design", 2, done))
    docs.replace(STATE, OPERATIONS, "- [x] Functional Design — B2 Catalog Sync completed\n"
                 "- [ ] Functional Design — B1 Search\n\n" + OPERATIONS)
    approve(docs, "Functional Design - B2 Catalog Sync - Approval",
            "CONSTRUCTION - Functional Design approved (B2 Catalog Sync)")
    assert found(docs) == []
    docs.write(f"{DOCS}/construction/plans/B2-catalog-sync-functional-design-plan.md", plan("Functional Design", 2, 1))
    assert found(docs) == [("AIDLC-DOCS-005", docs.line(STATE, "B2 Catalog Sync completed"))]


def test_a_phase_heading_naming_a_unit_makes_the_lines_under_it_that_units(docs: DocsRepo) -> None:
    # `### CONSTRUCTION PHASE — Unit 3: Reports` over its lines; a phase heading naming two units names none.
    docs.write(f"{DOCS}/construction/plans/unit-4-billing-functional-design-plan.md", plan("Functional Design", 2, 0))
    docs.write(f"{DOCS}/construction/plans/unit-3-reports-functional-design-plan.md", plan("Functional Design", 2, 2))
    docs.replace(STATE, OPERATIONS, "### CONSTRUCTION PHASE — Unit 3: Reports\n- [x] Functional Design — COMPLETE\n\n"
                 "### CONSTRUCTION PHASE — Unit 4: Billing\n- [ ] Functional Design — PENDING\n\n" + OPERATIONS)
    approve(docs, "Functional Design - Unit 3 - Approval", "CONSTRUCTION - Unit 3 Functional Design approved")
    assert found(docs) == []
    docs.replace(STATE, "— Unit 3: Reports", "— Units 3 and 4 (Unit 3: Reports, Unit 4: Billing)")
    # the line, of no unit now, claims unit 4's open plan too, and unit 3's approval is not one of it
    line = docs.line(STATE, "Functional Design — COMPLETE")
    assert found(docs) == [("AIDLC-DOCS-003", line), ("AIDLC-DOCS-005", line)]


@pytest.mark.parametrize(("line", "stage", "unit", "skipped"), [
    ("Unit 1 (Backend) - Code Generation (2026-02-04T15:43:58+09:00)", "code-generation", "1", False),
    ("Unit 1: Infrastructure — Code Generation COMPLETED", "code-generation", "1", False),
    ("Unit 3 (MCP) - NFR Design - SKIPPED", "nfr-design", "3", True),
    ("Unit 3-A: Frontend — Functional Design (2026-02-04)", "functional-design", "3A", False),
    ("Unit 3: API Services — Full pipeline COMPLETED", None, "3", False),  # no stage named: a note, never a guess
    ("Unit 1 (data-pipeline): Functional Design, NFR Requirements, Code Generation", None, "1", False),
    ("U11 Functional Design 완료·승인 (2026-06-24)", "functional-design", "11", False),
])
def test_a_line_naming_its_unit_first_names_the_stage_after_it(line: str, stage: str | None, unit: str,
                                                                skipped: bool) -> None:
    [read] = read_state(f"- [x] {line}\n", "aidlc-state.md").stages
    assert (read.stage, read.unit, read.skipped) == (stage, unit, skipped)


def test_a_unit_first_line_ticked_without_an_approval_is_found(docs: DocsRepo) -> None:
    docs.replace(STATE, OPERATIONS, "- [x] Unit 3 (Reports) - Code Generation (2026-11-30T10:00:00+09:00)\n\n"
                 + OPERATIONS)
    assert found(docs) == [("AIDLC-DOCS-003", docs.line(STATE, "Unit 3 (Reports)"))]
    assert "Code Generation of unit 3" in docs.findings()[0].message
    approve(docs, "Unit 3 (Reports) - Code Generation Approval", "CONSTRUCTION - Unit 3 Code Generation approved")
    assert found(docs) == []


def test_units_of_work_named_uow_each_need_their_own_approval(docs: DocsRepo) -> None:
    # jin-101/SPA-BRIDGE names its units `UOW-01` to `UOW-11`: read as no unit, one unit's approval of a stage did
    # for every unit's.
    docs.replace(STATE, OPERATIONS, "- [x] CONSTRUCTION - UOW-03 Functional Design\n"
                 "- [x] CONSTRUCTION - UOW-04 Functional Design\n\n" + OPERATIONS)
    approve(docs, "UOW-03 Functional Design Approval", "CONSTRUCTION - UOW-03 Functional Design approval gate")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["code"], finding["line"]) == ("AIDLC-DOCS-003", docs.line(STATE, "UOW-04 Functional Design"))
    assert "Functional Design of unit 4" in finding["message"]


def test_a_unit_named_in_backticks_before_its_stage_is_that_units_stage() -> None:
    # wc2026-predictor: `Unit \`web\`: Code Generation [x] (...)`; a chain of stages on one line names none alone.
    web, chain = read_state("- [x] Unit `web`: Code Generation [x] (5 tests pass)\n"
                            "- [x] Unit `infra`: Infrastructure Design → Code Generation [x]\n", "aidlc-state.md",
                            ["web", "infra"]).stages
    assert (web.stage, web.unit) == ("code-generation", "web")
    assert chain.stage is None


@pytest.mark.parametrize(("line", "stage"), [
    ("NFR要件 — 完了（2026-04-14T00:30:00Z）", "nfr-requirements"),  # Japanese writes NFR with no space
    ("NFR設計 — 完了", "nfr-design"),
    ("ワークフロープランニング — 完了（2026-04-12T00:18:00Z）", "workflow-planning"),
    ("ビルド＆テスト - **実行**（常に実行）", "build-and-test"),
    ("オペレーションズ — プレースホルダー", "operations"),
    ("NFR설계 — 완료", "nfr-design"),
    ("NFR요구사항 — 완료", "nfr-requirements"),
    ("Infra Design — infra unit, approved", "infrastructure-design"),  # wc2026-predictor's short name
    ("工作空间检测 - 已完成 (全新项目)", "workspace-detection"),  # kiro-project-demo's Chinese names
    ("非功能性需求 - U1 完成", "nfr-requirements"),
    ("非功能性设计 - U1 完成", "nfr-design"),
    ("Per-unit: Code Generation", "code-generation"),  # polycyclopedia's per-unit loop
    ("Per-Unit Loop — Unit 1: `shared-libs` — COMPLETE", None),  # the whole loop, no stage of it
])
def test_stage_names_as_agents_translate_them(line: str, stage: str | None) -> None:
    [read] = read_state(f"- [x] {line}\n", "aidlc-state.md").stages
    assert read.stage == stage


def test_a_ticked_approval_line_under_its_stages_line_is_no_stage_of_its_own(docs: DocsRepo) -> None:
    docs.replace(STATE, "- [x] Application Design - EXECUTE\n",
                 "- [x] Application Design - EXECUTE\n- [x] Application Design - Approval (APPROVED)\n")
    docs.replace(AUDIT, "## Application Design - Approval", "## Application Design - User Answers Received")
    assert found(docs) == [("AIDLC-DOCS-003", docs.line(STATE, "- [x] Application Design - EXECUTE"))]
    report = json.loads(run_cli("status", "--format", "json", cwd=docs.root).stdout)
    assert (report["phases"][0]["done"], report["phases"][0]["total"]) == (6, 7)


def test_a_folder_named_shared_that_holds_a_stages_folder_is_a_unit(docs: DocsRepo) -> None:
    # kiro_project's Unit 1 is `shared` (construction/shared/functional-design/, .../code/). Read as no unit, its
    # Code Generation approval took its unit from a Context naming the next unit, and that unit's Functional Design
    # approval after it was called out of order.
    docs.write(f"{DOCS}/construction/shared/functional-design/business-rules.md", "# Rules\n")
    docs.write(f"{DOCS}/construction/shared/code/code-summary.md", "# Code\n")
    for n, (heading, context) in enumerate([
            ("Functional Design (shared) - Approval", "CONSTRUCTION - Unit 1: shared"),
            ("Code Generation (shared) - User Approval", "CONSTRUCTION - Functional Design Unit 3: billing"),
            ("Functional Design - Unit 3 Approval", "CONSTRUCTION - Unit 3 billing")]):
        docs.write(AUDIT, docs.read(AUDIT) + f"## {heading}\n**Timestamp**: {iso(stamp(len(ENTRIES) + n))}\n"
                   f'**User Input**: "approved"\n**AI Response**: "Proceeding."\n**Context**: {context}\n\n---\n\n')
    assert "AIDLC-DOCS-007" not in {code for code, _ in found(docs)}
    assert "shared" in read_project(docs.root, DOCS).units
    # A shared/ folder of parts, or of system-wide NFR work (Development-Process-Navigator's shared/nfr-design/), with
    # no functional design or code of its own, is no unit.
    docs.path(f"{DOCS}/construction/shared/functional-design/business-rules.md").unlink()
    docs.path(f"{DOCS}/construction/shared/code/code-summary.md").unlink()
    docs.path(f"{DOCS}/construction/shared/functional-design").rmdir()
    docs.path(f"{DOCS}/construction/shared/code").rmdir()
    docs.write(f"{DOCS}/construction/shared/nfr-design/nfr-design-patterns.md", "# Patterns\n")
    assert "shared" not in read_project(docs.root, DOCS).units


def test_a_heading_naming_a_units_number_and_its_folder_ties_them(docs: DocsRepo) -> None:
    # aidlc-result: `#### Unit 1: Backend API` over its stage lines, the plans named by the folder
    # (`backend-api-functional-design-plan.md`). The open plan of unit 3 was never found to be unit 3's.
    docs.write(f"{DOCS}/construction/billing/functional-design/business-rules.md", "# Rules\n")
    docs.write(f"{DOCS}/construction/plans/billing-functional-design-plan.md", plan("Functional Design", 3, 2))
    docs.replace(STATE, OPERATIONS, "#### Unit 3: Billing\n- [x] Functional Design\n\n" + OPERATIONS)
    approve(docs, "Functional Design - Unit 3 Approval", "CONSTRUCTION - Unit 3 billing")
    assert found(docs) == [("AIDLC-DOCS-005", docs.line(STATE, "#### Unit 3: Billing") + 1)]
    # The units' document ties them as well, and an approval naming the folder is unit 3's.
    docs.replace(STATE, "#### Unit 3: Billing", "#### Unit 3")
    docs.write(f"{DOCS}/inception/application-design/unit-of-work.md", "# Units\n\n## Unit 1: orders-api\n\n"
               "## Unit 2: shop-web\n\n## Unit 3: billing\n")
    docs.write(f"{DOCS}/construction/plans/billing-functional-design-plan.md", plan("Functional Design", 3, 3))
    log = docs.read(AUDIT).replace("- Unit 3 Approval", "(billing) - Approval")
    docs.write(AUDIT, log.replace("CONSTRUCTION - Unit 3 billing", "CONSTRUCTION"))
    assert found(docs) == []
    # A line naming the folder (aws-ai-dlc: `(EXECUTE, frontend)` under `## Unit 2: Frontend (React)`) is the same unit
    # as its number: the approval under `## Billing Functional Design` approves it.
    docs.replace(STATE, "- [x] Functional Design\n\n", "- [x] Functional Design (EXECUTE, billing)\n\n")
    docs.replace(AUDIT, "## Functional Design (billing) - Approval", "## Billing Functional Design")
    assert found(docs) == []
    # Without its approval, the finding names the unit as AIDLC-DOCS-028 and status do: as its heading names it (a
    # unit named only after the stage's name may be a passing mention of another: aidlc/aidlc_docs/state_line.py).
    docs.replace(AUDIT, '## Billing Functional Design\n', '## Billing Functional Design\n**Status**: not approved\n')
    [finding] = docs.findings("AIDLC-DOCS-003")
    assert "Functional Design of unit 3 is ticked" in finding.message


def test_a_list_item_naming_a_units_number_and_its_folder_as_one_label_ties_them(docs: DocsRepo) -> None:
    # kiro-ai-dlc-demo: `- [x] **Cost Analytics Service** (Unit 1) — In Progress` over the unit's stage lines, its
    # plans named by the folder: their open boxes under ticked lines went unjudged (unit 1 and the folder apart).
    docs.write(f"{DOCS}/construction/billing/functional-design/business-rules.md", "# Rules\n")
    docs.write(f"{DOCS}/construction/plans/billing-functional-design-plan.md", plan("Functional Design", 3, 2))
    docs.replace(STATE, OPERATIONS, "- [x] **Billing** (Unit 3) — In Progress\n  - [x] **Functional Design** — "
                 "Completed\n\n" + OPERATIONS)
    approve(docs, "Functional Design - Unit 3 Approval", "CONSTRUCTION - Unit 3")
    unit_line = docs.line(STATE, "**Billing** (Unit 3)")  # names no stage: a note (AIDLC-DOCS-012)
    assert found(docs) == [("AIDLC-DOCS-012", unit_line), ("AIDLC-DOCS-005", unit_line + 1)]
    # Named apart, in a sentence, they are not one label: no tie, the plan is judged as the folder's alone.
    docs.replace(STATE, "**Billing** (Unit 3)", "Unit 3 (after billing is split)")
    assert read_project(docs.root, DOCS).unit_numbers == {}


def test_the_name_row_of_a_table_under_a_units_heading_ties_its_number_and_folder(docs: DocsRepo) -> None:
    """3feet-lim/kb-ai-dlc-workshop: `## Unit 2: Customer Frontend`, then `| Name | customer-web |`; status showed unit
    2 and the folder customer-web apart, its plans judged as no unit's. A row naming another unit's folder later in
    the section (`| Depends on | billing |`) ties nothing, nor a name row under no unit's heading. A heading may name a
    folder of two names as it joins them (`Order + SSE`: order-sse)."""
    for folder in ("billing", "ledger"):
        docs.write(f"{DOCS}/construction/{folder}/functional-design/business-rules.md", "# Rules\n")
    units = f"{DOCS}/inception/application-design/unit-of-work.md"
    docs.write(units, "# Units\n\n| Name | ledger |\n\n## Unit 3: Invoicing\n\n| Attribute | Value |\n|---|---|\n"
               "| Depends on | ledger |\n| **Name** | `billing` |\n\n## Unit 4: Accounts\n\n| Type | ledger |\n")
    assert read_project(docs.root, DOCS).unit_numbers == {"billing": "3"}
    # Dongseck/table-order: `## Unit 3: Order + SSE 도메인` names the folder order-sse, two names joined
    docs.write(f"{DOCS}/construction/order-sse/functional-design/business-rules.md", "# Rules\n")
    docs.write(units, "# Units\n\n## Unit 3: Order + SSE 도메인 (1명)\n\n## Unit 4: Order & SSE-free\n")
    assert read_project(docs.root, DOCS).unit_numbers == {"order-sse": "3"}


def test_an_approval_naming_its_unit_and_no_stage_approves_the_stage_that_unit_was_at(docs: DocsRepo) -> None:
    # aws-hackathon-2026: `## Unit 5: 料理管理 - 承認・コミット/プッシュ` after that unit's Code Generation entries.
    log = docs.read(AUDIT)
    start = log.index("## Code Generation - Unit 2 Approval")
    end = log.index("## Build and Test - Approval")
    at = iso(stamp(11))
    unit_2 = (f"## Unit 2: shop-web - Code Generation Part 2 complete\n**Timestamp**: {at}\n"
              f'**AI Response**: "12 files generated."\n**Context**: CONSTRUCTION - Code Generation (Unit 2)\n\n---\n\n'
              f'## Unit 2: shop-web - 承認・コミット\n**Timestamp**: {at}\n**User Input**: "OK. コミットしてください"\n'
              f'**AI Response**: "Unit 2 を承認として記録"\n**Context**: CONSTRUCTION\n\n---\n\n')
    docs.write(AUDIT, log[:start] + unit_2 + log[end:])
    assert found(docs) == []
    # Without an entry saying which stage unit 2 was at, the approval approves no stage.
    docs.write(AUDIT, log[:start] + unit_2[unit_2.index("## Unit 2: shop-web - 承認"):] + log[end:])
    assert found(docs) == [("AIDLC-DOCS-003", docs.line(STATE, "Code Generation - EXECUTE (Unit 2"))]


@pytest.mark.parametrize(("context", "approved"), [
    # MangoYoun/aidlc-workshop-tableorder: the unit named in the Context alone, by its folder's name in words
    ("CONSTRUCTION - NFR Design (Backend Service) 완료, Infrastructure Design 시작", True),
    ("CONSTRUCTION - NFR Design (Unit 3) 완료, Infrastructure Design 시작", True),  # by its number
    ("CONSTRUCTION - NFR Design 완료", False)])  # no unit: of three units, not unit 3's
def test_an_approval_whose_context_alone_names_the_unit_approves_that_unit_s_stage(docs: DocsRepo, context: str,
                                                                                 approved: bool) -> None:
    # `#### Unit 1: Backend Service` over the unit's lines, its folder construction/backend-service; `## NFR Design -
    # User Approval` names the stage and no unit: its Context names it, by the folder, and that approval was the
    # folder's, not unit 1's, so the unit's NFR Design stood unapproved.
    docs.write(f"{DOCS}/construction/backend-service/nfr-design/nfr-design-patterns.md", "# Patterns\n")
    docs.replace(STATE, OPERATIONS, "#### Unit 3: Backend Service\n- [x] NFR Design (COMPLETED)\n\n" + OPERATIONS)
    docs.write(AUDIT, docs.read(AUDIT) + f"## NFR Design - User Approval\n**Timestamp**: {iso(stamp(len(ENTRIES)))}\n"
               f'**User Input**: "다음 진행해줘"\n**AI Response**: "NFR Design 승인 확인"\n'
               f"**Context**: {context}\n\n---\n\n")
    assert found(docs) == ([] if approved else [("AIDLC-DOCS-003", docs.line(STATE, "NFR Design (COMPLETED)"))])


def test_a_line_about_all_units_is_no_units_line(docs: DocsRepo) -> None:
    # wc2026-predictor: `Build and Test (all units) (... api/web images build ...)` was one unit's (a folder's word on
    # the line, or the heading above it), so only that unit's code-generation plan was held against it.
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", "#### Unit 2: shop-web\n- [x] Build and Test (all units)")
    docs.write(f"{DOCS}/construction/plans/unit-1-orders-api-code-generation-plan.md", plan("Code Generation", 4, 3))
    codes = {code: line for code, line in found(docs)}
    assert codes.get("AIDLC-DOCS-006") == docs.line(STATE, "Build and Test (all units)")


def test_only_the_units_document_ties_a_number_to_a_folder_not_its_dependency_map(docs: DocsRepo) -> None:
    # unit-of-work-dependency.md sorts before unit-of-work.md; its `## Unit 1 → billing` says who needs whom.
    docs.write(f"{DOCS}/construction/billing/functional-design/business-rules.md", "# Rules\n")
    docs.write(f"{DOCS}/inception/application-design/unit-of-work-dependency.md", "# Dependencies\n\n"
               "## Unit 1 → billing\n")
    docs.write(f"{DOCS}/inception/application-design/unit-of-work.md", "# Units\n\n## Unit 3: billing\n")
    assert read_project(docs.root, DOCS).unit_numbers == {"billing": "3"}


BOTH = "- [x] Code Generation - EXECUTE (Unit 1: orders-api)\n- [x] Code Generation - EXECUTE (Unit 2: shop-web)\n"


def test_a_line_listing_two_units_claims_the_stage_of_each(docs: DocsRepo) -> None:
    # `Code Generation - Unit 1 orders-api + Unit 2 shop-web` (the shape of a Korean project's state file): unit 2's
    # open plan and missing approval are found at that line, as if it had a line of its own.
    docs.replace(STATE, BOTH, "- [x] Code Generation - Unit 1 orders-api (3 files) + Unit 2 shop-web (2 files)\n")
    assert found(docs) == []
    listing = docs.line(STATE, "Unit 2 shop-web (2 files)")
    docs.write(f"{DOCS}/construction/plans/unit-2-shop-web-code-generation-plan.md", plan("Code Generation Plan", 3, 2))
    assert found(docs) == [("AIDLC-DOCS-005", listing), ("AIDLC-DOCS-006", docs.line(STATE, "- [x] Build and Test"))]
    docs.write(f"{DOCS}/construction/plans/unit-2-shop-web-code-generation-plan.md", plan("Code Generation Plan", 3, 3))
    docs.write(AUDIT, audit_text([entry for entry in ENTRIES if entry[0] != "Code Generation - Unit 2 Approval"]))
    [finding] = docs.findings("AIDLC-DOCS-003")
    assert (finding.line, "Code Generation of unit 2 is ticked" in finding.message) == (listing, True)
    report = json.loads(run_cli("status", "--format", "json", cwd=docs.root).stdout)
    by_unit = {u["unit"]: [(s["stage"], s["line"]) for s in u["stages"]] for u in report["units"]}
    assert ("code-generation", listing) in by_unit["1"] and ("code-generation", listing) in by_unit["2"]


@pytest.mark.parametrize(("text", "units"), [
    ("Code Generation - Unit 1 Backend (82 Java, 10 SQL) + Unit 2 Frontend (27 TSX/TS)", ["1", "2"]),
    ("Functional Design - Unit 1 and Unit 2 designs completed and approved; Unit 3 skipped", ["1", "2"]),
    ("Code Generation - Unit 1: DataStore, Unit 2: Mock API", ["1", "2"]),
    ("Code Generation - U1, U2, U3", ["1", "2", "3"]),
    ("Code Generation (Unit 3-A / Unit 3-B)", ["3A", "3B"]),
    ("Code Generation - Unit 2, after Unit 1", ["2"]),  # a sentence, not a list
    ("Code Generation - Unit 2 (reuses Unit 1's models)", ["2"]),  # an aside
    ("Code Generation - Unit 2 replaces Unit 1", ["2"]),
    ("Code Generation - Unit 1 done and Unit 2 pending", ["1"]),  # each unit's own state: no list
    # each unit's label says it is done: both are (aiao-workshop)
    ("Code Generation - EXECUTE (per-unit) - Unit 1 Complete (2026-02-09T14:46:27+09:00), Unit 3 Complete "
     "(2026-02-09T14:57:00+09:00)", ["1", "3"]),
    ("Functional Design - Unit 1 done, Unit 2 approved, Unit 3 pending", ["1", "2"]),  # as far as they agree
    ("Code Generation - EXECUTE (Unit 1: orders-api)", ["1"]),
    ("代码生成 - U1~U3 全部完成", ["1", "2", "3"]),  # a range (kiro-project-demo)
    ("Code Generation — 완료. 전 유닛(U1~U3) 코드", ["1", "2", "3"]),  # a range in the only aside (DocSuri)
    ("Functional Design - Unit 2〜4", ["2", "3", "4"]),
    ("Functional Design - U-01 Domain Core", ["1"]),  # cu-aaii
    ("CONSTRUCTION - UOW-02 Functional Design", ["2"]),  # a unit of work (jin-101/SPA-BRIDGE)
    ("Code Generation - UOW-01 ~ UOW-03", ["1", "2", "3"]),
    ("Code Generation - UoW-1 Backend", ["1"]),  # assayw119
    ("CONSTRUCTION - V2-GAP-UOW-01 Code Generation", [None]),  # a unit of a second set: not unit 1
    ("NFR Requirements - COMPLETED & APPROVED (2026-07-23) - React 18 (U01-H20 discharged)", [None]),  # a handoff's id
    ("Build and Test - Fixed U08-H7", [None]),  # u-10bei: a handoff of unit 8, not the unit's line
    # u-10bei/nazokake-judge: a business rule's id, once read as units 6 to 12, seven findings of one line
    ("Infrastructure Design - 承認済み（2026-07-20）。**BR-U6-12 を改訂**", [None]),
    ("Code Generation - FR-U2 done", [None]),
    ("Code Generation - U1-U2 and U4", ["1", "2", "4"]),
    ("Code Generation - Unit 1 - 2 files", ["1"]),  # a hyphen between spaces: no range
    ("Code Generation - U1~U999", ["1"]),  # more units than any project has: no range
    ("Infrastructure Design - COMPLETE (Unidad 4 CI/CD)", ["4"]),  # Spanish (ferco)
    ("Code Generation - Unidade 2 e Unidade 3", ["2", "3"]),  # Portuguese
    ("Units Generation (7 unidades descompuestas)", [None]),
    ("Build and Test — COMPLETED (전체 빌드 성공, 단위 86/86 통과)", [None]),  # unit tests passed (baddie-eye)
])
def test_which_units_a_stage_line_lists(text: str, units: list[str | None]) -> None:
    state = read_state(f"# State\n\n- [x] {text}\n", f"{DOCS}/aidlc-state.md")
    assert [(line.line, line.unit) for line in state.stages] == [(3, unit) for unit in units]


@pytest.mark.parametrize("words", ["all 2 units", "Unit 1~2 전체"])  # get-me-a-coke; caujms123
def test_a_stage_ticked_for_all_units_claims_the_approval_of_each(docs: DocsRepo, words: str) -> None:
    # `Code Generation (COMPLETED — all units)` (get-me-a-coke's words): any one unit's approval of the stage used to
    # do for the line; each unit with work for the stage must have its own, or one approval must name no unit.
    docs.replace(STATE, BOTH, f"- [x] Code Generation (COMPLETED — {words})\n")
    assert found(docs) == []
    line = docs.line(STATE, words)
    docs.write(AUDIT, audit_text([entry for entry in ENTRIES if entry[0] != "Code Generation - Unit 2 Approval"]))
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    assert result.returncode == 1
    [finding] = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "AIDLC-DOCS-003"]
    assert (finding["line"], "Code Generation of unit 2 is ticked" in finding["message"]) == (line, True)
    # The step taken for every unit at once, approved once: an approval naming no unit.
    approve(docs, "Code Generation - Approval", "CONSTRUCTION - Code Generation complete for all units")
    assert found(docs) == []


def test_a_range_ticked_as_all_claims_the_units_of_the_range_only(docs: DocsRepo) -> None:
    # `(Unit 1~2 전체)`: all of units 1 and 2; a unit 3 with code of its own is not claimed by the line.
    docs.write(f"{DOCS}/construction/unit-3-reports/code/code-summary.md", "# Code\n")
    docs.replace(STATE, BOTH, "- [x] Code Generation (COMPLETED — Unit 1~2 전체)\n")
    assert found(docs) == []


@pytest.mark.parametrize("words", ["all units", "All 4 Units", "both units", "every unit", "todas las unidades",
                                   "Unit 1~4 전체", "U1-U4 all",  # caujms123: a range, then "all"
                                   "全ユニット完了", "全10ユニット完了"])  # agwlvssainokuni/MasterMeister4
def test_words_that_tick_a_stage_for_every_unit(words: str) -> None:
    [line] = read_state(f"# State\n\n- [x] Functional Design (COMPLETED — {words})\n", STATE).stages
    assert (line.unit, line.every_unit) == (None, True)


def test_a_range_without_all_lists_its_units() -> None:
    [*lines] = read_state("# State\n\n- [x] Functional Design (Unit 1~3)\n", STATE).stages
    assert [(line.unit, line.every_unit) for line in lines] == [("1", False), ("2", False), ("3", False)]


def test_a_stage_name_does_not_name_the_unit_folder_it_holds_a_word_of(docs: DocsRepo) -> None:
    # get-me-a-coke: a unit folder `infrastructure`, and `## Functional Design - Approval` with the context `Next:
    # Infrastructure Design` was read as that unit's approval, not the all-units approval it is.
    assert folders_named("Functional Design approved. Next: Infrastructure Design.", ["infrastructure"]) == []
    assert folders_named("Infrastructure_Design of the infrastructure unit", ["infrastructure"]) == ["infrastructure"]
    docs.write(f"{DOCS}/construction/infrastructure/code/code-summary.md", "# Code summary\n")
    docs.replace(STATE, BOTH, "- [x] Code Generation (COMPLETED — all units)\n")
    docs.write(AUDIT, audit_text([entry for entry in ENTRIES if not entry[0].startswith("Code Generation")]))
    approve(docs, "Code Generation - Approval", "CONSTRUCTION - Code Generation approved. Next: Infrastructure Design")
    assert found(docs) == []


def test_a_bold_field_under_a_unit_s_heading_keeps_the_unit_of_the_lines_after_it() -> None:
    # u-10bei/nazokake-judge: `**背景**: ...` ("background: ...") under `#### U5: ...` read as a bold heading naming
    # no unit, and the unit's stage lines were no unit's; a bold line alone still names the unit of what follows
    text = ("# State\n\n#### U5: 出題停止（item retirement）— **完了**\n**背景**: 著作権上の配慮\n"
            "- [x] Functional Design — **承認済み**（2026-07-17）\n**Unit 6: Layers**\n- [x] Functional Design\n")
    state = read_state(text, f"{DOCS}/aidlc-state.md")
    assert [(line.line, line.unit) for line in state.stages] == [(5, "5"), (7, "6")]


@pytest.mark.parametrize(("text", "unit"), [("U06b 商品/SKU 导入适配器", "6B"), ("U4a Functional Design", "4A"),
                                          ("u4b", "4B"), ("U10", "10"), ("U3D printer", None), ("USB U2F key", None),
                                          ("prepends `\\u200b`", None), ("a \\u2014 b", None)])
def test_a_u_number_with_a_small_letter_names_a_unit_of_its_own(text: str, unit: str | None) -> None:
    assert unit_of(text) == unit


@pytest.mark.parametrize(("said", "approved"), [(None, False), ("approved", True)])
def test_a_unit_named_u_number_letter_stands_on_its_own_approvals_not_another_unit_s(
        docs: DocsRepo, said: str | None, approved: bool) -> None:
    # zizuiliaoya-droid/clothinkai keeps folders U01 to U18 beside U06a to U06e, U10a and U10b; read as folders without
    # a number, an entry headed by U06b whose Context names U02 tied U06b to unit 2, and U06b's ticked stages stood on
    # unit 2's approvals (u-10bei/nazokake-judge's U2 on U4a's likewise).
    docs.replace(STATE, OPERATIONS, "#### U06b: Import adapter\n- [x] Functional Design — adapter rules\n\n"
                 + OPERATIONS)
    docs.write(f"{DOCS}/construction/U06b/functional-design/business-rules.md", "# Business rules\n")
    user = f'**User Input**: "{said}"\n' if said is not None else ""
    docs.write(AUDIT, docs.read(AUDIT) + f"## U06b Import adapter — Functional Design\n"
               f"**Timestamp**: {iso(stamp(len(ENTRIES)))}\n{user}**AI Response**: \"Recorded.\"\n"
               "**Context**: U06b Functional Design done; it reuses Unit 2's upsert\n\n---\n\n")
    line = docs.line(STATE, "Functional Design — adapter rules")
    assert [f.line for f in docs.findings("AIDLC-DOCS-003")] == ([] if approved else [line])
