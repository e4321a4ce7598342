"""The work tree as git sees it: where the project sits in it, what one `git status` says (HEAD, the branch, the
changed files), and the files git tracks."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from aidlc.errors import UsageError
from aidlc.vcs.process import run_git


def prefix(project: Path) -> str:
    """The project's folder inside the work tree ("" at the top): git status names paths from the top."""
    return _prefix_of(str(project))


@functools.cache  # a folder's place in its work tree does not change while aidlc runs
def _prefix_of(project: str) -> str:
    return run_git(Path(project), ("rev-parse", "--show-prefix")).decode("utf-8", "surrogateescape").strip()


def project_prefix(project: Path) -> str:
    """The project's folder inside its Git work tree, ending in "/" ("" at the top, or outside a repository)."""
    try:
        return prefix(project)
    except UsageError:
        return ""


@dataclass(frozen=True)
class WorkTree:
    """What one `git status` says of the work tree."""

    head: str | None  # the sha of HEAD; None before the first commit
    branch: str | None  # the branch checked out; None with a detached HEAD
    changed: list[str]  # files with uncommitted changes or untracked (ignored ones left out), relative to the project


# `git status --porcelain=v2 -z` entries: how many space-separated fields come before the path.
_STATUS_FIELDS = {b"1": 8, b"2": 9, b"u": 10, b"?": 1}


def work_tree(project: Path) -> WorkTree:
    """HEAD, the branch and the changed files under `project`, from one git process."""
    top = prefix(project)  # with -z, git names paths from the top of the work tree, whatever the config says
    out = run_git(project, ("status", "--porcelain=v2", "--branch", "--no-ahead-behind", "-z",
                            "--untracked-files=all", "--", "."))
    head = branch = None
    paths: list[str] = []
    entries = iter(out.split(b"\0"))
    for entry in entries:
        if entry.startswith(b"# branch.oid "):
            head = None if entry.endswith(b"(initial)") else entry[13:].decode()
        elif entry.startswith(b"# branch.head "):
            branch = None if entry.endswith(b"(detached)") else entry[14:].decode("utf-8", "surrogateescape")
        elif (fields := _STATUS_FIELDS.get(entry[:1])) is not None:
            names = [entry.split(b" ", fields)[fields]]
            if entry[:1] == b"2":  # a rename or a copy names its source next
                names.append(next(entries))
            for raw in reversed(names):
                name = raw.decode("utf-8", "surrogateescape")
                paths.append(name[len(top):] if name.startswith(top) else name)
    return WorkTree(head, branch, paths)


def changed_paths(project: Path) -> list[str]:
    """Files with uncommitted changes or untracked (ignored ones left out), relative to `project`."""
    return work_tree(project).changed


def tracked_files(project: Path) -> list[str]:
    """The files git tracks under `project`, relative to it."""
    out = run_git(project, ("ls-files", "-z", "--", "."))
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]
