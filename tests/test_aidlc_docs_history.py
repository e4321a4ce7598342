"""The aidlc-docs history rules (aidlc/rules/docs_history_scan.py) on real git histories built here, one broken
history per rule, and `aidlc ci --base` refusing a pull request that rewrites the audit log."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from aidlc.aidlc_docs.reader import read_project
from aidlc.model.types import Severity
from aidlc.names import MAX_MESSAGE
from aidlc.rules import docs_approvals, every_rule
from aidlc.rules.docs_history_scan import history_findings
from tests.helpers import git_init, run_cli, run_cli_process

DOCS = "aidlc-docs"
AUDIT = f"{DOCS}/audit.md"
STATE = f"{DOCS}/aidlc-state.md"


def entry(heading: str, stamp: str, said: str = "Approve & Continue", context: str = "INCEPTION") -> str:
    return (f"## {heading}\n**Timestamp**: {stamp}\n**User Input**: \"{said}\"\n**AI Response**: Recorded.\n"
            f"**Context**: {context}\n\n---\n\n")


STATE_OPEN = ("# AI-DLC State\n\n## Stage Progress\n- [x] INCEPTION - Workspace Detection\n"
              "- [ ] INCEPTION - Requirements Analysis\n- [ ] INCEPTION - User Stories (SKIP)\n")
TICKED = STATE_OPEN.replace("- [ ] INCEPTION - Requirements", "- [x] INCEPTION - Requirements")
START = entry("Workspace Detection", "2026-06-01T08:58:00Z", "Build a shop")
ANSWERS = entry("Requirements Analysis - Answers", "2026-06-01T09:10:00Z", "A, B, C")
APPROVAL = entry("Requirements Analysis - Approval", "2026-06-01T09:20:00Z", "Approve & Continue",
                 "INCEPTION - Requirements Analysis approved")


class Repo:
    """A repository in the aidlc-docs layout whose commits carry the dates a test gives them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        git_init(root)
        self.git("config", "user.name", "Ada")
        self.git("config", "user.email", "ada@example.com")

    def git(self, *args: str, date: str | None = None) -> str:
        env = {**os.environ, "GIT_AUTHOR_DATE": date or "2026-06-01T09:00:00Z",
               "GIT_COMMITTER_DATE": date or "2026-06-01T09:00:00Z"}
        return subprocess.run(["git", *args], cwd=self.root, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    def write(self, rel: str, text: str, newline: str = "\n") -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.replace("\n", newline).encode())

    def commit(self, message: str, date: str, **files: str) -> str:
        for rel, text in files.items():
            self.write(rel, text)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, date=date)
        return self.git("rev-parse", "HEAD")

    def findings(self, since: str | None = None) -> list[tuple[str, str, int | None, str]]:
        return [(f.code, f.path, f.line, f.message) for f in history_findings(read_project(self.root, DOCS), since)]

    def codes(self, since: str | None = None) -> list[str]:
        return [code for code, *_ in self.findings(since)]


def started(root: Path) -> Repo:
    """A clean start: the state and the first entry, committed after it was written."""
    repo = Repo(root)
    repo.commit("start", "2026-06-01T09:00:00Z", **{AUDIT: "# Audit\n\n" + START, STATE: STATE_OPEN})
    return repo


@pytest.fixture
def docs(tmp_path: Path) -> Repo:
    return started(tmp_path / "shop")


def test_a_history_that_follows_every_rule_has_no_finding(docs: Repo) -> None:
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    docs.commit("approved", "2026-06-01T09:21:00Z", **{
        AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL,
        STATE: TICKED})
    docs.git("checkout", "-q", "-b", "side")
    side = entry("User Stories - Note", "2026-06-01T09:30:00Z", "skip them")
    docs.commit("side", "2026-06-01T09:31:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + side})
    docs.git("checkout", "-q", "master")
    main = entry("Workflow Planning - Start", "2026-06-01T09:32:00Z", "go")
    docs.commit("main", "2026-06-01T09:33:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + main})
    with pytest.raises(subprocess.CalledProcessError):  # both appended: git leaves a conflict a person resolves
        docs.git("merge", "-q", "side", date="2026-06-01T09:40:00Z")
    docs.commit("merge side", "2026-06-01T09:40:00Z",
                **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + side + main})
    assert docs.findings() == []


def test_validate_reads_what_head_holds_in_the_docs_folder_from_one_listing(docs: Repo, tmp_path: Path) -> None:
    """The state file's name, the audit logs HEAD holds and their blobs come from one `git ls-tree` of the docs
    folder: a validate of this history starts 8 git processes (before, 14: a listing or a lookup per question)."""
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL,
                                                       STATE: TICKED})
    trace = tmp_path / "git-trace.txt"
    proc = run_cli_process("validate", str(docs.root), env={"GIT_TRACE": str(trace)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    started = [line.split("trace: built-in: git ", 1)[1] for line in trace.read_text().splitlines()
               if "trace: built-in: git " in line]
    assert [command for command in started if command.startswith("ls-tree")] == \
        ["ls-tree -r -z --full-tree HEAD -- aidlc-docs/"]
    assert len(started) <= 8, started


def test_an_entry_a_later_commit_deletes_is_an_error_naming_the_commit_and_line(docs: Repo) -> None:
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    sha = docs.commit("tidy", "2026-06-01T09:30:00Z", **{AUDIT: "# Audit\n\n" + ANSWERS})
    [(code, path, line, message)] = docs.findings()
    # HEAD holds it at no line (its line 3 is another entry now): the message names the line it had.
    assert (code, path, line) == ("AIDLC-DOCS-020", AUDIT, None)
    assert f"commit {sha[:12]} (tidy) deleted the entry `Workspace Detection` (2026-06-01T08:58:00Z) (line 3 in " \
           in message


def test_a_log_saved_as_utf16_is_named_so_and_its_step_mends_it(docs: Repo) -> None:
    """Notepad's "Unicode": no entry reads, and the log read as "emptied". The step converts it back, and the log
    holding every entry again, nothing was lost."""
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    (docs.root / AUDIT).write_bytes(("# Audit\n\n" + START + ANSWERS).encode("utf-16"))
    docs.commit("saved in Notepad", "2026-06-01T09:20:00Z")
    [(_, _, _, message)] = [found for found in docs.findings() if found[0] == "AIDLC-DOCS-024"]
    assert "(saved in Notepad) saved aidlc-docs/audit.md as UTF-16: none of the 2 entries it held before" in message
    fix = json.loads(run_cli("validate", str(docs.root), "--format", "json").stdout)["findings"]
    step = next(f["fix"] for f in fix if f["code"] == "AIDLC-DOCS-024").split("    #")[0]
    subprocess.run(["bash", "-c", step], cwd=docs.root, check=True)
    docs.commit("UTF-8 again", "2026-06-01T09:25:00Z")
    assert "AIDLC-DOCS-024" not in docs.codes()


def test_a_separator_broken_by_a_nul_byte_is_shown_as_a_line_added_to_the_entry(docs: Repo) -> None:
    """`---` become `-\\0-` reads as a line of the entry above it: before, "its line 6 read nothing and now reads
    nothing"; the message names the added line, its NUL shown."""
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    text = (docs.root / AUDIT).read_text()
    at = text.index("---")
    (docs.root / AUDIT).write_bytes((text[:at] + "-\0-" + text[at + 3:]).encode())
    docs.commit("nul", "2026-06-01T09:20:00Z")
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-021" and message.endswith("its line 7, `-\\x00-`, was added at its end"), message


# AI-DLC-Workshop3's log: an entry stamped in its heading holds a table of events, and the last entry has no `---`
# after it, so the rows the next commit appends read as lines of that entry.
PENDING_ROW = "| 2026-06-01T09:30:00Z | 구축 | 승인 대기 | 기능 설계 완료, 팀 승인 대기 |"
PENDING = ("## 2026-06-01T09:30:00Z | 유닛-02 기능 설계 | 승인 대기\n\n| 시각 | 단계 | 이벤트 | 내용 |\n"
           f"|------|------|--------|------|\n{PENDING_ROW}\n")
ROW = "| 2026-06-01T09:50:00Z | 구축 | 코드 생성 완료 | 11개 파일 생성, 빌드 성공 |\n"
REVIEW = ("\n---\n\n## 2026-06-01 -- 유닛-02 코드 리뷰\n\n- **Stage**: 구축 / 유닛-02 / 코드 리뷰\n"
          "- **Verdict**: GO\n")


def test_rows_appended_to_the_last_entry_no_separator_closes_are_no_edit(docs: Repo) -> None:
    """The commit's log is its parent's, byte for byte, with lines after it: it edits no entry (before: "edited the
    entry ...: its line 6 ... was added at its end"). The entry is still the commit's that wrote it: its time is
    judged against that commit, and the finding is at the line HEAD holds it."""
    pending = docs.commit("design", "2026-06-01T09:20:00Z", **{AUDIT: "# Audit\n\n" + START + PENDING})
    docs.commit("code", "2026-06-01T09:55:00Z", **{AUDIT: "# Audit\n\n" + START + PENDING + ROW + REVIEW})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-025", 11), message
    assert f"dated 10 minutes after commit {pending[:12]} (design)" in message and "no longer" not in message
    (docs.root / AUDIT).write_bytes((docs.root / AUDIT).read_bytes().removesuffix(b"\n"))
    docs.commit("no last line end", "2026-06-01T09:56:00Z")
    docs.commit("more", "2026-06-01T09:58:00Z", **{AUDIT: "# Audit\n\n" + START + PENDING + ROW + REVIEW
                                                   + "- **Details**: 1 MEDIUM, 2 LOW\n"})
    assert docs.codes() == ["AIDLC-DOCS-025"]


@pytest.mark.parametrize("change", ["row", "line end"])
def test_a_changed_line_of_the_last_entry_no_separator_closes_is_an_edit(docs: Repo, change: str) -> None:
    """Appending is no edit, changing a line the entry held is, at the end of the log too: a row reworded while rows
    are appended, or words put at the end of its last line, which had no line end."""
    if change == "row":
        docs.commit("design", "2026-06-01T09:31:00Z", **{AUDIT: "# Audit\n\n" + START + PENDING})
        edited = PENDING.replace("팀 승인 대기", "팀 승인 완료") + ROW
    else:
        docs.commit("design", "2026-06-01T09:31:00Z", **{AUDIT: "# Audit\n\n" + START + PENDING.removesuffix("\n")})
        edited = PENDING.removesuffix("\n") + " 승인됨\n"
    docs.commit("code", "2026-06-01T09:55:00Z", **{AUDIT: "# Audit\n\n" + START + edited})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-021", 11)
    now = PENDING_ROW.replace("팀 승인 대기", "팀 승인 완료") if change == "row" else PENDING_ROW + " 승인됨"
    assert "edited the entry `유닛-02 기능 설계 | 승인 대기` (2026-06-01T09:30:00Z)" in message
    assert message.endswith(f"its line 5 read `{PENDING_ROW}` and now reads `{now}`"), message


# dragon4499/teamtwo-repository's log: the last entry closed by a `---` the file ends on, with no line end; the next
# commit's entries appended right after those bytes, its first heading glued onto that line and split by a stray line
# break (`---## Us`, then `er Stories Planning Created`).
GLUED = ("## Us\ner Stories - Plan Created\n**Timestamp**: 2026-06-01T09:15:00Z\n**AI Response**: Created the story "
         "plan\n**Context**: INCEPTION - User Stories\n\n---\n\n" + APPROVAL)


def test_entries_appended_onto_the_separator_the_log_ended_on_edit_nothing(docs: Repo) -> None:
    """The later version starts with every byte of the earlier one: nothing committed was changed (before: "edited the
    entry `Requirements Analysis - Answers` ...: its line 7, `---## Us`, was added at its end", with a fix, put the
    entry back as it was committed, that nothing could follow). No edit, re-formatting or insertion is found."""
    before = "# Audit\n\n" + START + ANSWERS.removesuffix("\n\n")
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: before})
    docs.commit("stories", "2026-06-01T09:21:00Z", **{AUDIT: before + GLUED})
    assert (docs.root / AUDIT).read_text().startswith(before) and "\n---## Us\n" in (docs.root / AUDIT).read_text()
    done = run_cli("validate", str(docs.root), "--format", "json")
    assert done.returncode == 0, done.stdout
    assert [f["code"] for f in json.loads(done.stdout)["findings"]] == []


def test_words_glued_onto_an_entry_s_last_line_are_still_an_edit_where_a_separator_follows(docs: Repo) -> None:
    """Only the closing `---` belongs to no entry: words put after an answer that had no line end change the entry."""
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + '## Requirements Analysis - '
                                                     'Answers\n**Timestamp**: 2026-06-01T09:10:00Z\n**User Input**: '
                                                     '"A, B'})
    docs.commit("more", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + '## Requirements Analysis - '
                                                  'Answers\n**Timestamp**: 2026-06-01T09:10:00Z\n**User Input**: '
                                                  '"A, B, approved"\n\n---\n'})
    assert docs.codes() == ["AIDLC-DOCS-021"]


def test_a_merge_that_drops_one_sides_entries_is_charged_and_a_side_deletion_is_not(docs: Repo) -> None:
    docs.git("checkout", "-q", "-b", "feature")
    side = entry("Code Generation - Approved", "2026-06-01T09:30:00Z", "yes", "CONSTRUCTION - Code Generation")
    docs.commit("feature", "2026-06-01T09:31:00Z", **{AUDIT: "# Audit\n\n" + START + side})
    docs.git("checkout", "-q", "master")
    docs.commit("main", "2026-06-01T09:35:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    docs.git("merge", "-q", "-s", "ours", "feature", date="2026-06-01T09:40:00Z")  # keeps main's log only
    merge = docs.git("rev-parse", "HEAD")
    [(code, path, line, message)] = docs.findings()
    assert (code, path, line) == ("AIDLC-DOCS-020", AUDIT, None)
    assert f"commit {merge[:12]}" in message and "`Code Generation - Approved`" in message and "(line 11 in " in message

    # A side that deletes an entry of the base is charged once, at its own commit, not again at the merge.
    docs.git("checkout", "-q", "-b", "cleanup")
    cleanup = docs.commit("cleanup", "2026-06-01T09:45:00Z", **{AUDIT: "# Audit\n\n" + ANSWERS})
    docs.git("checkout", "-q", "master")
    docs.commit("more", "2026-06-01T09:46:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    docs.git("merge", "-q", "cleanup", date="2026-06-01T09:50:00Z")
    deleted = [message for code, _, _, message in docs.findings() if code == "AIDLC-DOCS-020"]
    assert len(deleted) == 2 and f"commit {cleanup[:12]} (cleanup) deleted the entry `Workspace Detection`" in \
        "".join(deleted)


# AI-DLC-Workshop3's log before its construction: a table of events and a hook's lines, no entry aidlc reads.
TABLE = ("# AIDLC 감사 로그\n\n| Timestamp | Phase | Stage | Event | Details |\n|---|---|---|---|---|\n"
         "| 2026-06-01T08:58:00Z | INCEPTION | Workspace Detection | 완료 | 브라운필드 프로젝트 |\n"
         "2026-06-01T08:59:10Z | Agent completed | Session: unknown\n")


def test_a_merge_that_kept_the_side_whose_log_holds_no_entry_dropped_the_others(tmp_path: Path) -> None:
    """AI-DLC-Workshop3's merge 34b64bc took the answers branch's log, a table no entry of which aidlc reads, and
    dropped the entries its first parent had added: an error about those entries, naming whose log it kept (before:
    "emptied aidlc-docs/audit.md", of a file that kept the 10 lines that side's held)."""
    repo = Repo(tmp_path / "workshop")
    repo.commit("analysis", "2026-06-01T09:00:00Z", **{AUDIT: TABLE})
    repo.git("checkout", "-q", "-b", "answers")
    row = "| 2026-06-01T09:20:00Z | INCEPTION | Requirements Analysis | 답변 완료 | 36개 질문 답변 |\n"
    theirs = repo.commit("answers", "2026-06-01T09:21:00Z", **{AUDIT: TABLE + row})
    repo.git("checkout", "-q", "master")
    reviews = "".join(f"\n---\n\n## 2026-06-01 — 유닛-0{n} 코드 리뷰\n\n- **Stage**: 구축 / 유닛-0{n} / 코드 리뷰\n"
                      "- **Verdict**: GO\n" for n in (1, 2, 3))
    ours = repo.commit("units", "2026-06-01T09:30:00Z", **{AUDIT: TABLE + reviews})
    repo.git("merge", "-q", "--no-commit", "-s", "ours", "answers")
    repo.git("checkout", "answers", "--", AUDIT)
    merge = repo.commit("merge answers", "2026-06-01T09:40:00Z")
    [(code, path, line, message)] = repo.findings()
    assert (code, path, line) == ("AIDLC-DOCS-020", AUDIT, None)
    assert message == (f"commit {merge[:12]} (merge answers) deleted 3 entries that {ours[:12]} held, from "
                       "`유닛-01 코드 리뷰` (2026-06-01) at line 10 to `유닛-03 코드 리뷰` (2026-06-01) at line 24, "
                       f"which commit {ours[:12]} added: it kept {theirs[:12]}'s version of the log")


def test_a_log_left_with_lines_but_no_entry_is_said_so(docs: Repo) -> None:
    """A log whose entries gave way to a table of events holds no entry aidlc reads: removed, as an emptied one is,
    but not empty."""
    sha = docs.commit("table", "2026-06-01T09:30:00Z", **{AUDIT: TABLE})
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-024"
    assert message == (f"commit {sha[:12]} (table) left no entry in {AUDIT}, which held 1 entry before it: none of "
                       "its 5 lines reads as one")


def test_an_entry_a_merge_dropped_and_the_next_commit_restored_word_for_word_loses_nothing(docs: Repo) -> None:
    """miraniyam/aidlc-i13: a merge kept one side's log, dropping the other's entries, and the next commit (`audit
    merge?`) wrote them back: HEAD holds their words, so the deletion is not reported. One still missing is. The
    merge's deletions are one finding, which names only the entries HEAD does not hold again."""
    docs.git("checkout", "-q", "-b", "feature")
    side = entry("Code Generation - Approved", "2026-06-01T09:30:00Z", "yes", "CONSTRUCTION - Code Generation")
    other = entry("Code Generation - Notes", "2026-06-01T09:32:00Z", "add a test", "CONSTRUCTION - Code Generation")
    docs.commit("feature", "2026-06-01T09:33:00Z", **{AUDIT: "# Audit\n\n" + START + side + other})
    docs.git("checkout", "-q", "master")
    docs.commit("main", "2026-06-01T09:35:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    docs.git("merge", "-q", "-s", "ours", "feature", date="2026-06-01T09:40:00Z")  # keeps main's log only
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-020" and "deleted 2 entries that " in message
    assert "from `Code Generation - Approved` (2026-06-01T09:30:00Z) at line " in message
    assert "to `Code Generation - Notes` (2026-06-01T09:32:00Z) at line " in message
    # Written back with other words (the person's "add a test" become "ok"), a dropped entry is not restored.
    forged = other.replace('"add a test"', '"ok"')
    docs.commit("audit merge?", "2026-06-01T09:41:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + side + forged})
    [(code, _, line, message)] = [found for found in docs.findings() if found[0] == "AIDLC-DOCS-020"]
    assert (code, line) == ("AIDLC-DOCS-020", None) and "deleted the entry `Code Generation - Notes`" in message


def test_an_entry_rewritten_with_another_heading_and_time_but_the_same_lines_is_an_edit(docs: Repo) -> None:
    """todo-app's merge made `## Build and Test Stage` (00:03) `## Build and Test Stage - Unit 2` (11:03), its
    lines the same: an edit of the entry (AIDLC-DOCS-021), not a deletion."""
    built = ("## Build and Test Stage\n**Timestamp**: 2026-06-01T09:10:00Z\n**Build Status**: Success\n"
             "**Test Status**: 12 passed\n**Context**: CONSTRUCTION - Build and Test\n\n---\n\n")
    docs.commit("built", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + built})
    renamed = built.replace("Stage\n", "Stage - Unit 2\n").replace("09:10:00Z", "09:11:00Z")
    docs.commit("unit 2", "2026-06-01T09:20:00Z", **{AUDIT: "# Audit\n\n" + START + renamed})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-021", 11)
    assert "edited the entry `Build and Test Stage` (2026-06-01T09:10:00Z)" in message


def test_an_edited_timestamp_is_an_error_and_a_reformatted_entry_a_warning(docs: Repo) -> None:
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    edit = docs.commit("fix time", "2026-06-01T09:20:00Z",
                       **{AUDIT: "# Audit\n\n" + START + ANSWERS.replace("09:10:00Z", "09:05:00Z")})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-021", 11)
    assert f"commit {edit[:12]} (fix time) edited the entry" in message
    assert message.endswith("now reads `**Timestamp**: 2026-06-01T09:05:00Z`")

    repo = Repo(docs.root.parent / "formatted")
    repo.commit("start", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    repo.commit("format", "2026-06-01T09:20:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS.replace(
        "**Context**", "  **Context**")})
    assert repo.codes() == ["AIDLC-DOCS-022"]


def test_line_ends_and_conflict_markers_that_come_and_go_are_not_edits(docs: Repo) -> None:
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    docs.write(AUDIT, "# Audit\n\n" + START + ANSWERS, newline="\r\n")
    docs.commit("crlf", "2026-06-01T09:20:00Z")
    marked = ANSWERS.replace("**Context**", "=======\n**Context**")
    docs.commit("conflict", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + marked})
    docs.commit("resolved", "2026-06-01T09:22:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    assert docs.findings() == []


def test_an_entry_inserted_at_the_top_or_moved_is_a_warning(docs: Repo) -> None:
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    top = docs.commit("newest first", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + APPROVAL + START + ANSWERS})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-023", 3)
    assert f"commit {top[:12]} (newest first) inserted the entry `Requirements Analysis - Approval`" in message
    docs.commit("reorder", "2026-06-01T09:26:00Z", **{AUDIT: "# Audit\n\n" + APPROVAL + ANSWERS + START})
    assert "moved the entry" in docs.findings()[-1][3]


def test_the_entries_one_commit_inserts_above_are_one_warning(docs: Repo) -> None:
    # socar-rieul keeps its log newest first: its commits inserted 24 entries at the top, one finding each before.
    docs.commit("start", "2026-06-01T09:00:00Z", **{AUDIT: "# Audit\n\n" + START})
    top = docs.commit("two on top", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + APPROVAL + ANSWERS + START})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-023", 3)
    assert (f"commit {top[:12]} (two on top) inserted 2 entries, the first `Requirements Analysis - Approval` "
            "(2026-06-01T09:20:00Z), above entries earlier commits added") in message


def test_the_log_deleted_and_git_ignored_is_an_error_at_the_commit_and_at_the_ignore_rule(docs: Repo) -> None:
    (docs.root / AUDIT).unlink()
    gone = docs.commit("remove aidlc-docs from version control", "2026-06-01T09:30:00Z",
                       **{".gitignore": "node_modules/\n/aidlc-docs/\n"})
    found = docs.findings()
    assert [(code, path, line) for code, path, line, _ in found] == [
        ("AIDLC-DOCS-024", ".gitignore", 2), ("AIDLC-DOCS-024", AUDIT, None)]
    assert f"commit {gone[:12]} (remove aidlc-docs from version control) deleted {AUDIT}, which held 1 entry" in \
        found[1][3]
    assert "git-ignored by `/aidlc-docs/`" in found[0][3]


def test_an_ignore_rule_matching_a_log_git_still_tracks_is_no_finding(docs: Repo) -> None:
    # aidlc-workshop ignores `audit.md` in .gitignore after committing it: git commits a tracked file's changes whatever
    # the ignore rules say, and later commits did record new entries.
    docs.commit("ignore the docs", "2026-06-01T09:30:00Z", **{".gitignore": "node_modules/\naudit.md\n"})
    docs.commit("more entries", "2026-06-01T09:45:00Z",
                **{AUDIT: (docs.root / AUDIT).read_text(encoding="utf-8") + APPROVAL})
    assert docs.git("show", "HEAD", "--stat").count(AUDIT) == 1  # recorded
    assert "AIDLC-DOCS-024" not in docs.codes()


def test_a_log_deleted_then_uploaded_again_holding_every_entry_lost_nothing(docs: Repo) -> None:
    # ai-dlc-workshop-db: "Delete aidlc-workshop directory", then "Add files via upload" 13 minutes later with the
    # same entries and two more. Uploaded again without one of them, that one is lost: still an error.
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    (docs.root / AUDIT).unlink()
    docs.commit("Delete aidlc-docs directory", "2026-06-01T09:15:00Z")
    docs.commit("Add files via upload", "2026-06-01T09:28:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    done = run_cli("validate", str(docs.root), "--format", "json")
    assert "AIDLC-DOCS-024" not in done.stdout, done.stdout
    (docs.root / AUDIT).unlink()
    docs.commit("Delete aidlc-docs directory", "2026-06-01T09:35:00Z")
    docs.commit("Add files via upload", "2026-06-01T09:40:00Z", **{AUDIT: "# Audit\n\n" + ANSWERS + APPROVAL})
    assert [code for code in docs.codes() if code == "AIDLC-DOCS-024"] == ["AIDLC-DOCS-024"]  # START is lost
    assert "deleted aidlc-docs/audit.md, which held 3 entries" in run_cli("validate", str(docs.root)).stdout


# SUNCHANG-KWON/aidlc-workshop-tableorder: 8cf06e0 added the log, 04b9d5c (a revert) deleted it, and b27a81a wrote
# another log at that path, in bullets (`- Timestamp: ...`), which HEAD holds.
BULLETS = ("# AI-DLC Audit Log\n\n## INCEPTION - Requirements Analysis\n- Timestamp: 2026-06-01T10:34:10+09:00\n"
           "- Approval Gate: User pre-approved auto progression\n")
LATER = entry("Workflow Planning - Approval", "2026-06-01T10:40:00Z", "go on", "INCEPTION - Workflow Planning")


@pytest.mark.parametrize("written", ["bullets", "entries"])
def test_a_deleted_log_whose_path_head_holds_again_gets_a_step_that_keeps_the_current_log(docs: Repo,
                                                                                           written: str) -> None:
    """Before, the fix was `git checkout 8cf06e0... -- aidlc-docs/audit.md    # restore it`: following it overwrote the
    log HEAD holds. The step puts the deleted entries back above the current ones; committed, nothing is lost: neither
    the removal nor the entries put back above later ones are reported."""
    held = docs.commit("feat: AIDLC 워크플로우 산출물", "2026-06-01T09:12:00Z",
                       **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    docs.git("rm", "-q", AUDIT)
    docs.commit('Revert "feat: AIDLC 워크플로우 산출물"', "2026-06-01T09:30:00Z")
    current = BULLETS if written == "bullets" else "# Audit Log\n\n" + LATER
    again = docs.commit("feat: implement table-order MVP", "2026-06-01T10:45:00Z", **{AUDIT: current})
    done = run_cli("validate", str(docs.root), "--format", "json")
    [found] = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "AIDLC-DOCS-024"]
    subprocess.run(["bash", "-c", found["fix"].split("    #")[0]], cwd=docs.root, check=True)
    log = (docs.root / AUDIT).read_text(encoding="utf-8")
    assert log.startswith("# Audit\n\n" + START + ANSWERS) and log.endswith(current), log  # the current log is kept
    assert f"git show {held}:{AUDIT}" in found["fix"] and "back above the current ones" in found["fix"]
    assert found["message"].endswith(f"which held 2 entries before it; commit {again[:12]} (feat: implement "
                                     "table-order MVP) wrote it again without them"), found["message"]
    docs.commit("Restore the deleted audit entries", "2026-06-01T10:50:00Z")
    assert [code for code in docs.codes() if code in ("AIDLC-DOCS-020", "AIDLC-DOCS-023", "AIDLC-DOCS-024")] == []


def test_a_deleted_log_written_again_with_some_of_its_entries_is_told_how_many_it_lacks(docs: Repo) -> None:
    """No command can take the entries the current log lacks and leave the others: the step shows the deleted log and
    says which to put back, rather than check it out over the log HEAD holds."""
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    (docs.root / AUDIT).unlink()
    docs.commit("drop the log", "2026-06-01T09:15:00Z")
    again = docs.commit("upload", "2026-06-01T09:28:00Z", **{AUDIT: "# Audit\n\n" + ANSWERS + APPROVAL})
    [(_, _, _, message)] = [found for found in docs.findings() if found[0] == "AIDLC-DOCS-024"]
    assert message.endswith(f"commit {again[:12]} (upload) wrote it again without 1 of them"), message
    [fix] = [f["fix"] for f in json.loads(run_cli("validate", str(docs.root), "--format", "json").stdout)["findings"]
             if f["code"] == "AIDLC-DOCS-024"]
    assert fix.startswith("git show ") and "the 1 entry the current log lacks" in fix, fix


def test_a_state_file_written_again_unreadable_is_no_deletion_to_check_out_over_it(docs: Repo) -> None:
    """A later commit wrote the state file again, saved as UTF-16: the deletion before it is not why none is read
    (AIDLC-DOCS-015 says why), and no step checks the deleted version out over the one HEAD holds (before: 029, `git
    checkout <the commit before the deletion> -- aidlc-docs/aidlc-state.md`)."""
    approved(docs)
    docs.git("rm", "-q", STATE)
    docs.commit("drop the state", "2026-06-01T09:30:00Z")
    (docs.root / STATE).write_bytes(TICKED.encode("utf-16"))
    docs.commit("state again", "2026-06-01T09:35:00Z")
    found = json.loads(run_cli("validate", str(docs.root), "--format", "json").stdout)["findings"]
    assert ("AIDLC-DOCS-015", STATE) in [(f["code"], f["path"]) for f in found]
    assert "AIDLC-DOCS-029" not in [f["code"] for f in found], found


def test_a_finding_on_an_older_version_is_reported_where_head_holds_it(docs: Repo) -> None:
    """A late entry and a stage ticked unapproved, judged at the commits that made them, are found at HEAD's lines
    after a later commit wrote lines above them (table-order, petmed: the lines of old versions pointed at other
    entries). An entry HEAD no longer holds is at no line, its message naming the line it had."""
    docs.commit("answers", "2026-06-01T08:40:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})  # ANSWERS late
    docs.commit("done", "2026-06-01T09:25:00Z", **{STATE: TICKED})  # ticked, never approved
    intro = "# Audit\n\nThe log of the shop's delivery.\nOne entry per decision.\n\n"
    docs.commit("intro", "2026-06-01T09:30:00Z", **{AUDIT: intro + START + ANSWERS,
                                                    STATE: "# Shop\n\nAbout it.\n\n" + TICKED})
    found = {(code, path, line) for code, path, line, _ in docs.findings()}
    assert found == {("AIDLC-DOCS-025", AUDIT, 14), ("AIDLC-DOCS-028", STATE, 9)}
    docs.commit("drop", "2026-06-01T09:35:00Z", **{AUDIT: intro + START})
    late = [(line, message) for code, _, line, message in docs.findings() if code == "AIDLC-DOCS-025"]
    assert late[0][0] is None and late[0][1].endswith("(line 11 of that version; HEAD no longer holds it)")


def test_a_tick_is_found_at_the_ticked_line_of_a_stage_the_file_lists_twice(docs: Repo) -> None:
    """content-hub-mcp keeps an archived feature's table below the current one: its `Units Generation ✅` was
    pointed at the current table's `⏭️ Skipped` row, which shows no tick."""
    twice = TICKED.replace("- [x] INCEPTION - Requirements", "- [ ] INCEPTION - Requirements Analysis (SKIP)\n"
                           "\n## An earlier feature\n- [x] INCEPTION - Requirements", 1)
    docs.commit("done", "2026-06-01T09:25:00Z", **{STATE: twice})
    [(code, _, line, _)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", 8)


def test_a_tick_is_found_at_its_line_under_the_archive_heading_the_next_feature_moved_it_below(docs: Repo) -> None:
    """content-hub-mcp: a commit ticked a stage unapproved; the next feature's table, above, ticks the same stage, and
    the ticked line moved, unchanged, under `## Completed features (archive)`. The finding points at that line, not
    at the new feature's line of the same stage."""
    docs.commit("done", "2026-06-01T09:25:00Z", **{STATE: TICKED})
    [(code, _, line, _)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", 5)
    archived = TICKED.replace("## Stage Progress", "## Completed features (archive)\n\n### The shop")
    current = "# AI-DLC State\n\n## Stage Progress\n- [x] INCEPTION - Requirements Analysis (gift cards)\n\n"
    head = current + archived.removeprefix("# AI-DLC State\n\n")
    docs.commit("gift cards", "2026-06-02T09:25:00Z", **{
        STATE: head,
        AUDIT: "# Audit\n\n" + START + APPROVAL.replace("2026-06-01T09:20", "2026-06-02T09:20")})
    found = [(code, line) for code, _, line, _ in docs.findings() if code == "AIDLC-DOCS-028"]
    assert found == [("AIDLC-DOCS-028", head.split("\n").index("- [x] INCEPTION - Requirements Analysis") + 1)]


def test_a_tick_whose_text_head_holds_twice_is_found_at_its_first_line(docs: Repo) -> None:
    """todo-app: a commit ticked the only `Build and Test - COMPLETE` (no unit's: the rules run it once); HEAD holds
    that text under each unit's heading, so neither the text nor the stage of no unit points at one line: the
    finding takes the first, rather than none."""
    once = STATE_OPEN + "\n#### Unit 1: api\n- [x] Build and Test - COMPLETE\n"
    docs.commit("built", "2026-06-01T09:25:00Z", **{STATE: once})
    head = once + "\n#### Unit 2: web\n- [x] Build and Test - COMPLETE\n"
    docs.commit("built again", "2026-06-02T09:25:00Z", **{STATE: head})
    first = head.split("\n").index("- [x] Build and Test - COMPLETE") + 1
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", first)
    assert message.startswith(f"commit {docs.git('rev-parse', 'HEAD~')[:12]} (built) ticks `Build and Test - COMPLETE`")


NEXT = "\n## Stage Progress (gift cards)\n- [x] INCEPTION - Requirements Analysis (gift cards)\n"
GIFT_ANSWERS = entry("Requirements Analysis - Answers (gift cards)", "2026-06-02T09:10:00Z", "A, A, B")
GIFT_APPROVAL = entry("Requirements Analysis - Approval (gift cards)", "2026-06-02T09:20:00Z", "Approve & Continue",
                      "INCEPTION - Requirements Analysis approved")
FIRST = "# Audit\n\n" + START + ANSWERS + APPROVAL  # the first feature's log, its Requirements Analysis approved


@pytest.mark.parametrize("approved", [False, True])
def test_a_next_features_tick_needs_an_approval_logged_since_the_first_features(docs: Repo, approved: bool) -> None:
    """drpacman/BattleTrs, Davidesc2023's increments, umatoma's iteration 2: a next feature's section ticks a stage
    an earlier feature's line holds ticked. The first feature's approval, still in the log, is not the next one's."""
    first = docs.commit("approved", "2026-06-01T09:21:00Z", **{
        AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL, STATE: TICKED})
    log = "# Audit\n\n" + START + ANSWERS + APPROVAL + GIFT_ANSWERS + (GIFT_APPROVAL if approved else "")
    sha = docs.commit("gift cards", "2026-06-02T09:25:00Z", **{AUDIT: log, STATE: TICKED + NEXT})
    if approved:
        assert docs.findings() == []
        return
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", (TICKED + NEXT).count("\n"))
    assert message == (f"commit {sha[:12]} (gift cards) ticks `INCEPTION - Requirements Analysis (gift cards)` (stage "
                       f"requirements-analysis) again, and no approval of it was logged since {first[:12]} held it "
                       "ticked")


def test_a_stage_unticked_and_ticked_again_needs_an_approval_logged_since(docs: Repo) -> None:
    """A next feature that starts the state file's boxes afresh: the first feature's approval does not tick the
    second's Requirements Analysis; one logged since does."""
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: FIRST, STATE: TICKED})
    docs.commit("gift cards", "2026-06-02T09:00:00Z", **{STATE: STATE_OPEN})
    log = "# Audit\n\n" + START + ANSWERS + APPROVAL + GIFT_ANSWERS
    sha = docs.commit("gift cards done", "2026-06-02T09:15:00Z", **{AUDIT: log, STATE: TICKED})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", 5) and message.startswith(f"commit {sha[:12]} (gift cards done) ticks")
    docs.commit("gift cards approved", "2026-06-02T09:21:00Z", **{AUDIT: log + GIFT_APPROVAL})
    assert [code for code, *_ in docs.findings()] == ["AIDLC-DOCS-028"]  # logged after the tick: still said
    repo = started(docs.root.parent / "in-order")
    repo.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: FIRST, STATE: TICKED})
    repo.commit("gift cards", "2026-06-02T09:00:00Z", **{STATE: STATE_OPEN})
    repo.commit("gift cards approved", "2026-06-02T09:21:00Z", **{AUDIT: log + GIFT_APPROVAL})
    repo.commit("gift cards done", "2026-06-02T09:25:00Z", **{STATE: TICKED})
    assert repo.findings() == []


def test_a_tick_again_is_judged_since_the_earlier_tick_on_its_own_line_of_history(docs: Repo) -> None:
    """trp1-cohere-team, JuanGuerreroDev: one piece of work committed on two branches. The second commit ticks
    nothing again: the first is no ancestor of it, and each holds the approval logged with its tick."""
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: FIRST, STATE: TICKED})
    gift = {AUDIT: FIRST + GIFT_ANSWERS + GIFT_APPROVAL, STATE: TICKED + NEXT}
    docs.git("checkout", "-q", "-b", "side")
    docs.commit("gift cards", "2026-06-02T09:25:00Z", **gift)
    docs.git("checkout", "-q", "master")
    docs.commit("gift cards, again", "2026-06-02T09:26:00Z", **gift)
    assert docs.findings() == []


def test_a_tick_again_after_a_merge_is_judged_since_the_merged_branchs_tick(docs: Repo) -> None:
    """jku-win-se: each feature's branch ticks its lines and a pull request's merge brings them in; the next
    feature's tick is judged since the merged branch's, the latest on its history, not the first feature's."""
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: FIRST, STATE: TICKED})
    docs.git("checkout", "-q", "-b", "gift-cards")
    gift = docs.commit("gift cards", "2026-06-02T09:25:00Z", **{AUDIT: FIRST + GIFT_ANSWERS + GIFT_APPROVAL,
                                                               STATE: TICKED + NEXT})
    docs.git("checkout", "-q", "master")
    docs.commit("readme", "2026-06-02T09:30:00Z", **{"README.md": "# Shop\n"})
    docs.git("merge", "-q", "--no-edit", "gift-cards", date="2026-06-02T09:31:00Z")
    third = NEXT.replace("gift cards", "returns")
    docs.commit("returns", "2026-06-03T09:25:00Z", **{STATE: TICKED + NEXT + third})
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-028" and message.endswith(f"logged since {gift[:12]} held it ticked")


@pytest.mark.slow
def test_a_state_file_of_one_ticked_line_repeated_is_judged_without_a_hang(docs: Repo) -> None:
    """The hostile file: 40,000 copies of one ticked line, then a commit ticking a next feature's. Telling the line it
    inserted compared the two versions line by line (20,000 copies took 44 s); past a few thousand lines the first line
    of a new text is named instead. A hang fails the test (its timeout), not a slow run."""
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: FIRST, STATE: TICKED})
    many = TICKED + "- [x] INCEPTION - Requirements Analysis\n" * 40_000
    docs.commit("many", "2026-06-02T09:25:00Z", **{STATE: many})
    docs.commit("gift cards", "2026-06-02T09:30:00Z", **{STATE: many + NEXT})
    result = run_cli_process("validate", str(docs.root), "--format", "json", timeout=120)
    found = [f["message"] for f in json.loads(result.stdout)["findings"] if f["code"] == "AIDLC-DOCS-028"]
    assert len(found) == 1 and "(gift cards)` (stage requirements-analysis) again, " in found[0]


def test_a_stages_part_2_after_its_part_1_is_the_same_round_and_a_next_features_part_1_is_not(docs: Repo) -> None:
    """agwlvssainokuni/cherry-testtool ticks `Code Generation Part 1(Planning)`, then `Part 2` on a line of its own:
    one round of the stage, its Part 2 no tick again; a next feature's Part 1 beside both is."""
    state = STATE_OPEN.replace("- [ ] INCEPTION - Requirements Analysis\n", "")
    code = entry("Code Generation - Approval", "2026-06-01T09:20:00Z", "Approve & Continue", "CONSTRUCTION")
    docs.commit("plan", "2026-06-01T09:21:00Z", **{
        AUDIT: "# Audit\n\n" + START + code, STATE: state + "- [x] Code Generation Part 1 (Planning)\n"})
    docs.commit("code", "2026-06-01T09:40:00Z", **{
        STATE: state + "- [x] Code Generation Part 1 (Planning)\n- [x] Code Generation Part 2 (Generation)\n"})
    assert docs.findings() == []
    docs.commit("returns", "2026-06-02T09:40:00Z", **{
        STATE: state + "- [x] Code Generation Part 1 (Planning)\n- [x] Code Generation Part 2 (Generation)\n"
        "\n## Returns\n- [x] Code Generation Part 1 (Planning: returns)\n"})
    [(code_, _, _, message)] = docs.findings()
    assert code_ == "AIDLC-DOCS-028" and "(Planning: returns)` (stage code-generation) again, " in message


def test_the_line_a_next_feature_adds_is_named_not_the_earlier_line_written_on(docs: Repo) -> None:
    """hammer92/evaluadorIA: a sprint's commit writes the earlier sprint's name on its line and adds its own."""
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: FIRST, STATE: TICKED})
    head = TICKED.replace("Requirements Analysis\n", "Requirements Analysis (the shop)\n") + NEXT
    docs.commit("gift cards", "2026-06-02T09:25:00Z", **{STATE: head})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", head.count("\n")) and "(gift cards)` (stage" in message


def test_a_next_features_tick_whose_text_the_first_holds_is_found_at_its_own_line(docs: Repo) -> None:
    """Davidesc2023: each increment writes `Units Generation — Complete (2026-04-14)`; the finding on the next
    increment's tick points at its line, not the first increment's."""
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: FIRST, STATE: TICKED})
    head = TICKED + "\n## Increment 2\n- [x] Workspace Detection (2)\n- [x] INCEPTION - Requirements Analysis\n"
    docs.commit("increment 2", "2026-06-02T09:25:00Z", **{STATE: head})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", head.count("\n")) and " again, " in message


def test_a_pull_request_ticking_a_next_features_stage_on_the_first_features_approval_is_warned(docs: Repo) -> None:
    """The attack: a pull request adds a next feature's section, ticked, and logs no approval; the base's log
    approves the first feature's stage. `aidlc ci --base` says the tick stands on no approval logged since the base."""
    base = docs.commit("approved", "2026-06-01T09:21:00Z", **{
        AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL, STATE: TICKED})
    docs.commit("gift cards", "2026-06-02T09:25:00Z", **{STATE: TICKED + NEXT})
    result = run_cli("ci", "--base", base, str(docs.root), "--format", "json")
    found = [(f["code"], f["line"], f["message"]) for f in json.loads(result.stdout)["findings"]
             if f["code"] == "AIDLC-DOCS-028"]
    assert found == [("AIDLC-DOCS-028", (TICKED + NEXT).count("\n"), found[0][2])]
    assert f"again, and no approval of it was logged since {base[:12]} held it ticked" in found[0][2]
    docs.commit("gift cards approved", "2026-06-02T09:30:00Z", **{
        AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + GIFT_APPROVAL})
    assert [code for code, *_ in docs.findings(base)] == ["AIDLC-DOCS-028"]  # ticked before its approval
    docs.git("reset", "-q", "--hard", base)
    docs.commit("gift cards approved", "2026-06-02T09:21:00Z", **{
        AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + GIFT_APPROVAL})
    docs.commit("gift cards", "2026-06-02T09:25:00Z", **{STATE: TICKED + NEXT})
    assert docs.findings(base) == []


RENAMED = STATE_OPEN.replace("- [ ] INCEPTION - Requirements Analysis", "- [x] INCEPTION - Needs Gathering")


def test_a_pull_request_ticking_a_stage_under_a_name_no_rule_reads_is_refused(docs: Repo) -> None:
    """The attack: a pull request writes `- [x] INCEPTION - Needs Gathering` in place of the unticked line of
    Requirements Analysis and logs no approval. The work tree names no stage there (AIDLC-DOCS-012, a note), so no
    work-tree rule sees the tick; the history does, and `aidlc ci --base` fails. With the approval logged, it
    passes (the odd name stays a note)."""
    base = docs.git("rev-parse", "HEAD")
    docs.commit("requirements done", "2026-06-01T09:25:00Z", **{STATE: RENAMED})
    result = run_cli("ci", "--base", base, str(docs.root), "--format", "json")
    assert result.returncode == 1, result.stdout + result.stderr
    [(code, line, message)] = [(f["code"], f["line"], f["message"]) for f in json.loads(result.stdout)["findings"]
                               if f["severity"] != "info"]
    assert (code, line) == ("AIDLC-DOCS-031", 5)
    assert "ticks `INCEPTION - Needs Gathering` in place of `INCEPTION - Requirements Analysis`" in message
    assert message.endswith("and its audit log holds no approval of it")
    assert docs.codes() == ["AIDLC-DOCS-031"]  # validate reads HEAD's whole history the same way
    docs.git("reset", "-q", "--hard", base)
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    docs.commit("requirements done", "2026-06-01T09:25:00Z", **{STATE: RENAMED})
    assert run_cli("ci", "--base", base, str(docs.root)).returncode == 0


def test_a_pull_request_renaming_a_stage_s_line_over_two_commits_is_refused(docs: Repo) -> None:
    """The same attack split in two: one commit deletes the unticked line, the next writes the ticked one where it
    stood. `aidlc ci --base` reads the base's state file against HEAD's and names the commit that wrote the line."""
    base = docs.git("rev-parse", "HEAD")
    docs.commit("drop a line", "2026-06-01T09:22:00Z",
                **{STATE: STATE_OPEN.replace("- [ ] INCEPTION - Requirements Analysis\n", "")})
    writer = docs.commit("requirements done", "2026-06-01T09:25:00Z", **{STATE: RENAMED})
    result = run_cli("ci", "--base", base, str(docs.root), "--format", "json")
    assert result.returncode == 1, result.stdout + result.stderr
    [(code, line, message)] = [(f["code"], f["line"], f["message"]) for f in json.loads(result.stdout)["findings"]
                               if f["severity"] != "info"]
    assert (code, line) == ("AIDLC-DOCS-031", 5) and message.startswith(f"commit {writer[:12]} (requirements done)")


OPEN_STORIES = STATE_OPEN.replace("User Stories (SKIP)", "User Stories")


@pytest.mark.parametrize(("before", "after", "found"), [
    # Two lines renamed and ticked in place: each is its stage's tick.
    (OPEN_STORIES, OPEN_STORIES.replace("- [ ] INCEPTION - Requirements Analysis\n- [ ] INCEPTION - User Stories",
                                        "- [x] INCEPTION - Needs Gathering\n- [x] INCEPTION - Journeys"), 2),
    # The stage's line rewritten into a block of work items (Jeldo/NextGenPlatformUnni): a restructuring, no
    # renaming; and a line that names the stage still stands beside a ticked line of another name.
    (STATE_OPEN, STATE_OPEN.replace("- [ ] INCEPTION - Requirements Analysis",
                                    "- [x] Interviews\n- [x] Survey\n- [ ] Report"), 0),
    (STATE_OPEN, RENAMED + "- [ ] Requirements Analysis (again, for the admin)\n", 0),
    # Renamed into a stage that waits for no approval: no rule asks one of it, so it is the replaced stage's tick.
    (STATE_OPEN, STATE_OPEN.replace("- [ ] INCEPTION - Requirements Analysis",
                                    "- [x] INCEPTION - Workspace Detection (requirements)"), 1),
    # The rename padded with 3,000 lines, past what difflib compares: the line is still seen, its neighbours kept.
    (STATE_OPEN, RENAMED + "\n" * 3_000, 1), (STATE_OPEN + "- [ ] x\n" * 3_000, RENAMED + "- [ ] x\n" * 3_000, 1)])
def test_only_a_line_edited_in_place_of_a_stage_s_line_that_names_it_no_more_is_its_tick(
        docs: Repo, before: str, after: str, found: int) -> None:
    docs.commit("state before", "2026-06-01T09:20:00Z", **{STATE: before})
    docs.commit("state edited", "2026-06-01T09:25:00Z", **{STATE: after})
    assert docs.codes() == ["AIDLC-DOCS-031"] * found


def test_a_local_time_written_as_utc_is_named_as_such(docs: Repo) -> None:
    """Seoul's 18:00 written `18:00Z` is 9 hours after a commit at 18:10+09:00: the error says what reads true
    (ai-dlc-order, kiro_project, cheongYak-radar: most entries dated after their commits are this)."""
    late = entry("Requirements Analysis - Answers", "2026-06-01T18:00:00Z", "A, B, C")
    docs.commit("answers", "2026-06-01T18:10:00+09:00", **{AUDIT: "# Audit\n\n" + START + late})
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-025"
    assert message.endswith("is dated 530 minutes after commit " + docs.git("rev-parse", "HEAD")[:12] + " (answers), "
                            "which added it at 2026-06-01T18:10:00+09:00; read in the committer's zone (+09:00) it is "
                            "10 minutes before the commit: a local time written as UTC? Write the zone (+09:00), or "
                            "the time in UTC")


def test_a_local_time_written_as_utc_by_several_commits_is_one_finding(docs: Repo) -> None:
    """agwlvssainokuni/MasterMeister2 writes Tokyo's time with a `Z` in the entries of 136 commits: one mistake, one
    finding naming them all; an entry dated after its commit in no zone's reading is still its own."""
    log = "# Audit\n\n" + START
    for hour in (18, 19, 20):
        log += entry(f"Stage {hour} - Answers", f"2026-06-01T{hour}:00:00Z", "A")
        docs.commit(f"answers {hour}", f"2026-06-01T{hour}:10:00+09:00", **{AUDIT: log})
    late = entry("Workflow Planning - Approval", "2026-06-02T09:00:00Z", "Approve & Continue")
    docs.commit("plan", "2026-06-01T21:10:00+09:00", **{AUDIT: log + late})
    found = [(line, message) for code, _, line, message in docs.findings() if code == "AIDLC-DOCS-025"]
    lines = (log + late).split("\n")
    assert [line for line, _ in found] == [lines.index("## Stage 18 - Answers") + 1,
                                           lines.index("## Workflow Planning - Approval") + 1]
    first = docs.git("rev-parse", "HEAD~3")[:12]
    assert found[0][1] == (f"3 entries of 3 commits, the first `Stage 18 - Answers` (2026-06-01T18:00:00Z) by "
                           f"commit {first}, are dated 530 minutes after the commits that added them; read in the "
                           "committers' zone (+09:00) each falls before its commit (or within the clock difference): a "
                           "local time written as UTC? Write the zone (+09:00), or the time in UTC")
    # a heading as long as one is shown (60 characters), a wider span and larger counts still fit, whole
    assert len(found[0][1]) + 60 - len("Stage 18 - Answers") + len("15 to 540 ") + len("1590 1360 ") <= MAX_MESSAGE
    assert found[1][1].startswith("the entry `Workflow Planning - Approval` (2026-06-02T09:00:00Z) is dated")


@pytest.mark.parametrize(("stamps", "said"), [
    # socar-rieul/aidlc-modu-2: "-2 to 3 minutes before the commit"
    (("18:07:00", "18:12:00"), "they are within 3 minutes of the commit"),
    (("18:13:00",), "it is within 3 minutes of the commit")])
def test_a_local_time_within_the_clock_difference_after_the_commit_is_said_so(docs: Repo, stamps: tuple[str, ...],
                                                                               said: str) -> None:
    late = "".join(entry(f"Requirements Analysis - Answers {n}", f"2026-06-01T{at}Z", "A")
                   for n, at in enumerate(stamps))
    docs.commit("answers", "2026-06-01T18:10:00+09:00", **{AUDIT: "# Audit\n\n" + START + late})
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-025" and f"read in the committer's zone (+09:00) {said}: a local time" in message


def test_times_that_read_in_the_zone_before_the_log_s_last_version_are_not_called_a_local_time(docs: Repo) -> None:
    # kai-cupist/ai-dlc, caujms123: entries stamped `12:00:00Z` were added to a log committed at 14:20+09:00; read as
    # Seoul's 12:00 they were written before that version, which does not hold them: not a clock's time at all.
    docs.commit("answers", "2026-06-01T18:20:00+09:00", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    invented = entry("Requirements Analysis - Approval", "2026-06-01T17:00:00Z", "Approve & Continue")
    docs.commit("approval", "2026-06-01T19:00:00+09:00", **{AUDIT: "# Audit\n\n" + START + ANSWERS + invented})
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-025" and message.endswith("which added it at 2026-06-01T19:00:00+09:00"), message
    local = entry("Workflow Planning - Approval", "2026-06-01T19:10:00Z", "Approve & Continue")
    docs.commit("plan", "2026-06-01T19:20:00+09:00", **{AUDIT: "# Audit\n\n" + START + ANSWERS + invented + local})
    assert "10 minutes before the commit: a local time written as UTC?" in docs.findings()[-1][3]


def test_a_long_heading_and_subject_are_cut_so_the_message_keeps_its_facts(docs: Repo) -> None:
    """msys2-runtime-appcontainer-support's 150-character heading and HCSES's long subject made AIDLC-DOCS-025's
    message past its length, and the cut in its middle took the minutes and the commit's time."""
    heading = "Unit 1b - Round 13 Result: 2 Fixes Confirmed (Pseudo-Handle + Recovered Lost Round-10 Fix), New " \
              "Precisely-Localized Wall Found; Process Risk Identified"
    late = entry(heading, "2026-06-01T18:00:00Z", "ok")
    subject = "feat: HCSES initial release - High-Confidence Stock Entry Signal engine"
    docs.commit(subject, "2026-06-01T18:10:00+09:00", **{AUDIT: "# Audit\n\n" + START + late})
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-025" and " ... " not in message, message
    assert message.startswith(f"the entry `{heading[:57]}...` (2026-06-01T18:00:00Z) is dated 530 minutes after commit "
                              f"{docs.git('rev-parse', 'HEAD')[:12]} ({subject[:47]}...), which added it at "
                              "2026-06-01T18:10:00+09:00; read in the committer's zone"), message


def test_a_midnight_stamp_after_its_commit_is_not_called_a_local_time(docs: Repo) -> None:
    """msys2-runtime-appcontainer-support dates an entry `2026-07-23T00:00:00Z` and commits it at 01:14+03:00: a date
    with a placeholder time (AIDLC-DOCS-010), which read in the committer's zone only happens to fall before."""
    late = entry("Unit 1b - Round 13 Result", "2026-06-02T00:00:00Z", "ok")
    docs.commit("round 13", "2026-06-02T01:14:00+03:00", **{AUDIT: "# Audit\n\n" + START + late})
    messages = [message for code, _, _, message in docs.findings() if code == "AIDLC-DOCS-025"]
    assert len(messages) == 1 and messages[0].endswith("which added it at 2026-06-02T01:14:00+03:00"), messages


def test_the_late_entries_of_one_commit_are_one_error_at_the_first(docs: Repo) -> None:
    """aidlc-demo-showcase's one commit added 57 entries dated after it, HCSES's 39: one cause, one error, at the
    first of them, naming how many and how late; the local-time note when every one reads true in the committer's
    zone."""
    late = "".join(entry(f"Stage {n}", f"2026-06-01T18:0{n}:00Z", "ok") for n in range(3))
    docs.commit("session", "2026-06-01T18:10:00+09:00", **{AUDIT: "# Audit\n\n" + START + late})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-025", 11)
    assert message == ("3 entries, the first `Stage 0` (2026-06-01T18:00:00Z), are dated 530 to 532 minutes after "
                       f"commit {docs.git('rev-parse', 'HEAD')[:12]} (session), which added them at "
                       "2026-06-01T18:10:00+09:00; read in the committer's zone (+09:00) they are 8 to 10 minutes "
                       "before the commit: a local time written as UTC? Write the zone (+09:00), or the time in UTC")


def test_a_merge_keeping_the_other_sides_version_of_an_entry_edited_it(docs: Repo) -> None:
    """Both sides wrote the entry of one moment, in other words; the merge kept one side's. That is an edit of the
    other side's entry (aidlc-result's merge 23537d1), not a deletion."""
    docs.git("checkout", "-q", "-b", "side")
    side = entry("Functional Design - Unit 2 Start", "2026-06-01T09:20:00Z", "go", "CONSTRUCTION - 12 questions")
    docs.commit("side", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + side})
    docs.git("checkout", "-q", "master")
    main = side.replace("12 questions", "design started")
    docs.commit("main", "2026-06-01T09:22:00Z", **{AUDIT: "# Audit\n\n" + START + main})
    with pytest.raises(subprocess.CalledProcessError):
        docs.git("merge", "-q", "side", date="2026-06-01T09:30:00Z")
    docs.commit("merge side", "2026-06-01T09:30:00Z", **{AUDIT: "# Audit\n\n" + START + side})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-021", 11)
    assert "edited the entry `Functional Design - Unit 2 Start` (2026-06-01T09:20:00Z)" in message
    # What changed, since the heading and the time did not: the line a reader looks for.
    assert message.endswith("its line 5 read `**Context**: CONSTRUCTION - design started` and now reads "
                            "`**Context**: CONSTRUCTION - 12 questions`")


def test_an_edit_at_the_end_of_a_long_line_is_shown_where_it_differs(docs: Repo) -> None:
    # ai-dlc (kai-cupist) changed `poetry` to `uv` at the end of a long line: both sides read the same 77 characters.
    stack = "**AI Response**: FastAPI, SQLAlchemy 2.0, Alembic, structlog, slowapi, pydantic-settings, managed by "
    first = entry("NFR Requirements", "2026-06-01T09:10:00Z").replace("**AI Response**: Recorded.", stack + "poetry")
    docs.commit("nfr", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + first})
    docs.commit("uv", "2026-06-01T09:20:00Z", **{AUDIT: "# Audit\n\n" + START + first.replace("poetry", "uv")})
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-021"
    assert message.endswith("its line 4 read `...pydantic-settings, managed by poetry` and now reads "
                            "`...pydantic-settings, managed by uv`"), message


def test_an_edited_entry_s_time_is_judged_against_the_commit_that_added_it_at_head_s_line(docs: Repo) -> None:
    # ai-dlc (kai-cupist): an entry edited later was charged to the editing commit as an entry it added, and its own
    # commit's finding was reported at no line ("HEAD no longer holds it").
    late = entry("Requirements Analysis - Answers", "2026-06-01T09:30:00Z", "A, B")
    added = docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + late})
    edited = late.replace("Recorded.", "Recorded; requirements.md written.")
    docs.commit("reword", "2026-06-01T10:30:00Z", **{AUDIT: "# Audit\n\n" + START + edited})
    found = [(code, line, message) for code, _, line, message in docs.findings()]
    assert [(code, line) for code, line, _ in found] == [("AIDLC-DOCS-021", 11), ("AIDLC-DOCS-025", 11)]
    assert f"after commit {added[:12]} (answers)" in found[1][2] and "no longer holds" not in found[1][2]


def test_an_entry_split_by_a_heading_put_into_it_is_said_so(docs: Repo) -> None:
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    split = ANSWERS.replace("**Context**:", "## Note\n**Timestamp**: 2026-06-01T09:14:00Z\n**Context**:")
    docs.commit("note", "2026-06-01T09:15:00Z", **{AUDIT: "# Audit\n\n" + START + split})
    edited = [message for code, _, _, message in docs.findings() if code == "AIDLC-DOCS-021"]
    assert len(edited) == 1 and edited[0].endswith(
        "its lines from line 5 on (`**Context**: INCEPTION`) are no longer part of it: a heading inserted into it, "
        "or lines deleted from its end"), edited


def test_an_emptied_log_is_an_error(docs: Repo) -> None:
    docs.commit("restart", "2026-06-01T09:30:00Z", **{AUDIT: "# Audit\n"})
    assert docs.codes() == ["AIDLC-DOCS-024"]


def test_a_merge_that_empties_a_log_whose_sides_both_hold_entries_empties_it(docs: Repo) -> None:
    """Only a merge that kept a side's log holding no entry dropped the other side's: emptying both is a removal."""
    docs.git("checkout", "-q", "-b", "side")
    docs.commit("side", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    docs.git("checkout", "-q", "master")
    docs.commit("main", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + APPROVAL})
    docs.git("merge", "-q", "--no-commit", "-s", "ours", "side")
    merge = docs.commit("merge side", "2026-06-01T09:30:00Z", **{AUDIT: "# Audit\n"})
    [(code, _, _, message)] = docs.findings()
    assert code == "AIDLC-DOCS-024"
    assert message == f"commit {merge[:12]} (merge side) emptied {AUDIT}, which held 3 entries before it"


def test_a_timestamp_after_its_commit_is_an_error_and_one_within_the_clock_tolerance_is_not(docs: Repo) -> None:
    late = docs.commit("answers", "2026-06-01T08:40:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    found = docs.findings()  # START (08:58) was committed at 09:00; ANSWERS (09:10) at 08:40
    assert [(code, line) for code, _, line, _ in found] == [("AIDLC-DOCS-025", 11)]
    assert f"dated 30 minutes after commit {late[:12]} (answers)" in found[0][3]
    repo = Repo(docs.root.parent / "close")
    repo.commit("start", "2026-06-01T09:06:00Z", **{AUDIT: "# Audit\n\n" + ANSWERS})  # 4 minutes ahead: a clock
    assert repo.findings() == []


def test_a_placeholder_clock_before_the_first_commit_is_a_warning(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "placeholder")
    repo.commit("start", "2026-08-03T10:00:00Z",
                **{AUDIT: "# Audit\n\n" + entry("Workspace Detection", "2025-01-01T00:00:00Z")})
    [(code, _, line, message)] = repo.findings()
    assert (code, line) == ("AIDLC-DOCS-026", 3) and "579 days before the repository's first commit" in message
    assert every_rule()[code].severity == Severity.warning  # git cannot tell a placeholder from work done before it


def test_the_entries_one_commit_imports_from_before_the_repository_are_one_finding(tmp_path: Path) -> None:
    # namakemono-no-mori's first commit brought 89 such entries: one cause, one finding, at the first of them.
    repo = Repo(tmp_path / "imported")
    log = "".join(entry(f"Stage {n}", f"2026-07-{20 + n}T09:00:00Z") for n in range(4))
    sha = repo.commit("import the log kept before git", "2026-08-03T10:00:00Z", **{AUDIT: "# Audit\n\n" + log})
    [(code, _, line, message)] = repo.findings()
    assert (code, line) == ("AIDLC-DOCS-026", 3)
    assert message == (f"4 entries, the first `Stage 0` (2026-07-20T09:00:00Z), added by commit {sha[:12]} (import the "
                       "log kept before git), are dated 11 to 14 days before the repository's first commit "
                       "(2026-08-03T10:00:00+00:00)")


def test_one_timestamp_on_entries_of_different_commits_is_a_warning(docs: Repo) -> None:
    same = ANSWERS.replace("09:10:00Z", "08:58:00Z")
    second = docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + same})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-027", 11)
    assert f"added by commit {second[:12]} (answers), carries the timestamp of the entry at line 3" in message
    repo = Repo(docs.root.parent / "one-commit")  # one commit writing two entries at one moment: not this rule
    repo.commit("start", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + same})
    assert repo.findings() == []
    # cu-aaii: entries of many commits dated one day `T00:00:00Z`: one finding for the moment, not one per entry
    third = APPROVAL.replace("09:20:00Z", "08:58:00Z")
    docs.commit("approval", "2026-06-01T09:22:00Z", **{AUDIT: "# Audit\n\n" + START + same + third})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-027", 11)
    assert message == "3 entries, added by 3 commits, carry the timestamp 2026-06-01T08:58:00Z (lines 3, 11, 19)"


def test_a_stage_ticked_without_an_approval_in_the_log_is_a_warning(docs: Repo) -> None:
    sha = docs.commit("done", "2026-06-01T09:15:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS, STATE: TICKED})
    [(code, path, line, message)] = docs.findings()
    assert (code, path, line) == ("AIDLC-DOCS-028", STATE, 5)
    assert f"commit {sha[:12]} (done) ticks `INCEPTION - Requirements Analysis`" in message
    repo = Repo(docs.root.parent / "approved")  # the approval in the same commit; a skipped stage needs none
    repo.commit("start", "2026-06-01T09:30:00Z", **{
        AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL,
        STATE: TICKED.replace("- [ ] INCEPTION - User Stories", "- [x] INCEPTION - User Stories")})
    assert repo.findings() == []


def test_a_tick_never_approved_is_003_s_and_one_approved_later_is_028_s(docs: Repo) -> None:
    # A stage the work tree holds ticked with no approval at all is an error of AIDLC-DOCS-003; the commit that
    # ticked it said again as 028 was 259 of 330 of its warnings on 93 public checkouts. 028 keeps its own case: a tick
    # committed before the approval that came later.
    docs.commit("done", "2026-06-01T09:15:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS, STATE: TICKED})
    validated = json.loads(run_cli("validate", str(docs.root), "--format", "json").stdout)["findings"]
    assert [(f["code"], f["line"]) for f in validated] == [("AIDLC-DOCS-003", 5)]
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    validated = json.loads(run_cli("validate", str(docs.root), "--format", "json").stdout)["findings"]
    assert [(f["code"], f["line"]) for f in validated] == [("AIDLC-DOCS-028", 5)]


@pytest.mark.parametrize("command", ["validate", "status"])
def test_the_logs_are_read_for_approvals_once_for_003_028_and_status(docs: Repo, command: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # AIDLC-DOCS-003, the ticks' history rule (028) and status's citations judge the same approvals: each entry is
    # read once a run, however many of them read it (read again by each, they were half of a validation of a
    # 5,774-line log). A reading is one `_Said` made.
    docs.commit("done", "2026-06-01T09:15:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS, STATE: TICKED})
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    readings: list[object] = []
    real = docs_approvals._Said

    def counted(*fields: object) -> object:
        readings.append(fields)
        return real(*fields)

    monkeypatch.setattr(docs_approvals, "_Said", counted)
    result = run_cli(command, str(docs.root), "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    assert len(readings) == 3  # START, ANSWERS and APPROVAL, each once


def test_a_tick_whose_unit_head_reads_otherwise_is_found_at_its_line(docs: Repo) -> None:
    # SUHYUNSHIM/aidlc-0204: a heading `#### Unit 1: Customer Frontend` added later over the lines a commit ticked
    # gives them a unit; the finding still points at the line the commit ticked, as HEAD holds it.
    ticked = STATE_OPEN + "\n### CONSTRUCTION PHASE\n- [x] Code Generation (COMPLETED - shop-web)\n"
    docs.commit("code", "2026-06-01T09:15:00Z", **{STATE: ticked})
    unit = ticked.replace("- [x] Code", "#### Unit 1: Shop Web\n- [x] Code")
    docs.commit("units", "2026-06-01T09:16:00Z", **{STATE: unit})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", 10) and "HEAD no longer holds it" not in message


@pytest.mark.parametrize(("said", "approved"), [
    ("Aprobar y continuar", True), ("Apruebo el plan", True), ("aprovado", True), ("Approve & Continue", True),
    ("승인합니다", True), ("Continue to Next Stage", True),  # the rules name this option the approval
    ("I do not approve: changes requested", False), ("I don't approve this yet", False), ("No apruebo", False),
    ("A, B, C", False)])
def test_the_persons_own_words_under_the_stages_heading_can_approve_it(docs: Repo, said: str,
                                                                        approved: bool) -> None:
    """Neither heading nor context says approved; the person's answer does, in their language, or does not."""
    answer = entry("Requirements Analysis", "2026-06-01T09:20:00Z", said, "INCEPTION")
    docs.commit("done", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + START + answer, STATE: TICKED})
    assert docs.codes() == ([] if approved else ["AIDLC-DOCS-028"])


@pytest.mark.parametrize("between", [False, True])
def test_the_persons_words_starting_the_stage_waited_for_approve_the_stage_before(docs: Repo, between: bool) -> None:
    # The entry before waits for the approval to proceed to User Stories; the person's "go" starts User Stories.
    done = entry("Requirements Analysis - Complete", "2026-06-01T09:15:00Z", "A, B, C",
                 "Requirements Analysis complete. Waiting for user approval to proceed to User Stories.")
    start = entry("User Stories - Stage Start", "2026-06-01T09:20:00Z", "go", "Starting User Stories")
    other = entry("Team note", "2026-06-01T09:18:00Z", "lunch at noon", "NOTE") if between else ""
    docs.commit("done", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + START + done + other + start,
                                                     STATE: TICKED})
    assert docs.codes() == (["AIDLC-DOCS-028"] if between else [])  # only the next entry answers the wait


def test_a_pending_approval_is_not_an_approval(docs: Repo) -> None:
    pending = APPROVAL.replace('"Approve & Continue"', "(pending)")
    docs.commit("done", "2026-06-01T09:25:00Z", **{
        AUDIT: "# Audit\n\n" + START + pending,
        STATE: TICKED})
    assert docs.codes() == ["AIDLC-DOCS-028"]


@pytest.mark.parametrize(("heading", "said", "context"), [
    ("Requirements Analysis - Artifacts Generated", "done", "Requirements Analysis complete. Awaiting user approval."),
    ("Requirements Analysis - 完了", "次へ", "INCEPTION - Requirements Analysis 完了・承認待ち"),
    ("Requirements Analysis - 완료", "계속", "INCEPTION - Requirements Analysis 완료; 승인 게이트 대기"),
    ("Requirements Analysis - Approved", "（承認を受けて次の段階を開始）", "INCEPTION")])
def test_an_approval_awaited_or_an_agents_note_is_not_an_approval(docs: Repo, heading: str, said: str,
                                                                 context: str) -> None:
    """"Awaiting approval" says the word and means the opposite (aws-ai-dlc-workshop, aws-hackathon-2026); a
    User Input in full-width parentheses is the agent's note of what happened, not the person's words."""
    docs.commit("done", "2026-06-01T09:25:00Z", **{
        AUDIT: "# Audit\n\n" + START + entry(heading, "2026-06-01T09:20:00Z", said, context), STATE: TICKED})
    assert docs.codes() == ["AIDLC-DOCS-028"]


def test_since_judges_only_the_commits_after_it(docs: Repo) -> None:
    docs.commit("tidy", "2026-06-01T09:10:00Z", **{AUDIT: "# Audit\n\n"})  # before the base: not this range's
    base = docs.commit("restart", "2026-06-01T09:11:00Z", **{AUDIT: "# Audit\n\n" + ANSWERS})
    assert docs.codes(base) == []
    docs.commit("rewrite", "2026-06-01T09:30:00Z", **{AUDIT: "# Audit\n\n" + APPROVAL})
    assert docs.codes(base) == ["AIDLC-DOCS-020"]


def test_aidlc_ci_base_refuses_a_pull_request_that_rewrites_the_audit_log(docs: Repo) -> None:
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    docs.git("branch", "base")
    docs.commit("append", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    clean = run_cli("ci", str(docs.root), "--base", "base")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    docs.commit("rewrite", "2026-06-01T09:30:00Z", **{AUDIT: "# Audit\n\n" + START + APPROVAL})
    done = run_cli("ci", str(docs.root), "--base", "base", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert '"code": "AIDLC-DOCS-020"' in done.stdout and '"aidlc-docs-history"' in done.stdout


def test_a_pull_request_that_deletes_many_entries_gets_one_finding_whose_step_shows_them(docs: Repo) -> None:
    """choiwoo12/aidlc-workshop-18team: one commit dropped 64 entries of the log: 64 errors said one thing. One
    finding per commit and log names how many, the first and the last, and the commits that added them; the step
    it gives prints the log that held them."""
    notes = [entry(f"Code Generation - Note {n}", f"2026-06-01T09:2{n}:00Z", f"note {n}") for n in range(3)]
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    added = docs.commit("notes", "2026-06-01T09:29:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + "".join(notes)})
    docs.git("branch", "base")
    docs.commit("tidy", "2026-06-01T09:40:00Z", **{AUDIT: "# Audit\n\n" + START + notes[1]})
    done = run_cli("ci", str(docs.root), "--base", "base", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    found = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "AIDLC-DOCS-020"]
    assert len(found) == 1, found
    message = found[0]["message"]
    assert f"deleted 3 entries that {added[:12]} held, from `Requirements Analysis - Answers`" in message
    assert "to `Code Generation - Note 2` (2026-06-01T09:22:00Z) at line " in message
    step = found[0]["fix"].split("    #")[0].split()
    assert step[:2] == ["git", "show"] and "entries as they were" in found[0]["fix"]
    shown = subprocess.run(step, cwd=docs.root, capture_output=True, text=True, check=True).stdout
    assert "## Code Generation - Note 0" in shown and "## Requirements Analysis - Answers" in shown
    # Judged over the whole history, the finding names the commits that added them (the answers, then the notes).
    [whole] = [f["message"] for f in json.loads(run_cli("validate", str(docs.root), "--format", "json").stdout)[
        "findings"] if f["code"] == "AIDLC-DOCS-020"]
    answers = docs.git("rev-parse", "base~1")
    assert whole.endswith(f", which commits {answers[:12]} and {added[:12]} added"), whole


def test_deleted_copies_of_one_entry_are_each_named_at_their_own_line(docs: Repo) -> None:
    """MatthWong/roost-store's log held one entry written four times, word for word (lines 51, 59, 67, 75); a revert
    deleted the four, and the finding said "from ... at line 51 to ... at line 51": every copy was read as the
    first. Each deleted copy is its own."""
    request = entry("New Feature Request", "2026-06-01T09:25:00Z", "add payments")
    log = "# Audit\n\n" + START + ANSWERS + request * 4
    docs.commit("requests", "2026-06-01T09:26:00Z", **{AUDIT: log})
    lines = [n for n, text in enumerate(log.splitlines(), 1) if text == "## New Feature Request"]
    docs.commit("revert", "2026-06-01T09:30:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    [message] = [message for code, _, _, message in docs.findings() if code == "AIDLC-DOCS-020"]
    assert f"from `New Feature Request` (2026-06-01T09:25:00Z) at line {lines[0]} to `New Feature Request` " \
           f"(2026-06-01T09:25:00Z) at line {lines[3]}" in message, message
    # One copy written back: the words the four held are in the log again, and nothing of them is lost.
    docs.commit("one back", "2026-06-01T09:31:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + request})
    assert "AIDLC-DOCS-020" not in docs.codes()


def test_a_commit_ticking_a_line_that_lists_two_units_needs_an_approval_of_each(docs: Repo) -> None:
    """`Code Generation - Unit 1 api + Unit 2 web`, ticked by one commit whose audit log approves unit 1's code
    only: the tick of unit 2's is found at that line."""
    coded = entry("Code Generation - Unit 1 Approval", "2026-06-01T09:22:00Z", "Approve & Continue",
                  "CONSTRUCTION - Unit 1 api code generation approved")
    state = TICKED + "- [x] CONSTRUCTION - Code Generation - Unit 1 api + Unit 2 web\n"
    docs.commit("coded", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + coded,
                                                   STATE: state})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", state.split("\n").index(state.split("\n")[-2]) + 1)
    assert "unit 2" in message and "unit 1" not in message


def test_a_commit_ticking_a_later_box_of_a_line_of_several_is_judged(docs: Repo) -> None:
    """DallYeo_FE's shape, `- [ ] Functional Design / [x] Code Generation`: a commit that ticks only a later box of
    the line ticks that part's stage; no line of it starts with a ticked box."""
    state = TICKED + "\n### CONSTRUCTION PHASE\n- [ ] Functional Design / [ ] Code Generation\n"
    docs.commit("plan", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL, STATE: state})
    docs.commit("code", "2026-06-01T09:40:00Z", **{STATE: state.replace("/ [ ] Code", "/ [x] Code")})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", len(state.split("\n")) - 1)
    assert "(stage code-generation" in message


def test_a_tick_naming_its_unit_by_folder_is_that_unit_s(docs: Repo) -> None:
    """ai-dlc (kai-cupist) ticks `Code Generation: admin-web` after `Code Generation: shop-api`: the history read
    both lines as one stage of no unit, so the second tick was taken as held already and never judged."""
    units = {f"{DOCS}/construction/{unit}/code/code-summary.md": "# Code\n" for unit in ("shop-api", "admin-web")}
    state = TICKED + "- [x] Code Generation: shop-api\n"
    docs.commit("api", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL,
                                                 STATE: state, **units})
    docs.commit("web", "2026-06-01T09:40:00Z", **{STATE: state + "- [x] Code Generation: admin-web\n"})
    found = [(code, line, message) for code, _, line, message in docs.findings()]
    assert [(code, line) for code, line, _ in found] == [("AIDLC-DOCS-028", len(state.split("\n")) - 1),
                                                         ("AIDLC-DOCS-028", len(state.split("\n")))]
    assert "(stage code-generation, unit shop-api)" in found[0][2]
    assert "(stage code-generation, unit admin-web)" in found[1][2]


def test_a_commit_s_ticks_are_judged_as_aidlc_docs_003_judges_the_work_tree(docs: Repo) -> None:
    """The tick and the work tree read one way: an approval naming another unit's folder approves nothing of this
    one's (Mock-Court's `B3-ai-gateway` approvals stood for `B1-foundation`'s ticks in AIDLC-DOCS-028 alone), and
    the person's words under the stage's heading approve it where 003 says so, as `aidlc status` shows."""
    units = {f"{DOCS}/construction/{unit}/code/code-summary.md": "# Code\n" for unit in ("shop-api", "admin-web")}
    coded = entry("Code Generation - shop-api Approval", "2026-06-01T09:22:00Z", "Approve & Continue",
                  "CONSTRUCTION - shop-api code generation approved")
    state = TICKED + "- [x] Code Generation: admin-web\n"
    docs.commit("web", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + coded,
                                                 STATE: state, **units})
    assert docs.codes() == ["AIDLC-DOCS-028"]
    validated = run_cli("validate", str(docs.root), "--format", "json").stdout
    assert '"code": "AIDLC-DOCS-003"' in validated and "Code Generation of unit admin-web is ticked" in validated
    web = entry("Code Generation - admin-web", "2026-06-01T09:40:00Z", "looks good, ship it", "CONSTRUCTION")
    docs.commit("web approved", "2026-06-01T09:45:00Z",
                **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + coded + web})
    state_2 = state + "- [x] Code Generation: shop-api\n"
    docs.commit("api", "2026-06-01T09:50:00Z", **{STATE: state_2})
    assert docs.codes() == ["AIDLC-DOCS-028"]  # the first commit's; the second's tick stands on shop-api's approval
    validated = run_cli("validate", str(docs.root), "--format", "json").stdout
    assert '"code": "AIDLC-DOCS-003"' not in validated


def test_a_tick_for_every_unit_needs_each_unit_s_approval_as_003_asks(docs: Repo) -> None:
    """`Code Generation (COMPLETED — all units)` with only unit 1's approval: AIDLC-DOCS-003 names unit 2, and the
    commit's tick is judged the same way, unit by unit."""
    units = {f"{DOCS}/construction/unit-{n}/code/code-summary.md": "# Code\n" for n in (1, 2)}
    coded = entry("Code Generation - Unit 1 Approval", "2026-06-01T09:22:00Z", "Approve & Continue",
                  "CONSTRUCTION - Unit 1 code generation approved")
    state = TICKED + "- [x] Code Generation (COMPLETED — all units)\n"
    docs.commit("code", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL + coded,
                                                  STATE: state, **units})
    [(code, _, line, message)] = docs.findings()
    assert (code, line) == ("AIDLC-DOCS-028", len(state.split("\n")) - 1)
    assert "(stage code-generation, unit 2)" in message
    validated = run_cli("validate", str(docs.root), "--format", "json").stdout
    assert "Code Generation of unit 2 is ticked" in validated


@pytest.mark.parametrize("again", ["reordered", "edited"])
def test_a_log_deleted_and_written_again_cannot_reorder_or_edit_its_entries_unseen(docs: Repo, again: str) -> None:
    """A pull-request author who deletes the log and adds it back in the next commit, an approval moved above the
    tick's time or an answer reworded: the order and edit rules never see a parent holding the log, so the deletion
    stands (through `aidlc ci --base`)."""
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    docs.git("branch", "base")
    (docs.root / AUDIT).unlink()
    docs.commit("drop the log", "2026-06-01T09:20:00Z")
    answers = ANSWERS if again == "reordered" else ANSWERS.replace("A, B, C", "approved")
    log = START + APPROVAL + answers if again == "reordered" else START + answers + APPROVAL
    docs.commit("Add files via upload", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + log})
    done = run_cli("ci", str(docs.root), "--base", "base", "--format", "json")
    assert done.returncode == 1 and '"code": "AIDLC-DOCS-024"' in done.stdout, done.stdout


def test_another_branch_s_version_of_a_deleted_log_forgives_nothing(docs: Repo) -> None:
    """master deletes the log while a branch that never lost it appends to it; the merge keeps the deletion: the
    branch's version does not write the log again, and the deletion stands."""
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    (docs.root / AUDIT).unlink()
    docs.commit("drop the log", "2026-06-01T09:20:00Z")
    docs.git("checkout", "-q", "-b", "side", "HEAD~1")
    docs.commit("side", "2026-06-01T09:25:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    docs.git("checkout", "-q", "master")
    with pytest.raises(subprocess.CalledProcessError):  # modify/delete: a person resolves it
        docs.git("merge", "-q", "side", date="2026-06-01T09:30:00Z")
    docs.git("rm", "-q", AUDIT)
    docs.commit("merge side", "2026-06-01T09:30:00Z")
    removed = [message for code, _, _, message in docs.findings() if code == "AIDLC-DOCS-024"]
    assert any("(drop the log) deleted aidlc-docs/audit.md, which held 2 entries" in m for m in removed), removed
    assert any("(merge side) deleted aidlc-docs/audit.md, which held 1 entry" in m for m in removed), removed


# -- a docs folder kept behind a symbolic link --------------------------------------------------------------------
def approved(docs: Repo) -> None:
    docs.commit("approved", "2026-06-01T09:21:00Z",
                **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL, STATE: TICKED})


@pytest.mark.parametrize("moved", ["aidlc-docs/AIDLC-State.md", "aidlc-docs/aidlc-st\u0430te.md", "two state files"])
def test_a_pull_request_that_moves_the_state_file_out_of_sight_fails(docs: Repo, moved: str) -> None:
    """Renamed (one letter in another case or alphabet) or split into two state/ files, aidlc-state.md is read no
    more, and with it every stage's tick: a tick without an approval passed (before: exit 0, no finding)."""
    approved(docs)
    docs.git("branch", "base")
    ticked = TICKED.replace("- [ ] INCEPTION - User Stories (SKIP)", "- [x] INCEPTION - User Stories")
    docs.git("rm", "-q", STATE)
    files = ({f"{DOCS}/state/main.md": ticked, f"{DOCS}/state/feature-x.md": ticked} if moved == "two state files"
             else {moved: ticked})
    docs.commit("state kept elsewhere", "2026-06-01T09:30:00Z", **files)
    done = run_cli("ci", str(docs.root), "--base", "base", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    [found] = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "AIDLC-DOCS-029"]
    assert found["path"] == STATE and "(state kept elsewhere) deleted aidlc-docs/aidlc-state.md" in found["message"]
    step = found["fix"].split("    #")[0]
    subprocess.run(step.split(), cwd=docs.root, check=True)  # the step puts it back
    assert "AIDLC-DOCS-029" not in run_cli("validate", str(docs.root), "--format", "json").stdout


def test_a_state_file_moved_to_the_one_state_branch_file_is_read_there(docs: Repo) -> None:
    approved(docs)
    docs.git("mv", STATE, f"{DOCS}/state-main.md")
    (docs.root / DOCS / "state").mkdir()
    docs.git("mv", f"{DOCS}/state-main.md", f"{DOCS}/state/main.md")
    docs.commit("state per branch", "2026-06-01T09:30:00Z")
    assert "AIDLC-DOCS-029" not in docs.codes()


def test_a_docs_folder_behind_a_link_is_refused_and_judged_where_the_setting_names_it(docs: Repo) -> None:
    """git keeps the link, not the log: its history, which the rules judge, is at the folder the link leads to."""
    approved(docs)
    (docs.root / "docs").mkdir()
    docs.git("mv", DOCS, "docs/aidlc")
    os.symlink("docs/aidlc", docs.root / DOCS)
    docs.commit("the docs moved, linked", "2026-06-01T09:30:00Z")
    proc = run_cli("validate", str(docs.root))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {DOCS} is a symbolic link (to docs/aidlc): git keeps the link")
    assert "  set `aidlc_docs: docs/aidlc` in aidlc.yaml    # or read the records where git keeps them\n" in proc.stderr
    docs.commit("the docs folder named", "2026-06-01T09:31:00Z", **{"aidlc.yaml": "aidlc_docs: docs/aidlc\n"})
    assert run_cli("validate", str(docs.root)).returncode == 0
    docs.commit("approval dropped", "2026-06-01T09:32:00Z",
                **{"docs/aidlc/audit.md": "# Audit\n\n" + START + ANSWERS})
    found = json.loads(run_cli("validate", str(docs.root), "--format", "json").stdout)["findings"]
    assert ("AIDLC-DOCS-020", "docs/aidlc/audit.md") in [(f["code"], f["path"]) for f in found]


@pytest.mark.parametrize("renamed", [False, True], ids=["link", "link-and-setting"])
def test_a_pull_request_that_swaps_the_docs_folder_for_a_link_is_refused(docs: Repo, renamed: bool) -> None:
    """The copy behind the link drops the approval. With the setting renamed too, the base's rules name the folder
    that is now a link: refused as well, not read through it."""
    approved(docs)
    docs.git("tag", "base")
    docs.git("mv", DOCS, "copy")
    docs.write("copy/audit.md", "# Audit\n\n" + START + ANSWERS)
    os.symlink("copy", docs.root / DOCS)
    docs.commit("the docs behind a link", "2026-06-01T09:30:00Z", **({"aidlc.yaml": "aidlc_docs: copy\n"} if renamed
                                                                       else {}))
    proc = run_cli("ci", str(docs.root), "--base", "base")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {DOCS} is a symbolic link (to copy): git keeps the link")


def test_an_audit_log_kept_as_a_link_is_unreadable_with_the_step_that_puts_the_file_back(docs: Repo) -> None:
    """Its history is the link's: a change to the file it leads to would go unjudged."""
    approved(docs)
    docs.git("mv", AUDIT, "audit-log.md")
    os.symlink("../audit-log.md", docs.root / AUDIT)
    docs.commit("the log linked", "2026-06-01T09:30:00Z")
    found = json.loads(run_cli("validate", str(docs.root), "--format", "json").stdout)["findings"]
    [unreadable] = [f for f in found if f["code"] == "AIDLC-DOCS-015"]
    assert unreadable["path"] == AUDIT and unreadable["message"].startswith(
        "cannot be read: a symbolic link (to ../audit-log.md): git keeps the link, not the file")
    step = unreadable["fix"].split("    #")[0]
    assert step == f"git rm -q {AUDIT} && git mv audit-log.md {AUDIT}"
    subprocess.run(["bash", "-c", step], cwd=docs.root, check=True)
    docs.commit("the log put back", "2026-06-01T09:31:00Z")
    assert "AIDLC-DOCS-015" not in {f["code"] for f in json.loads(
        run_cli("validate", str(docs.root), "--format", "json").stdout)["findings"]}


def test_the_next_steps_name_the_rule_of_the_first_error_not_of_a_note_printed_before_it(tmp_path: Path) -> None:
    # kimchaeeun3447/KIRO-AI-DLC-WORKSHOP: its one error, AIDLC-DOCS-025 in audit.md, is printed after a note on
    # aidlc-state.md (AIDLC-DOCS-012, `CONSTRUCTION - Per-Unit Loop`); ci's next steps named the note's rule.
    repo = Repo(tmp_path / "stargazer")
    late = entry("Workspace Detection", "2026-06-06T12:00:00Z", "별자리 관측 앱을 만들거야")
    repo.commit("feat: kiro workshop 초기소스", "2026-06-06T14:48:47+09:00", **{
        AUDIT: "# AI-DLC Audit Log\n\n" + late, STATE: STATE_OPEN + "- [ ] CONSTRUCTION - Per-Unit Loop\n"})
    for command in ("validate", "ci"):
        result = run_cli(command, str(repo.root))
        printed, steps = result.stdout.split("Next steps:\n", 1)
        assert result.returncode == 1 and printed.index("AIDLC-DOCS-012") < printed.index("AIDLC-DOCS-025"), printed
        assert steps.splitlines()[0] == "  aidlc rules AIDLC-DOCS-025    # what the rule checks and how to fix it"
