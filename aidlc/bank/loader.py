"""Reading a whole memory bank from disk into items. Never writes, never raises for content."""

from __future__ import annotations

import os
from pathlib import Path

from aidlc.bank import frontmatter, markdown
from aidlc.bank.bodies import BodyHelper, Facts, parts_of
from aidlc.bank.bodies import facts as body_facts
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
)
from aidlc.model.artifacts import Bolt, Project, Requirements, Story, UnitBrief
from aidlc.model.config import Config
from aidlc.perf import gc_paused


def find_bank(repo_root: Path, config: Config) -> tuple[Path, Path]:
    """(repo root, memory bank folder). A path that is itself a memory bank is accepted too."""
    bank = repo_root / config.memory_bank
    if not bank.is_dir() and (repo_root / "intents").is_dir() and not (repo_root / ".git").exists():
        return repo_root.parent, repo_root
    return repo_root, bank


def load_bank(repo_root: Path, config: Config) -> MemoryBank:
    repo_root, bank_dir = find_bank(repo_root.resolve(), config)
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
        self._prefix = str(repo_root).rstrip(os.sep) + os.sep
        self._stories: list[tuple[Unit, str, str]] = []  # (unit, path, stem), read in one batch

    def rel(self, path: Path | str) -> str:
        text = str(path)
        if text.startswith(self._prefix):  # the common case, without relpath's cost on 10,000s of files
            return text[len(self._prefix):].replace(os.sep, "/")
        return Path(os.path.relpath(text, self.repo_root)).as_posix()

    def read(self, path: str) -> Document:
        self.files_read += 1
        return frontmatter.read(path, self.rel(path))

    def load_into(self, bank: MemoryBank) -> None:
        root = str(self.bank_dir)
        project_path = os.path.join(root, "project.yaml")
        if os.path.exists(project_path):
            doc = self._read_yaml(project_path)
            bank.project_doc = doc
            if doc.meta is not None:
                bank.project, bank.project_problems = validate_front_matter(Project, doc.meta)
        # List every story first: the helper (if any) starts on their bodies before anything is read.
        layout = [(entry, [(unit, _files(os.path.join(unit.path, "stories"), ".md"))
                           for unit in _dirs(os.path.join(entry.path, "units"))])
                  for entry in _dirs(os.path.join(root, "intents"))]
        helper = BodyHelper.start([story.path for _intent, units in layout for _unit, files in units
                                   for story in files])
        try:
            for entry, units in layout:
                bank.intents.append(self._intent(entry, units))
            stories, shapes = self._read_stories(parse_bodies=helper is None)
            # Bolts and runbooks are read while the helper (if any) still parses story bodies.
            for entry in _dirs(os.path.join(root, "bolts")):
                bank.bolts.append(self._bolt(entry))
            for entry in _files(os.path.join(root, "operations", "runbooks"), ".md"):
                doc = self.read(entry.path)
                lines = list(markdown.prose_lines(doc.body, doc.body_start))
                bank.runbooks.append(Runbook(doc=doc, headings=markdown.heading_titles(lines)))
            bank.standards = [self.rel(e.path) for e in _files(os.path.join(root, "standards"), ".md")]
            if helper:
                _add_bodies(stories, shapes, [path for _unit, path, _stem in self._stories], helper.results())
        finally:
            if helper:
                helper.stop()
        bank.files_read = self.files_read
        bank.unreadable = [doc for doc in self._all_docs(bank) if doc.problem is not None]

    def _read_yaml(self, path: str) -> Document:
        self.files_read += 1
        return frontmatter.read_yaml(Path(path), self.rel(path))

    def _intent(self, entry: os.DirEntry[str], units: list[tuple[os.DirEntry[str], list[os.DirEntry[str]]]]) -> Intent:
        intent = Intent(id=entry.name, rel=self.rel(entry.path))
        intent.files = {e.name for e in os.scandir(entry.path) if e.is_file()}
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

    def _unit(self, entry: os.DirEntry[str], intent: Intent, story_files: list[os.DirEntry[str]]) -> Unit:
        brief = os.path.join(entry.path, "unit-brief.md")
        if os.path.exists(brief):
            doc = self.read(brief)
        else:
            doc = Document(
                rel=self.rel(brief), problem=ReadProblem(ProblemKind.missing, None, "unit-brief.md is missing")
            )
        unit = Unit(doc=doc, id=entry.name, intent=intent, folder=self.rel(entry.path))
        if doc.meta is not None:
            unit.meta, unit.problems = validate_front_matter(UnitBrief, doc.meta)
        self._stories += [(unit, e.path, e.name[:-3]) for e in story_files]
        return unit

    def _read_stories(self, parse_bodies: bool) -> tuple[list[StoryItem], list[tuple[int, int]]]:
        """Stories are most of a bank's files: read them in one batch. Without `parse_bodies` (a
        helper parses them) keep each body's (length, first line) to check the helper's facts by."""
        stories: list[StoryItem] = []
        shapes: list[tuple[int, int]] = []
        self.files_read += len(self._stories)
        for unit, path, stem in self._stories:
            doc = frontmatter.read(path, self.rel(path))
            if doc.problem is None and doc.meta is None:
                doc.problem = ReadProblem(
                    ProblemKind.not_mapping, 1, "a story needs YAML front matter between '---' lines"
                )
            story = StoryItem(doc=doc, stem=stem, unit=unit)
            if doc.meta is not None:
                story.meta, story.problems = validate_front_matter(Story, doc.meta)
            if parse_bodies:
                _set_parts(story, markdown.story_parts(doc.body, doc.body_start))
            else:
                shapes.append((len(doc.body), doc.body_start))
            doc.body = ""  # not needed again (10,000 story bodies are most of the memory)
            unit.stories.append(story)
            stories.append(story)
        return stories, shapes

    def _bolt(self, entry: os.DirEntry[str]) -> BoltItem:
        files = {e.name for e in os.scandir(entry.path) if e.is_file()}
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


def _add_bodies(
    stories: list[StoryItem], shapes: list[tuple[int, int]], paths: list[str], found: list[Facts | None] | None
) -> None:
    """Each story's body parts from the helper's facts, when they are for the body this process read."""
    if found is None or len(found) != len(stories):  # the helper failed: read every body here
        found = [None] * len(stories)
    for story, shape, path, facts in zip(stories, shapes, paths, found, strict=True):
        if facts is None or facts[:2] != shape:
            facts = body_facts(path)  # changed since this process read it, or the helper failed
        _set_parts(story, parts_of(facts))


def _set_parts(story: StoryItem, parts: markdown.StoryParts) -> None:
    story.criteria_line, story.criteria = parts.criteria_line, parts.criteria
    story.related_line, story.related = parts.related_line, parts.related
    story.opinion_hint = parts.opinion_hint


def _dirs(path: str) -> list[os.DirEntry[str]]:
    return sorted((e for e in _scan(path) if e.is_dir() and not e.name.startswith(".")), key=lambda e: e.name)


def _files(path: str, suffix: str) -> list[os.DirEntry[str]]:
    return sorted(
        (e for e in _scan(path) if e.is_file() and e.name.endswith(suffix) and not e.name.startswith(".")),
        key=lambda e: e.name,
    )


def _scan(path: str) -> list[os.DirEntry[str]]:
    try:
        return list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []
