"""What a bolt run and its evidence report ask of git, each answered with as few git processes as it takes:
the work tree in one `git status`, a step's commit and its sha without `rev-parse`, a bolt's commits with their
files in one `git log`, the lines changed in one `git diff`. Real repositories, real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aidlc import vcs
from aidlc.errors import UsageError


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def new_repo(root: Path, *options: str) -> Path:
    subprocess.run(["git", "init", "-q", *options, str(root)], check=True, capture_output=True)
    git(root, "config", "user.name", "Ada Lovelace")
    git(root, "config", "user.email", "ada@example.org")
    return root


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = new_repo(tmp_path / "repo")
    write(root, "app/a.py", "".join(f"line {n}\n" for n in range(40)))
    write(root, "app/b.py", "b\n")
    write(root, "app/gone.py", "gone\n")
    write(root, "top.txt", "top\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


def test_the_work_tree_in_one_status(repo: Path) -> None:
    git(repo, "checkout", "-qb", "aidlc/001-we]ird")
    write(repo, "app/b.py", "changed\n")
    write(repo, "app/new/deep.py", "new\n")
    write(repo, "app/app/inner.py", "named like the project folder\n")
    git(repo, "config", "status.relativePaths", "false")  # a person's setting: the paths are still the project's
    write(repo, "top.txt", "changed\n")  # outside the project folder: not listed
    (repo / "app/gone.py").unlink()
    git(repo, "mv", "app/a.py", "app/moved.py")

    tree = vcs.work_tree(repo / "app")

    assert tree.head == git(repo, "rev-parse", "HEAD").strip()
    assert tree.branch == "aidlc/001-we]ird"
    assert sorted(tree.changed) == ["a.py", "app/inner.py", "b.py", "gone.py", "moved.py", "new/deep.py"]
    assert vcs.changed_paths(repo) == vcs.work_tree(repo).changed


def test_the_work_tree_before_the_first_commit_and_detached(tmp_path: Path, repo: Path) -> None:
    empty = new_repo(tmp_path / "empty")
    write(empty, "x.txt", "x\n")
    assert vcs.work_tree(empty) == vcs.WorkTree(None, vcs.work_tree(empty).branch, ["x.txt"])
    git(repo, "checkout", "-q", "--detach")
    assert vcs.work_tree(repo).branch is None


def test_a_runs_git_commands_run_no_hook_code_a_check_could_have_written(repo: Path) -> None:
    """A check's code can write .git/hooks; the hook would run outside the check, as the person (and could decide
    a gate): the run's commits and checkouts run none."""
    marker = repo.parent / "hook-ran"
    for name in ("pre-commit", "commit-msg", "post-commit", "post-checkout"):
        hook = repo / ".git/hooks" / name
        hook.parent.mkdir(exist_ok=True)  # a repository git made without its templates has none yet
        hook.write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
        hook.chmod(0o755)
    parent = git(repo, "rev-parse", "HEAD").strip()
    vcs.create_branch(repo, "aidlc/hooks", parent)
    write(repo, "app/c.py", "step\n")
    sha = vcs.commit_step(repo, ["app/c.py"], "step\n\nAidlc-Stage: execute\n", parent)
    vcs.restore_paths(repo, parent, ["app/c.py"])
    vcs.checkout(repo, "aidlc/hooks")
    assert sha == git(repo, "rev-parse", "HEAD").strip()
    assert not marker.exists(), marker.read_text()
    git(repo, "commit", "-q", "--allow-empty", "-m", "a person's own commit runs their hooks")
    assert marker.read_text().split() == ["pre-commit", "commit-msg", "post-commit"]


def test_a_step_commit_starts_no_git_maintenance(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git runs `maintenance run --auto` after a commit, unless told not to: a run's commits skip it (the person's
    next git command runs it). The suite switches it off for its own commits (tests/conftest.py); not here."""
    monkeypatch.delenv("GIT_CONFIG_COUNT", raising=False)
    trace = tmp_path / "git-trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    parent = git(repo, "rev-parse", "HEAD").strip()
    write(repo, "app/b.py", "step\n")
    vcs.commit_step(repo, ["app/b.py"], "step\n", parent)
    started = [line.split("trace: built-in: git ", 1)[1].split()[0] for line in trace.read_text().splitlines()
               if "trace: built-in: git " in line]
    assert "commit" in started and "maintenance" not in started, started


def test_a_step_commit_names_its_sha_without_rev_parse(repo: Path) -> None:
    git(repo, "checkout", "-qb", "aidlc/x]y")
    write(repo, "app/b.py", "step\n")
    parent = git(repo, "rev-parse", "HEAD").strip()

    sha = vcs.commit_step(repo, ["app/b.py"], "step\n\nAidlc-Stage: execute\n", parent)

    assert sha == git(repo, "rev-parse", "HEAD").strip()
    assert git(repo, "log", "-1", "--format=%P").strip() == parent
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["app/b.py"]
    git(repo, "checkout", "-q", "--detach")
    assert vcs.commit_step(repo, [], "empty step\n", sha) == git(repo, "rev-parse", "HEAD").strip()


def test_a_step_commit_in_a_sha256_repository(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "sha256", "--object-format=sha256")
    write(root, "a.txt", "a\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    write(root, "a.txt", "b\n")
    sha = vcs.commit_step(root, ["a.txt"], "step\n", git(root, "rev-parse", "HEAD").strip())
    assert len(sha) == 64 and sha == git(root, "rev-parse", "HEAD").strip()


def test_a_step_commit_leaves_out_an_ignored_path_and_stages_a_removal(repo: Path) -> None:
    write(repo, ".gitignore", "app/ignored.md\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore")
    write(repo, "app/ignored.md", "not committed\n")
    write(repo, "app/b.py", "step\n")
    (repo / "app/gone.py").unlink()

    vcs.commit_step(repo, ["app/b.py", "app/gone.py", "app/ignored.md"], "step\n",
                    git(repo, "rev-parse", "HEAD").strip())

    assert sorted(git(repo, "show", "--name-status", "--format=", "HEAD").splitlines()) == \
        ["D\tapp/gone.py", "M\tapp/b.py"]


def test_a_failing_add_is_a_clear_error(repo: Path) -> None:
    (repo / ".git/index.lock").write_text("")
    write(repo, "app/b.py", "step\n")
    with pytest.raises(UsageError, match="git add failed"):
        vcs.commit_step(repo, ["app/b.py"], "step\n", git(repo, "rev-parse", "HEAD").strip())


def test_line_counts_in_one_diff(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "mv", "app/a.py", "app/moved.py")
    write(repo, "app/moved.py", (repo / "app/moved.py").read_text() + "one more\n")
    (repo / "app/data.bin").write_bytes(b"\0\1\2")
    write(repo, "app/b.py", "b\nc\n")
    (repo / "app/gone.py").unlink()
    write(repo, "top.txt", "outside the project\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "second")

    counts = vcs.line_counts(repo / "app", base, "HEAD")

    assert sorted(counts, key=lambda c: c.path) == [
        vcs.LineCounts("b.py", "M", 1, 0), vcs.LineCounts("data.bin", "A", None, None),
        vcs.LineCounts("gone.py", "D", 0, 1), vcs.LineCounts("moved.py", "R", 1, 0)]
    assert {c.path: c.status for c in vcs.changed_files_between(repo / "app", base, "HEAD")} == \
        {c.path: c.status for c in counts}
    assert [c.path for c in vcs.line_counts(repo, base, "HEAD", outside=("app",))] == ["top.txt"]


def test_a_bolts_commits_with_their_files_in_one_log(repo: Path) -> None:
    def commit(message: str, rel: str) -> None:
        write(repo, rel, message + "\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"{message}\n\nAidlc-Bolt: 001-x\n")

    commit("code", "app/b.py")
    commit("bank only", "memory-bank/bolts/001-x/bolt.md")
    git(repo, "checkout", "-qb", "side", "HEAD~2")
    write(repo, "app/side.py", "side\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "side")
    git(repo, "checkout", "-q", "-")
    git(repo, "merge", "-q", "--no-ff", "side", "-m", "merge\n\nAidlc-Bolt: 001-x\n")

    found = vcs.commits_with_trailer(repo, "Aidlc-Bolt", "001-x", files=True)

    assert [c.subject for c in found] == ["code", "bank only", "merge"]
    assert [list(c.paths) for c in found] == [vcs.changed_by(repo, c) for c in found]
    assert [list(c.paths) for c in found] == [["app/b.py"], ["memory-bank/bolts/001-x/bolt.md"], ["app/side.py"]]
    assert all(not c.paths for c in vcs.commits_with_trailer(repo, "Aidlc-Bolt", "001-x"))


def test_unsigned_commits_are_read_from_the_objects_and_a_missing_one_is_not_guessed(repo: Path,
                                                                                    tmp_path: Path) -> None:
    key = tmp_path / "signing"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    unsigned = git(repo, "rev-parse", "HEAD").strip()
    write(repo, "top.txt", "signed\n")
    git(repo, "-c", "gpg.format=ssh", "-c", f"user.signingkey={key}", "commit", "-qam", "signed", "-S")
    signed = git(repo, "rev-parse", "HEAD").strip()
    assert vcs.unsigned(repo, [unsigned, "0" * 40, signed]) == [unsigned]
    assert vcs.unsigned(repo, []) == []
