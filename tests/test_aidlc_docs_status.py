"""`aidlc status` on the aidlc-docs layout, through the CLI on real git repositories (tests/aidlc_docs_sample.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from aidlc.aidlc_docs.model import Mark
from aidlc.aidlc_docs.state_line import mark_of
from tests.aidlc_docs_adopted import AUDIT, CODE_PLAN, DOCS, FILES, STATE, build_docs_repo, git
from tests.helpers import run_cli

NEXT = 'aidlc audit append --stage code-generation --user-input "<the person\'s words, verbatim>" ' \
       '--ai-response "<the answer>"'


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return build_docs_repo(tmp_path / "shop")


def status(root: Path, *args: str) -> dict:
    proc = run_cli("status", "--format", "json", *args, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def replace(root: Path, rel: str, old: str, new: str) -> None:
    text = (root / rel).read_text(encoding="utf-8")
    assert old in text
    (root / rel).write_text(text.replace(old, new), encoding="utf-8")


def test_stage_progress_per_phase_and_unit_and_the_next_stage(docs: Path) -> None:
    assert run_cli("init", cwd=docs).returncode == 0
    report = status(docs)
    assert report["layout"] == "aidlc-docs" and report["state"] == STATE
    assert [(p["phase"], p["done"], p["total"]) for p in report["phases"]] == [
        ("inception", 5, 6), ("construction", 0, 1), ("operations", 0, 1)]
    inception = report["phases"][0]
    assert [(s["stage"], s["mark"], s["skipped"]) for s in inception["stages"]][1:3] == [
        ("requirements-analysis", "done", False), ("user-stories", "pending", True)]
    assert inception["plans"] == [{"path": f"{DOCS}/inception/plans/execution-plan.md", "stage": "workflow-planning",
                                   "done": 2, "open": 0}]
    # the state's `Unit 1`, with the plan the rules judge its lines by: `unit1-backend-code-generation-plan.md`
    [unit] = report["units"]
    assert (unit["unit"], unit["done"], unit["total"]) == ("1", 1, 2)
    assert [s["stage"] for s in unit["stages"]] == ["functional-design", "code-generation"]
    assert unit["plans"] == [{"path": CODE_PLAN, "stage": "code-generation", "done": 1, "open": 2}]
    assert report["audit_entries"] == 6 and report["recorded_entries"] == 0 and report["ledger"]
    assert report["waiting"] == []
    assert report["next_actions"][0] == {"reason": f"next stage: Code Generation of unit 1 ({STATE}:20); log each "
                                         "exchange with the person as it happens", "command": NEXT}
    text = run_cli("status", cwd=docs).stdout
    # user stories is skipped: not done, and said so
    assert "  stages done: inception 5/6 (1 skipped), construction 0/1, operations 0/1; unit 1 1/2" in text
    assert "INCEPTION  5/6 done (1 skipped)\n" in text
    assert f"Next safe action: next stage: Code Generation of unit 1 ({STATE}:20)" in text and f"  {NEXT}" in text
    assert run_cli("status", "-q", cwd=docs).stdout.splitlines()[1] == "audit: 6 entries, 0 recorded in the ledger"


def test_entries_appended_through_aidlc_are_counted_apart_from_history(docs: Path) -> None:
    assert run_cli("init", cwd=docs).returncode == 0
    assert run_cli("audit", "append", "--stage", "code-generation", "--user-input", "y", "--ai-response", "ok",
                   cwd=docs).returncode == 0
    report = status(docs)
    assert (report["audit_entries"], report["recorded_entries"]) == (7, 1)


def test_what_waits_for_a_person_comes_first_and_nothing_after_it(docs: Path) -> None:
    replace(docs, STATE, "- [ ] Unit 1 Code Generation - EXECUTE", "- [?] Unit 1 Code Generation - EXECUTE")
    replace(docs, STATE, "- [x] Unit 1 Functional Design - COMPLETE",
            "- [x] Unit 1 Functional Design (awaiting approval)")
    # Its approval logged, the ticked line waits for no one (its words are out of date: AIDLC-DOCS-004 says so).
    assert [w["reason"] for w in status(docs)["waiting"]] == [
        f"Code Generation of unit 1 waits for a person's approval ({STATE}:20)"]
    replace(docs, AUDIT, '"Continue to Next Stage"', '"(pending)"')
    report = status(docs)
    assert [w["reason"] for w in report["waiting"]] == [
        f"Functional Design of unit 1 is ticked yet says it awaits approval ({STATE}:19): a person approves it, or "
        "the tick comes off", f"Code Generation of unit 1 waits for a person's approval ({STATE}:20)"]
    assert report["waiting"][1]["command"].startswith("aidlc audit append --stage code-generation --user-input ")
    assert not any(a["reason"].startswith("next stage") for a in report["next_actions"])
    pending = status(docs, "--pending")
    assert set(pending) == {"version", "layout", "root", "folder", "waiting"} and len(pending["waiting"]) == 2
    text = run_cli("status", "--pending", cwd=docs).stdout
    assert "Waiting for a person (2 stages):" in text and "INCEPTION" not in text


def test_merge_conflict_markers_and_unknown_labels_are_named(docs: Path) -> None:
    (docs / AUDIT).write_text((docs / AUDIT).read_text() + "\n<<<<<<< HEAD\n=======\n>>>>>>> feature\n")
    replace(docs, STATE, "- [ ] Build and Test - EXECUTE", "- [ ] Build and Test - EXECUTE\n- [ ] Security Review")
    report = status(docs)
    assert report["next_actions"][0]["reason"].startswith(f"{AUDIT} holds merge-conflict markers (lines ")
    assert f"{STATE}:22: 'Security Review' names no stage aidlc knows; it is not counted" in report["notes"]



def test_a_long_unknown_label_is_cut_in_the_notes_as_validate_cuts_it(docs: Path) -> None:
    # CalCrony's milestone lines ran to 1,440 characters a note in status; validate's AIDLC-DOCS-012 cut them.
    label = "Milestone 1: Foundation — " + "solution scaffold, EF Core + Postgres, " * 30
    replace(docs, STATE, "- [ ] Build and Test - EXECUTE", f"- [ ] Build and Test - EXECUTE\n- [ ] {label}")
    [note] = [note for note in status(docs)["notes"] if "Milestone 1" in note]
    assert len(note) < 200 and note.startswith(f"{STATE}:22: 'Milestone 1: Foundation — solution") and \
        "...' names no stage" in note, note


def test_many_unknown_lines_are_named_in_one_note_beyond_the_first_three(docs: Path) -> None:
    # cu-aaii's teams-bot logs a diary of answered questions as 28 checkbox lines: 28 notes pushed the progress away.
    diary = "".join(f"\n- [x] **Q{n} ANSWERED — option A**: decided" for n in range(1, 29))
    replace(docs, STATE, "- [ ] Build and Test - EXECUTE", "- [ ] Build and Test - EXECUTE" + diary)
    notes = [note for note in status(docs)["notes"] if "name" in note and "no stage" in note]
    assert notes[:3] == [f"{STATE}:{22 + n}: '**Q{n + 1} ANSWERED — option A**: decided' names no stage aidlc knows; "
                         "it is not counted" for n in range(3)]
    assert notes[3:] == [f"{STATE}: 25 more lines name no stage aidlc knows (lines 25, 26, 27, 28, 29, 30, 31, 32, 33, "
                         "34 and 15 more); they are not counted: `aidlc validate` names each (AIDLC-DOCS-012)"]
    text = run_cli("status", cwd=docs).stdout
    assert text.count("names no stage aidlc knows") == 3 and text.count("more lines name no stage") == 1
    five = "".join(f"\n- [x] Milestone {n}" for n in range(1, 6))
    replace(docs, STATE, diary, five)
    assert sum("Milestone" in note for note in status(docs)["notes"]) == 5


def test_without_a_ledger_the_action_is_to_adopt_the_folder(docs: Path) -> None:
    (docs / "aidlc.yaml").write_text("layout: aidlc-docs\n")
    report = status(docs)
    assert not report["ledger"]
    assert report["next_actions"][0] == {"reason": f"no ledger at {DOCS}/events.jsonl",
                                         "command": f"aidlc init {docs}    # creates it"}


def test_intent_and_bolt_are_refused_on_this_layout(docs: Path) -> None:
    proc = run_cli("status", "--intent", "001", cwd=docs)
    assert proc.returncode == 2
    assert f"error: {DOCS}/ keeps stages and units, not intents and bolts" in proc.stderr


def test_a_state_file_in_history_only_is_reported_missing(docs: Path) -> None:
    git(docs, "rm", "-q", STATE)
    report = status(docs)
    assert report["state"] is None and [p["total"] for p in report["phases"]] == [0]  # the plans alone
    assert f"no {DOCS}/aidlc-state.md: no stage progress to show" in report["notes"]


def test_each_unit_names_its_folders_and_a_plan_no_unit_owns_is_shown_under_its_own_name(docs: Path) -> None:
    """The state file's unit 1 has the folder `unit1-backend` (the subject of its gates) and that folder's plan;
    `payments-code-generation-plan.md` names no number and no heading ties `payments` to one: it is listed apart,
    as the rules judge it apart."""
    for rel in ("plans/payments-code-generation-plan.md", "unit1-backend/code/summary.md", "payments/code/x.md"):
        (docs / DOCS / "construction" / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / DOCS / "construction" / rel).write_text("- [ ] charge\n", encoding="utf-8")
    units = {u["unit"]: (u["folders"], [p["path"].rsplit("/", 1)[1] for p in u["plans"]])
             for u in status(docs)["units"]}
    assert units == {"1": (["unit1-backend"], ["unit1-backend-code-generation-plan.md"]),
                     "payments": (["payments"], ["payments-code-generation-plan.md"])}
    text = run_cli("status", cwd=docs).stdout
    assert "unit 1 (unit1-backend)  1/2 done" in text and "\nunit payments\n" in text


def test_a_line_naming_a_folder_a_heading_ties_to_a_number_is_that_numbers_unit(docs: Path) -> None:
    """aws-ai-dlc: under `## Unit 2: Frontend (React) - CONSTRUCTION Cycle`, lines naming the folder
    (`(EXECUTE, frontend)`) and lines naming none: one unit 2 with both, as the rules read them, not two units."""
    (docs / DOCS / "construction" / "frontend" / "code").mkdir(parents=True)
    (docs / DOCS / "construction" / "frontend" / "code" / "app.md").write_text("# App\n", encoding="utf-8")
    replace(docs, STATE, "- [ ] Build and Test - EXECUTE", "## Unit 2: Frontend (React) - CONSTRUCTION Cycle\n"
            "- [x] CONSTRUCTION - Functional Design (EXECUTE, frontend)\n- [ ] CONSTRUCTION - Infrastructure Design "
            "(SKIP)\n\n- [ ] Build and Test - EXECUTE")
    units = {u["unit"]: (u["folders"], [(s["stage"], s["mark"]) for s in u["stages"]]) for u in status(docs)["units"]}
    assert units["2"] == (["frontend"], [("functional-design", "done"), ("infrastructure-design", "pending")])
    assert "frontend" not in units
    assert "unit 2 (frontend)  1/2 done" in run_cli("status", cwd=docs).stdout


def line_of(root: Path, rel: str, needle: str) -> int:
    return next(n for n, text in enumerate((root / rel).read_text().splitlines(), 1) if needle in text)


def test_each_ticked_stage_shows_the_approval_it_stands_on_and_an_unapproved_one_comes_first(docs: Path) -> None:
    assert run_cli("init", cwd=docs).returncode == 0
    report = status(docs)
    inception = {s["stage"]: s for s in report["phases"][0]["stages"]}
    assert (inception["workflow-planning"]["approved"], inception["workflow-planning"]["approvals"]) == (
        True, [f"{AUDIT}:{line_of(docs, AUDIT, '## Workflow Planning - Approval')}"])
    # Workspace Detection needs no approval; a stage not ticked claims nothing
    assert inception["workspace-detection"]["approved"] is None and inception["user-stories"]["approved"] is None
    assert (report["ticked"], report["unapproved"]) == (5, 0)
    # The person's approval of workflow planning taken out of the log: the line stands on nothing, as the rule says.
    replace(docs, AUDIT, "## Workflow Planning - Approval", "## Workflow Planning - Plan Presented")
    replace(docs, AUDIT, '**User Input**: "y"', "**User Input**: N/A")
    report = status(docs)
    inception = {s["stage"]: s for s in report["phases"][0]["stages"]}
    assert (inception["workflow-planning"]["approved"], inception["workflow-planning"]["approvals"]) == (False, [])
    assert (report["ticked"], report["unapproved"]) == (5, 1)
    errors, first = report["next_actions"][:2]  # the rules' errors first (the same stage's), as on a memory bank
    assert report["errors"] == 1 and errors == {
        "reason": f"1 validation error; the first: {STATE}:{line_of(docs, STATE, 'Workflow Planning')} AIDLC-DOCS-003 "
                  f"Workflow Planning is ticked, and {AUDIT} holds no approval of it by a person",
        "command": "aidlc validate"}
    assert first["reason"].startswith(f"1 ticked stage with no approval of a person in the audit log, the first "
                                      f"Workflow Planning ({STATE}:{line_of(docs, STATE, 'Workflow Planning')})")
    assert not any(a["reason"].startswith("next stage") for a in report["next_actions"])  # nothing after it
    found = json.loads(run_cli("validate", "--format", "json", cwd=docs).stdout)["findings"]
    assert [f["line"] for f in found if f["code"] == "AIDLC-DOCS-003"] == [line_of(docs, STATE, "Workflow Planning")]
    text = run_cli("status", cwd=docs).stdout
    assert "  approval logged in the audit log: 4 of 5 ticked stages; 1 without one" in text
    assert f"  [x] workflow-planning      line {line_of(docs, STATE, 'Workflow Planning')}  no approval logged" in text
    assert f"line {line_of(docs, STATE, 'Requirements Analysis')}  logged approval: {AUDIT}:" in text


def test_a_stage_approved_by_several_entries_cites_the_one_that_says_approved(docs: Path) -> None:
    # AIDLC-AWS-workshop: "ready!" under `## Functional Design - User Responses`, then `## Functional Design - User
    # Approval`: both hold the person's words for the stage; a reader is shown the approval.
    words = ("## Workflow Planning - Discussion\n**Timestamp**: 2026-02-09T14:08:00+09:00\n"
             "**User Input**: \"ready!\"\n**AI Response**: Read the answers.\n"
             "**Context**: INCEPTION - Workflow Planning\n\n---\n\n")
    replace(docs, AUDIT, "## Workflow Planning - Approval", words + "## Workflow Planning - Approval")
    inception = {s["stage"]: s for s in status(docs)["phases"][0]["stages"]}
    assert inception["workflow-planning"]["approvals"] == [
        f"{AUDIT}:{line_of(docs, AUDIT, '## Workflow Planning - Approval')}"]


def test_a_stage_approved_by_several_entries_cites_the_go_ahead_before_a_request(docs: Path) -> None:
    # chustard: a request to re-check the stage, then the person's go-ahead, neither saying approved: the reader is
    # shown the go-ahead.
    request = ("## Workflow Planning - Rework\n**Timestamp**: 2026-02-09T14:08:00+09:00\n"
               "**User Input**: \"split the plan into two phases\"\n**AI Response**: Split.\n"
               "**Context**: INCEPTION - Workflow Planning\n\n---\n\n")
    replace(docs, AUDIT, "## Workflow Planning - Approval", request + "## Workflow Planning - Go")
    replace(docs, AUDIT, '**User Input**: "y"', '**User Input**: "ok, go on"')
    inception = {s["stage"]: s for s in status(docs)["phases"][0]["stages"]}
    assert inception["workflow-planning"]["approvals"] == [
        f"{AUDIT}:{line_of(docs, AUDIT, '## Workflow Planning - Go')}"]


def test_an_audit_log_that_cannot_be_read_leaves_every_approval_unknown(docs: Path) -> None:
    (docs / AUDIT).write_bytes((docs / AUDIT).read_bytes() + b"\n\xff\xfe\n")
    report = status(docs)
    assert {s["approved"] for p in report["phases"] for s in p["stages"]} == {None}
    assert (report["ticked"], report["unapproved"]) == (5, None)
    assert "approval logged in the audit log" not in run_cli("status", cwd=docs).stdout


def test_the_rules_findings_are_counted_and_their_first_error_comes_first(docs: Path) -> None:
    """A teammate's commit deletes an approval logged in audit.md: the history rules see it (AIDLC-DOCS-020), and
    so does the reviewer reading `aidlc status`, before anything else it lists."""
    assert run_cli("init", cwd=docs).returncode == 0
    git(docs, "add", "-A")
    git(docs, "commit", "-q", "-m", "adopt aidlc")
    assert status(docs)["errors"] == 0
    text = (docs / AUDIT).read_text(encoding="utf-8")
    start = text.index("## Application Design - Approval")
    (docs / AUDIT).write_text(text[:start] + text[text.index("## Units Generation", start):], encoding="utf-8")
    git(docs, "commit", "-q", "-am", "tidy the log")
    report = status(docs)
    validated = json.loads(run_cli("validate", "--format", "json", cwd=docs).stdout)
    assert sorted(f["code"] for f in validated["findings"] if f["severity"] == "error") == [
        "AIDLC-DOCS-003", "AIDLC-DOCS-020"]  # the stage the entry approved stands on nothing now, and the deletion
    assert (report["errors"], report["warnings"]) == (2, validated["summary"]["warnings"])
    assert report["next_actions"][0] == {
        "reason": f"2 validation errors; the first: {STATE}:15 AIDLC-DOCS-003 Application Design is ticked, and "
                  f"{AUDIT} holds no approval of it by a person", "command": "aidlc validate"}
    assert "\nvalidation: 2 errors, " in run_cli("status", "-q", cwd=docs).stdout


def test_a_log_of_bullets_aidlc_does_not_read_is_named_where_status_counts_its_entries(docs: Path) -> None:
    # SUNCHANG-KWON/aidlc-workshop-tableorder keeps its 118-line log as `- Timestamp:` bullets: status said "audit:
    # 0 entries" with no word of why, only validate's AIDLC-DOCS-017 did.
    (docs / AUDIT).write_text(
        "# Audit Log\n\n## Workflow Start\n- Timestamp: 2026-02-09T14:31:16+09:00\n"
        "- User Input (raw): requirements 폴더를 보고 개발시작해. 나한테 묻지말고 알아서 너가 다 판단해서 끝내.\n"
        "- Policy Decision: 사용자 지시에 따라 단계별 승인 질의 없이 자동 진행.\n\n"
        "## INCEPTION - Workspace Detection\n- Timestamp: 2026-02-09T14:32:30+09:00\n- Finding:\n"
        "  - Existing Code: No\n- Next Stage: Requirements Analysis\n\n"
        "## INCEPTION - Requirements Analysis\n- Timestamp: 2026-02-09T14:34:10+09:00\n"
        "- Approval Gate: User pre-approved auto progression\n", encoding="utf-8")
    report = status(docs)
    assert report["audit_entries"] == 0
    assert report["unread_logs"] == [{"path": AUDIT, "text_lines": 13}]
    lines = run_cli("status", "-q", cwd=docs).stdout.splitlines()
    assert lines[1] == (f"audit: 0 entries read ({AUDIT} holds 13 lines of text in no entry form aidlc reads: "
                        "AIDLC-DOCS-017), 0 recorded in the ledger")
    assert lines[1] in run_cli("status", cwd=docs).stdout


def test_a_dash_box_is_a_stage_in_progress_for_each_unit_its_line_names(docs: Path) -> None:
    # TaehoKimKTHO/table-order: `[-]` on a per-unit stage some units have done. It is read in progress for each unit
    # the line names, never skipped, and its units' "완료" (complete) is no tick to judge.
    replace(docs, STATE, "- [x] Unit 1 Functional Design - COMPLETE\n",
            "- [-] Functional Design - EXECUTE (Unit 1 완료, Unit 3 완료, Unit 4 완료)\n")
    line = (docs / STATE).read_text(encoding="utf-8").split("\n").index(
        "- [-] Functional Design - EXECUTE (Unit 1 완료, Unit 3 완료, Unit 4 완료)") + 1
    report = status(docs)
    read = {(unit["unit"], stage["stage"]): (stage["mark"], stage["skipped"]) for unit in report["units"]
            for stage in unit["stages"] if stage["line"] == line}
    assert read == {(unit, "functional-design"): ("in-progress", False) for unit in ("1", "3", "4")}
    assert f"  [~] functional-design      line {line}" in run_cli("status", cwd=docs).stdout
    result = run_cli("validate", "--format", "json", cwd=docs)
    assert [f["code"] for f in json.loads(result.stdout)["findings"] if f["line"] == line] == []


def test_the_docs_name_each_box_of_a_stage_line_as_the_reader_reads_it() -> None:
    # docs/aidlc-docs.md and a comment of the reader said `[-]` was skipped; the reader reads it in progress.
    page = " ".join((Path(__file__).resolve().parent.parent / "docs" / "aidlc-docs.md").read_text().split())
    said = page.split("They are checkbox lines (", 1)[1].split("; in a plan", 1)[0]
    words = {"ticked": Mark.done, "in progress": Mark.in_progress, "skipped": Mark.skipped, "awaiting": Mark.awaiting}
    read = {}
    for part in (part.split(":")[0] for part in said.split("; ")):  # the boxes, then the first word of what they mean
        meaning = words[min((word for word in words if word in part), key=part.index)]
        read |= {box: meaning for box in re.findall(r"`\[(.)\]`", part)}
    assert read == {box: mark_of(box) for box in read} and set(read) == set("x~/-S?")


def test_an_audit_log_kept_at_the_repository_root_is_named_once_with_the_step_that_moves_it(tmp_path: Path) -> None:
    """tyfoo1603/aidlc-workflows keeps audit.md (578 lines of entries) at the repository root and no log in aidlc-docs/:
    ten AIDLC-DOCS-003 said `aidlc-docs/audit.md (missing) holds no approval`, and status `audit: 0 entries`, with no
    word of the log beside them. One note names it with the step that moves it, and status says so on its audit line
    and puts that step before `aidlc init`, whose ledger would record no entry; moved, its approvals count."""
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, text in {**FILES, AUDIT: None, "audit.md": FILES[AUDIT]}.items():
        if text is not None:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=Ada", "-c", "user.email=ada@example.org", "commit", "-qm", "init")
    validated = json.loads(run_cli("validate", "--format", "json", cwd=root).stdout)["findings"]
    [note] = [f for f in validated if f["code"] == "AIDLC-DOCS-030"]
    assert (note["severity"], note["path"], note["line"]) == ("info", "audit.md", 1)
    assert note["message"] == (f"audit.md holds 6 entries aidlc reads, outside {DOCS}/, which holds no audit log: no "
                               "approval in it counts")
    assert note["fix"] == f"git mv audit.md {AUDIT}    # then commit: the rules keep the log in {DOCS}/"
    unapproved = [f["message"] for f in validated if f["code"] == "AIDLC-DOCS-003"]
    assert len(unapproved) == 5 and all(f"{AUDIT} (missing) holds no approval" in m for m in unapproved)
    assert not any("audit.md holds" in m for m in unapproved)  # said once, in the note
    report = status(root)
    assert report["audit_notes"] == [note["message"] + " (AIDLC-DOCS-030)"]
    assert report["next_actions"][0] == {"reason": note["message"] + " (AIDLC-DOCS-030)", "command": note["fix"]}
    assert report["next_actions"][1]["command"].startswith("aidlc init")
    text = run_cli("status", cwd=root).stdout
    assert f"  audit: 0 entries, 0 recorded in the ledger; {note['message']} (AIDLC-DOCS-030)\n" in text
    subprocess.run(["bash", "-c", note["fix"].split("    #")[0]], cwd=root, check=True)
    git(root, "-c", "user.name=Ada", "-c", "user.email=ada@example.org", "commit", "-qm", "the log in aidlc-docs/")
    moved = json.loads(run_cli("validate", "--format", "json", cwd=root).stdout)["findings"]
    assert [f["code"] for f in moved if f["code"] in ("AIDLC-DOCS-003", "AIDLC-DOCS-030")] == []
    assert status(root)["audit_entries"] == 6


def test_a_log_a_commit_deleted_and_git_ignored_is_said_missing_and_restored_before_aidlc_init(docs: Path) -> None:
    """bart2001/aidlc-workshop's 8482418 deleted aidlc-docs/audit.md and git-ignored it (.gitignore:3 and :4, the same
    pattern twice). status said `audit: 0 entries` and put `aidlc init` first, a ledger recording a log of no entry,
    the AIDLC-DOCS-024 errors after it. Its audit line says the log is missing and why; restoring it comes first."""
    git(docs, "rm", "-q", AUDIT)
    (docs / ".gitignore").write_text(f".claude/\n.kiro/\n{AUDIT}\n{AUDIT}\n", encoding="utf-8")
    git(docs, "add", "-A")
    git(docs, "commit", "-q", "-m", "docs: PO 리뷰 승인 및 Unit 기반 프롬프트 재설계")
    gone = git(docs, "rev-parse", "HEAD").strip()[:12]
    first = git(docs, "rev-parse", "HEAD^").strip()
    report = status(docs)
    deleted = (f"commit {gone} (docs: PO 리뷰 승인 및 Unit 기반 프롬프트 재설계) deleted {AUDIT}, which held 6 entries "
               "before it (AIDLC-DOCS-024)")
    ignored = (f"{AUDIT} is git-ignored by `{AUDIT}` (.gitignore:4) although commits tracked it: new entries would not "
               "be committed (AIDLC-DOCS-024)")
    assert report["audit_notes"] == [deleted, ignored]
    restore, unignore, init, *rest = report["next_actions"]
    assert restore == {"reason": deleted, "command": f"git checkout {first} -- {AUDIT}    # restore it, then commit"}
    assert unignore["reason"] == ignored and unignore["command"].startswith(f"remove `{AUDIT}` from .gitignore")
    assert init["command"].startswith("aidlc init")
    assert rest[0]["reason"].startswith("5 more validation errors; the first: "), rest[0]  # 7 errors, 2 listed above
    assert report["errors"] == 7
    text = run_cli("status", cwd=docs).stdout
    assert f"  audit: 0 entries, 0 recorded in the ledger; {deleted}; {ignored}\n" in text
    assert f"Next safe action: {deleted}\n  git checkout {first} -- {AUDIT}" in text


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_root_audit_log_that_is_a_link_out_of_the_repository_or_a_fifo_is_never_read(tmp_path: Path,
                                                                                        kind: str) -> None:
    # A pull request can commit `audit.md` as a link to any file of the machine running CI (a FIFO, made by code a
    # check runs, would block a reader): neither is opened, and no note names what it holds.
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, text in {**FILES, AUDIT: None}.items():
        if text is not None:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text(FILES[AUDIT], encoding="utf-8")  # entries aidlc would read, outside the repository
    if kind == "link":
        (root / "audit.md").symlink_to(elsewhere)
    else:
        os.mkfifo(root / "audit.md")
    git(root, "add", "-A")
    git(root, "-c", "user.name=Ada", "-c", "user.email=ada@example.org", "commit", "-qm", "init")
    result = run_cli("validate", "--format", "json", cwd=root)
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert result.returncode == 1 and "AIDLC-DOCS-003" in codes and "AIDLC-DOCS-030" not in codes
    assert status(root)["audit_notes"] == []
