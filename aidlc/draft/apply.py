"""Checking a proposal against the bank, and writing it through the creator of `aidlc new`.

`problems()` says, in words the model can act on, what in a proposal does not fit the bank
(a requirement the intent does not define, a unit or story that does not exist) and what to use
instead; the drafting loop feeds them back. `write()` then creates every artifact with `aidlc new`'s own code, so
numbering, templates, links and the story index are exactly what a person would get. A proposed artifact the
bank already has (a requirement of the same title, a unit or story of the same name, a bolt of the same unit
and stories) is kept as it is, never written again: a re-draft leaves a person's edits alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from aidlc.bank.items import Intent, StoryItem, Unit, strip_number
from aidlc.draft.proposals import BoltsProposal, RequirementsProposal, StoriesProposal, UnitsProposal
from aidlc.errors import UsageError
from aidlc.llm.schemashape import is_schema_word, schema_words, shape_notes
from aidlc.names import id_number
from aidlc.scaffold import fields
from aidlc.scaffold.new import Creator, slugify


@dataclass
class Written:
    ids: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)  # id -> file of a proposed artifact the bank already has

    def add(self, id_: str, created: list[str], updated: list[str]) -> None:
        """Record one creation (the creator is refreshed by the caller before the next one)."""
        self.ids.append(id_)
        self.created += [p for p in created if p not in self.created]
        self.updated += [p for p in updated if p not in self.updated and p not in self.created]

    def keep(self, id_: str, rel: str) -> None:
        """Record a proposed artifact the bank already has (its id still counts for `#N` references); one this
        draft itself created (the proposal named it twice) is no kept file."""
        self.ids.append(id_)
        if rel not in self.created:
            self.kept[id_] = rel

    def new_count(self) -> int:
        """The artifacts this draft creates."""
        return len(set(self.ids) - set(self.kept))


def problems(creator: Creator, intent: Intent, proposal: BaseModel) -> list[str]:
    """Everything in `proposal` that `write` would refuse, one sentence each, in words the model can act on:
    what to use instead, never an artifact to create (the model drafts one level, from the levels above)."""
    schema = type(proposal).model_json_schema()
    words = schema_words(schema)
    refs = _References(creator, intent, words)
    found = _text_problems(proposal, words | shape_notes(schema))
    if isinstance(proposal, UnitsProposal):
        for n, unit in enumerate(proposal.units, start=1):
            found += refs.requirements(f"units[{n}].requirements", unit.requirements)
    elif isinstance(proposal, StoriesProposal):
        for n, story in enumerate(proposal.stories, start=1):
            found += refs.unit(f"stories[{n}].unit", story.unit)
            found += refs.requirements(f"stories[{n}].requirements", story.requirements)
    elif isinstance(proposal, BoltsProposal):
        for n, bolt in enumerate(proposal.bolts, start=1):
            unit_problems = refs.unit(f"bolts[{n}].unit", bolt.unit)
            found += unit_problems or refs.stories(f"bolts[{n}].stories", creator.unit(bolt.unit, intent.id),
                                                   bolt.stories)
            for ref in bolt.requires:
                if ref.startswith("#"):
                    if not 1 <= (id_number(ref[1:]) or 0) < n:
                        found.append(f"bolts[{n}].requires: {ref} must name an earlier bolt of this proposal "
                                     f"(#1..#{n - 1})")
                elif creator.index.bolt(ref) is None:
                    found.append(refs.unknown(f"bolts[{n}].requires", ref, "bolt id", f"no bolt {ref!r} exists",
                                              "existing bolt ids", [b.id for b in creator.bank.bolts],
                                              "or #N for the N-th bolt of this proposal"))
    return found


@dataclass
class _References:
    """What a proposal names (requirement ids, units, stories) checked against the intent, with the
    names to use instead. A name the answer's schema uses ("description", "UnitDraft") is an echo of
    the schema, and said so: the model copied the shape it was shown, it did not mistype an id."""

    creator: Creator
    intent: Intent
    words: frozenset[str]

    def requirements(self, where: str, refs: list[str]) -> list[str]:
        defined = sorted(self.intent.requirement_ids)
        return [self.unknown(where, ref, "requirement id", f"intent {self.intent.id} does not define {ref}",
                             f"the requirement ids intent {self.intent.id} defines", defined)
                for ref in refs if not self.intent.defines(ref)]

    def unit(self, where: str, ref: str) -> list[str]:
        try:
            self.creator.unit(ref, self.intent.id)
        except UsageError:
            return [self.unknown(where, ref, "unit", f"intent {self.intent.id} has no unit {ref!r}",
                                 f"the units of intent {self.intent.id}", [u.id for u in self.intent.units])]
        return []

    def stories(self, where: str, unit: Unit, refs: list[str]) -> list[str]:
        names = [s.stem for s in unit.stories]
        if not names:
            with_stories = [u.id for u in self.intent.units if u.stories]
            return [f"{where}: unit {unit.id} has no stories: plan bolts only for units with stories: "
                    f"{_listed(with_stories)}"]
        found = []
        for ref in refs:
            try:
                self.creator.story(ref, unit)
            except UsageError:
                found.append(self.unknown(where, ref, "story", f"unit {unit.id} has no story {ref!r}",
                                          f"the stories of unit {unit.id}", names))
        return found

    def unknown(self, where: str, ref: str, kind: str, missing: str, choices: str, names: list[str],
                alternative: str = "") -> str:
        use = f"use {choices}: {_listed(names)}" + (f", {alternative}" if alternative else "")
        if is_schema_word(ref, self.words):
            return f"{where}: {ref!r} is {_ECHO}, not a {kind}: {use}"
        return f"{where}: {missing}: {use}"


_ECHO = "a key, type name or note of the JSON shape asked for"


def _listed(names: list[str]) -> str:
    if not names:
        return "(none)"
    return ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")


# The text fields of each proposal, one line or paragraphs: the model may not add Markdown structure either.
_LINES = {"title", "as_a", "so_that", "acceptance_criteria"}
_PARAGRAPHS = {"description", "purpose", "objective"}
_LABELS = {"acceptance_criteria": "criterion", "as_a": "user role", "so_that": "benefit"}


def _text_problems(proposal: BaseModel, shape_text: frozenset[str]) -> list[str]:
    """Text that breaks the file it goes into, or that is only a word or note copied from the shape asked for."""
    found: list[str | None] = []
    for level, items in proposal:
        for n, item in enumerate(items, start=1):
            for name, value in item:
                where = f"{level}[{n}].{name}"
                values = value if isinstance(value, list) else [value]
                for number, text in enumerate(values, start=1):
                    shown = f"{where}[{number}]" if isinstance(value, list) else where
                    if (name in _LINES or name in _PARAGRAPHS) and isinstance(text, str) \
                            and is_schema_word(text, shape_text, whole=True):
                        found.append(f"{shown}: {text!r} is {_ECHO}: write your own {_LABELS.get(name, name)} "
                                     f"for this item of {level}")
                    elif name in _LINES and isinstance(text, str):
                        found.append(fields.check_line(shown, text))
                    elif name in _PARAGRAPHS and isinstance(text, str):
                        found.append(fields.check_paragraphs(shown, text))
    return [problem for problem in found if problem]


def write(creator: Creator, intent: Intent, proposal: BaseModel) -> Written:
    """Create every proposed artifact as a draft, or keep the one the bank already has; links were checked by
    `problems` first."""
    written = Written()
    if isinstance(proposal, RequirementsProposal):
        for req in proposal.requirements:
            current = creator.intent(intent.id)  # as written so far: a title proposed twice is kept the 2nd time
            twin = next((r for r in current.requirements if _words(r.block.title) == _words(req.title)), None)
            if twin is not None and current.requirements_doc is not None:
                written.keep(twin.qualified_id, current.requirements_doc.rel)
                continue
            made = creator.new_requirement(req.title, intent.id, req.kind, req.priority, req.acceptance_criteria,
                                           req.description or None)
            written.add(made.id, made.created, made.updated)
            creator.refresh()  # the next item numbers (and may link) against what was just written
    elif isinstance(proposal, UnitsProposal):
        for unit in proposal.units:
            if (existing := _named(creator.intent(intent.id).units, unit.title)) is not None:
                written.keep(existing.id, existing.rel)
                continue
            made = creator.new_unit(unit.title, intent.id, unit.requirements, unit.purpose)
            written.add(made.id, made.created, made.updated)
            creator.refresh()
    elif isinstance(proposal, StoriesProposal):
        for story in proposal.stories:
            home = creator.unit(story.unit, intent.id)
            if (existing := _named(home.stories, story.title)) is not None:
                written.keep(existing.id, existing.rel)
                continue
            made = creator.new_story(story.title, intent.id, story.unit, story.requirements, story.priority,
                                     story.acceptance_criteria, story.as_a, story.so_that)
            written.add(made.id, made.created, made.updated)
            creator.refresh()
    elif isinstance(proposal, BoltsProposal):
        for bolt in proposal.bolts:
            home = creator.unit(bolt.unit, intent.id)
            stories = {creator.story(ref, home).id for ref in bolt.stories}
            same = next((b for b in creator.bank.bolts if b.meta and strip_number(b.meta.unit) == strip_number(home.id)
                         and {s.id for s in creator.index.stories_of(b)} == stories), None)
            if same is not None:
                written.keep(same.id, same.rel)
                continue
            requires = [written.ids[int(ref[1:]) - 1] if ref.startswith("#") else ref for ref in bolt.requires]
            made = creator.new_bolt(intent.id, bolt.unit, bolt.stories, bolt.type, bolt.risk, requires,
                                    bolt.scope, bolt.objective)
            written.add(made.id, made.created, made.updated)
            creator.refresh()
    return written


def _words(title: str) -> str:
    return " ".join(title.casefold().split())


def _named(items: list[Unit] | list[StoryItem], title: str) -> Unit | StoryItem | None:
    """The unit or story whose name (without its number) is what `aidlc new` would name one titled `title`."""
    slug = slugify(title)
    return next((item for item in items if strip_number(item.id) == slug), None)
