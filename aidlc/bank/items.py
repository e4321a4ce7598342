"""The parsed memory bank: one object per intent, requirement, unit, story, bolt and runbook.

Each item keeps the document it came from (path, line numbers) and, when its
front matter does not match the model, the problems found; the model instance
is then built leniently so the other rules can still run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from aidlc.bank.criteria import Criterion
from aidlc.bank.frontmatter import Document, ProblemKind
from aidlc.bank.markdown import RequirementBlock, StoryParts, halfwidth
from aidlc.model.artifacts import Bolt, FrontMatter, Project, Requirements, Story, UnitBrief
from aidlc.model.config import Config

M = TypeVar("M", bound=FrontMatter)

_NUMBER_PREFIX = re.compile(r"^\d+[-_]")
# No text at all:
UNREAD = frozenset({ProblemKind.not_utf8, ProblemKind.unreadable, ProblemKind.missing, ProblemKind.too_large})


@lru_cache(maxsize=4096)  # a bank names each unit and intent thousands of times
def strip_number(name: str) -> str:
    """'001-checkout-api' -> 'checkout-api' (names are referenced with or without the prefix)."""
    return _NUMBER_PREFIX.sub("", name, count=1)


@dataclass(frozen=True)
class SchemaProblem:
    key: str | None
    kind: str  # missing | enum | type | timestamp_no_tz | timestamp_invalid
    message: str


_TEXT = frozenset({str})


def validate_many(model: type[M], metas: list[dict[Any, Any]]) -> list[tuple[M, list[SchemaProblem]]]:
    """`validate_front_matter` for many mappings: one pydantic call for all of them (a third
    cheaper than one call each); when some fail, the others in one more call and those one by one."""
    adapter = _list_adapter(model)
    # A key that is not text fails here too (pydantic's invalid_key): no need to look at every key first.
    try:
        return [(valid, []) for valid in adapter.validate_python(metas)]
    except ValidationError as exc:
        failed = {error["loc"][0] for error in exc.errors(include_url=False)
                  if error["loc"] and isinstance(error["loc"][0], int)}  # the index in the list
    try:
        passed = iter(adapter.validate_python([meta for n, meta in enumerate(metas) if n not in failed]))
    except ValidationError:  # not expected (the first call named every failure): every one on its own
        return [validate_front_matter(model, meta) for meta in metas]
    return [validate_front_matter(model, meta) if n in failed else (next(passed), []) for n, meta in enumerate(metas)]


@cache
def _list_adapter(model: type[M]) -> TypeAdapter[list[M]]:
    return TypeAdapter(list[model])  # type: ignore[valid-type]  # a model class passed as a value


def validate_front_matter(model: type[M], meta: dict[Any, Any]) -> tuple[M, list[SchemaProblem]]:
    """Validate strictly; on failure build a lenient instance without the bad keys."""
    # A key that is not text (`1: x`, `null: y`) cannot become an attribute: report it, validate the rest.
    problems: list[SchemaProblem] = []
    if not _TEXT.issuperset(map(type, meta)):  # rare: checked in one pass, copied only when needed
        problems = [SchemaProblem(_key_text(key), "type", f"front-matter key {_show(key)} is not a name; "
                                  "write keys as words (quoted if need be)")
                    for key in meta if not isinstance(key, str)]
        meta = {key: value for key, value in meta.items() if isinstance(key, str)}
    try:
        return model.model_validate(meta), problems
    except ValidationError as exc:
        bad: set[str] = set()
        for error in exc.errors(include_url=False):
            location = error["loc"]
            key = str(location[0]) if location else None
            if key in bad:
                continue  # one problem per field: a union reports every member's failure
            if key is not None:
                bad.add(key)
            problems.append(SchemaProblem(key=key, kind=_kind(error["type"]), message=_describe(error)))
        cleaned = {key: value for key, value in meta.items() if key not in bad}
        for name, info in model.model_fields.items():
            if name not in cleaned and info.is_required():
                cleaned[name] = None
        return model.model_construct(**cleaned), problems


def _kind(error_type: str) -> str:
    if error_type == "missing":
        return "missing"
    if error_type in ("enum", "literal_error"):
        return "enum"
    if error_type.startswith("timestamp_"):
        return error_type
    return "type"


def _describe(error: Any) -> str:
    # Union members appear in the location by type name ("StageRecord", "str"); they say nothing to a person.
    field_name = ".".join(
        str(part) for part in error["loc"]
        if isinstance(part, int) or (not (part[:1].isupper() or part in ("str", "int", "bool", "list", "dict"))
        and not part.startswith("function-"))
    )
    if error["type"] == "missing":
        return f"required field '{field_name}' is missing"
    if error["type"] == "enum":
        expected = error.get("ctx", {}).get("expected", "")
        return f"'{field_name}' is {_show(error['input'])}, expected one of {expected}"
    return f"'{field_name}': {error['msg']}"


def _key_text(key: object) -> str:
    """How a non-text key is most likely written in the file, so its line can be found."""
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    return _show(key)


def _show(value: Any, limit: int = 80) -> str:
    """A value quoted in a message: short, and safe for a 5,000-digit int or a 3,000-deep list."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= limit else f"{text[: limit - 4]}...{text[-1]}"


# Keys real banks write in place of a canonical one, per model: read as the canonical key when that
# one is absent (and reported as a note, AIDLC-SCHEMA-006).
KEY_ALIASES: dict[type[FrontMatter], dict[str, str]] = {
    Story: {"story": "id"}, UnitBrief: {"id": "unit"}, Bolt: {"bolt-id": "id", "bolt_type": "type"}}

# Status words as specs.md reads them (its reader's normalizeStatus: lower-cased, trimmed, synonyms),
# each mapped to the model's own status: read so, with a note (AIDLC-SCHEMA-006). Two choices of
# aidlc's: `ready` stays a story's own status (specs.md shows it as in progress) and a ready bolt has
# not started (planned); the story template's `implemented` and `tested` come before `done`.
_DRAFT = ("draft", "pending", "planned", "todo", "new")
_STARTED = ("in-progress", "in_progress", "inprogress", "in progress", "active", "started", "wip", "working",
            "construction")
_DONE = ("complete", "completed", "done", "finished", "closed", "resolved")
STATUS_WORDS: dict[type[FrontMatter], dict[str, str]] = {
    Story: dict.fromkeys(_DRAFT, "draft") | dict.fromkeys((*_STARTED, "implemented", "tested"), "in-progress")
    | dict.fromkeys(_DONE, "complete") | {"ready": "ready", "blocked": "blocked"},
    Bolt: dict.fromkeys((*_DRAFT, "ready"), "planned") | dict.fromkeys(_STARTED, "in-progress")
    | dict.fromkeys(_DONE, "complete") | {"blocked": "blocked"},
}


def status_word(model: type[FrontMatter], value: object) -> str | None:
    """The model's status a status word stands for (`Completed` -> `complete`), None for a word it
    does not know: what aidlc compares wherever a file's status is read."""
    if not isinstance(value, str):
        return None
    words = STATUS_WORDS[model]
    return words.get(value) or words.get(value.strip().lower())


def read_status(model: type[FrontMatter], meta: dict[Any, Any]) -> tuple[dict[Any, Any], str | None]:
    """`meta` with its status word read as the model's status, and the word as written when it was
    another (None: written as the model's own, or a word aidlc does not know, for the schema rule).
    The mapping is copied only when a word is read."""
    written = meta.get("status")
    status = status_word(model, written)
    if status is None or status == written:
        return meta, None
    return {**meta, "status": status}, written


def resolve_aliases(model: type[FrontMatter], meta: dict[Any, Any]) -> tuple[dict[Any, Any], list[tuple[str, str]]]:
    """`meta` with each alias key's value also under its canonical key, and the (alias, canonical)
    pairs used. The mapping is copied only when an alias is used; the file's own keys stay as written."""
    used = [(alias, canonical) for alias, canonical in KEY_ALIASES.get(model, {}).items()
            if alias in meta and canonical not in meta]
    if not used:
        return meta, used
    resolved = dict(meta)
    for alias, canonical in used:
        resolved[canonical] = meta[alias]
    return resolved, used


@dataclass
class Artifact:
    doc: Document
    problems: list[SchemaProblem] = field(default_factory=list)
    aliases: list[tuple[str, str]] = field(default_factory=list)  # (key as written, canonical key) read as it
    status_written: str | None = None  # the status word as written, when read as another (`completed`)

    @property
    def rel(self) -> str:
        return self.doc.rel

    def bad(self, key: str) -> bool:
        """True when `key` failed its schema: the schema rule reports it, other rules stay silent."""
        return bool(self.problems) and any(problem.key == key for problem in self.problems)


@dataclass
class Requirement:
    intent: Intent
    block: RequirementBlock

    @property
    def id(self) -> str:
        return self.block.id

    @property
    def qualified_id(self) -> str:
        return f"{self.intent.id}/{self.block.id}"

# The intent statement `aidlc new intent` writes when none is given: a requirements gate refuses it.
STATEMENT_PLACEHOLDER = "Why this intent exists, for whom, and what success looks like."


@dataclass
class Intent:
    id: str  # the folder name
    rel: str  # folder, relative to the repo root
    requirements_doc: Document | None = None
    requirements_meta: Requirements | None = None
    problems: list[SchemaProblem] = field(default_factory=list)
    requirements: list[Requirement] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    files: set[str] = field(default_factory=set)

    @property
    def requirements_known(self) -> bool:
        """False when requirements.md is absent or its text could not be read: nothing can be said about links."""
        doc = self.requirements_doc
        return doc is not None and (doc.problem is None or doc.problem.kind not in UNREAD)

    def defines(self, requirement_id: str) -> bool:
        """FR-1.4 is defined by its own bullet or by its parent heading FR-1."""
        known = self.requirement_ids
        if requirement_id in known:
            return True
        parts = requirement_id.split(".")
        return any(".".join(parts[:n]) in known for n in range(len(parts), 0, -1))

    @cached_property
    def requirement_ids(self) -> set[str]:
        ids = set()
        for requirement in self.requirements:
            ids.add(requirement.id)
            ids.update(requirement.block.sub_ids)
        return ids


@dataclass
class Unit(Artifact):
    id: str = ""  # the folder name
    intent: Intent | None = None
    meta: UnitBrief | None = None
    folder: str = ""
    stories: list[StoryItem] = field(default_factory=list)
    # Requirements a table maps to this unit: in its brief (`| FR-1 | ... |`) or in the intent's units.md.
    mapped_requirements: set[str] = field(default_factory=set)


@dataclass
class StoryItem(Artifact):
    stem: str = ""
    unit: Unit | None = None
    meta: Story | None = None
    # Its body's acceptance criteria and related requirements (read by the properties below), and the criteria's
    # counts the rules read first (`parts.count`, `parts.unchecked`, `parts.plain`).
    parts: StoryParts = field(default_factory=lambda: StoryParts.of(None, [], None, [], opinion_hint=True))
    # (line, name) of a body line `**Unit:** 001-core` naming the unit, where the front matter has no `unit:`
    body_unit: tuple[int, str] | None = None

    @property
    def criteria(self) -> list[Criterion]:
        return self.parts.criteria

    @property
    def criteria_line(self) -> int | None:
        return self.parts.criteria_line

    @property
    def related(self) -> list[str]:
        return self.parts.related

    @property
    def related_line(self) -> int | None:
        return self.parts.related_line

    @property
    def opinion_hint(self) -> bool:
        """False: no acceptance criterion can hold an opinion word."""
        return self.parts.opinion_hint

    @property
    def unit_line(self) -> int | None:
        """The line the story names its unit on: its `unit:` key, else its `**Unit:**` line."""
        if self.body_unit is not None and "unit" not in (self.doc.meta or {}):
            return self.body_unit[0]
        return self.doc.line_of("unit")

    @property
    def id(self) -> str:
        return (self.meta.id if self.meta and isinstance(self.meta.id, str) else None) or self.stem

    @property
    def links_known(self) -> bool:
        """False when the front matter could not be read: the story may link anything."""
        return self.meta is not None

    @property
    def requirement_links(self) -> list[str]:
        """Front-matter `requirements:` plus the older body line `**Related Requirements**`."""
        links = [str(x) for x in (self.meta.requirements if self.meta else None) or []]
        if not "".join(links).isascii():  # `[FR-1，FR-2]`: YAML splits at ASCII commas only
            links = [part.strip() for link in links for part in halfwidth(link).split(",") if part.strip()]
        return links + [r for r in self.related if r not in links] if self.related else links


@dataclass
class BoltItem(Artifact):
    folder: str = ""
    meta: Bolt | None = None
    files: set[str] = field(default_factory=set)

    @property
    def id(self) -> str:
        return (self.meta.id if self.meta and isinstance(self.meta.id, str) else None) or self.folder


@dataclass
class Runbook(Artifact):
    headings: list[tuple[int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class PinnedFile:
    """A file the rules read from a source the work tree cannot change (`aidlc ci --base`: the base commit)."""

    rel: str
    data: bytes | None  # None: the source has no such file
    source: str  # for messages, e.g. "at the base 1a2b3c4d5e6f"


@dataclass
class MemoryBank:
    repo_root: str  # absolute path, for messages
    rel_root: str  # the memory bank folder relative to the repo root
    config: Config
    exists: bool = True
    project_doc: Document | None = None
    project: Project | None = None
    project_problems: list[SchemaProblem] = field(default_factory=list)
    intents: list[Intent] = field(default_factory=list)
    bolts: list[BoltItem] = field(default_factory=list)
    runbooks: list[Runbook] = field(default_factory=list)
    standards: list[str] = field(default_factory=list)
    unreadable: list[Document] = field(default_factory=list)  # documents that failed to read
    files_read: int = 0
    root_files: set[str] = field(default_factory=set)  # regular files at the repository root, by name
    pinned_signers: PinnedFile | None = None  # allowed_signers as the rules must read it, when not the work tree's
    # `aidlc ci --base`: the base commit. History a pull request made cannot be adopted history: what the base shows
    # before the ledger can.
    base: str | None = None

    @property
    def units(self) -> list[Unit]:
        return [unit for intent in self.intents for unit in intent.units]

    @property
    def stories(self) -> list[StoryItem]:
        return [story for unit in self.units for story in unit.stories]

    @property
    def requirements(self) -> list[Requirement]:
        return [req for intent in self.intents for req in intent.requirements]

    def front_matters(self) -> Iterator[tuple[Document, FrontMatter | None, list[SchemaProblem]]]:
        """Each file with a front-matter model: its document, its model (None: unreadable) and its problems."""
        if self.project_doc is not None:
            yield self.project_doc, self.project, self.project_problems
        for intent in self.intents:
            if intent.requirements_doc is not None:
                yield intent.requirements_doc, intent.requirements_meta, intent.problems
            for unit in intent.units:
                yield unit.doc, unit.meta, unit.problems
                for story in unit.stories:
                    yield story.doc, story.meta, story.problems
        for bolt in self.bolts:
            yield bolt.doc, bolt.meta, bolt.problems
