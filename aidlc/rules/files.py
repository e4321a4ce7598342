"""File and schema rules: can each file be read, and does its front matter match its model?"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from functools import cache
from types import UnionType
from typing import Annotated, Any, TypeGuard, Union, get_args, get_origin

from aidlc.bank.frontmatter import ProblemKind
from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, StoryItem, Unit
from aidlc.model.artifacts import FrontMatter
from aidlc.model.types import Severity
from aidlc.rules.catalogue import Hit, rule

E, W, INFO = Severity.error, Severity.warning, Severity.info


def _read_problems(index: BankIndex, *kinds: ProblemKind) -> Iterator[Hit]:
    for doc in index.bank.unreadable:
        assert doc.problem is not None
        if doc.problem.kind in kinds:
            yield Hit(doc.rel, doc.problem.line, doc.problem.message)


@rule("AIDLC-FILE-001", E, "file", "file is not valid UTF-8",
      "re-save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)")
def not_utf8(index: BankIndex) -> Iterator[Hit]:
    yield from _read_problems(index, ProblemKind.not_utf8)


@rule("AIDLC-FILE-002", E, "file", "YAML front matter (or YAML file) does not parse",
      "correct the YAML at the line shown; quote values that contain ': ' or start with a special character")
def bad_yaml(index: BankIndex) -> Iterator[Hit]:
    yield from _read_problems(index, ProblemKind.bad_yaml)


@rule("AIDLC-FILE-003", E, "file", "front matter is missing, unclosed or not a mapping",
      "start the file with '---', one 'key: value' per line, and a closing '---'")
def bad_front_matter(index: BankIndex) -> Iterator[Hit]:
    yield from _read_problems(index, ProblemKind.not_mapping, ProblemKind.unclosed)


@rule("AIDLC-FILE-004", E, "file", "file cannot be read",
      "check the file's permissions and that it is a regular file")
def unreadable(index: BankIndex) -> Iterator[Hit]:
    from aidlc.rules import ledger  # here, not at the top: the file rules stay first in the catalogue

    yield from _read_problems(index, ProblemKind.unreadable)
    yield from ledger.unreadable(index)


@rule("AIDLC-FILE-005", E, "file", "a unit folder has no unit-brief.md or a bolt folder has no bolt.md",
      "create the file (`aidlc new unit` / `aidlc new bolt` write it) or remove the empty folder")
def required_file_missing(index: BankIndex) -> Iterator[Hit]:
    yield from _read_problems(index, ProblemKind.missing)


@rule("AIDLC-FILE-006", W, "file", "an intent folder has no requirements.md",
      "write the intent's requirements (`aidlc new requirement --intent ID`)")
def intent_without_requirements(index: BankIndex) -> Iterator[Hit]:
    for intent in index.bank.intents:
        if "requirements.md" not in intent.files:
            yield Hit(f"{intent.rel}/requirements.md", None, f"intent {intent.id} has no requirements.md")


@rule("AIDLC-FILE-007", E, "file",
      "an entry aidlc will not open: a FIFO, socket or device, or a name that is not UTF-8",
      "replace it with a regular file (or folder) whose name is UTF-8 (e.g. `convmv -f latin1 -t utf-8`), "
      "or remove it")
def not_a_regular_file(index: BankIndex) -> Iterator[Hit]:
    yield from _read_problems(index, ProblemKind.not_regular, ProblemKind.bad_name)


@rule("AIDLC-FILE-008", E, "file", "a symbolic link (or the bank folder) leads outside the repository",
      "replace the link with the file or folder it points to, inside the repository")
def link_outside(index: BankIndex) -> Iterator[Hit]:
    yield from _read_problems(index, ProblemKind.outside)


@rule("AIDLC-FILE-009", E, "file", "a folder of the bank cannot be listed",
      "make the folder readable and searchable for you (`chmod u+rx FOLDER`), then rerun")
def folder_unlisted(index: BankIndex) -> Iterator[Hit]:
    yield from _read_problems(index, ProblemKind.unlisted)


@rule("AIDLC-FILE-010", E, "file", "a memory-bank file is larger than 1 MiB; aidlc does not read it",
      "split it (one story or requirement set per file) or move the bulk (logs, data) out of the memory bank")
def too_large(index: BankIndex) -> Iterator[Hit]:
    yield from _read_problems(index, ProblemKind.too_large)


def _schema(index: BankIndex, *kinds: str) -> Iterator[Hit]:
    for doc, problem in index.schema_problems:
        if problem.kind in kinds:
            yield Hit(doc.rel, doc.line_of(problem.key), problem.message)


@rule("AIDLC-SCHEMA-001", E, "schema", "a required front-matter field is missing",
      "add the field; `aidlc schema export DIR` writes the JSON Schema of every file")
def missing_field(index: BankIndex) -> Iterator[Hit]:
    yield from _schema(index, "missing")


@rule("AIDLC-SCHEMA-002", E, "schema", "a front-matter value is not one of the allowed values",
      "use one of the values the message lists (see `aidlc rules` and the JSON Schemas)")
def bad_enum(index: BankIndex) -> Iterator[Hit]:
    yield from _schema(index, "enum")


@rule("AIDLC-SCHEMA-003", E, "schema", "a front-matter value has the wrong type",
      "write the value as the type the message names (a list is `[a, b]`, a timestamp `2026-11-30T08:00:00Z`)")
def wrong_type(index: BankIndex) -> Iterator[Hit]:
    yield from _schema(index, "type", "timestamp_invalid")


@rule("AIDLC-SCHEMA-004", E, "schema", "a timestamp has no time zone",
      "append the zone, e.g. `2026-11-30T08:00:00Z` or `2026-11-30T09:00:00+01:00`")
def timestamp_without_zone(index: BankIndex) -> Iterator[Hit]:
    yield from _schema(index, "timestamp_no_tz")


@rule("AIDLC-SCHEMA-005", W, "schema", "a timestamp is a bare date, without time and zone",
      "write the time and zone too, e.g. `2026-11-30T08:00:00Z`")
def date_without_time(index: BankIndex) -> Iterator[Hit]:
    for doc, meta, _problems in index.front_matters:
        if meta is None or doc.meta is None:
            continue
        raw = doc.meta
        for name in _timestamp_fields(type(meta)):
            # Only a date or text without a time ('T') can become a bare date: a parsed timestamp (a datetime), text
            # with a 'T' (read as a datetime, or kept as text when the file fails its schema) and null never do.
            written = raw.get(name)
            if (type(written) is str and "T" in written) or written is None or type(written) is datetime:
                continue
            if _bare(value := getattr(meta, name, None)):
                yield Hit(doc.rel, doc.line_of(name), f"'{name}' is the bare date {value.isoformat()}")
    # Stage records carry timestamps too; SCHEMA-004 already looks inside them for missing zones. (A loop of their
    # own, not a test of every file's model: a bolt's hits keep their order, and the findings are sorted by place.)
    for bolt in index.bank.bolts:
        doc = bolt.doc
        stages = bolt.meta.stages_completed if bolt.meta is not None and doc.meta is not None else None
        for number, stage in enumerate(stages if isinstance(stages, list) else []):
            completed = getattr(stage, "completed", None)
            if _bare(completed):
                yield Hit(doc.rel, doc.line_of_item("stages_completed", completed.isoformat()),
                          f"'stages_completed.{number}.completed' is the bare date {completed.isoformat()}")


@rule("AIDLC-SCHEMA-006", INFO, "schema", "a front-matter key or status word is a variant aidlc reads as the "
      "canonical one (a story's `story:` as `id:`, a unit brief's `id:` as `unit:`, a bolt's `bolt-id:` as `id:`; "
      "`status: completed` or `done` as `complete`, `planned` as a story's `draft`)",
      "write the canonical key or status the message names; nothing else changes")
def key_alias(index: BankIndex) -> Iterator[Hit]:
    for item in _variant_holders(index):
        for alias, canonical in item.aliases:
            yield Hit(item.rel, item.doc.line_of(alias),
                      f"`{alias}:` is read as `{canonical}:`, the canonical key",
                      f"rename `{alias}:` to `{canonical}:` in {item.rel}")
        if item.status_written is not None and item.meta is not None:
            status = item.meta.status
            yield Hit(item.rel, item.doc.line_of("status"),
                      f"`status: {item.status_written.strip()}` is read as `status: {status}`",
                      f"write `status: {status}` in {item.rel}")


def _variant_holders(index: BankIndex) -> Iterator[Unit | StoryItem | BoltItem]:
    for unit in index.bank.units:
        yield unit
        yield from unit.stories
    yield from index.bank.bolts


@cache
def _timestamp_fields(model: type[FrontMatter]) -> tuple[str, ...]:
    """The fields that can hold a date (the Timestamp ones): the only places a bare date can be."""
    return tuple(name for name, info in model.model_fields.items() if _mentions_date(info.annotation))


def _mentions_date(annotation: object) -> bool:
    if annotation is date or annotation is Any:
        return True
    # Through Optional, unions and Annotated only: a date inside a list or dict is never a field's own value.
    return get_origin(annotation) in (Union, UnionType, Annotated) and any(map(_mentions_date, get_args(annotation)))


def _bare(value: object) -> TypeGuard[date]:
    return isinstance(value, date) and not isinstance(value, datetime)
