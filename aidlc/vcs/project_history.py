"""HEAD's history as the project names its paths: when a file was added (following moves), which commits touched
it, its bytes at any commit, which files changed since, the revisions that changed a folder with each parent's blob,
and the ignore rules that match a path. The rules read it as evidence.

It runs git itself (argument lists, never a shell): importing GitPython costs more than the few commands a rule
needs, and `git cat-file --batch` reads any number of files in one process."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from aidlc.vcs.ignore_rules import ignoring_rules
from aidlc.vcs.object_store import objects
from aidlc.vcs.process import NO_HOOKS, git_failed, git_process, run_git
from aidlc.vcs.subtrees import subtree_sides

MAX_READ = 4 * 1024 * 1024  # a file from history larger than this is not evidence of anything we read


@dataclass(frozen=True)
class Revision:
    """A commit that changed some files, with the blob of each as it and as each of its parents hold it."""

    sha: str
    parents: tuple[str, ...]
    author: str
    email: str
    committed: str  # the committer date, ISO 8601
    subject: str
    files: dict[str, tuple[str | None, tuple[str | None, ...]]]  # path -> (blob, blob in each parent); None: absent


@dataclass(frozen=True)
class Ignored:
    """A path an ignore rule matches: the file and line of the rule (relative to the project), and the rule."""

    path: str
    source: str
    line: int
    pattern: str


class History:
    """HEAD's history, with paths relative to `project` (the folder of aidlc.yaml), as the bank names them."""

    def __init__(self, top: Path, project: Path, head: str | None, shallow: bool) -> None:
        self.top = top
        self.project = project
        self.head = head  # None in a repository without commits
        self.shallow = shallow  # a shallow clone lacks the commits before its boundary: no search is complete
        self._prefix = project.relative_to(top).as_posix()  # "." when the project is the top
        self._sides: dict[str, tuple[str, ...]] = {}  # the commit judged from -> the subtree sides left out

    def _outside(self, since: str | None = None) -> tuple[str, ...]:
        """`^SIDE` for each merge's side that brought another project's history into a folder (aidlc/vcs/subtrees.py),
        judged from `since` (else HEAD): the history rules' walks (revisions, first_dates) and the signing history
        (touching) leave their commits out."""
        anchor = since or "HEAD"
        if anchor not in self._sides:
            self._sides[anchor] = subtree_sides(self.top, anchor) if self.head is not None else ()
        return tuple(f"^{side}" for side in self._sides[anchor])

    def _run(self, *args: str, stdin: bytes | None = None) -> bytes:
        return run_git(self.top, args, stdin)

    def _tree(self, rel: str) -> str:
        """`rel` as a path from the top of the work tree (raises ValueError for a path outside it)."""
        path = posixpath.normpath(posixpath.join(self._prefix, rel))
        if path == ".." or path.startswith("../") or posixpath.isabs(path):
            raise ValueError(f"{rel} is outside the repository")
        return path

    def _rel(self, tree_path: str) -> str:
        return Path(os.path.relpath(self.top / tree_path, self.project)).as_posix()

    def added(self, rel: str, rev: str = "HEAD") -> tuple[str, str, list[str]] | None:
        """(commit, path then, its parents) of the oldest commit of `rev`'s history that added `rel`, following moves
        that kept its bytes (`git mv`); None if no commit did."""
        path, found = self._tree(rel), None
        for _ in range(100):  # each round follows one move further back
            lines = self._run("log", rev, "--diff-filter=A", "--format=%H %P", "--", path).decode().splitlines()
            if not lines:
                break
            commit, *parents = lines[-1].split()
            found = commit, self._rel(path), parents
            moved = self._moved_into(commit, parents, path)
            if moved is None:
                break
            path, rev = moved
        return found

    def _moved_into(self, commit: str, parents: list[str], path: str) -> tuple[str, str] | None:
        """(path before, parent) when `commit` moved an unchanged file to `path` (exact renames only: cheap)."""
        if not parents:
            return None
        out = self._run("diff-tree", "-r", "-z", "-M100%", "--diff-filter=R", parents[0], commit).split(b"\0")
        # -z: ":modes shas R100", old path, new path, one after another
        for at in range(0, len(out) - 2, 3):
            if out[at + 2].decode("utf-8", "surrogateescape") == path:
                return out[at + 1].decode("utf-8", "surrogateescape"), parents[0]
        return None

    def last_holding(self, rel: str) -> str | None:
        """The newest commit of HEAD's history whose tree holds `rel` ("HEAD" when HEAD does); None if none does."""
        tree_path = self._tree(rel)
        if self._holds("HEAD", tree_path):
            return "HEAD"
        latest = self._run("log", "-1", "--full-history", "--format=%H", "--", tree_path).decode().strip()
        if not latest:
            return None
        # No later commit touched it and HEAD lacks it: `latest` removed it, and a parent of it still has it.
        for commit in (latest, *self.parents(latest)):
            if self._holds(commit, tree_path):
                return commit
        return None

    def touching(self, rel: str, rev: str = "HEAD") -> list[str]:
        """The commits of `rev`'s history that changed `rel`, newest first; not those of another project's history
        a merge put in a folder (aidlc/vcs/subtrees.py), whose own file at that path is not this project's."""
        outside = self._outside(None if rev == "HEAD" else rev)
        return self._run("log", "--full-history", "--format=%H", rev, *outside, "--", self._tree(rel)).decode().split()

    def parents(self, commit: str) -> list[str]:
        return self._run("log", "-1", "--format=%P", commit, "--").decode().split()

    def read(self, commit: str, rels: Iterable[str]) -> dict[str, bytes | None]:
        """The bytes of each file at `commit`; None where it is not a file there (or too large to be evidence).
        Two processes for any number of files: one listing of their blobs, then the contents in one batch."""
        return self.contents(self.listed(commit, rels))

    def reader(self, commit: str, first: Iterable[str] = ()) -> Callable[[str], bytes | None]:
        """A file at `commit` by path (as `read`): those `first` names read now in one batch, any other when asked."""
        held = self.read(commit, first)
        return lambda rel: held[rel] if rel in held else self.read(commit, [rel])[rel]

    def listed(self, commit: str, rels: Iterable[str]) -> dict[str, str | None]:
        """The blob of each file at `commit` (None where it is not a file there, or too large to be evidence), as a
        checkout of it shows the file: through a symbolic link the commit keeps inside the repository (a records
        folder linked to where it lives), not the link's own bytes."""
        names = {rel: self._tree(rel) for rel in rels}
        blobs = self._blobs(commit, list(dict.fromkeys(names.values())), hops=8) if names else {}
        return {rel: blobs.get(name) for rel, name in names.items()}

    def _blobs(self, commit: str, paths: list[str], hops: int) -> dict[str, str]:
        """path -> blob of those of `paths` (from the top) that are files small enough at `commit`, from one
        `git ls-tree` (`cat-file` asked for COMMIT:PATH would search the folder's tree once per file). A path not
        found so is looked up where a link on its way leads, inside the repository (`hops` links at most: a loop of
        links leads nowhere)."""
        # A few files by name; many through the folder that holds them (git matches each name against each entry).
        specs = paths if len(paths) <= 64 else [posixpath.commonpath([posixpath.dirname(p) for p in paths]) or "."]
        blobs, links = self._entries(commit, specs, recursive=True)
        missing = [path for path in paths if path not in blobs]
        above = sorted({folder for path in missing for folder in _folders_above(path)})
        if above:  # only where a file inside a folder was not found: is a folder on its way a link?
            links.update(self._entries(commit, above, recursive=False)[1])
        moved = {}
        if links and hops:
            targets = objects(self.top, list(dict.fromkeys(links.values())))
            for path in missing:  # the first link on the way, as a checkout resolves it
                link = next((at for at in (*_folders_above(path), path) if at in links), None)
                if link is not None:
                    target = (targets.get(links[link]) or b"").decode("utf-8", "surrogateescape")
                    there = posixpath.normpath(posixpath.join(posixpath.dirname(link), target, path[len(link) + 1:]))
                    if target and there != ".." and not there.startswith("../") and not posixpath.isabs(there):
                        moved[path] = there  # a link out of the repository leads to nothing git keeps
        found = self._blobs(commit, list(dict.fromkeys(moved.values())), hops - 1) if moved else {}
        blobs.update({path: found[there] for path, there in moved.items() if there in found})
        return {path: blobs[path] for path in paths if path in blobs}

    def _entries(self, commit: str, specs: list[str], recursive: bool) -> tuple[dict[str, str], dict[str, str]]:
        """(path -> blob of each file small enough, path -> blob of each symbolic link) that `git ls-tree` lists at
        `commit` for `specs`."""
        listing = self._run("ls-tree", *(["-r"] if recursive else []), "-l", "-z", "--full-tree", commit, "--", *specs)
        blobs: dict[str, str] = {}
        links: dict[str, str] = {}
        for entry in listing.split(b"\0"):
            info, _, name = entry.partition(b"\t")
            fields = info.split()  # mode, type, sha, size
            if len(fields) != 4 or fields[1] != b"blob":
                continue
            path = name.decode("utf-8", "surrogateescape")
            if fields[0] == b"120000":
                links[path] = fields[2].decode()
            elif fields[3].isdigit() and int(fields[3]) <= MAX_READ:
                blobs[path] = fields[2].decode()
        return blobs, links

    def contents(self, blobs: dict[str, str | None]) -> dict[str, bytes | None]:
        """The bytes of each listed blob (`listed`), in one `git cat-file --batch`; None where there is none."""
        shas = list(dict.fromkeys(sha for sha in blobs.values() if sha is not None))
        found = objects(self.top, shas) if shas else {}
        return {rel: found.get(sha) if sha is not None else None for rel, sha in blobs.items()}

    def differ(self, commit: str, folders: Iterable[str]) -> set[str]:
        """The tracked files under `folders` (relative to the project) whose bytes in the work tree are not those
        `commit` holds at that path or, moved unchanged, at another (changed, added, or deleted since), from one
        `git diff` against the work tree (git's index tells it which files it need not read again). A file git
        does not track is not listed."""
        out = self._run("diff", "--name-status", "-z", "-M100%", "--no-ext-diff", "--no-textconv", commit, "--",
                        *dict.fromkeys(self._tree(folder) for folder in folders))
        fields = out.split(b"\0")
        found: set[str] = set()
        at = 0
        while at < len(fields) - 1:
            status = fields[at]
            if status.startswith(b"R"):  # a move with its bytes kept (-M100%): the new path is as it was
                at += 3
                continue
            found.add(self._rel(fields[at + 1].decode("utf-8", "surrogateescape")))
            at += 2
        return found

    def files(self, commit: str, folder: str, recursive: bool = True) -> dict[str, str]:
        """path (relative to the project) -> blob of each file under `folder` (relative to the project) at `commit`;
        without `recursive`, of those directly in it. One `git ls-tree`."""
        out = self._run("ls-tree", *(["-r"] if recursive else []), "-z", "--full-tree", commit, "--",
                        f"{self._tree(folder)}/")
        found: dict[str, str] = {}
        for entry in out.split(b"\0"):
            info, _, name = entry.partition(b"\t")
            fields = info.split()  # mode, type, sha
            if len(fields) == 3 and fields[1] == b"blob":
                found[self._rel(name.decode("utf-8", "surrogateescape"))] = fields[2].decode()
        return found

    def names(self, commit: str, folder: str) -> list[str]:
        """The names of the files directly in `folder` (relative to the project) at `commit`."""
        return [path.rsplit("/", 1)[-1] for path in self.files(commit, folder, recursive=False)]

    def revisions(self, rels: list[str], since: str | None = None) -> list[Revision]:
        """The commits of HEAD's history (of `since..HEAD` with `since`) that changed a file under `rels` (files or
        folders), parents before children, each with the blob of every such file it changed, as it holds it and as
        each of its parents does. One `git log` in git's full history (a merge is listed when it differs from any of
        its parents, as `git log -m` compares them) and, for the merges, one `git cat-file --batch-check` that
        names the file in each parent. A subtree's commits are left out, and so is a merge's side that brought
        one (aidlc/vcs/subtrees.py)."""
        if self.head is None or not rels:
            return []
        out = self._run("log", "--full-history", "-m", "--raw", "--no-abbrev", "--no-renames", "-z", "--topo-order",
                        "--reverse", "--format=%x1e%H%x1f%P%x1f%an%x1f%ae%x1f%cI%x1f%s",
                        f"{since}..HEAD" if since else "HEAD", *self._outside(since), "--",
                        *(self._tree(rel) for rel in rels))
        found = _revisions(out, self._rel)
        sides = {side[1:] for side in self._outside(since)}
        # a merge that joined a subtree's side, as it changed the project: compared with its other parents only
        narrowed = [replace(r, parents=tuple(p for p in r.parents if p not in sides))
                    for r in found.values() if sides.intersection(r.parents)]
        found.update((r.sha, r) for r in narrowed)
        self._name_parents_blobs([r for r in found.values() if len(r.parents) > 1] + [r for r in narrowed
                                                                                     if len(r.parents) == 1])
        for merge in narrowed:  # a file that differs only from the side is no change of the project's
            for rel in [rel for rel, (new, old) in merge.files.items() if all(blob == new for blob in old)]:
                del merge.files[rel]
        return [r for r in found.values() if r.files]

    def _name_parents_blobs(self, merges: list[Revision]) -> None:
        """Each merge's file with its blob in each parent (the old blob git printed was one parent's), in one
        `git cat-file --batch-check`."""
        blobs = self.blobs([(parent, rel) for r in merges for rel in r.files for parent in r.parents])
        for merge in merges:
            for rel, (new, _) in merge.files.items():
                merge.files[rel] = (new, tuple(blobs[(parent, rel)] for parent in merge.parents))

    def blobs(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
        """The blob sha of each (commit, file) pair (None where the commit holds no such file), in one
        `git cat-file --batch-check`."""
        found: dict[tuple[str, str], str | None] = dict.fromkeys(wanted)
        # A line break in a path would split its line of the batch: such a path is looked up on its own.
        for commit, rel in [pair for pair in found if "\n" in pair[1] or "\r" in pair[1]]:
            found[(commit, rel)] = self._blob(commit, rel)
        pairs = [pair for pair in found if "\n" not in pair[1] and "\r" not in pair[1]]
        if not pairs:
            return found
        out = self._run("cat-file", "--batch-check=%(objectname) %(objecttype)", "--buffer",
                        stdin="".join(f"{commit}:{self._tree(rel)}\n" for commit, rel in pairs).encode())
        for pair, answer in zip(pairs, out.decode("utf-8", "replace").splitlines(), strict=True):
            sha, _, kind = answer.partition(" ")
            found[pair] = sha if kind == "blob" else None  # "<name> missing": not there
        return found

    def _blob(self, commit: str, rel: str) -> str | None:
        """The blob sha of one file at `commit` (None where it holds none), its path passed as an argument."""
        out = self._run("ls-tree", "-z", commit, "--", self._tree(rel)).decode("utf-8", "replace")
        meta = out.split("\t", 1)[0].split()  # "<mode> <type> <sha>\t<path>\0"
        return meta[2] if len(meta) == 3 and meta[1] == "blob" else None

    def is_ancestor(self, commit: str, of: str) -> bool:
        """Whether `commit` is `of` or in its history."""
        proc = git_process(self.top, ("merge-base", "--is-ancestor", commit, of))
        if proc.returncode not in (0, 1):
            raise git_failed(self.top, ("merge-base",), proc.stderr)
        return proc.returncode == 0

    def merge_base(self, commits: tuple[str, ...]) -> str | None:
        """The best common ancestor of the commits (None: they share none)."""
        out = run_git(self.top, ("merge-base", "--octopus", *commits), ok=(0, 1))
        return out.decode().strip() or None

    def first_dates(self, since: str | None = None) -> list[str]:
        """The author and committer dates (ISO 8601) of the root commits of HEAD's history, less a subtree's (judged
        from `since`, else HEAD)."""
        if self.head is None:
            return []
        out = self._run("log", "--max-parents=0", "--format=%aI%n%cI", "HEAD", *self._outside(since), "--")
        return out.decode().split()

    def ignored(self, rels: list[str]) -> list[Ignored]:
        """Those of `rels` the work tree's ignore rules ignore, tracked or not, each with the rule that does
        (aidlc/vcs/ignore_rules.py)."""
        return [Ignored(self._rel(path), self._rel(source), line, pattern)
                for path, source, line, pattern in ignoring_rules(self.top, [self._tree(rel) for rel in rels])]

    @contextmanager
    def checkout(self, commit: str) -> Iterator[Path]:
        """The project as `commit` holds it, checked out in a worktree of this repository (so its history is the
        commit's) in a temporary folder, removed after (a run killed before leaves an entry `git worktree prune`
        drops). No hook runs, and files kept in Git LFS stay pointers."""
        import tempfile  # here: one command needs it (aidlc ci, for the pull request that adopts aidlc)

        with tempfile.TemporaryDirectory(prefix="aidlc-base-") as folder:
            tree = Path(folder) / "tree"
            added = git_process(self.top, (*NO_HOOKS, "worktree", "add", "--detach", "--quiet", str(tree), commit),
                                env={"GIT_LFS_SKIP_SMUDGE": "1"})
            if added.returncode != 0:
                raise git_failed(self.top, ("worktree",), added.stderr)
            try:
                yield tree / self._prefix
            finally:
                git_process(self.top, ("worktree", "remove", "--force", str(tree)))

    def is_folder(self, commit: str, rel: str) -> bool:
        """Whether `commit` has a folder at `rel` (relative to the project)."""
        out = self._run("cat-file", "--batch-check=%(objecttype)", stdin=f"{commit}:{self._tree(rel)}\n".encode())
        return out.strip() == b"tree"

    def _holds(self, commit: str, tree_path: str) -> bool:
        out = self._run("cat-file", "--batch-check=%(objecttype)", stdin=f"{commit}:{tree_path}\n".encode())
        return out.strip() == b"blob"


def _folders_above(path: str) -> list[str]:
    """The folders on the way to `path`, from the top: `a/b/c` -> `a`, `a/b`."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]


def history(project: Path) -> History | None:
    """The history of the repository that holds `project`; None outside one (or where git refuses it)."""
    project = project.resolve()
    proc = git_process(project, ("rev-parse", "--show-toplevel", "--is-shallow-repository", "--verify", "-q", "HEAD"))
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    if proc.returncode not in (0, 1) or len(lines) < 2:  # 128: not a repository
        return None
    top = Path(lines[0]).resolve()
    if not project.is_relative_to(top):
        return None
    head = lines[2] if proc.returncode == 0 and len(lines) > 2 else None
    return History(top, project, head, lines[1] == "true")


def _revisions(log: bytes, rel: Callable[[str], str]) -> dict[str, Revision]:
    """The revisions a `git log -m --raw -z` prints, by sha, each file (named by `rel`) with its blob and the blob in
    the parent git compared it with; a merge appears once per parent it differs from: one revision."""
    found: dict[str, Revision] = {}
    for record in log.split(b"\x1e")[1:]:
        header, _, raw = record.partition(b"\0")
        sha, parents, author, email, committed, subject = header.decode("utf-8", "replace").split("\x1f", 5)
        fields = raw.lstrip(b"\n").split(b"\0")
        revision = found.setdefault(sha, Revision(sha, tuple(parents.split()), author, email, committed, subject, {}))
        for at in range(0, len(fields) - 1, 2):  # ":modes old new status", then the path
            meta, name = fields[at].split(), fields[at + 1].decode("utf-8", "surrogateescape")
            old, new = (None if set(blob) == {48} else blob.decode() for blob in meta[2:4])  # 0000…: absent
            revision.files[rel(name)] = (new, (old,))
    return found
