"""Where a memory bank's files are: its folder, and its folders and files in a stable order.

Only what is safe to open is listed: regular files and folders, and symbolic links to them that
stay inside the repository. Everything else a hostile repository could put there is refused
with a reason (a `Document` whose problem the file rules report) and never opened: a FIFO
(opening it would wait for a writer for ever), a socket or a device; a link leading outside the
repository; a name that is not UTF-8; a folder that cannot be listed. The type of each entry
comes from the directory listing itself (`DirEntry`), so this costs nothing per file; only a
symbolic link, rare, is resolved.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from aidlc.bank import frontmatter
from aidlc.bank.frontmatter import Document, ProblemKind, ReadProblem, not_regular
from aidlc.errors import UsageError

CONFIG_FILE = "aidlc.yaml"
LEDGER_FILE = "events.jsonl"  # in the memory bank folder
DEFAULT_BANK = "memory-bank"  # the `memory_bank` of aidlc.yaml when it says nothing
DEFAULT_DOCS = "aidlc-docs"  # its `aidlc_docs`
# What marks the memory bank's folder as holding specs.md's records: the chain's folders, its project file, its
# ledger. A folder of that name holding other notes (Cline's memory bank: projectbrief.md, activeContext.md, ...)
# keeps no records aidlc reads.
BANK_MARKERS = ("intents", "bolts", "project.yaml", LEDGER_FILE)


def is_bank(folder: Path) -> bool:
    """Whether `folder`, a memory bank's folder, holds a memory bank's records (one of BANK_MARKERS)."""
    return any(present(folder / name) for name in BANK_MARKERS)


def present(path: Path) -> bool:
    """Whether a file or folder is at `path`; one in a folder that cannot be looked into counts as there: the
    reader then says why it cannot be read."""
    try:
        return path.exists()
    except OSError:
        return True

Entry = os.DirEntry[str]


class BankOutside(UsageError):
    """The memory bank folder is a symbolic link leading outside the repository."""


def find_bank(repo_root: Path, memory_bank: str) -> tuple[Path, Path]:
    """(repo root, memory bank folder). A path that is itself a memory bank is accepted too.

    Every command finds its bank here, so this is where a bank leading outside the repository is
    refused (BankOutside): nothing is read through it, decided about it or written through it."""
    bank = repo_root / memory_bank
    if not bank.is_dir() and (repo_root / "intents").is_dir() and not (repo_root / ".git").exists():
        return repo_root.parent, repo_root
    if bank.is_dir():
        target = os.path.realpath(bank)
        if _outside(target, str(repo_root)):
            raise BankOutside(
                f"the memory bank {memory_bank}/ leads to {shown(target)}, outside the repository "
                f"{shown(str(repo_root))}; aidlc reads nothing through it, and decides and writes nothing there",
                [f"replace the link {memory_bank} with the folder itself (or a link inside the repository)",
                 "aidlc validate    # then check the bank"])
    return repo_root, bank


def relative_to(repo_root: Path) -> Relative:
    """A function giving a path relative to `repo_root`, POSIX style."""
    return Relative(str(repo_root))


class Relative:
    """Paths relative to `root` (the repository), POSIX style: `rel(path)`."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._prefix = self.root.rstrip(os.sep) + os.sep

    def __call__(self, path: Path | str) -> str:
        text = str(path)
        if text.startswith(self._prefix):  # the common case, without relpath's cost on 10,000s of files
            return text[len(self._prefix):].replace(os.sep, "/")
        return Path(os.path.relpath(text, self.root)).as_posix()


_SURROGATE = "[\ud800-\udfff]"  # in a name: a byte that was not UTF-8 (os's surrogate escapes)


def shown(text: str) -> str:
    """A path or name as people and JSON can read it: bytes that are not UTF-8 written as \\xNN."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub(_SURROGATE, lambda m: _escape(m.group(), "\\"), text)
    return text


class LinkOutside(OSError):
    """A path that leads, through a symbolic link, outside the repository."""

    def __init__(self, path: Path | str, target: str) -> None:
        super().__init__(errno.EXDEV, f"a symbolic link to {shown(target)}, outside the repository", str(path))


def read_inside(path: Path | str, repo_root: Path | str, limit: int | None = None) -> bytes:
    """A file looked up by name, read only if it is a regular file inside the repository (through a
    symbolic link that stays inside, too): LinkOutside, NotRegularFile, TooLarge (over `limit` bytes) or
    another OSError if not."""
    target = os.path.realpath(path)
    if _outside(target, os.path.realpath(repo_root)):
        raise LinkOutside(path, target)
    return frontmatter.read_regular(target, limit)


def shown_json(text: str) -> str:
    r"""JSON text as valid UTF-8: a byte that was not UTF-8 in a name (a surrogate escape in a string)
    is written as the characters \\xNN, which JSON reads back as the text \xNN."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub(_SURROGATE, lambda m: _escape(m.group(), "\\\\"), text)
    return text


def _escape(char: str, backslash: str) -> str:
    code = ord(char)
    return f"{backslash}x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"{backslash}u{code:04x}"


def _outside(target: str, root: str) -> bool:
    return not (target == root or target.startswith(root.rstrip(os.sep) + os.sep))


class Walker:
    """Lists folders of a bank, keeping the entries it refuses (`refused`) for the file rules."""

    def __init__(self, rel: Relative) -> None:
        self.rel = rel  # its root is the repository: a symbolic link may lead anywhere inside it
        self.refused: list[Document] = []

    def dirs(self, path: str) -> list[Entry]:
        """The folders in `path` (dot-folders skipped), by name; other files there are not aidlc's."""
        return self._entries(path, "", folders=True)

    def files(self, path: str, suffix: str) -> list[Entry]:
        """The regular files in `path` whose name ends with `suffix` (dot-files skipped), by name."""
        return self._entries(path, suffix, folders=False)

    def names(self, path: str) -> set[str]:
        """The names of every regular file in `path`, a folder this walker listed (to look files up by name)."""
        return {entry.name for entry in self._entries(path, "", folders=False, listed=True)}

    def refused_as(self, path: str) -> bool:
        """True if `path` was refused already, listing its folder."""
        rel = shown(self.rel(path))
        return any(document.rel == rel for document in self.refused)

    def problem_of(self, path: str) -> ReadProblem | None:
        """Why the file `path` (looked up by name) is not to be read: missing, refused; None to read it."""
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return ReadProblem(ProblemKind.missing, None, "file does not exist")
        except OSError as exc:
            return ReadProblem(ProblemKind.unreadable, None, exc.strerror or str(exc))
        if stat.S_ISLNK(mode):
            problem, mode = self._follow(path)
            if problem is not None:
                return problem
        if stat.S_ISDIR(mode):  # FILE-004, as before: it cannot be read
            return ReadProblem(ProblemKind.unreadable, None, "a folder, not a file")
        return None if stat.S_ISREG(mode) else ReadProblem(ProblemKind.not_regular, None, not_regular(mode))

    def _entries(self, path: str, suffix: str, folders: bool, listed: bool = False) -> list[Entry]:
        """The folders (or regular files) in `path`; `listed`: `path` came from a listing of this
        walker, so it is known to stay inside the repository."""
        if not listed and os.path.islink(path):  # a fixed name (stories, units, ...): it may be a link
            problem, _target_mode = self._follow(path)
            if problem is not None:
                self._refuse(path, problem)
                return []
        try:
            with os.scandir(path) as listing:
                entries = list(listing)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            self._refuse(path, ReadProblem(ProblemKind.unlisted, None,
                                           f"the folder cannot be listed ({exc.strerror or exc})"))
            return []
        found = []
        for entry in entries:  # the type of each comes with the listing: no system call (but for a link)
            name = entry.name
            if not name.endswith(suffix) or name.startswith("."):
                continue
            if not name.isascii() and shown(name) != name:  # not UTF-8: unshowable, in JSON too
                self._refuse(entry.path, ReadProblem(ProblemKind.bad_name, None,
                                                     "the name is not UTF-8; aidlc does not open it"))
            elif entry.is_file(follow_symlinks=False):
                if not folders:
                    found.append(entry)
            elif entry.is_dir(follow_symlinks=False):
                if folders:
                    found.append(entry)
            elif entry.is_symlink():
                problem, mode = self._follow(entry.path)
                if problem is None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    problem = ReadProblem(ProblemKind.not_regular, None, not_regular(mode))  # a link to a FIFO
                if problem is not None:
                    self._refuse(entry.path, problem)
                elif stat.S_ISDIR(mode) == folders:
                    found.append(entry)
            else:  # a FIFO, socket or device: its mode tells which (one system call, for a rare entry)
                self._refuse(entry.path, ReadProblem(ProblemKind.not_regular, None, not_regular(_entry_mode(entry))))
        found.sort(key=lambda e: e.name)
        return found

    def _follow(self, path: str) -> tuple[ReadProblem | None, int]:
        """(why not to follow, mode of the target) for a symbolic link: it must stay inside the repository."""
        target = os.path.realpath(path)
        if _outside(target, self.rel.root):
            return ReadProblem(ProblemKind.outside, None, f"a symbolic link to {shown(target)}, outside the "
                               "repository; aidlc never reads or writes through it"), 0
        try:
            return None, os.stat(target).st_mode
        except OSError as exc:
            return ReadProblem(ProblemKind.unreadable, None,
                               f"a symbolic link to {shown(target)} ({exc.strerror or exc})"), 0

    def _refuse(self, path: str, problem: ReadProblem) -> None:
        self.refused.append(Document(rel=shown(self.rel(path)), problem=problem))


def _entry_mode(entry: Entry) -> int:
    try:
        return entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return 0




@dataclass
class Listing:
    """The intents (with their units and story files) and bolt folders of a bank, sorted by name."""

    intents: list[tuple[Entry, list[tuple[Entry, list[Entry]]]]]
    bolts: list[Entry]
    walker: Walker  # lists the bank's other folders; holds every entry refused so far
    listed: bool = True  # False: the bank folder itself cannot be listed (and nothing in it is read)


def list_bank(bank_dir: Path, rel: Relative) -> Listing:
    root = str(bank_dir)
    walker = Walker(rel)
    walker.dirs(root)  # a bank that cannot be listed is one finding, not one per folder below it
    if walker.refused and walker.refused[-1].rel == shown(rel(root)):
        return Listing([], [], walker, listed=False)
    intents = [(entry, [(unit, walker.files(os.path.join(unit.path, "stories"), ".md"))
                        for unit in walker.dirs(os.path.join(entry.path, "units"))])
               for entry in walker.dirs(os.path.join(root, "intents"))]
    return Listing(intents, walker.dirs(os.path.join(root, "bolts")), walker)
