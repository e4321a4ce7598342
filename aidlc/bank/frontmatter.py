"""Reading a Markdown file with YAML front matter, tolerantly and with line numbers.

Nothing here raises for bad content: a file that cannot be decoded or parsed
comes back with a ``ReadProblem`` so the validator can report it as a finding.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from aidlc.bank import yamlio


class ProblemKind(StrEnum):
    unreadable = "unreadable"
    not_utf8 = "not_utf8"
    bad_yaml = "bad_yaml"
    not_mapping = "not_mapping"
    unclosed = "unclosed"
    missing = "missing"
    not_regular = "not_regular"  # a FIFO, socket or device: never opened
    bad_name = "bad_name"  # a name that is not UTF-8: never opened
    outside = "outside"  # a symbolic link leading outside the repository: never followed
    unlisted = "unlisted"  # a folder that cannot be listed
    too_large = "too_large"  # over MAX_FILE_BYTES: never read whole


@dataclass(frozen=True)
class ReadProblem:
    kind: ProblemKind
    line: int | None
    message: str


@dataclass
class Document:
    """One text file of the memory bank, split into front matter and body."""

    rel: str
    meta: dict[str, Any] | None = None
    body: str = ""
    body_start: int = 1  # 1-based line number of the first body line
    front_matter_text: str = ""
    front_matter_line: int = 2  # file line of the first front-matter line: 2 after '---', 1 in a YAML file
    problem: ReadProblem | None = None
    _key_lines: dict[str, int] | None = field(default=None, repr=False)
    _item_lines: dict[str, dict[str, int]] | None = field(default=None, repr=False)

    def line_of(self, key: str | None) -> int | None:
        """Line of a top-level front-matter key (computed only when a finding needs it)."""
        if key is None:
            return self.front_matter_line if self.front_matter_text else 1
        if self._key_lines is None:
            self._key_lines = {}
            for offset, line in enumerate(self.front_matter_text.splitlines()):
                match = _TOP_KEY.match(line)
                if match and match.group(1) not in self._key_lines:
                    self._key_lines[match.group(1)] = offset + self.front_matter_line
        # A missing key points at the start of the front matter: that is where it belongs.
        return self._key_lines.get(key, 1)

    def line_of_item(self, key: str, value: str) -> int | None:
        """Line of `value` in the value of `key`: a block list puts each item on a line of its own."""
        start = self.line_of(key) or 1
        if self._item_lines is None:  # made when first needed: most documents never need it
            self._item_lines = {}
        if key not in self._item_lines:
            self._item_lines[key] = self._items_under(key, start)
        return self._item_lines[key].get(value, start)

    def _items_under(self, key: str, start: int) -> dict[str, int]:
        # One pass per key: a bolt listing 20,000 stories must not rescan its list for each of them.
        lines = self.front_matter_text.splitlines()
        first = start - self.front_matter_line
        found: dict[str, int] = {}
        if not 0 <= first < len(lines):
            return found
        for offset in range(first, len(lines)):
            text = lines[offset]
            if offset > first and not text.startswith((" ", "\t", "-")):
                break  # the next top-level key
            for name in _ITEM.findall(text[len(key) + 1 :] if offset == first else text):
                found.setdefault(name, offset + self.front_matter_line)
        return found


_TOP_KEY = re.compile(r"^([\w][\w.-]*)\s*:")
_ITEM = re.compile(r"[\w./-]+")  # a name in a list: story, bolt, unit or requirement id
_FENCE = "---"


UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")  # the byte order marks a UTF-16 file starts with


def decode(data: bytes, rel: str) -> tuple[str | None, ReadProblem | None]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if data[:2] in UTF16_MARKS:  # Windows editors' "Unicode": a whole file to convert, not a byte
            return None, ReadProblem(ProblemKind.not_utf8, 1, f"the file is UTF-16 (it starts with the byte order "
                                     f"mark {data[0]:02X} {data[1]:02X}), not UTF-8: save it as UTF-8")
        line = data.count(b"\n", 0, exc.start) + 1
        return None, ReadProblem(
            ProblemKind.not_utf8, line, f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not UTF-8"
        )
    return text.removeprefix("\ufeff"), None


def split(text: str, rel: str) -> Document:
    """Split text into front matter and body; parse the front matter as YAML."""
    front, body, body_start = cut(text)
    if front is None:
        if _opens(text):
            return Document(rel=rel, body=text, problem=ReadProblem(
                ProblemKind.unclosed, 1, "front matter opened with '---' is never closed"))
        return Document(rel=rel, body=text, body_start=1)
    doc = Document(rel=rel, body=body, body_start=body_start, front_matter_text=front)
    doc.meta, doc.problem = parse_mapping(front, first_line=2)
    return doc


def cut(text: str) -> tuple[str | None, str, int]:
    """(front matter text, body, line of the body's first line); no front matter (or one never
    closed) gives (None, text, 1)."""
    if text.startswith("---\n"):
        # As most files are written: a bare '---' line opens, and the first line starting '---' is a bare one that
        # closes (the general search below finds the same, at twice the cost of this whole function).
        fence = text.find("\n---", 3) + 1
        if fence and text.startswith("\n", fence + 3):
            return text[4:fence], text[fence + 4 :], text.count("\n", 4, fence) + 3
    if not _opens(text):
        return None, text, 1
    close = _find_closing_fence(text)
    if close is None:
        return None, text, 1
    front = text[text.index("\n") + 1 : close]
    after = text.find("\n", close)
    return front, "" if after == -1 else text[after + 1 :], front.count("\n") + 3


def parse_mapping(text: str, first_line: int = 1) -> tuple[dict[str, Any] | None, ReadProblem | None]:
    """Parse YAML that must be a mapping (empty text is an empty mapping)."""
    if not text.strip():
        return {}, None
    try:
        data = yamlio.load(text)
    except yamlio.YAMLError as exc:
        line = yamlio.error_line(exc, text)
        # Errors found at the end of the text (an unclosed quote) point at its last line, not past it.
        last = first_line + max(len(text.splitlines()) - 1, 0)
        where = min(first_line + line - 1, last) if line else first_line
        return None, ReadProblem(ProblemKind.bad_yaml, where, yamlio.error_summary(exc))
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return None, ReadProblem(
            ProblemKind.not_mapping, first_line, f"expected a mapping of keys, found {type(data).__name__}"
        )
    return data, None


def _opens(text: str) -> bool:
    """True when the first line is '---' ('--- ' opens too, as it closes)."""
    end = text.find("\n")
    return (text if end == -1 else text[:end]).rstrip() == _FENCE  # not partition(): it copies the rest


def _find_closing_fence(text: str) -> int | None:
    """Offset of the first '---' line after the opening one (trailing blanks allowed)."""
    pos = text.find("\n")
    while pos != -1:
        pos = text.find("\n---", pos)  # jump between candidates instead of walking every line
        if pos == -1:
            return None
        start = pos + 1
        end = text.find("\n", start)
        if (text[start:] if end == -1 else text[start:end]).rstrip() == _FENCE:
            return start
        pos = start
    return None


def read(path: Path | str, rel: str) -> Document:
    """Read and split one file; I/O and decoding problems become a ReadProblem."""
    text, problem = _read_text(path)
    if text is None:
        return Document(rel=rel, problem=problem)
    return split(text, rel)


def read_yaml(path: Path, rel: str) -> Document:
    """Read a YAML file (project.yaml): all of it is the mapping; a leading '---' is YAML's own marker."""
    text, problem = _read_text(path)
    if text is None:
        return Document(rel=rel, problem=problem)
    fenced = split(text, rel)
    if fenced.front_matter_text and not fenced.body.strip():
        return fenced  # fenced like Markdown front matter: YAML would read two documents
    meta, problem = parse_mapping(text)
    return Document(rel=rel, meta=meta, front_matter_text=text, front_matter_line=1, problem=problem)


_CHUNK = 1 << 16
# Non-blocking: opening a FIFO that slipped in (a race with the listing) returns at once instead
# of waiting for a writer; reading it then gives nothing, or an error.
_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


# A bank file is prose a person reviews: the largest seen in real banks are tens of KB. 1 MiB is far above
# any of them and keeps a hostile file from costing memory: a 300 MB story took over 600 MB to validate.
MAX_FILE_BYTES = 1 << 20


class TooLarge(OSError):
    """A file over the limit it is read with (a bank file's: MAX_FILE_BYTES): aidlc stops reading it there."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"{size:,} bytes, over the {limit:,}-byte limit for this file; aidlc does not "
                         "read it")


class NotRegularFile(OSError):
    """A path aidlc will not read: a FIFO, socket, device or folder (`mode`: which, where known)."""

    def __init__(self, path: Path | str, mode: int | None = None) -> None:
        super().__init__(errno.EINVAL, "not a regular file" if mode is None else not_regular(mode), str(path))


def not_regular(mode: int) -> str:
    """What a file of `mode` is, that aidlc does not open."""
    kinds = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"))
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    return f"{kind}, not a regular file; aidlc does not open it"


def read_bytes(path: Path | str, limit: int | None = None) -> bytes:
    """A whole file through os.read: a third of the cost of open().read() for small files.

    For files the listing already knows are regular (`walk`): it checks nothing more, on purpose
    (an fstat would cost a third as much again). A file looked up by name is read with `read_regular`.
    Over `limit` bytes: TooLarge, having read at most one chunk past the limit (no fstat for a small file)."""
    fd = os.open(path, _OPEN)
    try:
        return _read_all(fd, limit)
    finally:
        os.close(fd)


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """A whole file, refused (NotRegularFile) unless it is a regular file: never a FIFO or a device. Over `limit`
    bytes: TooLarge."""
    fd = os.open(path, _OPEN)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode)
        return _read_all(fd, limit)
    finally:
        os.close(fd)


def _read_all(fd: int, limit: int | None = None) -> bytes:
    chunks = [os.read(fd, _CHUNK)]
    size = len(chunks[0])
    while len(chunks[-1]) == _CHUNK:  # a larger file: keep reading until a short read
        if limit is not None and size > limit:
            raise TooLarge(max(size, os.fstat(fd).st_size), limit)
        chunks.append(os.read(fd, _CHUNK))
        size += len(chunks[-1])
    if limit is not None and size > limit:
        raise TooLarge(size, limit)
    return b"".join(chunks) if len(chunks) > 1 else chunks[0]


def _read_text(path: Path | str) -> tuple[str | None, ReadProblem | None]:
    try:
        data = read_bytes(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return None, ReadProblem(ProblemKind.missing, None, "file does not exist")
    except TooLarge as exc:
        return None, ReadProblem(ProblemKind.too_large, None, exc.strerror or str(exc))
    except OSError as exc:
        return None, ReadProblem(ProblemKind.unreadable, None, exc.strerror or str(exc))
    return decode(data, str(path))
