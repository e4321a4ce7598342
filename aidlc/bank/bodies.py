"""Story bodies parsed by a forked helper process, on a second core, while this process reads
the stories' front matter.

Validating a large bank is CPU-bound Python. The Markdown body of a story (its acceptance
criteria, its Related Requirements line) needs nothing from its front matter, so once the story
files are listed a child process parses their bodies and sends the results back through a pipe
as plain tuples (marshal: no pickling, no objects). The parent takes a result only for a body of
the same length starting on the same line as the one it read itself; it reads any other story
again and parses it itself, as it parses every body when the helper is off or fails in any way:
the outcome is the same either way, only the time differs.

The helper runs only where it pays: on Linux (fork is cheap and safe for a single-threaded
process there), with two or more usable CPUs, for at least `MIN_STORIES` stories, when this
process has no other thread, and unless `AIDLC_BODY_HELPER=0`.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import signal
import sys
import threading
from dataclasses import dataclass

from aidlc.bank import frontmatter, markdown

MIN_STORIES = 1000  # measured: below about this many, the fork and the transfer cost more than they save
SWITCH = "AIDLC_BODY_HELPER"

# One story's body as sent back: (body length, body's first line, criteria line,
# [(line, text, checked, checkbox)], related line, [requirement ids], opinion hint); None: unreadable.
Facts = tuple[int, int, int | None, list[tuple[int, str, bool, bool]], int | None, list[str], bool]


def facts(path: str) -> Facts | None:
    """Read and parse one story body, as the parent would from the same text."""
    try:
        data = frontmatter.read_bytes(path)
    except OSError:
        return None
    text, problem = frontmatter.decode(data, path)
    if text is None or problem is not None:
        return None
    _front, body, body_start = frontmatter.cut(text)
    parts = markdown.story_parts(body, body_start)
    criteria = [(c.line, c.text, c.checked, c.checkbox) for c in parts.criteria]
    return (len(body), body_start, parts.criteria_line, criteria, parts.related_line, parts.related,
            parts.opinion_hint)


def parts_of(found: Facts | None) -> markdown.StoryParts:
    """The parts `facts` found (none for an unreadable file)."""
    if found is None:
        return markdown.StoryParts(None, [], None, [], False)
    criteria = [markdown.Criterion(*criterion) for criterion in found[3]]
    return markdown.StoryParts(found[2], criteria, found[4], found[5], found[6])


def wanted(stories: int) -> bool:
    if os.environ.get(SWITCH, "1") == "0" or stories < MIN_STORIES:
        return False
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return False  # forking a threaded process can deadlock the child on a lock another thread held
    return len(os.sched_getaffinity(0)) > 1


@dataclass
class BodyHelper:
    """A running helper: `results()` waits for it; `stop()` ends it early (safe to call twice)."""

    pid: int
    fd: int

    @classmethod
    def start(cls, paths: list[str]) -> BodyHelper | None:
        """Fork a helper parsing the bodies of `paths`, or None where it does not pay (see above)."""
        if not wanted(len(paths)):
            return None
        read_fd, write_fd = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no memory or process slots: parse inline
            os.close(read_fd)
            os.close(write_fd)
            return None
        if pid == 0:
            _run_helper(read_fd, write_fd, paths)  # never returns
        os.close(write_fd)
        return cls(pid, read_fd)

    def results(self) -> list[Facts | None] | None:
        """The helper's facts in the order of its paths; None if it failed (the caller parses inline)."""
        chunks: list[bytes] = []
        try:
            while chunk := os.read(self.fd, 1 << 20):
                chunks.append(chunk)
        finally:
            self.stop()
        try:
            found = marshal.loads(b"".join(chunks))
        except (EOFError, ValueError, TypeError):  # the helper died before it sent everything
            return None
        return found if isinstance(found, list) else None

    def stop(self) -> None:
        if self.fd < 0:
            return
        os.close(self.fd)
        self.fd = -1
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)  # a helper that already sent everything has exited
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def _run_helper(read_fd: int, write_fd: int, paths: list[str]) -> None:
    code = 1
    try:
        os.close(read_fd)
        data = memoryview(marshal.dumps([facts(path) for path in paths]))
        while data:
            data = data[os.write(write_fd, data):]
        code = 0
    finally:
        os._exit(code)  # never the parent's atexit handlers or buffered output
