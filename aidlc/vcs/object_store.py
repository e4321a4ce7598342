"""What git's object store holds: a file at a revision, the files a revision holds, raw objects read in one batch,
whether commits named elsewhere (by ledger events, by a pull request) are here and signed."""

from __future__ import annotations

from pathlib import Path

from aidlc.errors import UsageError
from aidlc.vcs.process import gitpython, open_repo, run_git
from aidlc.vcs.repository import head_commit, is_shallow, repo_root


def show_file(path: Path, ref: str, rel: str) -> bytes | None:
    """The bytes of `rel` at `ref`, or None when the file does not exist there."""
    git = gitpython()
    repo = open_repo(path)
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


def files_at(project: Path, ref: str, folders: tuple[str, ...] = ()) -> list[str]:
    """The files `ref` holds under `project` (only under its `folders`, given), relative to it."""
    out = run_git(project, ("ls-tree", "-r", "-z", "--name-only", ref, "--", *folders))
    return [n.decode("utf-8", "surrogateescape") for n in out.split(b"\0") if n]


def objects(where: Path, shas: list[str]) -> dict[str, bytes | None]:
    """The raw bytes of each object in `shas`, read in one `git cat-file --batch`; None for one this clone lacks."""
    found: dict[str, bytes | None] = dict.fromkeys(shas)
    if not shas:
        return found
    out = run_git(where, ("cat-file", "--batch", "--buffer"), stdin="".join(f"{sha}\n" for sha in shas).encode())
    at = 0
    for sha in shas:  # each: "<sha> <type> <size>\n", the bytes, "\n"; or "<sha> missing\n"
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split(b" ")
        if len(header) != 3:
            at = header_end + 1
            continue
        size = int(header[2])
        found[sha] = out[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
    return found


def unsigned(project: Path, shas: list[str]) -> list[str]:
    """Those of `shas` whose commit object carries no signature (no `gpgsig` header: GPG, SSH or X.509), in order;
    a commit this clone lacks is not judged. Whether a signature verifies is not asked here: that needs the
    signers' keys, which CI may lack."""
    found = []
    for sha, body in objects(project, shas).items():
        headers = (body or b"").split(b"\n\n", 1)[0].split(b"\n")
        if body is not None and not any(line.startswith((b"gpgsig ", b"gpgsig-sha256 ")) for line in headers):
            found.append(sha)
    return found


def missing_commits(path: Path, commits: list[str]) -> tuple[set[str], bool] | None:
    """Of these full commit ids, those the repository at `path` does not hold as commits, looked up in one
    `git cat-file --batch-check` for all of them, and whether the repository is a shallow clone (which
    lacks history it could fetch). None outside a repository, or when git cannot answer."""
    if not commits:
        return set(), False
    try:
        out = run_git(path, ("cat-file", "--batch-check"), ("\n".join(commits) + "\n").encode())
    except UsageError:
        return None
    answers = out.decode("utf-8", "replace").splitlines()
    if len(answers) != len(commits):
        return None
    missing = {commit for commit, answer in zip(commits, answers, strict=True) if answer.split()[1:2] != ["commit"]}
    return missing, bool(missing) and is_shallow(path)
