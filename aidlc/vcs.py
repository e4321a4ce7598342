"""The only module that talks to git. GitPython is imported lazily: it costs start-up time."""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from aidlc.errors import UsageError


def _git():
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


def _repo(path: Path):
    git = _git()
    try:
        return git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise UsageError(f"{path} is not inside a Git repository", [f"aidlc init --git {path}"]) from None


def head_commit(path: Path) -> str | None:
    """The sha of HEAD, or None in a repository without commits (one git process: no GitPython import)."""
    try:
        out = _run_git(path, ("rev-parse", "-q", "--verify", "HEAD^{commit}"), ok=(0, 1))
    except UsageError:
        _repo(path)  # outside a repository: say so, as every command does
        raise
    return out.decode().strip() or None


def identity(path: Path) -> tuple[str | None, str | None]:
    """user.name and user.email from git config (repository, then global)."""
    reader = _repo(path).config_reader()
    return _config_value(reader, "user", "name"), _config_value(reader, "user", "email")


def _config_value(reader, section: str, option: str) -> str | None:
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


def root_commit(path: Path) -> str | None:
    """The first commit of HEAD's history (the smallest sha if merged histories have several roots);
    None outside a repository or in one without commits."""
    git = _git()
    try:
        repo = git.Repo(path, search_parent_directories=True)
        roots = repo.git.rev_list("--max-parents=0", "HEAD").split()
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, git.GitCommandError):
        return None
    return min(roots) if roots else None


# -- history: what earlier commits show, as evidence for the rules -------------------------------------------------
# History runs git itself (argument lists, never a shell): importing GitPython costs more than the few commands a
# rule needs, and `git cat-file --batch` reads any number of files in one process.

MAX_READ = 4 * 1024 * 1024  # a file from history larger than this is not evidence of anything we read
# No prompts, untranslated messages, and paths taken as written (a file named `*.md` is not a pattern).
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1"}


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

    def _run(self, *args: str, stdin: bytes | None = None) -> bytes:
        return _run_git(self.top, args, stdin)

    def _tree(self, rel: str) -> str:
        """`rel` as a path from the top of the work tree (raises ValueError for a path outside it)."""
        path = posixpath.normpath(posixpath.join(self._prefix, rel))
        if path == ".." or path.startswith("../") or posixpath.isabs(path):
            raise ValueError(f"{rel} is outside the repository")
        return path

    def _rel(self, tree_path: str) -> str:
        return Path(os.path.relpath(self.top / tree_path, self.project)).as_posix()

    def added(self, rel: str) -> tuple[str, str, list[str]] | None:
        """(commit, path then, its parents) of the oldest commit that added `rel`, following moves that kept its
        bytes (`git mv`); None if no commit did."""
        path, rev, found = self._tree(rel), "HEAD", None
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

    def touching(self, rel: str) -> list[str]:
        """The commits of HEAD's history that changed `rel`, newest first."""
        return self._run("log", "--full-history", "--format=%H", "--", self._tree(rel)).decode().split()

    def parents(self, commit: str) -> list[str]:
        return self._run("log", "-1", "--format=%P", commit, "--").decode().split()

    def read(self, commit: str, rels: Iterable[str]) -> dict[str, bytes | None]:
        """The bytes of each file at `commit`; None where it is not a file there (or too large to be evidence).
        Two processes for any number of files: one listing of their blobs, then the contents in one batch."""
        return self.contents(self.listed(commit, rels))

    def listed(self, commit: str, rels: Iterable[str]) -> dict[str, str | None]:
        """The blob of each file at `commit` (None where it is not a file there, or too large to be evidence), from
        one `git ls-tree` (`cat-file` asked for COMMIT:PATH would search the folder's tree once per file)."""
        names = {rel: self._tree(rel) for rel in rels}
        if not names:
            return {}
        # A few files by name; many through the folder that holds them (git matches each name against each entry).
        specs = list(names.values()) if len(names) <= 64 else \
            [posixpath.commonpath([posixpath.dirname(name) for name in names.values()]) or "."]
        listing = self._run("ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", *specs)
        blobs: dict[str, str] = {}  # path -> sha of a blob small enough
        for entry in listing.split(b"\0"):
            info, _, name = entry.partition(b"\t")
            fields = info.split()  # mode, type, sha, size
            if len(fields) == 4 and fields[1] == b"blob" and fields[3].isdigit() and int(fields[3]) <= MAX_READ:
                blobs[name.decode("utf-8", "surrogateescape")] = fields[2].decode()
        return {rel: blobs.get(name) for rel, name in names.items()}

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

    def names(self, commit: str, folder: str) -> list[str]:
        """The names of the files directly in `folder` (relative to the project) at `commit`."""
        tree_path = self._tree(folder)
        out = self._run("ls-tree", "-z", "--full-tree", commit, "--", f"{tree_path}/")
        return [entry.partition(b"\t")[2].decode("utf-8", "surrogateescape").rsplit("/", 1)[-1]
                for entry in out.split(b"\0") if b" blob " in entry.partition(b"\t")[0]]

    def revisions(self, rels: list[str], since: str | None = None) -> list[Revision]:
        """The commits of HEAD's history (of `since..HEAD` with `since`) that changed a file under `rels` (files or
        folders), parents before children, each with the blob of every such file it changed, as it holds it and as
        each of its parents does. One `git log` in git's full history (a merge is listed when it differs from any of
        its parents, as `git log -m` compares them) and, for the merges, one `git cat-file --batch-check` that
        names the file in each parent."""
        if self.head is None or not rels:
            return []
        out = self._run("log", "--full-history", "-m", "--raw", "--no-abbrev", "--no-renames", "-z", "--topo-order",
                        "--reverse", "--format=%x1e%H%x1f%P%x1f%an%x1f%ae%x1f%cI%x1f%s",
                        f"{since}..HEAD" if since else "HEAD", "--", *(self._tree(rel) for rel in rels))
        found: dict[str, Revision] = {}  # a merge appears once per parent it differs from: one revision
        for record in out.split(b"\x1e")[1:]:
            header, _, raw = record.partition(b"\0")
            sha, parents, author, email, committed, subject = header.decode("utf-8", "replace").split("\x1f", 5)
            fields = raw.lstrip(b"\n").split(b"\0")
            revision = found.setdefault(sha, Revision(sha, tuple(parents.split()), author, email, committed,
                                                      subject, {}))
            for at in range(0, len(fields) - 1, 2):  # ":modes old new status", then the path
                meta, name = fields[at].split(), fields[at + 1].decode("utf-8", "surrogateescape")
                old, new = (None if set(blob) == {48} else blob.decode() for blob in meta[2:4])  # 0000…: absent
                revision.files[self._rel(name)] = (new, (old,))
        merges = [r for r in found.values() if len(r.parents) > 1]
        blobs = self.blobs([(parent, rel) for r in merges for rel in r.files for parent in r.parents])
        for merge in merges:  # the old blob git printed was one parent's; name each parent's
            for rel, (new, _) in merge.files.items():
                merge.files[rel] = (new, tuple(blobs[(parent, rel)] for parent in merge.parents))
        return list(found.values())

    def blobs(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
        """The blob sha of each (commit, file) pair (None where the commit holds no such file), in one
        `git cat-file --batch-check`."""
        found: dict[tuple[str, str], str | None] = dict.fromkeys(wanted)
        pairs = list(found)
        if not pairs:
            return found
        out = self._run("cat-file", "--batch-check=%(objectname) %(objecttype)", "--buffer",
                        stdin="".join(f"{commit}:{self._tree(rel)}\n" for commit, rel in pairs).encode())
        for pair, answer in zip(pairs, out.decode("utf-8", "replace").splitlines(), strict=True):
            sha, _, kind = answer.partition(" ")
            found[pair] = sha if kind == "blob" else None  # "<name> missing": not there
        return found

    def is_ancestor(self, commit: str, of: str) -> bool:
        """Whether `commit` is `of` or in its history."""
        proc = _git_process(self.top, ("merge-base", "--is-ancestor", commit, of))
        if proc.returncode not in (0, 1):
            raise _git_failed(self.top, ("merge-base",), proc.stderr)
        return proc.returncode == 0

    def merge_base(self, commits: tuple[str, ...]) -> str | None:
        """The best common ancestor of the commits (None: they share none)."""
        out = _run_git(self.top, ("merge-base", "--octopus", *commits), ok=(0, 1))
        return out.decode().strip() or None

    def first_dates(self) -> list[str]:
        """The author and committer dates (ISO 8601) of the root commits of HEAD's history."""
        if self.head is None:
            return []
        out = self._run("log", "--max-parents=0", "--format=%aI%n%cI", "HEAD", "--")
        return out.decode().split()

    def ignored(self, rels: list[str]) -> list[Ignored]:
        """Those of `rels` the work tree's ignore rules (.gitignore files, info/exclude, core.excludesFile) ignore,
        tracked or not (`git check-ignore --no-index`), each with the rule that does."""
        if not rels:
            return []
        # check-ignore takes paths, and refuses the literal-pathspec setting every other command runs with.
        proc = _git_process(self.top, ("check-ignore", "--no-index", "--verbose", "-z", "--stdin"),
                            "".join(f"{self._tree(rel)}\0" for rel in rels).encode(), {"GIT_LITERAL_PATHSPECS": "0"})
        if proc.returncode not in (0, 1):
            raise _git_failed(self.top, ("check-ignore",), proc.stderr)
        out = proc.stdout
        fields = out.decode("utf-8", "surrogateescape").split("\0")
        found = []
        for at in range(0, len(fields) - 3, 4):  # source, line, pattern, path
            source, line, pattern, name = fields[at:at + 4]
            if source and not pattern.startswith("!"):
                top = source if not os.path.isabs(source) else os.path.relpath(source, self.top)
                found.append(Ignored(self._rel(name), self._rel(top), int(line), pattern))
        return found

    def _holds(self, commit: str, tree_path: str) -> bool:
        out = self._run("cat-file", "--batch-check=%(objecttype)", stdin=f"{commit}:{tree_path}\n".encode())
        return out.strip() == b"blob"


def _run_git(where: Path, args: tuple[str, ...], stdin: bytes | None = None, ok: tuple[int, ...] = (0,)) -> bytes:
    proc = _git_process(where, args, stdin)
    if proc.returncode not in ok:
        raise _git_failed(where, args, proc.stderr)
    return proc.stdout


def _git_process(where: Path, args: tuple[str, ...], stdin: bytes | None = None,
                 env: dict[str, str] | None = None):
    import subprocess

    try:
        return subprocess.run(["git", "-C", str(where), *args], input=stdin, capture_output=True, check=False,
                              env={**os.environ, **_GIT_ENV, **(env or {})})
    except OSError as exc:
        raise UsageError(f"git is not available: {exc.strerror}", ["install git, then rerun the command"]) from None


def _git_failed(where: Path, args: tuple[str, ...], stderr: bytes) -> UsageError:
    command = next(a for a in args if not a.startswith("-") and "=" not in a)  # after any `-c key=value`
    return UsageError(f"git {command} failed in {where}: {stderr.decode(errors='replace').strip()}",
                      ["git status    # is the repository healthy?"])


def history(project: Path) -> History | None:
    """The history of the repository that holds `project`; None outside one (or where git refuses it)."""
    import subprocess

    project = project.resolve()
    try:
        proc = subprocess.run(["git", "-C", str(project), "rev-parse", "--show-toplevel",
                               "--is-shallow-repository", "--verify", "-q", "HEAD"], capture_output=True, check=False,
                              env={**os.environ, **_GIT_ENV})
    except OSError as exc:
        raise UsageError(f"git is not available: {exc.strerror}", ["install git, then rerun the command"]) from None
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    if proc.returncode not in (0, 1) or len(lines) < 2:  # 128: not a repository
        return None
    top = Path(lines[0]).resolve()
    if not project.is_relative_to(top):
        return None
    head = lines[2] if proc.returncode == 0 and len(lines) > 2 else None
    return History(top, project, head, lines[1] == "true")


def signing_config(project: Path) -> dict[str, str]:
    """gpg.format, user.signingkey and gpg.ssh.program as git itself reads them (every config level, includes,
    GIT_CONFIG_* variables), keyed by their lower-case names; absent keys are left out."""
    out = _run_git(project, ("config", "--get-regexp", r"^(gpg\.format|user\.signingkey|gpg\.ssh\.program)$"),
                   ok=(0, 1))  # 1: none of them is set
    values: dict[str, str] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, value = line.partition(" ")
        values[name.lower()] = value  # the last one wins, as in git
    return values


# -- commits named by ledger events ------------------------------------------------------------------------
def missing_commits(path: Path, commits: list[str]) -> tuple[set[str], bool] | None:
    """Of these full commit ids, those the repository at `path` does not hold as commits, looked up in one
    `git cat-file --batch-check` for all of them, and whether the repository is a shallow clone (which
    lacks history it could fetch). None outside a repository, or when git cannot answer."""
    if not commits:
        return set(), False
    try:
        out = _run_git(path, ("cat-file", "--batch-check"), ("\n".join(commits) + "\n").encode())
    except UsageError:
        return None
    answers = out.decode("utf-8", "replace").splitlines()
    if len(answers) != len(commits):
        return None
    missing = {commit for commit, answer in zip(commits, answers, strict=True) if answer.split()[1:2] != ["commit"]}
    return missing, bool(missing) and is_shallow(path)


def is_shallow(path: Path) -> bool:
    try:
        return _run_git(path, ("rev-parse", "--is-shallow-repository")).strip() == b"true"
    except UsageError:
        return False


# -- a bolt run's branch and commits (aidlc bolt) --------------------------------------------------------------
def _prefix(project: Path) -> str:
    """The project's folder inside the work tree ("" at the top): git status names paths from the top."""
    return _prefix_of(str(project))


@functools.cache  # a folder's place in its work tree does not change while aidlc runs
def _prefix_of(project: str) -> str:
    return _run_git(Path(project), ("rev-parse", "--show-prefix")).decode("utf-8", "surrogateescape").strip()


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
    prefix = _prefix(project)  # with -z, git names paths from the top of the work tree, whatever the config says
    out = _run_git(project, ("status", "--porcelain=v2", "--branch", "--no-ahead-behind", "-z",
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
                paths.append(name[len(prefix):] if name.startswith(prefix) else name)
    return WorkTree(head, branch, paths)


def changed_paths(project: Path) -> list[str]:
    """Files with uncommitted changes or untracked (ignored ones left out), relative to `project`."""
    return work_tree(project).changed


def current_branch(project: Path) -> str | None:
    """The branch checked out; None with a detached HEAD."""
    out = _run_git(project, ("symbolic-ref", "-q", "--short", "HEAD"), ok=(0, 1))
    return out.decode().strip() or None


def default_branch(project: Path) -> str | None:
    """The repository's default branch: the one origin's HEAD names (as `git clone` sets it); without it, the
    first of init.defaultBranch, main and master that exists; else the branch checked out (in a new repository,
    the one git init made). None on a detached HEAD with none of these."""
    remote = _run_git(project, ("symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"), ok=(0, 1, 128))
    if remote.strip():
        return remote.decode().strip().removeprefix("origin/")
    configured = _run_git(project, ("config", "--get", "init.defaultBranch"), ok=(0, 1)).decode().strip()
    for name in (configured, "main", "master"):
        if name and branch_commit(project, name):
            return name
    return current_branch(project)


def branch_commit(project: Path, branch: str) -> str | None:
    out = _run_git(project, ("rev-parse", "-q", "--verify", f"refs/heads/{branch}^{{commit}}"), ok=(0, 1))
    return out.decode().strip() or None


def create_branch(project: Path, branch: str, start: str) -> None:
    """Create `branch` at `start` and check it out (the working tree keeps its files)."""
    _run_git(project, (*_NO_HOOKS, "checkout", "-q", "-b", branch, start))


def checkout(project: Path, branch: str) -> None:
    _run_git(project, (*_NO_HOOKS, "checkout", "-q", branch))


# The run's own commits skip git's automatic maintenance (gc, repack), which costs each commit milliseconds: the
# person's next git command runs it.
_NO_MAINTENANCE = ("-c", "maintenance.auto=false", "-c", "gc.auto=0")
# The run's own git commands (commits, checkouts) run no hook: a hook is a file in .git/hooks that code a check runs
# could have written, and it would run outside that check, as the person.
_NO_HOOKS = ("-c", f"core.hooksPath={os.devnull}")
# "[<branch> <sha>] <subject>"; a root commit says "(root-commit)" before the sha, a detached HEAD "[detached HEAD".
# A branch name holds no space, so the first " <sha>] " is the sha.
_SUMMARY = re.compile(rb"\[[^\n]*? ([0-9a-f]+)\] ")
_IGNORED = b"paths are ignored by one of your .gitignore files"


def commit_step(project: Path, paths: list[str], message: str, parent: str) -> str:
    """Stage `paths` (changes, new files, removals; a path .gitignore excludes is left out, as `git status` leaves
    it out) and commit them on HEAD (`parent`) as the person in git config; returns the new commit's sha. An empty
    step still gets its commit: each step is one commit, found again by its trailers."""
    if paths:
        added = _git_process(project, ("add", "-A", "--", *paths))
        if added.returncode != 0 and not (added.returncode == 1 and _IGNORED in added.stderr):  # the rest is added
            raise _git_failed(project, ("add",), added.stderr)
    # The summary line names the new commit, "abbreviated" to the length of a full sha (SHA-1 or SHA-256).
    full = len(parent) if len(parent) in (40, 64) else 40
    out = _run_git(project, (*_NO_MAINTENANCE, *_NO_HOOKS, "-c", f"core.abbrev={full}", "commit", "--allow-empty",
                             "-m", message))
    summary = _SUMMARY.match(out)
    if summary and len(summary.group(1)) == full == len(parent):
        return summary.group(1).decode()
    return _run_git(project, ("rev-parse", "HEAD")).decode().strip()


def commit_with_trailers(project: Path, since: str, trailers: dict[str, str]) -> str | None:
    """The newest commit after `since` on HEAD whose trailers hold all of `trailers`."""
    out = _run_git(project, ("log", "--format=%H%x1f%(trailers:only,unfold)%x1e", f"{since}..HEAD", "--"))
    for record in out.decode("utf-8", "replace").split("\x1e"):
        sha, _, block = record.strip().partition("\x1f")
        found = {}
        for line in block.splitlines():
            key, _, value = line.partition(":")
            found[key.strip()] = value.strip()
        if sha and all(found.get(k) == v for k, v in trailers.items()):
            return sha
    return None


def restore_paths(project: Path, commit: str, paths: list[str]) -> None:
    """Put each file back as `commit` holds it; a file `commit` lacks is removed."""
    held = {p for p in paths if show_file(project, commit, (Path(_prefix(project)) / p).as_posix()) is not None}
    if held:
        _run_git(project, (*_NO_HOOKS, "checkout", commit, "--", *sorted(held)))
    for rel in set(paths) - held:
        (project / rel).unlink(missing_ok=True)


def diff_stat(project: Path, base: str, head: str) -> str:
    return _run_git(project, ("diff", "--stat", base, head, "--")).decode("utf-8", "replace")


def tracked_files(project: Path) -> list[str]:
    """The files git tracks under `project`, relative to it."""
    out = _run_git(project, ("ls-files", "-z", "--", "."))
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]


def parents(project: Path, commit: str) -> list[str]:
    return _run_git(project, ("log", "-1", "--format=%P", commit, "--")).decode().split()


# -- what a change did to files ----------------------------------------------------------------------------
@dataclass(frozen=True)
class FileChange:
    status: str  # A added, M modified, D deleted, R renamed, C copied, T type changed (git's letters)
    path: str  # relative to the folder asked about; for D the path at `base`
    old_path: str | None = None  # R and C: the path at `base`


def changed_files_between(path: Path, base: str, head: str) -> list[FileChange]:
    """The files that differ between commits `base` and `head` under the folder `path`, relative to it, with
    renames found (git's default similarity); UsageError for a ref git does not know."""
    out = _run_git(path, ("diff", "--no-ext-diff", "--no-textconv", "--relative", "--name-status", "-z", "-M",
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


# -- a bolt's commits and what they changed (aidlc walkthrough) ---------------------------------------------
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


def is_outside(path: str, folders: tuple[str, ...]) -> bool:
    return not any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def commits_with_trailer(project: Path, key: str, value: str, ref: str = "HEAD", files: bool = False) -> list[Commit]:
    """The commits in `ref`'s history whose trailer `key` is exactly `value`, oldest first; with `files`, each with
    the files it changed under the project (as `changed_by` finds them)."""
    names = ("-z", "--name-only", "-M", "--root", "--relative") if files else ()
    out = _run_git(project, ("log", "--reverse", *names, f"--format={_LOG_FORMAT}", "-F", f"--grep={key}: {value}",
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
    found = _commits(_run_git(project, ("log", "-1", f"--format={_LOG_FORMAT}", ref, "--", rel)))
    return found[0] if found else None


@dataclass(frozen=True)
class LineCounts:
    path: str
    status: str  # git's letter, as in FileChange
    added: int | None  # None: a binary file
    removed: int | None


def line_counts(project: Path, base: str, head: str, outside: tuple[str, ...] = ()) -> list[LineCounts]:
    """Per file changed between `base` and `head` under `project`, except in the folders `outside`: git's
    status letter and the lines added and removed (one git process: `--raw` gives the letters, `--numstat` the
    lines, in that order)."""
    out = _run_git(project, ("diff", "--no-ext-diff", "--no-textconv", "--relative", "--raw", "--numstat", "-z", "-M",
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
    return _run_git(project, ("diff", "--no-ext-diff", "--no-textconv", "--relative", "-M", base, head, "--",
                              *paths)).decode("utf-8", "replace")


def same_code(project: Path, first: str, second: str, outside: tuple[str, ...] = ()) -> bool:
    """True when the two commits hold the same files under `project`, the folders `outside` aside."""
    return all(not is_outside(c.path, outside) for c in changed_files_between(project, first, second))


def files_at(project: Path, ref: str) -> list[str]:
    """The files `ref` holds under `project`, relative to it."""
    out = _run_git(project, ("ls-tree", "-r", "-z", "--name-only", ref, "--"))
    return [n.decode("utf-8", "surrogateescape") for n in out.split(b"\0") if n]
# -- a pull request's commits (aidlc ci) -----------------------------------------------------------------------
def project_prefix(project: Path) -> str:
    """The project's folder inside its Git work tree, ending in "/" ("" at the top, or outside a repository)."""
    try:
        return _prefix(project)
    except UsageError:
        return ""


def resolve_commit(project: Path, ref: str) -> str:
    """The full sha of the commit `ref` names; a UsageError saying how to get it when this clone lacks it."""
    if not ref.strip() or ref.startswith("-"):
        raise UsageError(f"{ref!r} is not a git ref", ["git branch -a    # the refs that exist"])
    sha = _run_git(project, ("rev-parse", "-q", "--verify", "--end-of-options", f"{ref}^{{commit}}"),
                   ok=(0, 1)).decode().strip()
    if not sha:
        raise UsageError(f"this clone has no commit {ref!r}",
                         ["git fetch --unshallow    # a shallow clone lacks the base (checkout: fetch-depth: 0)",
                          "git branch -a    # the refs that exist"])
    return sha


def objects(where: Path, shas: list[str]) -> dict[str, bytes | None]:
    """The raw bytes of each object in `shas`, read in one `git cat-file --batch`; None for one this clone lacks."""
    found: dict[str, bytes | None] = dict.fromkeys(shas)
    if not shas:
        return found
    out = _run_git(where, ("cat-file", "--batch", "--buffer"), stdin="".join(f"{sha}\n" for sha in shas).encode())
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


def commits_between(project: Path, base: str, head: str = "HEAD") -> list[Commit]:
    """The commits of `base..head`, oldest first, with the files each changed under the project; for a merge,
    the files it changed against every parent (`-c`: what the merge itself brought, beyond either side)."""
    return commits_in(project, f"{base}..{head}")


def commits_in(project: Path, revisions: str = "HEAD") -> list[Commit]:
    """The commits `revisions` names (a commit: its whole history; `A..B`), as `commits_between` gives them."""
    return _commits(_run_git(project, ("log", "--reverse", "-z", "-c", "--no-renames", "--name-only", "--relative",
                                       f"--format={_LOG_FORMAT}", revisions, "--")))


def changed_since_fork(project: Path, base: str, head: str = "HEAD") -> list[str]:
    """The files under the project that differ between the fork point of `base` and `head` and `head`
    (`git diff base...head`): what a pull request changes, whichever commits did it."""
    out = _run_git(project, ("diff", "--no-ext-diff", "--no-textconv", "--relative", "--no-renames", "--name-only",
                             "-z", f"{base}...{head}", "--"))
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]
