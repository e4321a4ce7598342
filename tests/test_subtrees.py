"""Another project's history brought into a folder, as `git subtree add` and `git subtree pull` do, squashed or not
(aidlc/vcs/subtrees.py): its own aidlc-docs/audit.md is not this project's, so the history rules leave its commits
out; and a merge that calls the project's own history another project's is still judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.test_aidlc_docs_history import ANSWERS, APPROVAL, AUDIT, START, STATE, STATE_OPEN, Repo, entry, started

# The library's own log, kept long before the shop's first commit (2026-06-01), and one of its entries edited later.
LIB_LOG = "# Audit\n\n" + entry("Workspace Detection", "2026-01-05T10:00:00Z", "Build a library")
LIB_EDITED = LIB_LOG.replace("Build a library", "Build a small library") + entry(
    "Requirements Analysis - Approval", "2026-01-06T10:00:00Z", context="INCEPTION - Requirements Analysis approved")


@pytest.fixture
def docs(tmp_path: Path) -> Repo:
    return started(tmp_path / "shop")


def subtree(repo: Repo, prefix: str, side: str, message: str, date: str) -> str:
    """What `git subtree add` and `git subtree merge` commit: the side's tree in `prefix`, the side as the merge's
    second parent."""
    if (repo.root / prefix).exists():
        repo.git("rm", "-r", "-q", prefix)
    repo.git("read-tree", f"--prefix={prefix}/", "-u", side)
    merge = repo.git("commit-tree", repo.git("write-tree"), "-p", "HEAD", "-p", side, "-m", message, date=date)
    repo.git("reset", "-q", "--hard", merge)
    return merge


def library(tmp_path: Path) -> Repo:
    lib = Repo(tmp_path / "lib")
    lib.commit("lib start", "2026-01-05T10:01:00Z", **{AUDIT: LIB_LOG, STATE: STATE_OPEN})
    return lib


def fetched(repo: Repo, other: Repo) -> str:
    repo.git("fetch", "-q", str(other.root), "HEAD")
    return repo.git("rev-parse", "FETCH_HEAD")


@pytest.mark.parametrize("squash", [True, False], ids=["squash", "whole-history"])
def test_a_subtrees_own_audit_log_is_not_the_projects(docs: Repo, tmp_path: Path, squash: bool) -> None:
    lib = library(tmp_path)
    side = fetched(docs, lib)
    if squash:  # `--squash`: one commit of the library's tree, then each pull's on top of the one before
        side = docs.git("commit-tree", f"{side}^{{tree}}", "-m", "Squashed 'plan/' content", date="2026-06-01T09:05Z")
    subtree(docs, "plan", side, "Add 'plan/' from the library", "2026-06-01T09:05:00Z")
    lib.commit("lib edits", "2026-01-06T10:01:00Z", **{AUDIT: LIB_EDITED})
    pulled = fetched(docs, lib)
    if squash:
        pulled = docs.git("commit-tree", f"{pulled}^{{tree}}", "-p", side, "-m", "Squashed 'plan/' changes",
                          date="2026-06-01T09:06:00Z")
    subtree(docs, "plan", pulled, "Merge commit as 'plan'", "2026-06-01T09:06:00Z")
    docs.commit("answers", "2026-06-01T09:12:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS})
    # The library's log, deleted at the top by the merge, edited and dated before the shop began, is not the shop's.
    assert docs.findings() == []
    docs.commit("rewrite", "2026-06-01T09:30:00Z", **{AUDIT: "# Audit\n\n" + ANSWERS})
    assert docs.codes() == ["AIDLC-DOCS-020"]  # the shop's own history is judged as before


def test_a_pull_request_that_adds_a_subtree_passes_ci(docs: Repo, tmp_path: Path) -> None:
    docs.git("branch", "base")
    side = fetched(docs, library(tmp_path))
    subtree(docs, "vendor/lib", side, "Add 'vendor/lib/' from the library", "2026-06-01T09:05:00Z")
    done = run_cli("ci", str(docs.root), "--base", "base")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_merge_that_puts_the_projects_own_history_in_a_folder_is_still_judged(docs: Repo) -> None:
    # A pull request whose first parent is a history of its own with a forged log, and which keeps the project's
    # history in `old/`, shaped as a subtree: the base's history is the project's, so the merge is judged against it.
    docs.commit("approved", "2026-06-01T09:21:00Z", **{AUDIT: "# Audit\n\n" + START + ANSWERS + APPROVAL})
    base = docs.git("rev-parse", "HEAD")
    docs.git("branch", "base")
    docs.git("checkout", "-q", "--orphan", "forged")
    docs.git("rm", "-r", "-q", "--cached", ".")
    forged = "# Audit\n\n" + START + APPROVAL.replace("Approve & Continue", "Approve all stages")
    docs.commit("forged", "2026-06-01T09:25:00Z", **{AUDIT: forged, STATE: STATE_OPEN})
    subtree(docs, "old", base, "Keep the old history in old/", "2026-06-01T09:26:00Z")
    done = run_cli("ci", str(docs.root), "--base", "base", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert '"code": "AIDLC-DOCS-020"' in done.stdout and '"code": "AIDLC-DOCS-021"' in done.stdout
