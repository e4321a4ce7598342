"""The walkthrough file's format: the generated block between two markers that name the report's head and
digest, and how a new block replaces the old one while a person's text around it stays. The walkthrough gate
reads the marker; the writer (aidlc.bolt.walkthrough) and the unit report write the block.
"""

from __future__ import annotations

import re

from aidlc.bank.frontmatter import decode
from aidlc.errors import UsageError

BEGIN = "<!-- aidlc:evidence begin"
END = "<!-- aidlc:evidence end -->"
_MARKER = re.compile(r"<!-- aidlc:evidence begin head=([0-9a-f]{40}) digest=([0-9a-f]{64}) -->")


def generated_block(head: str, digest: str, body: str) -> str:
    """`body` between the markers, which name the report's head and digest."""
    # Repository text (a commit subject, a story) must not open or close the block: a comment opener is
    # shown escaped, as Markdown renders it the same.
    return f"{BEGIN} head={head} digest={digest} -->\n{body.replace('<!--', '&lt;!--')}{END}\n"


def fence(text: str) -> str:
    """A code fence longer than any run of backticks in `text`: a check's output cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def merge(existing: str | None, block: str) -> str:
    """`block` in place of the generated block of `existing`; a person's text around it is kept. A file
    without a block keeps all its text after the new block."""
    if not existing or not existing.strip():
        return block
    start, stop = existing.find(BEGIN), existing.find(END)
    if start >= 0 and stop > start:
        return existing[:start] + block.rstrip("\n") + existing[stop + len(END):]
    return block + "\n" + existing


def marker(text: str) -> tuple[str, str] | None:
    """(head, digest) named by the generated block of a walkthrough file; None without one."""
    found = _MARKER.search(text)
    return (found.group(1), found.group(2)) if found else None


def person_text(data: bytes, rel: str, command: str) -> str:
    """The walkthrough file's text, which a person may have written around the block: never decoded with
    replacements, which the rewrite would save over their bytes; a UsageError naming the byte and `command` instead."""
    text, problem = decode(data, rel)
    if text is None:
        assert problem is not None
        raise UsageError(f"{rel}:{problem.line}: not rewritten: {problem.message}, and the text a person wrote "
                         "around the report would be lost", [f"save {rel} as UTF-8 text, then run {command}"])
    return text if not data.startswith(b"\xef\xbb\xbf") else "\ufeff" + text  # a byte order mark is kept too
