"""Reading story files, most of a bank; for a large bank, part of them in a forked helper process.

Validating a large bank is CPU-bound Python, and each story file can be read (front matter
split and parsed, body scanned for acceptance criteria and Related Requirements) on its own.
So once the story files are listed, a child process reads the last part of them on a second
core while this process reads the first part, the unit briefs, the requirements and the bolts;
the child leaves what it read in an anonymous in-memory file (pickled plain tuples: the parsed
YAML holds dates) and this process builds the documents from it. The child runs the very same `read_story`, so
the outcome is the same either way; when the helper is off or fails in any way this process
reads those stories itself, and only the time differs.

The helper runs only where it pays: on Linux (fork is cheap and safe there for a process
without other threads), with two or more usable CPUs, for at least `MIN_STORIES` stories, and
unless `AIDLC_STORY_HELPER=0`.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc.bank import frontmatter, markdown, walk
from aidlc.bank.frontmatter import Document, ProblemKind, ReadProblem

MIN_STORIES = 1000  # measured: below about this many, the fork and the transfer cost more than they save
SWITCH = "AIDLC_STORY_HELPER"

# Relative costs per file, measured in `aidlc validate` on the 10,000-story benchmark bank, to
# share the stories so that both processes finish together: reading a story (either process),
# this process validating one's front matter, the helper packing and pickling one, and this
# process reading any other file (a requirements.md, a unit brief, a bolt).
READ_COST, CHECK_COST, SEND_COST, OTHER_COST = 50, 5, 11, 55
IMPORT_COST = 200_000  # this process importing pydantic, the models and the rules, on the same scale

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


def helper_share(stories: int, other_files: int, head_start: int = 0) -> int:
    """How many of the stories the helper reads so that both processes finish together (this one
    checks the front matter of its own share meanwhile, of the helper's share afterwards).
    `head_start`: what this process does before it reads a file, on the same cost scale."""
    here = head_start + other_files * OTHER_COST + stories * (READ_COST + CHECK_COST)  # if it read them all
    share = here / (2 * READ_COST + CHECK_COST + SEND_COST)
    return max(0, min(stories, round(share)))


def start_share(listing: walk.Listing, head_start: int = 0) -> StoryHelper | None:
    """A helper reading the last stories of `listing`, as many as `helper_share` says; None where
    it does not pay (see the module's doc) or cannot start."""
    jobs = listing.stories
    if not wanted(len(jobs)):
        return None
    first = len(jobs) - helper_share(len(jobs), listing.other_files, head_start)
    return StoryHelper.start(listing.bank_dir, jobs, first)


def start_early(repo_root: Path) -> StoryHelper | None:
    """A helper started before this process imports the rest of aidlc (0.2 s of the 10,000-story
    `aidlc validate`): it reads a larger share meanwhile. The loader uses it only if it lists
    the very stories the loader finds (aidlc.yaml is read here without being validated)."""
    try:
        repo, bank_dir = walk.find_bank(repo_root.resolve(), walk.configured_bank(repo_root))
        if not bank_dir.is_dir():
            return None
        return start_share(walk.list_bank(bank_dir, walk.relative_to(repo)), head_start=IMPORT_COST)
    except OSError:
        return None


@dataclass
class StoryHelper:
    """A running helper: `results()` waits for what it read; `stop()` ends it early (safe to call twice)."""

    pid: int
    fd: int  # an anonymous in-memory file the helper writes its results to: it never waits for a reader
    bank_dir: Path
    jobs: list[tuple[str, str]]  # every story of the bank, (path, rel), in listing order
    first: int  # the helper reads jobs[first:]

    @classmethod
    def start(cls, bank_dir: Path, jobs: list[tuple[str, str]], first: int) -> StoryHelper | None:
        """Fork a helper reading the stories `jobs[first:]`; None if there are none or it cannot start."""
        if first >= len(jobs):
            return None
        try:
            fd = os.memfd_create("aidlc-stories", os.MFD_CLOEXEC)
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:  # no memory or process slots: this process reads them
            os.close(fd)
            return None
        if pid == 0:
            _run_helper(fd, jobs[first:])  # never returns
        return cls(pid, fd, bank_dir, jobs, first)

    def serves(self, listing: walk.Listing) -> bool:
        """True if it was started for the stories of `listing`; otherwise it is stopped."""
        if self.pid and listing.bank_dir == self.bank_dir and listing.stories == self.jobs:
            return True
        self.stop()
        return False

    def results(self) -> list[StoryRead] | None:
        """What the helper read for `jobs[first:]`; None if it failed."""
        try:
            _pid, status = os.waitpid(self.pid, 0)
            self.pid = 0
            if os.waitstatus_to_exitcode(status) != 0:
                return None
            size = os.fstat(self.fd).st_size
            data = os.pread(self.fd, size, 0) if size else b""
        finally:
            self.stop()
        try:
            packed = pickle.loads(data)
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError):
            return None
        mine = self.jobs[self.first:]
        if not isinstance(packed, list) or len(packed) != len(mine):
            return None
        return [_unpack(item, rel) for item, (_path, rel) in zip(packed, mine, strict=True)]

    def stop(self) -> None:
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _run_helper(fd: int, jobs: list[tuple[str, str]]) -> None:
    code = 1
    try:
        data = memoryview(pickle.dumps([_pack(*read_story(path, rel)) for path, rel in jobs], protocol=5))
        while data:
            data = data[os.write(fd, data):]
        code = 0
    finally:
        os._exit(code)  # never the parent's atexit handlers or buffered output


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
