"""Shapes of the aidlc-docs layout beyond the rules' templates, as real repositories write them, through the CLI on
real git histories built here: a fork of the rules that keeps one state and one audit log per branch
(`state/main.md`, `audit/main.md`) and writes its stage progress as a table; a plan replaced by a revised one; audit
logs that carry each entry's time in its heading (as aiao-workshop's, Mock-Court's and valo-checker's do)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta, timezone
from pathlib import Path

import pytest

from aidlc.aidlc_docs.reader import read_project
from aidlc.rules.docs_history_scan import history_findings
from tests.aidlc_docs_sample import (
    AUDIT,
    CODE_PLAN,
    DESIGN_PLAN,
    DOCS,
    ENTRIES,
    STATE,
    STORY_PLAN,
    DocsRepo,
    build_docs_repo,
    clean_files,
    entry_text,
    iso,
    plan,
    stamp,
)
from tests.helpers import git_init, run_cli

BRANCH_STATE = f"{DOCS}/state/main.md"
BRANCH_AUDIT = f"{DOCS}/audit/main.md"

TABLE_STATE = """\
# AIDLC State - Branch: main

**Project**: Support Desk
**Branch**: main
**Last Updated**: 2026-11-30T09:00:00Z

---

## Stage Progress

### 🔵 INCEPTION PHASE

| Stage | Status | Artifacts |
|-------|--------|-----------|
| Workspace Detection | ✅ Complete | - |
| Requirements Analysis | ✅ Complete | requirements/requirements.md |
| User Stories | ⏭️ Skipped | Fast-track mode |
| Workflow Planning | ✅ Complete | plans/workflow-plan.md |

### 🟢 CONSTRUCTION PHASE

| Stage | Status | Artifacts |
|-------|--------|-----------|
| Functional Design | ⏭️ Skipped | Fast-track |
| Code Generation | ✅ Complete | All units generated |
| Build and Test | 🔄 In Progress | - |

### 🟡 OPERATIONS PHASE

| Stage | Status | Artifacts |
|-------|--------|-----------|
| Operations | ⬜ Placeholder | - |

## Extensions

| Extension | Enabled | Decided At |
|---|---|---|
| Security Baseline | Yes | Requirements Analysis |
"""

APPROVALS = [
    ("Workspace Detection - Initial Request", "Build a support desk", "Greenfield detected", "INCEPTION"),
    ("Requirements Analysis - Approval", "approve", "Requirements approved", "INCEPTION - Requirements Analysis"),
    ("Workflow Planning - Approval", "continue", "Plan approved", "INCEPTION - Workflow Planning"),
    ("Code Generation - Approval", "ok, approved", "Code approved", "CONSTRUCTION - Code Generation"),
]


def branch_files(entries: list[tuple[str, str, str, str]] = APPROVALS) -> dict[str, str]:
    return {
        BRANCH_STATE: TABLE_STATE,
        f"{DOCS}/state/state-index.md": "# AIDLC State Index\n\n| Branch | Current Stage | Last Updated |\n"
                                        "|---|---|---|\n| main | ✅ COMPLETE | 2026-11-30 |\n",
        BRANCH_AUDIT: "# AI-DLC Audit Log - Branch: main\n\n" + "".join(
            entry_text(heading, stamp(n), said, response, context)
            for n, (heading, said, response, context) in enumerate(entries)),
        f"{DOCS}/audit/audit-index.md": "# AIDLC Audit Index\n\n| Branch | Status |\n|---|---|\n| main | Active |\n",
        f"{DOCS}/branches/main/inception/requirements/requirements.md": "# Requirements\n\n## FR-1: Open a ticket\n",
        "src/desk.py": "def open_ticket():\n    return 1\n",
    }


def build_branch_repo(root: Path, entries: list[tuple[str, str, str, str]] = APPROVALS) -> DocsRepo:
    root.mkdir(parents=True)
    git_init(root)
    repo = DocsRepo(root)
    for rel, text in branch_files(entries).items():
        repo.write(rel, text)
    repo.commit("aidlc-docs: the support desk through code generation", stamp(len(entries)))
    return repo


def findings(repo: DocsRepo) -> tuple[int, list[tuple[str, str, int | None]]]:
    result = run_cli("validate", str(repo.root), "--format", "json")
    report = json.loads(result.stdout)
    return result.returncode, [(f["code"], f["path"], f["line"]) for f in report["findings"]]


@pytest.fixture
def branch(tmp_path: Path) -> DocsRepo:
    return build_branch_repo(tmp_path / "desk")


def test_a_table_state_of_a_per_branch_layout_is_read_and_a_clean_one_passes(branch: DocsRepo) -> None:
    result = run_cli("validate", str(branch.root))
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().endswith("0 errors, 0 warnings, 0 notes")
    status = json.loads(run_cli("status", str(branch.root), "--format", "json").stdout)
    assert status["state"] == BRANCH_STATE
    rows = {(s["stage"], s["mark"], s["skipped"]) for phase in status["phases"] for s in phase["stages"]}
    assert rows == {("workspace-detection", "done", False), ("requirements-analysis", "done", False),
                    ("user-stories", "skipped", True), ("workflow-planning", "done", False),
                    ("functional-design", "skipped", True), ("code-generation", "done", False),
                    ("build-and-test", "in-progress", False), ("operations", "pending", False)}


def test_a_table_row_ticked_without_an_approval_is_found_on_its_line(tmp_path: Path) -> None:
    repo = build_branch_repo(tmp_path / "desk", [e for e in APPROVALS if not e[0].startswith("Code Generation")])
    code, found = findings(repo)
    line = repo.line(BRANCH_STATE, "| Code Generation |")
    assert code == 1
    # The work tree's rule; the history's finds the commit ticked it with no approval in the log it held, and leaves
    # it to 003, which reports it unapproved still.
    assert ("AIDLC-DOCS-003", BRANCH_STATE, line) in found
    assert ("AIDLC-DOCS-028", BRANCH_STATE, line) not in found
    assert [(f.code, f.line) for f in history_findings(read_project(repo.root, DOCS))] == [("AIDLC-DOCS-028", line)]
    # Skipped rows, the in-progress row, the placeholder and the extension table claim nothing.
    claimed = [f for f in found if f[0] in ("AIDLC-DOCS-003", "AIDLC-DOCS-012")]
    assert claimed == [("AIDLC-DOCS-003", BRANCH_STATE, line)]


def test_a_ticked_row_awaiting_approval_and_one_with_an_open_plan_are_errors(branch: DocsRepo) -> None:
    branch.replace(BRANCH_STATE, "| Workflow Planning | ✅ Complete |", "| Workflow Planning | ✅ Complete (awaiting "
                   "approval) |")
    branch.write(f"{DOCS}/branches/main/construction/plans/code-generation-plan.md",
                 "# Code Generation Plan\n\n- [x] Step 1: models\n- [ ] Step 2: handlers\n")
    branch.commit("aidlc-docs: progress", stamp(len(APPROVALS) + 1))
    code, found = findings(branch)
    assert code == 1
    assert ("AIDLC-DOCS-004", BRANCH_STATE, branch.line(BRANCH_STATE, "| Workflow Planning |")) in found
    assert ("AIDLC-DOCS-005", BRANCH_STATE, branch.line(BRANCH_STATE, "| Code Generation |")) in found


def test_the_audit_index_is_not_read_as_an_audit_log(branch: DocsRepo) -> None:
    branch.write(f"{DOCS}/audit/audit-index.md", "# AIDLC Audit Index\n\n**Timestamp**: not a time\n")
    branch.commit("index", stamp(len(APPROVALS) + 1))
    assert findings(branch) == (0, [])


def test_several_branch_states_are_not_merged_into_one(branch: DocsRepo) -> None:
    # Two branches' states are two projects' progress: aidlc reads neither as the project's, never one at random.
    branch.write(f"{DOCS}/state/feature-x.md", TABLE_STATE.replace("| Code Generation | ✅ Complete |",
                                                                   "| Code Generation | ✅ Done |"))
    branch.commit("feature-x state", stamp(len(APPROVALS) + 1))
    status = json.loads(run_cli("status", str(branch.root), "--format", "json").stdout)
    assert status["state"] is None


def test_a_stage_table_in_the_flat_state_file_is_read_too(tmp_path: Path) -> None:
    repo = build_branch_repo(tmp_path / "desk", [e for e in APPROVALS if not e[0].startswith("Workflow")])
    flat = f"{DOCS}/aidlc-state.md"
    repo.write(flat, repo.read(BRANCH_STATE).replace("| Stage | Status |", "| 단계 | 상태 |"))
    (repo.root / BRANCH_STATE).unlink()
    repo.commit("flat state", stamp(len(APPROVALS)))
    _, found = findings(repo)
    assert ("AIDLC-DOCS-003", flat, repo.line(flat, "| Workflow Planning |")) in found



def test_a_status_cell_holding_a_checkbox_is_read_as_the_box(tmp_path: Path) -> None:
    # FairShare: `| Inception | Workflow Planning | [x] | 4-phase plan approved. |` was read as not ticked, and its
    # missing approval went unreported.
    repo = build_branch_repo(tmp_path / "desk", [e for e in APPROVALS if not e[0].startswith("Workflow")])
    repo.write(BRANCH_STATE, repo.read(BRANCH_STATE).replace("| Workflow Planning | ✅ Complete |",
                                                             "| Workflow Planning | [x] |")
               .replace("| Code Generation | ✅ Complete |", "| Code Generation | [ ] |"))
    repo.commit("boxes in the status column", stamp(len(APPROVALS)))
    _, found = findings(repo)
    assert ("AIDLC-DOCS-003", BRANCH_STATE, repo.line(BRANCH_STATE, "| Workflow Planning |")) in found
    status = json.loads(run_cli("status", str(repo.root), "--format", "json").stdout)
    marks = {s["stage"]: s["mark"] for phase in status["phases"] for s in phase["stages"]}
    assert (marks["workflow-planning"], marks["code-generation"]) == ("done", "pending")


EARLY_PHASES = ["Welcome", "Initial Setup", "Phase 1: Requirements Assessment", "Phase 2: Story Planning",
                "Phase 3: Story Development", "Phase 4: Architectural Decision", "Phase 5: Unit Planning",
                "Phase 6: Unit Generation", "Phase 12: Unit Code Generation"]


def test_the_phases_of_the_prompts_before_the_first_release_are_named_not_guessed(tmp_path: Path) -> None:
    # sathishc/ticketing and aireadydatablueprints.com (January 2025): numbered phases that cut the work otherwise
    # than today's stages, and entries of a Prompt, a Response and a Status. Each name is reported, no tick judged.
    root = tmp_path / "ticketing"
    root.mkdir()
    git_init(root)
    repo = DocsRepo(root)
    repo.write(f"{DOCS}/aidlc-state.md", "# AI-DLC State Tracking\n\n## Phase Progress\n" + "".join(
        f"- [x] {name}\n" for name in EARLY_PHASES) + "- [ ] Phase 7: Unit Design Planning\n")
    repo.write(AUDIT, "# AI-DLC Audit Trail\n\n## Phase 1: Requirements Assessment\n**Timestamp**: "
               f"{iso(stamp(0))}\n**Prompt**: \"Requirements assessment complete. Are you ready to begin with Story "
               "Planning?\"\n**Response**: \"yes\"\n**Status**: Approved\n**Context**: requirements.md written\n")
    repo.commit("phase 1", stamp(0))
    report = json.loads(run_cli("validate", str(root), "--format", "json").stdout)
    named = [(f["code"], f["line"]) for f in report["findings"] if f["path"] == f"{DOCS}/aidlc-state.md"]
    assert named == [("AIDLC-DOCS-012", line) for line in range(4, 4 + len(EARLY_PHASES) + 1)]
    assert report["summary"]["errors"] == 0
    status = json.loads(run_cli("status", str(root), "--format", "json").stdout)
    assert [stage for phase in status["phases"] for stage in phase["stages"]] == []


# -- a plan replaced by a revised one -------------------------------------------------------------------------------
@pytest.fixture
def shop(tmp_path: Path) -> DocsRepo:
    return build_docs_repo(tmp_path / "shop")


def test_a_plan_replaced_by_its_revision_is_a_note_and_the_revision_is_judged(shop: DocsRepo) -> None:
    revised = CODE_PLAN.replace("-plan.md", "-plan-revised.md")
    shop.write(revised, shop.read(CODE_PLAN))  # 4 of 4 steps done
    shop.write(CODE_PLAN, plan("Code Generation Plan (first draft)", 6, 0))  # abandoned: every box open
    shop.commit("aidlc-docs: the code-generation plan revised", stamp(len(ENTRIES) + 1))
    code, found = findings(shop)
    assert code == 0
    assert found == [("AIDLC-DOCS-016", CODE_PLAN, None)]
    message = json.loads(run_cli("validate", str(shop.root), "--format", "json").stdout)["findings"][0]["message"]
    assert message == f"replaced by {revised}: its 6 open of 6 boxes are not judged, the revised plan's are"
    # The revision's own open box is judged: the stage is ticked while it is open (and Build and Test after it).
    shop.write(revised, plan("Code Generation Plan (revised)", 4, 3))
    shop.commit("aidlc-docs: a step reopened", stamp(len(ENTRIES) + 2))
    _, found = findings(shop)
    assert {(c, p) for c, p, _ in found} == {("AIDLC-DOCS-016", CODE_PLAN), ("AIDLC-DOCS-005", STATE),
                                             ("AIDLC-DOCS-006", STATE)}


@pytest.mark.parametrize(("ticked", "replaced"), [(0, True), (2, False)])
def test_a_plain_code_plan_beside_the_tdd_plan_that_replaced_it_is_a_note(shop: DocsRepo, ticked: int,
                                                                        replaced: bool) -> None:
    # eunjilee-wm: `table-order-code-generation-plan.md`, 26 steps none ticked, written before the person chose
    # TDD, beside `table-order-tdd-code-generation-plan.md`, 101 of 101 ticked: the rules' TDD variant replaced it
    tdd = CODE_PLAN.replace("-code-generation-plan.md", "-tdd-code-generation-plan.md")
    shop.write(tdd, shop.read(CODE_PLAN))  # 4 of 4 steps done
    shop.write(CODE_PLAN, plan("Code Generation Plan", 6, ticked))
    shop.commit("aidlc-docs: the TDD code-generation plan", stamp(len(ENTRIES) + 1))
    _, found = findings(shop)
    assert {(c, p) for c, p, _ in found} == ({("AIDLC-DOCS-016", CODE_PLAN)} if replaced else
                                             {("AIDLC-DOCS-005", STATE), ("AIDLC-DOCS-006", STATE)})


def test_a_plan_repeating_a_stage_under_another_name_is_judged_too(shop: DocsRepo) -> None:
    # `unit-2-...` beside `unit-2-shop-web-...`: nothing in the names says which one governs, so both are judged.
    other = f"{DOCS}/construction/plans/unit-2-functional-design-plan.md"
    shop.write(other, plan("Functional Design Plan", 3, 0))
    shop.commit("aidlc-docs: a second plan", stamp(len(ENTRIES) + 1))
    _, found = findings(shop)
    assert found == [("AIDLC-DOCS-005", STATE, shop.line(STATE, "(Unit 2: shop-web)"))]


# -- headings glued to the separator before them --------------------------------------------------------------------
@pytest.mark.parametrize("cut", [1, 3, 0])
def test_headings_glued_to_the_separator_and_broken_over_two_lines_are_read(shop: DocsRepo, cut: int) -> None:
    # dragon4499: `---## U`, then `ser Stories Approved` (and `---#`, then `# Workflow Planning Complete`): read as
    # one entry from the fourth heading to the eleventh, its approvals lost (AIDLC-DOCS-003 for two stages)
    text = shop.read(AUDIT)
    glued = re.sub(r"---\n\n(##) (.+)", lambda m: f"---{m.group(1)} {m.group(2)[:cut]}\n{m.group(2)[cut:]}"
                   if cut else f"---#\n# {m.group(2)}", text)
    assert glued.count("---## ") == (len(ENTRIES) - 1 if cut else 0)
    shop.write(AUDIT, glued)
    shop.commit("aidlc-docs: the log as the agent wrote it", stamp(len(ENTRIES) + 1))
    code, found = findings(shop)  # the committed entries re-laid out: the history says so (022), nothing else
    assert code == 0 and {c for c, _, _ in found} <= {"AIDLC-DOCS-022"}


# -- audit logs stamped in their headings ---------------------------------------------------------------------------
def heading_last(heading: str, n: int, user: str | None, response: str) -> str:
    """An entry as aiao-workshop writes one: the time after the heading, the person's words under a sub-heading."""
    said = f"#### User Response\n```\n{user}\n```\n\n" if user is not None else ""
    return f"### {heading}: {iso(stamp(n))}\n\n{said}#### AI Response\n- {response}\n\n---\n\n"


def heading_first(heading: str, n: int, user: str | None, response: str) -> str:
    """An entry as Mock-Court writes one: the time first, the person's words on a bullet."""
    said = f'- User: "{user}" → next stage\n' if user is not None else ""
    return f"## {iso(stamp(n))} — {heading}\n{said}- {response}\n\n"


def date_fields(heading: str, n: int, user: str | None, response: str) -> str:
    """An entry as TRIPRI and kiro-ai-dlc-demo write one: a Date field, the person's words as Input or User
    Approval."""
    said = f'- **{"Input" if n % 2 else "User Approval"}**: "{user}"\n' if user is not None else ""
    return f"## Entry {n + 1}: {heading}\n- **Date**: {iso(stamp(n))}\n{said}- **AI Response**: {response}\n\n"


def stage_field(heading: str, n: int, user: str | None, response: str) -> str:
    """An entry as hdhomerun-linux writes one: the time alone as its heading, its stage on a Stage bullet, the
    person's words on a User Response bullet."""
    said = f"- **User Response**: {user}\n" if user is not None else ""
    return f"## {iso(stamp(n))}\n- **Stage**: {heading}\n{said}- **AI Response**: {response}\n\n"


def bracketed_first(heading: str, n: int, user: str | None, response: str) -> str:
    """An entry as hygef-v4/valo-checker writes one: the local time and its zone first, in brackets, no separator
    before the heading; the person's words on a Raw Input bullet."""
    local = stamp(n).astimezone(timezone(timedelta(hours=7))).isoformat(timespec="seconds")
    said = f"- **Raw Input**: `{user}`\n" if user is not None else ""
    return f"### [{local}] {heading}\n{said}- **Action**: {response}\n\n"


def blank_first(heading: str, n: int, user: str | None, response: str) -> str:
    """An entry as Mbg999/aidlc-factory writes one: the time first and the heading after a blank, no separator; the
    person's words on a User Input field."""
    said = f'**User Input**: "{user}"\n' if user is not None else ""
    return f"## {iso(stamp(n))} {heading}\n{said}**AI Response**: {response}\n\n"


def stamped_repo(root: Path, write: Callable[[str, int, str | None, str], str],
                 entries: list[tuple[str, str | None, str, str]] = ENTRIES) -> DocsRepo:
    """The clean shop, its audit log written by `write` from its first commit on."""
    root.mkdir(parents=True)
    git_init(root)
    repo = DocsRepo(root)
    for rel, text in {**clean_files(), AUDIT: "# AI-DLC Audit Log\n\n" + "".join(
            write(heading, n, user, response) for n, (heading, user, response, _) in enumerate(entries))}.items():
        repo.write(rel, text)
    repo.commit("aidlc-docs: inception and construction of the shop", stamp(len(entries)))
    return repo


@pytest.mark.parametrize("write", [heading_last, heading_first, date_fields, stage_field, bracketed_first,
                                   blank_first],
                         ids=["time-last", "time-first", "date-field", "stage-field", "bracketed-first", "blank-first"])
def test_a_log_stamped_in_its_headings_is_read_and_its_approvals_count(tmp_path: Path, write: Callable[
        [str, int, str | None, str], str]) -> None:
    repo = stamped_repo(tmp_path / "shop", write)
    code, found = findings(repo)
    assert (code, found) == (0, [])
    status = json.loads(run_cli("status", str(repo.root), "--format", "json").stdout)
    assert status["audit_entries"] == len(ENTRIES)


@pytest.mark.parametrize("write", [heading_last, heading_first, date_fields, stage_field, bracketed_first,
                                   blank_first],
                         ids=["time-last", "time-first", "date-field", "stage-field", "bracketed-first", "blank-first"])
def test_a_stage_no_person_approved_in_a_stamped_log_is_found(tmp_path: Path, write: Callable[
        [str, int, str | None, str], str]) -> None:
    # The AI's own "approved" under the heading is not a person's approval.
    entries = [(h, None, r, c) if h.startswith("Code Generation - Unit 2") else (h, u, r, c) for h, u, r, c in ENTRIES]
    repo = stamped_repo(tmp_path / "shop", write, entries)
    code, found = findings(repo)
    assert code == 1
    line = repo.line(STATE, "Code Generation - EXECUTE (Unit 2")
    # The work tree's rule; the history's finds the commit ticked it with no approval in the log, and leaves it to 003.
    assert found == [("AIDLC-DOCS-003", STATE, line)]
    assert [(f.code, f.line) for f in history_findings(read_project(repo.root, DOCS))] == [("AIDLC-DOCS-028", line)]


def test_a_day_heading_over_entries_with_their_own_timestamps_is_no_entry(shop: DocsRepo) -> None:
    # `## 2026-11-30` groups the day's entries: each `## ...` entry below is read as before, and the day heading is
    # not an entry of its own (no DOCS-008 for a date without a time).
    shop.write(AUDIT, shop.read(AUDIT).replace("# AI-DLC Audit Log\n\n", "# AI-DLC Audit Log\n\n# 2026-11-30\n\n"))
    shop.commit("aidlc-docs: the log grouped by day", stamp(len(ENTRIES) + 1))
    assert findings(shop) == (0, [])


def test_a_time_followed_by_its_zone_s_name_stamps_no_entry(shop: DocsRepo) -> None:
    # yucho147/kaggle-ai-dlc-workflow-template heads its notes `### 2026-06-05 15:40 JST` over `- Actor: Codex`: read
    # as 15:40 UTC titled `JST`, each note was dated nine hours after the commit that added it (AIDLC-DOCS-025). A
    # zone's name is not read, so such a heading stamps nothing; a zone written as one (`Z`, `+09:00`) does.
    at = stamp(len(ENTRIES) + 1)
    local = (at - timedelta(minutes=5)).astimezone(timezone(timedelta(hours=9))).strftime("%Y-%m-%d %H:%M")
    shop.write(AUDIT, shop.read(AUDIT) + f"\n### {local} JST\n\n- Actor: Codex\n- Action: read the MCP docs\n")
    shop.commit("aidlc-docs: a note of the agent's", at)
    assert findings(shop) == (0, [])


def test_a_date_without_a_time_in_a_heading_is_named_and_an_edit_inside_a_stamped_entry_is_caught(
        tmp_path: Path) -> None:
    repo = stamped_repo(tmp_path / "shop", heading_last)
    text = repo.read(AUDIT)
    # A new entry stamped with a date alone: read, and its timestamp named as no ISO 8601 date and time.
    repo.write(AUDIT, text + "### Operations Review: 2026-11-30\n\n#### User Response\n```\nnoted\n```\n")
    repo.commit("aidlc-docs: a review", stamp(len(ENTRIES) + 1))
    code, found = findings(repo)
    assert (code, found) == (1, [("AIDLC-DOCS-008", AUDIT, repo.line(AUDIT, "### Operations Review"))])
    # The person's words under a sub-heading are part of the committed entry: rewriting them is an edit.
    repo.write(AUDIT, repo.read(AUDIT).replace("```\nApprove & Continue\n```", "```\nApproved by the board\n```", 1))
    repo.commit("aidlc-docs: the answer reworded", stamp(len(ENTRIES) + 2))
    _, found = findings(repo)
    line = repo.line(AUDIT, "### Requirements Analysis - Approval:")
    assert ("AIDLC-DOCS-021", AUDIT, line) in found


def test_a_stage_in_progress_written_as_a_slash_box_gives_its_units_lines_their_stage(shop: DocsRepo) -> None:
    # `- [/]` (a task list's "in progress") over one ticked line per unit, as table-order writes it: each unit's line
    # is the stage's, and a plan step begun (`[/]`) is not done.
    shop.replace(STATE, "- [x] Functional Design - EXECUTE (Unit 1: orders-api)\n"
                        "- [x] Functional Design - EXECUTE (Unit 2: shop-web)\n",
                 "- [/] Functional Design - EXECUTE (per-unit)\n  - [x] Unit 1: orders-api\n  - [x] Unit 2: shop-web\n")
    shop.write(DESIGN_PLAN, shop.read(DESIGN_PLAN).replace("- [x] Step 2", "- [/] Step 2"))
    shop.commit("aidlc-docs: functional design per unit", stamp(len(ENTRIES) + 1))
    code, found = findings(shop)
    assert (code, found) == (1, [("AIDLC-DOCS-005", STATE, shop.line(STATE, "  - [x] Unit 2: shop-web"))])
    status = json.loads(run_cli("status", str(shop.root), "--format", "json").stdout)
    marks = [(s["stage"], s["mark"], s.get("unit")) for phase in status["phases"] for s in phase["stages"]
             if s["stage"] == "functional-design"]
    assert ("functional-design", "in-progress", None) in marks


def test_a_rule_or_heading_inside_quoted_words_ends_no_entry_and_a_stray_quote_joins_none(tmp_path: Path) -> None:
    # GymStation pastes a person's multi-line request, `---` and all, inside the quotes of its User Input. The entry
    # runs to the closing quote: its Context, which names the stage approved here, is the entry's. Before, the
    # `---` (or a pasted `## My request for Codex:`) ended it there, and Build and Test had no approval.
    files = clean_files()
    approval = files[AUDIT][files[AUDIT].index("## Build and Test - Approval"):]
    pasted = approval.replace("## Build and Test - Approval", "## Review Round").replace(
        '**User Input**: "approved"', '**User Input**: "approved, with notes:\n\n- larger fonts\n\n---\n\n'
        'As an aside, the \\"Bootcamp\\" group needs its own page."')
    # Codex pastes the files a person names as headings inside the quotes (Supplier-Onboarding, ian-blog).
    pasted = pasted.replace("**AI Response**:", "**Notes**: \"# Files mentioned by the user:\n\n## notes.md: "
                            "/home/a/notes.md\n\n## My request for Codex:\nsee the notes\"\n**AI Response**:", 1)
    files[AUDIT] = files[AUDIT].replace(approval, pasted)
    git_init(tmp_path / "shop")
    shop = DocsRepo(tmp_path / "shop")
    for rel, text in files.items():
        shop.write(rel, text)
    shop.commit("aidlc-docs: inception and construction of the shop", stamp(len(ENTRIES)))
    assert findings(shop) == (0, [])
    # A quote that never closes is a separator still at the next `---`: the entry after it is read on its own.
    shop.write(AUDIT, shop.read(AUDIT) + entry_text("Operations - Note", stamp(len(ENTRIES) + 1), '"unclosed',
                                                     "Noted.", "OPERATIONS") + entry_text(
        "Operations - Follow-up", stamp(len(ENTRIES) + 2), "next", "Done.", "OPERATIONS"))
    shop.commit("aidlc-docs: operations", stamp(len(ENTRIES) + 2))
    status = json.loads(run_cli("status", str(shop.root), "--format", "json").stdout)
    assert status["audit_entries"] == len(ENTRIES) + 2


def test_the_only_build_and_test_line_ending_a_unit_s_list_is_the_project_s(shop: DocsRepo) -> None:
    # HCSES and cheongYak-radar end the last unit's list with the project's one Build and Test line. It was that
    # unit's, so only that unit's code-generation plan was held against it.
    text = shop.read(STATE)
    construction = text[text.index("- [x] Functional Design"):text.index("\n### 🟡")]
    shop.replace(STATE, construction, """#### Unit 1: orders-api
- [x] Functional Design - EXECUTE
- [x] NFR Requirements - EXECUTE
- [ ] NFR Design - SKIP
- [ ] Infrastructure Design - SKIP
- [x] Code Generation - EXECUTE

#### Unit 2: shop-web
- [x] Functional Design - EXECUTE
- [x] Code Generation - EXECUTE
- [x] Build and Test - EXECUTE
""")
    shop.commit("aidlc-docs: the stages by unit", stamp(len(ENTRIES) + 1))
    assert findings(shop) == (0, [])
    shop.write(CODE_PLAN, plan("Code Generation Plan", 4, 3))  # unit 1's last step reopened
    code, found = findings(shop)
    assert code == 1
    assert ("AIDLC-DOCS-006", STATE, shop.line(STATE, "- [x] Build and Test")) in found


def open_plan_findings(shop: DocsRepo, state: str) -> set[tuple[str, int | None]]:
    """A step of the code-generation plan left open and the state file written as `state`, committed: the
    AIDLC-DOCS-005 and 006 findings (code, line)."""
    shop.write(CODE_PLAN, plan("Code Generation Plan", 3, 1))
    shop.write(STATE, state)
    shop.commit("aidlc-docs: a step of code generation open", stamp(len(ENTRIES) + 1))
    _, found = findings(shop)
    return {(code, line) for code, _path, line in found if code in ("AIDLC-DOCS-005", "AIDLC-DOCS-006")}


def current_lines_judged(shop: DocsRepo) -> set[tuple[str, int | None]]:
    """The open plan's findings at the current feature's Code Generation and Build and Test lines."""
    return {("AIDLC-DOCS-005", shop.line(STATE, "- [x] Code Generation - EXECUTE (Unit 1")),
            ("AIDLC-DOCS-006", shop.line(STATE, "- [x] Build and Test"))}

def test_an_archived_feature_s_ticked_stages_are_not_judged_against_the_current_feature_s_plans(
        shop: DocsRepo) -> None:
    """content-hub-mcp: the current feature's code-generation plan has a box open, and its finished feature's table
    below an archive heading ticks Code Generation and Build and Test. The current lines are judged against that
    plan; the archive's are not (the plans are the current feature's), and `aidlc status` leaves them uncounted."""
    archived = shop.read(STATE) + "\n## Completed features (archive)\n\n### Gift cards\n" \
        "| Phase | Stage | Status |\n|---|---|---|\n| CONSTRUCTION | Code Generation | ✅ Complete |\n" \
        "| CONSTRUCTION | Build and Test | ✅ 12 tests pass |\n"
    assert open_plan_findings(shop, archived) == current_lines_judged(shop)
    report = json.loads(run_cli("status", "--format", "json", cwd=shop.root).stdout)
    first, last = shop.line(STATE, "| CONSTRUCTION | Code Generation |"), shop.line(STATE, "| CONSTRUCTION | Build")
    assert f"{STATE}:{first}-{last}: 2 stage lines under an archive heading are earlier features'; they are not " \
           "counted" in report["notes"]
    assert [(p["phase"], p["done"], p["total"]) for p in report["phases"]][1] == ("construction", 1, 3)


def test_the_current_feature_s_lines_moved_under_an_archive_heading_are_judged_still(shop: DocsRepo) -> None:
    """The attack: an agent leaves a step of the code-generation plan open and moves the whole stage list under
    `## Completed features (archive)`. An archive only excuses a stage the current feature lists too; here nothing
    is left above it, so the ticks are the current feature's and are judged, and `aidlc status` counts them."""
    all_archived = shop.read(STATE).replace("## Stage Progress", "## Completed features (archive)")
    assert open_plan_findings(shop, all_archived) == current_lines_judged(shop)
    report = json.loads(run_cli("status", "--format", "json", cwd=shop.root).stdout)
    assert not [note for note in report["notes"] if "archive" in note]
    assert sum(p["done"] for p in report["phases"]) > 0


def test_an_open_plan_that_several_ticked_lines_claim_is_one_error_at_the_first(shop: DocsRepo) -> None:
    """Davidesc2023: each increment's `User Stories — Complete` line claims the first increment's story plan again,
    whose boxes stayed open: one cause, one error, at the first line, naming the others."""
    shop.write(STORY_PLAN, plan("Story Generation Plan", 3, 2))
    shop.write(STATE, shop.read(STATE) + "\n### INCEPTION PHASE — Increment 2\n"
               "- [x] User Stories — Complete (2026-12-02), v2 stories\n")
    shop.commit("aidlc-docs: increment 2", stamp(len(ENTRIES) + 1))
    _, found = findings(shop)
    first, again = shop.line(STATE, "- [x] User Stories"), shop.line(STATE, "v2 stories")
    assert [(code, line) for code, _, line in found if code == "AIDLC-DOCS-005"] == [("AIDLC-DOCS-005", first)]
    report = json.loads(run_cli("validate", str(shop.root), "--format", "json").stdout)
    [message] = [f["message"] for f in report["findings"] if f["code"] == "AIDLC-DOCS-005"]
    assert message == (f"ticked while {STORY_PLAN} has 1 of 3 boxes open (first at line 6, under `## Steps`); line "
                       f"{again} ticks it too")
