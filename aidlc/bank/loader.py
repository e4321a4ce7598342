"""Reading a whole memory bank from disk into items. Never writes, never raises for content."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

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
    read_status,
    resolve_aliases,
    strip_number,
    validate_front_matter,
    validate_many,
)
from aidlc.bank.walk import BankOutside, Entry, Walker, find_bank, list_bank, relative_to, shown
from aidlc.model.artifacts import Bolt, Project, Requirements, Story, UnitBrief
from aidlc.model.config import Config
from aidlc.names import hides
from aidlc.perf import gc_paused

_UNIT_CELL = re.compile(r"[`*]|\[|\]\(.*?\)|\]")  # a unit named as `code`, **bold** or a [link](path)


def load_bank(repo_root: Path, config: Config, report_outside: bool = False) -> MemoryBank:
    """The bank under `repo_root`. A bank leading outside the repository is refused (BankOutside),
    or with `report_outside` read as empty, with that one problem for the file rules to report."""
    try:
        repo_root, bank_dir = find_bank(repo_root.resolve(), config.memory_bank)
    except BankOutside as exc:
        if not report_outside:
            raise
        bank = MemoryBank(repo_root=str(repo_root.resolve()), rel_root=config.memory_bank, config=config)
        bank.unreadable = [Document(rel=shown(config.memory_bank), problem=ReadProblem(
            ProblemKind.outside, None, exc.message))]
        return bank
    loader = _Loader(repo_root, bank_dir)
    bank = MemoryBank(repo_root=str(repo_root), rel_root=loader.rel(bank_dir), config=config)
    if not bank_dir.is_dir():
        bank.exists = False
        return bank
    with gc_paused():
        loader.load_into(bank)
    return bank


class _Loader:
    def __init__(self, repo_root: Path, bank_dir: Path) -> None:
        self.repo_root = repo_root
        self.bank_dir = bank_dir
        self.files_read = 0
        self.rel = relative_to(repo_root)
        self.walker = Walker(self.rel)
        self._stories: list[StoryItem] = []  # in listing order
        self._bolt_metas: list[tuple[BoltItem, dict[Any, Any]]] = []  # front matter to validate, in one batch

    def read(self, path: str) -> Document:
        self.files_read += 1
        return frontmatter.read(path, self.rel(path))

    def load_into(self, bank: MemoryBank) -> None:
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
        for entry, units in listing.intents:
            bank.intents.append(self._intent(entry, units))
        for entry in listing.bolts:
            bank.bolts.append(self._bolt(entry))
        for entry in self.walker.files(os.path.join(root, "operations", "runbooks"), ".md"):
            doc = self.read(entry.path)
            lines = list(markdown.prose_lines(doc.body, doc.body_start))
            bank.runbooks.append(Runbook(doc=doc, headings=markdown.heading_titles(lines)))
        bank.standards = [self.rel(e.path) for e in self.walker.files(os.path.join(root, "standards"), ".md")]
        self._validate_stories()
        self._validate_bolts()
        bank.root_files = _root_files(self.repo_root)
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
        if "units.md" in intent.files and intent.units:
            # Read for its map only (no rule checks the file itself): not counted among the files checked.
            path = os.path.join(entry.path, "units.md")
            self._map_units(frontmatter.read(path, self.rel(path)), intent.units)
        return intent

    @staticmethod
    def _map_units(doc: Document, units: list[Unit]) -> None:
        """Requirements mapped to units by the rows of units.md's tables: a row naming a unit (by
        folder name, with or without its number) maps the requirement ids it holds to that unit."""
        if "|" not in doc.body:
            return
        names = {name: unit for unit in units for name in (unit.id, strip_number(unit.id))}
        for _line, cells in markdown.table_rows(list(markdown.prose_lines(doc.body, doc.body_start))):
            ids = markdown.REQUIREMENT_ID.findall(" ".join(cells))
            for cell in cells:
                unit = names.get(_UNIT_CELL.sub("", cell).strip())
                if unit is not None and ids:
                    unit.mapped_requirements.update(ids)
                    break

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
            meta, unit.aliases = resolve_aliases(UnitBrief, doc.meta)
            unit.meta, unit.problems = validate_front_matter(UnitBrief, meta)
        if "|" in doc.body:  # a brief's own requirement table maps them to this unit
            rows = markdown.table_rows(list(markdown.prose_lines(doc.body, doc.body_start)))
            unit.mapped_requirements.update(found for _line, cells in rows
                                            for found in markdown.REQUIREMENT_ID.findall(" ".join(cells)))
        unit.stories = [self._story(entry, unit) for entry in story_files]
        self._stories += unit.stories
        return unit

    def _story(self, entry: Entry, unit: Unit) -> StoryItem:
        """A story's document (its body dropped once read) and the parts of its body the rules need."""
        doc = self.read(entry.path)
        if doc.problem is None and doc.meta is None:
            doc.problem = ReadProblem(ProblemKind.not_mapping, 1, "a story needs YAML front matter between '---' lines")
        parts = markdown.story_parts(doc.body, doc.body_start, batch_hint=True)  # settled in _validate_stories
        body_unit = markdown.unit_line(doc.body, doc.body_start) if doc.meta and "unit" not in doc.meta else None
        if not hides(doc.body):  # kept, rarely, for the rule that names the character hiding text (AIDLC-ID-004)
            doc.body = ""  # 10,000 story bodies would be most of the memory
        return StoryItem(doc=doc, stem=entry.name[:-3], unit=unit, parts=parts, body_unit=body_unit)

    def _validate_stories(self) -> None:
        """Every story's front matter, in one batch (cheaper than one by one), and their opinion hints in another."""
        markdown.settle_opinion_hints([story.parts for story in self._stories])
        readable = [story for story in self._stories if story.doc.meta is not None]
        metas = []
        for story in readable:
            meta, story.aliases = resolve_aliases(Story, story.doc.meta)  # type: ignore[arg-type]  # readable stories have front matter
            meta, story.status_written = read_status(Story, _placed(story, meta))
            metas.append(meta)
        for story, (model, problems) in zip(readable, validate_many(Story, metas), strict=True):
            story.meta, story.problems = model, problems

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
            meta, bolt.aliases = resolve_aliases(Bolt, doc.meta)
            meta, bolt.status_written = read_status(Bolt, meta)
            self._bolt_metas.append((bolt, meta))
        return bolt

    def _validate_bolts(self) -> None:
        """Every bolt's front matter, in one batch as the stories'."""
        validated = validate_many(Bolt, [meta for _bolt, meta in self._bolt_metas])
        for (bolt, _meta), (model, problems) in zip(self._bolt_metas, validated, strict=True):
            bolt.meta, bolt.problems = model, problems

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


def _root_files(repo_root: Path) -> set[str]:
    """The names of the regular files at the repository root (a bolt's stage may name one as its artifact);
    links are not followed."""
    try:
        with os.scandir(repo_root) as entries:
            return {entry.name for entry in entries if entry.is_file(follow_symlinks=False)}
    except OSError:
        return set()


def _placed(story: StoryItem, meta: dict[Any, Any]) -> dict[Any, Any]:
    """`meta` with the id, unit and intent the story's place says where its front matter lacks them,
    as specs.md reads a story: its file name, and `intents/<intent>/units/<unit>/stories/` (or a body
    line `**Unit:** 001-core` for the unit). Copied only when a key is added."""
    if ("id" in meta and "unit" in meta and "intent" in meta) or story.unit is None or story.unit.intent is None:
        return meta
    placed = dict(meta)
    placed.setdefault("id", story.stem)
    placed.setdefault("unit", story.body_unit[1] if story.body_unit else story.unit.id)
    placed.setdefault("intent", story.unit.intent.id)
    return placed
