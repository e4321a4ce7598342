"""Identity rules: every ID is unique and agrees with the file or folder that holds it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from aidlc.bank.frontmatter import Document
from aidlc.bank.index import BankIndex
from aidlc.bank.items import Artifact, BoltItem, StoryItem, strip_number
from aidlc.model.types import Severity
from aidlc.names import hidden_character, hides, segment_problem, shown
from aidlc.rules.catalogue import Hit, rule

E, W = Severity.error, Severity.warning


def _same_name(value: object, folder: str) -> bool:
    """A front-matter name matches its folder with or without the numeric prefix."""
    return isinstance(value, str) and value.strip() in (folder, strip_number(folder))


@rule("AIDLC-ID-001", E, "identity", "two artifacts of one kind share an ID",
      "give one of them a new number (`aidlc new` picks the next free one) and update links to it")
def duplicate_ids(index: BankIndex) -> Iterator[Hit]:
    bank = index.bank
    for unit in bank.units:
        # Story numbers restart in every unit (specs.md banks), and links to a story resolve
        # within the bolt's unit first: an id need only be unique inside its unit.
        first: dict[str, StoryItem] = {}
        for story in unit.stories:
            story_id = story.id
            if story_id in first:
                yield Hit(story.rel, story.doc.line_of(_key(story, "id")),
                          f"story id '{story_id}' is also used by {first[story_id].rel} in the same unit")
            else:
                first[story_id] = story
    bolts = defaultdict(list)
    for bolt in bank.bolts:
        bolts[bolt.id].append(bolt)
    for bolt_id, same in bolts.items():
        for bolt in same[1:]:
            yield Hit(bolt.rel, bolt.doc.line_of("id"), f"bolt id '{bolt_id}' is also used by {same[0].rel}")
    for intent in bank.intents:
        seen: dict[str, int] = {}
        for requirement in intent.requirements:
            if requirement.id in seen:
                assert intent.requirements_doc is not None
                yield Hit(intent.requirements_doc.rel, requirement.block.line,
                          f"requirement {requirement.id} is defined twice in intent {intent.id} "
                          f"(first at line {seen[requirement.id]})")
            else:
                seen[requirement.id] = requirement.block.line


@rule("AIDLC-ID-002", E, "identity", "an ID does not match the file or folder name that holds it (a story's "
      "id only where it is the file name of another story of its unit)",
      "make the `id` (or `unit`/`intent` name) equal to the file or folder name, or rename the file")
def id_matches_name(index: BankIndex) -> Iterator[Hit]:
    bank = index.bank
    for unit in bank.units:
        # Banks name stories by an id of their own scheme (`vscode-extension-story-ap-001` in
        # 001-memory-bank-schema.md); links resolve by either name. Only an id that is another story's
        # name in the unit breaks a link: that name would then mean two stories.
        stems = {story.stem: story for story in unit.stories}
        for story in unit.stories:
            value = story.meta.id if story.meta else None
            other = stems.get(value.strip()) if isinstance(value, str) and value != story.stem else None
            if other is not None:
                yield Hit(story.rel, story.doc.line_of(_key(story, "id")),
                          f"story id '{value}' is the file name of another story of the unit, {other.rel}: "
                          "a link by that name could mean either",
                          f"set `id: {story.stem}` (or another id no story of the unit is named by)")
    for bolt in bank.bolts:
        value = bolt.meta.id if bolt.meta else None
        if isinstance(value, str) and value != bolt.folder:
            yield Hit(bolt.rel, bolt.doc.line_of(_key(bolt, "id")),
                      f"bolt id '{value}' does not match its folder name '{bolt.folder}'",
                      f"set `id: {bolt.folder}` or rename the folder to {value}")
    for unit in bank.units:
        value = unit.meta.unit if unit.meta else None
        if isinstance(value, str) and not _same_name(value, unit.id):
            yield Hit(unit.rel, unit.doc.line_of(_key(unit, "unit")),
                      f"unit brief names unit '{value}' but lives in folder '{unit.id}'",
                      f"set `unit: {unit.id}`")
    for intent in bank.intents:
        meta, doc = intent.requirements_meta, intent.requirements_doc
        value = meta.intent if meta else None
        if doc is not None and isinstance(value, str) and not _same_name(value, intent.id):
            yield Hit(doc.rel, doc.line_of("intent"),
                      f"requirements.md names intent '{value}' but lives in folder '{intent.id}'",
                      f"set `intent: {intent.id}`")


def _key(item: Artifact, canonical: str) -> str:
    """The key `canonical` is written under in the item's file (an alias such as `story:` for `id:`)."""
    return next((alias for alias, key in item.aliases if key == canonical), canonical)


@rule("AIDLC-ID-003", W, "identity", "two intents, units or bolts carry the same number",
      "renumber one of them so numbers stay unique within their folder")
def duplicate_numbers(index: BankIndex) -> Iterator[Hit]:
    bank = index.bank
    groups: list[tuple[str, list[tuple[str, str]]]] = [
        ("intent", [(i.id, i.rel) for i in bank.intents]),
        ("bolt", [(b.folder, b.rel) for b in bank.bolts]),
    ]
    groups += [("unit", [(u.id, u.folder) for u in intent.units]) for intent in bank.intents]
    for kind, names in groups:
        seen: dict[str, str] = {}
        for name, rel in names:
            number = name.split("-", 1)[0]
            if not number.isdigit() or name == number:
                continue
            if number in seen:
                yield Hit(rel, None, f"{kind} {name} has the number {number}, as {seen[number]} does")
            else:
                seen[number] = name


# The lines that name things: a front-matter key that is an id, a title or a link, and a heading.
_NAMING_KEYS = ("id", "story", "unit", "intent", "title", "name")


@rule("AIDLC-ID-004", E, "identity", "an ID, a name or a title (a heading) holds a control, bidirectional or "
      "zero-width character, which hides or disguises text (`file.txt` shown as `txt.exe`)",
      "delete the character (the message names it; `grep -nP '[\\x{202a}-\\x{202e}\\x{2066}-\\x{2069}"
      "\\x{200b}-\\x{200f}]' FILE` finds it)")
def hidden_characters(index: BankIndex) -> Iterator[Hit]:
    bank = index.bank
    docs = [doc for doc, _meta, _problems in index.front_matters]
    # One scan of all the text first, as most banks hide nothing: `hides` passes line ends, so the text joined by
    # them hides a character exactly where one of its parts does. A value's characters are in its front matter's
    # text, but for an escape in double quotes (`"\u202e"`, after a backslash): the values are scanned too only when
    # some front matter holds a backslash. (A character found elsewhere in a front matter sends _hidden_in_files
    # looking, to find nothing: it reports only values and headings.)
    fronts = "\n".join([doc.front_matter_text for doc in docs])
    values = [] if "\\" not in fronts else \
        [value for doc in docs if doc.meta for key in _NAMING_KEYS if isinstance(value := doc.meta.get(key), str)]
    if hides("\n".join([doc.body for doc in docs] + [fronts] + values)):
        yield from _hidden_in_files(docs)
    # Likewise the names: no character `hidden_character` names is '/', and a story's path holds its name.
    others = [(i.rel, i.id) for i in bank.intents] + [(u.rel, u.folder) for u in bank.units] + \
        [(b.rel, b.folder) for b in bank.bolts]
    stories = [s for u in bank.units for s in u.stories]
    if hidden_character("/".join([name for _rel, name in others] + [s.rel for s in stories])) is None:
        return
    for rel, name in others + [(s.rel, Path(s.rel).name) for s in stories]:
        if (hidden := hidden_character(name)) is not None:
            yield Hit(rel, None, f"the name '{shown(name)}' holds {hidden}")


def _hidden_in_files(docs: list[Document]) -> Iterator[Hit]:
    for doc in docs:
        raw = doc.meta or {}
        values = [(key, raw[key]) for key in _NAMING_KEYS if isinstance(raw.get(key), str)]  # YAML escapes read
        if not (hides(doc.body) or any(hides(value) for _key, value in values)):
            continue
        found = [(doc.line_of(key), value) for key, value in values]
        found += [(doc.body_start + n, line) for n, line in enumerate(doc.body.splitlines()) if line.startswith("#")]
        for number, text in found:
            if (hidden := hidden_character(text, allowed="\t")) is not None:
                yield Hit(doc.rel, number, f"{shown(text.strip(), keep=chr(9))[:200]} holds {hidden}")


@rule("AIDLC-ID-005", E, "identity", "a story or bolt id, or an intent's or unit's folder, is not one plain name: "
      "it holds a path separator or '..', or starts with '.' or '-' (aidlc would make a path or an option of it)",
      "set the id to the file's or folder's name, or rename a folder that starts with '-'")
def path_like_ids(index: BankIndex) -> Iterator[Hit]:
    bank = index.bank
    items: list[BoltItem | StoryItem] = [*bank.bolts, *(s for u in bank.units for s in u.stories)]
    for item in items:
        value = item.meta.id if item.meta else None
        name = item.stem if isinstance(item, StoryItem) else item.folder
        # The rare problem first: a value hiding a character is AIDLC-ID-004's, not this rule's.
        if isinstance(value, str) and (problem := segment_problem(value)) is not None and not hides(value):
            fix = f"rename {item.rel}: its name {problem}" if segment_problem(name) else f"set `id: {name}`"
            yield Hit(item.rel, item.doc.line_of(_key(item, "id")), f"the id {value!r} {problem}", fix)
    # A folder is its intent's or unit's id: one that starts with '-' is an option in every command naming it.
    for rel, folder in [(i.rel, i.id) for i in bank.intents] + [(u.folder, u.id) for u in bank.units]:
        if folder.startswith("-"):
            yield Hit(rel, None, f"the folder name {folder!r} starts with '-' (a command would read it as an option)",
                      "rename the folder, and the ids that name it")
