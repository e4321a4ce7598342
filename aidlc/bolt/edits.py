"""A model's edits to the code, checked in full before anything is written, then written all or
nothing.

    blocks = parse_edit_blocks(answer)                       # EditFormatError: tell the model
    prepared = prepare_edits(repo, blocks, allowed=plan.allows)  # EditRefused: tell the model
    written = prepared.apply()

`prepare_edits` is a dry run: each block is resolved against the current text of its file (or the
text the blocks before it for the same file produced), and every problem is collected, so the model
hears of all of them at once. A path the model wrote is untrusted: it is refused outside the
repository, through a symbolic link (any part of it), where protected.py says a run never writes
(`.git/`, `.aidlc/`, the memory bank, the repository's governance files, in any case), when it is not
a regular file (a FIFO, a device), or when the approved plan does not name it. One refused block refuses them
all: nothing is written.

`apply` writes through the journal of bank/journal.py, confined to the repository: each file is
replaced atomically (temp file in its folder, then rename), its old bytes journalled first (one file
in a folder that exists needs no journal: its own atomic replace is all or nothing). An
error rolls every file back at once; a kill -9 leaves the journal, and the next aidlc command
that opens the bank (workspace.open_bank) rolls the half-applied edits back, so a resumed run
finds the tree as its last step left it.

Every file rewritten gets an mtime at least one second past its old one (`fresh_mtimes`): Python's
bytecode cache (as make) takes a source whose size and mtime, to the second, are unchanged for the one
it compiled, so a same-size edit within that second would have the checks run the old code.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from aidlc.bank.config import load_config
from aidlc.bank.walk import read_inside
from aidlc.bank.write import atomic_write
from aidlc.bolt.edit_format import EditBlock, EditFormatError, edit_format_prompt, parse_edit_blocks
from aidlc.bolt.edit_match import MatchProblem, newline_of, replace_once, split_lines
from aidlc.bolt.protected import protected
from aidlc.errors import AidlcError
from aidlc.events import journal

__all__ = ["EditBlock", "EditFormatError", "EditRefused", "PreparedEdits", "edit_format_prompt", "fresh_mtimes",
           "parse_edit_blocks", "prepare_edits"]
_SECOND_NS = 1_000_000_000

_BOM = "\ufeff"
_ELIDED = re.compile(r"(\.\.\.|…).*\b(rest|unchanged|remaining|existing|omitted|same)\b"
                     r"|\b(rest of (the )?(code|file|class|function)|unchanged)\b.*(\.\.\.|…)", re.IGNORECASE)


class EditRefused(AidlcError):
    """The blocks were read but cannot be applied; nothing was written. Each problem names its file
    and says what the model can do about it."""

    def __init__(self, problems: list[str]) -> None:
        listed = "\n".join(f"- {problem}" for problem in problems)
        super().__init__(f"None of the edits were applied; nothing was written:\n{listed}")
        self.problems = problems


@dataclass
class _File:
    old: str | None  # the text as read (None: the file does not exist)
    text: str | None  # after the blocks so far (None: deleted)
    bom: str = ""  # a UTF-8 byte order mark the file starts with, kept


@dataclass
class PreparedEdits:
    changes: dict[str, str | None]  # relpath -> new full text (None: delete), files that change only
    root: Path = field(repr=False)
    _old: dict[str, str | None] = field(default_factory=dict, repr=False)

    def apply(self) -> list[str]:
        """Write every change or none (EditRefused if a file changed since the dry run); the paths written."""
        if not self.changes:
            return []
        problems = [f"{rel}: {why}" for rel in self.changes if (why := _changed_since(self.root, rel, self._old[rel]))]
        if problems:
            raise EditRefused(problems)

        rewritten = [rel for rel, text in self.changes.items() if text is not None]
        (first, text), *others = self.changes.items()
        if not others and text is not None and (self.root / first).parent.is_dir():
            # One file in an existing folder needs no journal: its atomic replace is all or nothing by itself.
            with fresh_mtimes(self.root, rewritten):
                atomic_write(self.root / first, text, self.root)
            return [first]
        with fresh_mtimes(self.root, rewritten), journal.writing(self.root, bank="") as edits:
            for rel, text in self.changes.items():
                if text is None:
                    edits.remove(self.root / rel)
                else:
                    edits.write(self.root / rel, text)
        return list(self.changes)


@contextlib.contextmanager
def fresh_mtimes(root: Path, rels: Iterable[str]) -> Iterator[None]:
    """Each regular file of `rels` that existed before the block gets, after it, the mtime max(old + 1 s, now):
    never the second (Python's bytecode cache compares whole seconds) of the version it replaced."""
    before: dict[str, int] = {}
    for rel in rels:
        with contextlib.suppress(OSError):
            before[rel] = os.stat(root / rel, follow_symlinks=False).st_mtime_ns
    yield
    now = time.time_ns()
    for rel, old in before.items():
        path = root / rel
        with contextlib.suppress(OSError):
            now_stat = os.stat(path, follow_symlinks=False)
            if stat.S_ISREG(now_stat.st_mode):
                os.utime(path, ns=(now_stat.st_atime_ns, max(old + _SECOND_NS, now)), follow_symlinks=False)


def prepare_edits(repo_root: Path, blocks: list[EditBlock], allowed: Callable[[str], bool],
                  memory_bank: str | None = None) -> PreparedEdits:
    """Dry-run `blocks`; EditRefused with every problem found, else the changes to apply.

    `allowed(relpath)`: True when the approved plan names the file. `memory_bank`: the bank folder
    of aidlc.yaml (read from it when not given), whose ledger is refused."""
    root = repo_root.resolve()
    if memory_bank is None:

        memory_bank = load_config(root).memory_bank
    files: dict[str, _File] = {}
    refused: dict[str, str] = {}  # path as written -> why (said once however many blocks it has)
    problems: list[str] = []
    for number, block in enumerate(blocks, 1):
        where = f"{block.path} (block {number} of {len(blocks)})" if len(blocks) > 1 else block.path
        if block.path in refused:
            continue
        rel, why = _file_of(root, block.path, memory_bank, allowed, files)
        if rel is None:
            refused[block.path] = why or ""
            problems.append(f"{block.path}: {why}")
            continue
        why = _apply_block(files[rel], block)
        if why is not None:
            problems.append(f"{where}: {why}")
    if problems:
        raise EditRefused(problems)
    changes = {rel: None if file.text is None else file.bom + file.text
               for rel, file in files.items() if file.text != file.old}
    return PreparedEdits(changes, root, {rel: None if (old := files[rel].old) is None else files[rel].bom + old
                                         for rel in changes})


def _file_of(root: Path, written: str, bank: str, allowed: Callable[[str], bool],
             files: dict[str, _File]) -> tuple[str | None, str | None]:
    """(the path relative to the repository, None) with its file loaded into `files` (once), or (None, why the
    model may not write it or it cannot be read)."""
    rel, why = _checked_path(root, written, bank, allowed)
    if rel is None or why is not None:
        return None, why
    if rel not in files:
        loaded, why = _load(root, rel)
        if loaded is None:
            return None, why
        files[rel] = loaded
    return rel, None


def _checked_path(root: Path, written: str, bank: str,
                  allowed: Callable[[str], bool]) -> tuple[str | None, str | None]:
    """(the path relative to the repository, None) or (maybe the path, why the model may not write it)."""
    if not written.strip() or "\x00" in written:
        return None, "not a usable path; write the file's path relative to the repository root, e.g. src/app.py"
    if "\\" in written:
        return None, "write paths with '/' between folders, not '\\'"
    path = PurePosixPath(written)
    if path.is_absolute() or written.startswith("~") or re.match(r"[A-Za-z]:", written):
        return None, "an absolute path; write it relative to the repository root, e.g. src/app.py"
    if ".." in path.parts:
        return None, "'..' leads outside the repository; write paths relative to the repository root"
    if not path.parts or written.endswith("/"):
        return None, "names a folder, not a file"
    rel = path.as_posix()
    why = protected(rel, bank)
    if why is None and not allowed(rel):
        why = ("not in the approved plan; change only the files the plan names (a file the plan does not "
               "name needs a new plan)")
    return rel, why or _not_writable(root, path.parts)


def _not_writable(root: Path, parts: tuple[str, ...]) -> str | None:
    """Why the file cannot be written in place: a symbolic link on the way, a file where a folder
    should be, or something other than a regular file. None if it is one or does not exist yet."""
    here = root
    for index, name in enumerate(parts):
        here = here / name
        shown = "/".join(parts[:index + 1])
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{shown} cannot be looked at ({exc.strerror or exc})"
        last = index == len(parts) - 1
        if stat.S_ISLNK(mode):
            return ("a symbolic link" if last else f"goes through the symbolic link {shown}") + \
                "; aidlc never writes through one: edit the file it leads to by its own path"
        if not last and not stat.S_ISDIR(mode):
            return f"{shown} is a file, not a folder"
        if last and not stat.S_ISREG(mode):
            return f"{_kind(mode)}, not a regular file; aidlc edits only regular files"
    return None


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "special")


def _load(root: Path, rel: str) -> tuple[_File | None, str | None]:
    path = root / rel
    if not path.exists():
        return _File(None, None), None
    try:
        data = read_inside(path, root)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, (f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); aidlc edits only UTF-8 "
                      "text files: leave this file out")
    if "\x00" in text:
        return None, "a binary file; aidlc edits only text files: leave this file out"
    bom = _BOM if text.startswith(_BOM) else ""
    text = text.removeprefix(bom)
    return _File(text, text, bom), None


def _apply_block(file: _File, block: EditBlock) -> str | None:
    """Apply `block` to `file.text`; why not, if it cannot be."""
    if block.delete:
        if file.text is None:
            return "does not exist, so it cannot be deleted; check the path"
        file.text = None
        return None
    if block.search is None:
        return _whole(file, block.replace)
    if not block.search.strip():
        if file.text is not None and file.text.strip():
            return ("exists already; an empty SEARCH only creates a new file. Put the lines to change in SEARCH "
                    "(or send the whole file)")
        file.text = block.replace
        return None
    if file.text is None:
        return "does not exist; to create it, leave SEARCH empty (or check the path)"
    try:
        file.text = replace_once(file.text, block.search, block.replace)
    except MatchProblem as exc:
        return str(exc)
    return None


def _whole(file: _File, content: str) -> str | None:
    if file.text is not None:
        before = {line.strip() for line in split_lines(file.text)}
        elided = next((line.strip() for line in content.split("\n")
                       if _ELIDED.search(line) and line.strip() not in before), None)
        if elided is not None:
            return f"the new content leaves code out (`{elided}`); send the complete file, every line of it"
        if newline_of(file.text) == "\r\n":
            content = content.replace("\r\n", "\n").replace("\n", "\r\n")
    file.text = content
    return None


def _changed_since(root: Path, rel: str, old: str | None) -> str | None:
    """Why `rel` is no longer as the dry run read it (a path check again, too: links can appear)."""
    why = _not_writable(root, PurePosixPath(rel).parts)
    if why is not None:
        return why
    now, why = _load(root, rel)
    if now is None:
        return why
    if (now.old if now.old is None else now.bom + now.old) != old:
        return "changed since the edits were checked; read it again and redo the edits"
    return None
