"""The commands that write on aidlc-workflows v2 intent records (`aidlc/spaces/<space>/intents/<dir>/`), driven
through the CLI on real git histories (tests/aidlc_v2_sample.py): `aidlc gate` on the stages of an intent and of
its units, `aidlc audit append` to this clone's shard, `aidlc walkthrough UNIT`."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from aidlc.aidlc_docs.records import read_workspace
from tests.aidlc_docs_sample import build_docs_repo
from tests.aidlc_v2_sample import EVENTS_B, RECORD, SHARD_A, SHARD_B, STATE, V2Repo, at, build_v2_repo, git_init
from tests.helpers import run_cli

LEDGER = "aidlc-docs/events.jsonl"  # the records folder's (aidlc.yaml `aidlc_docs:`), as `aidlc init` makes it
INTENT = "261130-shop-orders"
UNIT = f"{INTENT}/orders-api"
REQUIREMENTS = f"{RECORD}/inception/requirements-analysis/requirements.md"
PERSON = "Ann Lee <ann@example.com>"
LAST = EVENTS_B[-1][0]


@pytest.fixture
def v2(tmp_path: Path) -> V2Repo:
    repo = build_v2_repo(tmp_path / "shop")
    done = run_cli("init", str(repo.root))
    assert done.returncode == 0, done.stdout + done.stderr
    repo.commit("adopt aidlc", at(LAST + 60))
    return repo


def gate(repo: V2Repo, decision: str, subject: str, stage: str, *extra: str,
         env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_cli("--repo", str(repo.root), "gate", decision, subject, "--stage", stage, "--as", PERSON, *extra,
                   env=env)


def decisions(repo: V2Repo) -> list[dict]:  # type: ignore[type-arg]
    events = [json.loads(line) for line in repo.read(LEDGER).splitlines()]
    return [e for e in events if e["type"] == "gate.decided"]


def test_gates_of_an_intent_and_its_unit_are_decided_in_the_order_of_its_state_rows(v2: V2Repo) -> None:
    """requirements-analysis, then units-generation (user-stories is [S]: not waited for), then the unit's code
    generation; each decision binds the digest of its stage folder's files, in the ledger of the records folder."""
    assert gate(v2, "approve", INTENT, "requirements-analysis").returncode == 0
    assert gate(v2, "approve", f"default/{INTENT}", "units-generation").returncode == 0
    done = gate(v2, "approve", UNIT, "code-generation")
    assert done.returncode == 0, done.stderr
    assert f"unit default/{UNIT} code-generation -> approve by Ann Lee" in done.stdout
    made = decisions(v2)
    assert [(d["subject"]["kind"], d["subject"]["id"], d["stage"]) for d in made] == [
        ("intent", f"default/{INTENT}", "requirements-analysis"), ("intent", f"default/{INTENT}", "units-generation"),
        ("unit", f"default/{UNIT}", "code-generation")]
    assert made[0]["fingerprint"]["path"] == REQUIREMENTS
    assert made[2]["fingerprint"]["path"] == f"{RECORD}/construction/orders-api/code-generation"
    assert {d["path"] for d in made[2]["data"]["judged"]} == {
        f"{RECORD}/construction/orders-api/code-generation/code-generation-plan.md",
        f"{RECORD}/construction/orders-api/code-generation/code-summary.md"}
    assert run_cli("validate", cwd=v2.root).returncode == 0


def test_a_unit_gate_before_the_intent_rows_before_it_is_refused_and_nothing_recorded(v2: V2Repo) -> None:
    refused = gate(v2, "approve", UNIT, "code-generation")
    assert refused.returncode == 1
    assert (f"intent default/{INTENT}: the requirements-analysis gate has no decision; the code-generation gate of "
            f"unit default/{UNIT} comes after it") in refused.stderr
    assert decisions(v2) == []


def test_an_edit_after_the_approval_makes_it_stale_for_validate_and_for_the_next_gate(v2: V2Repo) -> None:
    assert gate(v2, "approve", INTENT, "requirements-analysis").returncode == 0
    v2.write(REQUIREMENTS, v2.read(REQUIREMENTS) + "\n## FR-2: Cancel an order\n")
    v2.commit("agent: requirements widened after the approval", at(LAST + 120))
    report = run_cli("validate", "--format", "json", cwd=v2.root)
    assert report.returncode == 1
    stale = [f for f in json.loads(report.stdout)["findings"] if f["code"] == "AIDLC-DOCS-040"]
    assert [(f["path"], f["severity"]) for f in stale] == [(REQUIREMENTS, "error")]
    assert f"aidlc gate approve default/{INTENT} --stage requirements-analysis" in stale[0]["fix"]
    refused = gate(v2, "approve", INTENT, "units-generation")
    assert refused.returncode == 1 and "requirements-analysis gate is stale" in refused.stderr
    assert len(decisions(v2)) == 1


def test_once_a_person_decides_a_gate_each_completed_row_needs_its_approval_in_the_ledger(v2: V2Repo) -> None:
    """Before any decision the ledger claims nothing (the shards' approvals are history); after one, each [x] row
    past initialization without an approval is AIDLC-DOCS-041, on its line of aidlc-state.md."""
    assert run_cli("validate", cwd=v2.root).returncode == 0
    assert gate(v2, "approve", INTENT, "requirements-analysis").returncode == 0
    report = run_cli("validate", "--format", "json", cwd=v2.root)
    assert report.returncode == 1
    found = [(f["code"], f["path"], f["line"]) for f in json.loads(report.stdout)["findings"]]
    assert found == [("AIDLC-DOCS-041", STATE, v2.line(STATE, "- [x] units-generation")),
                     ("AIDLC-DOCS-041", STATE, v2.line(STATE, "- [x] code-generation"))]
    assert f"aidlc gate approve default/{UNIT} --stage code-generation" in report.stdout


def test_an_agent_is_refused_at_a_v2_gate(v2: V2Repo) -> None:
    refused = gate(v2, "approve", INTENT, "requirements-analysis", env={"AIDLC_ACTOR_KIND": "agent"})
    assert refused.returncode == 1 and "human checkpoint" in refused.stderr
    assert decisions(v2) == []


@pytest.mark.parametrize(("subject", "stage", "says"), [
    ("shop", "requirements-analysis", "no subject 'shop' in aidlc/: the subjects are an intent record"),
    (INTENT, "code-generation", f"intent default/{INTENT} has no 'code-generation' gate; its gates are "
                                "requirements-analysis, user-stories, units-generation, build-and-test"),
    (UNIT, "requirements-analysis", f"unit default/{UNIT} has no 'requirements-analysis' gate; its gates are "
                                    "code-generation"),
])
def test_a_subject_or_stage_the_record_has_not_is_a_usage_error_naming_those_it_has(
        v2: V2Repo, subject: str, stage: str, says: str) -> None:
    refused = gate(v2, "approve", subject, stage)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert says in refused.stderr
    assert decisions(v2) == []


def test_a_stage_that_wrote_nothing_has_nothing_to_judge(v2: V2Repo) -> None:
    for stage, subject in (("requirements-analysis", INTENT), ("units-generation", INTENT),
                           ("code-generation", UNIT)):
        assert gate(v2, "approve", subject, stage).returncode == 0
    refused = gate(v2, "approve", INTENT, "build-and-test")
    assert refused.returncode == 1
    assert f"nothing to judge for the build-and-test gate: {RECORD}/construction/build-and-test does not exist" \
        in refused.stderr


# -- aidlc audit append on v2 -----------------------------------------------------------------------------------------
AUDIT_DIR = f"{RECORD}/audit"
CLONE_ID = "aidlc/.aidlc-clone-id"


def append(repo: V2Repo, *args: str) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    return run_cli("--repo", str(repo.root), "audit", "append", *args)


def ours(repo: V2Repo) -> str:
    """This clone's shard: the one the sample's two clones did not write."""
    theirs = (Path(SHARD_A).name, Path(SHARD_B).name)
    shards = [p.name for p in repo.path(AUDIT_DIR).iterdir() if p.name not in theirs]
    assert len(shards) == 1, shards
    return f"{AUDIT_DIR}/{shards[0]}"


def test_append_writes_a_v2_block_to_this_clone_s_shard_with_the_time_now(v2: V2Repo) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    done = append(v2, "--stage", "code-generation", "--user-input", "Approve Plan\nas written",
                  "--ai-response", "Plan approved; generating", "--format", "json")
    after = datetime.now(UTC)
    assert done.returncode == 0, done.stderr
    clone = v2.read(CLONE_ID)
    assert re.fullmatch(r"[0-9a-f]{12}\n", clone)  # minted as v2 mints it
    shard = ours(v2)
    assert re.fullmatch(rf"[a-z0-9-]{{1,48}}-{clone.strip()}\.md", Path(shard).name)
    text = v2.read(shard)
    stamp = re.search(r"\*\*Timestamp\*\*: (\S+)", text).group(1)  # type: ignore[union-attr]
    assert before <= datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) <= after
    block = (f"## Decision Recorded\n**Timestamp**: {stamp}\n**Event**: DECISION_RECORDED\n"
             "**Stage**: code-generation\n**User Input**: Approve Plan\\nas written\n"
             "**AI Response**: Plan approved; generating\n**Context**: CONSTRUCTION - Code Generation\n\n---\n")
    assert text == f"# AI-DLC Audit Log\n\n{block}"  # v2's renderAuditBlock: "\n## ..." after the header
    record = json.loads(done.stdout)
    assert (record["path"], record["line"], record["offset"]) == (shard, 3, len("# AI-DLC Audit Log\n\n"))
    assert record["sha256"] == hashlib.sha256(block.encode()).hexdigest()
    assert append(v2, "--stage", "build-and-test", "--user-input", "run them", "--ai-response", "ok").returncode == 0
    assert v2.read(shard).startswith(text + "\n## Decision Recorded\n")  # appended, never rewritten
    events = [json.loads(line) for line in v2.read(LEDGER).splitlines()]
    assert [(e["type"], e["data"]["path"]) for e in events[1:]] == [("audit.appended", shard)] * 2
    record = read_workspace(v2.root).records[0].record
    assert [e.event for e in record.events if e.path == shard] == ["DECISION_RECORDED"] * 2  # type: ignore[union-attr]
    assert run_cli("validate", cwd=v2.root).returncode == 0


def test_an_edit_of_an_appended_block_is_caught_by_log_verify(v2: V2Repo) -> None:
    assert append(v2, "--stage", "code-generation", "--user-input", "Approve Plan", "--ai-response", "ok"
                  ).returncode == 0
    shard = ours(v2)
    v2.write(shard, v2.read(shard).replace("Approve Plan", "Approve Plan and skip the tests"))
    found = run_cli("log", "verify", cwd=v2.root)
    assert found.returncode == 1
    assert f"✗ {shard}:3: the entry 'Decision Recorded' was edited or deleted" in found.stdout


def test_an_existing_clone_id_names_the_shard_and_a_shard_linking_out_is_refused(v2: V2Repo, tmp_path: Path) -> None:
    v2.write(CLONE_ID, "3f9a1c2b7d4e\n")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# AI-DLC Audit Log\n")
    host = re.sub(r"[^a-z0-9-]+", "-", socket.gethostname().lower()).strip("-")[:48] or "host"
    link = v2.path(f"{AUDIT_DIR}/{host}-3f9a1c2b7d4e.md")
    link.symlink_to(outside)
    refused = append(v2, "--stage", "code-generation", "--user-input", "x", "--ai-response", "y")
    assert refused.returncode == 2 and "is a symbolic link" in refused.stderr
    assert outside.read_text() == "# AI-DLC Audit Log\n"
    link.unlink()
    assert append(v2, "--stage", "code-generation", "--user-input", "x", "--ai-response", "y").returncode == 0
    assert link.is_file() and not outside.read_text().count("Decision")


def test_with_two_records_the_cursor_or_intent_names_the_one_that_takes_the_entry(v2: V2Repo) -> None:
    other = "aidlc/spaces/default/intents/261201-returns"
    v2.write(f"{other}/aidlc-state.md", v2.read(STATE))
    refused = append(v2, "--stage", "requirements-analysis", "--user-input", "x", "--ai-response", "y")
    assert refused.returncode == 2
    assert "2 intent records and no active-intent cursor naming one" in refused.stderr
    assert "default/261130-shop-orders, default/261201-returns" in refused.stderr
    assert append(v2, "--stage", "requirements-analysis", "--user-input", "x", "--ai-response", "y",
                  "--intent", "261201-returns").returncode == 0
    assert len(list(v2.path(f"{other}/audit").iterdir())) == 1
    v2.write("aidlc/spaces/default/intents/active-intent", "261130-shop-orders\n")
    assert append(v2, "--stage", "requirements-analysis", "--user-input", "x", "--ai-response", "y").returncode == 0
    assert ours(v2)
    wrong = append(v2, "--stage", "requirements-analysis", "--user-input", "x", "--ai-response", "y",
                   "--intent", "elsewhere/261130-shop-orders")
    assert wrong.returncode == 2 and "names no intent record" in wrong.stderr


# -- aidlc walkthrough UNIT on v2 -------------------------------------------------------------------------------------
WALKTHROUGH = f"{RECORD}/construction/orders-api/walkthrough.md"


def with_verify(repo: V2Repo, command: str) -> None:
    repo.replace("aidlc.yaml", "verify: []", f'verify:\n  - {{name: tests, run: "{command}", timeout_s: 60}}')
    repo.commit("verify command", at(LAST + 90))


def test_walkthrough_of_a_v2_unit_reports_its_plan_commits_checks_and_approvals(v2: V2Repo) -> None:
    with_verify(v2, "python3 -c 'pass'")
    for stage, subject in (("requirements-analysis", INTENT), ("units-generation", INTENT),
                           ("code-generation", UNIT)):
        assert gate(v2, "approve", subject, stage).returncode == 0
    done = run_cli("walkthrough", "orders-api", "--format", "json", cwd=v2.root)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["unit"] == f"default/{UNIT}" and report["docs"] == RECORD
    assert report["plan"]["path"] == f"{RECORD}/construction/orders-api/code-generation/code-generation-plan.md"
    assert (report["plan"]["done"], report["plan"]["open"]) == (2, 0)
    assert report["code_paths"] == ["src/orders"]  # named by the code summary, held by HEAD
    assert [c["commit"]["subject"] for c in report["commits"]] == ["aidlc: shop-orders inception"]
    assert [(c["name"], c["passed"], c["current"]) for c in report["checks"]] == [("tests", True, True)]
    assert [(d["stage"], d["decision"], d["current"]) for d in report["decisions"]] == [
        ("code-generation", "approve", True)]
    assert [(a["stage"], a["user_input"]) for a in report["audit_approvals"]] == [
        ("code-generation", "Continue to Next Stage")]
    assert report["satisfied"] and report["findings"] == []
    checks = [json.loads(line) for line in v2.read(LEDGER).splitlines() if '"check.recorded"' in line]
    assert [e["subject"] for e in checks] == [{"kind": "unit", "id": f"default/{UNIT}"}]
    assert "aidlc gate approve default/261130-shop-orders/orders-api --stage code-generation" in v2.read(WALKTHROUGH)
    # the report is written beside the stage folders: the approval it reports does not go stale
    assert run_cli("validate", cwd=v2.root).returncode == 0
    again = run_cli("walkthrough", UNIT, cwd=v2.root)
    assert again.returncode == 0 and "Evidence complete" in again.stdout


def test_walkthrough_of_a_v2_unit_with_a_failing_check_is_incomplete_and_an_unknown_unit_refused(
        v2: V2Repo) -> None:
    with_verify(v2, "python3 -c 'import sys; sys.exit(3)'")
    done = run_cli("walkthrough", "orders-api", cwd=v2.root)
    assert done.returncode == 1
    assert "NO  tests" in done.stdout and "Evidence incomplete" in done.stdout
    refused = run_cli("walkthrough", "payments", cwd=v2.root)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"no unit 'payments' in aidlc/spaces/ (the units, SPACE/INTENT/UNIT: default/{UNIT})" in refused.stderr


def test_a_shard_folder_linking_out_of_the_repository_or_an_intent_outside_the_records_is_refused(
        v2: V2Repo, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = "aidlc/spaces/default/intents/261201-returns"
    v2.write(f"{other}/aidlc-state.md", v2.read(STATE))
    v2.path(f"{other}/audit").symlink_to(elsewhere)
    refused = append(v2, "--stage", "code-generation", "--user-input", "x", "--ai-response", "y",
                     "--intent", "261201-returns")
    assert refused.returncode == 2 and "outside the repository; nothing was written" in refused.stderr
    assert list(elsewhere.iterdir()) == []
    sneaky = append(v2, "--stage", "code-generation", "--user-input", "x", "--ai-response", "y",
                    "--intent", "../../../../../elsewhere")
    assert sneaky.returncode == 2 and "names no intent record" in sneaky.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_rewritten_ledger_is_one_finding_however_many_records_there_are(v2: V2Repo) -> None:
    other = "aidlc/spaces/default/intents/261201-returns"
    v2.write(f"{other}/aidlc-state.md", v2.read(STATE))
    assert gate(v2, "approve", INTENT, "requirements-analysis").returncode == 0
    v2.replace(LEDGER, '"decision":"approve"', '"decision":"reject"')
    report = run_cli("validate", "--format", "json", cwd=v2.root)
    assert report.returncode == 1
    assert [f["path"] for f in json.loads(report.stdout)["findings"] if f["code"] == "AIDLC-DOCS-042"] == [LEDGER]


def test_a_pull_request_on_v2_records_keeps_the_base_s_ledger_and_commits_its_own_decisions(v2: V2Repo) -> None:
    """The ledger of v2 records (in the records folder aidlc.yaml names, beside no aidlc-docs state file) is held
    against the base's as on a memory bank: a decision committed by someone other than its person is AIDLC-CI-003,
    a dropped rejection AIDLC-CI-002."""
    assert gate(v2, "reject", INTENT, "requirements-analysis", "--reason", "no refunds").returncode == 0
    v2.commit("requirements rejected")
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=v2.root, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert gate(v2, "approve", INTENT, "requirements-analysis").returncode == 0
    subprocess.run(["git", "add", "-A"], cwd=v2.root, check=True)
    subprocess.run(["git", "-c", "user.name=Bo", "-c", "user.email=bo@example.com", "commit", "-qm", "approve"],
                   cwd=v2.root, check=True)

    def found() -> list[tuple[str, str, int | None]]:
        proc = run_cli("--repo", str(v2.root), "--format", "json", "ci", "--base", base)
        report = json.loads(proc.stdout)
        assert proc.returncode == 1 and "ledger-against-base" in report["checks"], proc.stdout + proc.stderr
        return [(f["code"], f["path"], f["line"]) for f in report["findings"] if f["code"].startswith("AIDLC-CI-")]

    assert found() == [("AIDLC-CI-003", LEDGER, 3)]
    lines = v2.read(LEDGER).splitlines(keepends=True)
    v2.write(LEDGER, lines[0])  # the rejection dropped: the chain of what is left still verifies
    v2.commit("a fresh start")
    assert found() == [("AIDLC-CI-002", LEDGER, None)]


def test_a_workspace_before_its_first_intent_is_adopted_and_read_with_no_memory_bank(tmp_path: Path) -> None:
    """yokozi-jp/spring-modulith-ai-dlc: `aidlc/spaces/default/memory/` set up and no intent yet. It used to read as no
    project at all, and `aidlc init` scaffolded a memory bank beside it; `aidlc audit append` wrote a flat
    aidlc-docs/audit.md that v2 never reads."""
    root = tmp_path / "shop"
    root.mkdir()
    git_init(root)
    (root / "aidlc/spaces/default/memory").mkdir(parents=True)
    (root / "aidlc/spaces/default/memory/project.md").write_text("# Project\n", encoding="utf-8")
    for command in (["validate"], ["ci", "."]):
        assert run_cli(*command, cwd=root).returncode == 0
    assert "aidlc-workflows v2: 0 intent records under aidlc/" in run_cli("status", cwd=root).stdout
    done = run_cli("init", str(root))
    assert done.returncode == 0, done.stderr
    assert "adopted aidlc/spaces/ (aidlc-workflows' layout; no memory-bank/ is made)" in done.stdout
    assert not (root / "memory-bank").exists() and (root / LEDGER).is_file()
    # aidlc-docs/ holds the ledger alone: the workspace is still the project's records.
    assert run_cli("validate", cwd=root).returncode == 0
    assert "aidlc-workflows v2: 0 intent records under aidlc/" in run_cli("status", cwd=root).stdout
    appended = run_cli("audit", "append", "--stage", "Workspace Detection", "--user-input", "start",
                       "--ai-response", "ok", cwd=root)
    assert appended.returncode == 2 and "v2 workspace with no intent record yet" in appended.stderr
    assert sorted(path.name for path in (root / "aidlc-docs").iterdir()) == ["events.jsonl"]


def test_init_counts_what_the_workspace_s_records_hold(tmp_path: Path) -> None:
    repo = build_v2_repo(tmp_path / "shop")
    done = run_cli("init", str(repo.root))
    assert "adopted aidlc/spaces/" in done.stdout and "22 audit entries in" in done.stdout
    assert "5 ticked stages are kept as history" in done.stdout


def test_records_deleted_for_an_empty_workspace_are_missing_not_absent(tmp_path: Path) -> None:
    # An aidlc-docs project whose records a change deletes, setting up an empty v2 workspace in their place: not a
    # project with nothing to judge. Without a base the folder is missing (a usage error, as before the workspace
    # was read); against the base, the history rules find the audit log deleted (AIDLC-DOCS-024).
    repo = build_docs_repo(tmp_path / "shop")
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo.root, capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "rm", "-rq", "aidlc-docs"], cwd=repo.root, check=True)
    repo.write("aidlc/spaces/default/memory/project.md", "# Project\n")
    repo.commit("start over on v2")
    assert run_cli("validate", cwd=repo.root).returncode == 2
    judged = run_cli("ci", ".", "--base", base, "--format", "json", cwd=repo.root)
    assert judged.returncode == 1
    assert "AIDLC-DOCS-024" in {f["code"] for f in json.loads(judged.stdout)["findings"]}


@pytest.mark.parametrize("change", ["delete an approval", "delete the folder", "delete an approval and migrate"])
def test_an_intent_record_added_beside_aidlc_docs_leaves_its_history_judged(tmp_path: Path, change: str) -> None:
    # v2's records supersede a flat aidlc-docs/ only through a migration (aidlc/.migrated, whose check holds the last
    # flat log against the migrated shard). A pull request that deleted an approval entry, or the whole folder, and
    # added an intent record passed `aidlc ci --base`, only the workspace judged; so did one that deleted the entry and
    # declared a migration whose shard holds the log as it left it.
    repo = build_docs_repo(tmp_path / "shop")
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo.root, capture_output=True, text=True).stdout.strip()
    record = "aidlc/spaces/default/intents/261201-shop"
    log = repo.read("aidlc-docs/audit.md")
    start = log.index("## Requirements Analysis - Approval\n")
    if change == "delete the folder":
        subprocess.run(["git", "rm", "-rq", "aidlc-docs"], cwd=repo.root, check=True)
    else:
        repo.write("aidlc-docs/audit.md", log[:start] + log[log.index("---", start) + 5:])
    if change.endswith("migrate"):
        repo.write(f"{record}/audit/box-1a2b3c4d.md", repo.read("aidlc-docs/audit.md"))
        repo.write("aidlc/.migrated", "migrated 2026-12-01T00:00:00Z → 261201-shop\n")
    repo.write(f"{record}/aidlc-state.md",
               "# AI-DLC State\n\n## Stage Progress\n\n### INCEPTION\n- [ ] workspace-detection — EXECUTE\n")
    repo.commit("an intent record")
    judged = run_cli("ci", ".", "--base", base, "--format", "json", cwd=repo.root)
    codes = {f["code"] for f in json.loads(judged.stdout)["findings"]}
    assert judged.returncode == 1
    expected = {"delete an approval": {"AIDLC-DOCS-003", "AIDLC-DOCS-020"}, "delete the folder": {"AIDLC-DOCS-024"},
                "delete an approval and migrate": {"AIDLC-DOCS-020"}}[change]
    assert codes >= expected, codes


def test_a_migration_that_carries_the_log_on_whole_is_no_finding_of_the_flat_folder(tmp_path: Path) -> None:
    # The flat log deleted as the migration copies it into the record's shard: no AIDLC-DOCS-024 (the migration's
    # check holds the shard against it), no history finding; kept in place, likewise.
    repo = build_docs_repo(tmp_path / "shop")
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo.root, capture_output=True, text=True).stdout.strip()
    record = "aidlc/spaces/default/intents/261201-shop"
    repo.write(f"{record}/audit/box-1a2b3c4d.md", repo.read("aidlc-docs/audit.md"))
    repo.write("aidlc/.migrated", "migrated 2026-12-01T00:00:00Z → 261201-shop\n")
    repo.write(f"{record}/aidlc-state.md",
               "# AI-DLC State\n\n## Stage Progress\n\n### INCEPTION\n- [ ] workspace-detection — EXECUTE\n")
    subprocess.run(["git", "rm", "-q", "aidlc-docs/audit.md"], cwd=repo.root, check=True)
    repo.commit("migrate")
    judged = run_cli("ci", ".", "--base", base, "--format", "json", cwd=repo.root)
    paths = {f["path"] for f in json.loads(judged.stdout)["findings"]}
    assert not any(path.startswith("aidlc-docs/") for path in paths), paths


@pytest.mark.parametrize("adopted", [False, True])
def test_an_intent_record_deleted_whole_is_found_by_its_logs_history(tmp_path: Path, adopted: bool) -> None:
    # Only the records HEAD holds were read: a pull request deleting a record with its shards (its approvals among
    # them) passed `aidlc ci --base` with no finding, adopted by `aidlc init` or not.
    repo = build_v2_repo(tmp_path / "shop")
    if adopted:
        assert run_cli("init", str(repo.root)).returncode == 0
        repo.commit("adopt aidlc", at(LAST + 60))
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo.root, capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "rm", "-rq", RECORD], cwd=repo.root, check=True)
    repo.commit("drop the record", at(LAST + 120))
    judged = run_cli("ci", ".", "--base", base, "--format", "json", cwd=repo.root)
    removed = [f for f in json.loads(judged.stdout)["findings"] if f["code"] == "AIDLC-DOCS-024"]
    assert judged.returncode == 1 and {f["path"] for f in removed} == {SHARD_A, SHARD_B}


def test_the_pull_request_that_adopts_aidlc_cannot_read_a_memory_bank_instead_of_the_records(tmp_path: Path) -> None:
    # The base has intent records and no ledger: a pull request setting `layout: memory-bank` beside a valid bank,
    # and deleting a gate approval from a shard, passed (the bank was all that was read).
    repo = build_v2_repo(tmp_path / "shop")
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo.root, capture_output=True, text=True).stdout.strip()
    shard = repo.read(SHARD_A)
    start = shard.rindex("\n## ", 0, shard.index("**Event**: GATE_APPROVED"))
    repo.write(SHARD_A, shard[:start] + shard[shard.index("---", start) + 3:])
    repo.write("aidlc.yaml", "layout: memory-bank\n")
    repo.write("memory-bank/project.yaml", "project_type: web-app\ninitialized_at: 2026-11-30T08:00:00Z\nname: shop\n")
    repo.commit("a memory bank instead", at(LAST + 60))
    judged = run_cli("ci", ".", "--base", base, "--format", "json", cwd=repo.root)
    found = {(f["code"], f["path"]) for f in json.loads(judged.stdout)["findings"]}
    assert judged.returncode == 1 and {("AIDLC-CI-012", "aidlc.yaml"), ("AIDLC-DOCS-020", SHARD_A)} <= found, found


def test_a_workspace_kept_behind_a_link_is_refused_with_the_step_that_puts_it_back(tmp_path: Path) -> None:
    # git keeps the link, not the intent records: their shards' history would be read where none is.
    repo = build_v2_repo(tmp_path / "shop")
    subprocess.run(["git", "mv", "aidlc", "workspace"], cwd=repo.root, check=True)
    (repo.root / "aidlc").symlink_to("workspace")
    repo.commit("the workspace linked", at(LAST + 60))
    refused = run_cli("validate", str(repo.root))
    assert refused.returncode == 2 and refused.stderr.startswith("error: aidlc is a symbolic link (to workspace)")
    step = refused.stderr.split("Next steps:\n")[1].splitlines()[0].strip()
    assert step == "git rm -q aidlc && git mv workspace aidlc    # the folder where the link was"
    subprocess.run(["bash", "-c", step.split("    #")[0]], cwd=repo.root, check=True)
    repo.commit("the workspace a folder again", at(LAST + 120))
    done = run_cli("validate", str(repo.root))
    assert done.returncode == 0, done.stdout
