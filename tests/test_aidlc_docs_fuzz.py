"""Audit logs and state files put together from the pieces public ones are written in (stage names, units, approval
and plan words, quoted answers with a writer's note, several languages) and from any text: the rules read them and
never fail, and a log that holds no words of a person approves no stage, whatever its headings, answers and Contexts
say."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aidlc.aidlc_docs.reader import read_project
from aidlc.rules import run_docs_rules
from aidlc.rules.docs_approvals import approvals
from tests.aidlc_docs_sample import AUDIT, DOCS, STATE, STATE_TEXT, clean_files

STAGES = ["Requirements Analysis", "User Stories", "Workflow Planning", "Application Design", "Units Generation",
          "Functional Design", "NFR Requirements", "NFR Design", "Infrastructure Design", "Code Generation",
          "Build and Test", "코드 생성", "要件分析", "FD", "Code Gen"]
PIECES = [*STAGES, "Unit 1", "U2", "unit-2-shop-web", "Approval Prompt", "Approval", "Approved", "User Approval",
          "승인", "承認", "批准", "aprobado", "Plan", "Part 1", "Part 2", "COMPLETED", "완료", "Start", "시작",
          "awaiting approval", "Request Changes", "Continue to Next Stage", "Approve & Continue", "then", "→", "+",
          "/", "-", "—", ";", "(", ")", '"', "“", "”", "「", "」", "(infra approved)", "Next: ", "Proceeding to",
          "not approved", "pending", "N/A", "yes", "ok", "진행", "はい", "A", "Q1: A", "?",
          # numbers `int()` refuses: thousands of digits, a superscript digit (each once stopped validate)
          "Unit " + "9" * 5000, "all " + "9" * 5000 + " units", "U²", "Unit ٣"]
# Any character but a line break (a line break would start a field of its own, perhaps the person's).
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
ANY = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=LINE_BREAKS), max_size=30)
TEXT = st.lists(st.one_of(st.sampled_from(PIECES), ANY), min_size=1, max_size=8).map(" ".join)
PERSON_FIELDS = ["User Input", "User Response", "Approval", "Approval response", "사용자 입력", "ユーザー承認"]
OTHER_FIELDS = ["AI Response", "Context", "Status", "AI Prompt", "Stage", "Event"]
STAMP = st.sampled_from(["2026-11-30T08:03:17Z", "2026-11-30T09:00:00Z", "2026-12-01", "yesterday", ""])


def entries(fields: list[str]) -> st.SearchStrategy[str]:
    entry = st.tuples(TEXT, STAMP, st.lists(st.tuples(st.sampled_from(fields), TEXT), max_size=5)).map(
        lambda parts: f"## {parts[0]}\n**Timestamp**: {parts[1]}\n"
                      + "".join(f"**{key}**: {value}\n" for key, value in parts[2]) + "\n---\n")
    return st.lists(entry, max_size=12).map(lambda logged: "# AI-DLC Audit Log\n\n" + "\n".join(logged))


def states() -> st.SearchStrategy[str]:
    starts = st.sampled_from(["- [x] ", "- [ ] ", "  - [x] ", "* [X] ", "- [S] ", "| ", "### ", "## ", ""])
    line = st.tuples(starts, TEXT, st.sampled_from(["", " |", " | ✅ Complete |", " - EXECUTE (Unit 1: orders-api)"]))
    return st.lists(line.map("".join), max_size=20).map(lambda lines: "# AI-DLC State Tracking\n\n" + "\n".join(lines))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzzed")
    for rel, text in clean_files().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(log=entries(PERSON_FIELDS + OTHER_FIELDS))
def test_reading_any_log_for_approvals_never_fails(folder: Path, log: str) -> None:
    (folder / STATE).write_text(STATE_TEXT, encoding="utf-8")  # the sample's: another test writes its own
    (folder / AUDIT).write_text(log, encoding="utf-8")
    project = read_project(folder, DOCS)
    findings = run_docs_rules(project)
    assert all(finding.code.startswith("AIDLC-DOCS-") for finding in findings)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(log=entries(OTHER_FIELDS))
def test_a_log_without_a_person_s_words_approves_no_stage(folder: Path, log: str) -> None:
    (folder / AUDIT).write_text(log, encoding="utf-8")
    assert approvals(read_project(folder, DOCS)) == {}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(state=states(), log=entries(PERSON_FIELDS + OTHER_FIELDS))
def test_reading_any_state_file_beside_any_log_never_fails(folder: Path, state: str, log: str) -> None:
    (folder / STATE).write_text(state, encoding="utf-8")
    (folder / AUDIT).write_text(log, encoding="utf-8")
    findings = run_docs_rules(read_project(folder, DOCS))
    assert all(finding.code.startswith("AIDLC-DOCS-") for finding in findings)
