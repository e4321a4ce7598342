"""Checking a proposal against the bank, and writing it through the creator of `aidlc new`.

`problems()` says, in words the model can act on, what in a proposal does not fit the bank
(a requirement the intent does not define, a unit or story that does not exist); the drafting
loop feeds them back. `write()` then creates every artifact with `aidlc new`'s own code, so
numbering, templates, links and the story index are exactly what a person would get.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel

from aidlc.bank.items import Intent
from aidlc.draft.proposals import BoltsProposal, RequirementsProposal, StoriesProposal, UnitsProposal
from aidlc.errors import UsageError
from aidlc.scaffold import fields
from aidlc.scaffold.new import Creator


@dataclass
class Written:
    ids: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)

    def add(self, id_: str, created: list[str], updated: list[str]) -> None:
        """Record one creation (the creator is refreshed by the caller before the next one)."""
        self.ids.append(id_)
        self.created += [p for p in created if p not in self.created]
        self.updated += [p for p in updated if p not in self.updated and p not in self.created]


def problems(creator: Creator, intent: Intent, proposal: BaseModel) -> list[str]:
    """Everything in `proposal` that `write` would refuse, one sentence each."""
    found: list[str] = []

    def check(where: str, attempt: Callable[[], object]) -> None:
        try:
            attempt()
        except UsageError as exc:
            hint = f" ({exc.next_steps[0]})" if exc.next_steps else ""
            found.append(f"{where}: {exc.message}{hint}")

    found += _text_problems(proposal)
    if isinstance(proposal, UnitsProposal):
        for n, unit in enumerate(proposal.units, start=1):
            check(f"units[{n}]", lambda u=unit: creator.requirements(intent, u.requirements))
    elif isinstance(proposal, StoriesProposal):
        for n, story in enumerate(proposal.stories, start=1):
            check(f"stories[{n}].unit", lambda s=story: creator.unit(s.unit, intent.id))
            check(f"stories[{n}].requirements", lambda s=story: creator.requirements(intent, s.requirements))
    elif isinstance(proposal, BoltsProposal):
        for n, bolt in enumerate(proposal.bolts, start=1):
            check(f"bolts[{n}]", lambda b=bolt: [creator.story(s, creator.unit(b.unit, intent.id)) for s in b.stories])
            for ref in bolt.requires:
                if ref.startswith("#"):
                    if not (ref[1:].isdigit() and 1 <= int(ref[1:]) < n):
                        found.append(f"bolts[{n}].requires: {ref} must name an earlier bolt of this proposal "
                                     f"(#1..#{n - 1})")
                elif creator.index.bolt(ref) is None:
                    found.append(f"bolts[{n}].requires: no bolt {ref!r} exists")
    return found


# The text fields of each proposal, one line or paragraphs: the model may not add Markdown structure either.
_LINES = {"title", "as_a", "so_that", "acceptance_criteria"}
_PARAGRAPHS = {"description", "purpose", "objective"}


def _text_problems(proposal: BaseModel) -> list[str]:
    found = []
    for level, items in proposal:
        for n, item in enumerate(items, start=1):
            for name, value in item:
                where = f"{level}[{n}].{name}"
                values = value if isinstance(value, list) else [value]
                for number, text in enumerate(values, start=1):
                    shown = f"{where}[{number}]" if isinstance(value, list) else where
                    if name in _LINES and isinstance(text, str):
                        found.append(fields.check_line(shown, text))
                    elif name in _PARAGRAPHS and isinstance(text, str):
                        found.append(fields.check_paragraphs(shown, text))
    return [problem for problem in found if problem]


def write(creator: Creator, intent: Intent, proposal: BaseModel) -> Written:
    """Create every proposed artifact as a draft; links were checked by `problems` first."""
    written = Written()
    if isinstance(proposal, RequirementsProposal):
        for req in proposal.requirements:
            made = creator.new_requirement(req.title, intent.id, req.kind, req.priority, req.acceptance_criteria,
                                           req.description or None)
            written.add(made.id, made.created, made.updated)
            creator.refresh()  # the next item numbers (and may link) against what was just written
    elif isinstance(proposal, UnitsProposal):
        for unit in proposal.units:
            made = creator.new_unit(unit.title, intent.id, unit.requirements, unit.purpose)
            written.add(made.id, made.created, made.updated)
            creator.refresh()  # the next item numbers (and may link) against what was just written
    elif isinstance(proposal, StoriesProposal):
        for story in proposal.stories:
            made = creator.new_story(story.title, intent.id, story.unit, story.requirements, story.priority,
                                     story.acceptance_criteria, story.as_a, story.so_that)
            written.add(made.id, made.created, made.updated)
            creator.refresh()  # the next item numbers (and may link) against what was just written
    elif isinstance(proposal, BoltsProposal):
        for bolt in proposal.bolts:
            requires = [written.ids[int(ref[1:]) - 1] if ref.startswith("#") else ref for ref in bolt.requires]
            made = creator.new_bolt(intent.id, bolt.unit, bolt.stories, bolt.type, bolt.risk, requires,
                                    bolt.scope, bolt.objective)
            written.add(made.id, made.created, made.updated)
            creator.refresh()  # the next item numbers (and may link) against what was just written
    return written
