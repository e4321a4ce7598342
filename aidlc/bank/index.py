"""Resolving the names artifacts use to point at each other.

Real banks refer to an intent or unit by folder name with or without its
numeric prefix, and to a story by its `id` or by its file name; a bolt by its
`id` or its folder. The index answers all of these in O(1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import cached_property
from typing import NamedTuple

from aidlc.bank.frontmatter import Document
from aidlc.bank.items import BoltItem, Intent, MemoryBank, SchemaProblem, StoryItem, Unit, strip_number
from aidlc.errors import UsageError
from aidlc.model.artifacts import FrontMatter
from aidlc.names import id_number

RequirementLink = tuple[str, Intent | None, str]  # the link as written, the intent it names, the requirement id


class _RequirementLinks(NamedTuple):
    by_story: dict[int, list[RequirementLink]]  # by id(story)
    distinct: list[RequirementLink]  # each link of an intent's stories once


class BankIndex:
    def __init__(self, bank: MemoryBank) -> None:
        self.bank = bank
        self._intents: dict[str, list[Intent]] = defaultdict(list)
        self._units: dict[str, list[Unit]] = defaultdict(list)
        self._stories: dict[str, list[StoryItem]] = defaultdict(list)
        self._bolts: dict[str, list[BoltItem]] = defaultdict(list)
        for intent in bank.intents:
            _add(self._intents, intent, intent.id, strip_number(intent.id))
            for unit in intent.units:
                _add(self._units, unit, unit.id, strip_number(unit.id))
                for story in unit.stories:
                    _add(self._stories, story, story.id, story.stem)
        for bolt in bank.bolts:
            _add(self._bolts, bolt, bolt.id, bolt.folder)

    def intent(self, ref: object) -> Intent | None:
        return _only(self._intents.get(str(ref).strip())) if ref else None

    def unit(self, ref: object, intent: Intent | None = None) -> Unit | None:
        """A unit by name; within `intent` first, then anywhere if the name is unique."""
        if not ref:
            return None
        found = self._units.get(str(ref).strip(), [])
        if intent is not None:
            for unit in found:  # a loop, not a list: asked for every bolt's and story's unit
                if unit.intent is intent:
                    return unit
        return _only(found)

    def story(self, ref: object, unit: Unit | None = None) -> StoryItem | None:
        if not ref:
            return None
        found = self._stories.get(str(ref).strip(), [])
        if unit is not None:
            for story in found:  # as in unit()
                if story.unit is unit:
                    return story
        return _only(found)

    def bolt(self, ref: object) -> BoltItem | None:
        found = self._bolts.get(str(ref).strip()) if ref else None  # as _only, inline: asked for every story
        return found[0] if found else None

    def intent_named(self, ref: str) -> Intent | None:
        """An intent as a person names it on the command line: `001` (or `1`), `checkout`, `001-checkout`."""
        return self.intent(_by_number(ref, [intent.id for intent in self.bank.intents]))

    def unit_named(self, ref: str, intent: Intent | None) -> Unit | None:
        """A unit as a person names it: its name, or within `intent` its number (`001` or `1`)."""
        found = self.unit(ref, intent)
        if found is None and intent is not None:
            found = self.unit(_by_number(ref, [unit.id for unit in intent.units]), intent)
        return found

    def bolt_named(self, ref: str) -> BoltItem | None:
        """A bolt as a person names it: `001` (or `1`), its id, its folder (with or without its number)."""
        found = self.bolt(_by_number(ref, [bolt.folder for bolt in self.bank.bolts]))
        if found is None and ref:
            found = _only([bolt for bolt in self.bank.bolts if strip_number(bolt.folder) == ref.strip()])
        return found

    def requirement(self, link: str, intent: Intent | None) -> tuple[Intent | None, str]:
        """(intent, requirement id) a link names: `FR-1` is in `intent`, `001-checkout/FR-1` in that intent."""
        name, slash, requirement = link.strip().rpartition("/")
        return (self.intent(name), requirement) if slash else (intent, link.strip())

    def stories_of(self, bolt: BoltItem) -> list[StoryItem]:
        """The existing stories a bolt lists (names resolved within its unit first)."""
        return self._bolt_stories[id(bolt)]

    def story_of(self, bolt: BoltItem, ref: str) -> StoryItem | None:
        """The story of the bolt's that `ref` names (its id or file name, resolved as the bolt's `stories:` are);
        None when it names none of them."""
        found = self.story(ref, self.unit(bolt.meta.unit) if bolt.meta else None)
        return found if any(found is story for story in self.stories_of(bolt)) else None

    def listed(self, bolt: BoltItem) -> list[tuple[str, StoryItem | None]]:
        """Each name in a bolt's `stories:` with the story it resolves to (None: no such story)."""
        return self._listed[id(bolt)]

    def requirement_links(self, story: StoryItem) -> list[RequirementLink]:
        """Each requirement link of a story with the intent and the requirement id it names."""
        return self._requirement_links.by_story[id(story)]

    @property
    def linked_requirements(self) -> list[RequirementLink]:
        """Every story's requirement links as `requirement_links` gives them, each link of an intent's stories once."""
        return self._requirement_links.distinct

    def bolts_of(self, story: StoryItem) -> Sequence[BoltItem]:
        """The bolts whose `stories:` list this story, in bank order."""
        return self._story_bolts.get(id(story), ())

    @cached_property
    def front_matters(self) -> list[tuple[Document, FrontMatter | None, list[SchemaProblem]]]:
        """The bank's `front_matters()`, walked once for the several rules that read every file's."""
        return list(self.bank.front_matters())

    @cached_property
    def schema_problems(self) -> list[tuple[Document, SchemaProblem]]:
        """Every front-matter problem with its document (one walk for the rules that report them)."""
        return [(doc, problem) for doc, _model, problems in self.front_matters for problem in problems]

    @cached_property
    def _listed(self) -> dict[int, list[tuple[str, StoryItem | None]]]:
        table: dict[int, list[tuple[str, StoryItem | None]]] = {}
        for bolt in self.bank.bolts:
            unit = self.unit(bolt.meta.unit) if bolt.meta else None
            listed = names(bolt.meta.stories if bolt.meta else None)
            table[id(bolt)] = [(name, self.story(name, unit)) for name in listed]
        return table

    @cached_property
    def _bolt_stories(self) -> dict[int, list[StoryItem]]:
        return {key: [story for _name, story in pairs if story is not None] for key, pairs in self._listed.items()}

    @cached_property
    def _requirement_links(self) -> _RequirementLinks:
        table: dict[int, list[RequirementLink]] = {}
        # A unit's stories link the same few requirements: each link resolved once per intent.
        resolved: dict[tuple[int, str], RequirementLink] = {}
        for story in self.bank.stories:
            own = story.unit.intent if story.unit else None
            links = table[id(story)] = []
            for link in story.requirement_links:
                found = resolved.get((id(own), link))
                if found is None:
                    found = resolved[id(own), link] = (link, *self.requirement(link, own))
                links.append(found)
        return _RequirementLinks(table, list(resolved.values()))

    @cached_property
    def _story_bolts(self) -> dict[int, list[BoltItem]]:
        table: dict[int, list[BoltItem]] = defaultdict(list)
        for bolt in self.bank.bolts:
            for story in self._bolt_stories[id(bolt)]:
                table[id(story)].append(bolt)
        return table


def names(value: object) -> list[str]:
    """A link field as a list of names (a scalar is tolerated; other shapes are schema errors)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(item) for item in value if isinstance(item, str | int)]
    return []


def find_intent(bank: MemoryBank, ref: str) -> Intent:
    """The intent a person names on the command line (`001`, `checkout`, `001-checkout`); a usage error listing
    some if none."""
    intent = BankIndex(bank).intent_named(ref)
    if intent is None:
        raise UsageError(f"no intent {ref!r}; there are: {_some([i.id for i in bank.intents])}",
                         ["aidlc status    # the summary", "aidlc status --all    # every intent and bolt"])
    return intent


def find_bolt(bank: MemoryBank, ref: str, index: BankIndex | None = None) -> BoltItem:
    """The bolt a person names on the command line, as `aidlc new` names it (`001` or `1`, its id, its folder
    with or without its number): every command resolves a bolt here. A usage error listing some if none.
    `index`: the bank's, when the caller holds it."""
    bolt = (index or BankIndex(bank)).bolt_named(ref)
    if bolt is None:
        raise UsageError(f"no bolt {ref!r} in {bank.rel_root}/bolts/; there are: {_some([b.id for b in bank.bolts])}",
                         ["aidlc status --all    # every bolt",
                          "name one by its number (001), its name or its folder (001-checkout)"])
    return bolt


def _some(names: list[str], limit: int = 10) -> str:
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return (", ".join(names[:limit]) or "none") + more


def _by_number(ref: str, names: list[str]) -> str:
    """The name numbered `ref` (`1` or `001` for 001-checkout) when `ref` is a number, else `ref`."""
    ref = ref.strip()
    wanted = id_number(ref)
    if wanted is None:
        return ref
    return next((name for name in names if id_number(name.split("-")[0]) == wanted), ref)


def _add(table: dict[str, list], item: object, name: str, other: str) -> None:
    """`item` under its name and its other name (an empty name is none; one that equals the other counts once)."""
    if name:
        table[name].append(item)
    if other and other != name:
        table[other].append(item)


def _only(items: list | None):
    # An ambiguous name resolves to the first item; the identity rules report the duplicate.
    return items[0] if items else None
