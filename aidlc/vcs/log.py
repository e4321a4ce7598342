"""Commits as `git log` tells them: who, when, their trailers (a bolt's step commits carry `Aidlc-Bolt:`) and the
files each changed; a bolt's commits for the walkthrough, a pull request's for `aidlc ci`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from aidlc.vcs.changes import changed_files_between
from aidlc.vcs.process import run_git

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # what a root commit's changes are measured against


@dataclass(frozen=True)
class Commit:
    """One commit as `git log` tells it: who, when, what it says of itself (its trailers) and, where asked for,
    the files it changed."""

    sha: str
    parents: tuple[str, ...]
    author: str
    email: str
    date: str
    subject: str
    trailers: dict[str, str]  # the last value of each key
    bolts: tuple[str, ...]  # every `Aidlc-Bolt:` value (a commit may name more than one bolt)
    paths: tuple[str, ...] = ()  # with `--name-only`: the files it changed under the project (none for a merge)


# Each record starts with a separator, so the names `--name-only -z` prints after a record stay with it.
_LOG_FORMAT = "%x1e%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%s%x1f%(trailers:only,unfold)"


def _commits(out: bytes) -> list[Commit]:
    found = []
    for record in out.split(b"\x1e")[1:]:
        header, _, names = record.partition(b"\0")
        sha, parents, author, email, date, subject, lines = header.decode("utf-8", "replace").split("\x1f", 6)
        trailers, bolts = {}, []
        for line in lines.splitlines():
            key, _, value = (part.strip() for part in line.partition(":"))
            if key:
                trailers[key] = value
                if key == "Aidlc-Bolt" and value:
                    bolts.append(value)
        paths = tuple(n.decode("utf-8", "surrogateescape") for n in names.lstrip(b"\n").split(b"\0") if n)
        found.append(Commit(sha.strip(), tuple(parents.split()), author, email, date, subject, trailers,
                            tuple(bolts), paths))
    return found


def parents(project: Path, commit: str) -> list[str]:
    return run_git(project, ("log", "-1", "--format=%P", commit, "--")).decode().split()


def commit_with_trailers(project: Path, since: str, trailers: dict[str, str]) -> str | None:
    """The newest commit after `since` on HEAD whose trailers hold all of `trailers`."""
    out = run_git(project, ("log", "--format=%H%x1f%(trailers:only,unfold)%x1e", f"{since}..HEAD", "--"))
    for record in out.decode("utf-8", "replace").split("\x1e"):
        sha, _, block = record.strip().partition("\x1f")
        found = {}
        for line in block.splitlines():
            key, _, value = line.partition(":")
            found[key.strip()] = value.strip()
        if sha and all(found.get(k) == v for k, v in trailers.items()):
            return sha
    return None


def commits_with_trailer(project: Path, key: str, value: str, ref: str = "HEAD", files: bool = False) -> list[Commit]:
    """The commits in `ref`'s history whose trailer `key` is exactly `value`, oldest first; with `files`, each with
    the files it changed under the project (as `changed_by` finds them)."""
    names = ("-z", "--name-only", "-M", "--root", "--relative") if files else ()
    out = run_git(project, ("log", "--reverse", *names, f"--format={_LOG_FORMAT}", "-F", f"--grep={key}: {value}",
                            ref, "--"))
    found = [c for c in _commits(out) if c.trailers.get(key) == value]
    # git log shows no files for a merge: its changes against its first parent, as for the others.
    return [replace(c, paths=tuple(changed_by(project, c))) if files and len(c.parents) > 1 else c for c in found]


def changed_by(project: Path, commit: Commit) -> list[str]:
    """The files `commit` changed (against its first parent; a root commit: all its files), relative to
    `project`."""
    parent = commit.parents[0] if commit.parents else EMPTY_TREE
    return [c.path for c in changed_files_between(project, parent, commit.sha)]


def last_commit_of(project: Path, rel: str, ref: str = "HEAD") -> Commit | None:
    """The newest commit in `ref`'s history that changed the file `rel` (relative to `project`)."""
    found = _commits(run_git(project, ("log", "-1", f"--format={_LOG_FORMAT}", ref, "--", rel)))
    return found[0] if found else None


def commits_between(project: Path, base: str, head: str = "HEAD") -> list[Commit]:
    """The commits of `base..head`, oldest first, with the files each changed under the project; for a merge,
    the files it changed against every parent (`-c`: what the merge itself brought, beyond either side)."""
    return commits_in(project, f"{base}..{head}")


def commits_in(project: Path, revisions: str = "HEAD") -> list[Commit]:
    """The commits `revisions` names (a commit: its whole history; `A..B`), as `commits_between` gives them."""
    return _commits(run_git(project, ("log", "--reverse", "-z", "-c", "--no-renames", "--name-only", "--relative",
                                      f"--format={_LOG_FORMAT}", revisions, "--")))
