"""`aidlc validate` and `aidlc ci` (without --base) on a repository in the aidlc-docs layout, through the CLI as the
console script runs it: the layout is found, its rules run, and the report, JSON, exit codes and next steps are those of
the memory-bank layout."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from tests.aidlc_docs_sample import (
    AUDIT,
    DOCS,
    ENTRIES,
    STATE,
    DocsRepo,
    build_docs_repo,
    clean_files,
    entry_text,
    stamp,
)
from tests.aidlc_v2_sample import RECORD as V2_RECORD
from tests.aidlc_v2_sample import build_v2_repo
from tests.helpers import git_init, run_cli, summary_line


@pytest.fixture
def docs(tmp_path: Path) -> DocsRepo:
    return build_docs_repo(tmp_path / "shop")


def break_build_and_test(docs: DocsRepo) -> int:
    docs.replace(STATE, "- [x] Build and Test - EXECUTE", "- [x] Build and Test - EXECUTE (awaiting approval)")
    return docs.line(STATE, "(awaiting approval)")


def test_validate_reads_the_aidlc_docs_layout_and_passes_a_clean_project(docs: DocsRepo) -> None:
    result = run_cli("validate", str(docs.root))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "validation passed: 20 files, 0 errors, 0 warnings, 0 notes"


def test_validate_reports_an_error_with_file_line_fix_and_next_steps(docs: DocsRepo) -> None:
    line = break_build_and_test(docs)
    result = run_cli("validate", str(docs.root))
    assert result.returncode == 1
    out = result.stdout.splitlines()
    assert out[0] == STATE
    # The log holds the person's approval of Build and Test: the finding names it, and its fix is not to untick.
    approval = docs.line(AUDIT, "## Build and Test - Approval")
    assert out[1] == (f"  ✗ [ERROR] {STATE}:{line} AIDLC-DOCS-004 ticked, and the line says it awaits approval: "
                      f"\"Build and Test - EXECUTE (awaiting approval)\"; {AUDIT}:{approval} logs a person's approval "
                      "of the stage: if it is this work's, the line is out of date")
    assert out[2] == ("      fix: if the logged approval is this work's, edit the line to say it was approved and keep "
                      "the tick; else untick the stage until the person approves")
    assert summary_line(result.stdout) == "validation failed: 20 files, 1 error, 0 warnings, 0 notes"
    steps = out[out.index("Next steps:") + 1:]
    assert steps[0].startswith("  aidlc rules AIDLC-DOCS-004")


def test_a_ticked_stage_that_current_status_says_awaits_approval_is_a_warning_at_the_status_line(
        docs: DocsRepo) -> None:
    # ai-dlc-order ticks Units Generation and says `- **Status**: Awaiting user approval` under Current Status;
    # upstream-design-docs says `インフラ設計承認待ち` of a ticked インフラ設計.
    docs.replace(STATE, "- **Status**: Ready to proceed", "- **Status**: Awaiting user approval")
    result = run_cli("validate", str(docs.root), "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    [found] = json.loads(result.stdout)["findings"]
    assert (found["code"], found["severity"], found["path"], found["line"]) == (
        "AIDLC-DOCS-018", "warning", STATE, docs.line(STATE, "Awaiting user approval"))
    said = (f"Current Status says the current stage, `Build and Test Complete` (line "
            f"{docs.line(STATE, 'Build and Test Complete')}), awaits approval, and its line "
            f"{docs.line(STATE, '- [x] Build and Test')} is ticked")
    # The log holds the person's approval of Build and Test: Current Status is what may be out of date (prohdk's
    # `Workflow Planning Complete` awaited approval 18 entries after "확인했어.. 계속 진행해줘" approved it).
    assert found["message"] == (f"{said}; {AUDIT}:{docs.line(AUDIT, '## Build and Test - Approval')} logs a person's "
                                "approval of the stage: if it is this work's, Current Status is out of date")
    assert found["fix"].startswith("if the logged approval is this work's, edit Current Status")
    assert run_cli("validate", str(docs.root), "--strict").returncode == 1
    # With no approval of it logged, the warning says so alone (and AIDLC-DOCS-003 is the error).
    docs.replace(AUDIT, "**User Input**: \"approved\"\n**AI Response**: \"Build and test instructions approved.\"",
                 "**AI Response**: \"Build and test instructions approved.\"")
    result = run_cli("validate", str(docs.root), "--format", "json")
    assert {f["code"]: f["message"] for f in json.loads(result.stdout)["findings"]}["AIDLC-DOCS-018"] == said
    # A unit's stage that is not ticked yet is what it says: awaiting approval.
    docs.replace(STATE, "- [x] Code Generation - EXECUTE (Unit 2: shop-web)", "- [ ] Code Generation - EXECUTE "
                 "(Unit 2: shop-web)")
    docs.replace(STATE, "- **Current Stage**: Build and Test Complete", "- **Current Stage**: Code Generation - "
                 "Unit 2")
    result = run_cli("validate", str(docs.root), "--format", "json")
    assert "AIDLC-DOCS-018" not in {f["code"] for f in json.loads(result.stdout)["findings"]}
    docs.replace(STATE, "- [ ] Code Generation - EXECUTE (Unit 2", "- [x] Code Generation - EXECUTE (Unit 2")
    result = run_cli("validate", str(docs.root), "--format", "json")
    assert [f["line"] for f in json.loads(result.stdout)["findings"] if f["code"] == "AIDLC-DOCS-018"] == [
        docs.line(STATE, "Awaiting user approval")]


def test_validate_json_and_strict_warnings(docs: DocsRepo) -> None:
    docs.replace(AUDIT, "2026-11-30T08:03:17Z", "2026-11-30T00:00:00Z")  # a warning only
    result = run_cli("validate", str(docs.root), "--format", "json")
    assert result.returncode == 0
    report = json.loads(result.stdout)
    assert report["summary"] == {"files": 20, "errors": 0, "warnings": 1, "infos": 0, "adopted": 0}
    assert [(f["code"], f["path"], f["line"]) for f in report["findings"]] == [("AIDLC-DOCS-010", AUDIT, 3)]
    assert run_cli("validate", str(docs.root), "--strict").returncode == 1


def test_ci_without_a_base_runs_the_same_rules(docs: DocsRepo) -> None:
    assert run_cli("ci", str(docs.root)).returncode == 0
    line = break_build_and_test(docs)
    result = run_cli("ci", str(docs.root), "--format", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["passed"] is False and report["base"] is None and report["checks"] == ["validate"]
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("AIDLC-DOCS-004", line)]
    text = run_cli("ci", str(docs.root)).stdout
    assert "aidlc ci failed (no base: validate rules only): 20 files, 1 error" in text
    assert "  aidlc rules AIDLC-DOCS-004" in text


def test_a_failing_ci_names_the_records_it_would_accept_as_records_not_a_bank(docs: DocsRepo) -> None:
    # Every failing `aidlc ci` on 21 public aidlc-docs repositories offered the baseline "of a bank adopted as it is":
    # there is no memory bank in this layout.
    break_build_and_test(docs)
    for args in ((), ("--base", "HEAD")):
        text = run_cli("ci", str(docs.root), *args).stdout
        steps = [line.strip() for line in text.split("Next steps:\n", 1)[1].splitlines()]
        assert steps[-1] == (f"aidlc ci{' --base HEAD' if args else ''} --write-baseline    # only to accept today's "
                             "findings of records adopted as they are"), steps
        assert "bank" not in text


def test_layout_in_aidlc_yaml_chooses_the_layout(docs: DocsRepo) -> None:
    docs.write("aidlc.yaml", "version: 1\nlayout: memory-bank\n")
    result = run_cli("validate", str(docs.root))
    assert result.returncode == 2
    assert "no memory bank" in result.stderr


@pytest.mark.parametrize("folder", ["aidlc-docs/", "./aidlc-docs", "aidlc-docs"])
def test_the_docs_folder_named_with_a_trailing_slash_is_judged_as_without(docs: DocsRepo, folder: str) -> None:
    # `aidlc_docs: aidlc-docs/` read every path inside the folder one character short: no stage line, no entry, and
    # validate passed a ticked stage with no approval
    docs.replace(STATE, "- [ ] Reverse Engineering - SKIP", "- [x] Reverse Engineering")  # no approval logged
    docs.write("aidlc.yaml", f"version: 1\nlayout: aidlc-docs\naidlc_docs: {folder}\n")
    result = run_cli("validate", "--format", "json", cwd=docs.root)
    assert result.returncode == 1
    assert [f["code"] for f in json.loads(result.stdout)["findings"]] == ["AIDLC-DOCS-003"]


@pytest.mark.parametrize("folder", ["./", ".", "' '"])
def test_the_repository_itself_named_as_the_docs_folder_is_refused_with_the_line(docs: DocsRepo, folder: str) -> None:
    docs.write("aidlc.yaml", f"version: 1\nlayout: aidlc-docs\naidlc_docs: {folder}\n")
    result = run_cli("validate", cwd=docs.root)
    assert result.returncode == 2 and result.stdout == ""
    assert "aidlc.yaml:3: 'aidlc_docs'" in result.stderr and "must be a folder inside the repository" in result.stderr


@pytest.mark.parametrize("notes", ["memory-bank/.gitkeep", "memory-bank/projectbrief.md",
                                   "memory-bank/activeContext.md"])
def test_a_memory_bank_folder_without_records_beside_aidlc_docs_is_not_the_layout(docs: DocsRepo, notes: str) -> None:
    """An empty memory-bank/ made validate pass on 0 files, whatever the docs said; then it was a usage error naming
    two layouts, whose fix said to delete memory-bank/. A folder of that name holding no specs.md records (nothing,
    or Cline's memory bank: projectbrief.md, activeContext.md, ...) is not a memory bank: the docs are read."""
    line = break_build_and_test(docs)
    docs.write(notes, "# Notes of another tool\n")
    for command in ("validate", "ci"):
        result = run_cli(command, str(docs.root), "--format", "json")
        assert result.returncode == 1, (command, result.stdout + result.stderr)
        assert [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]] == [("AIDLC-DOCS-004", line)]
    assert "(aidlc-docs layout: aidlc-docs/)" in run_cli("status", str(docs.root)).stdout


def test_a_memory_bank_beside_aidlc_docs_is_refused_until_aidlc_yaml_chooses(docs: DocsRepo) -> None:
    """With `layout: auto` the memory bank was read and aidlc-docs/ was not. Two layouts are a usage error naming
    both, until aidlc.yaml says which one the project keeps."""
    break_build_and_test(docs)
    docs.write("memory-bank/intents/.gitkeep", "")
    for command in ("validate", "ci", "status"):
        result = run_cli(command, str(docs.root))
        assert result.returncode == 2, (command, result.stdout + result.stderr)
        assert "records in two layouts, memory-bank/ and aidlc-docs/aidlc-state.md" in result.stderr
        assert "set `layout: aidlc-docs` in" in result.stderr and "Traceback" not in result.stderr
    docs.write("aidlc.yaml", "version: 1\nlayout: aidlc-docs\n")
    result = run_cli("validate", str(docs.root), "--format", "json")
    assert result.returncode == 1
    assert "AIDLC-DOCS-004" in {f["code"] for f in json.loads(result.stdout)["findings"]}
    docs.write("aidlc.yaml", "version: 1\nlayout: memory-bank\n")
    result = run_cli("validate", str(docs.root), "--format", "json")
    found = json.loads(result.stdout)["findings"]
    assert all(not f["code"].startswith("AIDLC-DOCS-") for f in found)
    # A layout chosen by hand is the team's word; the reviewer is told what it leaves unread.
    assert [(f["code"], f["severity"], f["path"], f["line"]) for f in found if f["code"] == "AIDLC-STRUCT-007"] == [
        ("AIDLC-STRUCT-007", "info", "aidlc.yaml", 2)]


def test_a_memory_bank_beside_v2_intent_records_is_refused(tmp_path: Path) -> None:
    v2 = build_v2_repo(tmp_path / "v2")
    assert run_cli("validate", str(v2.root)).returncode == 0
    v2.write("memory-bank/project.yaml", "project_type: web-app\n")
    result = run_cli("validate", str(v2.root))
    assert result.returncode == 2
    assert f"records in two layouts, memory-bank/ and {V2_RECORD}" in result.stderr


def test_an_audit_log_over_a_mebibyte_is_read_and_judged(docs: DocsRepo) -> None:
    # An audit log only grows: a few thousand entries pass the size limit of the other files.
    first = len(ENTRIES)
    notes = "".join(entry_text(f"Code Generation - Progress {n}", stamp(first + n), None,
                               "Wrote the next part of the orders API. " * 6, "CONSTRUCTION - Code Generation")
                    for n in range(1, 3001))
    docs.write(AUDIT, docs.read(AUDIT) + notes)
    assert docs.path(AUDIT).stat().st_size > 1 << 20
    docs.commit("aidlc-docs: code generation progress", stamp(first + 3000))
    result = run_cli("validate", str(docs.root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "validation passed: 20 files, 0 errors, 0 warnings, 0 notes"


def test_a_part_of_a_monorepo_with_its_own_docs_folder_is_validated_from_inside_and_named_from_the_top(
        tmp_path: Path) -> None:
    """`backend/aidlc-docs/` in a repository whose root holds no records: run inside backend/ (or deeper), aidlc
    works on backend/; run at the top, the error names the folder to validate."""
    mono = tmp_path / "mono"
    docs = build_docs_repo(mono / "backend")
    (docs.root / ".git").rename(tmp_path / "backend.git")  # one repository: the monorepo's
    git_init(mono)
    inside = run_cli("validate", "--format", "json", cwd=docs.root / "aidlc-docs" / "construction")
    assert inside.returncode in (0, 1), inside.stderr
    assert json.loads(inside.stdout)["root"] == str(docs.root)
    top = run_cli("validate", cwd=mono)
    assert top.returncode == 2 and "Traceback" not in top.stderr
    assert f"no memory bank at {mono / 'memory-bank'}, and no aidlc-docs folder at {mono / 'aidlc-docs'}" in top.stderr
    assert "aidlc validate backend    # records found there (any command: --repo backend)" in top.stderr
    # Named from another folder, the path is the one to type there; and --repo takes any command to it.
    away = run_cli("status", str(mono), cwd=tmp_path)
    assert away.returncode == 2 and "aidlc validate mono/backend    # records found there" in away.stderr
    status = run_cli("--repo", "mono/backend", "status", cwd=tmp_path)
    assert status.returncode == 0 and str(docs.root) in status.stdout, status.stderr


@pytest.mark.parametrize("folder", ["aidlc-docs", "docs/aidlc"])
def test_a_docs_folder_holding_no_records_is_named_as_there_and_empty_of_them(tmp_path: Path, folder: str) -> None:
    """A repository whose aidlc-docs/ (or the folder aidlc.yaml's `aidlc_docs:` names) holds a README.md alone:
    validate, status and ci said "no aidlc-docs folder at" it, although the folder was there. They say it is there
    and holds neither aidlc-state.md nor audit.md, and what to run; once it holds aidlc-state.md, validate reads it."""
    repo = tmp_path / "shop"
    git_init(repo)
    (repo / folder).mkdir(parents=True)
    (repo / folder / "README.md").write_text("# Design notes\n", encoding="utf-8")
    named = ""
    if folder != "aidlc-docs":
        (repo / "aidlc.yaml").write_text(f"aidlc_docs: {folder}\n", encoding="utf-8")
        named = " (aidlc.yaml's aidlc_docs)"
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-qm", "notes"], cwd=repo,
                   check=True)
    for command in ("validate", "status", "ci"):
        result = run_cli(command, str(repo))
        assert result.returncode == 2 and "Traceback" not in result.stderr, (command, result.stderr)
        lines = result.stderr.splitlines()
        assert lines[0] == (f"error: no memory bank at {repo / 'memory-bank'}, and the aidlc-docs folder at "
                            f"{repo / folder}{named} holds neither aidlc-state.md nor audit.md"), (command, lines)
        assert "no aidlc-docs folder" not in result.stderr
        steps = [line.strip() for line in lines[lines.index("Next steps:") + 1:]]
        assert f"aidlc init {repo}    # scaffold aidlc.yaml and memory-bank/" in steps, steps
        assert f"aidlc validate {repo}    # once the aidlc-docs folder holds aidlc-state.md or audit.md (the AI-DLC " \
               "workflow writes them), it reads them" in steps, steps
    (repo / folder / "aidlc-state.md").write_text("# AI-DLC State Tracking\n", encoding="utf-8")
    read = run_cli("validate", str(repo))
    assert read.returncode in (0, 1), read.stdout + read.stderr


def head_of(docs: DocsRepo) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=docs.root, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_a_docs_folder_whose_state_file_and_log_a_commit_deleted_and_ignored_is_judged_by_their_history(
        docs: DocsRepo) -> None:
    """unboxing96/aidlc-workshop's commit f018323 (`chore: gitignore audit.md and aidlc-state.md`) deleted both files
    and git-ignored them; inception/ and construction/ kept the stage documents. validate, status and ci stopped with
    "no memory bank ..., and the aidlc-docs folder ... holds neither aidlc-state.md nor audit.md" and advised `aidlc
    init`, a memory bank beside the records. The folder is the project's records still: validate and ci judge it,
    AIDLC-DOCS-024 and 029 reporting the deletion (as `aidlc ci --base` before it does), and status reads it."""
    for rel in (STATE, AUDIT):
        docs.path(rel).unlink()
    docs.write(".gitignore", f"{AUDIT}\n{STATE}\n")
    docs.commit("chore: gitignore audit.md and aidlc-state.md")
    gone = head_of(docs)[:12]
    for command in ("validate", "ci"):
        result = run_cli(command, "--format", "json", str(docs.root))
        assert result.returncode == 1, (command, result.stdout, result.stderr)
        found = {(f["code"], f["path"]): f["message"] for f in json.loads(result.stdout)["findings"]}
        assert f"commit {gone} (chore: gitignore audit.md and aidlc-state.md) deleted {STATE}" in \
            found["AIDLC-DOCS-029", STATE]
        assert f"commit {gone}" in found["AIDLC-DOCS-024", AUDIT]
        assert "git-ignored" in found["AIDLC-DOCS-024", ".gitignore"]
    shown = run_cli("validate", str(docs.root))
    assert "no memory bank" not in shown.stderr and "aidlc init" not in shown.stdout + shown.stderr
    status = run_cli("status", str(docs.root))
    assert status.returncode == 0 and "no memory bank" not in status.stderr, status.stderr
    assert f"{DOCS}/ holds no aidlc-state.md to list a stage" in status.stdout


def test_a_docs_folder_a_commit_deleted_whole_is_named_with_that_commit_and_the_steps_that_restore_it(
        docs: DocsRepo) -> None:
    """With the folder itself deleted, aidlc does not read it as the project's layout (a project may leave it for a
    memory bank), but the error names the commit that deleted the state file and log, not `aidlc init`; its steps,
    pasted into a shell, restore them for validate to read, or judge the deletion with `aidlc ci --base`
    (AIDLC-DOCS-024; 029 is for a state file deleted from a folder that stays)."""
    shutil.rmtree(docs.path(DOCS))
    docs.commit("chore: drop the AI-DLC records")
    gone = head_of(docs)[:12]
    for command in ("validate", "status", "ci"):
        result = run_cli(command, cwd=docs.root)
        assert result.returncode == 2 and "Traceback" not in result.stderr, (command, result.stderr)
        lines = result.stderr.splitlines()
        assert lines[0] == (f"error: no memory bank at {docs.root / 'memory-bank'}, and no aidlc-docs folder at "
                            f"{docs.path(DOCS)}: commit {gone} (chore: drop the AI-DLC records) deleted {STATE} and "
                            f"{AUDIT}, which the commits before it tracked"), (command, lines)
        assert "aidlc init" not in result.stderr
    steps = [line.strip().split("    #")[0] for line in lines[lines.index("Next steps:") + 1:]]
    assert steps[:2] == [f"git checkout '{gone}^' -- {STATE} {AUDIT}", f"aidlc ci . --base '{gone}^'"], steps
    judged = run_cli("ci", "--format", "json", "--base", f"{gone}^", cwd=docs.root)
    assert judged.returncode == 1, judged.stdout + judged.stderr
    codes = [f["code"] for f in json.loads(judged.stdout)["findings"]]
    assert "AIDLC-DOCS-024" in codes and "AIDLC-DOCS-029" not in codes  # the log, deleted; the folder charged once
    subprocess.run(["bash", "-c", steps[0]], cwd=docs.root, check=True, capture_output=True)
    restored = run_cli("validate", "--format", "json", cwd=docs.root)
    assert restored.returncode in (0, 1) and json.loads(restored.stdout)["summary"]["files"] > 0, restored.stderr


@pytest.mark.parametrize(("state_first", "log"), [(False, "log.md"), (True, "log.md"), (False, "an empty audit.md")])
def test_a_folder_of_a_state_file_and_no_audit_log_deleted_whole_is_judged_by_ci(tmp_path: Path, state_first: bool,
                                                                                log: str) -> None:
    """takashimamorino/aidlc-workflows kept aidlc-state.md beside a log of its own name (log.md), which is no audit log
    to aidlc, and a commit deleted the folder whole: validate's error said `aidlc ci --base` before that commit
    reports the deletion, and ci passed with nothing to say (029 asked for the folder to stay; 024 is of a log).
    `state_first`: the state file goes one commit, the rest of the folder the next; that first commit is named.
    An audit.md of a title and no entry beside the state file is no way around it: 024 charges no log that lost
    nothing, so the state file's deletion is charged."""
    root = tmp_path / "tasks"
    root.mkdir()
    git_init(root)
    docs = DocsRepo(root)
    for rel, text in clean_files().items():
        if rel != AUDIT:
            docs.write(rel, text)
        elif log == "log.md":
            docs.write(f"{DOCS}/log.md", text)
        else:
            docs.write(AUDIT, "# AI-DLC Audit Log\n")
    docs.commit("Phase 1-3: the records", stamp(0))
    base = head_of(docs)[:12]
    if state_first:
        docs.path(STATE).unlink()
        docs.commit("Phase 4-5: the records move out")
    shutil.rmtree(docs.path(DOCS))
    docs.commit("the rest of the folder too" if state_first else "Phase 4-5: the records move out")
    gone = subprocess.run(["git", "log", "-1", "--format=%h", "--abbrev=12", "--diff-filter=D", "--", STATE],
                          cwd=root, check=True, capture_output=True, text=True).stdout.strip()
    result = run_cli("validate", cwd=docs.root)
    assert result.returncode == 2 and f"aidlc ci . --base '{gone}^'" in result.stderr, result.stderr
    judged = run_cli("ci", "--format", "json", "--base", base, cwd=docs.root)
    assert judged.returncode == 1, judged.stdout + judged.stderr
    found = [(f["code"], f["path"], f["message"]) for f in json.loads(judged.stdout)["findings"]]
    assert found == [("AIDLC-DOCS-029", STATE, f"commit {gone} (Phase 4-5: the records move out) deleted {STATE}, and "
                      f"the {DOCS}/ folder, which held no audit log entry, is gone: no stage's tick or approval is "
                      "checked")]


def test_a_repository_that_never_held_an_aidlc_docs_folder_is_still_offered_a_memory_bank(tmp_path: Path) -> None:
    """The plain case is unchanged: no records now and none in the history, so `aidlc init` is the next step."""
    repo = tmp_path / "shop"
    git_init(repo)
    (repo / "README.md").write_text("# Shop\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-qm", "readme"], cwd=repo,
                   check=True)
    for command in ("validate", "status", "ci"):
        result = run_cli(command, str(repo))
        assert result.returncode == 2, (command, result.stderr)
        lines = result.stderr.splitlines()
        assert lines[0] == f"error: no memory bank at {repo / 'memory-bank'}, and no aidlc-docs folder at " \
                           f"{repo / 'aidlc-docs'}", (command, lines)
        assert f"  aidlc init {repo}    # scaffold aidlc.yaml and memory-bank/" in lines, lines


def test_a_docs_folder_kept_under_another_name_is_named_with_the_setting_that_reads_it(docs: DocsRepo) -> None:
    """i-core keeps aidlc-state.md and audit.md in docs/aidlc/: aidlc found no records and said only `aidlc init`.
    The next step names the folder and the setting; pasted into a shell as printed, it makes validate read it."""
    (docs.root / "docs").mkdir()
    (docs.root / "aidlc-docs").rename(docs.root / "docs" / "aidlc")
    lost = run_cli("validate", cwd=docs.root)
    assert lost.returncode == 2 and "Traceback" not in lost.stderr
    [step] = [line.strip() for line in lost.stderr.splitlines() if "holds aidlc-state.md" in line]
    assert step.startswith("printf '%s\\n' 'aidlc_docs: \"docs/aidlc\"' >> aidlc.yaml    # that folder holds")
    subprocess.run(["bash", "-c", step], cwd=docs.root, check=True)
    found = run_cli("validate", "--format", "json", cwd=docs.root)
    assert found.returncode == 0, found.stdout + found.stderr
    assert json.loads(found.stdout)["findings"] == []
    # Once aidlc.yaml names a docs folder, aidlc does not offer to name another.
    (docs.root / "aidlc.yaml").write_text("aidlc_docs: elsewhere\n", encoding="utf-8")
    assert "holds aidlc-state.md" not in run_cli("validate", cwd=docs.root).stderr



@pytest.mark.parametrize("name", ["x'; touch pwned; '", "$(touch pwned)", "a\ntouch pwned"])
def test_the_setting_step_for_a_hostile_docs_folder_name_runs_nothing_else(docs: DocsRepo, name: str) -> None:
    """A cloned repository keeps its records in `docs/<name>`: the printed step, pasted into bash, writes that one
    setting and runs nothing the name holds; validate then reads the folder. A line break in the name once reached
    the step's comment, where it started a second command."""
    (docs.root / "docs").mkdir()
    (docs.root / "aidlc-docs").rename(docs.root / "docs" / name)
    lost = run_cli("validate", cwd=docs.root)
    [step] = [line.strip() for line in lost.stderr.splitlines() if "holds aidlc-state.md" in line]
    subprocess.run(["bash", "-c", step], cwd=docs.root, check=True)
    assert not list(docs.root.rglob("pwned*"))
    found = run_cli("validate", "--format", "json", cwd=docs.root)
    assert found.returncode in (0, 1), found.stderr
    assert json.loads(found.stdout)["summary"]["files"] > 0


def test_a_hostile_folder_name_in_a_next_step_is_one_quoted_argument(tmp_path: Path) -> None:
    """A cloned repository names a part `x; touch pwned`: the next step the error prints is safe to paste into a
    shell, the folder one quoted argument, and pasting it validates that folder and runs nothing else."""
    mono = tmp_path / "mono"
    hostile = "x; touch pwned"
    docs = build_docs_repo(mono / hostile)
    (docs.root / ".git").rename(tmp_path / "part.git")
    git_init(mono)
    top = run_cli("validate", cwd=mono)
    assert top.returncode == 2
    [step] = [line.strip() for line in top.stderr.splitlines() if "# records found there" in line]
    command = step.split("    #")[0]
    assert command == "aidlc validate 'x; touch pwned'"
    pasted = subprocess.run(["bash", "-c", command.replace("aidlc", f"{sys.executable} -m aidlc", 1)], cwd=mono,
                            capture_output=True, text=True)
    assert pasted.returncode in (0, 1), pasted.stderr
    assert not (mono / "pwned").exists()


def docs_added_over_a_readme(tmp_path: Path) -> DocsRepo:
    """A base that keeps no records (a README alone), and a pull request `pr` that adds the clean aidlc-docs/."""
    docs = build_docs_repo(tmp_path / "shop")
    built = subprocess.run(["git", "rev-parse", "HEAD"], cwd=docs.root, check=True, capture_output=True,
                           text=True).stdout.strip()
    subprocess.run(["git", "checkout", "-q", "--orphan", "main"], cwd=docs.root, check=True)
    subprocess.run(["git", "rm", "-rqf", "."], cwd=docs.root, check=True)
    docs.write("README.md", "# Shop\n")
    docs.commit("readme", stamp(0) - timedelta(hours=1))  # before the first entry: no entry predates the repository
    subprocess.run(["git", "checkout", "-qb", "pr"], cwd=docs.root, check=True)
    subprocess.run(["git", "checkout", "-q", built, "--", "."], cwd=docs.root, check=True)
    docs.commit("the shop's inception and construction", stamp(len(ENTRIES)))
    return docs


def test_a_pull_request_that_first_adds_the_docs_folder_is_judged_in_it(tmp_path: Path) -> None:
    """A base that keeps no records in either layout hides none: the pull request that adds aidlc-docs/ is judged
    in that layout. Before, `layout: auto` at the base fell back to the memory bank, and ci stopped with "no memory
    bank ... and no aidlc-docs folder" although the folder was there."""
    docs = docs_added_over_a_readme(tmp_path)
    result = run_cli("ci", "--base", "main", cwd=docs.root)
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("aidlc ci passed (against base ") and last.endswith(": 20 files, 0 errors, 0 warnings, "
                                                                               "0 notes"), last
    line = break_build_and_test(docs)
    docs.commit("tick it")
    result = run_cli("ci", "--base", "main", "--format", "json", cwd=docs.root)
    assert result.returncode == 1, result.stderr
    assert ("AIDLC-DOCS-004", STATE, line) in {(f["code"], f["path"], f["line"])
                                               for f in json.loads(result.stdout)["findings"]}


@pytest.mark.parametrize("bank", ["memory-bank/.gitkeep", "memory-bank/intents/.gitkeep"])
def test_a_pull_request_that_first_adds_the_docs_folder_cannot_hide_it_behind_an_empty_memory_bank(
        tmp_path: Path, bank: str) -> None:
    """The base keeps no records, so the pull request's own files decide the layout: an empty memory-bank/ beside
    the aidlc-docs/ it adds would have been all that ci read (0 files, passed). A folder holding no records is no
    memory bank (the docs are judged); one holding a memory bank's folders makes two layouts, which no command
    reads."""
    docs = docs_added_over_a_readme(tmp_path)
    line = break_build_and_test(docs)
    docs.write(bank, "")
    docs.commit("tick it, and a memory bank")
    result = run_cli("ci", "--base", "main", "--format", "json", cwd=docs.root)
    if bank == "memory-bank/.gitkeep":
        assert result.returncode == 1, result.stdout + result.stderr
        assert ("AIDLC-DOCS-004", line) in {(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]}
        return
    assert result.returncode == 2, result.stdout + result.stderr
    assert "records in two layouts, memory-bank/ and aidlc-docs/aidlc-state.md" in result.stderr


def test_an_adopted_project_s_layout_is_a_rule_a_pull_request_cannot_switch_away_from_its_docs(
        docs: DocsRepo) -> None:
    """Past the refusal of two layouts under `auto`: a pull request that sets `layout: memory-bank` and adds a
    memory bank keeps one layout in its own eyes. Once the project adopted aidlc (its ledger), the layout is a rule:
    the base's judges, the docs' broken stage is found, and the change waits for a second person's approval."""
    init = run_cli("init", str(docs.root))
    assert init.returncode == 0, init.stdout + init.stderr
    docs.commit("Adopt aidlc")
    subprocess.run(["git", "branch", "-M", "main"], cwd=docs.root, check=True)
    subprocess.run(["git", "checkout", "-qb", "pr"], cwd=docs.root, check=True)
    line = break_build_and_test(docs)
    docs.write("aidlc.yaml", docs.read("aidlc.yaml").replace("layout: aidlc-docs", "layout: memory-bank"))
    assert "layout: memory-bank" in docs.read("aidlc.yaml")
    docs.write("memory-bank/project.yaml", "project_type: web-app\n")
    docs.commit("a memory bank instead")
    result = run_cli("ci", "--base", "main", "--format", "json", cwd=docs.root)
    assert result.returncode == 1, result.stdout + result.stderr
    found = {(f["code"], f["path"], f["line"]) for f in json.loads(result.stdout)["findings"]}
    assert ("AIDLC-DOCS-004", STATE, line) in found
    assert "AIDLC-CI-012" in {code for code, _, _ in found}, found


@pytest.mark.parametrize("move", ["none", "aidlc_docs: aidlc-docs/", "aidlc_docs: a copy", "layout: memory-bank"])
def test_the_pull_request_that_adopts_aidlc_reads_the_records_where_the_base_keeps_them(docs: DocsRepo,
                                                                                          move: str) -> None:
    """A base without a ledger has not adopted aidlc: the pull request that adopts it brings its rules, but not
    another place to read the audit log the base keeps. Pointing aidlc.yaml at a clean copy, or at a memory bank,
    while deleting an approval from the real log passed (ci: 0 errors)."""
    subprocess.run(["git", "branch", "-M", "main"], cwd=docs.root, check=True)
    subprocess.run(["git", "checkout", "-qb", "pr"], cwd=docs.root, check=True)
    init = run_cli("init", str(docs.root))
    assert init.returncode == 0, init.stdout + init.stderr
    if move == "aidlc_docs: aidlc-docs/":  # the same folder, spelled with a slash
        docs.write("aidlc.yaml", docs.read("aidlc.yaml").replace('aidlc_docs: "aidlc-docs"', "aidlc_docs: aidlc-docs/"))
    elif move != "none":
        text = docs.read(AUDIT)
        start = text.index("## Requirements Analysis - Approval\n")
        docs.write(AUDIT, text[:start] + text[text.index("---", start) + 5:])
    if move == "aidlc_docs: a copy":
        shutil.copytree(docs.path(DOCS), docs.path("copy"))
        docs.write("copy/audit.md", text)
        docs.write("aidlc.yaml", docs.read("aidlc.yaml").replace("aidlc_docs: \"aidlc-docs\"", "aidlc_docs: copy"))
    if move == "layout: memory-bank":
        docs.write("aidlc.yaml", docs.read("aidlc.yaml").replace("layout: aidlc-docs", "layout: memory-bank"))
        docs.write("memory-bank/project.yaml", "project_type: web-app\n")
    docs.commit("Adopt aidlc")
    result = run_cli("ci", "--base", "main", "--format", "json", cwd=docs.root)
    found = {(f["code"], f["path"]) for f in json.loads(result.stdout)["findings"]}
    if move in ("none", "aidlc_docs: aidlc-docs/"):
        assert result.returncode == 0 and found == set(), result.stdout + result.stderr
        return
    assert result.returncode == 1, result.stdout + result.stderr
    assert {("AIDLC-CI-012", "aidlc.yaml"), ("AIDLC-DOCS-020", AUDIT)} <= found, found


@pytest.mark.parametrize("own", [False, True], ids=["the base's findings", "its own deletion too"])
def test_the_baseline_the_adopting_pull_request_brings_covers_only_what_the_base_had(docs: DocsRepo,
                                                                                     own: bool) -> None:
    """The base (no ledger) already had a stage left awaiting approval: the pull request that adopts aidlc may list
    it in its baseline. It cannot list what it did itself: deleting an approval from the audit log and writing the
    baseline after passed `aidlc ci` with both findings known."""
    line = break_build_and_test(docs)
    docs.commit("awaiting approval, on the default branch")
    subprocess.run(["git", "branch", "-M", "main"], cwd=docs.root, check=True)
    subprocess.run(["git", "checkout", "-qb", "pr"], cwd=docs.root, check=True)
    assert run_cli("init", str(docs.root)).returncode == 0
    if own:
        text = docs.read(AUDIT)
        start = text.index("## Requirements Analysis - Approval\n")
        docs.write(AUDIT, text[:start] + text[text.index("---", start) + 5:])
    docs.commit("Adopt aidlc")
    written = run_cli("ci", "--base", "main", "--write-baseline", cwd=docs.root)
    assert written.returncode == 0, written.stdout + written.stderr
    assert ("; 2 of them the base did not have: this pull request adopts aidlc" in written.stdout) == own
    docs.commit("its baseline")
    result = run_cli("ci", "--base", "main", "--format", "json", cwd=docs.root)
    marked = {(f["code"], f["path"], f["line"], f["baseline"]) for f in json.loads(result.stdout)["findings"]}
    assert ("AIDLC-DOCS-004", STATE, line, "known") in marked
    if not own:
        assert result.returncode == 0 and {baseline for *_, baseline in marked} == {"known"}, marked
        return
    assert result.returncode == 1
    assert {(code, baseline) for code, path, _, baseline in marked if path == AUDIT} == {("AIDLC-DOCS-020", "new")}
    assert ("AIDLC-DOCS-003", STATE, docs.line(STATE, "Requirements Analysis"), "new") in marked


@pytest.mark.parametrize("move", ["a memory bank's folder", "aidlc-docs/ deleted"])
def test_a_pull_request_cannot_move_its_docs_records_out_of_sight(docs: DocsRepo, move: str) -> None:
    """With `layout: auto` a memory-bank/ folder wins over aidlc-docs/: a pull request that added an empty one had
    its docs judged as no records at all (ci passed, 0 files); one that deleted aidlc-docs/ got a usage error. Now
    the first keeps two layouts, which no command reads (exit 2), and the base's layout judges the second: the
    deletion is named."""
    subprocess.run(["git", "branch", "-M", "main"], cwd=docs.root, check=True)
    subprocess.run(["git", "checkout", "-qb", "pr"], cwd=docs.root, check=True)
    break_build_and_test(docs)
    if move == "a memory bank's folder":
        docs.write("memory-bank/intents/.gitkeep", "")
    docs.commit("tick it")
    if move == "aidlc-docs/ deleted":
        subprocess.run(["git", "rm", "-rqf", "aidlc-docs"], cwd=docs.root, check=True)
        docs.commit("no more docs")
    result = run_cli("ci", "--base", "main", "--format", "json", cwd=docs.root)
    if move == "a memory bank's folder":  # the pull request's tree keeps two layouts: no command reads it
        assert result.returncode == 2, result.stdout + result.stderr
        assert "records in two layouts, memory-bank/ and aidlc-docs/aidlc-state.md" in result.stderr
        return
    assert result.returncode == 1, result.stderr
    found = {(f["code"], f["path"], f["line"]) for f in json.loads(result.stdout)["findings"]}
    assert ("AIDLC-DOCS-024", AUDIT, None) in found


def test_a_part_of_the_project_keeping_cline_notes_is_not_where_its_records_are(docs: DocsRepo) -> None:
    """Run from web/, whose memory-bank/ is Cline's: before, web/ was taken for the project (a memory bank there)
    and held no records."""
    docs.write("web/memory-bank/activeContext.md", "# What Cline keeps\n")
    result = run_cli("status", cwd=docs.root / "web")
    assert result.returncode == 0, result.stderr
    assert f"aidlc status  {docs.root}  (aidlc-docs layout: aidlc-docs/)" in result.stdout
