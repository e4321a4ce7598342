"""aidlc-workflows v2 intent records (`aidlc/spaces/<space>/intents/<dir>/`): reading them, and the rules on the
evidence v2's hooks leave in the audit shards, each broken as a writer would break it, through git and the CLI."""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from aidlc.aidlc_docs.fingerprint import (
    approval_fingerprint,
    js_stringify,
    plan_approval_content,
    read_testing_contract,
)
from aidlc.aidlc_docs.model import Mark, RecordsWorkspace
from aidlc.bank.config import load_config
from aidlc.workspace import layout_of, open_records
from tests import aidlc_v2_fingerprints as vectors
from tests.aidlc_docs_sample import AUDIT, DOCS, START, DocsRepo, build_docs_repo, iso
from tests.aidlc_v2_sample import (
    EVENTS_A,
    EVENTS_B,
    INTENTS,
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
    assert "at all" not in finding.message  # the record has human turns, only none for this approval
    done = run_cli("validate", cwd=v2.root)
    assert done.returncode == 1 and "AIDLC-DOCS-060" in done.stdout


def test_a_record_without_any_human_turn_says_the_hook_never_ran(v2: V2Repo) -> None:
    # A real workspace (2026-09-30) approves six gates with `**User Input**: Approve` and holds no HUMAN_TURN at all.
    for shard, events in ((SHARD_A, EVENTS_A), (SHARD_B, EVENTS_B)):
        for event in events:
            if event[1] == "HUMAN_TURN":
                v2.replace(shard, block(*event), "")
    v2.commit("a record written where the hook never ran", at(LAST + 90))
    found = v2.findings("AIDLC-DOCS-060")
    assert found and all(f.message.endswith("; no shard of the record holds a HUMAN_TURN row at all: the hook that "
                                            "writes one for each of the person's prompts never ran here")
                         for f in found)


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
    shard (its bytes as given here), the record's row added to intents.json, WORKSPACE_INITIALISED appended to the
    shard, aidlc/.migrated written, the flat tree removed with git rm, all in one commit."""
    moment = START + timedelta(days=1)
    for path in sorted((repo.root / DOCS).rglob("*")):
        if path.is_file():
            inside = path.relative_to(repo.root / DOCS).as_posix()
            if inside != "audit.md":
                repo.write(f"{MIGRATED_RECORD}/{inside}", path.read_text(encoding="utf-8"))
    repo.write(MIGRATED_SHARD, audit + f"\n## Workspace Initialised\n**Timestamp**: {iso(moment)}\n"
               f"**Event**: WORKSPACE_INITIALISED\n**Request**: /aidlc\n**Scope**: default\n"
               f"**Details**: Migrated flat aidlc-docs/ into {MIGRATED_DIR}\n\n---\n")
    repo.write(INTENTS, f'[\n  {{\n    "uuid": "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b",\n    "slug": "default",\n'
               f'    "dirName": "{MIGRATED_DIR}",\n    "status": "in-flight"\n  }}\n]\n')
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


def test_a_record_with_no_row_in_intents_json_is_a_warning(v2: V2Repo) -> None:
    """A second record committed without its registry row: v2 lists it as "unknown"; the registered one is fine."""
    other = "aidlc/spaces/default/intents/261201-refunds"
    v2.write(f"{other}/aidlc-state.md", "# AI-DLC State Tracking\n\n### INCEPTION PHASE\n"
             "- [ ] requirements-analysis — EXECUTE\n")
    v2.commit("start refunds by hand", at(LAST + 60))
    assert codes(v2) == [("AIDLC-DOCS-070", INTENTS, None)]
    [finding] = v2.findings()
    assert other in finding.message and '"unknown"' in finding.message and finding.severity == "warning"
    done = run_cli("validate", cwd=v2.root)
    assert done.returncode == 0 and "AIDLC-DOCS-070" in done.stdout  # a warning does not fail validate
    v2.path(INTENTS).unlink()
    v2.commit("drop the registry", at(LAST + 90))
    assert codes(v2) == [("AIDLC-DOCS-070", INTENTS, None), ("AIDLC-DOCS-070", INTENTS, None)]
    assert all("does not exist" in finding.message for finding in v2.findings())


@pytest.mark.parametrize(("text", "line", "said"), [
    ('[\n  {\n    "uuid": "019a",\n    "slug": "shop-orders",\n', 5, "not JSON"),
    ('{\n  "uuid": "019a",\n  "slug": "shop-orders"\n}\n', 1, "not an array"),
    ('[\n  {"uuid": "019a", "slug": "a", "dirName": "261130-shop-orders"},\n  "261201-refunds"\n]\n', 3,
     "not an object"),
    ('[\n  {"uuid": "019a", "slug": "a", "dirName": "261130-shop-orders"},\n  {\n    "slug": "refunds"\n  }\n]\n', 3,
     "without `uuid`"),
])
def test_an_intents_json_that_is_not_an_array_of_uuid_slug_rows_is_an_error_naming_its_line(
        v2: V2Repo, text: str, line: int, said: str) -> None:
    v2.write(INTENTS, text)
    v2.commit("edit the registry by hand", at(LAST + 60))
    assert codes(v2) == [("AIDLC-DOCS-071", INTENTS, line)]  # and no 070 judged against a broken registry
    assert said in v2.findings()[0].message
    done = run_cli("validate", cwd=v2.root)
    assert done.returncode == 1 and f"{INTENTS}:{line}" in done.stdout and "AIDLC-DOCS-071" in done.stdout


def test_an_intents_json_that_is_not_utf8_is_an_error_not_a_traceback(v2: V2Repo) -> None:
    v2.path(INTENTS).write_bytes(b'[\n  {"uuid": "019a", "slug": "caf\xe9"}\n]\n')
    v2.commit("a registry in Latin-1", at(LAST + 60))
    done = run_cli("validate", cwd=v2.root)
    assert done.returncode == 1 and f"{INTENTS}:2" in done.stdout and "not UTF-8" in done.stdout
    assert "Traceback" not in done.stderr


def test_an_older_row_without_dir_name_names_its_record_by_slug_and_uuid(v2: V2Repo) -> None:
    """Older records are named `<slug>-<the uuid's first 8>` and their rows carry no dirName."""
    older = "aidlc/spaces/default/intents/refunds-019a2b3c"
    v2.write(f"{older}/aidlc-state.md", "# AI-DLC State Tracking\n\n### INCEPTION PHASE\n"
             "- [ ] requirements-analysis — EXECUTE\n")
    registry = v2.read(INTENTS).rstrip().removesuffix("]")
    v2.write(INTENTS, registry.rstrip() + ',\n  {\n    "uuid": "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b",\n'
             '    "slug": "refunds"\n  }\n]\n')
    v2.commit("an older record", at(LAST + 60))
    assert codes(v2) == []
    v2.replace(INTENTS, '"slug": "refunds"', '"slug": "refund"')
    v2.commit("a row that names another folder", at(LAST + 90))
    assert codes(v2) == [("AIDLC-DOCS-070", INTENTS, None)] and older in v2.findings()[0].message


def test_status_shows_each_record_s_rows_per_phase_and_its_next_step(v2: V2Repo) -> None:
    done = run_cli("status", cwd=v2.root)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "aidlc-workflows v2: 1 intent record under aidlc/" in out and "261130-shop-orders" in out
    assert "INCEPTION  2/3 done (1 skipped)" in out and "CONSTRUCTION  1/2 done\n" in out
    assert "[S] user-stories" in out and "[-] build-and-test" in out
    assert "`build-and-test` is under way" in out and f"{STATE}:29" in out
    assert "Nothing waits for a person." in out
    quiet = run_cli("status", "-q", cwd=v2.root)
    assert quiet.stdout.strip() == ("261130-shop-orders: initialization 2/2, inception 2/3 (1 skipped), "
                                    "construction 1/2; 22 audit events in 2 shards; 0 open gates; validation: "
                                    "0 errors, 0 warnings")
    assert "  validation: 0 errors, 0 warnings (the workspace's, its records' among them)" in out


def test_a_row_whose_decision_is_skip_is_skipped_not_the_next_stage(v2: V2Repo) -> None:
    """v2 writes a stage its scope leaves out as `- [ ] <slug> — SKIP` (and lists it under "Stages to Skip"): the
    box stays empty, yet the stage is not to run. Status named such a row the next stage, ahead of the row under
    way, and counted it pending; it is skipped, as an `[S]` row is."""
    v2.replace(STATE, "- [S] user-stories — SKIP", "- [ ] user-stories — SKIP")
    v2.commit("user-stories out of scope", at(LAST + 60))
    document = json.loads(run_cli("status", "--format", "json", cwd=v2.root).stdout)
    [record] = document["records"]
    inception = record["phases"][1]
    row = inception["rows"][1]
    assert (row["slug"], row["box"], row["mark"]) == ("user-stories", " ", "skipped")
    assert (inception["done"], inception["skipped"], inception["total"]) == (2, 1, 3)
    assert "`build-and-test` is under way" in record["next_actions"][0]["reason"]
    assert f"{STATE}:29" in record["next_actions"][0]["reason"]
    out = run_cli("status", cwd=v2.root).stdout
    assert "INCEPTION  2/3 done (1 skipped)" in out and "user-stories" not in out.split("Next safe action")[1]


def test_a_record_whose_rows_left_are_all_skip_has_no_next_stage(v2: V2Repo) -> None:
    """running_crew's shape: every row `[x]` or `[S]` but an inception row and the operation phase's, all `— SKIP`.
    Nothing is left to run."""
    v2.replace(STATE, "- [S] user-stories — SKIP", "- [ ] user-stories — SKIP")
    v2.replace(STATE, "- [-] build-and-test — EXECUTE", "- [S] build-and-test — EXECUTE\n\n### OPERATION PHASE\n"
               "- [ ] deployment-pipeline — SKIP\n- [ ] observability-setup — SKIP: no service to run yet")
    v2.commit("build-and-test jumped; operation out of scope", at(LAST + 60))
    done = run_cli("status", cwd=v2.root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OPERATION  0/2 done (2 skipped)" in done.stdout
    assert f"every stage row of {STATE} is completed or skipped" in done.stdout
    assert "is next" not in done.stdout and "under way" not in done.stdout
    quiet = run_cli("status", "-q", cwd=v2.root).stdout
    assert "inception 2/3 (1 skipped), construction 1/2 (1 skipped), operation 0/2 (2 skipped);" in quiet


def test_status_names_an_open_gate_and_what_v2_expects_of_the_person(v2: V2Repo) -> None:
    """A `[?]` row is an open gate: status lists it as waiting, names the step v2 expects (the person's answer in
    the session, then the engine's report) and nothing after it; --pending keeps only that part."""
    v2.replace(STATE, "- [-] build-and-test", "- [?] build-and-test")
    v2.commit("build-and-test awaits approval", at(LAST + 60))
    done = run_cli("status", "--format", "json", cwd=v2.root)
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert document["layout"] == "aidlc-workflows-v2"
    [record] = document["records"]
    assert [phase["phase"] for phase in record["phases"]] == ["initialization", "inception", "construction"]
    row = record["phases"][2]["rows"][1]
    assert (row["slug"], row["box"], row["mark"], row["line"]) == ("build-and-test", "?", "awaiting", 29)
    [gate] = document["waiting"]
    assert record["waiting"] == [gate] and record["next_actions"] == [gate]
    assert f"{STATE}:29" in gate["reason"] and gate["command"] is None
    assert "aidlc-orchestrate report --stage build-and-test --result approved" in gate["reason"]
    pending = run_cli("status", "--pending", cwd=v2.root)
    assert pending.returncode == 0 and "Waiting for a person (1 open gate)" in pending.stdout
    assert "INCEPTION" not in pending.stdout
    pending_json = json.loads(run_cli("status", "--pending", "--format", "json", cwd=v2.root).stdout)
    assert set(pending_json) == {"version", "layout", "root", "folder", "waiting"}


def test_status_on_v2_refuses_intent_and_bolt_without_a_traceback(v2: V2Repo) -> None:
    done = run_cli("status", "--intent", "001", cwd=v2.root)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--intent and --bolt are for a memory bank" in done.stderr


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


def test_a_record_whose_state_file_was_renamed_is_judged_still(v2: V2Repo) -> None:
    """v2 counts a folder with an aidlc-state.md as a record: renamed `AIDLC-STATE.md`, the record, rows, shards
    and all, left every check (before: `0 files`, exit 0)."""
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=v2.root, capture_output=True, text=True,
                          check=True).stdout.strip()
    subprocess.run(["git", "mv", STATE, f"{RECORD}/AIDLC-STATE.md"], cwd=v2.root, check=True)
    v2.commit("state renamed", at(LAST + 90))
    done = run_cli("ci", "--base", base, "--format", "json", cwd=v2.root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("AIDLC-DOCS-029", STATE) in [(f["code"], f["path"]) for f in json.loads(done.stdout)["findings"]]


# -- the plan approval fingerprint ---------------------------------------------------------------------------------
UNIT_FOLDER = f"{RECORD}/construction/orders-api/code-generation"
PLAN = f"{UNIT_FOLDER}/code-generation-plan.md"
INSTRUCTIONS = f"{UNIT_FOLDER}/unit-test-instructions.md"


def approve_plan(repo: V2Repo, fingerprint: str = vectors.FINGERPRINT, plan: str = vectors.PLAN) -> int:
    """Commit the plan and instructions of a verified vector (tests/aidlc_v2_fingerprints.py: the fingerprint v2's
    own code computed for these bytes), then a PLAN_APPROVAL_RECORDED row as v2's `aidlc-log answer` writes it.
    The row's line."""
    repo.write(PLAN, plan)
    repo.path(INSTRUCTIONS).write_bytes(vectors.INSTRUCTIONS.encode())
    line = repo.append(SHARD_B, LAST + 20, "PLAN_APPROVAL_RECORDED", {
        "Stage": "code-generation", "Checkpoint": "Code Generation Plan Approval", "Plan Target": vectors.TARGET,
        "Intent": vectors.INTENT, "Run floor": vectors.RUN_FLOOR, "Approval Fingerprint": fingerprint,
        "Session": SESSION_B})
    repo.commit("aidlc: orders-api plan approved", at(LAST + 60))
    return line


def test_the_fingerprint_is_the_one_v2_s_own_code_computes() -> None:
    """The vectors were computed by running v2's approvalFingerprint on these exact texts."""
    assert read_testing_contract(vectors.PLAN) == (vectors.CONTRACT, "")
    assert plan_approval_content(vectors.PLAN) == vectors.PROJECTED
    for plan in (vectors.PLAN, vectors.PLAN_TICKED):
        assert approval_fingerprint(plan, vectors.INSTRUCTIONS, vectors.CONTRACT, vectors.TARGET, vectors.INTENT,
                                    vectors.RUN_FLOOR) == vectors.FINGERPRINT
    assert approval_fingerprint(vectors.STAGE_PLAN, vectors.STAGE_INSTRUCTIONS, vectors.CONTRACT,
                                vectors.STAGE_TARGET, vectors.INTENT, vectors.RUN_FLOOR) == vectors.STAGE_FINGERPRINT
    contract, why = read_testing_contract(vectors.PLAN_EDITED_CONTRACT)
    assert contract is None and "not the hash of its body" in why


def test_numbers_and_keys_are_written_as_javascript_writes_them() -> None:
    assert js_stringify({"b": 1.0, "10": 1e21, "9": 1e-7, "a": 0.000001, "02": 12345678901234567890.0,
                         "é": "\u2028\n\x01", "Z": [True, None]}) == \
        '{"9":1e-7,"10":1e+21,"02":12345678901234567000,"Z":[true,null],"a":0.000001,"b":1,"é":"\u2028\\n\\u0001"}'


def test_an_approved_plan_stays_approved_when_its_boxes_are_ticked(v2: V2Repo) -> None:
    approve_plan(v2)
    assert v2.findings() == []
    v2.write(PLAN, vectors.PLAN_TICKED)
    v2.commit("orders-api: steps done", at(LAST + 120))
    assert v2.findings() == []


def test_a_plan_edited_after_its_approval_is_an_error_naming_the_row(v2: V2Repo) -> None:
    line = approve_plan(v2)
    v2.write(PLAN, vectors.PLAN.replace("Step 2: handlers", "Step 2: handlers and a payments client"))
    v2.commit("orders-api: one more step", at(LAST + 120))
    [finding] = v2.findings()
    assert (finding.code, finding.severity, finding.path, finding.line) == ("AIDLC-DOCS-068", "error", SHARD_B, line)
    assert PLAN.removeprefix(f"{RECORD}/") in finding.message and "changed after its approval" in finding.message
    done = run_cli("validate", cwd=v2.root)
    assert done.returncode == 1 and "AIDLC-DOCS-068" in done.stdout


def test_an_edit_inside_a_fence_or_to_the_instructions_breaks_the_approval(v2: V2Repo) -> None:
    approve_plan(v2)
    v2.write(PLAN, vectors.PLAN.replace("- [x] inside a fence", "- [ ] inside a fence"))
    v2.commit("untick in a fence", at(LAST + 120))
    assert [f.code for f in v2.findings()] == ["AIDLC-DOCS-068"]
    v2.write(PLAN, vectors.PLAN)
    v2.write(INSTRUCTIONS, "# Unit test instructions\nRun `pytest`.\n")
    v2.commit("shorter instructions", at(LAST + 180))
    assert [f.code for f in v2.findings()] == ["AIDLC-DOCS-068"]


def test_a_contract_edited_after_the_approval_is_an_error_v2_would_refuse_too(v2: V2Repo) -> None:
    approve_plan(v2)
    v2.write(PLAN, vectors.PLAN_EDITED_CONTRACT)
    v2.commit("orders-api: jest instead", at(LAST + 120))
    [finding] = v2.findings()
    assert finding.code == "AIDLC-DOCS-068" and "contract_sha256 is not the hash of its body" in finding.message


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


def test_a_plan_with_a_review_heading_is_not_recomputed_but_noted(v2: V2Repo) -> None:
    line = approve_plan(v2, fingerprint="sha256:v3:" + "0" * 64, plan=vectors.PLAN + "\r\n## Review\r\nLooks fine.\r\n")
    [finding] = v2.findings()
    assert (finding.code, finding.severity, finding.line) == ("AIDLC-DOCS-072", "info", line)
    assert "Review heading" in finding.message


def test_a_state_file_that_is_not_utf8_is_a_finding_not_a_crash(v2: V2Repo) -> None:
    (v2.root / STATE).write_bytes((v2.root / STATE).read_bytes() + b"\n- [x] Build \xff Test\n")
    for command in (("validate",), ("status",), ("ci",)):
        done = run_cli(*command, cwd=v2.root)
        assert "Traceback" not in done.stderr and done.returncode in (0, 1), (command, done.stderr[-800:])
    done = run_cli("validate", "--format", "json", cwd=v2.root)
    found = [f for f in json.loads(done.stdout)["findings"] if f["path"] == STATE]
    assert found and "not UTF-8" in " ".join(f["message"] for f in found), found


def test_the_adopting_pull_request_s_baseline_covers_a_dropped_migration_the_base_had(tmp_path: Path) -> None:
    # The base's finding names a commit of its history (the last flat log's): the base is judged with its history.
    repo = build_docs_repo(tmp_path / "flat")
    flat = repo.read(AUDIT)
    start = flat.index("## Code Generation - Unit 2 Approval")
    migrate(repo, flat[:start] + flat[flat.index("## ", start + 3):])
    subprocess.run(["git", "branch", "-M", "main"], cwd=repo.root, check=True)
    subprocess.run(["git", "checkout", "-qb", "pr"], cwd=repo.root, check=True)
    assert run_cli("init", str(repo.root)).returncode == 0
    repo.commit("Adopt aidlc", START + timedelta(days=2))
    assert run_cli("ci", "--base", "main", "--write-baseline", cwd=repo.root).returncode == 0
    repo.commit("its baseline", START + timedelta(days=2))
    done = run_cli("ci", "--base", "main", "--format", "json", cwd=repo.root)
    marked = {(f["code"], f["baseline"]) for f in json.loads(done.stdout)["findings"]}
    assert done.returncode == 0 and ("AIDLC-DOCS-067", "known") in marked, marked
