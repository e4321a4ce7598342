"""The git commands that change a repository: making one, setting its config, and a bolt run's branch, step commits
and files put back. Each of the run's own commands runs no hook (`NO_HOOKS`)."""

from __future__ import annotations

import re
from pathlib import Path

from aidlc.vcs.object_store import show_file
from aidlc.vcs.process import NO_HOOKS, NO_MAINTENANCE, git_failed, git_process, gitpython, open_repo, run_git
from aidlc.vcs.repository import config_value
from aidlc.vcs.status import prefix

# "[<branch> <sha>] <subject>"; a root commit says "(root-commit)" before the sha, a detached HEAD "[detached HEAD".
# A branch name holds no space, so the first " <sha>] " is the sha.
_SUMMARY = re.compile(rb"\[[^\n]*? ([0-9a-f]+)\] ")
_IGNORED = b"paths are ignored by one of your .gitignore files"


def init_repo(path: Path) -> None:
    gitpython().Repo.init(path)


def set_config(path: Path, section: str, option: str, value: str) -> bool:
    """Set a repository-level git config value; returns False when it already had that value."""
    repo = open_repo(path)
    if config_value(repo.config_reader("repository"), section, option) == value:
        return False
    with repo.config_writer("repository") as writer:
        writer.set_value(section, option, value)
    return True


def create_branch(project: Path, branch: str, start: str) -> None:
    """Create `branch` at `start` and check it out (the working tree keeps its files)."""
    run_git(project, (*NO_HOOKS, "checkout", "-q", "-b", branch, start))


def checkout(project: Path, branch: str) -> None:
    run_git(project, (*NO_HOOKS, "checkout", "-q", branch))


def commit_step(project: Path, paths: list[str], message: str, parent: str) -> str:
    """Stage `paths` (changes, new files, removals; a path .gitignore excludes is left out, as `git status` leaves
    it out) and commit them on HEAD (`parent`) as the person in git config; returns the new commit's sha. An empty
    step still gets its commit: each step is one commit, found again by its trailers."""
    if paths:
        added = git_process(project, ("add", "-A", "--", *paths))
        if added.returncode != 0 and not (added.returncode == 1 and _IGNORED in added.stderr):  # the rest is added
            raise git_failed(project, ("add",), added.stderr)
    # The summary line names the new commit, "abbreviated" to the length of a full sha (SHA-1 or SHA-256).
    full = len(parent) if len(parent) in (40, 64) else 40
    out = run_git(project, (*NO_MAINTENANCE, *NO_HOOKS, "-c", f"core.abbrev={full}", "commit", "--allow-empty",
                            "-m", message))
    summary = _SUMMARY.match(out)
    if summary and len(summary.group(1)) == full == len(parent):
        return summary.group(1).decode()
    return run_git(project, ("rev-parse", "HEAD")).decode().strip()


def restore_paths(project: Path, commit: str, paths: list[str]) -> None:
    """Put each file back as `commit` holds it; a file `commit` lacks is removed."""
    held = {p for p in paths if show_file(project, commit, (Path(prefix(project)) / p).as_posix()) is not None}
    if held:
        run_git(project, (*NO_HOOKS, "checkout", commit, "--", *sorted(held)))
    for rel in set(paths) - held:
        (project / rel).unlink(missing_ok=True)
