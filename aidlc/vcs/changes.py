"""What a change did to files: the files that differ between two commits (or since a pull request's fork point),
the lines each gained and lost, and the diff itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aidlc.vcs.process import run_git


@dataclass(frozen=True)
class FileChange:
    status: str  # A added, M modified, D deleted, R renamed, C copied, T type changed (git's letters)
    path: str  # relative to the folder asked about; for D the path at `base`
    old_path: str | None = None  # R and C: the path at `base`


@dataclass(frozen=True)
class LineCounts:
    path: str
    status: str  # git's letter, as in FileChange
    added: int | None  # None: a binary file
    removed: int | None


def is_outside(path: str, folders: tuple[str, ...]) -> bool:
    return not any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def changed_files_between(path: Path, base: str, head: str) -> list[FileChange]:
    """The files that differ between commits `base` and `head` under the folder `path`, relative to it, with
    renames found (git's default similarity); UsageError for a ref git does not know."""
    out = run_git(path, ("diff", "--no-ext-diff", "--no-textconv", "--relative", "--name-status", "-z", "-M",
                         base, head, "--"))
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes: list[FileChange] = []
    at = 0
    while at < len(fields) - 1:  # -z: the status, then one path (two for R and C), each ended by NUL
        status = fields[at][:1]
        if status in ("R", "C"):
            changes.append(FileChange(status, fields[at + 2], fields[at + 1]))
            at += 3
        else:
            changes.append(FileChange(status, fields[at + 1]))
            at += 2
    return changes


def same_code(project: Path, first: str, second: str, outside: tuple[str, ...] = ()) -> bool:
    """True when the two commits hold the same files under `project`, the folders `outside` aside."""
    return all(not is_outside(c.path, outside) for c in changed_files_between(project, first, second))


def changed_since_fork(project: Path, base: str, head: str = "HEAD") -> list[str]:
    """The files under the project that differ between the fork point of `base` and `head` and `head`
    (`git diff base...head`): what a pull request changes, whichever commits did it."""
    out = run_git(project, ("diff", "--no-ext-diff", "--no-textconv", "--relative", "--no-renames", "--name-only",
                            "-z", f"{base}...{head}", "--"))
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]


def line_counts(project: Path, base: str, head: str, outside: tuple[str, ...] = ()) -> list[LineCounts]:
    """Per file changed between `base` and `head` under `project`, except in the folders `outside`: git's
    status letter and the lines added and removed (one git process: `--raw` gives the letters, `--numstat` the
    lines, in that order)."""
    out = run_git(project, ("diff", "--no-ext-diff", "--no-textconv", "--relative", "--raw", "--numstat", "-z", "-M",
                            base, head, "--"))
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    statuses: dict[str, str] = {}
    counts, at = [], 0
    while at < len(fields) and fields[at]:
        if fields[at].startswith(":"):  # ":modes shas STATUS", then the path (two for R and C: old, new)
            status = fields[at].rsplit(" ", 1)[-1][:1]
            at += 3 if status in ("R", "C") else 2
            statuses[fields[at - 1]] = status
            continue
        added, removed, path = fields[at].split("\t", 2)
        if not path:  # a rename: the old path, then the new one, follow
            path, at = fields[at + 2], at + 3
        else:
            at += 1
        if is_outside(path, outside):
            counts.append(LineCounts(path, statuses.get(path, "M"), int(added) if added != "-" else None,
                                     int(removed) if removed != "-" else None))
    return counts


def diff_text(project: Path, base: str, head: str, paths: list[str]) -> str:
    """The unified diff of `paths` between the two commits."""
    if not paths:
        return ""
    return run_git(project, ("diff", "--no-ext-diff", "--no-textconv", "--relative", "-M", base, head, "--",
                             *paths)).decode("utf-8", "replace")


def commit_diff(project: Path, commit: str, paths: list[str]) -> str:
    """The unified diff of `paths` that `commit` made against its first parent (a root commit: against nothing)."""
    if not paths:
        return ""
    return run_git(project, ("diff-tree", "-p", "-r", "--root", "--no-commit-id", "--no-ext-diff", "--no-textconv",
                             "--relative", commit, "--", *paths)).decode("utf-8", "replace")
