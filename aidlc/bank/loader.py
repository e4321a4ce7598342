"""Reading a whole memory bank from disk into items. Never writes, never raises for content."""

from __future__ import annotations

import os
from pathlib import Path

from aidlc.bank import frontmatter, markdown
from aidlc.bank.frontmatter import Document, ProblemKind, ReadProblem
from aidlc.bank.items import (
    BoltItem,
    Intent,
    MemoryBank,
    Requirement,
    Runbook,
    StoryItem,
    Unit,
    validate_front_matter,
    validate_many,
)
from aidlc.bank.stories import StoryHelper, StoryRead, read_story
from aidlc.bank.walk import BankOutside, Entry, Walker, find_bank, list_bank, relative_to, shown
from aidlc.model.artifacts import Bolt, Project, Requirements, Story, UnitBrief
from aidlc.model.config import Config
from aidlc.perf import gc_paused


def load_bank(repo_root: Path, config: Config, early: StoryHelper | None = None,
              report_outside: bool = False) -> MemoryBank:
    """The bank under `repo_root`. `early`: a helper already reading its share of the stories
    (`stories.start_early`); used if it lists the same stories, else stopped. A bank leading
    outside the repository is refused (BankOutside), or with `report_outside` read as empty, with
    that one problem for the file rules to report."""
    try:
        repo_root, bank_dir = find_bank(repo_root.resolve(), config.memory_bank)
    except BankOutside as exc:
        if early:
            early.stop()
        if not report_outside:
            raise
        bank = MemoryBank(repo_root=str(repo_root.resolve()), rel_root=config.memory_bank, config=config)
        bank.unreadable = [Document(rel=shown(config.memory_bank), problem=ReadProblem(
            ProblemKind.outside, None, exc.message))]
        return bank
    loader = _Loader(repo_root, bank_dir)
    bank = MemoryBank(repo_root=str(repo_root), rel_root=loader.rel(bank_dir), config=config)
    try:
        if not bank_dir.is_dir():
            bank.exists = False
            return bank
        with gc_paused():
            loader.load_into(bank, early)
    finally:
        if early:
            early.stop()
    return bank


class _Loader:
    def __init__(self, repo_root: Path, bank_dir: Path) -> None:
        self.repo_root = repo_root
        self.bank_dir = bank_dir
        self.files_read = 0
        self.rel = relative_to(repo_root)
        self.walker = Walker(self.rel)
        self._stories: list[tuple[Unit, str, str]] = []  # (unit, path, stem), in listing order

    def read(self, path: str) -> Document:
        self.files_read += 1
        return frontmatter.read(path, self.rel(path))

    def load_into(self, bank: MemoryBank, early: StoryHelper | None) -> None:
        root = str(self.bank_dir)
        listing = list_bank(self.bank_dir, self.rel)
        self.walker = listing.walker
        if not listing.listed:
            bank.unreadable = listing.walker.refused
            return
        project_path = os.path.join(root, "project.yaml")
        problem = self.walker.problem_of(project_path)
        # Missing, or refused already by the listing of the bank folder (a FIFO, a link leading outside).
        if problem is None or not (problem.kind == ProblemKind.missing or self.walker.refused_as(project_path)):
            doc = self._read_yaml(project_path) if problem is None else Document(rel=self.rel(project_path),
                                                                                 problem=problem)
            bank.project_doc = doc
            if doc.meta is not None:
                bank.project, bank.project_problems = validate_front_matter(Project, doc.meta)
        layout, bolts, jobs = listing.intents, listing.bolts, listing.stories
        # A helper (where it pays) reads stories from the first while this process reads the rest.
        helper = early if early and early.serves(listing) else StoryHelper.start(listing)
        try:
            for entry, units in layout:
                bank.intents.append(self._intent(entry, units))
            for entry in bolts:
                bank.bolts.append(self._bolt(entry))
            for entry in self.walker.files(os.path.join(root, "operations", "runbooks"), ".md"):
                doc = self.read(entry.path)
                lines = list(markdown.prose_lines(doc.body, doc.body_start))
                bank.runbooks.append(Runbook(doc=doc, headings=markdown.heading_titles(lines)))
            bank.standards = [self.rel(e.path) for e in self.walker.files(os.path.join(root, "standards"), ".md")]
            reads = helper.read_all() if helper else [read_story(path, rel) for path, rel in jobs]
        finally:
            if helper:
                helper.stop()
        self.files_read += len(jobs)
        self._add_stories(reads)
        bank.files_read = self.files_read
        bank.unreadable = [doc for doc in self._all_docs(bank) if doc.problem is not None] + self.walker.refused

    def _read_yaml(self, path: str) -> Document:
        self.files_read += 1
        return frontmatter.read_yaml(Path(path), self.rel(path))

    def _intent(self, entry: Entry, units: list[tuple[Entry, list[Entry]]]) -> Intent:
        intent = Intent(id=entry.name, rel=self.rel(entry.path))
        intent.files = self.walker.names(entry.path)
        if "requirements.md" in intent.files:
            doc = self.read(os.path.join(entry.path, "requirements.md"))
            intent.requirements_doc = doc
            if doc.meta is not None:
                intent.requirements_meta, intent.problems = validate_front_matter(Requirements, doc.meta)
            lines = list(markdown.prose_lines(doc.body, doc.body_start))
            intent.requirements = [Requirement(intent, b) for b in markdown.requirement_blocks(lines)]
        for unit_entry, story_files in units:
            intent.units.append(self._unit(unit_entry, intent, story_files))
        return intent

    def _unit(self, entry: Entry, intent: Intent, story_files: list[Entry]) -> Unit:
        brief = os.path.join(entry.path, "unit-brief.md")
        problem = self.walker.problem_of(brief)
        if problem is None:
            doc = self.read(brief)
        else:
            if problem.kind == ProblemKind.missing:
                problem = ReadProblem(ProblemKind.missing, None, "unit-brief.md is missing")
            doc = Document(rel=self.rel(brief), problem=problem)
        unit = Unit(doc=doc, id=entry.name, intent=intent, folder=self.rel(entry.path))
        if doc.meta is not None:
            unit.meta, unit.problems = validate_front_matter(UnitBrief, doc.meta)
        self._stories += [(unit, e.path, e.name[:-3]) for e in story_files]
        return unit

    def _add_stories(self, reads: list[StoryRead]) -> None:
        """An item per story read (in listing order) in its unit, its front matter validated."""
        items: list[StoryItem] = []
        for (unit, _path, stem), (doc, parts) in zip(self._stories, reads, strict=True):
            story = StoryItem(doc=doc, stem=stem, unit=unit)
            story.criteria_line, story.criteria = parts.criteria_line, parts.criteria
            story.related_line, story.related = parts.related_line, parts.related
            story.opinion_hint = parts.opinion_hint
            unit.stories.append(story)
            items.append(story)
        readable = [story for story in items if story.doc.meta is not None]
        for story, (meta, problems) in zip(readable, validate_many(Story, [s.doc.meta for s in readable]), strict=True):
            story.meta, story.problems = meta, problems

    def _bolt(self, entry: Entry) -> BoltItem:
        files = self.walker.names(entry.path)
        path = os.path.join(entry.path, "bolt.md")
        if "bolt.md" in files:
            doc = self.read(path)
            if doc.problem is None and doc.meta is None:
                doc.problem = ReadProblem(
                    ProblemKind.not_mapping, 1, "bolt.md needs YAML front matter between '---' lines"
                )
        else:
            doc = Document(rel=self.rel(path), problem=ReadProblem(ProblemKind.missing, None, "bolt.md is missing"))
        bolt = BoltItem(doc=doc, folder=entry.name, files=files)
        if doc.meta is not None:
            bolt.meta, bolt.problems = validate_front_matter(Bolt, doc.meta)
        return bolt

    @staticmethod
    def _all_docs(bank: MemoryBank) -> list[Document]:
        docs: list[Document] = [bank.project_doc] if bank.project_doc else []
        for intent in bank.intents:
            if intent.requirements_doc:
                docs.append(intent.requirements_doc)
            for unit in intent.units:
                docs.append(unit.doc)
                docs.extend(story.doc for story in unit.stories)
        docs.extend(bolt.doc for bolt in bank.bolts)
        docs.extend(runbook.doc for runbook in bank.runbooks)
        return docs
