"""aidlc ci judges a pull request by its base's rules (aidlc/ci/rulebook.py), and its scope covers merges and
closed bolts (aidlc/ci/bolt_checks.py): each attack is made as a pull-request author would make it, with git and the
CLI, and each is refused with its finding; a team's own change of its rules, approved by a second person, passes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from aidlc.events.ledger import Ledger
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from tests.helpers import run_cli
from tests.test_approvals import ALLOWED, Key, keys  # noqa: F401 - keys is a fixture
from tests.test_ci import (  # noqa: F401 - pr is a fixture
    ADA,
    BOB,
    CODE,
    approved_plan,
    ci,
    code_change,
    commit,
    document,
    on_base,
    pr,
    to_base,
)
from tests.test_gate import BOLT, BOLT_ID, LEDGER, edit, git, read, run, set_identity, write

EVE = ("Eve Mallory", "eve@x.org")
PATHS = 'paths: ["src/**"]'


def found(doc: dict) -> list[tuple[str, str]]:
    return [(f["code"], f["path"]) for f in doc["findings"] if f["code"].startswith("AIDLC-CI")]


def approve_rules(root: Path, who: tuple[str, str]) -> subprocess.CompletedProcess | None:
    """`aidlc gate approve policy --stage change` as `who`, who then commits the ledger."""
    set_identity(root, *who)
    result = run(root, "gate", "approve", "policy", "--stage", "change", "--reason", "reviewed the new rules")
    set_identity(root)
    assert result.exit_code == 0, result.stderr
    commit(root, "memory-bank: the change of the rules approved", who, paths=(LEDGER,))
    return None


# -- the pull request cannot rewrite its rules -------------------------------------------------------------------
def test_narrowing_governance_paths_does_not_let_untraced_code_pass(pr: Path) -> None:  # noqa: F811
    edit(pr, "aidlc.yaml", PATHS, 'paths: ["docs/**"]')
    commit(pr, "config: govern the docs only", EVE)
    code_change(pr, trailer=None, who=EVE)
    doc = document(pr, "--base", "main")
    assert not doc["passed"]
    assert set(found(doc)) == {("AIDLC-CI-012", "aidlc.yaml"), ("AIDLC-CI-005", CODE)}
    message = next(f["message"] for f in doc["findings"] if f["code"] == "AIDLC-CI-012")
    assert "its `governance` section" in message and "the base's rules judge this pull request" in message


def test_moving_the_bank_to_a_copy_with_a_fresh_ledger_is_judged_at_the_base_bank(pr: Path) -> None:  # noqa: F811
    """The copy's ledger starts again (no decision of the base in it) and claims nothing is wrong."""
    subprocess.run(["cp", "-r", str(pr / "memory-bank"), str(pr / "bank2")], check=True)
    (pr / "bank2" / "events.jsonl").unlink()
    Ledger(pr / "bank2" / "events.jsonl", pr).append(EventType.ledger_created, Actor(
        kind=ActorKind.human, name=EVE[0], email=EVE[1]), key="ledger.created")
    edit(pr, "aidlc.yaml", "memory_bank: memory-bank", "memory_bank: bank2")
    code_change(pr, trailer=None, who=EVE)
    commit(pr, "a fresh bank", EVE)
    doc = document(pr, "--base", "main")
    assert ("AIDLC-CI-012", "aidlc.yaml") in found(doc) and ("AIDLC-CI-005", CODE) in found(doc)
    assert "its `memory_bank` section" in json.dumps(doc)


def test_a_baseline_the_pull_request_writes_for_itself_is_not_applied(pr: Path) -> None:  # noqa: F811
    code_change(pr, trailer=None, who=EVE)
    assert ci(pr, "--base", "main", "--write-baseline").returncode == 0
    commit(pr, "baseline", EVE)
    doc = document(pr, "--base", "main")
    assert not doc["passed"] and doc["baseline"] is None
    assert set(found(doc)) == {("AIDLC-CI-012", ".aidlc-baseline.json"), ("AIDLC-CI-005", CODE)}


def test_a_pull_request_that_edits_the_workflow_or_the_ledger_attributes_changes_the_rules(pr: Path) -> None:  # noqa: F811
    write(pr, ".github/workflows/aidlc.yml", "on: push\njobs: {}\n")
    edit(pr, ".gitattributes", "merge=aidlc-ledger", "merge=union")
    commit(pr, "ci: simpler", EVE)
    assert set(found(document(pr, "--base", "main"))) == {
        ("AIDLC-CI-012", ".github/workflows/aidlc.yml"), ("AIDLC-CI-012", ".gitattributes")}


def test_another_attribute_line_or_a_comment_in_aidlc_yaml_is_no_change_of_the_rules(pr: Path) -> None:  # noqa: F811
    write(pr, ".gitattributes", read(pr, ".gitattributes") + "*.png binary\n")
    edit(pr, "aidlc.yaml", "version: 1", "version: 1  # the format")
    edit(pr, "aidlc.yaml", "model: gpt-4.1-mini", "model: another-model")
    commit(pr, "attributes, a comment and the model", EVE)
    doc = document(pr, "--base", "main")
    assert found(doc) == [] and doc["passed"]


def test_adding_the_authors_key_to_allowed_signers_does_not_let_their_signature_count(
        pr: Path, keys: dict[str, Key]) -> None:  # noqa: F811
    on_base(pr, "aidlc.yaml", "require_signed_approvals: false", "require_signed_approvals: true",
            "signed approvals")
    write(pr, ALLOWED, keys["ada"].allowed("ada@x.org"))
    commit(pr, "allowed signers", ADA)
    subprocess.run(["git", "-C", str(pr), "branch", "-f", "main", "HEAD"], check=True)  # the base lists Ada only
    # Eve lists a key of hers under Ada's email, and signs an approval with it.
    write(pr, ALLOWED, keys["ada"].allowed("ada@x.org") + keys["eve"].allowed("ada@x.org"))
    git(pr, "config", "gpg.format", "ssh")
    git(pr, "config", "user.signingkey", str(keys["eve"].private))
    approved_plan(pr)
    doc = document(pr, "--base", "main")
    assert ("AIDLC-CI-012", ALLOWED) in found(doc)
    invalid = [f for f in doc["findings"] if f["code"] == "AIDLC-LEDGER-016"]
    assert invalid and "does not list" in invalid[0]["message"], doc["findings"]


# -- a change of the rules, approved by another person -----------------------------------------------------------
def test_a_change_of_the_rules_approved_by_another_person_passes_and_its_rules_judge(pr: Path) -> None:  # noqa: F811
    edit(pr, "aidlc.yaml", PATHS, 'paths: ["src/**", "lib/**"]')
    commit(pr, "config: govern lib too", BOB)
    approve_rules(pr, ADA)
    doc = document(pr, "--base", "main")
    assert doc["passed"], doc["findings"]
    assert found(doc) == [("AIDLC-CI-013", "aidlc.yaml")]
    assert "Ada Lovelace <ada@x.org> approved the change" in doc["findings"][0]["message"]
    write(pr, "lib/x.py", "x = 1\n")
    commit(pr, "lib without a bolt", BOB)
    assert ("AIDLC-CI-005", "lib/x.py") in found(document(pr, "--base", "main"))  # the approved rules judge


def test_the_author_of_a_change_of_the_rules_cannot_approve_it(pr: Path) -> None:  # noqa: F811
    edit(pr, "aidlc.yaml", PATHS, 'paths: ["docs/**"]')
    commit(pr, "config", ADA)
    approve_rules(pr, ADA)
    doc = document(pr, "--base", "main")
    assert found(doc) == [("AIDLC-CI-012", "aidlc.yaml")]
    assert "is by an author of the change" in doc["findings"][0]["message"]


def test_an_approval_binds_the_rules_it_saw(pr: Path) -> None:  # noqa: F811
    edit(pr, "aidlc.yaml", PATHS, 'paths: ["src/**", "lib/**"]')
    commit(pr, "config", BOB)
    approve_rules(pr, ADA)
    edit(pr, "aidlc.yaml", 'paths: ["src/**", "lib/**"]', 'paths: ["docs/**"]')
    commit(pr, "config, after the approval", BOB)
    doc = document(pr, "--base", "main")
    assert found(doc) == [("AIDLC-CI-012", "aidlc.yaml")]
    assert "approved other rule files than these" in doc["findings"][0]["message"]


def test_an_approver_the_base_does_not_list_in_allowed_signers_does_not_count(
        pr: Path, keys: dict[str, Key]) -> None:  # noqa: F811
    write(pr, ALLOWED, keys["ada"].allowed("ada@x.org"))
    to_base(pr, ALLOWED)
    edit(pr, "aidlc.yaml", PATHS, 'paths: ["docs/**"]')
    commit(pr, "config", BOB)
    approve_rules(pr, EVE)
    doc = document(pr, "--base", "main")
    assert ("AIDLC-CI-012", "aidlc.yaml") in found(doc)
    assert "whom the base's memory-bank/allowed_signers does not list" in json.dumps(doc)


def test_the_policy_gate_is_a_human_checkpoint(pr: Path) -> None:  # noqa: F811
    result = run(pr, "gate", "approve", "policy", "--stage", "change", env={"AIDLC_ACTOR_KIND": "agent"})
    assert result.exit_code != 0 and "human checkpoint" in result.stderr


# -- scope: merges, closed bolts, policy decisions ---------------------------------------------------------------
def test_a_governed_change_made_inside_a_merge_commit_is_untraced(pr: Path) -> None:  # noqa: F811
    approved_plan(pr)
    git(pr, "checkout", "-q", "-b", "side")
    write(pr, "docs/side.md", "side\n")
    commit(pr, "docs on a side branch", BOB)
    git(pr, "checkout", "-q", "feature")
    subprocess.run(["git", "-C", str(pr), "merge", "-q", "--no-commit", "side"], check=True, capture_output=True)
    write(pr, CODE, "print('smuggled in the merge')\n")
    merge = commit(pr, "Merge branch 'side'", EVE)
    doc = document(pr, "--base", "main")
    assert found(doc) == [("AIDLC-CI-005", CODE)]
    assert f"commit {merge[:12]} by Eve Mallory" in doc["findings"][0]["message"]


def test_a_commit_after_the_walkthrough_was_approved_does_not_ride_on_the_closed_bolt(pr: Path) -> None:  # noqa: F811
    approved_plan(pr)
    code_change(pr)
    Ledger(pr / LEDGER, pr).append(  # the walkthrough approval as the ledger holds it (its evidence is not judged here)
        EventType.gate_decided, Actor(kind=ActorKind.human, name=ADA[0], email=ADA[1]),
        subject=Subject(kind="bolt", id=BOLT_ID), stage="walkthrough", decision=Decision.approve,
        fingerprint=FileDigest(path=BOLT, sha256="0" * 64))
    commit(pr, "memory-bank: walkthrough approved", ADA, paths=(LEDGER,))
    later = code_change(pr, path="src/pay/later.py", who=EVE)
    doc = document(pr, "--base", "main")
    closed = [f for f in doc["findings"] if f["code"] == "AIDLC-CI-014"]
    assert [f["path"] for f in closed] == ["src/pay/later.py"] and later[:12] in closed[0]["message"]


def test_a_plan_approval_forged_as_policy_is_judged_by_the_base_policy(pr: Path) -> None:  # noqa: F811
    approved_plan(pr)  # the inception gates and a person's plan approval
    Ledger(pr / LEDGER, pr).append(  # then a `policy` decision written around the gate, for the same plan
        EventType.gate_decided, Actor(kind=ActorKind.policy, name="policy", email=None),
        subject=Subject(kind="bolt", id=BOLT_ID), stage="plan", decision=Decision.approve,
        fingerprint=FileDigest(path=BOLT, sha256="0" * 64), data={"risk": "low"})
    commit(pr, "memory-bank: plan approved by policy", EVE, paths=(LEDGER,))
    code_change(pr, who=EVE)
    doc = document(pr, "--base", "main")
    assert [f["code"] for f in doc["findings"] if f["code"] == "AIDLC-CI-015"] == ["AIDLC-CI-015"]
    assert "auto_approve_plan" in json.dumps(doc)


def test_on_the_aidlc_docs_layout_the_base_allowed_signers_beside_the_docs_judge(tmp_path: Path) -> None:
    """The records' folder follows the layout: on aidlc-docs, allowed_signers and the ledger live beside the docs,
    so a pull request that edits aidlc-docs/allowed_signers changes the rules, and a FIFO put where the ledger is
    is refused at once (never waited on)."""
    import os

    from tests.aidlc_docs_sample import build_docs_repo

    repo = build_docs_repo(tmp_path / "docs")
    assert run_cli("init", cwd=repo.root).returncode == 0
    repo.commit("adopt the docs with aidlc init")
    base = git(repo.root, "rev-parse", "HEAD")
    repo.write("aidlc-docs/allowed_signers", 'eve@x.org namespaces="aidlc" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI\n')
    repo.commit("signers")
    doc = document(repo.root, "--base", base)
    assert ("AIDLC-CI-012", "aidlc-docs/allowed_signers") in found(doc)
    ledger = repo.root / "aidlc-docs" / "events.jsonl"
    ledger.unlink()
    os.mkfifo(ledger)
    proc = subprocess.run([sys.executable, "-m", "aidlc", "ci", "--base", base, "--format", "json"], cwd=repo.root,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr, proc.stderr
