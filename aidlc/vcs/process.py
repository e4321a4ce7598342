"""Running git: one `git` process per call (argument lists, never a shell), its environment and its errors; and
GitPython, imported only where a call needs it (it costs start-up time)."""

from __future__ import annotations

import os
from pathlib import Path

from aidlc.errors import UsageError
from aidlc.names import arg

# No prompts, untranslated messages, and paths taken as written (a file named `*.md` is not a pattern).
# GIT_NO_REPLACE_OBJECTS: the objects git keeps are read, never a `git replace` stand-in (a ref any process that
# runs in the repository, a check's command among them, can write).
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1", "GIT_NO_REPLACE_OBJECTS": "1"}
# The run's own commits skip git's automatic maintenance (gc, repack), which costs each commit milliseconds: the
# person's next git command runs it.
NO_MAINTENANCE = ("-c", "maintenance.auto=false", "-c", "gc.auto=0")
# The run's own git commands (commits, checkouts) run no hook: a hook is a file in .git/hooks that code a check runs
# could have written, and it would run outside that check, as the person.
NO_HOOKS = ("-c", f"core.hooksPath={os.devnull}")


def run_git(where: Path, args: tuple[str, ...], stdin: bytes | None = None, ok: tuple[int, ...] = (0,)) -> bytes:
    """The output of `git -C where args...`; a UsageError naming the command when git exits with a code not in
    `ok`."""
    proc = git_process(where, args, stdin)
    if proc.returncode not in ok:
        raise git_failed(where, args, proc.stderr)
    return proc.stdout


def git_process(where: Path, args: tuple[str, ...], stdin: bytes | None = None,
                env: dict[str, str] | None = None):
    # imported here: a command that runs no git does not pay for it at start-up
    import subprocess

    try:
        return subprocess.run(["git", "-C", str(where), *args], input=stdin, capture_output=True, check=False,
                              env={**os.environ, **_GIT_ENV, **(env or {})})
    except OSError as exc:
        raise UsageError(f"git is not available: {exc.strerror}", ["install git, then rerun the command"]) from None


def git_failed(where: Path, args: tuple[str, ...], stderr: bytes) -> UsageError:
    command = next(a for a in args if not a.startswith("-") and "=" not in a)  # after any `-c key=value`
    return UsageError(f"git {command} failed in {where}: {stderr.decode(errors='replace').strip()}",
                      ["git status    # is the repository healthy?"])


def gitpython():
    """The GitPython module, imported on first use."""
    try:
        import git
    except ImportError as exc:  # GitPython imports but finds no git executable
        raise UsageError(f"git is not available: {exc}", ["install git, then rerun the command"]) from None
    return git


def open_repo(path: Path):
    """The GitPython repository that holds `path`; a UsageError saying how to make one outside a repository."""
    git = gitpython()
    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise UsageError(f"{path} is not inside a Git repository", [f"aidlc init --git {arg(str(path))}"]) from None
    repo.git.update_environment(GIT_NO_REPLACE_OBJECTS="1")
    return repo
