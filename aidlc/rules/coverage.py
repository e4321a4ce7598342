"""Coverage rules: every Must requirement has a story; every started story has a bolt."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from aidlc.bank.index import BankIndex
from aidlc.bank.items import StoryItem
from aidlc.model.types import Priority, Severity, StoryStatus
from aidlc.names import arg
from aidlc.rules.catalogue import Hit, rule, story_rule

W = Severity.warning


@rule("AIDLC-COV-001", W, "coverage", "a Must requirement has no story",
      "write a story for it: `aidlc new story TITLE --unit UNIT --requirements FR-n`")
def must_requirement_has_story(index: BankIndex) -> Iterator[Hit]:
    covered: set[tuple[int, str]] = set()  # (intent, requirement id); FR-1.2 covers FR-1 too
    for _link, target, linked in index.linked_requirements:
        if "." not in linked:
            covered.add((id(target), linked))
            continue
        parts = linked.split(".")
        covered.update((id(target), ".".join(parts[:n])) for n in range(1, len(parts) + 1))
    # A requirement a table maps to a unit is covered by that unit's stories where they name no
    # requirement themselves (the map is then the only link there is). The index's links: read once per story.
    for unit in index.bank.units:
        if unit.mapped_requirements and any(story.links_known and not index.requirement_links(story)
                                            for story in unit.stories):
            for mapped in unit.mapped_requirements:
                parts = mapped.split(".")
                covered.update((id(unit.intent), ".".join(parts[:n])) for n in range(1, len(parts) + 1))
    # A story whose front matter cannot be read may cover anything in its intent: say nothing there.
    unknown = {id(story.unit.intent) for story in index.bank.stories if not story.links_known and story.unit}
    for intent in index.bank.intents:
        if id(intent) in unknown:
            continue
        for requirement in intent.requirements:
            if requirement.block.priority == Priority.must and (id(intent), requirement.id) not in covered:
                assert intent.requirements_doc is not None
                fix = (f"aidlc new story \"TITLE\" --intent {arg(intent.id)} --unit {arg(intent.units[0].id)} "
                       f"--requirements {arg(requirement.id)}" if intent.units else
                       f"aidlc new unit \"TITLE\" --intent {arg(intent.id)} --requirements {arg(requirement.id)}    "
                       "# then a story in it")
                yield Hit(intent.requirements_doc.rel, requirement.block.line,
                          f"Must requirement {requirement.qualified_id} has no story", fix)


_NEEDS_BOLT = (StoryStatus.ready, StoryStatus.in_progress, StoryStatus.complete)


@story_rule("AIDLC-COV-002", W, "coverage", "a ready (or later) story is in no bolt",
            "plan it into a bolt: `aidlc new bolt --unit UNIT --stories STORY`")
def started_story_has_bolt(index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    if story.meta is None or story.meta.status not in _NEEDS_BOLT or index.bolts_of(story):
        return ()
    assigned = story.meta.assigned_bolt
    if isinstance(assigned, str) and index.bolt(assigned) is not None:
        return ()
    assert story.unit is not None and story.unit.intent is not None
    return (Hit(story.rel, story.doc.line_of("status"),
                f"story {story.id} is {story.meta.status} but no bolt includes it",
                f"aidlc new bolt --intent {arg(story.unit.intent.id)} --unit {arg(story.unit.id)} "
                f"--stories {arg(story.stem)}"),)
