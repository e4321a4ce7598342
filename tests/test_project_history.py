"""aidlc/vcs/project_history.py on real repositories: a file at a commit is read as a checkout of that commit shows
it, through the symbolic links the commit keeps inside the repository (a records folder linked to where it lives),
and never through one leading out of it; ignore rules are asked only about paths git could track."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from aidlc import vcs
from tests.helpers import git_init


def commit_all(root: Path) -> str:
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=Ada", "-c", "user.email=ada@x.org", "commit", "-q", "-m",
                    "files"], check=True)
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """records/ holds the files; `memory-bank` links to it, `ledger` to a file in it, `docs/bank` to the link."""
    root = tmp_path / "repo"
    git_init(root)
    (root / "records/intents").mkdir(parents=True)
    (root / "records/events.jsonl").write_text("one\n")
    (root / "records/intents/a.md").write_text("intent\n")
    (root / "docs").mkdir()
    os.symlink("records", root / "memory-bank")
    os.symlink("records/events.jsonl", root / "ledger")
    os.symlink("../memory-bank", root / "docs/bank")
    return root


def test_a_file_is_read_through_the_links_the_commit_keeps(repo: Path) -> None:
    head = commit_all(repo)
    history = vcs.history(repo)
    assert history is not None
    found = history.read(head, ["memory-bank/events.jsonl", "ledger", "docs/bank/intents/a.md", "records/events.jsonl",
                                "memory-bank/none.md", "memory-bank"])
    assert found == {"memory-bank/events.jsonl": b"one\n", "ledger": b"one\n", "docs/bank/intents/a.md": b"intent\n",
                     "records/events.jsonl": b"one\n", "memory-bank/none.md": None, "memory-bank": None}


def test_links_that_lead_out_of_the_repository_or_round_in_a_loop_lead_to_nothing(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret\n")
    os.symlink(str(tmp_path / "outside.txt"), repo / "absolute")
    os.symlink("../outside.txt", repo / "up")
    os.symlink("b", repo / "a")
    os.symlink("a", repo / "b")
    head = commit_all(repo)
    history = vcs.history(repo)
    assert history is not None
    assert history.read(head, ["absolute", "up", "a", "b/x.md"]) == dict.fromkeys(["absolute", "up", "a", "b/x.md"])


def test_ignore_rules_are_not_asked_about_a_path_beyond_a_link(repo: Path) -> None:
    """git check-ignore refuses such a path outright ("beyond a symbolic link"): it would stop the whole command."""
    (repo / ".gitignore").write_text("*.log\n")
    commit_all(repo)
    history = vcs.history(repo)
    assert history is not None
    assert [found.path for found in history.ignored(["memory-bank/run.log", "records/run.log"])] == ["records/run.log"]


def test_a_checkout_of_a_commit_holds_its_files_and_history_and_is_removed_after(repo: Path) -> None:
    first = commit_all(repo)
    (repo / "records/events.jsonl").write_text("one\ntwo\n")
    (repo / ".git/hooks").mkdir(exist_ok=True)  # a repository git made without its templates has none yet
    (repo / ".git/hooks/post-checkout").write_text("#!/bin/sh\ntouch hooked\n")
    (repo / ".git/hooks/post-checkout").chmod(0o755)
    commit_all(repo)
    history = vcs.history(repo)
    assert history is not None
    with history.checkout(first) as there:
        assert (there / "records/events.jsonl").read_text() == "one\n" and not (there / "hooked").exists()
        assert vcs.history(there).head == first
    assert not there.exists()
    assert subprocess.run(["git", "-C", str(repo), "worktree", "list"], check=True, capture_output=True,
                          text=True).stdout.count("\n") == 1
