"""The repository itself: where its work tree starts, who the person is in its config, and what its refs name
(HEAD, branches, the root commit, a ref a person typed)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
from pathlib import Path

from aidlc.errors import UsageError
from aidlc.vcs.process import gitpython, open_repo, run_git


def repo_root(path: Path) -> Path | None:
    """The top of the work tree that contains `path`, or None outside a repository."""
    git = gitpython()
    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    return Path(repo.working_tree_dir) if repo.working_tree_dir else None


def is_shallow(path: Path) -> bool:
    try:
        return run_git(path, ("rev-parse", "--is-shallow-repository")).strip() == b"true"
    except UsageError:
        return False


# -- config -------------------------------------------------------------------------------------------------------
def identity(path: Path) -> tuple[str | None, str | None]:
    """user.name and user.email from git config (repository, then global)."""
    reader = open_repo(path).config_reader()
    return config_value(reader, "user", "name"), config_value(reader, "user", "email")


def config_value(reader, section: str, option: str) -> str | None:
    """One value from a GitPython config reader; None when it is unset or empty."""
    import configparser  # GitPython's readers raise its errors; only a config read needs it

    try:
        value = reader.get_value(section, option)
    except (configparser.NoSectionError, configparser.NoOptionError):
        return None
    return str(value) if value not in (None, "") else None


def signing_config(project: Path) -> dict[str, str]:
    """gpg.format, user.signingkey and gpg.ssh.program as git itself reads them (every config level, includes,
    GIT_CONFIG_* variables), keyed by their lower-case names; absent keys are left out."""
    out = run_git(project, ("config", "--get-regexp", r"^(gpg\.format|user\.signingkey|gpg\.ssh\.program)$"),
                  ok=(0, 1))  # 1: none of them is set
    values: dict[str, str] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, value = line.partition(" ")
        values[name.lower()] = value  # the last one wins, as in git
    return values


# -- refs ---------------------------------------------------------------------------------------------------------
def head_commit(path: Path) -> str | None:
    """The sha of HEAD, or None in a repository without commits (one git process: no GitPython import)."""
    try:
        out = run_git(path, ("rev-parse", "-q", "--verify", "HEAD^{commit}"), ok=(0, 1))
    except UsageError:
        open_repo(path)  # outside a repository: say so, as every command does
        raise
    return out.decode().strip() or None


def root_commit(path: Path) -> str | None:
    """The first commit of HEAD's history (the smallest sha if merged histories have several roots);
    None outside a repository or in one without commits."""
    if repo_root(path) is None:
        return None
    roots = run_git(path, ("rev-list", "--max-parents=0", "HEAD", "--"), ok=(0, 128)).decode().split()
    return min(roots) if roots else None


def resolve_commit(project: Path, ref: str) -> str:
    """The full sha of the commit `ref` names; a UsageError saying how to get it when this clone lacks it."""
    if not ref.strip() or ref.startswith("-"):
        raise UsageError(f"{ref!r} is not a git ref", ["git branch -a    # the refs that exist"])
    sha = run_git(project, ("rev-parse", "-q", "--verify", "--end-of-options", f"{ref}^{{commit}}"),
                  ok=(0, 1)).decode().strip()
    if not sha:
        if is_shallow(project):
            raise UsageError(f"this clone has no commit {ref!r}",
                             ["git fetch --unshallow    # a shallow clone lacks the base (checkout: fetch-depth: 0)",
                              "git branch -a    # the refs that exist"])
        raise UsageError(f"this repository has no commit {ref!r}",  # a whole clone: the name is wrong, or too far back
                         ["git log --oneline --first-parent    # the commits of this branch",
                          "git branch -a    # the refs that exist"])
    return sha


def current_branch(project: Path) -> str | None:
    """The branch checked out; None with a detached HEAD."""
    out = run_git(project, ("symbolic-ref", "-q", "--short", "HEAD"), ok=(0, 1))
    return out.decode().strip() or None


def default_branch(project: Path) -> str | None:
    """The repository's default branch: the one origin's HEAD names (as `git clone` sets it); without it, the
    first of init.defaultBranch, main and master that exists; else the branch checked out (in a new repository,
    the one git init made). None on a detached HEAD with none of these."""
    remote = run_git(project, ("symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"), ok=(0, 1, 128))
    if remote.strip():
        return remote.decode().strip().removeprefix("origin/")
    configured = run_git(project, ("config", "--get", "init.defaultBranch"), ok=(0, 1)).decode().strip()
    for name in (configured, "main", "master"):
        if name and branch_commit(project, name):
            return name
    return current_branch(project)


def branch_commit(project: Path, branch: str) -> str | None:
    out = run_git(project, ("rev-parse", "-q", "--verify", f"refs/heads/{branch}^{{commit}}"), ok=(0, 1))
    return out.decode().strip() or None


# Files in the git folder that change what git reads without a ref changing: a commit's parents (grafts, shallow),
# where objects come from (alternates), a file's attributes (info/attributes).
_READING_FILES = ("info/grafts", "shallow", "objects/info/alternates", "info/attributes")


def reading_state(path: Path) -> dict[str, str]:
    """What git reads the history by, as names to digests: HEAD, the settings files of every scope (the
    repository's, the user's and the system's where git looks for them by default, under the prefix git is installed
    in, or where the GIT_CONFIG_* variables name them, and the files their includes name), and _READING_FILES. Code
    run between two readings that changes any of them may have changed the history aidlc reads after it. Other refs
    are left out: aidlc reads HEAD and commits it resolved before (a `git fetch` or git's background maintenance
    moves them while checks run). One git process: a check runs this twice."""
    lines = run_git(path, ("rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "HEAD"),
                    ok=(0, 128)).decode("utf-8", "surrogateescape").splitlines()
    git_dir, common, head = (*lines, "", "", "")[:3]
    state = {"HEAD": head if len(head) >= 40 else "none"}
    if not common:  # no repository: nothing git reads
        return state
    folder, home = Path(common), Path.home()
    state["settings"] = _settings_digest([
        folder / "config", Path(git_dir) / "config.worktree",
        Path(os.environ.get("GIT_CONFIG_GLOBAL") or home / ".gitconfig"),
        Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git" / "config",
        Path(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"), *_installed_settings()])
    state.update({name: file_digest(folder / name) for name in _READING_FILES})
    return state


def _installed_settings() -> list[Path]:
    """The system settings file of the git first on PATH where it is installed under a prefix of its own: git reads
    <prefix>/etc/gitconfig there (Homebrew's /opt/homebrew/etc/gitconfig, which the user may write, /usr/local's, Git
    for Windows'). A file more watched costs nothing where that git reads another."""
    git = shutil.which("git")
    return [Path(git).parent.parent / "etc" / "gitconfig"] if git else []


def _settings_digest(files: list[Path]) -> str:
    """One digest of git's settings files and of every file their include and includeIf sections name, whatever the
    condition (a file more watched costs nothing), followed as git follows them, ten deep."""
    listed: list[str] = []
    queue, seen = [(file, 0) for file in files], set(files)
    while queue:
        file, depth = queue.pop(0)
        data, digest = _read(file)
        listed.append(f"{file}:{digest}")
        for named in _included(file, data) if depth < 10 else []:
            if named not in seen:
                seen.add(named)
                queue.append((named, depth + 1))
    return hashlib.sha256("\0".join(listed).encode("utf-8", "surrogateescape")).hexdigest()


_SECTION = re.compile(r"\s*\[\s*([A-Za-z0-9.-]+)[^\]]*\]")
_PATH_KEY = re.compile(r"\s*path\s*=(.*)", re.IGNORECASE)


def _included(file: Path, data: bytes) -> list[Path]:
    """The files a settings file's [include] and [includeIf "..."] sections name (`path = ...`): a leading ~ is the
    home folder, a relative path is the including file's folder's."""
    named, including = [], False
    for line in data.decode("utf-8", "surrogateescape").splitlines():
        section = _SECTION.match(line)
        if section is not None:
            including = section.group(1).lower() in ("include", "includeif")
            line = line[section.end():]  # a key may follow on the header's line
        key = _PATH_KEY.match(line) if including else None
        if key is not None and (value := _config_value(key.group(1))):
            path = Path(value).expanduser()
            named.append(path if path.is_absolute() else file.parent / path)
    return named


def _config_value(text: str) -> str:
    """A git config value as git reads it: quotes joined, escapes taken, a # or ; comment outside quotes cut."""
    out: list[str] = []
    quoted, chars = False, iter(text)
    for char in chars:
        if char == '"':
            quoted = not quoted
        elif char == "\\":
            escaped = next(chars, "")
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(escaped, escaped))
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def _read(file: Path) -> tuple[bytes, str]:
    """A regular file's bytes and their sha256; no bytes, and "absent", "unreadable: ERRNO" or "not a file: MODE"
    where it cannot be read as one (a change of that is a change too). Opened without waiting (a FIFO would wait for
    a writer) and looked at before it is read (a device may never end)."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return b"", "absent"
    except OSError as exc:
        return b"", f"unreadable: {exc.errno}"
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            return b"", f"not a file: {stat.filemode(mode)}"
        try:
            data = handle.read()
        except OSError as exc:
            return b"", f"unreadable: {exc.errno}"
    return data, hashlib.sha256(data).hexdigest()


def file_digest(file: Path) -> str:
    """The sha256 of a file's bytes; "absent", "unreadable: ERRNO" or "not a file: MODE" where it cannot be read."""
    return _read(file)[1]


def reading_changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What of git's reading (`reading_state`) changed between two readings, each said as a thing changed."""
    said = {"HEAD": f"HEAD (moved it from {before['HEAD'][:12]} to {after['HEAD'][:12]})",
            "settings": "git's settings"}
    return [said.get(name, f".git/{name}") for name in before if before[name] != after.get(name)]
