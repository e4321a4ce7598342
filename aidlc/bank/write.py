"""Writing memory-bank files: atomic, confined to the repo, and never losing a person's text."""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from datetime import date, datetime
from pathlib import Path
from typing import Any

from aidlc.bank import frontmatter
from aidlc.bank.walk import read_inside
from aidlc.errors import AidlcError


class NotWritten(AidlcError):
    """The file system refused a write; `reason` is its word for why (e.g. Permission denied)."""

    def __init__(self, message: str, next_steps: list[str], reason: str) -> None:
        super().__init__(message, next_steps)
        self.reason = reason


def atomic_write(path: Path, data: str | bytes, root: Path, durable: bool = True) -> None:
    """Write via a temp file, fsync and rename, so a crash leaves the old or the new file, never half.

    `data`: text (written as UTF-8) or bytes. The file keeps its permissions (a new one gets what the
    umask allows, as open() would give it); a file-system refusal is an AidlcError naming the file.
    Not `durable`: the rename is not flushed (no fsync of the folder), so after an OS crash the file may
    be the old one; it is never empty or half written."""
    ensure_inside(path, root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
                handle.flush()
                os.fchmod(handle.fileno(), mode)  # mkstemp makes 0600 files
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        if durable:
            fsync_folder(path.parent)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise NotWritten(f"{_shown(path, root)}: cannot be written ({reason})",
                         [f"make {_shown(path.parent, root)}/ writable for you, then rerun the command"],
                         reason) from None


def fsync_folder(folder: Path) -> None:
    """Make a rename or removal in `folder` durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_text(path: Path, root: Path) -> str:
    """A text file aidlc is about to change; unreadable or not UTF-8 is an AidlcError naming it (and the line)."""
    try:
        data = read_inside(path, root)
    except OSError as exc:
        raise AidlcError(f"{_shown(path, root)}: cannot be read ({exc.strerror or exc})",
                         [f"check {_shown(path, root)} exists and is readable, then rerun the command"]) from None
    text, problem = frontmatter.decode(data, path.name)
    if text is None:
        assert problem is not None
        raise AidlcError(f"{_shown(path, root)}:{problem.line}: {problem.message}; aidlc edits only UTF-8 text",
                         [f"re-save {_shown(path, root)} as UTF-8 (e.g. `iconv -f latin1 -t utf-8`), then rerun"])
    return text


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _umask() -> int:
    current = os.umask(0)  # the only way to read it; set straight back (aidlc runs no threads that create files)
    os.umask(current)
    return current


def ensure_inside(path: Path, root: Path) -> None:
    """Refuse writes outside the repo, through a symlink, or into .git/."""
    root = root.resolve()
    target = path.parent.resolve() / path.name
    if path.is_symlink():
        raise AidlcError(f"refusing to write {path}: it is a symbolic link")
    try:
        relative = target.relative_to(root)
    except ValueError:
        raise AidlcError(f"refusing to write {path}: it is outside the repository {root}") from None
    if relative.parts[:1] == (".git",):
        raise AidlcError(f"refusing to write {path}: aidlc never writes inside .git/")


def yaml_scalar(value: Any) -> str:
    """A value as YAML flow text (JSON strings are valid double-quoted YAML)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(yaml_scalar(item) for item in value) + "]"
    text = str(value)
    if _TIMESTAMP.fullmatch(text):
        return text  # written plain so YAML reads it back as a timestamp, like the templates write it
    if _PLAIN.fullmatch(text) and not _NUMBER_LIKE.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text, ensure_ascii=False)


_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
_PLAIN = re.compile(r"[A-Za-z0-9][\w./-]*")
_NUMBER_LIKE = re.compile(r"[0-9][0-9._eE+-]*|0[xob][0-9a-fA-F_]+|\d{4}-\d\d-\d\d.*")
_RESERVED = {"null", "true", "false", "yes", "no", "on", "off", "~", "y", "n"}


_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


def update_front_matter(path: Path, updates: dict[str, Any], root: Path) -> None:
    """Set top-level front-matter keys of a file, atomically."""
    atomic_write(path, set_front_matter(read_text(path, root), updates, path.name), root)


def set_front_matter(text: str, updates: dict[str, Any], name: str) -> str:
    """Text with top-level keys set; every other line (keys, comments, body) stays as it was.

    The result is parsed back before it is returned, so a bad edit is refused, not written.
    """
    doc = frontmatter.split(text, name)
    if doc.problem is not None or doc.meta is None:
        reason = doc.problem.message if doc.problem else "it has no front matter"
        raise AidlcError(f"cannot update {name}: {reason}", [f"aidlc validate    # shows what is wrong with {name}"])
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    closing = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    for key, value in updates.items():
        rendered = f"{key}: {yaml_scalar(value)}"
        start = next((i for i in range(1, closing) if (m := _KEY.match(lines[i])) and m.group(1) == key), None)
        if start is None:
            lines.insert(closing, rendered)
            closing += 1
            continue
        end = start + 1  # a block value continues on indented or "- " lines
        while end < closing and (lines[end].startswith((" ", "\t", "-")) or not lines[end].strip()):
            end += 1
        while end - 1 > start and not lines[end - 1].strip():
            end -= 1  # keep blank separator lines
        lines[start:end] = [rendered]
        closing -= end - start - 1
    new_text = newline.join(lines)
    check = frontmatter.split(new_text, name)
    if check.problem is not None or check.meta is None or any(
        not _same(check.meta.get(k), v) for k, v in updates.items()
    ):
        raise AidlcError(f"refusing to update {name}: the result would not parse back to the same values")
    return new_text


def _same(parsed: Any, wanted: Any) -> bool:
    return _plain(parsed) == _plain(wanted)


def _plain(value: Any) -> Any:
    """Compare written and re-read values as YAML text, so datetimes and strings line up."""
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, date):
        return yaml_scalar(value)
    return value
