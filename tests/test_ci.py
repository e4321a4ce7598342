"""aidlc ci: real git histories built commit by commit, judged as a pull request against its base.

Each test starts from the scaffolded chain (tests/conftest.py `chain`) committed on `main` by Ada, then makes
the branch a pull request would bring: approvals committed by whoever a case needs, code with or without its
`Aidlc-Bolt:` trailer, a ledger edited behind the chain's back. `aidlc ci` runs in-process, and as a real
process for the GitHub annotations and SARIF file of a project in a subfolder of a monorepo."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from aidlc.rules import every_rule
from tests import test_walkthrough
from tests.helpers import run_cli, run_cli_process
from tests.test_gate import BOLT, BOLT_ID, LEDGER, edit, read, through_plan, write

ADA = ("Ada Lovelace", "ada@x.org")
BOB = ("Bob Builder", "bob@x.org")
BOT = ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com")
CODE = "src/pay/api.py"  # inside the bolt's scope (src/pay/**)


def commit(root: Path, message: str, who: tuple[str, str] = ADA, paths: tuple[str, ...] = (".",)) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1], "GIT_COMMITTER_NAME": who[0],
           "GIT_COMMITTER_EMAIL": who[1]}
    subprocess.run(["git", "-C", str(root), "add", "-A", "--", *paths], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", message], check=True, env=env,
                   capture_output=True)
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def ci(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    clean = {"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "", **(env or {})}
    return run_cli("--repo", str(root), "ci", *args, env=clean, cwd=root)


def document(root: Path, *args: str) -> dict:
    proc = ci(root, "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["code"].startswith("AIDLC-CI")]


@pytest.fixture
def pr(chain: Path) -> Path:
    """The chain committed on `main` (the base), and a branch `feature` checked out from it."""
    commit(chain, "bank")
    subprocess.run(["git", "-C", str(chain), "branch", "-M", "main"], check=True)
    subprocess.run(["git", "-C", str(chain), "checkout", "-q", "-b", "feature"], check=True)
    return chain


def on_base(root: Path, rel: str, old: str, new: str, message: str) -> None:
    """Change a file on `main` (the base) before the branch has commits of its own, and bring it to the branch."""
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "main"], check=True)
    edit(root, rel, old, new)
    commit(root, message)
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-B", "feature", "main"], check=True)


def to_base(root: Path, rel: str) -> None:
    """Move a file just written on the branch to `main` (the base), then merge the base into the branch: what the
    rules read from the base must be on the base."""
    data = (root / rel).read_bytes()
    (root / rel).unlink()
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "main"], check=True)
    write(root, rel, data.decode("utf-8"))
    commit(root, f"{rel} on the base", paths=(rel,))
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "feature"], check=True)
    subprocess.run(["git", "-C", str(root), "merge", "-q", "--no-edit", "main"], check=True, capture_output=True)


def approved_plan(root: Path, who: tuple[str, str] = ADA) -> None:
    through_plan(root)
    commit(root, "memory-bank: plan of bolt 001 approved", who)


def code_change(root: Path, trailer: str | None = BOLT_ID, path: str = CODE, who: tuple[str, str] = BOB) -> str:
    write(root, path, f"print({path!r})\n")
    return commit(root, "checkout: the payment endpoint" + (f"\n\nAidlc-Bolt: {trailer}" if trailer else ""), who,
                  paths=(path,))


# -- pull-request scope ------------------------------------------------------------------------------------
def test_a_traced_change_by_a_person_passes(pr: Path) -> None:
    approved_plan(pr)
    code_change(pr)
    proc = ci(pr, "--base", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "aidlc ci passed (against base" in proc.stdout


def test_an_untraced_change_to_governed_code_fails_with_an_annotation_at_the_file(pr: Path) -> None:
    approved_plan(pr)
    sha = code_change(pr, trailer=None)
    write(pr, "docs/notes.md", "not governed\n")
    commit(pr, "docs")
    proc = ci(pr, "--base", "main", env={"GITHUB_ACTIONS": "true"})
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if line.startswith("::error ")]
    assert len(lines) == 1
    assert lines[0].startswith(f"::error file={CODE},title=AIDLC-CI-005::commit {sha[:12]} by Bob Builder")
    assert "docs/notes.md" not in proc.stdout


def test_without_a_base_the_history_is_not_judged(pr: Path) -> None:
    code_change(pr, trailer=None)
    doc = document(pr)
    assert doc["passed"] and doc["base"] is None and doc["checks"] == ["validate"] and codes(doc) == []
    # Gates waiting for a person are reported, never a failure: only a person decides them.
    assert {(g["kind"], g["id"], g["pending"]) for g in doc["waiting"]} == {
        ("intent", "001-checkout-payments", "requirements"), ("bolt", BOLT_ID, "plan")}
    assert "waiting for a person (2; this does not fail CI)" in ci(pr).stdout


def test_a_trailer_needs_an_existing_bolt_whose_plan_the_commit_holds_as_approved(pr: Path) -> None:
    early = code_change(pr)  # before any approval
    unknown = code_change(pr, trailer="042-nope", path="src/other.py")
    approved_plan(pr)
    code_change(pr, path="src/pay/later.py")  # after the approval: traced
    doc = document(pr, "--base", "main")
    found = {(f["code"], f["path"]): f["message"] for f in doc["findings"] if f["code"].startswith("AIDLC-CI")}
    assert set(found) == {("AIDLC-CI-007", CODE), ("AIDLC-CI-006", "src/other.py")}
    assert early[:12] in found[("AIDLC-CI-007", CODE)] and unknown[:12] in found[("AIDLC-CI-006", "src/other.py")]
    assert not doc["passed"]


def test_a_change_outside_the_scope_of_the_approved_bolt_it_names_fails(pr: Path) -> None:
    approved_plan(pr)
    sha = code_change(pr, path="src/checkout/api.py")  # the bolt's scope is src/pay/**
    code_change(pr, path="src/pay/deep/er.py")
    doc = document(pr, "--base", "main")
    found = [(f["code"], f["path"], f["message"]) for f in doc["findings"] if f["code"].startswith("AIDLC-CI")]
    assert [(code, path) for code, path, _ in found] == [("AIDLC-CI-010", "src/checkout/api.py")]
    assert sha[:12] in found[0][2] and "outside their scope (src/pay/**)" in found[0][2]
    assert not doc["passed"]


def test_a_bolt_without_a_scope_covers_any_governed_file(pr: Path) -> None:
    edit(pr, BOLT, 'scope: ["src/pay/**"]', "scope: []")
    approved_plan(pr)
    code_change(pr, path="src/checkout/api.py")
    assert codes(document(pr, "--base", "main")) == []


def test_a_named_bolt_marked_complete_needs_its_walkthrough_approved(pr: Path) -> None:
    approved_plan(pr)
    code_change(pr)
    edit(pr, BOLT, "status: in-progress", "status: complete")
    commit(pr, "bolt done, says the file")
    doc = document(pr, "--base", "main")
    assert [(f["code"], f["path"]) for f in doc["findings"] if f["code"] == "AIDLC-CI-008"] == [("AIDLC-CI-008", BOLT)]


def test_with_signed_commits_required_an_unsigned_commit_fails(pr: Path, tmp_path: Path) -> None:
    key = tmp_path / "signing"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    on_base(pr, "aidlc.yaml", "require_signed_commits: false", "require_signed_commits: true",
            "require signed commits")  # the rule is the base's
    commit(pr, "an empty unsigned commit")  # unsigned
    approved_plan(pr)  # unsigned
    write(pr, CODE, "print('signed')\n")
    subprocess.run(["git", "-C", str(pr), "add", CODE], check=True)
    subprocess.run(["git", "-C", str(pr), "-c", "gpg.format=ssh", "-c", f"user.signingkey={key}", "commit", "-q",
                    "-S", "-m", f"checkout: signed\n\nAidlc-Bolt: {BOLT_ID}"], check=True)
    doc = document(pr, "--base", "main")
    unsigned = [f["message"] for f in doc["findings"] if f["code"] == "AIDLC-CI-011"]
    assert len(unsigned) == 2 and all("carries no signature" in m for m in unsigned), doc["findings"]
    assert any("an empty unsigned commit" in m for m in unsigned) and not any("checkout: signed" in m for m in unsigned)
    # The pull request cannot turn the rule off for itself: the base's rule still judges it.
    edit(pr, "aidlc.yaml", "require_signed_commits: true", "require_signed_commits: false")
    commit(pr, "signing no longer required")
    assert sorted(set(codes(document(pr, "--base", "main")))) == ["AIDLC-CI-011", "AIDLC-CI-012"]


# -- approval authorship -----------------------------------------------------------------------------------
def _decision_lines(root: Path) -> dict[int, dict]:
    lines = read(root, LEDGER).splitlines()
    return {n: e for n, line in enumerate(lines, start=1) if (e := json.loads(line))["type"] == "gate.decided"}


def test_a_human_approval_committed_by_a_bot_fails(pr: Path) -> None:
    approved_plan(pr, who=BOT)
    code_change(pr)
    doc = document(pr, "--base", "main")
    bot = [f for f in doc["findings"] if f["code"] == "AIDLC-CI-004"]
    assert len(bot) == len(_decision_lines(pr)) == 5  # four inception gates and the plan
    assert {f["line"] for f in bot} == set(_decision_lines(pr))
    assert "dependabot[bot]" in bot[0]["message"] and "Ada Lovelace <ada@x.org>" in bot[0]["message"]
    assert not doc["passed"]


def test_a_replace_ref_does_not_change_who_committed_an_approval(pr: Path) -> None:
    """A check's command runs in the repository and may write `git replace BOT_COMMIT PERSON_COMMIT` (the same tree,
    Ada as author): git would read the stand-in, and the approvals read as Ada's. The commits git keeps are read."""
    approved_plan(pr, who=BOT)
    bot_commit = subprocess.run(["git", "-C", str(pr), "rev-parse", "HEAD"], check=True, capture_output=True,
                                text=True).stdout.strip()
    env = {**os.environ, "GIT_AUTHOR_NAME": ADA[0], "GIT_AUTHOR_EMAIL": ADA[1], "GIT_COMMITTER_NAME": ADA[0],
           "GIT_COMMITTER_EMAIL": ADA[1]}
    stand_in = subprocess.run(["git", "-C", str(pr), "commit-tree", f"{bot_commit}^{{tree}}", "-p", f"{bot_commit}^",
                               "-m", "memory-bank: plan of bolt 001 approved"], check=True, capture_output=True,
                              text=True, env=env).stdout.strip()
    subprocess.run(["git", "-C", str(pr), "replace", bot_commit, stand_in], check=True)
    assert ADA[1] in subprocess.run(["git", "-C", str(pr), "log", "-1", "--format=%ae"], check=True,
                                    capture_output=True, text=True).stdout  # git itself now shows Ada
    doc = document(pr, "--base", "main")
    assert "AIDLC-CI-004" in codes(doc) and not doc["passed"]


def test_a_bot_listed_in_governance_bot_emails_is_a_bot(pr: Path) -> None:
    on_base(pr, "aidlc.yaml", "bot_emails: []", "bot_emails: [ci-helper@x.org]", "config")
    approved_plan(pr, who=("CI Helper", "CI-Helper@x.org"))
    doc = document(pr, "--base", "main")
    assert "governance.bot_emails" in next(f for f in doc["findings"] if f["code"] == "AIDLC-CI-004")["message"]


def test_an_approval_committed_by_another_person_fails_naming_both(pr: Path) -> None:
    approved_plan(pr, who=BOB)
    sha = subprocess.run(["git", "-C", str(pr), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    doc = document(pr, "--base", "main")
    other = [f for f in doc["findings"] if f["code"] == "AIDLC-CI-003"]
    assert len(other) == 5
    message = other[-1]["message"]
    assert "bolt 001-checkout-api plan (approve) by Ada Lovelace <ada@x.org>" in message
    assert f"commit {sha[:12]} by Bob Builder <bob@x.org>" in message


def test_an_approval_made_on_a_side_branch_is_judged_by_its_own_commit_not_the_merge(pr: Path) -> None:
    subprocess.run(["git", "-C", str(pr), "checkout", "-q", "-b", "side"], check=True)
    approved_plan(pr)  # Ada's commit
    subprocess.run(["git", "-C", str(pr), "checkout", "-q", "feature"], check=True)
    write(pr, "README.txt", "x\n")
    commit(pr, "unrelated", BOB)
    env = {**os.environ, "GIT_AUTHOR_NAME": BOB[0], "GIT_AUTHOR_EMAIL": BOB[1], "GIT_COMMITTER_NAME": BOB[0],
           "GIT_COMMITTER_EMAIL": BOB[1]}
    subprocess.run(["git", "-C", str(pr), "merge", "-q", "--no-edit", "side"], check=True, env=env,
                   capture_output=True)
    assert codes(document(pr, "--base", "main")) == []


# -- the ledger against the base ---------------------------------------------------------------------------
@pytest.fixture
def pr_with_decisions(chain: Path) -> Path:
    """A base whose ledger already holds the inception and plan decisions."""
    through_plan(chain)
    commit(chain, "bank, decided")
    subprocess.run(["git", "-C", str(chain), "branch", "-M", "main"], check=True)
    subprocess.run(["git", "-C", str(chain), "checkout", "-q", "-b", "feature"], check=True)
    return chain


def test_a_ledger_line_removed_on_the_branch_fails_against_the_base(pr_with_decisions: Path) -> None:
    lines = read(pr_with_decisions, LEDGER).splitlines(keepends=True)
    write(pr_with_decisions, LEDGER, "".join(lines[:-1]))  # the plan approval is gone: the chain still holds
    commit(pr_with_decisions, "ledger trimmed")
    doc = document(pr_with_decisions, "--base", "main")
    assert codes(doc) == ["AIDLC-CI-002"]
    assert f"seq {len(lines)}" in doc["findings"][[f["code"] for f in doc["findings"]].index("AIDLC-CI-002")][
        "message"]


def test_a_ledger_line_edited_on_the_branch_fails_against_the_base(pr_with_decisions: Path) -> None:
    lines = read(pr_with_decisions, LEDGER).splitlines(keepends=True)
    plan = json.loads(lines[-1])
    assert plan["stage"] == "plan" and plan["decision"] == "approve"
    forged = {**plan, "reason": "approved, says the branch"}  # the hash left as it was
    lines[-1] = json.dumps(forged, sort_keys=True, separators=(",", ":")) + "\n"
    write(pr_with_decisions, LEDGER, "".join(lines))
    commit(pr_with_decisions, "ledger edited")
    doc = document(pr_with_decisions, "--base", "main")
    assert "AIDLC-CI-002" in codes(doc) and not doc["passed"]
    assert "AIDLC-LEDGER-001" in [f["code"] for f in doc["findings"]]


def link_the_bank_on_the_base(root: Path) -> None:
    """The base keeps its bank at records/ and `memory-bank` as a link to it; the branch starts there."""
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "main"], check=True)
    subprocess.run(["git", "-C", str(root), "mv", "memory-bank", "records"], check=True)
    os.symlink("records", root / "memory-bank")
    commit(root, "the bank linked")
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-B", "feature"], check=True)


def test_a_ledger_line_removed_behind_a_link_the_base_keeps_fails(pr_with_decisions: Path) -> None:
    """The base's ledger is read as a checkout of the base shows it, through its link: a branch that makes the bank a
    folder again and drops the plan approval on the way is judged against it (it passed: the base read as having
    no ledger, which is a base that has not adopted aidlc)."""
    link_the_bank_on_the_base(pr_with_decisions)
    (pr_with_decisions / "memory-bank").unlink()
    subprocess.run(["git", "-C", str(pr_with_decisions), "mv", "records", "memory-bank"], check=True)
    lines = read(pr_with_decisions, LEDGER).splitlines(keepends=True)
    write(pr_with_decisions, LEDGER, "".join(lines[:-1]))
    commit(pr_with_decisions, "the bank a folder again, the ledger trimmed")
    doc = document(pr_with_decisions, "--base", "main")
    assert codes(doc) == ["AIDLC-CI-002"] and not doc["passed"]


def test_a_branch_that_keeps_its_bank_behind_a_link_is_refused(pr_with_decisions: Path) -> None:
    link_the_bank_on_the_base(pr_with_decisions)
    lines = read(pr_with_decisions, LEDGER).splitlines(keepends=True)
    write(pr_with_decisions, LEDGER, "".join(lines[:-1]))
    commit(pr_with_decisions, "ledger trimmed")
    proc = ci(pr_with_decisions, "--base", "main")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "error: memory-bank is a symbolic link (to records)" in proc.stderr


def test_a_ledger_the_base_has_and_the_branch_deleted_is_an_error(pr_with_decisions: Path) -> None:
    (pr_with_decisions / LEDGER).unlink()
    commit(pr_with_decisions, "no more ledger")
    proc = ci(pr_with_decisions, "--base", "main")
    assert proc.returncode == 1
    assert "AIDLC-CI-001" in proc.stdout and "git restore --source=" in proc.stdout


def test_deleting_records_a_person_approved_is_a_warning_naming_each_file_and_its_approval(
        pr_with_decisions: Path) -> None:
    """A whole intent and bolt deleted leave no approval stale (nothing is left to judge): the reviewer is told."""
    shutil.rmtree(pr_with_decisions / "memory-bank" / "intents")
    shutil.rmtree(pr_with_decisions / "memory-bank" / "bolts")
    commit(pr_with_decisions, "records gone")
    doc = document(pr_with_decisions, "--base", "main")
    deleted = [f for f in doc["findings"] if f["code"] == "AIDLC-CI-016"]
    assert deleted and doc["passed"] and all(f["severity"] == "warning" for f in deleted)
    assert {f["path"] for f in deleted} >= {"memory-bank/intents/001-checkout-payments/requirements.md",
                                            "memory-bank/bolts/001-checkout-api/implementation-plan.md"}
    plan = next(f for f in deleted if f["path"].endswith("implementation-plan.md"))
    assert "bolt 001-checkout-api plan (approve) by Ada" in plan["message"]
    assert not document(pr_with_decisions, "--base", "HEAD")["findings"]  # once merged, nothing more is said
    strict = ci(pr_with_decisions, "--base", "main", "--strict")
    assert strict.returncode == 1 and "AIDLC-CI-016" in strict.stdout


# -- usage -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("base", ["nope", "", "--upload-pack=x"])
def test_a_base_this_clone_lacks_is_a_usage_error(pr: Path, base: str) -> None:
    proc = ci(pr, "--base", base)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "Next steps:" in proc.stderr


def test_a_base_a_whole_clone_lacks_is_named_wrong_not_shallow(pr: Path, tmp_path: Path) -> None:
    """`HEAD~50` on a branch of a few commits: fetching more history would not help, and the error does not say so."""
    proc = ci(pr, "--base", "HEAD~50")
    assert proc.returncode == 2 and "this repository has no commit 'HEAD~50'" in proc.stderr
    assert "unshallow" not in proc.stderr and "git log --oneline --first-parent" in proc.stderr
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{pr}", str(shallow)], check=True)
    proc = ci(shallow, "--base", "HEAD~1")
    assert proc.returncode == 2 and "this clone has no commit 'HEAD~1'" in proc.stderr
    assert "git fetch --unshallow" in proc.stderr


def test_a_base_sharing_no_commit_with_head_says_how_to_fetch_it_or_that_it_is_unrelated(
        pr: Path, tmp_path: Path) -> None:
    """A depth-1 clone of the branch and a depth-1 fetch of the base: both commits are here, the history between
    them is not (before: exit 2 with git's `no merge base` and "is the repository healthy?")."""
    code_change(pr)
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "-b", "feature", f"file://{pr}", str(shallow)], check=True)
    subprocess.run(["git", "-C", str(shallow), "fetch", "-q", "--depth", "1", "origin", "main:main"], check=True)
    proc = ci(shallow, "--base", "main")
    assert proc.returncode == 2 and "this shallow clone holds no commit that it and HEAD share" in proc.stderr
    assert "git fetch --unshallow" in proc.stderr and "Traceback" not in proc.stderr
    subprocess.run(["git", "-C", str(shallow), "fetch", "-q", "--unshallow"], check=True)
    assert ci(shallow, "--base", "main").returncode in (0, 1)
    subprocess.run(["git", "-C", str(pr), "checkout", "-q", "--orphan", "unrelated"], check=True)
    commit(pr, "another history")
    proc = ci(pr, "--base", "main")
    assert proc.returncode == 2 and "it and HEAD share no commit (unrelated histories)" in proc.stderr


def test_json_is_one_document_with_a_version(pr: Path) -> None:
    code_change(pr, trailer=None)
    proc = ci(pr, "--base", "main", "--format", "json")
    doc = json.loads(proc.stdout)
    assert doc["version"] == 1 and doc["checks"] == ["validate", "rules-from-base", "ledger-against-base",
                                                     "approval-authorship",
                                                     "pull-request-scope"]
    assert doc["summary"]["errors"] == 1 and re.fullmatch(r"[0-9a-f]{32}", doc["findings"][0]["fingerprint"])


# Each rule of the ci family and the test above that builds the history it finds.
BROKEN_FIXTURES = {
    "AIDLC-CI-001": test_a_ledger_the_base_has_and_the_branch_deleted_is_an_error,
    "AIDLC-CI-002": test_a_ledger_line_removed_on_the_branch_fails_against_the_base,
    "AIDLC-CI-003": test_an_approval_committed_by_another_person_fails_naming_both,
    "AIDLC-CI-004": test_a_human_approval_committed_by_a_bot_fails,
    "AIDLC-CI-005": test_an_untraced_change_to_governed_code_fails_with_an_annotation_at_the_file,
    "AIDLC-CI-006": test_a_trailer_needs_an_existing_bolt_whose_plan_the_commit_holds_as_approved,
    "AIDLC-CI-007": test_a_trailer_needs_an_existing_bolt_whose_plan_the_commit_holds_as_approved,
    "AIDLC-CI-008": test_a_named_bolt_marked_complete_needs_its_walkthrough_approved,
    "AIDLC-CI-010": test_a_change_outside_the_scope_of_the_approved_bolt_it_names_fails,
    "AIDLC-CI-011": test_with_signed_commits_required_an_unsigned_commit_fails,
    "AIDLC-CI-009": test_walkthrough.test_ci_refuses_an_approval_without_evidence_and_passes_one_made_at_the_gate,
}


def test_every_ci_rule_has_a_broken_fixture() -> None:
    from tests import test_ci_attributes as attributes
    from tests import test_ci_rulebook as rulebook
    from tests import test_ci_twins as twins

    fixtures = {
        **BROKEN_FIXTURES,
        "AIDLC-CI-012": rulebook.test_narrowing_governance_paths_does_not_let_untraced_code_pass,
        "AIDLC-CI-013": rulebook.test_a_change_of_the_rules_approved_by_another_person_passes_and_its_rules_judge,
        "AIDLC-CI-014": rulebook.test_a_commit_after_the_walkthrough_was_approved_does_not_ride_on_the_closed_bolt,
        "AIDLC-CI-015": rulebook.test_a_plan_approval_forged_as_policy_is_judged_by_the_base_policy,
        "AIDLC-CI-016": test_deleting_records_a_person_approved_is_a_warning_naming_each_file_and_its_approval,
        "AIDLC-CI-017": attributes.test_a_ledger_git_keeps_converted_cannot_carry_a_forged_approval,
        "AIDLC-CI-018": attributes.test_a_bank_file_git_converts_is_refused_and_the_step_mends_it,
        "AIDLC-CI-019": twins.test_a_second_spelling_of_the_ledger_is_refused_and_the_step_mends_it,
        "AIDLC-CI-020": attributes.test_an_approval_whose_diff_the_pull_request_hides_from_the_reviewer_is_refused}
    assert set(fixtures) == {code for code, rule in every_rule().items() if rule.family == "ci"}


def test_validate_never_reports_a_ci_rule(pr: Path) -> None:
    code_change(pr, trailer=None)
    proc = run_cli("--repo", str(pr), "validate", "--format", "json")
    assert proc.returncode == 0 and "AIDLC-CI" not in proc.stdout


def test_rules_lists_the_ci_rules(pr: Path) -> None:
    proc = run_cli("rules", "AIDLC-CI-005", cwd=pr)
    assert proc.returncode == 0 and "Aidlc-Bolt" in proc.stdout


def test_only_governed_paths_need_a_bolt(pr: Path) -> None:
    write(pr, "memory-bank/notes.md", "# notes\n")
    commit(pr, "notes")
    assert codes(document(pr, "--base", "main")) == []


@pytest.mark.parametrize(("path", "governed"), [
    ("src/a.py", True), ("src/x/y/z.c", True), ("srcx/a.py", False), ("lib/a.py", True), ("lib/b/a.py", False),
    ("app/main.go", True), ("apps/main.go", False), ("memory-bank/x.md", False), ("x/src/a.py", False),
])
def test_governance_paths_are_globs_relative_to_the_project(path: str, governed: bool) -> None:
    from aidlc.globs import matcher

    assert matcher(["src/**", "lib/*.py", "app"])(path) is governed


def test_a_project_in_a_subfolder_judges_its_own_paths(tmp_path: Path) -> None:
    top = tmp_path / "mono"
    subprocess.run(["git", "init", "-q", "-b", "main", str(top)], check=True)
    project = top / "services" / "pay"
    project.mkdir(parents=True)
    proc = run_cli("init", cwd=project, env={"CI": "true"})
    assert proc.returncode == 0, proc.stderr
    commit(top, "scaffold")
    subprocess.run(["git", "-C", str(top), "checkout", "-q", "-b", "feature"], check=True)
    write(top, "services/pay/src/pay.py", "x = 1\n")
    write(top, "services/other/src/other.py", "y = 1\n")
    commit(top, "two services, no bolt", BOB)
    doc = json.loads(run_cli("--format", "json", "ci", "--base", "main", str(project), cwd=top).stdout)
    assert [(f["code"], f["path"]) for f in doc["findings"] if f["code"].startswith("AIDLC-CI")] == [
        ("AIDLC-CI-005", "src/pay.py")]
    # GitHub and code scanning place findings by paths from the top of the repository.
    proc = run_cli_process("ci", "--base", "main", "--sarif", str(tmp_path / "pay.sarif"), str(project), cwd=top,
                           env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": ""})
    assert "\n::error file=services/pay/src/pay.py,title=AIDLC-CI-005::" in "\n" + proc.stdout
    location = json.loads((tmp_path / "pay.sarif").read_text())["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "services/pay/src/pay.py"
