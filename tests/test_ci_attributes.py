"""What git keeps is what `aidlc ci` judges (aidlc/ci/checks.py ledger_as_committed and records_attributes,
aidlc/bank/rulefiles.py): a .gitattributes conversion cannot make the ledger git keeps and the ledger a checkout shows
two ledgers, nor any records file two files, and the attributes git gives the ledger are a rule, read as git reads
them. Each attack is made with git and the CLI, as a
pull-request author would make it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from aidlc.names import arg
from tests.aidlc_docs_sample import AUDIT, ENTRIES, STATE, DocsRepo, audit_text, build_docs_repo, stamp
from tests.helpers import run_cli
from tests.test_ci import (  # noqa: F401 - pr is a fixture
    ADA,
    CODE,
    approved_plan,
    code_change,
    commit,
    document,
    pr,
)
from tests.test_ci_rulebook import EVE, PATHS, found
from tests.test_gate import LEDGER, edit, git, run, set_identity, write

UTF16 = "events.jsonl text working-tree-encoding=UTF-16LE\n"


def even(root: Path) -> None:
    """UTF-16 needs an even number of bytes: a ledger of an odd number loses its last newline (a last line without
    one is read all the same)."""
    ledger = root / LEDGER
    if ledger.stat().st_size % 2:
        ledger.write_bytes(ledger.read_bytes().removesuffix(b"\n"))


def forged_rules_change(root: Path) -> None:
    """Eve narrows the governed paths, commits code no bolt traces, and records the change of the rules approved
    "by Bob" herself, with the ledger kept as UTF-16: git keeps garbage, the checkout shows every event."""
    edit(root, "aidlc.yaml", PATHS, "paths: []")
    code_change(root, trailer=None, who=EVE)
    write(root, "memory-bank/.gitattributes", UTF16)
    set_identity(root, *EVE)
    approved = run(root, "gate", "approve", "policy", "--stage", "change", "--as", "Bob Builder <bob@x.org>",
                   "--reason", "reviewed")
    assert approved.exit_code == 0, approved.stderr
    set_identity(root)
    even(root)
    git(root, "rm", "-q", "--cached", LEDGER)  # added again: stored through the attribute
    commit(root, "rules: govern nothing; approved", EVE)
    assert b'"seq"' not in subprocess.run(["git", "-C", str(root), "show", f"HEAD:{LEDGER}"], check=True,
                                          capture_output=True).stdout  # git keeps no event


def test_a_ledger_git_keeps_converted_cannot_carry_a_forged_approval(pr: Path) -> None:  # noqa: F811
    """Before: `aidlc ci passed`. The checkout's ledger held "Bob's" approval of the change of the rules, so the
    pull request's rules judged it; who committed that approval was read from the ledger git keeps, where there was
    none to judge."""
    forged_rules_change(pr)
    doc = document(pr, "--base", "main")
    assert not doc["passed"]
    [mismatch] = [f for f in doc["findings"] if f["code"] == "AIDLC-CI-017"]
    assert (mismatch["path"], mismatch["line"]) == (LEDGER, 1)
    assert "working-tree-encoding=UTF-16LE" in mismatch["message"]
    assert mismatch["fix"].startswith(f"git check-attr -a -- {LEDGER}    # remove the attribute")
    step = mismatch["fix"].partition(", then: ")[2]
    # The attribute is a change of the rules, found as git reads it (a .gitattributes in the bank's folder).
    changed = [f for f in doc["findings"] if f["path"] == "memory-bank/.gitattributes"]
    assert [f["code"] for f in changed] == ["AIDLC-CI-013"], changed
    assert "working-tree-encoding=UTF-16LE (the base's: merge=aidlc-ledger, -text)" in changed[0]["message"]

    # The step the finding gives, taken (the attribute's file deleted: git would read it from the index until that is
    # staged): the ledger git keeps is the checkout's, and the forgery is plain.
    (pr / "memory-bank" / ".gitattributes").unlink()
    env = {**os.environ, "GIT_AUTHOR_NAME": EVE[0], "GIT_AUTHOR_EMAIL": EVE[1], "GIT_COMMITTER_NAME": EVE[0],
           "GIT_COMMITTER_EMAIL": EVE[1]}
    subprocess.run(["bash", "-c", step.replace("git commit", "git commit -q -m 'ledger: kept as written'")],
                   cwd=pr, env=env, check=True)
    doc = document(pr, "--base", "main")
    assert "AIDLC-CI-017" not in [f["code"] for f in doc["findings"]]
    assert {("AIDLC-CI-003", LEDGER), ("AIDLC-CI-012", "aidlc.yaml"), ("AIDLC-CI-005", CODE)} <= set(found(doc))


def test_a_ledger_destroyed_in_git_but_whole_in_the_checkout_is_refused(pr: Path) -> None:  # noqa: F811
    """Before: `aidlc ci passed`, and once merged the next pull request could drop any approval unseen (the base's
    ledger, as git keeps it, held no event to miss)."""
    approved_plan(pr)
    subprocess.run(["git", "-C", str(pr), "branch", "-f", "main", "HEAD"], check=True)
    write(pr, "memory-bank/.gitattributes", UTF16)
    even(pr)
    git(pr, "rm", "-q", "--cached", LEDGER)
    commit(pr, "ledger: utf-16", EVE)
    doc = document(pr, "--base", "main")
    assert ("AIDLC-CI-017", LEDGER) in found(doc) and ("AIDLC-CI-012", "memory-bank/.gitattributes") in found(doc)


def test_attributes_are_read_as_git_reads_them(pr: Path) -> None:  # noqa: F811
    """A bracket pattern in the top .gitattributes, or an attribute that hides the ledger's diff in a review, set in
    the bank's own .gitattributes: both change what git gives the ledger, a change of the rules."""
    with (pr / ".gitattributes").open("a", encoding="utf-8") as attributes:
        attributes.write("memory-bank/events.json[l] merge=union\n")
    write(pr, "memory-bank/.gitattributes", "events.jsonl linguist-generated\n")
    commit(pr, "attributes", EVE)
    doc = document(pr, "--base", "main")
    assert set(found(doc)) == {("AIDLC-CI-012", "memory-bank/.gitattributes")}
    message = doc["findings"][0]["message"]
    assert "to merge=union, -text, linguist-generated (the base's: merge=aidlc-ledger, -text)" in message


def test_a_decision_not_committed_yet_is_no_mismatch_and_an_edit_not_committed_is(pr: Path) -> None:  # noqa: F811
    approved_plan(pr)
    set_identity(pr)
    assert run(pr, "gate", "approve", "policy", "--stage", "change", "--reason", "ok").exit_code == 0
    assert "AIDLC-CI-017" not in [f["code"] for f in document(pr, "--base", "main")["findings"]]
    ledger = pr / LEDGER
    ledger.write_bytes(ledger.read_bytes().replace(b'"reason":"ok"', b'"reason":"OK"'))  # in the last line only
    git(pr, "add", LEDGER)
    commit(pr, "ledger", ADA)
    ledger.write_bytes(ledger.read_bytes().replace(b'"reason":"OK"', b'"reason":"ok"'))
    [mismatch] = [f for f in document(pr, "--base", "main")["findings"] if f["code"] == "AIDLC-CI-017"]
    assert "the work tree holds a change not committed" in mismatch["message"]
    assert mismatch["fix"] == f"git diff HEAD -- {LEDGER}    # commit the change, or restore it: git restore -- " \
        f"{LEDGER}"


# -- records files git converts ----------------------------------------------------------------------------------
def docs_pull_request(root: Path) -> DocsRepo:
    """An aidlc-docs project adopted on `base`, Build and Test not yet ticked nor approved, and a branch `pr`."""
    repo = build_docs_repo(root)
    repo.replace(STATE, "- [x] Build and Test", "- [ ] Build and Test")
    repo.write(AUDIT, audit_text(ENTRIES[:-1]))
    repo.commit("build and test still open", stamp(len(ENTRIES)))
    assert run_cli("init", cwd=root).returncode == 0
    repo.commit("adopt aidlc", stamp(len(ENTRIES)))
    git(root, "branch", "base")
    git(root, "checkout", "-q", "-b", "pr")
    return repo


def test_a_tick_a_conversion_hides_in_a_code_fence_is_refused(tmp_path: Path) -> None:
    """The state file as git keeps it shows the tick between two `‾‾‾` lines; SHIFT-JIS (glibc's iconv) checks
    `‾` out as `~`: the tick stands inside a code fence in the checkout, which the stage checks read. Before: `aidlc
    ci passed` with one warning (AIDLC-DOCS-028, from git's side)."""
    repo = docs_pull_request(tmp_path / "shop")
    state = repo.read(STATE).replace("- [ ] Build and Test - EXECUTE", "‾‾‾\n- [x] Build and Test - EXECUTE\n‾‾‾")
    repo.write(STATE, "".join(char for char in state if ord(char) < 0x2600))  # no emoji: SHIFT-JIS has none
    repo.commit("build and test done")
    with (repo.root / ".gitattributes").open("a", encoding="utf-8") as attributes:
        attributes.write(f"{STATE} working-tree-encoding=SHIFT-JIS\n")
    git(repo.root, "add", ".gitattributes")
    git(repo.root, "commit", "-qm", "attributes")
    clone = tmp_path / "ci"  # what CI checks out
    subprocess.run(["git", "clone", "-q", "-b", "pr", str(repo.root), str(clone)], check=True, capture_output=True)
    if "~~~" not in (clone / STATE).read_text(encoding="shift_jis"):
        pytest.skip("this machine's iconv does not check `‾` out as `~` in SHIFT-JIS")
    git(clone, "branch", "base", "origin/base")
    doc = document(clone, "--base", "base")
    assert not doc["passed"]
    [converted] = [f for f in doc["findings"] if f["code"] == "AIDLC-CI-018"]
    assert converted["path"] == STATE and "working-tree-encoding=SHIFT-JIS" in converted["message"]


def test_a_bank_file_git_converts_is_refused_and_the_step_mends_it(pr: Path) -> None:  # noqa: F811
    """`ident` on a story: the checkout's `$Id$` is not the committed one. The step the finding gives, taken, leaves
    no finding."""
    story = next(path for path in sorted((pr / "memory-bank").rglob("*.md")) if "/stories/" in path.as_posix())
    rel = story.relative_to(pr).as_posix()
    story.write_text(story.read_text(encoding="utf-8") + "\n<!-- $Id$ -->\n", encoding="utf-8")
    write(pr, "memory-bank/.gitattributes", "*.md ident\n")
    commit(pr, "ids", EVE)
    subprocess.run(["git", "-C", str(pr), "checkout", "-q", "--", rel], check=True)
    story.unlink()
    subprocess.run(["git", "-C", str(pr), "checkout", "-q", "--", rel], check=True)  # checked out through the filter
    doc = document(pr, "--base", "main")
    converted = [f for f in doc["findings"] if f["code"] == "AIDLC-CI-018"]
    assert rel in [f["path"] for f in converted] and "gives it ident" in converted[0]["message"]
    (pr / "memory-bank" / ".gitattributes").unlink()
    step = converted[0]["fix"].partition(", then: ")[2].replace(arg(converted[0]["path"]), arg(rel))
    env = {**os.environ, "GIT_AUTHOR_NAME": EVE[0], "GIT_AUTHOR_EMAIL": EVE[1], "GIT_COMMITTER_NAME": EVE[0],
           "GIT_COMMITTER_EMAIL": EVE[1]}
    subprocess.run(["bash", "-c", step.replace("git commit", "git commit -q -m 'no ids'")], cwd=pr, env=env,
                   check=True)
    assert "AIDLC-CI-018" not in [f["code"] for f in document(pr, "--base", "main")["findings"]]


# -- records files hidden from the reviewer ----------------------------------------------------------------------
@pytest.mark.parametrize("attribute", ["-diff", "binary", "linguist-generated"])
def test_an_approval_whose_diff_the_pull_request_hides_from_the_reviewer_is_refused(tmp_path: Path,
                                                                                     attribute: str) -> None:
    """The pull request logs Build and Test's approval in the audit log and ticks it, and its .gitattributes folds
    the audit log's diff away (GitHub) or shows it as a binary file: the reviewer who approves the pull request is
    never shown the approval it adds. Before: `aidlc ci passed`, no finding."""
    repo = docs_pull_request(tmp_path / "shop")
    with (repo.root / ".gitattributes").open("a", encoding="utf-8") as attributes:
        attributes.write(f"aidlc-docs/*.md {attribute}\n")
    repo.write(AUDIT, audit_text(ENTRIES))
    repo.replace(STATE, "- [ ] Build and Test", "- [x] Build and Test")
    repo.commit("build and test approved", stamp(len(ENTRIES)))
    doc = document(repo.root, "--base", "base")
    assert not doc["passed"]
    [hidden] = [f for f in doc["findings"] if f["code"] == "AIDLC-CI-020"]
    shown = "-diff" if attribute == "binary" else attribute
    assert hidden["path"] == STATE and hidden["message"].startswith(
        f"the pull request's .gitattributes gives {STATE} and 1 more records file {shown}"), hidden
    # The same attribute on the base is the team's, made before: not the pull request's doing.
    git(repo.root, "checkout", "-q", "base")
    git(repo.root, "checkout", "-q", "pr", "--", ".gitattributes")
    git(repo.root, "commit", "-qm", "attributes on the base")
    git(repo.root, "checkout", "-q", "pr")
    git(repo.root, "merge", "-q", "--no-edit", "base")
    assert "AIDLC-CI-020" not in [f["code"] for f in document(repo.root, "--base", "base")["findings"]]


def test_a_memory_bank_file_the_pull_request_hides_is_refused(pr: Path) -> None:  # noqa: F811
    with (pr / ".gitattributes").open("a", encoding="utf-8") as attributes:
        attributes.write("memory-bank/intents/** linguist-generated=true\n")
    commit(pr, "fold the bank's diffs", EVE)
    [hidden] = [f for f in document(pr, "--base", "main")["findings"] if f["code"] == "AIDLC-CI-020"]
    assert hidden["path"].startswith("memory-bank/intents/") and "linguist-generated=true" in hidden["message"]
