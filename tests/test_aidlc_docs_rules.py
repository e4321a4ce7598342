"""The aidlc-docs rules (aidlc/rules/docs_layout.py): the clean project has no finding at all; each test breaks one
rule in it, as a repository in the wild does, and asserts the finding, its file and line."""

from __future__ import annotations

import json
import os
import re
from datetime import timedelta
from pathlib import Path

import pytest

from aidlc.aidlc_docs.audit import as_logged, audit_entries
from aidlc.aidlc_docs.model import AuditEntry
from aidlc.aidlc_docs.reader import MAX_AUDIT_BYTES, read_project
from aidlc.aidlc_docs.state import read_state
from aidlc.aidlc_docs.state_line import split_stage_line
from aidlc.model.types import Severity
from aidlc.rules import every_rule
from aidlc.rules.docs_approvals import Units, approvals, approvals_in
from tests.aidlc_docs_sample import (
    AUDIT,
    CODE_PLAN,
    DESIGN_PLAN,
    DOCS,
    ENTRIES,
    EXECUTION_PLAN,
    STATE,
    STORIES,
    STORY_MAP,
    UNITS,
    DocsRepo,
    audit_text,
    build_docs_repo,
    entry_text,
    iso,
    plan,
    stamp,
)
from tests.helpers import in_process, run_cli, run_cli_process


@pytest.fixture
def docs(tmp_path: Path) -> DocsRepo:
    return build_docs_repo(tmp_path / "shop")


def only(docs: DocsRepo, code: str) -> list[tuple[str, int | None]]:
    """Where `code` was found, and that nothing else was."""
    found = docs.findings()
    assert {f.code for f in found} == {code}, [(f.code, f.message) for f in found]
    return [(f.path, f.line) for f in found]


def test_the_clean_project_has_no_finding_of_any_severity(docs: DocsRepo) -> None:
    report = docs.report()
    assert report.findings == []
    assert report.summary.files == 20


def test_every_aidlc_docs_rule_has_a_severity_a_summary_and_a_fix() -> None:
    codes = sorted(code for code, rule in every_rule().items() if rule.family == "aidlc-docs")
    assert codes == [f"AIDLC-DOCS-{n:03}"
                     for n in (*range(1, 32), *range(40, 49), *range(60, 73))]
    assert all(every_rule()[code].summary and every_rule()[code].fix for code in codes)


# -- the files -----------------------------------------------------------------------------------------------------
def test_merge_conflict_markers_in_the_audit_log_are_errors(docs: DocsRepo) -> None:
    docs.replace(AUDIT, "## User Stories - Approval", "<<<<<<< HEAD\n## User Stories - Approval")
    docs.replace(AUDIT, "## Workflow Planning - Approval", "=======\n## Workflow Planning - Approval")
    docs.replace(AUDIT, "## Application Design - Approval", ">>>>>>> feature/web\n## Application Design - Approval")
    lines = [docs.line(AUDIT, marker) for marker in ("<<<<<<<", "=======", ">>>>>>>")]
    assert only(docs, "AIDLC-DOCS-001") == [(AUDIT, lines[0])]
    [finding] = docs.findings()
    assert finding.message == (f"merge-conflict markers at lines {', '.join(map(str, lines))}: the merge was committed "
                               "unresolved")
    assert every_rule()["AIDLC-DOCS-001"].severity == Severity.error


def test_one_conflict_whose_middle_marker_was_deleted_is_one_finding_naming_its_marker_lines(docs: DocsRepo) -> None:
    # jykim9-pixel/aidlc-workshop-nexon: `<<<<<<< HEAD` at line 173 and `>>>>>>> e7ea12c (...)` at 310 bound one
    # region, its `=======` deleted; it was two errors, each saying "(2 marker lines in the file)".
    docs.replace(AUDIT, "## User Stories - Approval", "<<<<<<< HEAD\n## Functional Design - Unit 1 Complete\n"
                 "**Timestamp**: 2026-05-06T00:16:00Z\n**User Input**: \"unit 1-functional-design 수정완료\"\n\n"
                 "## User Stories - Approval")
    docs.replace(AUDIT, "## Application Design - Approval", "**Documentation:**\n"
                 "- aidlc-docs/construction/unit2-admin-flow/code/frontend-summary.md\n"
                 ">>>>>>> e7ea12c (feat(unit2): add functional design, code generation plan, and design artifacts)\n\n"
                 "---\n\n## Application Design - Approval")
    first, last = docs.line(AUDIT, "<<<<<<< HEAD"), docs.line(AUDIT, ">>>>>>> e7ea12c")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    conflicts = [(f["path"], f["line"], f["message"]) for f in json.loads(result.stdout)["findings"]
                 if f["code"] == "AIDLC-DOCS-001"]
    assert conflicts == [(AUDIT, first, f"merge-conflict markers at lines {first}, {last}: the merge was committed "
                                        "unresolved")]
    # A file of many conflicts names its first marker lines and counts the others.
    docs.replace(STATE, "## Stage Progress", "## Stage Progress\n" + "<<<<<<< HEAD\n=======\n>>>>>>> main\n" * 12)
    [(_, line, message)] = [(f.path, f.line, f.message) for f in docs.findings("AIDLC-DOCS-001") if f.path == STATE]
    assert line == docs.line(STATE, "<<<<<<<")
    assert message.startswith(f"merge-conflict markers at lines {line}, {line + 1}, ")
    assert re.search(r" and \d+ more: the merge", message), message


def test_a_heading_underlined_with_equals_signs_is_not_a_conflict(docs: DocsRepo) -> None:
    docs.write(f"{DOCS}/inception/requirements/notes.md", "Notes\n=======\n\nNothing else.\n")
    assert docs.findings() == []


def test_conflict_markers_in_the_state_and_in_a_plan_are_found_too(docs: DocsRepo) -> None:
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", "<<<<<<< Updated upstream\n- [x] Build and Test - EXECUTE\n"
                 "=======\n- [ ] Build and Test - EXECUTE\n>>>>>>> Stashed changes")
    docs.replace(DESIGN_PLAN, "## Steps", "## Steps\n<<<<<<< HEAD\n=======\n>>>>>>> main")
    where = only(docs, "AIDLC-DOCS-001")
    assert sorted(where) == sorted([(DESIGN_PLAN, docs.line(DESIGN_PLAN, "<<<<<<<")),
                                    (STATE, docs.line(STATE, "<<<<<<<"))])
    # suhyup-bank: a design document's two sides are two versions of one text, not entries to keep both of.
    docs.replace(AUDIT, "## User Stories - Approval", "<<<<<<< HEAD\n## User Stories - Approval")
    fixes = {finding.path: finding.fix for finding in docs.findings() if finding.code == "AIDLC-DOCS-001"}
    assert "choose or combine what the two sides of each conflict say" in fixes[DESIGN_PLAN]
    assert "keep every entry of both sides" in fixes[AUDIT] and "keep every entry" not in fixes[STATE]


def test_application_code_inside_aidlc_docs_is_an_error_and_diagrams_are_not(docs: DocsRepo) -> None:
    docs.write(f"{DOCS}/scripts/sync_stories_to_issues.py", "import sys\n")
    docs.write(f"{DOCS}/inception/plans/architecture.d2", "a -> b\n")
    docs.path(f"{DOCS}/inception/plans/architecture.png").write_bytes(b"\x89PNG\r\n")
    assert only(docs, "AIDLC-DOCS-002") == [(f"{DOCS}/scripts/sync_stories_to_issues.py", None)]


def test_a_markdown_file_that_is_not_utf8_is_reported_not_skipped(docs: DocsRepo) -> None:
    docs.path(f"{DOCS}/inception/requirements/notes.md").write_bytes(b"# Notes\n\xff\xfe broken\n")
    assert only(docs, "AIDLC-DOCS-015") == [(f"{DOCS}/inception/requirements/notes.md", 2)]  # where UTF-8 stops


@pytest.mark.parametrize("name", ["Вuild and Test", "Build аnd Test", "Build and Τest", "Ｂｕｉｌｄ and Test",
                                  "\U0001d401uild and Test", "Build and Test\u2003", "Bu\u200bild and Test",
                                  "Bui\u00adld and Te\u200dst", "Build \u202aand Test"])
def test_a_stage_named_with_look_alike_letters_is_the_stage_a_reader_sees(docs: DocsRepo, name: str) -> None:
    """A Cyrillic В or а, a Greek Τ, fullwidth or mathematical letters (𝐁), a zero-width space, soft hyphen, joiner
    or bidirectional control inside the name, which show nothing: before, the line named no stage aidlc knows (a
    note), and its tick, with no approval logged, passed."""
    docs.write(AUDIT, audit_text(ENTRIES[:-1]))  # the Build and Test approval not logged
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", f"- [x] {name} - EXECUTE")
    found = [(f.code, f.message) for f in docs.findings()]
    assert ("AIDLC-DOCS-003", "Build and Test is ticked, and aidlc-docs/audit.md holds no approval of it by a "
            "person") in found, found
    assert "AIDLC-DOCS-012" not in [code for code, _ in found]


def test_an_audit_log_that_cannot_be_read_is_one_error_not_every_stage_unapproved(docs: DocsRepo) -> None:
    text = docs.read(AUDIT)
    docs.path(AUDIT).write_bytes(text.encode() + "**Context**: Revisi\xf3n\n".encode("latin-1"))
    line = text.count("\n") + 1
    (found,) = docs.findings()  # not also AIDLC-DOCS-003 for each ticked stage, with the log called missing
    assert (found.code, found.path, found.line) == ("AIDLC-DOCS-015", AUDIT, line)
    assert found.message == f"cannot be read: byte 0xf3 at offset {len(text.encode()) + 19} is not UTF-8"


def test_an_audit_log_saved_as_utf16_is_named_so_and_not_to_be_removed(docs: DocsRepo) -> None:
    """Notepad's "Unicode": the message names the encoding, not a byte, and the fix does not say to remove a log."""
    docs.path(AUDIT).write_bytes(docs.read(AUDIT).encode("utf-16"))
    (found,) = docs.findings()
    assert (found.code, found.line) == ("AIDLC-DOCS-015", 1) and "the file is UTF-16" in found.message
    assert "never remove or trim an audit log" in found.fix


def test_a_folder_where_the_state_file_should_be_is_an_error_not_a_project_with_no_state(docs: DocsRepo) -> None:
    docs.path(STATE).unlink()
    docs.path(STATE).mkdir()
    (found,) = [f for f in docs.findings() if f.path == STATE]
    assert (found.code, found.message) == ("AIDLC-DOCS-015", "cannot be read: a folder, not a regular file; aidlc "
                                           "does not open it")


@pytest.mark.parametrize("kind", ["fifo", "link outside", "too large"])
def test_an_audit_log_that_is_no_file_of_the_repository_is_never_read(docs: DocsRepo, tmp_path: Path,
                                                                      kind: str) -> None:
    """A FIFO would block the reader for ever; a link may lead to any file of the machine (a file outside the
    repository holding approvals would count); a huge one would cost its size in memory."""
    log = docs.path(AUDIT)
    log.unlink()
    if kind == "fifo":
        os.mkfifo(log)
        expected = "a FIFO (named pipe), not a regular file; aidlc does not open it"
    elif kind == "link outside":
        (tmp_path / "approvals.md").write_text(audit_text(), encoding="utf-8")
        log.symlink_to(tmp_path / "approvals.md")
        expected = f"a symbolic link to {tmp_path / 'approvals.md'}, outside the repository"
    else:
        with log.open("wb") as out:
            out.truncate(MAX_AUDIT_BYTES + 1)
        expected = f"{MAX_AUDIT_BYTES + 1:,} bytes, over the {MAX_AUDIT_BYTES:,}-byte limit for this file"
    proc = in_process(["validate", "--format", "json"], {**os.environ, "NO_COLOR": "1"}, cwd=docs.root)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    (found,) = json.loads(proc.stdout)["findings"]
    assert (found["code"], found["path"]) == ("AIDLC-DOCS-015", AUDIT)
    assert found["message"].startswith(f"cannot be read: {expected}")


# -- ticked stages against the audit log ---------------------------------------------------------------------------
def test_an_audit_log_kept_as_a_table_is_named_as_unread_beside_the_stages_it_leaves_unapproved(
        docs: DocsRepo) -> None:
    rows = "".join(f"| 2026-04-22T0{n}:00:00Z | INCEPTION | stage {n} | Approve |\n" for n in range(5))
    docs.write(AUDIT, "# AI-DLC Audit Log\n\n| Timestamp | Phase | Stage | Input |\n|---|---|---|---|\n" + rows)
    found = docs.findings()
    (unread,) = [f for f in found if f.code == "AIDLC-DOCS-017"]
    assert (unread.path, unread.line, unread.severity) == (AUDIT, 1, Severity.info)
    assert unread.message == f"{AUDIT} holds 8 lines of text and no entry aidlc reads"
    assert {f.code for f in found} == {"AIDLC-DOCS-017", "AIDLC-DOCS-003"}
    docs.write(AUDIT, "# AI-DLC Audit Log\n\nEntries follow.\n")  # a log with no entry yet says nothing
    assert "AIDLC-DOCS-017" not in {f.code for f in docs.findings()}


def test_boxes_in_code_fences_and_html_comments_are_no_stage_lines_and_no_plan_boxes(docs: DocsRepo) -> None:
    """A reader of the rendered file sees none of them: an example of the format, a line kept out of sight."""
    hidden = ("<!--\n- [x] Code Generation (Unit 9: billing)\n-->\n```markdown\n- [x] Build and Test\n```\n"
              "<!-- - [x] NFR Design -->\n~~~\n- [ ] open box\n~~~\n")
    docs.write(STATE, docs.read(STATE) + hidden)
    docs.write(CODE_PLAN, docs.read(CODE_PLAN) + hidden)
    assert docs.findings() == []
    state = read_state(docs.read(STATE), STATE)
    assert not [line for line in state.stages if "billing" in line.text or "open box" in line.text]


def test_a_stage_ticked_without_an_approval_is_an_error(docs: DocsRepo) -> None:
    # The agent logged its own prompt and ticked the stage; the person's answer is not there.
    docs.replace(AUDIT, '**User Input**: "B"\n', "")
    found = docs.findings("AIDLC-DOCS-003")
    assert [(f.path, f.line) for f in found] == [(STATE, docs.line(STATE, "(Unit 2: shop-web)"))]
    assert "Functional Design of unit 2" in found[0].message
    assert only(docs, "AIDLC-DOCS-003")


def test_a_box_before_each_stage_of_a_line_is_judged_as_a_line_of_each(docs: DocsRepo) -> None:
    """DallYeo_FE ticks unit 1's stages on one sub-item of its unit line, a box before each stage; its Code
    Generation ran in an auto-approve mode with no person's words logged. The line was read as one Functional Design
    line, skipped by Infrastructure Design's `(SKIP)`: that Code Generation was never judged."""
    docs.replace(STATE, "- [x] Functional Design - EXECUTE (Unit 1: orders-api)\n",
                 "- [x] **Unit 1 orders-api** — **완료** (자동승인)\n  - [x] Functional Design / [x] NFR Requirements"
                 " / [ ] NFR Design (SKIP) / [ ] Infrastructure Design (SKIP) / [x] Code Generation\n")
    docs.replace(STATE, "- [x] NFR Requirements - EXECUTE (Unit 1: orders-api)\n", "")
    docs.replace(STATE, "- [x] Code Generation - EXECUTE (Unit 1: orders-api)\n", "")
    unit_line = docs.line(STATE, "**Unit 1 orders-api**")
    assert [(f.code, f.line) for f in docs.findings()] == [("AIDLC-DOCS-012", unit_line)]  # the unit's line
    docs.write(AUDIT, audit_text([entry for entry in ENTRIES if entry[0] != "Code Generation - Unit 1 Approval"]))
    [finding] = docs.findings("AIDLC-DOCS-003")
    assert (finding.line, finding.message.split(",")[0]) == (unit_line + 1, "Code Generation of unit 1 is ticked")


def test_an_approval_naming_stages_over_a_slash_or_by_a_short_name_approves_each(docs: DocsRepo) -> None:
    """HaeDalWang/HCSES logs `## Unit 1 - NFR/Infrastructure Design - User Approval`: NFR Design and Infrastructure
    Design approved alike (NFR Design was called unapproved), and table-order's `Code Gen` is Code Generation."""
    docs.replace(STATE, "- [ ] NFR Design - SKIP\n- [ ] Infrastructure Design - SKIP\n",
                 "- [x] NFR Design - EXECUTE (Unit 1: orders-api)\n"
                 "- [x] Infrastructure Design - EXECUTE (Unit 1: orders-api)\n")
    docs.replace(STATE, "Reverse Engineering (greenfield), NFR Design, Infrastructure Design",
                 "Reverse Engineering (greenfield)")
    entries = list(ENTRIES)
    at = [heading for heading, *_ in entries].index("Code Generation - Unit 1 Approval")
    entries[at:at + 1] = [
        ("Unit 1 - NFR/Infrastructure Design - User Approval", "완료 계속", "All Unit 1 design stages approved.",
         "CONSTRUCTION - Unit 1 orders-api"),
        ("Construction - Unit 1 Code Gen Approved", "Continue to Next Stage", "Unit 1 code approved.",
         "CONSTRUCTION - Unit 1 orders-api")]
    docs.write(AUDIT, audit_text(entries))
    assert docs.findings() == []


@pytest.mark.parametrize("heading", ["Code Generation - Unit 1 TDD Selection", "Code Generation - TDD 방식 선택",
                                     "Code Generation - Unit 1 Method Selected", "Code Generation (Option B 선택)"])
def test_an_option_picked_under_a_selection_heading_approves_nothing(docs: DocsRepo, heading: str) -> None:
    """aidlc-workshopt-tableorder logs `## Code Generation - TDD 방식 선택` ("TDD method selection"), "A", before any
    code was written, and nothing after the code: the pick was its only "approval" (aidlc-demo-showcase's `Unit 1
    TDD Selection`, "a", likewise). A selection is an answer to a question, as `Answers Received` is."""
    entries = [(heading, "A", "TDD selected; Part 1 Planning starts.", "CONSTRUCTION - Unit 1 orders-api")
               if entry[0] == "Code Generation - Unit 1 Approval" else entry for entry in ENTRIES]
    docs.write(AUDIT, audit_text(entries))
    [finding] = docs.findings("AIDLC-DOCS-003")
    assert (finding.line, finding.message.split(",")[0]) == (
        docs.line(STATE, "Code Generation - EXECUTE (Unit 1"), "Code Generation of unit 1 is ticked")


@pytest.mark.parametrize(("answer", "approved"), [
    ("Se registra la aprobacion de requisitos y se inicia Workflow Planning.", ()),  # ferco: the next stage started
    ("Se registra la aprobacion del workflow planning y se inicia Code Generation.", ("workflow-planning",)),
    ("Aprovação registrada; iniciando Application Design.", ()),
    ("Requirements Analysis approved; moving to Workflow Planning", ("requirements-analysis",)),
    # zizuiliaoya-droid/clothinkai: "the user approved the requirements document, entering the User Stories stage"
    ("用户批准需求文档，进入 User Stories 阶段", ()),
    ("Requirements Analysis 已批准，进入 User Stories 阶段", ("requirements-analysis",)),
    ("User Stories 承認、Workflow Planning 開始", ("user-stories",)),
    # Clipboard--Mac: the designs generated, "awaiting the user's approval of the code generation plan"
    ("生成 Unit 1 Core 的完整设计文档（功能设计 + NFR 需求 + NFR 设计 + 代码生成计划），等待用户批准代码生成计划", ()),
])
def test_the_stage_an_answer_says_approved_is_not_the_one_it_starts(answer: str, approved: tuple[str, ...]) -> None:
    from aidlc.rules.docs_approved import approved_in_answer

    [entry] = audit_entries(["## Approval", "**Timestamp**: 2026-05-06T12:12:28Z", '**User Input**: "Apruebo"',
                             f"**AI Response**: {answer}"], 0)
    assert approved_in_answer(entry) == approved


def test_words_handing_the_stages_to_an_autopilot_approve_nothing(docs: DocsRepo) -> None:
    """dd_tableorder logs `## Units Generation - Autopilot Execution`, `"claude --enable-auto-mode" → autopilot 활성화`:
    the agent then answered the stage's questions itself and ran it; it was credited as the person's approval."""
    entries = [("Units Generation - Autopilot Execution", '"claude --enable-auto-mode" → autopilot 활성화',
                "Autopilot: Q1: A, Q2: A; unit-of-work.md generated.", "INCEPTION - Units Generation COMPLETED")
               if entry[0] == "Units Generation - Approval" else entry for entry in ENTRIES]
    docs.write(AUDIT, audit_text(entries))
    [finding] = docs.findings("AIDLC-DOCS-003")
    assert finding.message.startswith("Units Generation is ticked, and")


def test_a_stage_ticked_on_several_lines_without_an_approval_is_one_error_at_the_first(docs: DocsRepo) -> None:
    """Jeldo ticks one unit's Code Generation on six lines (Phase 1..6): one cause, one error, naming the others."""
    docs.replace(AUDIT, '**User Input**: "B"\n', "")
    docs.replace(STATE, "- [x] Functional Design - EXECUTE (Unit 2: shop-web)\n",
                 "- [x] Functional Design - EXECUTE (Unit 2: shop-web)\n- [x] Functional Design (Unit 2: shop-web), "
                 "phase 2\n")
    first, again = docs.line(STATE, "EXECUTE (Unit 2: shop-web)"), docs.line(STATE, "phase 2")
    [found] = docs.findings("AIDLC-DOCS-003")
    assert (found.line, found.message) == (first, f"Functional Design of unit 2 is ticked (line {again} ticks it "
                                           f"too), and {AUDIT} holds no approval of it by a person")


def test_an_approval_headed_requirements_approval_approves_requirements_analysis(docs: DocsRepo) -> None:
    """Demoju logs `### Requirements Approval: 2026-02-09T13:15:21+09:00`, the person's `진행합시다` under it."""
    docs.replace(AUDIT, "## Requirements Analysis - Approval\n", "## Requirements Approval\n")
    docs.replace(AUDIT, "INCEPTION - Requirements Analysis approved", "INCEPTION")
    assert docs.findings() == []
    docs.replace(AUDIT, "## Requirements Approval\n", "## NFR Requirements Approval\n")  # another stage's
    assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Requirements Analysis"))]


def test_an_automatic_progression_or_a_pending_answer_is_no_approval(docs: DocsRepo) -> None:
    docs.replace(AUDIT, '"Approve & Continue"', "N/A (automatic progression)")
    docs.replace(AUDIT, '"approved"', "(pending)")
    assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Requirements Analysis")),
                                            (STATE, docs.line(STATE, "- [x] Build and Test"))]


def test_an_approval_of_one_unit_does_not_approve_another(docs: DocsRepo) -> None:
    docs.replace(AUDIT, "## Code Generation - Unit 2 Approval", "## Code Generation - Unit 1 Approval again")
    docs.replace(AUDIT, "CONSTRUCTION - Unit 2 shop-web\n\n---\n\n## Build", "CONSTRUCTION - Unit 1\n\n---\n\n## Build")
    assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Code Generation - EXECUTE (Unit 2"))]


def test_a_stage_run_once_for_every_unit_is_approved_once(docs: DocsRepo) -> None:
    """One plan naming no unit (`functional-design-plan.md`) ran Functional Design for both units at once, as
    kb-ai-dlc-workshop did: its one approval, naming no unit, approves the stage of each. While each unit has its
    own plan, an approval naming no unit approves neither."""
    plans = [f"{DOCS}/construction/plans/{unit}-functional-design-plan.md"
             for unit in ("unit-1-orders-api", "unit-2-shop-web")]
    for rel in plans:
        docs.path(rel).unlink()
    docs.write(f"{DOCS}/construction/plans/functional-design-plan.md", plan("Functional Design", 3, 3))
    log = docs.read(AUDIT)
    unit_1, unit_2 = log.index("## Functional Design - Unit 1 Approval"), log.index("## Functional Design - Unit 2")
    log = log[:unit_2] + log[log.index("## Code Generation - Unit 2 Approval"):]
    once = log[unit_1:].replace("## Functional Design - Unit 1 Approval", "## Functional Design - Approval", 1)
    docs.write(AUDIT, log[:unit_1] + once.replace("CONSTRUCTION - Unit 1 orders-api", "CONSTRUCTION", 1))
    assert "AIDLC-DOCS-003" not in {f.code for f in docs.findings()}
    for rel in plans:
        docs.write(rel, plan("Functional Design", 2, 2))
    docs.path(f"{DOCS}/construction/plans/functional-design-plan.md").unlink()
    assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Functional Design - EXECUTE (Unit 1")),
                                            (STATE, docs.line(STATE, "Functional Design - EXECUTE (Unit 2"))]


def test_in_a_project_of_one_unit_an_approval_naming_no_unit_is_of_that_unit(docs: DocsRepo) -> None:
    for rel in [rel for rel in map(str, docs.path(DOCS).rglob("*")) if "shop-web" in rel and rel.endswith(".md")]:
        Path(rel).unlink()
    for rel in (f"{DOCS}/construction/unit-2-shop-web/functional-design", f"{DOCS}/construction/unit-2-shop-web/code",
                f"{DOCS}/construction/unit-2-shop-web"):
        docs.path(rel).rmdir()
    for line in ("- [x] Functional Design - EXECUTE (Unit 2: shop-web)\n",
                 "- [x] Code Generation - EXECUTE (Unit 2: shop-web)\n"):
        docs.replace(STATE, line, "")
    unit_2 = docs.read(AUDIT).index("## Functional Design - Unit 2 Approval")
    docs.write(AUDIT, docs.read(AUDIT)[:unit_2] + docs.read(AUDIT)[docs.read(AUDIT).index("## Build"):])
    named = ('## Code Generation - Unit 1 Approval\n**Timestamp**: 2026-11-30T09:08:14Z\n**User Input**: "Continue to '
             'Next Stage"\n**AI Response**: "Unit 1 code approved."\n**Context**: CONSTRUCTION - Unit 1 orders-api')
    docs.replace(AUDIT, named, '## Code Generation - Approval\n**Timestamp**: 2026-11-30T09:08:14Z\n**User Input**: '
                 '"Continue to Next Stage"\n**AI Response**: "Code approved."\n**Context**: CONSTRUCTION')
    assert "AIDLC-DOCS-003" not in {f.code for f in docs.findings()}


def test_answers_to_a_stages_questions_are_not_its_approval(docs: DocsRepo) -> None:
    docs.replace(AUDIT, "## Application Design - Approval", "## Application Design - User Answers Received")
    assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Application Design"))]


def spanish_entry(heading: str, at: str, field: str, said: str) -> str:
    """An entry as Programa-Dx---bts-integral logs one: its time in the heading, the agent's `Event`, the person's
    words under a Spanish field name, the next stage (`Siguiente etapa`)."""
    return (f"## [{at}] — {heading}\n\n**Event**: Usuario respondió\n**{field}**: \"{said}\"\n"
            "**Siguiente etapa**: Units Generation\n\n---\n\n")


@pytest.mark.parametrize(("field", "approved"), [
    ("Respuesta exacta del usuario", True),  # Programa-Dx---bts-integral, every gate
    ("Respuesta del usuario", True),
    ("Entrada del usuario", True),
    ("Respuestas del usuario", False)])  # the answers to the stage's questions (Programa-Dx): no approval
def test_the_person_s_words_under_a_spanish_field_name_are_their_input(docs: DocsRepo, field: str,
                                                                        approved: bool) -> None:
    text = audit_text()
    start, end = text.index("## Application Design - Approval"), text.index("## Units Generation - Approval")
    docs.write(AUDIT, text[:start] + spanish_entry("Application Design Approved", iso(stamp(5)), field, "Apruebo")
               + text[end:])
    assert docs.findings() == ([] if approved else docs.findings("AIDLC-DOCS-003"))
    assert [f.line for f in docs.findings()] == ([] if approved else [docs.line(STATE, "Application Design")])


# NESIC-aws-ai-hackathon/GEZA logs each entry as a list of fields under
# `## エントリ 061 - U0 Infrastructure Design 承認` ("entry 061 - ... approval"), its time under `日時`, its phase under
# `フェーズ`; YutaIke/aidlc-claude-sample logs each stage under a Japanese heading, the agent's `Action`, then the
# person's answer to the gate and the agent's `判断`.
_GEZA_ENTRY = ("## エントリ 005 - Application Design 承認\n- **日時**: {at}\n- **フェーズ**: INCEPTION - Application "
               "Design（承認）\n- **{field}**: 「承認します」\n- **次のステージ**: Units Generation\n\n")
_SAMPLE_ENTRY = ("## アプリケーション設計完了\n**Timestamp**: {at}\n**Action**: アプリケーション設計成果物を生成\n"
                 "**{field}**: 「承認して続行」\n**判断**: ユニット生成ステージに進む\n\n---\n\n")


@pytest.mark.parametrize(("entry", "field", "approved"), [
    (_GEZA_ENTRY, "承認者コメント", True),  # "approver's comment"
    (_GEZA_ENTRY, "ユーザー承認", True),  # "user approval"
    (_GEZA_ENTRY, "承認内容", False),  # "what was approved", the agent's list: no words of the person
    (_SAMPLE_ENTRY, "ユーザー応答", True),  # "user response", at every gate
    (_SAMPLE_ENTRY, "成果物", False)])  # "deliverables", the agent's list
def test_the_person_s_words_under_a_japanese_field_name_are_their_input(docs: DocsRepo, entry: str, field: str,
                                                                         approved: bool) -> None:
    text = audit_text()
    start, end = text.index("## Application Design - Approval"), text.index("## Units Generation - Approval")
    docs.write(AUDIT, text[:start] + entry.format(at=iso(stamp(5)), field=field) + text[end:])
    # the entry itself approves the design (the approval after it, "yes, two units", may answer the design the
    # entry puts to the person as well)
    found = approvals(read_project(docs.root, DOCS)).get(("application-design", None), [])
    assert (docs.line(AUDIT, entry.split("\n")[0]) in [each.line for each in found]) is approved


@pytest.mark.parametrize(("field", "approved"), [
    ("AI响应", False),  # zizuiliaoya-droid/clothinkai: "AI response", with no space, at 210 entries
    ("AI 回应", False),
    ("备注", True)])  # "remarks": no field aidlc reads, so no answer that did the work
def test_the_agent_s_answer_under_a_chinese_field_name_is_read(docs: DocsRepo, field: str, approved: bool) -> None:
    # "继续" ("continue") after the design's plan, answered with the design made: the words set the work going, and
    # nothing approved the design after it
    text = audit_text()
    start, end = text.index("## Functional Design - Unit 1 Approval"), text.index("## NFR Requirements - Unit 1")
    entry = (f"## CONSTRUCTION - U01 - Functional Design - 设计文档生成\n**时间戳**: {iso(stamp(7))}\n"
             f'**用户输入**: "继续"（认可 17 个预填澄清答案）\n**{field}**: 基于决策生成 3 份功能设计文档\n'
             "**上下文**: CONSTRUCTION - Unit 1 orders-api\n\n---\n\n"
             # as the log goes on: the next stage's plan, no words of the person between
             "## CONSTRUCTION - U01 - NFR Requirements - Planning\n"
             f"**时间戳**: {iso(stamp(7) + timedelta(minutes=1))}\n"
             f"**{field}**: 创建 U01-nfr-requirements-plan.md\n\n---\n\n")
    docs.write(AUDIT, text[:start] + entry + text[end:])
    unapproved = [f.line for f in docs.findings("AIDLC-DOCS-003")]
    assert unapproved == ([] if approved else [docs.line(STATE, "Functional Design - EXECUTE (Unit 1")])


@pytest.mark.parametrize("heading", ["Increment v8 — Application Design — Respuestas recibidas",  # Programa-Dx
                                     "Application Design — Preguntas respondidas"])
def test_answers_logged_under_a_spanish_heading_are_not_the_stage_s_approval(docs: DocsRepo, heading: str) -> None:
    # Programa-Dx---bts-integral: "Ya respondi" ("I have answered") under `... — Respuestas recibidas` ("answers
    # received") was read as the approval. The field `Respuesta exacta del usuario` of the approval after it holds
    # `respuesta` too, and is no answer to questions: it names the person's words.
    text = audit_text()
    start, end = text.index("## Application Design - Approval"), text.index("## Units Generation - Approval")
    answers = spanish_entry(heading, iso(stamp(5)), "Raw User Input", "Ya respondi")
    docs.write(AUDIT, text[:start] + answers + text[end:])
    assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Application Design"))]
    approval = spanish_entry("Application Design Approved", iso(stamp(5) + timedelta(seconds=30)),
                             "Respuesta exacta del usuario", "apruebo, continua")
    docs.write(AUDIT, text[:start] + answers + approval + text[end:])
    assert docs.findings() == []


def test_a_next_stage_named_in_the_context_is_not_approved(docs: DocsRepo) -> None:
    # "Next: Units Generation" in the Application Design approval does not approve Units Generation.
    docs.replace(AUDIT, "INCEPTION - Application Design approved", "INCEPTION - Application Design approved. Next: "
                 "Units Generation")
    docs.replace(AUDIT, '**User Input**: "yes, two units"\n', "")
    assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Units Generation"))]


def test_stages_that_need_no_approval_and_skipped_stages_are_exempt(docs: DocsRepo) -> None:
    docs.replace(AUDIT, '"Build a small shop: customers order, staff see orders."', "N/A")  # Workspace Detection
    docs.replace(STATE, "- [ ] NFR Design - SKIP", "- [x] NFR Design - SKIP (no extra NFRs)")
    assert docs.findings() == []


@pytest.mark.parametrize("says", ["Completed (awaiting approval)", "완료; 승인 게이트 대기", "完了・承認待ち",
                                  "Complete, pending explicit approval"])
def test_a_ticked_stage_that_says_it_awaits_approval_is_an_error(docs: DocsRepo, says: str) -> None:
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", f"- [x] Build and Test — {says}")
    assert only(docs, "AIDLC-DOCS-004") == [(STATE, docs.line(STATE, says))]


def test_the_logged_approval_a_stale_line_names_is_the_stages_own(docs: DocsRepo) -> None:
    """u-10bei approved unit 2's NFR Design under its own `Step 9: User Approval`, then named it again in a later
    Code Generation approval's answer ("... NFR Design ... all approved"): AIDLC-DOCS-004 cited the later entry."""
    docs.replace(STATE, "- [x] Functional Design - EXECUTE (Unit 2: shop-web)",
                 "- [x] Functional Design - EXECUTE (Unit 2: shop-web) (awaiting approval)")
    docs.write(AUDIT, audit_text([*ENTRIES, ("Code Generation - Unit 2 Final Approval", "approve",
                                             "Unit 2 functional design and code all approved.",
                                             "CONSTRUCTION - Unit 2 shop-web")]))
    [finding] = docs.findings("AIDLC-DOCS-004")
    assert f"{AUDIT}:{docs.line(AUDIT, '## Functional Design - Unit 2 Approval')} logs" in finding.message, \
        finding.message


def test_a_line_still_awaiting_an_approval_the_log_holds_says_the_words_are_out_of_date(docs: DocsRepo) -> None:
    # petmed, BloodConnect: `- [x] Build and Test — COMPLETED (..., awaiting approval)` with the person's approval
    # logged: the finding stays (the file contradicts itself), and no longer tells them to untick an approved stage.
    docs.replace(STATE, "- [x] Code Generation - EXECUTE (Unit 2: shop-web)",
                 "- [x] Code Generation - EXECUTE (Unit 2: shop-web) (awaiting approval)")
    approval = next(n for n, text in enumerate(docs.read(AUDIT).split("\n"), 1)
                    if text == "## Code Generation - Unit 2 Approval")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    [finding] = json.loads(result.stdout)["findings"]
    assert (result.returncode, finding["code"], finding["line"]) == (1, "AIDLC-DOCS-004",
                                                                     docs.line(STATE, "(awaiting approval)"))
    assert finding["message"].endswith(f"{AUDIT}:{approval} logs a person's approval of the stage: if it is this "
                                       "work's, the line is out of date")
    assert finding["fix"].startswith("if the logged approval is this work's, edit the line")
    status = json.loads(run_cli("status", "--format", "json", cwd=docs.root).stdout)
    assert status["waiting"] == [], status["waiting"]  # u-10bei: "waiting for a person: 10 stages", all approved
    # Without the approval, the tick is what is wrong.
    docs.write(AUDIT, audit_text([entry for entry in ENTRIES if entry[0] != "Code Generation - Unit 2 Approval"]))
    fixes = {f.code: f.fix for f in docs.findings()}
    assert fixes["AIDLC-DOCS-004"].startswith("untick the line")


def test_a_unit_line_under_a_stage_line_is_that_stage_of_the_unit(docs: DocsRepo) -> None:
    docs.replace(STATE, "- [x] Code Generation - EXECUTE (Unit 2: shop-web)\n",
                 "- [~] Code Generation (per-unit) — EXECUTE\n  - [x] U2 Shop Web — complete (awaiting approval)\n")
    line = docs.line(STATE, "U2 Shop Web")
    assert [(f.code, f.line) for f in docs.findings()] == [("AIDLC-DOCS-004", line)]


# -- plans ---------------------------------------------------------------------------------------------------------
def test_a_stage_ticked_while_its_plan_has_open_boxes_is_an_error(docs: DocsRepo) -> None:
    docs.replace(DESIGN_PLAN, "- [x] Step 2", "- [ ] Step 2")
    found = docs.findings("AIDLC-DOCS-005")
    assert [(f.path, f.line) for f in found] == [(STATE, docs.line(STATE, "Functional Design - EXECUTE (Unit 2"))]
    assert f"{DESIGN_PLAN} has 1 of 2 boxes open (first at line {docs.line(DESIGN_PLAN, '[ ] Step 2')}, under " \
        "`## Steps`)" in found[0].message
    assert only(docs, "AIDLC-DOCS-005")
    # todo-app's open boxes were a checklist after the steps, all ticked: the heading says which
    docs.write(DESIGN_PLAN, plan("Functional Design", 2, 2) + "\n## Acceptance Criteria Checklist\n- [ ] Works\n")
    [finding] = docs.findings("AIDLC-DOCS-005")
    assert finding.message.endswith("(first at line 8, under `## Acceptance Criteria Checklist`)"), finding.message


def test_a_line_naming_its_plan_is_judged_by_that_plan_only(docs: DocsRepo) -> None:
    # A re-entry of unit 1's functional design names its own plan; the first run's plan is open.
    first = f"{DOCS}/construction/plans/unit-1-orders-api-functional-design-plan.md"
    again = f"{DOCS}/construction/plans/unit-1-orders-api-refunds-functional-design-plan.md"
    docs.replace(first, "- [x] Step 2", "- [ ] Step 2")
    docs.write(again, plan("Functional Design: refunds", 3, 3))
    docs.replace(STATE, "- [x] Functional Design - EXECUTE (Unit 2: shop-web)\n",
                 "- [x] Functional Design - EXECUTE (Unit 2: shop-web)\n- [x] **Functional Design revised - Unit 1 "
                 "refunds (2026-11-30)**: plan `construction/plans/unit-1-orders-api-refunds-functional-design-plan.md`"
                 ", all answers A\n")
    assert only(docs, "AIDLC-DOCS-005") == [(STATE, docs.line(STATE, "Functional Design - EXECUTE (Unit 1"))]
    # The re-entry's own plan open: its line is judged by it.
    docs.write(again, plan("Functional Design: refunds", 3, 2))
    assert (STATE, docs.line(STATE, "Functional Design revised")) in only(docs, "AIDLC-DOCS-005")


def test_a_line_naming_no_unit_beside_lines_naming_theirs_claims_only_the_plans_none_of_them_claims(
        docs: DocsRepo) -> None:
    """kohwg/gowoopi lists each unit's stages under its heading, and a shared package's Code Generation under `###
    Shared Package (공통)`, a heading naming no unit: that line was read as claiming every unit's plan, and the open
    database plan's finding said "line 44 ticks it too". It claims the plans of units no ticked line of its stage
    names (the shared package's); each unit's plan is its own line's."""
    shared = f"{DOCS}/construction/plans/shared-package-tdd-code-generation-plan.md"
    docs.write(shared, plan("Shared Package TDD Code Generation Plan", 4, 3))
    docs.replace(CODE_PLAN, "- [x] Step 3", "- [ ] Step 3")
    docs.replace(STATE, "- [x] Build and Test - EXECUTE\n", "\n### Shared Package (공통)\n- [x] Code Generation - TDD "
                 "(COMPLETED - 2026-11-30T10:45:00Z)\n\n### Build and Test\n- [x] Build and Test - EXECUTE\n")
    docs.commit("shared package")
    found = json.loads(run_cli("validate", "--format", "json", str(docs.root)).stdout)["findings"]
    unit_1, package = docs.line(STATE, "Code Generation - EXECUTE (Unit 1"), docs.line(STATE, "Code Generation - TDD")
    assert [(f["line"], f["message"]) for f in found if f["code"] == "AIDLC-DOCS-005"] == [
        (unit_1, f"ticked while {CODE_PLAN} has 1 of 4 boxes open (first at line 6, under `## Steps`)"),
        (package, f"ticked while {shared} has 1 of 4 boxes open (first at line 7, under `## Steps`)")]
    # A line about every unit claims each unit's plan still, beside the units' own lines.
    docs.replace(STATE, "- [x] Code Generation - TDD (COMPLETED", "- [x] Code Generation - all units (COMPLETED")
    [first, _] = [f for f in docs.findings("AIDLC-DOCS-005")]
    assert first.message.endswith(f"; line {package} ticks it too"), first.message


def test_a_plan_in_a_unit_folder_naming_no_unit_is_that_units_plan(docs: DocsRepo) -> None:
    """kohwg/gowoopi kept unit 4's plan in the unit's folder, `construction/unit4-admin-app/code/tdd-code-generation-
    plan.md`, its name naming no unit: no unit's line claimed it (the line naming no unit did, "Shared Package"),
    and with every line naming its unit its open steps were judged by none."""
    inside = f"{DOCS}/construction/{UNITS[1]}/code/tdd-code-generation-plan.md"
    docs.write(inside, plan("TDD Code Generation Plan", 4, 3))
    docs.commit("unit 2's plan in its folder")
    found = [(f.code, f.line, inside in f.message) for f in docs.findings()]
    assert found == [("AIDLC-DOCS-005", docs.line(STATE, "Code Generation - EXECUTE (Unit 2"), True),
                     ("AIDLC-DOCS-006", docs.line(STATE, "Build and Test - EXECUTE"), True)]
    # A folder that is no unit (a system-wide stage's) gives its plan no unit: unit 1's line does not claim it.
    docs.path(inside).unlink()
    docs.write(f"{DOCS}/construction/build-and-test/code-generation-plan.md", plan("Code Generation Plan", 2, 1))
    assert docs.findings("AIDLC-DOCS-005") == []


def test_a_unit_named_by_its_folder_in_a_heading_is_judged_as_that_unit(docs: DocsRepo) -> None:
    # A unit folder without a number, its lines under a bold paragraph naming it; its approval an entry without a
    # heading whose Context names it in words; a system-wide infrastructure-design/ folder beside it is no unit.
    docs.write(f"{DOCS}/construction/search-migration/nfr-design/nfr-design-patterns.md", "# Patterns\n")
    docs.write(f"{DOCS}/construction/infrastructure-design/shared-network.md", "# Network\n")
    docs.write(f"{DOCS}/construction/plans/search-migration-nfr-design-plan.md", plan("NFR Design", 2, 2))
    docs.write(f"{DOCS}/construction/plans/unit-1-orders-api-nfr-design-plan.md", plan("NFR Design", 2, 1))
    docs.replace(STATE, "### 🟡 OPERATIONS PHASE", "**search-migration** (reindex the catalogue):\n"
                 "- [x] NFR Design — **complete, approved**. `nfr-design-patterns.md`\n\n### 🟡 OPERATIONS PHASE")
    docs.write(AUDIT, docs.read(AUDIT) + f"**Timestamp**: {iso(stamp(len(ENTRIES)))}\n"
               "**User Input**: \"continue to the next stage\"\n**AI Response**: \"Proceeding.\"\n"
               "**Context**: User approved NFR Design for the search migration; Infrastructure Design next.\n\n---\n")
    assert docs.findings() == []
    # Unit 1's open NFR design plan is unit 1's: its line is not ticked. The migration's own plan open is found.
    docs.write(f"{DOCS}/construction/plans/search-migration-nfr-design-plan.md", plan("NFR Design", 2, 1))
    assert only(docs, "AIDLC-DOCS-005") == [(STATE, docs.line(STATE, "- [x] NFR Design — **complete"))]


def test_the_execution_plans_boxes_choose_stages_and_are_never_open_steps(docs: DocsRepo) -> None:
    docs.replace(EXECUTION_PLAN, "- [x] Requirements Analysis (COMPLETED)", "- [ ] Requirements Analysis")
    assert docs.findings() == []


def test_build_and_test_ticked_while_a_code_generation_plan_is_open_is_an_error(docs: DocsRepo) -> None:
    docs.replace(CODE_PLAN, "- [x] Step 3", "- [ ] Step 3")
    docs.replace(STATE, "- [x] Code Generation - EXECUTE (Unit 1: orders-api)",
                 "- [ ] Code Generation - EXECUTE (Unit 1: orders-api)")
    found = only(docs, "AIDLC-DOCS-006")
    assert found == [(STATE, docs.line(STATE, "- [x] Build and Test"))]


# -- approvals in order, timestamps --------------------------------------------------------------------------------
def test_stages_approved_out_of_the_documented_order_are_a_warning(docs: DocsRepo) -> None:
    entries = list(ENTRIES)
    stories, planning = entries[3], entries[4]
    assert "User Stories" in stories[0] and "Workflow Planning" in planning[0]
    entries[3], entries[4] = planning, stories
    docs.write(AUDIT, audit_text(entries))
    found = docs.findings("AIDLC-DOCS-007")
    assert [(f.path, f.line) for f in found] == [(AUDIT, docs.line(AUDIT, "## User Stories - Approval"))]
    assert "after Workflow Planning" in found[0].message and found[0].severity == Severity.warning
    assert only(docs, "AIDLC-DOCS-007")


def test_in_a_project_of_one_unit_an_approval_naming_none_is_that_unit_s_in_the_order(tmp_path: Path) -> None:
    # agwlvssainokuni/rust-neatnik: `## Functional Design - Approved`, "承認します。", names no unit; its one unit's
    # design was taken as first approved a day later, after the code (a false AIDLC-DOCS-007).
    docs = tmp_path / DOCS
    (docs / "construction" / "neatnik-cli" / "functional-design").mkdir(parents=True)
    (docs / "aidlc-state.md").write_text("# State\n\n- [x] Functional Design (neatnik-cli)\n"
                                         "- [x] Code Generation (neatnik-cli)\n", encoding="utf-8")
    approvals = [("Functional Design - Approved", "CONSTRUCTION - Functional Design 完了"),
                 ("neatnik-cli Code Generation - Approved", "CONSTRUCTION - neatnik-cli Code Generation"),
                 ("neatnik-cli Functional Design - Revision Approved", "CONSTRUCTION - neatnik-cli Functional Design")]
    (docs / "audit.md").write_text("# Audit\n\n" + "".join(
        entry_text(heading, stamp(n), "承認します。", "Recorded.", context)
        for n, (heading, context) in enumerate(approvals)), encoding="utf-8")
    result = run_cli("validate", "--format", "json", cwd=tmp_path)
    assert [f["code"] for f in json.loads(result.stdout)["findings"] if f["code"] == "AIDLC-DOCS-007"] == []


def test_a_units_stages_approved_out_of_order_are_named_with_the_unit(docs: DocsRepo) -> None:
    """DocSuri's log holds twelve units: "Functional Design was first approved ... after NFR Requirements" did not say
    whose."""
    entries = list(ENTRIES)
    entries[7], entries[8] = entries[8], entries[7]
    assert "NFR Requirements - Unit 1" in entries[7][0]
    docs.write(AUDIT, audit_text(entries))
    [finding] = docs.findings("AIDLC-DOCS-007")
    assert finding.line == docs.line(AUDIT, "## Functional Design - Unit 1 Approval")
    assert finding.message.startswith("Functional Design of unit 1 was first approved at ") and \
        "after NFR Requirements (line" in finding.message


@pytest.mark.parametrize(("said", "approves"), [
    ("Approve & Continue", True),
    ("A, C", False),  # options picked: answers, no approval
    ("Not approved: changes requested", False),
    ("**(pending)**", False)])  # no words of the person
def test_only_an_entry_that_approves_its_stage_puts_it_in_the_order(docs: DocsRepo, said: str, approves: bool) -> None:
    entries = list(ENTRIES)
    stories, planning = entries[3], entries[4]
    entries[3], entries[4] = (planning[0], said, *planning[2:]), stories
    docs.write(AUDIT, audit_text(entries))
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    found = {(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]}
    assert (("AIDLC-DOCS-007", docs.line(AUDIT, "## User Stories - Approval")) in found) == approves


def test_an_approval_logged_below_another_with_an_earlier_time_is_no_order_broken(docs: DocsRepo) -> None:
    # cheongYak-radar: Code Generation logged below Infrastructure Design with a time before it. Which came first is
    # not known (the time was written by hand, or the entry put above): the time's inversion is reported, not the order.
    planning = next(n for n, entry in enumerate(ENTRIES) if entry[0] == "Workflow Planning - Approval")
    docs.write(AUDIT, audit_text().replace(iso(stamp(planning)), iso(stamp(planning - 1) - timedelta(minutes=1))))
    result = run_cli("validate", str(docs.root), "--format", "json")
    found = [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]
    assert found == [("AIDLC-DOCS-009", docs.line(AUDIT, "## Workflow Planning - Approval"))]


@pytest.mark.parametrize("heading", ["Application Design - Approved / Units Generation Start",
                                     "Application Design — Approved / Units Generation Started"])
def test_a_stage_a_compound_heading_starts_is_not_approved_by_it(docs: DocsRepo, heading: str) -> None:
    # `## Requirements Analysis — Approved / User Stories Started`: the approval is of the stage before the slash.
    entries = [e for e in ENTRIES if e[0] != "Units Generation - Approval"]
    entries = [(heading, *e[1:]) if e[0] == "Application Design - Approval" else e for e in entries]
    docs.write(AUDIT, audit_text(entries))
    result = run_cli("validate", str(docs.root), "--format", "json")
    found = [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]
    assert found == [("AIDLC-DOCS-003", docs.line(STATE, "Units Generation"))]


@pytest.mark.parametrize(("said", "words"), [
    ("대기 중", False), ("대기", False), ("N/A", False), ("**(pending)**", False), ("---", False),  # the agent's notes
    # waikato-ahuora-smart-energy-systems/OpenPinch, 122 times: the agent's note that the person said nothing
    ("No new user input.", False), ("No new user input; executed the approved area-slice refinement.", False),
    ("대기업 고객 먼저, 진행해줘", True),  # "large-company customers first, go on": words that start like 대기
    ("👍", True)])
def test_a_placeholder_is_no_words_and_the_person_s_words_are(docs: DocsRepo, said: str, words: bool) -> None:
    entries = [(e[0], said, *e[2:]) if e[0] == "Workflow Planning - Approval" else e for e in ENTRIES]
    docs.write(AUDIT, audit_text(entries))
    assert [(f.code, f.line) for f in docs.findings()] == (
        [] if words else [("AIDLC-DOCS-003", docs.line(STATE, "Workflow Planning"))])


@pytest.mark.parametrize(("said", "words"), [
    ('(답변) "Approve & Continue"', True),  # DocSuri: "(answer)" labels the person's quoted words
    ("(answer) approved, go on", True),
    ("(the agent proceeds on the plan it wrote)", False),  # an agent's note, the person said nothing
    ("(pending) — approval prompt presented", False),  # BloodConnect: a note that there are none yet, then more notes
    ("（承認を受けて開始）", False)])
def test_a_parenthesised_label_before_the_person_s_words_leaves_them_words(docs: DocsRepo, said: str,
                                                                          words: bool) -> None:
    entries = [(e[0], said, *e[2:]) if e[0] == "Workflow Planning - Approval" else e for e in ENTRIES]
    docs.write(AUDIT, audit_text(entries))
    assert [(f.code, f.line) for f in docs.findings()] == (
        [] if words else [("AIDLC-DOCS-003", docs.line(STATE, "Workflow Planning"))])


@pytest.mark.parametrize(("said", "context"), [
    ("I do not approve: changes requested", "INCEPTION - Application Design"),  # a refusal
    ("A, C, B", "INCEPTION - Application Design"),  # options picked: answers to the stage's questions
    # ferco, shimmk-skt: the words that set the stage's work going, logged with the agent's answer that puts the
    # finished stage to the person; their approval comes after it, in a later entry
    ("진행", "INCEPTION - Application Design 완료. 사용자 승인 대기."),
    ("usando aidlc, ¿podrías diseñar la aplicación?", "Inception, application design completed and awaiting review"),
    ("go", "INCEPTION - Application Design complete. Awaiting explicit approval."),  # cu-aaii
    ("[pending]", "INCEPTION - Application Design")])  # cu-aaii: a bracketed note, not words
def test_words_that_refuse_pick_options_or_came_before_the_stage_was_put_to_the_person_approve_nothing(
        docs: DocsRepo, said: str, context: str) -> None:
    def log(words: str, next_words: str) -> str:
        return audit_text([(e[0], words, e[2], context) if e[0] == "Application Design - Approval" else
                           (e[0], next_words, *e[2:]) if e[0] == "Units Generation - Approval" else e for e in ENTRIES])

    docs.write(AUDIT, log(said, "two units, as planned"))  # the next entry's words are no go-ahead
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    assert [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]] == [
        ("AIDLC-DOCS-003", docs.line(STATE, "Application Design"))]
    docs.write(AUDIT, log(said, "yes, two units"))  # the person's go-ahead after it was put to them approves it
    assert ("AIDLC-DOCS-003" in {f.code for f in docs.findings()}) == (context == "INCEPTION - Application Design")


@pytest.mark.parametrize(("said", "answered", "approved"), [
    # worryDolls, kai-cupist, hyojeongcho: a go-ahead whose answer is the stage's work: the words came before it
    ("진행", "Application Design 문서 생성 완료.", False),
    ("yes, go on", "Generated the application design: components.md, services.md.", False),
    ("Approve & Continue", "Application design complete; approval recorded.", True),  # the words approve
    ("yes, go on", "Noted; units next.", True)])  # an answer that did no work of the stage
def test_words_whose_answer_did_the_stage_s_work_approve_none_of_it(docs: DocsRepo, said: str, answered: str,
                                                                     approved: bool) -> None:
    # under a heading that names the stage and says nothing of approval (`## Build and Test Stage`)
    docs.write(AUDIT, audit_text([("Application Design", said, answered, "INCEPTION - Application Design")
                                  if e[0] == "Application Design - Approval" else
                                  (e[0], "two units, as planned", *e[2:]) if e[0] == "Units Generation - Approval"
                                  else e for e in ENTRIES]))
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    found = [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]
    assert found == ([] if approved else [("AIDLC-DOCS-003", docs.line(STATE, "Application Design"))])


@pytest.mark.parametrize(("answer", "approved"), [
    # hailmary, aws-ai-dlc, DocSuri: the go-ahead logged under the next stage's heading, the answer naming the stage
    ("Application Design 승인 처리. Units Generation 단계 진행.", True),  # "Application Design's approval recorded"
    ("User approved Application Design. Proceeding to Units Generation.", True),
    ("Approved the application design, moving to Units Generation.", True),
    ("Application Design approved; its assumptions recorded. Units Generation next.", True),
    ("Application Design 승인 간주. Units Generation 진행.", False),  # shimmk-skt: "deemed approved", by the agent
    ("Application Design approval assumed. Units Generation next.", False),
    ("Units Generation approved; Application Design was already done.", False)])  # it names the next stage approved
def test_a_go_ahead_whose_answer_says_the_stage_before_approved_approves_it(docs: DocsRepo, answer: str,
                                                                          approved: bool) -> None:
    kept = [e for e in ENTRIES if e[0] != "Application Design - Approval"]
    go_ahead = ("Units Generation - Start", "다음단계 부탁해", answer, "INCEPTION - Units Generation")
    docs.write(AUDIT, audit_text([*kept[:5], go_ahead, *kept[5:]]))
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    found = [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]
    assert found == ([] if approved else [("AIDLC-DOCS-003", docs.line(STATE, "Application Design"))])


@pytest.mark.parametrize(("heading", "said", "answer", "approved"), [
    # jin-101/SPA-BRIDGE: "Continue to Next Stage" under the next stage's first heading, after the completion
    ("Units Generation - Planning", "Continue to Next Stage", "Started units generation planning.", True),
    ("Units Generation - Start", "ㄱㄱ", "Started units generation.", True),  # Demoju: "go go"
    ("Units Generation - Planning", "two units, as planned", "Noted.", False),  # no go-ahead: an answer
    # shimmk-skt: the same stage goes on, its next part done in answer to the words: they approve neither part
    ("Application Design - Part 2", "continue", "Generated part 2 of the application design.", False),
    ("Session Resumption", "proceed", "Session resumed.", False),  # plsql2java: no stage gone on to
    ("Units Generation - Planning (earlier)", "Continue to Next Stage", "Started.", False)])  # dated before it
def test_a_go_ahead_after_a_stage_s_completion_approves_it(docs: DocsRepo, heading: str, said: str, answer: str,
                                                          approved: bool) -> None:
    completion = ("Application Design Completion", None, "Completed the application design: components.md.",
                  "INCEPTION - Application Design completion")
    text = with_entry_after(completion[0], (heading, said, answer, "INCEPTION - next step"),
                            [completion if e[0] == "Application Design - Approval" else e for e in ENTRIES])
    if "earlier" in heading:  # two sessions' entries interleaved: the go-ahead answered something before
        text = text.replace(f"## {heading}\n**Timestamp**: {iso(stamp(6))}",
                            f"## {heading}\n**Timestamp**: {iso(stamp(1))}")
    docs.write(AUDIT, text)
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    found = {(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"] if f["code"] == "AIDLC-DOCS-003"}
    assert found == (set() if approved else {("AIDLC-DOCS-003", docs.line(STATE, "Application Design"))})


@pytest.mark.parametrize(("said", "approved"), [
    ("네네", True),  # SUHYUNSHIM/aidlc-0204: "yes yes"
    ("네", True),  # the heading that says answers received and complete was a completion already
    ("고고", True),  # "go go"
    ("답변완료", False)])  # "answers done": no go-ahead
def test_a_repeated_yes_after_a_completion_that_also_logs_answers_approves_the_stage(docs: DocsRepo, said: str,
                                                                                  approved: bool) -> None:
    # aidlc-0204: `## Units Generation - Answers Received and Complete` (its own "ㄱㄱ" set the units' generation
    # going), then "네네" under `## Functional Design - Customer Frontend`, which starts unit 1's functional design.
    completion = ("Units Generation - Answers Received and Complete", "ㄱㄱ", "Reviewed answers and generated units.",
                  "INCEPTION - Units Generation")
    entries = [completion if e[0] == "Units Generation - Approval" else e for e in ENTRIES]
    docs.write(AUDIT, with_entry_after(completion[0], (
        "Functional Design - Unit 1", said, "Started Functional Design for unit 1: created its plan with 18 questions.",
        "CONSTRUCTION Phase - Functional Design stage initiated for Unit 1"), entries))
    found = [(f.code, f.line) for f in docs.findings()]
    assert found == ([] if approved else [("AIDLC-DOCS-003", docs.line(STATE, "Units Generation"))])


GOING_ON = "CONSTRUCTION - Unit 1 Code Generation 시작"


@pytest.mark.parametrize(("heading", "next_heading", "unapproved"), [
    # hyojeongcho-mnetplus/aws-AI-DLC-team-3: `## CONSTRUCTION - NFR Requirements + Infrastructure Design 완료`
    ("CONSTRUCTION - Unit 1 Functional Design + NFR Requirements 완료", GOING_ON, []),
    ("CONSTRUCTION - Unit 1 Functional Design / NFR Requirements Complete", GOING_ON, []),
    # a stage named after the word that closes the other is not closed: it starts
    ("CONSTRUCTION - Unit 1 Functional Design 완료, NFR Requirements 시작", GOING_ON,
     ["NFR Requirements - EXECUTE (Unit 1"]),
    # HCSES: the next entry approves one of the stages closed in its own words, and the go-ahead the others
    ("Unit 1 - Functional Design / NFR Requirements - COMPLETED", "Unit 1 - NFR Requirements - User Approval", [])])
def test_a_go_ahead_after_a_completion_of_two_stages_approves_each(docs: DocsRepo, heading: str, next_heading: str,
                                                                  unapproved: list[str]) -> None:
    # Its own "ㄱㄱ 진행" set the two stages' work going; "ㄱㄱ 다음 진행" after it, under `## CONSTRUCTION - Code
    # Generation 시작`, answered `NFR + Infra 승인` ("NFR + Infra approved"): the go-ahead after the completion.
    completion = (heading, "ㄱㄱ 진행", "Unit 1 Functional Design 완료. NFR Requirements 완료. Code Generation 준비.",
                  f"{heading}, Code Generation 대기")
    entries = [completion if e[0] == "Functional Design - Unit 1 Approval" else e for e in ENTRIES
               if e[0] != "NFR Requirements - Unit 1 Approval"]
    go_ahead = (next_heading, "ㄱㄱ 다음 진행", "FD + NFR 승인. Code Generation Part 1 시작.",
                "CONSTRUCTION - Code Generation")
    docs.write(AUDIT, with_entry_after(heading, go_ahead, entries))
    found = [(f.code, f.line) for f in docs.findings()]
    assert found == [("AIDLC-DOCS-003", docs.line(STATE, line)) for line in unapproved]


@pytest.mark.parametrize("hostile", [
    "a " * 100_000 + "!",  # a pattern over the whole answer backtracked without end on 100 letters
    "[" * 100_000 + "]" * 100_000 + "a",  # a bracketed note matched by patterns backtracking over each other
    "(" * 200_000 + "a",
    "?" * 100_000 + "a",  # a question's mark at the words' end, searched from each mark
    # the IDE context Codex puts before the words, its closing heading never coming
    "# Context from my IDE setup:" + "\n## Open tabs: x" * 50_000 + "\n## My request for Codex"])
def test_hostile_words_are_read_in_one_pass(docs: DocsRepo, hostile: str) -> None:
    # Each pattern over the person's words runs once over them: no pick of options, no bracketed note, words under
    # the stage's heading that approve it. Run as a process with a timeout, so that a pattern that backtracks fails
    # the test rather than hanging it: the text is read in well under a second, and such a pattern took minutes.
    docs.write(AUDIT, audit_text([(e[0], hostile, e[2], "INCEPTION - Application Design")
                                  if e[0] == "Application Design - Approval" else e for e in ENTRIES]))
    result = run_cli_process("validate", "--format", "json", cwd=docs.root, timeout=120)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("blanks", [" " * 100_000, "\t" * 100_000])
def test_a_heading_of_hostile_blanks_is_read_in_one_pass(docs: DocsRepo, blanks: str) -> None:
    # Where a heading joins two steps (`Approved / ... Start`, `승인 + ... 진입`) was searched from every blank: a
    # hostile run of them took seconds per ten thousand. As above, a process with a timeout.
    docs.replace(AUDIT, "## Application Design - Approval", f"## Application Design -{blanks}Approval")
    result = run_cli_process("validate", "--format", "json", cwd=docs.root, timeout=120)
    assert result.returncode == 0, result.stdout


def test_a_hostile_run_of_post_in_a_context_is_read_in_one_pass(docs: DocsRepo) -> None:
    # A Context naming a stage after `post-` is not about it: each `post ` was read to the Context's end, and this one
    # took minutes. As above, a process with a timeout; now read in seconds.
    docs.replace(AUDIT, "**Context**: INCEPTION - Application Design approved", "**Context**: " + "post " * 400_000)
    result = run_cli_process("validate", "--format", "json", cwd=docs.root, timeout=120)
    assert result.returncode in (0, 1) and json.loads(result.stdout)["summary"], result.stderr


@pytest.mark.parametrize("letter", ["ı", "İ"])  # Turkish's dotless and dotted i
def test_a_stage_name_written_with_a_turkish_i_is_read_as_the_stage(docs: DocsRepo, letter: str) -> None:
    # `re` matches ı and İ as i when case is ignored, but no table holds `buıld and test`: validate stopped with a
    # KeyError traceback. Read as the Build and Test a reader sees, as a Cyrillic look-alike is.
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", f"- [x] Bu{letter}ld and Test - EXECUTE")
    docs.replace(AUDIT, "## Build and Test - Approval", f"## Bu{letter}ld and Test - Approval")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["errors"] == 0  # the stage is read, and its approval under the heading with it
    assert [f for f in report["findings"] if f["code"] == "AIDLC-DOCS-012"] == []  # no stage left unknown


def test_a_unit_numbered_with_thousands_of_digits_is_no_unit(docs: DocsRepo) -> None:
    # int() refuses a number of over 4,300 digits: a stage line and a heading naming `Unit 999...` stopped validate
    # and status with a ValueError traceback. A number of ten digits or more names no unit.
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", "- [x] Build and Test - EXECUTE (Unit " + "9" * 5000 + ")")
    docs.replace(AUDIT, "## Build and Test - Approval", "## Build and Test - Unit " + "9" * 5000 + " Approval")
    for command in (("validate", "--format", "json"), ("status", "--format", "json")):
        result = run_cli(*command, cwd=docs.root)
        assert result.returncode in (0, 1) and json.loads(result.stdout), result.stderr


def test_a_hostile_run_of_design_plans_in_a_heading_is_read_in_one_pass(docs: DocsRepo) -> None:
    # A plan word belongs to the stage named last before it: each plan word looked back over every stage name before
    # it, and this heading took minutes. As above, a process with a timeout; now read in seconds.
    docs.replace(AUDIT, "## Application Design - Approval", "## " + "Functional Design plan " * 80_000)
    result = run_cli_process("validate", "--format", "json", cwd=docs.root, timeout=120)
    assert result.returncode in (0, 1) and json.loads(result.stdout)["summary"], result.stderr


@pytest.mark.parametrize(("said", "context"), [
    ("Approved, no changes requested", "INCEPTION - Application Design"),  # cu-aaii: no refusal
    ("Approve & Continue", "INCEPTION - Application Design approved. Next: Units Generation, awaiting approval")])
def test_an_approval_that_says_no_changes_or_names_the_next_gate_stands(docs: DocsRepo, said: str,
                                                                        context: str) -> None:
    docs.write(AUDIT, audit_text([(e[0], said, e[2], context) if e[0] == "Application Design - Approval" else
                                  (e[0], "two units, as planned", *e[2:]) if e[0] == "Units Generation - Approval"
                                  else e for e in ENTRIES]))
    assert "AIDLC-DOCS-003" not in {f.code for f in docs.findings()}


@pytest.mark.parametrize("field", ["Raw Input", "COMPLETE RAW USER INPUT", "COMPLETE RAW USER RESPONSE"])  # cu-aaii
def test_the_person_s_words_under_raw_input_are_their_input(docs: DocsRepo, field: str) -> None:
    # The rules describe User Input as "[Complete raw user input - never summarized]"; a log names the field so.
    text = audit_text()
    planning = text.index("## Workflow Planning - Approval")
    after = text[planning:].replace('**User Input**: "Approve & Continue"',
                                    f"**{field}**:\n\n```\nApprove & Continue\n```", 1)
    after = after.replace("**AI Response**:", "**Action**:", 1)
    docs.write(AUDIT, text[:planning] + after)
    assert docs.findings() == []
    docs.write(AUDIT, text[:planning] + after.replace(f"**{field}**:", "**Raw Notes**:", 1))
    assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Workflow Planning"))]


@pytest.mark.parametrize(("field", "response", "approved"), [
    ("Approval response", 'User approved — "Approve & Continue". Workflow Planning complete. Proceeding to '
     "Application Design.", True),
    ("Approval response", "User approved. Workflow Planning complete.", False),  # the agent's words alone
    ("Approval response", 'User chose "A, B" and the agent approved the plan.', False),  # the person only picked
    # jku-win-se/teaching-2026.ss.prse.braeuer.team3 logs a feature's gates so, the person's words quoted.
    ("Approval", '"approved, please go on" (user)', True),
    ("Approval", "Approved by team", False),  # Goody27/my-mother: the agent's words alone
    # the agent's field quoting the option it put to the person: their words come first, or it is no answer
    ("Approval", 'Pending — "Approve & Continue" presented to the user', False)])
def test_the_quoted_words_of_an_approval_response_are_the_person_s(docs: DocsRepo, field: str, response: str,
                                                                   approved: bool) -> None:
    # DDthonWinner/CompanyOps logs every gate so: no User Input, the agent's report of the answer quoting it.
    text = audit_text()
    planning = text.index("## Workflow Planning - Approval")
    after = text[planning:].replace('**User Input**: "Approve & Continue"', f"**{field}**: {response}", 1)
    docs.write(AUDIT, text[:planning] + after)
    if approved:
        assert docs.findings() == []
    else:
        assert only(docs, "AIDLC-DOCS-003") == [(STATE, docs.line(STATE, "Workflow Planning"))]


@pytest.mark.parametrize(("heading", "named"), [
    ("Unit 2 - User Approval", True),  # HCSES, after `## Unit 2 - All Stages - COMPLETED`
    ("유닛 2 설계 - 사용자 승인", True),  # BADA: "unit 2 design - the user's approval"
    ("Unit 2 - Changes Requested", False),  # no approval
    ("Unit 2 - All Stages - COMPLETED", False)])  # says no approval
def test_a_unit_approved_as_a_whole_approves_no_stage_and_the_finding_names_it(
        docs: DocsRepo, heading: str, named: bool) -> None:
    entries = [e for e in ENTRIES if e[0] != "Functional Design - Unit 2 Approval"]
    docs.write(AUDIT, with_entry_after("Code Generation - Unit 1 Approval", (
        heading, "승인 계속", "Unit 2 approved.", "CONSTRUCTION - Unit 2 shop-web"), entries))
    result = run_cli("validate", str(docs.root), "--format", "json")
    (found,) = json.loads(result.stdout)["findings"]
    assert (found["code"], found["line"]) == ("AIDLC-DOCS-003", docs.line(STATE, "Functional Design - EXECUTE (Unit 2"))
    said = f"; {AUDIT}:{docs.line(AUDIT, heading)} logs the person's approval of unit 2 as a whole, naming no stage"
    assert (said in found["message"]) is named, found["message"]


@pytest.mark.parametrize(("heading", "said", "reordered"), [
    # aws-ai-dlc and a Japanese log: the person has the stage added back while Workflow Planning awaits approval.
    ("INCEPTION - Workflow Planning (User Override)", "User Stories 단계를 건너뛰지마", True),
    ("Workflow Planning - 実行計画変更リクエスト", "User Storiesはスキップしないでください", True),
    ("Workflow Planning - Change Request", "please add the user stories stage before design", True),
    # Named under an earlier stage's heading: asking for the stage is no decision to move it.
    ("Requirements Analysis - Clarification", "we will want user stories too", False),
    # The words name no stage, or another one.
    ("Workflow Planning - Change Request", "please add a security review", False),
    ("Workflow Planning - Change Request", "skip the application design", False)])
def test_a_logged_decision_of_the_person_to_change_the_order_answers_the_order_warning(
        docs: DocsRepo, heading: str, said: str, reordered: bool) -> None:
    entries = list(ENTRIES)
    stories, planning = entries[3], entries[4]
    entries[3], entries[4] = (heading, said, "Execution plan updated.", "INCEPTION - Workflow Planning"), planning
    entries.insert(5, stories)
    docs.write(AUDIT, audit_text(entries))
    found = [(f.code, f.line) for f in docs.findings()]
    assert found == ([] if reordered else [("AIDLC-DOCS-007", docs.line(AUDIT, "## User Stories - Approval"))])


def test_the_person_s_words_after_the_stage_was_approved_decide_no_order_of_it(docs: DocsRepo) -> None:
    entries = list(ENTRIES)
    entries[3], entries[4] = entries[4], entries[3]
    entries.insert(5, ("Workflow Planning - Note", "the user stories stage came late, fine", "Noted.",
                       "INCEPTION - Workflow Planning"))
    docs.write(AUDIT, audit_text(entries))
    result = run_cli("validate", str(docs.root), "--format", "json")
    found = [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]
    assert found == [("AIDLC-DOCS-007", docs.line(AUDIT, "## User Stories - Approval"))]


@pytest.mark.parametrize("restarted", [True, False])
def test_a_workspace_detection_logged_again_starts_a_run_whose_order_is_its_own(docs: DocsRepo,
                                                                              restarted: bool) -> None:
    # aidlc-demo-showcase: after a first run (greenfield, through code generation), the person restarts the workflow as
    # brownfield; the new run detects the workspace again and approves reverse engineering, then requirements again.
    again = [("Reverse Engineering - Approval", "Approve & Continue", "Reverse engineering approved.",
              "INCEPTION - Reverse Engineering approved"),
             ("Requirements Analysis - Approval", "Approve & Continue", "Requirements approved.",
              "INCEPTION - Requirements Analysis approved")]
    restart = [("Workspace Detection (Brownfield)", "let's start again, brownfield, from what we have",
                "Brownfield project detected; starting Reverse Engineering.", "INCEPTION - Workspace Detection")]
    docs.write(AUDIT, audit_text([*ENTRIES, *(restart if restarted else []), *again]))
    found = [(f.code, f.line) for f in docs.findings("AIDLC-DOCS-007")]
    # without the restart, reverse engineering was first approved after the first run's requirements: out of order
    assert found == ([] if restarted else [("AIDLC-DOCS-007", docs.line(AUDIT, "## Reverse Engineering - Approval"))])


LONG_REQUEST = ("keep following the workflow at all times, and help me with these improvements: a leaderboard, "
                "sound effects and a harder third level")


@pytest.mark.parametrize(("said", "approved"), [
    (LONG_REQUEST, False),  # AIDLC-AWS-workshop's `## Game Enhancement Request`: a new instruction
    (f"approved; and next, {LONG_REQUEST}", True),  # its words say approved
    ("ok", True),  # a short answer to the stage
    (f"ok\n{LONG_REQUEST}", True)])  # the first line is what the person answered; what follows may be notes
def test_a_long_new_request_whose_context_names_the_stage_is_no_approval_of_it(docs: DocsRepo, said: str,
                                                                               approved: bool) -> None:
    entries = [("Plan Discussion", said, "Noted; updating the plan.", "INCEPTION - Workflow Planning")
               if e[0] == "Workflow Planning - Approval" else e for e in ENTRIES]
    docs.write(AUDIT, audit_text(entries))
    assert [(f.code, f.line) for f in docs.findings() if f.code == "AIDLC-DOCS-003"] == (
        [] if approved else [("AIDLC-DOCS-003", docs.line(STATE, "Workflow Planning"))])


@pytest.mark.parametrize("case", ["refused", "approved later", "another unit refused", "no unit named"])
def test_a_stage_ticked_over_the_person_s_request_for_changes_names_it(docs: DocsRepo, case: str) -> None:
    # The person's objection is the first thing a reader of the finding needs: khjeon5328/suhyup-bank-ai-dlc-table-
    # order-20260401 ticks Units Generation over `## INCEPTION - Units Generation: User Change Request`, "네개로 유닛을
    # 분해해줘" ("split it into four units"), answered with the split and never approved; nix-config's "This is not
    # approval. Note the FIX changes ...". Later words approving the stage take the finding away. Words naming no
    # unit, where each unit's code has its own plan, may be another unit's (dlhwang/CliExecutionPlatform's unit 5 was
    # once named with a later feature's plan change request): not named.
    unit = "1 orders-api" if case == "another unit refused" else "2 shop-web"
    review = (f"Code Generation - Unit {unit[0]} Review", "Request Changes: show prices with tax",
              "Changes noted; the plan gets a step for prices with tax.", f"CONSTRUCTION - Unit {unit}")
    if case == "no unit named":
        review = ("Code Generation Review", "Request Changes: show prices with tax", "Changes noted.",
                  "CONSTRUCTION - Code Generation")
    entries = [review if e[0] == "Code Generation - Unit 2 Approval" else e for e in ENTRIES]
    if case == "approved later":
        entries.insert(entries.index(review) + 1, ("Code Generation - Unit 2 Approval", "Approve & Continue",
                                                   "Unit 2 code approved.", "CONSTRUCTION - Unit 2 shop-web"))
    docs.write(AUDIT, audit_text(entries))
    found = docs.findings("AIDLC-DOCS-003")
    if case == "approved later":
        assert found == []
        return
    [finding] = found
    assert finding.line == docs.line(STATE, "Code Generation - EXECUTE (Unit 2")
    if case in ("another unit refused", "no unit named"):  # unit 1's objection, or any unit's, is not unit 2's
        assert "refusing" not in finding.message
        return
    assert finding.message.endswith(
        f"; {AUDIT}:{docs.line(AUDIT, '## Code Generation - Unit 2 Review')} logs the person's words on it refusing "
        'or asking for changes, with no approval after them: "Request Changes: show prices with tax"'), finding.message


def test_in_a_project_of_one_unit_an_objection_naming_no_unit_is_the_unit_s(tmp_path: Path) -> None:
    docs = tmp_path / DOCS
    (docs / "construction" / "neatnik-cli" / "code").mkdir(parents=True)
    (docs / "aidlc-state.md").write_text("# State\n\n- [x] Code Generation (neatnik-cli)\n", encoding="utf-8")
    (docs / "audit.md").write_text("# Audit\n\n" + entry_text(
        "Code Generation Review", stamp(0), "Request Changes: add logging", "Noted.", "CONSTRUCTION - Code Generation"),
        encoding="utf-8")
    [finding] = [f for f in json.loads(run_cli("validate", "--format", "json", cwd=tmp_path).stdout)["findings"]
                 if f["code"] == "AIDLC-DOCS-003"]
    assert finding["message"].endswith('with no approval after them: "Request Changes: add logging"'), finding


def test_the_options_the_agent_s_prompt_offers_are_no_objection(docs: DocsRepo) -> None:
    # dlhwang/CliExecutionPlatform: the prompt offers "Request Changes 또는 Continue to Code Generation", the person
    # picks the second; the finding named those words as the person's objection.
    text = audit_text([e for e in ENTRIES if e[0] != "Code Generation - Unit 2 Approval"])
    plan = (f"## Code Generation Plan Review Request - Unit 2\n**Timestamp**: {iso(stamp(len(ENTRIES)))}\n"
            '**AI Prompt**: "Approve the code generation plan? Options: Request Changes or Continue to Code '
            'Generation."\n**User Response**: "Continue to Code Generation"\n**Status**: Approved\n'
            "**Context**: CONSTRUCTION - Unit 2 shop-web Code Generation Part 1 plan approved\n\n---\n\n")
    docs.write(AUDIT, text + plan)
    [finding] = docs.findings("AIDLC-DOCS-003")
    assert finding.line == docs.line(STATE, "Code Generation - EXECUTE (Unit 2")
    assert "logs the approval of its plan (Part 1) alone" in finding.message
    assert "refusing" not in finding.message, finding.message


def test_a_quoted_objection_cannot_drive_the_terminal_or_the_ci_annotations(docs: DocsRepo) -> None:
    # The quoted words are the log's, which a model or a pull request writes: escapes and bidirectional controls
    # in them reach neither a reviewer's terminal nor a GitHub annotation as themselves.
    hostile = "Request Changes: \x1b[2J\x1b]0;pwned\x07 x\u202e txt"
    review = ("Code Generation - Unit 2 Review", hostile, "Changes noted.", "CONSTRUCTION - Unit 2 shop-web")
    docs.write(AUDIT, audit_text([review if e[0] == "Code Generation - Unit 2 Approval" else e for e in ENTRIES]))
    for args, env in ((("validate",), None), (("ci", "."), {"GITHUB_ACTIONS": "true"})):
        result = run_cli(*args, cwd=docs.root, env=env)
        line = next(line for line in result.stdout.split("\n") if "refusing or asking for changes" in line)
        assert result.returncode == 1 and "Request Changes:" in line
        assert not any(char in line for char in "\x1b\x07\u202e"), line


@pytest.mark.parametrize("generated_code_approved", [True, False])
def test_code_generation_s_plan_approval_is_not_the_stage_s(docs: DocsRepo, generated_code_approved: bool) -> None:
    # The rules ask two approvals of Code Generation: its plan (Part 1), then the generated code (Part 2).
    # aiao-workshop's `## Code Generation - TDD Plan Approved` ("gogo"), then `## Code Generation - TDD Complete`.
    plan = ("Code Generation - Unit 1 Plan Approved", "gogo", "Plan approved; starting Part 2.",
            "CONSTRUCTION - Unit 1 orders-api")
    entries = [plan if e[0] == "Code Generation - Unit 1 Approval" else e for e in ENTRIES]
    if generated_code_approved:
        entries.insert(entries.index(plan) + 1, next(e for e in ENTRIES if e[0] == "Code Generation - Unit 1 Approval"))
    docs.write(AUDIT, audit_text(entries))
    found = [(f.code, f.line) for f in docs.findings() if f.code == "AIDLC-DOCS-003"]
    assert found == ([] if generated_code_approved else
                     [("AIDLC-DOCS-003", docs.line(STATE, "Code Generation - EXECUTE (Unit 1"))])
    if not generated_code_approved:  # med-manager's finding said "no approval" beside a logged plan approval
        [finding] = docs.findings("AIDLC-DOCS-003")
        assert finding.message.endswith(f"; {AUDIT}:{docs.line(AUDIT, '## Code Generation - Unit 1 Plan Approved')} "
                                        "logs the approval of its plan (Part 1) alone: the rules ask a second one, "
                                        "of the code generated"), finding.message


@pytest.mark.parametrize(("heading", "approved"), [
    ("Functional Design - Unit 1 + Unit 2 Approval", True),  # kiro-project-demo's `U3 + U5 功能设计和代码生成完成`
    ("Functional Design - Unit 1 Approval", False)])
def test_an_approval_whose_heading_lists_units_approves_the_stage_of_each(docs: DocsRepo, heading: str,
                                                                           approved: bool) -> None:
    entries = [(heading, *e[1:]) if e[0] == "Functional Design - Unit 1 Approval" else e
               for e in ENTRIES if e[0] != "Functional Design - Unit 2 Approval"]
    docs.write(AUDIT, audit_text(entries))
    found = [(f.code, f.line) for f in docs.findings() if f.code == "AIDLC-DOCS-003"]
    assert found == ([] if approved else
                     [("AIDLC-DOCS-003", docs.line(STATE, "Functional Design - EXECUTE (Unit 2"))])


def with_entry_after(after: str, entry: tuple[str, str, str, str],
                     entries: list[tuple[str, str | None, str, str]] = ENTRIES) -> str:
    """The clean audit log with `entry` right after the one headed `after`."""
    found = list(entries)
    found.insert(next(i for i, e in enumerate(found) if e[0] == after) + 1, entry)
    return audit_text(found)


def test_an_approval_whose_context_starts_the_next_stage_approves_what_came_before(docs: DocsRepo) -> None:
    # Unit 2's design stages were skipped; its code generation was approved, then unit 2 as a whole, the Context
    # naming the next unit's first stage as it starts: that is no approval of a functional design.
    docs.replace(STATE, "- [x] Functional Design - EXECUTE (Unit 2: shop-web)",
                 "- [ ] Functional Design - SKIP (Unit 2: shop-web)")
    entries = [e for e in ENTRIES if e[0] != "Functional Design - Unit 2 Approval"]
    docs.write(AUDIT, with_entry_after("Code Generation - Unit 2 Approval", (
        "CONSTRUCTION - Unit 2 - Approved / Unit 3 Begins", "approved", "Unit 2 approved. Entering Unit 3.",
        "CONSTRUCTION - Unit 3 Functional Design starts."), entries))
    assert docs.findings() == []


@pytest.mark.parametrize(("said", "context"), [
    ("진행", "CONSTRUCTION - Unit 2 Functional Design start"),
    # Wagomu056/RocketJump: "Continue to Next Stage", the Context naming unit 2's design done in the same entry; once
    # read as unit 1's functional design (skipped) first approved after its code (AIDLC-DOCS-007)
    ("Continue to Next Stage", "CONSTRUCTION - Unit 2 Functional Design complete")])
def test_a_unit_approved_as_the_next_unit_starts_approves_the_stage_it_was_at(
        docs: DocsRepo, said: str, context: str) -> None:
    # cheongYak-radar: `## U6 Approved / U3 Functional Design Start`, "진행", its Context naming unit U3's stage: unit
    # U6 was at Code Generation, which the person approved (not a functional design of U6).
    docs.replace(STATE, "- [x] Functional Design - EXECUTE (Unit 1: orders-api)",
                 "- [ ] Functional Design - SKIP (Unit 1: orders-api)")
    entries = [e for e in ENTRIES if e[0] not in ("Code Generation - Unit 1 Approval",
                                                  "Functional Design - Unit 1 Approval")]
    entries.insert(next(i for i, e in enumerate(entries) if e[0] == "NFR Requirements - Unit 1 Approval") + 1, (
        "Code Generation - Unit 1 Complete", None, "Unit 1 code generated.", "CONSTRUCTION - Unit 1 code generated."))
    docs.write(AUDIT, with_entry_after("Code Generation - Unit 1 Complete", (
        "Unit 1 Approved / Unit 2 Functional Design Start", said, "Unit 1 approved. Starting unit 2.", context),
        entries))
    assert docs.findings() == []


@pytest.mark.parametrize(("context", "approved"), [
    ("User approved continuation from Code Generation (Unit 2) to Build and Test stage", True),
    ("Awaiting user approval from Code Generation (Unit 2) to Build and Test", False)])
def test_an_approval_logged_under_the_next_stage_s_start_approves_the_stage_it_left(
        docs: DocsRepo, context: str, approved: bool) -> None:
    # octocat_supply: `## Build and Test - Start`, the person's "Si", and a Context saying what they approved.
    entries = [e for e in ENTRIES if e[0] != "Code Generation - Unit 2 Approval"]
    docs.write(AUDIT, with_entry_after("Functional Design - Unit 2 Approval", (
        "Build and Test - Start", "Si", "Proceeding to Build and Test stage", context), entries))
    line = docs.line(STATE, "Code Generation - EXECUTE (Unit 2")
    assert [(f.code, f.line) for f in docs.findings()] == ([] if approved else [("AIDLC-DOCS-003", line)])


PLANNED = "Workflow Planning - Execution Plan Created"
STATUS_CHECK = "Status Check"


def waiting(heading: str, answer: str) -> tuple[str, str | None, str, str]:
    """An entry whose answer waits for the person: SUHYUNSHIM's, about Workflow Planning, or Supplier-Onboarding's
    answer to "where are we?", whose heading and Context name no stage."""
    if heading == PLANNED:
        return (PLANNED, None, answer, "INCEPTION - Workflow Planning")
    return (heading, "where are we?", answer, "Status clarification")


STILL_IN = "Confirmed the project is still formally in INCEPTION - Workflow Planning Review, "


@pytest.mark.parametrize(("before", "said", "approved"), [
    (waiting(PLANNED, "Waiting for user approval to proceed to Application Design."), "ㄱㄱ", True),
    # it waited for another stage
    (waiting(PLANNED, "Waiting for user approval to proceed to Units Generation."), "ㄱㄱ", False),
    (waiting(PLANNED, "Execution plan created."), "ㄱㄱ", False),  # nothing waited for
    (waiting(PLANNED, "Waiting for user approval to proceed to Application Design."), "reject: rework the plan first",
     False),
    (waiting(STATUS_CHECK, STILL_IN + "awaiting user approval to enter Application Design."), "okay lets do that",
     True),
    (waiting(STATUS_CHECK, STILL_IN + "awaiting user approval to enter Units Generation."), "okay lets do that",
     False),
    # which stage it waits in, nothing says
    (waiting(STATUS_CHECK, "Confirmed the project is on track, awaiting user approval to enter Application Design."),
     "okay lets do that", False)])
def test_the_persons_words_starting_the_stage_an_entry_waited_to_proceed_to_approve_the_stage_before(
        docs: DocsRepo, before: tuple[str, str | None, str, str], said: str, approved: bool) -> None:
    # SUHYUNSHIM/aidlc-0204: `Waiting For: User approval to proceed to Application Design`, then the person's "ㄱㄱ"
    # ("go go") under `## Application Design - Stage Start`: the approval of Workflow Planning it waited for.
    # Supplier-Onboarding: `## ATP Status Check` answers "where are we?" with "still formally in INCEPTION - Units
    # Generation Review, awaiting user approval to enter Construction Functional Design"; the person's "okay lets do
    # that" under `## ATP/ORDS Functional Design Planning Started` approves the stage that sentence names.
    entries = [before if e[0] == "Workflow Planning - Approval" else e for e in ENTRIES]
    docs.write(AUDIT, with_entry_after(before[0], (
        "Application Design - Stage Start", said, "Starting Application Design stage.",
        "Designing high-level components"), entries))
    line = docs.line(STATE, "Workflow Planning")
    assert [(f.code, f.line) for f in docs.findings()] == ([] if approved else [("AIDLC-DOCS-003", line)])


def test_a_go_ahead_starting_no_stage_after_an_awaited_approval_to_proceed_approves_the_stage_put(
        docs: DocsRepo) -> None:
    # DocSuri: Context `Infrastructure Design artifacts created, awaiting user approval to proceed to Code
    # Generation.`, then "continue to the next stage" in an entry starting no stage: the go-ahead answers the stage
    # put to the person, as any other after a Context awaiting approval.
    entries = [("Workflow Planning - Approval", None, "Ready to proceed?",
                "Workflow Planning artifacts created, awaiting user approval to proceed to Application Design.")
               if e[0] == "Workflow Planning - Approval" else e for e in ENTRIES]
    docs.write(AUDIT, with_entry_after("Workflow Planning - Approval", (
        "User Response", "continue to the next stage", "Proceeding.", "Session continues."), entries))
    assert docs.findings() == []


GATE = "CONSTRUCTION - Unit 2 Functional Design done; approval gate before Code Generation."
LONG = "the tests fail on checkout; please rework the order service and its retries, then continue with the plan"
# What Codex's IDE extension puts before the person's request, logged with it as the raw input (jin-101/SPA-BRIDGE)
CODEX = ("# Context from my IDE setup:\n\n## Active file: aidlc-docs/construction/plans/shop-web-plan.md"
         "\n\n## Open tabs:\n- requirements.md: requirements.md\n\n## My request for Codex:\n")


@pytest.mark.parametrize(("put", "said", "approved"), [
    (GATE, "진행", True),
    ("CONSTRUCTION - Unit 2 Functional Design complete. Presenting for approval.", "yes, proceed", True),
    ("CONSTRUCTION - Unit 2 Functional Design complete, awaiting approval. Next: Code Generation", "继续", True),
    (GATE, "rename the entities", False),
    (GATE, LONG, False),
    # nothing put to the person, but the heading says the stage complete: the rules' completion message asks it
    ("CONSTRUCTION - Unit 2 Functional Design done.", "진행", True),
    ("CONSTRUCTION - Unit 2 Functional Design plan ready; awaiting approval.", "진행", False),  # the plan's
    (GATE, "reject, redo it", False),
    (GATE, CODEX + "Continue to Next Stage", True),  # the words after the IDE's context go ahead
    (GATE, CODEX + LONG, False)])
def test_a_go_ahead_answering_an_entry_that_put_its_stage_to_the_person_approves_that_stage(
        docs: DocsRepo, put: str, said: str, approved: bool) -> None:
    # cheongYak-radar: `Context: U4 Infrastructure Design done; approval gate before Code Generation.`, then "진행"
    # ("go on") under the next entry's `## U4 Code Generation`: the approval the gate waited for.
    entries = [("Functional Design - Unit 2 Complete", None, "Unit 2 functional design generated.", put)
               if e[0] == "Functional Design - Unit 2 Approval" else e for e in ENTRIES]
    docs.write(AUDIT, with_entry_after("Functional Design - Unit 2 Complete", (
        "Code Generation - Unit 2 Start", said, "Starting unit 2 code generation.", "CONSTRUCTION - Unit 2 shop-web"),
        entries))
    line = docs.line(STATE, "Functional Design - EXECUTE (Unit 2")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    found = [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]
    assert (result.returncode, found) == ((0, []) if approved else (1, [("AIDLC-DOCS-003", line)]))


@pytest.mark.parametrize(("said", "approved"), [
    ("Bien, hagamoslo", True),  # ferco: "good, let's do it"
    ("hagámoslo", True),
    ("Dale noma", True),  # ferco: "go on, then"
    ("vamos", True),  # "let's go"
    ("Vamo a darle", True),  # ferco: "let's get to it"
    ("Sí, adelante", True),
    ("Si, continuemos", True),  # ferco
    ("Listo", False),  # life-os, minimum-latency-challenge, ferco: "done", said of the answers filled in
    ("Sigue pasando lo mismo", False),  # ferco: "the same keeps happening", a bug report
    ("vamos a cambiar el color del botón", False)])  # "we are going to change the button's colour": a request
def test_a_spanish_go_ahead_answering_an_entry_that_put_its_stage_to_the_person_approves_that_stage(
        docs: DocsRepo, said: str, approved: bool) -> None:
    # ferco: `## Code Generation Results`, Context `code generation completed and awaiting review`, then "Bien,
    # hagamoslo" under `## Remediation Execution`, the remediation the report proposed.
    entries = [("Code Generation Results - Unit 2", "2", "Consolidated the validation report.",
                "Construction, code generation completed and awaiting review")
               if e[0] == "Code Generation - Unit 2 Approval" else e for e in ENTRIES]
    docs.write(AUDIT, with_entry_after("Code Generation Results - Unit 2", (
        "Remediation Execution", said, "Started the remediation.", "Remediation plan execution"), entries))
    line = docs.line(STATE, "Code Generation - EXECUTE (Unit 2")
    assert [(f.code, f.line) for f in docs.findings()] == ([] if approved else [("AIDLC-DOCS-003", line)])


def test_a_go_ahead_dated_before_the_entry_it_follows_answers_nothing_of_it(docs: DocsRepo) -> None:
    # ssssssg-hub: `Build and Test Unit 3 (Complete)`, awaiting approval at 16:30, then an older session's "진행해줘"
    # at 15:10 (entries of two sessions merged; socar-rieul keeps its log newest first): it answered something else.
    # (Its heading there, `## Session Resumption`, approves nothing at all: one naming nothing stands in for it.)
    entries = [("Functional Design - Unit 2 Complete", None, "Unit 2 functional design generated.", GATE)
               if e[0] == "Functional Design - Unit 2 Approval" else e for e in ENTRIES]
    text = with_entry_after("Functional Design - Unit 2 Complete", (
        "User Message", "진행해줘", "Going on with unit 1.", "CONSTRUCTION - Unit 1 orders-api"), entries)
    at = iso(stamp(entries.index(next(e for e in entries if e[0] == "Functional Design - Unit 2 Complete")) + 1))
    docs.write(AUDIT, text.replace(f"## User Message\n**Timestamp**: {at}",
                                   f"## User Message\n**Timestamp**: {iso(stamp(1))}"))
    found = {f.code for f in docs.findings()}
    assert "AIDLC-DOCS-003" in found and "AIDLC-DOCS-009" in found  # and the order rule says the time goes back
    docs.write(AUDIT, text)
    assert "AIDLC-DOCS-003" not in {f.code for f in docs.findings()}


def test_a_request_whose_context_names_a_stage_is_no_approval_out_of_order(docs: DocsRepo) -> None:
    docs.write(AUDIT, with_entry_after("Code Generation - Unit 1 Approval", (
        "U1 Orders API - PR request", "make a PR to develop", "Opening the pull request.",
        "CONSTRUCTION - Infrastructure Design PR preparation.")))
    assert docs.findings() == []


def test_approvals_of_per_unit_stages_naming_no_unit_are_not_compared(docs: DocsRepo) -> None:
    # Two approvals naming no unit, of stages in the reverse of the documented order: which units they are about is
    # unknown, so they are compared with nothing.
    entries = [*ENTRIES[:-1], ("Code Generation - Approval", "approve", "Code approved.",
                               "CONSTRUCTION - Code Generation approved"),
               ("Functional Design - Approval", "approve", "Functional design approved.",
                "CONSTRUCTION - Functional Design approved"), ENTRIES[-1]]
    docs.write(AUDIT, audit_text(entries))
    assert docs.findings() == []


def test_a_timestamp_that_is_not_iso_8601_is_an_error(docs: DocsRepo) -> None:
    docs.replace(AUDIT, iso(stamp(2)), "30/11/2026 08:17")
    assert only(docs, "AIDLC-DOCS-008") == [(AUDIT, docs.line(AUDIT, "30/11/2026") - 1)]
    # DDthonWinner/CompanyOps dates every entry `2026-09-08`: one finding for the log, naming their lines
    docs.replace(AUDIT, iso(stamp(3)), "2026-11-30")
    [finding] = docs.findings("AIDLC-DOCS-008")
    assert finding.line == docs.line(AUDIT, "30/11/2026") - 1
    assert finding.message == (f"2 entries' timestamps are not ISO 8601 dates and times, the first \"30/11/2026 "
                               f"08:17\" (lines {finding.line}, {docs.line(AUDIT, '## ' + ENTRIES[3][0])})")


def test_an_entry_of_the_persons_words_without_its_timestamp_is_read_and_an_error(docs: DocsRepo) -> None:
    """DocSuri logged four entries, each with the person's go-ahead, and no `**Timestamp**:` line: they were no
    entries at all, their words silently unread (a stage they approved reported unapproved). Now each is read, and
    AIDLC-DOCS-008 names its missing time; a block with no words of the person is still a note."""
    docs.replace(AUDIT, f"**Timestamp**: {iso(stamp(4))}\n", "")  # Workflow Planning's approval
    docs.write(AUDIT, docs.read(AUDIT) + "## Notes\n\nSome notes, no entry.\n")
    assert only(docs, "AIDLC-DOCS-008") == [(AUDIT, docs.line(AUDIT, "## Workflow Planning - Approval"))]
    [finding] = docs.findings("AIDLC-DOCS-008")
    assert finding.message == "the timestamp is missing or empty, not an ISO 8601 date and time"


def test_a_timestamp_earlier_than_the_entry_above_is_a_warning(docs: DocsRepo) -> None:
    docs.replace(AUDIT, iso(stamp(1)), "2026-11-30T07:59:00Z")  # the approval prompt, logged "before" the request
    assert only(docs, "AIDLC-DOCS-009") == [(AUDIT, docs.line(AUDIT, "## Requirements Analysis - Approval Prompt"))]


def test_a_log_kept_newest_first_is_one_warning_for_its_run(docs: DocsRepo) -> None:
    # socar-rieul: 23 entries in a row, each earlier than the one above: one finding, not 23.
    newest_first = [entry_text(h, stamp(n), u, r, c) for n, (h, u, r, c) in enumerate(ENTRIES)][::-1]
    docs.write(AUDIT, "# AI-DLC Audit Log\n\n" + "".join(newest_first))
    [finding] = docs.findings("AIDLC-DOCS-009")
    assert finding.line == docs.line(AUDIT, f"## {ENTRIES[-2][0]}")
    assert (f"{len(ENTRIES) - 1} entries in a row are each earlier than the entry above it, from {iso(stamp(11))} "
            f"(below line 3, {iso(stamp(12))}) to {iso(stamp(0))}") in finding.message
    assert "this part of the log runs newest first" in finding.message


@pytest.mark.parametrize(("minutes", "logged"), [
    ([0, 1, 2, 3], [0, 1, 2, 3]),
    ([3, 2, 1, 0], [0, 1, 2, 3]),  # newest first
    ([5, 4, 3, 6, 2, 1, 0], [0, 1, 2, 6, 3, 4, 5]),  # and one time out of step: the order, not the times
    ([6, 7, 8, 3, 4, 5, 0, 1, 2], [6, 7, 8, 3, 4, 5, 0, 1, 2]),  # each block oldest first, the newest above
])
def test_only_a_log_kept_newest_first_is_read_from_the_bottom_up(minutes: list[int], logged: list[int]) -> None:
    text = "".join(entry_text(f"Entry {minute}", stamp(minute), "ok", "Done.", "CONSTRUCTION") for minute in minutes)
    assert [entry.heading for entry in as_logged(audit_entries(text.split("\n")))] == [
        f"Entry {minute}" for minute in logged]


def test_a_go_ahead_in_a_log_kept_newest_first_answers_the_entry_logged_before_it(docs: DocsRepo) -> None:
    # drpacman/BattleTrs writes each session's entries above the last's: "continue" under `Construction Unit A —
    # NFR Design COMPLETED` answers the NFR Requirements completed before it, written below it. Read from the top,
    # the entry above it was later: four of its stages went unapproved.
    entries = [e for e in ENTRIES if e[0] != "Code Generation - Unit 2 Approval"]
    entries[entries.index(next(e for e in entries if e[0] == "Functional Design - Unit 2 Approval"))] = (
        "Construction Unit 2 — Functional Design COMPLETED", "A",
        "Option A: units generated, Functional Design of unit 2 followed. Generated business-rules.md. Awaiting "
        "approval.", "CONSTRUCTION - Functional Design (Unit 2)")
    entries[-1:-1] = [("Construction Unit 2 — Code Generation COMPLETED", "continue",
                       "Generated the shop-web code. Awaiting approval.", "CONSTRUCTION - Code Generation (Unit 2)"),
                      ("Construction Unit 2 — Code Generation Approved", "approved", "Unit 2 code approved.",
                       "CONSTRUCTION - Code Generation (Unit 2) approved")]
    texts = [entry_text(h, stamp(n), u, r, c) for n, (h, u, r, c) in enumerate(entries)]
    docs.write(AUDIT, "# AI-DLC Audit Log\n\n" + "".join(texts))
    assert [f.code for f in docs.findings()] == []
    docs.write(AUDIT, "# AI-DLC Audit Log\n\n" + "".join(texts[::-1]))
    assert [(f.code, f.line) for f in docs.findings("AIDLC-DOCS-003")] == []
    assert [f.code for f in docs.findings()] == ["AIDLC-DOCS-009"]  # the order is still reported
    report = json.loads(run_cli("status", "--format", "json", cwd=docs.root).stdout)
    [design] = [stage for unit in report["units"] if unit["unit"] == "2" for stage in unit["stages"]
                if stage["stage"] == "functional-design"]
    assert design["approvals"] == [f"{AUDIT}:{docs.line(AUDIT, '## Construction Unit 2 — Code Generation COMPLETED')}"]


def test_a_midnight_timestamp_is_a_warning(docs: DocsRepo) -> None:
    docs.replace(AUDIT, iso(stamp(0)), "2026-11-30T00:00:00Z")
    assert only(docs, "AIDLC-DOCS-010") == [(AUDIT, docs.line(AUDIT, "## Workspace Detection"))]
    # cu-aaii dates 68 entries `T00:00:00Z`: one finding for the log, naming their lines
    docs.replace(AUDIT, iso(stamp(1)), "2026-11-30T00:00:00Z")
    docs.replace(AUDIT, iso(stamp(2)), "2026-12-01T00:00:00Z")
    [finding] = docs.findings("AIDLC-DOCS-010")
    assert finding.line == docs.line(AUDIT, "## Workspace Detection")
    assert finding.message.startswith("3 entries are stamped exactly midnight, the first 2026-11-30T00:00:00Z (lines ")
    # msys2-runtime-appcontainer-support's 66: the lines that fit, each whole (`203, 2...` was cut in a number)
    for n in range(3, len(ENTRIES)):
        docs.replace(AUDIT, iso(stamp(n)), f"2026-12-{n:02}T00:00:00Z")
    docs.write(AUDIT, docs.read(AUDIT) * 8)
    [finding] = docs.findings("AIDLC-DOCS-010")
    assert finding.message.startswith(f"{8 * len(ENTRIES)} entries are stamped exactly midnight")
    assert re.search(r"\(lines (\d+, )+\d+ and \d+ more\)$", finding.message), finding.message


def test_three_entries_on_one_timestamp_are_a_warning(docs: DocsRepo) -> None:
    for n in (1, 2):
        docs.replace(AUDIT, iso(stamp(n)), iso(stamp(0)))
    found = docs.findings("AIDLC-DOCS-011")
    assert [(f.path, f.line) for f in found] == [(AUDIT, docs.line(AUDIT, "## Workspace Detection"))]
    assert "3 entries share the timestamp" in found[0].message
    assert only(docs, "AIDLC-DOCS-011")
    # ai-dlc (kai-cupist): one start written with different ends; the message quoted the first form for all.
    at = iso(stamp(0))
    docs.replace(AUDIT, f"**Timestamp**: {at}\n**User Input**: \"Build", f"**Timestamp**: {at} ~ 12:15:00Z\n"
                 "**User Input**: \"Build")
    [finding] = docs.findings("AIDLC-DOCS-011")
    assert f"3 entries share the timestamp {at.replace('Z', '+00:00')} (lines" in finding.message, finding.message


@pytest.mark.parametrize(("kept", "noted"), [(0, True), (1, True), (2, False)])
def test_a_log_timed_to_the_whole_minute_is_a_note(docs: DocsRepo, kept: int, noted: bool) -> None:
    # 21 of 36 public logs read for this rule time nine in ten entries or more to the whole minute, as an agent
    # writes a time it estimates; a clock lands there once in 60 times. 12 of 13 is a note, 11 of 13 is none.
    for n in range(kept, len(ENTRIES)):
        docs.replace(AUDIT, iso(stamp(n)), iso(stamp(n))[:-3] + "00Z")
    if not noted:
        assert docs.findings() == []
        return
    assert only(docs, "AIDLC-DOCS-019") == [(AUDIT, docs.line(AUDIT, "## Workspace Detection"))]
    [found] = docs.findings()
    assert found.severity == Severity.info
    whole = len(ENTRIES) - kept
    fives = sum(1 for n in range(kept, len(ENTRIES)) if stamp(n).minute % 5 == 0)
    assert found.message == (f"{whole} of {len(ENTRIES)} timed entries fall on the whole minute ({fives} on a "
                             "five-minute mark)")


def test_a_line_naming_no_known_stage_is_a_note_never_a_guess(docs: DocsRepo) -> None:
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", "- [x] Build and Test - EXECUTE\n  - [x] 7 suites green\n"
                 "- [x] M1 — Scaffold (solution, Docker) — PR #9")
    assert only(docs, "AIDLC-DOCS-012") == [(STATE, docs.line(STATE, "M1 — Scaffold"))]
    assert every_rule()["AIDLC-DOCS-012"].severity == Severity.info


def test_a_line_naming_several_stages_is_a_note_that_says_so(docs: DocsRepo) -> None:
    # wc2026-predictor: one line per unit, its stages chained by arrows. One of them is not guessed.
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", "- [x] Build and Test - EXECUTE\n"
                 "- [x] Unit `unit-2-shop-web`: Functional Design [x] → Code Generation [x] (22 tests pass)")
    [note] = docs.findings("AIDLC-DOCS-012")
    assert note.line == docs.line(STATE, "Unit `unit-2-shop-web`")
    assert note.message.startswith("names 2 stages (Functional Design, Code Generation), and aidlc reads one a line")


# -- story ids -----------------------------------------------------------------------------------------------------
def test_a_map_row_naming_a_story_that_does_not_exist_is_an_error(docs: DocsRepo) -> None:
    docs.replace(STORY_MAP, "| US-3 |", "| US-3, US-9 |")
    assert only(docs, "AIDLC-DOCS-013") == [(STORY_MAP, docs.line(STORY_MAP, "US-9"))]


def test_a_story_no_unit_covers_is_a_warning(docs: DocsRepo) -> None:
    docs.replace(STORIES, "### US-3", "### US-4: Refund an order\n\n### US-3")
    assert only(docs, "AIDLC-DOCS-014") == [(STORIES, docs.line(STORIES, "US-4"))]


def test_ranges_in_the_map_cover_every_story_in_them_and_prose_assigns_nothing(docs: DocsRepo) -> None:
    docs.write(STORIES, "# Stories\n\n" + "".join(f"### US-A{n} — story {n}\n\n" for n in range(1, 8)))
    docs.write(STORY_MAP, "# Map\n\nThe former US-RA1~8 were retired.\n\n## Unit 1: orders-api\n\n- US-A1..A5\n\n"
               "| Story | Unit |\n|---|---|\n| US-A6~7 | Unit 2 |\n")
    assert docs.findings() == []


def test_a_range_of_zero_padded_ids_names_them_as_stories_md_writes_them(docs: DocsRepo) -> None:
    # SUHYUNSHIM's `**US-001 ~ US-008**:` was read as US-1..US-8: 22 errors and 22 warnings for a map that is right.
    docs.write(STORIES, "# Stories\n\n" + "".join(f"### US-{n:03} — story {n}\n\n" for n in range(1, 23)))
    docs.write(STORY_MAP, "# Map\n\n## Unit 1: orders-api\n\n**US-001 ~ US-008**: ordering\n\n## Unit 2: shop-web\n\n"
               "**US-009 ~ US-022**: the shop\n")
    assert docs.findings() == []
    # Its map also gives each story a heading of its own under the unit's: that assigns it.
    docs.write(STORY_MAP, "# Map\n\n## Unit 1: orders-api\n\n" + "".join(
        f"### US-{n:03}: story {n}\n\n- details\n\n" for n in range(1, 23)))
    assert docs.findings() == []



def test_a_range_whose_end_has_thousands_of_digits_is_two_ids(docs: DocsRepo) -> None:
    # `int()` refuses 4,301 digits or more: such a range stopped validate with a ValueError.
    big = "9" * 5000
    docs.replace(STORY_MAP, "| US-3 |", f"| US-3..US-{big} |")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    assert result.returncode == 1, result.stderr
    assert [f["code"] for f in json.loads(result.stdout)["findings"]] == ["AIDLC-DOCS-013"]


def _dotted_stories(features: dict[int, int]) -> str:
    """stories.md as ratiel/aidlc-workshop-nexon writes it: `### US-3.1: ...` under each feature's heading."""
    return "# 테이블오더 서비스 - User Stories\n\n" + "".join(
        f"## Feature {feature}\n\n" + "".join(f"### US-{feature}.{n}: story {feature}.{n}\n\n- criteria\n\n"
                                               for n in range(1, count + 1))
        for feature, count in features.items())


def test_a_range_of_dotted_ids_in_a_map_cell_covers_every_story_between_its_ends(docs: DocsRepo) -> None:
    # ratiel/aidlc-workshop-nexon: `| US-3.1~3.7 |` and `US-8.2~8.3 (삭제)` in table cells were read as their first id
    # alone, and US-3.2 to US-3.7, US-8.3, US-8.5 and US-8.7 each said "assigned to no unit" (9 AIDLC-DOCS-014).
    docs.write(STORIES, _dotted_stories({3: 7, 8: 7}))
    docs.write(STORY_MAP, "# Unit of Work - Story Map\n\n## Unit 1: Backend API — 스토리 매핑\n\n"
               "### Feature 3: 장바구니\n| 스토리 | Backend 역할 |\n|--------|-------------|\n"
               "| US-3.1~3.7 | (프론트엔드 전용 — localStorage 관리) |\n\n"
               "### Feature 8: 테이블 관리\n| 스토리 | Backend 역할 |\n|--------|-------------|\n"
               "| US-8.1 | 테이블 설정 API |\n| US-8.2~8.3 | 주문 삭제 API (DELETE /api/admin/orders/:id) |\n"
               "| US-8.4〜US-8.5 | 이용 완료 API |\n| US-8.6..8.7 | 과거 주문 내역 API |\n\n---\n\n"
               "## Unit 2: Admin App — 스토리 매핑\n\n| Feature | 스토리 | 화면 |\n|---------|--------|------|\n"
               "| Feature 8 | US-8.1 (설정), US-8.2~8.3 (삭제), US-8.4 – 8.5 (이용 완료), US-8.6~8.7 (과거 내역) | "
               "/tables/* |\n")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    assert (result.returncode, json.loads(result.stdout)["findings"]) == (0, [])


def test_a_range_names_what_stories_md_holds_between_its_ends_and_its_ends_as_written(docs: DocsRepo) -> None:
    # US-3.4 retired from stories.md inside `US-3.1~3.7` is no id the map invents: no AIDLC-DOCS-013 for it. An end
    # stories.md lacks (US-3.9) is written in the map: that one is.
    docs.write(STORIES, _dotted_stories({3: 7}).replace("### US-3.4: story 3.4\n\n- criteria\n\n", ""))
    docs.write(STORY_MAP, "# Map\n\n| Story | Unit |\n|---|---|\n| US-3.1~3.7 | Unit 1: orders-api |\n")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    assert (result.returncode, json.loads(result.stdout)["findings"]) == (0, [])
    docs.replace(STORY_MAP, "US-3.1~3.7", "US-3.1~3.9")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    found = [(f["code"], f["line"], f["message"]) for f in json.loads(result.stdout)["findings"]]
    assert found == [("AIDLC-DOCS-013", docs.line(STORY_MAP, "US-3.1~3.9"),
                      "US-3.9 is assigned to a unit, and no heading of stories.md defines it")]
    # Ends that differ in more than their last number, or a range of more than 200 ids, name their two ends alone.
    docs.replace(STORY_MAP, "US-3.1~3.9", "US-3.1~3.2, US-3.3~US-3.900")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    found = [(f["code"], f["message"].split(" ")[0]) for f in json.loads(result.stdout)["findings"]]
    assert found == [("AIDLC-DOCS-013", "US-3.900"), *(("AIDLC-DOCS-014", f"US-3.{n}") for n in (5, 6, 7))]

# -- the reader's reading of a stage line --------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "stage", "skipped"), [
    ("INCEPTION - Units Generation (SKIP)", "units-generation", True),
    ("User Stories — skipped: single-user personal tool", "user-stories", True),
    # YordayFigueroaSanchez/test-web-001: Spanish "omitted", a stage left out
    ("User Stories (omitido — cambio centrado en UI/arquitectura)", "user-stories", True),
    # waikato-ahuora-smart-energy-systems/OpenPinch: skipped right after the name, nothing between
    ("CONSTRUCTION - Infrastructure Design skipped", "infrastructure-design", True),
    ("INCEPTION - Units Generation skipped; one coupled clean-break unit", "units-generation", True),
    ("CONSTRUCTION - NFR Requirements and Design reused", "nfr-requirements", False),
    ("Code Generation skipping nothing", "code-generation", False),
    ("Workflow Planning — `execution-plan.md` approved. Verdict: only Reverse Engineering is SKIP", "workflow-planning",
     False),
    ("Application Design - [EXECUTE/SKIP]", "application-design", False),
    ("요구사항 개정 — 신규 유닛 U7 편입 (2026-06-18)", None, False),
    ("유닛별 설계(Functional Design) — 완료", "functional-design", False),
    ("Operations - PLACEHOLDER", "operations", False),
    ("Workflow Plan — approved", "workflow-planning", False),
    ("**Construction — U11 Functional Design 완료·승인 (2026-06-24)**: ...", "functional-design", False),
])
def test_a_stage_line_is_named_by_its_name_and_skipped_by_its_first_clause(line: str, stage: str | None,
                                                                           skipped: bool) -> None:
    [read] = read_state(f"- [x] {line}\n", "aidlc-state.md").stages
    assert (read.stage, read.skipped) == (stage, skipped), split_stage_line(line)


READ_ON_REAL_LOGS = [  # (what the log says, its entries (heading, the person's words, answer, Context), read for)
    ("cross-check before the approval",  # aws-ai-dlc: "before Infrastructure Design's approval"
     [("INCEPTION - 교차 검증", "이때까지 진행한 것들이 모순이 없는지 체크해줘", "교차 검증 완료",
       "Application Design 승인 전 교차 검증 완료")], ("application-design", None), False),
    ("english: before the approval", [("Cross-check", "check the design against the stories", "Checked.",
                                       "Application Design cross-checked before the user's approval")],
     ("application-design", None), False),
    ("one option picked", [("NFR Design - Unit 1 - Plan Created", "A", "Plan created with 10 questions.", "")],
     ("nfr-design", "1"), False),  # aiao-workshop
    # adityawagh1710/document-uploader-aspose-total-demo: the answer file's question heading, then the option picked
    ("one question answered by its title", [("Requirements Analysis — Q3 Override", "### Question 3 — Maximum "
                                             "input size -> D", "Changed Q3 answer from B to D.",
                                             "User override of an AI-suggested answer.")],
     ("requirements-analysis", None), False),
    ("one question answered by its number", [("Requirements Analysis — Local v1 Q1 Revision (D → C)",
                                              "## Q1 — Invocation surface -> C", "Revised Q1.", "INCEPTION")],
     ("requirements-analysis", None), False),
    ("one question answered in the person's words", [("Requirements Analysis — Q6 Override (deferred auth)",
                                                        "### Question 6 — Caller authentication -> X - no auth, "
                                                        "we'll add it later", "Changed Q6 to no auth.", "INCEPTION")],
     ("requirements-analysis", None), False),
    ("one question answered, then a go-ahead", [("Requirements Analysis — Q3 Override", "Question 3 -> D, and "
                                                 "approve & continue", "Changed Q3; requirements approved.",
                                                 "INCEPTION")], ("requirements-analysis", None), True),
    ("one option under an approval heading", [("Requirements Analysis - 承認", "B", "承認として記録。", "INCEPTION")],
     ("requirements-analysis", None), True),  # aws-hackathon-2026
    ("a change asked for", [("INCEPTION - Application Design (서비스 호출 구조 변경)",
                             "서비스 호출을 카테고리에 속하도록 변경해줄래?", "변경 완료",
                             "Application Design 진행 중")],
     ("application-design", None), False),  # aws-ai-dlc
    ("english: a change asked for", [("Application Design - Review", "Could you move the service call under "
                                      "categories?", "Moved.", "INCEPTION - Application Design")],
     ("application-design", None), False),
    ("a change and a go-ahead", [("Application Design - Review", "추가해주고 다음 단계 진행해줘", "Added.",
                                  "INCEPTION - Application Design")], ("application-design", None), True),
    ("a change under an approval heading", [("Requirements Analysis 완료 — 사용자 승인", "user story추가",
                                             "Requirements Analysis 승인과 동시에 User Stories 단계 진입.",
                                             "INCEPTION - Requirements Analysis 승인")],
     ("requirements-analysis", None), True),  # ian-blog
    ("the rules' own option", [("Requirements Analysis - User Requests User Stories", "Add User Stories",
                                "User Stories added.", "INCEPTION - User Stories, Part 1 Planning")],
     ("requirements-analysis", None), True),  # aidlc-table-order-test
    ("completion, then a unit's heading", [("单元生成完成", "（自动执行）", "生成 3 份单元文档", "INCEPTION 阶段完成"),
                                           ("Construction - Unit 1 Core 设计完成", "继续", "设计完成", "CONSTRUCTION")],
     ("units-generation", None), True),  # Clipboard--Mac
    ("completion, then no stage or unit", [("Units Generation Complete", None, "Units made.", "INCEPTION"),
                                           ("Session Resumption", "continue", "Resumed.", "")],
     ("units-generation", None), False),
    ("the next stage in the Context", [("유닛 1 설계 - 사용자 승인", "ㅇㅇ 진행하자 그러면",
                                        "유닛 1 설계 승인, 코드 생성 단계 진행.",
                                        "Unit 1 design approved. Proceeding to Code Generation.")],
     ("code-generation", "1"), False),  # BADA
    ("advancing to the next stage in the Context", [("유닛 1 설계 - 사용자 승인", "ㅇㅇ 진행하자 그러면",
                                                    "유닛 1 설계 승인.", "Unit 1 design approved, advancing to Code "
                                                    "Generation.")], ("code-generation", "1"), False),
    ("next step, under the next stage's start", [
        ("INCEPTION - Application Design (매출 통계 확장)", "기간 선택 통계도 있었으면 좋겠어", "확장 완료",
         "Application Design 매출 통계 확장 완료"),
        ("INCEPTION - Units Generation (시작)", "다음단계 진행해줘", "Units Generation 시작.", "Units Generation")],
     ("application-design", None), True),  # aws-ai-dlc
    ("approved, and the next started", [("Requirements Approved and User Stories Planning Started",
                                         "okay approved whats next?", "Recorded approval.", "INCEPTION")],
     ("requirements-analysis", None), True),  # Supplier-Onboarding
    ("the next started, by the approval", [("Requirements Approved and User Stories Planning Started",
                                            "okay approved whats next?", "Recorded approval.", "INCEPTION")],
     ("user-stories", None), False),
    ("승인 + 진입", [("U1 Login — Functional Design 승인 + NFR Requirements 진입", "approve", "FD 승인.",
                   "CONSTRUCTION — U1")], ("nfr-requirements", "1"), False),  # DallYeo_FE
    ("stages joined by +, approved", [("Functional Design + NFR Requirements Approval - Unit 1", "approve", "Approved.",
                                       "CONSTRUCTION")], ("functional-design", "1"), True),
    ("not consent", [("Session 5 - Workflow Planning - Revision Round 1", "This is not consent to continue. I have "
                      "added some comments", "Revised.", "Workflow Planning - revised")],
     ("workflow-planning", None), False),  # nix-config
    ("a change request's heading", [("User Stories - Change Request (Visual Accuracy)", "Make sure it's visually "
                                     "accurate", "Updated.", "INCEPTION - User Stories")],
     ("user-stories", None), False),  # Wolfenstein
    ("a question after a completion", [("Unit 0 Foundation - Functional Design Complete", None, "Done.", ""),
                                       ("Workflow Planning - Add Skipped Stages",
                                        "혹시 어떤 단계가 진행되고 안되는지 확인가능할까요", "현황 테이블 제공.", "")],
     ("functional-design", "0"), False),  # jwjoung
    ("a question under the stage", [("Requirements Analysis - Korean Translation Request", "한국어로해주면 안될까?",
                                     "Translated.", "INCEPTION")], ("requirements-analysis", None), False),
    ("a sentence ending in 。", [("Workflow Planning - Approval", "次お願いします！",
                                  "実行プラン承認。Application Designに進行。", "INCEPTION")],
     ("application-design", None), False),  # Mameta29
    ("products made in answer", [("CONSTRUCTION - Unit 1 NFR Design", "믿고 간다",
                                  "NFR 추가 질문 불필요 판단, 설계 패턴 + 논리적 컴포넌트 산출물 생성",
                                  "CONSTRUCTION")],
     ("nfr-design", "1"), False),  # kai-cupist: the go-ahead set the design going
    ("steps of its plan done in answer", [("CR Cycle 2 - TDD Code Generation Step 5~6 완료", "go",
                                           "Step 5 GREEN 구현 + Step 6 E2E 검증 완료", "CONSTRUCTION")],
     ("code-generation", None), False),  # Janeeffect/aidlc-demo-showcase: the go-ahead set the steps going
    ("an approval the Context says is still pending", [
        ("Post-Construction Refinement — Unit 10 Web Push Notifications", "I want web push notifications.",
         "Updated the requirements and added Unit 10.",
         "No application code implementation performed; Unit 10 code generation remains pending explicit approval.")],
     ("code-generation", "10"), False),  # jongon/betmeet-clone: a new feature asked for
    ("the next stage's files made in answer", [("Requirements Analysis - User Requests User Stories",
                                                "Add User Stories", "Created user-stories-assessment.md.",
                                                "INCEPTION")], ("requirements-analysis", None), True),
    ("the plan's approval in the answer", [("Construction Phase - Unit 1 TDD Code Generation 승인",
                                            "Approve & Continue", "TDD Code Generation Plan 승인. Step 0 실행 시작.",
                                            "CONSTRUCTION")],
     ("code-generation", "1"), False),  # thetkim9
    ("a story plan's approval", [("User Stories - Plan Approved", "approve", "Plan approved; generating stories.",
                                  "INCEPTION")], ("user-stories", None), False),  # m2nho: stories approved later
    ("a unit plan's approval", [("Units Generation Part 1 - Approval", "approve", "Generating units.", "INCEPTION")],
     ("units-generation", None), False),  # cu-aaii
    ("Part 2 started in the answer", [("Code Generation - Unit 1 Backend - User Approval", "응",
                                       "Code Generation Part 2 (Generation) 시작", "CONSTRUCTION")],
     ("code-generation", "1"), False),  # m2nho
    ("a request's heading", [("CONSTRUCTION - Code Generation (Unit 1) - User Request", "프론트 코드 만들어 주세요",
                              "Planning the code.", "CONSTRUCTION")], ("code-generation", "1"), False),  # jygj65536
    ("a stage-gate question, answered", [("Construction — Build and Test", "(none — autonomous execution)",
                                          "Generated build-and-test docs.",
                                          "Build and Test complete; asking final stage-gate question"),
                                         ("Workflow Close-out", "Yes — close out the workflow", "Workflow closed.",
                                          "AIDLC workflow complete")], ("build-and-test", None), True),  # Portfolio
    ("done, and the approval next", [("U8 Code Generation — 코드 생성·검증 완료",
                                       "제 개입이 필요한 단계 전까지 쭉 진행해 주세요.",
                                       "U8 Code Generation 구현 완료.",
                                       "CONSTRUCTION — U8 Code Generation 완료. 다음은 사용자 리뷰/승인 필요.")],
     ("code-generation", "8"), False),  # DocSuri: the words set the code going; its approval was yet to come
    ("another request, under the next stage's start", [
        ("INCEPTION - Application Design (매출 통계 확장)", "기간 선택 통계도 있었으면 좋겠어", "확장 완료",
         "Application Design 매출 통계 확장 완료"),
        ("INCEPTION - Units Generation (시작)", "세 개의 유닛으로 나눠줘", "Units Generation 시작.",
         "Units Generation")],
     ("application-design", None), False),
    ("next step, under the next stage's heading, after the work", [
        ("Build and Test Stage", None, "Build and Test 문서 5개 생성 완료.",
         "CONSTRUCTION - Build and Test stage 실행"),
        ("Operations Phase (Placeholder)", "다음단계 부탁해", "Operations는 placeholder 상태임을 안내.",
         "모든 INCEPTION + CONSTRUCTION 단계 완료")],
     ("build-and-test", None), True),  # aws-ai-dlc: the completion message left out of the log
    ("a go-ahead, under the next stage's heading, after the work", [
        ("Reverse Engineering - Execution", None, "Executed full reverse engineering. Generated 8 artifacts.",
         "INCEPTION - Reverse Engineering"),
        ("Requirements Analysis - Questions Created", "proceed", "Created requirement-verification-questions.md.",
         "INCEPTION - Requirements Analysis (Step 6 - Awaiting user answers)")],
     ("reverse-engineering", None), True),  # impku-ibm/studymate-service
    ("a go-ahead, under the next stage's heading, after a plan", [
        ("Functional Design - Unit 1 Plan", None, "Created the functional design plan with 5 questions.",
         "CONSTRUCTION - Unit 1"),
        ("NFR Requirements - Unit 1", "proceed", "Created nfr-requirements.md.", "CONSTRUCTION - Unit 1")],
     ("functional-design", "1"), False),  # the plan's answers go on; the design was yet to be made
    ("a go-ahead, after a plan and the documents made with it", [
        ("U6 Import adapter — Functional Design Plan + 3 文档", None, "生成 Functional Design Plan + 3 份功能设计文档",
         "U6 Functional Design 完成"),
        ("U6 Import adapter — NFR Requirements Plan + 2 文档", "继续", "生成 NFR Requirements Plan + 2 文档",
         "U6 NFR Requirements 完成")],
     ("functional-design", "6"), True),  # zizuiliaoya-droid/clothinkai
    ("a go-ahead, after the stage's name alone says made", [
        ("CONSTRUCTION - Code Generation Part 2 시작", None, "Part 2 (코드 생성) 실행 시작.",
         "CONSTRUCTION - Code Generation Part 2"),
        ("CONSTRUCTION - Code Generation Unit 4 (Dashboard UI)", "네 진행해주세요", "Unit 4 코드 생성 완료.",
         "CONSTRUCTION - Code Generation Part 2, Unit 4")],
     ("code-generation", None), False),  # aws-AI-DLC-team-3: `코드 생성`, Code Generation, is no work said done
    ("next step, under the next stage's heading, before the work", [
        ("Build and Test Stage", None, "Build and Test 문서를 작업 중.",
         "CONSTRUCTION - Build and Test stage 실행"),
        ("Operations Phase (Placeholder)", "다음단계 부탁해", "Operations는 placeholder 상태임을 안내.",
         "Operations")],
     ("build-and-test", None), False),
    ("next step, under a heading saying the approval is pending", [
        ("Build and Test Stage", None, "Build and Test 문서 5개 생성 완료.",
         "CONSTRUCTION - Build and Test stage 실행"),
        ("Build approval pending - Operations", "다음단계 부탁해", "Operations는 placeholder 상태임을 안내.",
         "Operations")],
     ("build-and-test", None), False),
]


@pytest.mark.parametrize(("entries", "key", "approved"), [case[1:] for case in READ_ON_REAL_LOGS],
                         ids=[case[0] for case in READ_ON_REAL_LOGS])
def test_approvals_as_real_logs_word_them(docs: DocsRepo, entries: list[tuple[str, str | None, str, str]],
                                          key: tuple[str, str | None], approved: bool) -> None:
    """Words the logs of real repositories hold, read for approvals: an approval yet to come (`승인 전`, "before
    approval"), one option picked or a change asked for (unless the entry says approved, or the words also go on),
    approve nothing; the rules' own "Add User Stories" goes on; a go-ahead after a stage's completion, logged under
    another unit's heading, approves that stage, and one naming the next step under the next stage's start approves
    the stage left; a stage the Context names as the next is not approved. Before: each the other way."""
    text = "".join(entry_text(heading, stamp(n), user, answer, context)
                   for n, (heading, user, answer, context) in enumerate(entries))
    found = approvals_in([audit_entries(text.split("\n"), 0)], Units(read_project(docs.root, DOCS)))
    assert (key in found) is approved, found


def test_a_picked_option_or_a_change_asked_for_is_refused_as_the_approval_by_validate(docs: DocsRepo) -> None:
    """aiao-workshop's only words under unit 1's NFR Design were "A" (its approval lost in a merge), aws-ai-dlc's under
    Application Design a request to change the design: `aidlc validate` found both stages approved."""
    docs.replace(AUDIT, '## NFR Requirements - Unit 1 Approval\n', '## NFR Requirements - Unit 1 - Plan Created\n')
    docs.replace(AUDIT, '"Continue to Next Stage"\n**AI Response**: "Unit 1 NFR requirements approved."',
                 '"A"\n**AI Response**: "Unit 1 NFR requirements plan: 10 questions."')
    docs.replace(AUDIT, '## Application Design - Approval\n**Timestamp**',
                 '## Application Design - Review\n**Timestamp**')
    docs.replace(AUDIT, '"ok"\n**AI Response**: "Application design approved."', '"Could you move payments into '
                 'their own component?"\n**AI Response**: "Moved."')
    docs.replace(AUDIT, "INCEPTION - Application Design approved", "INCEPTION - Application Design")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    found = [(f["line"], f["message"].split(",")[0]) for f in json.loads(result.stdout)["findings"]
             if f["code"] == "AIDLC-DOCS-003"]
    assert result.returncode == 1 and found == [
        (docs.line(STATE, "Application Design"), "Application Design is ticked"),
        (docs.line(STATE, "NFR Requirements - EXECUTE (Unit 1"), "NFR Requirements of unit 1 is ticked")], found


def test_an_entry_is_read_with_the_entry_before_it_in_each_version_of_the_log(docs: DocsRepo) -> None:
    """The history reads each entry once per text (`Units.readings`); a go-ahead answers the entry right before it,
    so the same entry after another one (a version with an entry inserted between) is read again."""
    def entries(*texts: str) -> list[AuditEntry]:
        return audit_entries("".join(texts).split("\n"), 0)

    put = entry_text("Application Design - Complete", stamp(1), None, "Designed.",
                     "INCEPTION - Application Design complete. Awaiting user approval.")
    note = entry_text("Team note", stamp(2), "lunch at noon", "Noted.", "NOTE")
    yes = entry_text("Units Generation - Start", stamp(3), "yes", "Starting.", "INCEPTION - Units Generation")
    units = Units(read_project(docs.root, DOCS))
    assert ("application-design", None) in approvals_in([entries(put, yes)], units)
    assert ("application-design", None) not in approvals_in([entries(put, note, yes)], units)


def test_a_version_that_appends_is_read_on_from_the_one_before_as_if_read_whole(docs: DocsRepo) -> None:
    """The history reads a version that holds an earlier one's entries (the same objects, as it parses a version that
    appends) from where that one's reading stopped: the same approvals as a reading of the whole version."""
    text = audit_text()
    lines = text.split("\n")
    cut_at = text.index("## Functional Design - Unit 2 Approval")
    first = audit_entries(text[:cut_at].split("\n"), 0)
    whole = audit_entries(lines, 0)
    later = first[:-1] + whole[len(first) - 1:]  # the first version's entries but its last, kept; the rest read anew
    units = Units(read_project(docs.root, DOCS))
    approvals_in([first], units)
    read_on = approvals_in([later], units)
    fresh = approvals_in([whole], Units(read_project(docs.root, DOCS)))
    assert {key: [e.line for e in found] for key, found in read_on.items()} == \
        {key: [e.line for e in found] for key, found in fresh.items()}
    assert ("code-generation", "2") in read_on  # an approval of an entry past the first version's


def test_an_entry_s_sections_are_its_own_and_give_it_the_fields_it_lacks() -> None:
    # miura-bd/t4g.lazy.4xlarge-aidlc-hackathon-2026: `###` sections after the AI Response, the Context last. They
    # are the entry's (an edit of them is an edit of it), their fields its own where it has none: not the AI
    # Response running on over them. A section holding the person's words or a time is an entry of its own.
    lines = ["## Units Generation Part 2 Generation 完了", "**Timestamp**: 2026-05-09T16:30:00+09:00",
             "**User Input**: (Stage 7 自動進行)", "**AI Response**: 3 ファイル生成完了。", "",
             "### Stage Progress", "| 6 | Application Design | ✅ 承認済み |", "", "### ⛔ GATE",
             "ユーザーレビュー → Stage 7 完了承認", "",
             "**Context**: Stage 7 (Units Generation) Part 2 完了 → Step 17 (承認待ち)。",
             "", "### 補足", '**User Input**: "Unit を 3 つに分けてください"', "", "### 記録",
             "**Timestamp**: 2026-05-09T16:40:00+09:00", "**AI Response**: 分割した。", "---", "", "### 無関係",
             "**Context**: after a rule, no section"]
    first, asked, split = audit_entries(lines, 0)
    assert (first.line, first.end) == (1, 12)
    assert first.fields["context"] == "Stage 7 (Units Generation) Part 2 完了 → Step 17 (承認待ち)。"
    assert first.fields["ai_response"] == "3 ファイル生成完了。"
    assert (asked.line, asked.fields["user_input"], split.line) == (14, '"Unit を 3 つに分けてください"', 17)
