"""Reading story files, most of a bank; for a large bank, with a forked helper process.

Validating a large bank is CPU-bound Python, and each story file can be read (front matter
split and parsed, body scanned for acceptance criteria and Related Requirements) on its own.
So as soon as the stories are listed (in `aidlc validate`, before pydantic and the rules are
even imported) a child process starts reading them from the first, on a second core, while
this process does everything else: the imports, the requirements, the unit briefs, the bolts.
Then this process reads stories too, a chunk at a time from the last, telling the helper where
to stop, until the two meet. Neither waits for the other whatever their speeds (no cost model
to get wrong). The helper appends what it read to an anonymous in-memory file, a pickled frame
(plain tuples: the parsed YAML holds dates) per chunk, so it never waits for a reader.

Both run the very same `read_story`, so the outcome is the same either way; any story the
helper did not deliver (it was stopped, failed or died) is read here. The helper runs only where
it pays: on Linux (fork is cheap and safe there for a process without other threads), with two
or more usable CPUs, for at least `MIN_STORIES` stories, and unless `AIDLC_STORY_HELPER=0`.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc.bank import frontmatter, markdown, walk
from aidlc.bank.frontmatter import Document, ProblemKind, ReadProblem

MIN_STORIES = 1000  # measured: below about this many, the fork and the transfer cost more than they save
SWITCH = "AIDLC_STORY_HELPER"

CHUNK = 100  # stories per frame, and per claim of this process: the most either may read twice
_LENGTH = struct.Struct("<Q")  # a frame's length, before it
_LIMIT = struct.Struct("<q")  # a message to the helper: stop before this story

StoryRead = tuple[Document, markdown.StoryParts]


def read_story(path: str, rel: str) -> StoryRead:
    """One story file: its document (front matter parsed, body dropped) and its body's parts."""
    doc = frontmatter.read(path, rel)
    if doc.problem is None and doc.meta is None:
        doc.problem = ReadProblem(ProblemKind.not_mapping, 1, "a story needs YAML front matter between '---' lines")
    parts = markdown.story_parts(doc.body, doc.body_start)
    doc.body = ""  # parsed: not needed again (10,000 story bodies are most of the memory)
    return doc, parts


def wanted(stories: int) -> bool:
    if os.environ.get(SWITCH, "1") == "0" or stories < MIN_STORIES:
        return False
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return False  # forking a threaded process can deadlock the child on a lock another thread held
    return len(os.sched_getaffinity(0)) > 1


def start_early(repo_root: Path) -> StoryHelper | None:
    """A helper started before this process imports the rest of aidlc (about 0.2 s of
    `aidlc validate`). The loader uses it only if it lists the very stories the loader finds
    (aidlc.yaml is read here without being validated)."""
    try:
        repo, bank_dir = walk.find_bank(repo_root.resolve(), walk.configured_bank(repo_root))
        if not bank_dir.is_dir():
            return None
        return StoryHelper.start(walk.list_bank(bank_dir, walk.relative_to(repo)))
    except (OSError, walk.BankOutside):  # the loader reports it
        return None


@dataclass
class StoryHelper:
    """A running helper: `read_all()` shares the rest of the work with it; `stop()` ends it (safe twice)."""

    pid: int
    fd: int  # an anonymous in-memory file the helper appends its frames to
    control: int  # the write end of a pipe: where the helper must stop
    bank_dir: Path
    jobs: list[tuple[str, str]]  # every story of the bank, (path, rel), in listing order

    @classmethod
    def start(cls, listing: walk.Listing) -> StoryHelper | None:
        """Fork a helper reading the stories of `listing`; None where it does not pay or cannot start."""
        if not wanted(len(listing.stories)):
            return None
        try:
            fd = os.memfd_create("aidlc-stories", os.MFD_CLOEXEC)
        except OSError:
            return None
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no memory or process slots: this process reads them
            for end in (fd, read_end, write_end):
                os.close(end)
            return None
        if pid == 0:
            os.close(write_end)
            _run_helper(fd, read_end, listing.stories)  # never returns
        os.close(read_end)
        return cls(pid, fd, write_end, listing.bank_dir, listing.stories)

    def serves(self, listing: walk.Listing) -> bool:
        """True if it was started for the stories of `listing`; otherwise it is stopped."""
        if self.pid and listing.bank_dir == self.bank_dir and listing.stories == self.jobs:
            return True
        self.stop()
        return False

    def read_all(self) -> list[StoryRead]:
        """Every story of `jobs`, in order: the helper's from the first, this process's from the last."""
        found: dict[int, StoryRead] = {}
        offset = 0  # of the next frame in the file
        done = 0  # the helper has delivered every story before this one
        limit = len(self.jobs)  # this process reads (or has read) every story from this one on
        try:
            while self.pid:
                offset, done = self._collect(found, offset, done)
                if done >= limit or self._exited():
                    break
                claim = max(done, limit - CHUNK)
                with contextlib.suppress(BrokenPipeError):  # it has just exited: the next round sees it
                    os.write(self.control, _LIMIT.pack(claim))
                for number in range(claim, limit):
                    found[number] = read_story(*self.jobs[number])
                limit = claim
            if self.pid:  # stops after the chunk it is reading, at most CHUNK stories away
                os.waitpid(self.pid, 0)
                self.pid = 0
            self._collect(found, offset, done)
        finally:
            self.stop()
        # Any story the helper never delivered (it failed or died) is read here.
        return [found[n] if n in found else read_story(*job) for n, job in enumerate(self.jobs)]

    def _collect(self, found: dict[int, StoryRead], offset: int, done: int) -> tuple[int, int]:
        """Take the helper's new whole frames from the file: (offset after them, stories delivered)."""
        size = os.fstat(self.fd).st_size
        while offset + _LENGTH.size <= size:
            (length,) = _LENGTH.unpack(os.pread(self.fd, _LENGTH.size, offset))
            if offset + _LENGTH.size + length > size:
                break  # still being written
            try:
                first, items = pickle.loads(os.pread(self.fd, length, offset + _LENGTH.size))
                if not 0 <= first <= len(self.jobs) - len(items):
                    raise ValueError(f"a frame for stories {first}+{len(items)} of {len(self.jobs)}")
                reads = [_unpack(item, self.jobs[number][1]) for number, item in enumerate(items, start=first)]
            except (EOFError, pickle.UnpicklingError, ValueError, TypeError, IndexError):
                break  # not a frame of ours (cannot happen): this process reads those stories itself
            for number, read in enumerate(reads, start=first):
                found.setdefault(number, read)
            done = max(done, first + len(items))
            offset += _LENGTH.size + length
        return offset, done

    def _exited(self) -> bool:
        pid, _status = os.waitpid(self.pid, os.WNOHANG)
        if pid:
            self.pid = 0
        return bool(pid)

    def stop(self) -> None:
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
        for name in ("fd", "control"):
            if getattr(self, name) >= 0:
                os.close(getattr(self, name))
                setattr(self, name, -1)


def _run_helper(fd: int, control: int, jobs: list[tuple[str, str]]) -> None:
    code = 1
    try:
        os.set_blocking(control, False)
        limit, number = len(jobs), 0
        # A parent that died (kill -9) closed the pipe: _limit says 0 and this stops at the next chunk.
        while number < (limit := _limit(control, limit)):
            end = min(number + CHUNK, limit)
            frame = pickle.dumps((number, [_pack(*read_story(*jobs[n])) for n in range(number, end)]), protocol=5)
            data = memoryview(_LENGTH.pack(len(frame)) + frame)
            while data:
                data = data[os.write(fd, data):]
            number = end
        code = 0
    finally:
        os._exit(code)  # never the parent's atexit handlers or buffered output


def _limit(control: int, limit: int) -> int:
    """The lowest limit this process has sent so far (messages are 8 bytes: written whole)."""
    while True:
        try:
            data = os.read(control, 4096)
        except BlockingIOError:
            return limit
        if not data:  # this process closed the pipe: it needs nothing more
            return 0
        for (value,) in _LIMIT.iter_unpack(data[: len(data) - len(data) % _LIMIT.size]):
            limit = min(limit, value)


def _pack(doc: Document, parts: markdown.StoryParts) -> tuple[Any, ...]:
    problem = doc.problem and (doc.problem.kind.value, doc.problem.line, doc.problem.message)
    criteria = [(c.line, c.text, c.checked, c.checkbox) for c in parts.criteria]
    return (doc.meta, doc.body_start, doc.front_matter_text, doc.front_matter_line, problem,
            parts.criteria_line, criteria, parts.related_line, parts.related, parts.opinion_hint)


def _unpack(item: tuple[Any, ...], rel: str) -> StoryRead:
    meta, body_start, front, front_line, problem, criteria_line, criteria, related_line, related, hint = item
    doc = Document(rel=rel, meta=meta, body_start=body_start, front_matter_text=front, front_matter_line=front_line,
                   problem=ReadProblem(ProblemKind(problem[0]), problem[1], problem[2]) if problem else None)
    parts = markdown.StoryParts(criteria_line, [markdown.Criterion(*c) for c in criteria], related_line, related, hint)
    return doc, parts
