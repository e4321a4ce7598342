"""Reading a Markdown file with YAML front matter, tolerantly and with line numbers.

Nothing here raises for bad content: a file that cannot be decoded or parsed
comes back with a ``ReadProblem`` so the validator can report it as a finding.
"""

from __future__ import annotations

import re
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
    problem: ReadProblem | None = None
    _key_lines: dict[str, int] | None = field(default=None, repr=False)

    def line_of(self, key: str | None) -> int | None:
        """Line of a top-level front-matter key (computed only when a finding needs it)."""
        if key is None:
            return 2 if self.front_matter_text else 1
        if self._key_lines is None:
            self._key_lines = {}
            for offset, line in enumerate(self.front_matter_text.splitlines()):
                match = _TOP_KEY.match(line)
                if match and match.group(1) not in self._key_lines:
                    self._key_lines[match.group(1)] = offset + 2  # line 1 is the opening ---
        return self._key_lines.get(key, 1)


_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
_FENCE = "---"


def decode(data: bytes, rel: str) -> tuple[str | None, ReadProblem | None]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, ReadProblem(
            ProblemKind.not_utf8, line, f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not UTF-8"
        )
    return text.removeprefix("\ufeff"), None


def split(text: str, rel: str) -> Document:
    """Split text into front matter and body; parse the front matter as YAML."""
    if not text.startswith(_FENCE) or text[3:4] not in ("\n", "\r", ""):
        return Document(rel=rel, body=text, body_start=1)
    close = _find_closing_fence(text)
    if close is None:
        return Document(
            rel=rel,
            body=text,
            problem=ReadProblem(ProblemKind.unclosed, 1, "front matter opened with '---' is never closed"),
        )
    fm_start = text.index("\n") + 1
    front = text[fm_start:close]
    after = text.find("\n", close)
    body = "" if after == -1 else text[after + 1 :]
    body_start = front.count("\n") + 3
    doc = Document(rel=rel, body=body, body_start=body_start, front_matter_text=front)
    meta, problem = parse_mapping(front, first_line=2)
    doc.meta, doc.problem = meta, problem
    return doc


def parse_mapping(text: str, first_line: int = 1) -> tuple[dict[str, Any] | None, ReadProblem | None]:
    """Parse YAML that must be a mapping (empty text is an empty mapping)."""
    if not text.strip():
        return {}, None
    try:
        data = yamlio.load(text)
    except yamlio.YAMLError as exc:
        line = yamlio.error_line(exc)
        where = first_line + line - 1 if line else first_line
        return None, ReadProblem(ProblemKind.bad_yaml, where, yamlio.error_summary(exc))
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return None, ReadProblem(
            ProblemKind.not_mapping, first_line, f"expected a mapping of keys, found {type(data).__name__}"
        )
    return data, None


def _find_closing_fence(text: str) -> int | None:
    start = text.find("\n") + 1
    if start == 0:
        return None
    pos = start
    while True:
        if text.startswith(_FENCE, pos) and text[pos + 3 : pos + 4] in ("\n", "\r", "", " "):
            return pos
        nxt = text.find("\n", pos)
        if nxt == -1:
            return None
        pos = nxt + 1


def read(path: Path, rel: str) -> Document:
    """Read and split one file; I/O and decoding problems become a ReadProblem."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Document(rel=rel, problem=ReadProblem(ProblemKind.missing, None, "file does not exist"))
    except OSError as exc:
        return Document(rel=rel, problem=ReadProblem(ProblemKind.unreadable, None, exc.strerror or str(exc)))
    text, problem = decode(data, rel)
    if text is None:
        return Document(rel=rel, problem=problem)
    return split(text, rel)
