"""aidlc-workflows v2 intent records (`aidlc/spaces/<space>/intents/<dir>/`): reading them, and the rules on the
evidence v2's hooks leave in the audit shards, each broken as a writer would break it, through git and the CLI."""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from aidlc.aidlc_docs.fingerprint import approval_fingerprint, contract_hash, js_stringify, plan_approval_content
from aidlc.aidlc_docs.model import Mark, RecordsWorkspace
from aidlc.bank.config import load_config
from aidlc.workspace import layout_of, open_records
from tests.aidlc_docs_sample import AUDIT, DOCS, START, DocsRepo, build_docs_repo, iso
from tests.aidlc_v2_sample import (
    EVENTS_A,
    EVENTS_B,
    RECORD,
    SESSION_B,
    SHARD_A,
    SHARD_B,
    STATE,
    V2Repo,
    at,
    block,
    build_v2_repo,
)
from tests.helpers import run_cli

LAST = EVENTS_B[-1][0]  # the last block's second


@pytest.fixture
def v2(tmp_path: Path) -> V2Repo:
    return build_v2_repo(tmp_path / "shop")


def codes(repo: V2Repo) -> list[tuple[str, str, int | None]]:
    return [(f.code, f.path, f.line) for f in repo.findings()]


def test_the_clean_record_reads_fully_and_validates_with_no_finding(v2: V2Repo) -> None:
    assert layout_of(v2.root, load_config(v2.root)) == "aidlc-docs"
    workspace = open_records(v2.root)
    assert isinstance(workspace, RecordsWorkspace)
    [record] = workspace.records
    assert record.rel == RECORD and record.record is not None
    assert (record.record.space, record.record.name) == ("default", "261130-shop-orders")
    rows = {row.slug: row.mark for row in record.record.rows}
    assert rows == {"workspace-detection": Mark.done, "state-init": Mark.done, "requirements-analysis": Mark.done,
                    "user-stories": Mark.skipped, "units-generation": Mark.done, "code-generation": Mark.done,
                    "build-and-test": Mark.in_progress}
    events = record.record.events
    assert [e.event for e in events] == [event for _, event, _ in EVENTS_A + EVENTS_B]  # merged by time
    assert {e.path for e in events} == {SHARD_A, SHARD_B} and not any(e.tied for e in events)
    assert v2.findings() == []
    done = run_cli("validate", "--format", "json", cwd=v2.root)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert (summary["files"], summary["errors"], summary["warnings"], summary["infos"]) == (7, 0, 0, 0)


def test_shards_merge_by_timestamp_and_a_second_shared_across_shards_is_flagged(v2: V2Repo) -> None:
    v2.append(SHARD_B, EVENTS_A[3][0], "HUMAN_TURN", {"Session": "s"})  # the second of a shard A block
    [record] = open_records(v2.root).records  # type: ignore[union-attr]
    tied = [(e.path, e.event) for e in record.record.events if e.tied]
    assert sorted(tied) == sorted([(SHARD_A, "STAGE_COMPLETED"), (SHARD_A, "STAGE_STARTED"),
                                   (SHARD_B, "HUMAN_TURN")])


def test_a_gate_approved_written_by_hand_without_a_human_turn_is_an_error(v2: V2Repo) -> None:
    v2.append(SHARD_B, LAST + 60, "STAGE_AWAITING_APPROVAL", {"Stage": "build-and-test"})
    line = v2.append(SHARD_B, LAST + 61, "GATE_APPROVED", {"Stage": "build-and-test", "User Input": "approved"})
    v2.commit("approve build-and-test", at(LAST + 90))
    [finding] = v2.findings()
    assert (finding.code, finding.severity, finding.path, finding.line) == ("AIDLC-DOCS-060", "error", SHARD_B, line)
    assert "build-and-test" in finding.message and f"since the GATE_APPROVED at {SHARD_B}:26" in finding.message
    done = run_cli("validate", cwd=v2.root)
    assert done.returncode == 1 and "AIDLC-DOCS-060" in done.stdout


def test_deleting_a_human_turn_from_a_committed_shard_is_caught_twice(v2: V2Repo) -> None:
    """The writer removes the evidence that no person acted: history names the commit, and the approval it
    backed is left without a human turn."""
    v2.replace(SHARD_B, block(*EVENTS_B[2]), "")
    v2.commit("tidy the shard", at(LAST + 90))
    found = {(f.code, f.path) for f in v2.findings()}
    assert found == {("AIDLC-DOCS-020", SHARD_B), ("AIDLC-DOCS-060", SHARD_B)}
    [deleted] = v2.findings("AIDLC-DOCS-020")
    assert "HUMAN_TURN" not in deleted.message and "Human Turn" in deleted.message and "tidy the shard" in \
        deleted.message


def test_a_human_turn_only_tied_across_shards_is_causally_unordered(v2: V2Repo) -> None:
    v2.append(SHARD_A, LAST + 60, "HUMAN_TURN", {"Session": "s"})  # another clone, the same second
    line = v2.append(SHARD_B, LAST + 60, "GATE_APPROVED", {"Stage": "build-and-test", "User Input": "ok"})
    v2.commit("approve build-and-test", at(LAST + 90))
    assert codes(v2) == [("AIDLC-DOCS-061", SHARD_B, line)]
    assert "causally" in v2.findings()[0].fix or "shares a second" in v2.findings()[0].message
    assert run_cli("validate", cwd=v2.root).returncode == 0  # a warning: exit 0 without --strict


def test_an_approval_in_autonomous_mode_is_a_note_not_an_error(v2: V2Repo) -> None:
    v2.append(SHARD_B, LAST + 30, "AUTONOMY_MODE_SET", {"Mode": "autonomous"})
    line = v2.append(SHARD_B, LAST + 61, "GATE_APPROVED", {"Stage": "build-and-test", "User Input": "engine"})
    v2.commit("autonomous construction", at(LAST + 90))
    [finding] = v2.findings()
    assert (finding.code, finding.severity, finding.line) == ("AIDLC-DOCS-062", "info", line)
    v2.append(SHARD_B, LAST + 100, "AUTONOMY_MODE_SET", {"Mode": "supervised"})
    line = v2.append(SHARD_B, LAST + 101, "GATE_APPROVED", {"Stage": "build-and-test", "User Input": "x"})
    assert ("AIDLC-DOCS-060", SHARD_B, line) in codes(v2)  # the mode set back: approvals need a person again


@pytest.mark.parametrize(("event", "fields", "code", "severity"), [
    ("GUARD_DISABLED", {"Guard": "plan-approval-guard", "Tool": "Write"}, "AIDLC-DOCS-063", "warning"),
    ("GUARD_STOOD_ASIDE", {"Guard": "plan-approval", "Authority": "none", "Actor": "main"}, "AIDLC-DOCS-063",
     "warning"),
    ("PLAN_APPROVAL_OVERRIDDEN", {"Stage": "code-generation", "Reason": "demo tomorrow", "Unit": "orders-api"},
     "AIDLC-DOCS-064", "warning"),
    ("PLAN_APPROVAL_BLOCKED", {"Tool": "Task", "Target": "aidlc-developer-agent", "Stage": "code-generation",
                               "Unit": "(missing marker)"}, "AIDLC-DOCS-065", "info"),
])
def test_guard_rows_are_reported(v2: V2Repo, event: str, fields: dict[str, str], code: str, severity: str) -> None:
    line = v2.append(SHARD_B, LAST + 20, event, fields)
    v2.commit(f"{event.lower()}", at(LAST + 90))
    [finding] = v2.findings()
    assert (finding.code, finding.severity, finding.path, finding.line) == (code, severity, SHARD_B, line)
    assert event in finding.message and next(iter(fields.values())) in finding.message


def test_a_completed_row_without_its_stage_completed_event_is_an_error(v2: V2Repo) -> None:
    v2.replace(STATE, "- [S] user-stories — SKIP", "- [x] user-stories — EXECUTE")
    v2.commit("tick user-stories", at(LAST + 90))
    assert codes(v2) == [("AIDLC-DOCS-066", STATE, v2.line(STATE, "user-stories"))]
    v2.append(SHARD_B, LAST + 100, "STAGE_COMPLETED", {"Stage": "user-stories", "Details": "done"})
    assert codes(v2) == []


def test_unknown_v2_slugs_are_read_not_rejected(v2: V2Repo) -> None:
    v2.replace(STATE, "- [x] state-init — EXECUTE", "- [x] state-init — EXECUTE\n- [ ] formal-model-check — EXECUTE")
    [record] = open_records(v2.root).records  # type: ignore[union-attr]
    assert "formal-model-check" in [row.slug for row in record.record.rows]
    assert v2.findings() == []


# -- the migration from the flat aidlc-docs/ ------------------------------------------------------------------------
MIGRATED_DIR = "261130-default"
MIGRATED_RECORD = f"aidlc/spaces/default/intents/{MIGRATED_DIR}"
MIGRATED_SHARD = f"{MIGRATED_RECORD}/audit/dev-laptop-3f9a1c2b7d4e.md"


def migrate(repo: DocsRepo, audit: str) -> None:
    """What v2's migrateFlatLayout and its caller do: the flat tree copied into a record, audit.md renamed into a
    shard (its bytes as given here), WORKSPACE_INITIALISED appended to it, aidlc/.migrated written, the flat tree
    removed with git rm, all in one commit."""
    moment = START + timedelta(days=1)
    for path in sorted((repo.root / DOCS).rglob("*")):
        if path.is_file():
            inside = path.relative_to(repo.root / DOCS).as_posix()
            if inside != "audit.md":
                repo.write(f"{MIGRATED_RECORD}/{inside}", path.read_text(encoding="utf-8"))
    repo.write(MIGRATED_SHARD, audit + f"\n## Workspace Initialised\n**Timestamp**: {iso(moment)}\n"
               f"**Event**: WORKSPACE_INITIALISED\n**Request**: /aidlc\n**Scope**: default\n"
               f"**Details**: Migrated flat aidlc-docs/ into {MIGRATED_DIR}\n\n---\n")
    repo.write("aidlc/.migrated", f"migrated {iso(moment)} → {MIGRATED_DIR}\n")
    subprocess.run(["git", "rm", "-rq", DOCS], cwd=repo.root, check=True, capture_output=True)
    repo.commit("migrate aidlc-docs/ to aidlc/", moment)


def test_a_migration_that_kept_the_audit_bytes_validates_clean(tmp_path: Path) -> None:
    repo = build_docs_repo(tmp_path / "flat")
    migrate(repo, repo.read(AUDIT))
    workspace = open_records(repo.root)
    assert isinstance(workspace, RecordsWorkspace) and workspace.migrated is not None
    [record] = workspace.records
    assert record.record is not None and record.record.rows == []  # v1 state lines, kept until v2 rewrites them
    assert repo.findings() == []


def test_a_migration_that_dropped_an_audit_entry_is_an_error_naming_the_commit(tmp_path: Path) -> None:
    repo = build_docs_repo(tmp_path / "flat")
    flat = repo.read(AUDIT)
    last_flat = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo.root, check=True, capture_output=True,
                               text=True).stdout.strip()
    start = flat.index("## Code Generation - Unit 2 Approval")
    dropped = flat[:start] + flat[flat.index("## ", start + 3):]
    migrate(repo, dropped)
    found = [f for f in repo.findings() if f.code == "AIDLC-DOCS-067"]
    [finding] = found
    assert (finding.severity, finding.path, finding.line) == ("error", "aidlc/.migrated", None)
    assert last_flat[:12] in finding.message and MIGRATED_SHARD in finding.message
    assert f"git show {last_flat[:12]}:aidlc-docs/audit.md" in finding.fix
    done = run_cli("validate", cwd=repo.root)
    assert done.returncode == 1 and "AIDLC-DOCS-067" in done.stdout


def test_a_command_that_does_not_read_v2_records_yet_says_so_without_a_traceback(v2: V2Repo) -> None:
    done = run_cli("status", cwd=v2.root)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "aidlc-workflows v2 intent records" in done.stderr and "aidlc validate" in done.stderr
    assert "Traceback" not in done.stderr


def test_ci_judges_a_v2_workspace_and_a_pull_request_that_rewrites_a_shard_fails(v2: V2Repo) -> None:
    """`aidlc ci` reads the v2 records as validate does; with --base it judges the pull request's commits: one
    that deletes a committed human turn fails with the commit named."""
    done = run_cli("ci", "--format", "json", cwd=v2.root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["summary"]["files"] == 7
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=v2.root, capture_output=True, text=True,
                          check=True).stdout.strip()
    v2.replace(SHARD_B, block(*EVENTS_B[2]), "")
    v2.commit("tidy the shard", at(LAST + 90))
    done = run_cli("ci", "--base", base, "--format", "json", cwd=v2.root)
    assert done.returncode == 1, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert "aidlc-docs-history" in document["checks"]
    assert {f["code"] for f in document["findings"]} >= {"AIDLC-DOCS-020", "AIDLC-DOCS-060"}


# -- the plan approval fingerprint ---------------------------------------------------------------------------------
UNIT_FOLDER = f"{RECORD}/construction/orders-api/code-generation"
PLAN = f"{UNIT_FOLDER}/code-generation-plan.md"
INSTRUCTIONS = f"{UNIT_FOLDER}/unit-test-instructions.md"
PLAN_TEXT = ("# Code Generation Plan\r\n\r\n## Steps\r\n- [ ] Step 1: model the order  \r\n1. [ ] Step 2: handlers"
             "\r\n\r\n\r\n```text\r\n- [x] fenced, kept verbatim\r\n```\r\n\r\n## Testing Contract\r\n"
             "- [ ] pytest tests/orders\r\n")
INTENT, RUN_FLOOR = "019a1f2e-3b4c-7d5e-8f60-718293a4b5c6", "STAGE_STARTED:2026-11-30T08:36:37Z#1"


def approve_plan(repo: V2Repo, fingerprint: str | None = None) -> int:
    """Commit a plan and its instructions, then a PLAN_APPROVAL_RECORDED row as v2's `aidlc-log answer` writes it.
    The fingerprint is computed by aidlc's own reading of v2's published formula: the test shows that the rule
    keeps to the formula's properties, not that it matches v2's code byte for byte. The row's line."""
    repo.write(PLAN, PLAN_TEXT)
    repo.write(INSTRUCTIONS, "# Unit test instructions\r\nRun `pytest tests/orders`.\r\n")
    target = "unit:orders-api"
    if fingerprint is None:
        fingerprint = approval_fingerprint(PLAN_TEXT, repo.read(INSTRUCTIONS), target, INTENT, RUN_FLOOR)
    line = repo.append(SHARD_B, LAST + 20, "PLAN_APPROVAL_RECORDED", {
        "Stage": "code-generation", "Checkpoint": "Code Generation Plan Approval", "Plan Target": target,
        "Intent": INTENT, "Run floor": RUN_FLOOR, "Approval Fingerprint": fingerprint, "Session": SESSION_B})
    repo.commit("aidlc: orders-api plan approved", at(LAST + 60))
    return line


def test_the_plan_projection_drops_ticks_trailing_space_blank_runs_and_a_review_appendix_but_not_fences() -> None:
    plan = "\ufeff# Plan\r\n\r\n\r\n- [x] Step 1\t \r\n* [-] Step 2\r\n```\r\n- [x] in a fence  \r\n```\r\n\r\n" \
           "## Review\r\nlooks fine\r\n"
    assert plan_approval_content(plan) == "# Plan\n\n- [ ] Step 1\n* [ ] Step 2\n```\n- [x] in a fence  \n```"
    assert js_stringify({"b": "ü\u2028\n\x01", "a": 1}) == '{"a":1,"b":"ü\u2028\\n\\u0001"}'
    assert contract_hash(PLAN_TEXT) == contract_hash(PLAN_TEXT.replace("- [ ] pytest", "- [x] pytest"))
    assert contract_hash(PLAN_TEXT) != contract_hash(PLAN_TEXT.replace("tests/orders", "tests"))


def test_an_approved_plan_stays_approved_when_its_boxes_are_ticked(v2: V2Repo) -> None:
    approve_plan(v2)
    assert v2.findings() == []
    v2.write(PLAN, PLAN_TEXT.replace("- [ ] Step 1", "- [x] Step 1").replace("1. [ ] Step 2", "1. [X] Step 2")
             .replace("handlers\r\n", "handlers   \r\n"))
    v2.commit("orders-api: steps 1 and 2 done", at(LAST + 120))
    assert v2.findings() == []


def test_a_plan_edited_after_its_approval_is_an_error_naming_the_row(v2: V2Repo) -> None:
    line = approve_plan(v2)
    v2.write(PLAN, PLAN_TEXT.replace("Step 2: handlers", "Step 2: handlers and a payments client"))
    v2.commit("orders-api: one more step", at(LAST + 120))
    [finding] = v2.findings()
    assert (finding.code, finding.severity, finding.path, finding.line) == ("AIDLC-DOCS-068", "error", SHARD_B, line)
    assert PLAN.removeprefix(f"{RECORD}/") in finding.message and "changed after its approval" in finding.message
    done = run_cli("validate", cwd=v2.root)
    assert done.returncode == 1 and "AIDLC-DOCS-068" in done.stdout


def test_an_edit_inside_a_fence_or_to_the_instructions_breaks_the_approval(v2: V2Repo) -> None:
    approve_plan(v2)
    v2.write(PLAN, PLAN_TEXT.replace("- [x] fenced", "- [ ] fenced"))
    v2.commit("untick in a fence", at(LAST + 120))
    assert [f.code for f in v2.findings()] == ["AIDLC-DOCS-068"]
    v2.write(PLAN, PLAN_TEXT)
    v2.write(INSTRUCTIONS, "# Unit test instructions\nRun `pytest`.\n")
    v2.commit("shorter instructions", at(LAST + 180))
    assert [f.code for f in v2.findings()] == ["AIDLC-DOCS-068"]


def test_a_deleted_plan_or_an_unreadable_target_is_an_error(v2: V2Repo) -> None:
    approve_plan(v2, fingerprint="sha256:v3:" + "0" * 64)
    assert [f.code for f in v2.findings()] == ["AIDLC-DOCS-068"]
    v2.path(INSTRUCTIONS).unlink()
    v2.commit("drop the instructions", at(LAST + 120))
    [finding] = v2.findings()
    assert finding.code == "AIDLC-DOCS-068" and f"HEAD holds no {INSTRUCTIONS}" in finding.message


def test_an_older_fingerprint_format_is_a_warning_to_approve_again(v2: V2Repo) -> None:
    line = approve_plan(v2, fingerprint="sha256:v2:" + "ab" * 32)
    [finding] = v2.findings()
    assert (finding.code, finding.severity, finding.line) == ("AIDLC-DOCS-069", "warning", line)
    assert "approve again" in finding.message
