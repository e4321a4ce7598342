"""The only module that talks to git. GitPython is imported lazily: it costs start-up time."""

from __future__ import annotations

from pathlib import Path

from aidlc.errors import UsageError


def _git():  # type: ignore[no-untyped-def]
    try:
        import git
    except ImportError as exc:  # GitPython imports but finds no git executable
        raise UsageError(f"git is not available: {exc}", ["install git, then rerun the command"]) from None
    return git


def repo_root(path: Path) -> Path | None:
    """The top of the work tree that contains `path`, or None outside a repository."""
    git = _git()
    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    return Path(repo.working_tree_dir) if repo.working_tree_dir else None


def init_repo(path: Path) -> None:
    _git().Repo.init(path)
