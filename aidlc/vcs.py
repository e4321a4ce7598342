"""The only module that talks to git. GitPython is imported lazily: it costs start-up time."""

from __future__ import annotations

import subprocess
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


def _repo(path: Path):  # type: ignore[no-untyped-def]
    git = _git()
    try:
        return git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise UsageError(f"{path} is not inside a Git repository", [f"aidlc init --git {path}"]) from None


def head_commit(path: Path) -> str | None:
    """The sha of HEAD, or None in a repository without commits."""
    repo = _repo(path)
    try:
        return repo.head.commit.hexsha
    except ValueError:
        return None


def identity(path: Path) -> tuple[str | None, str | None]:
    """user.name and user.email from git config (repository, then global)."""
    reader = _repo(path).config_reader()
    return _config_value(reader, "user", "name"), _config_value(reader, "user", "email")


def _config_value(reader, section: str, option: str) -> str | None:  # type: ignore[no-untyped-def]
    import configparser

    try:
        value = reader.get_value(section, option)
    except (configparser.NoSectionError, configparser.NoOptionError):
        return None
    return str(value) if value not in (None, "") else None


def show_file(path: Path, ref: str, rel: str) -> bytes | None:
    """The bytes of `rel` at `ref`, or None when the file does not exist there."""
    git = _git()
    repo = _repo(path)
    try:
        commit = repo.commit(ref)
    except (git.BadName, ValueError):
        raise UsageError(f"unknown git ref {ref!r}", ["git branch -a    # the refs that exist"]) from None
    try:
        blob = commit.tree / rel
        return blob.data_stream.read()
    except KeyError:
        return None
    except ValueError:  # a well-formed sha that names no object fails only when it is read
        raise UsageError(f"unknown git ref {ref!r}", ["git branch -a    # the refs that exist"]) from None


def committed(path: Path, rel: str) -> bool:
    """True when HEAD holds `rel` (False in a repository with no commit yet, or outside one)."""
    if repo_root(path) is None or head_commit(path) is None:
        return False
    return show_file(path, "HEAD", rel) is not None


def set_config(path: Path, section: str, option: str, value: str) -> bool:
    """Set a repository-level git config value; returns False when it already had that value."""
    repo = _repo(path)
    if _config_value(repo.config_reader("repository"), section, option) == value:
        return False
    with repo.config_writer("repository") as writer:
        writer.set_value(section, option, value)
    return True


# -- commits named by ledger events ------------------------------------------------------------------------
def missing_commits(path: Path, commits: list[str]) -> tuple[set[str], bool] | None:
    """Of these full commit ids, those the repository at `path` does not hold as commits, looked up in one
    `git cat-file --batch-check` for all of them, and whether the repository is a shallow clone (which
    lacks history it could fetch). None outside a repository, or when git cannot answer."""
    if not commits:
        return set(), False
    try:
        done = subprocess.run(["git", "-C", str(path), "cat-file", "--batch-check"], input="\n".join(commits) + "\n",
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    answers = done.stdout.splitlines()
    if done.returncode != 0 or len(answers) != len(commits):
        return None
    missing = {commit for commit, answer in zip(commits, answers, strict=True) if answer.split()[1:2] != ["commit"]}
    return missing, bool(missing) and is_shallow(path)


def is_shallow(path: Path) -> bool:
    try:
        done = subprocess.run(["git", "-C", str(path), "rev-parse", "--is-shallow-repository"], capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"
