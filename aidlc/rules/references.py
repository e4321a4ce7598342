"""Reference rules: every link between artifacts points at something that exists."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from aidlc.bank.index import BankIndex, names
from aidlc.bank.items import StoryItem, strip_number
from aidlc.model.types import Severity
from aidlc.rules.catalogue import Hit, rule, story_rule

E, W = Severity.error, Severity.warning


@story_rule("AIDLC-REF-001", E, "references", "a story links a requirement its intent does not define",
            "add the `### FR-n:` heading to the intent's requirements.md or correct the link")
def story_requirement(index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    if story.unit is None or story.unit.intent is None:
        return ()
    hits = []
    for link, target, requirement in index.requirement_links(story):
        # A requirement defined by its own id, as most links name one, first; an unreadable requirements.md is its
        # own finding, not one per link to it.
        if target is not None and (requirement in target.requirement_ids or not target.requirements_known
                                   or target.defines(requirement)):
            continue
        front = names(story.meta.requirements if story.meta else None)
        line = story.doc.line_of_item("requirements", link) if link in front else story.related_line
        if target is None:
            hits.append(Hit(story.rel, line, f"story {story.id} links requirement {link}, whose intent does not exist",
                            "name the requirement as FR-n (own intent) or INTENT-FOLDER/FR-n"))
            continue
        where = target.requirements_doc.rel if target.requirements_doc else f"{target.rel}/requirements.md"
        hits.append(Hit(story.rel, line,
                        f"story {story.id} links requirement {link}, which intent {target.id} does not define",
                        f"add `### {requirement}: ...` to {where} or correct the link"))
    return hits


@story_rule("AIDLC-REF-002", E, "references", "a story names a unit that does not exist or is not its folder",
            "set `unit:` to the name of the unit folder the story lives in")
def story_unit(index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    value = story.meta.unit if story.meta else None
    if not isinstance(value, str) or story.unit is None or value in (story.unit.id, strip_number(story.unit.id)):
        return ()
    what = "lives in another unit's folder" if index.unit(value) is not None else "does not exist"
    return (Hit(story.rel, story.unit_line,
                f"story {story.id} names unit '{value}', which {what} (its folder is {story.unit.id})",
                f"set `unit: {story.unit.id}` or move the file into {value}/stories/"),)


@rule("AIDLC-REF-003", E, "references", "a story or unit names an intent that does not exist or is not its folder",
      "set `intent:` to the name of the intent folder the file lives in")
def intent_link(index: BankIndex) -> Iterator[Hit]:
    for unit in index.bank.units:
        assert unit.intent is not None
        items: list = [unit, *unit.stories]
        for item in items:
            value = item.meta.intent if item.meta else None
            if isinstance(value, str) and value not in (unit.intent.id, strip_number(unit.intent.id)):
                kind = "story" if isinstance(item, StoryItem) else "unit"
                name = item.id
                what = "is another intent" if index.intent(value) else "does not exist"
                yield Hit(item.rel, item.doc.line_of("intent"),
                          f"{kind} {name} names intent '{value}', which {what} (its folder is {unit.intent.id})",
                          f"set `intent: {unit.intent.id}`")


@rule("AIDLC-REF-004", E, "references", "a bolt lists a story that does not exist",
      "correct the story name in `stories:` (a story's id or file name) or create the story")
def bolt_story(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        if bolt.meta is None:
            continue
        for name, story in index.listed(bolt):
            if story is None:
                yield Hit(bolt.rel, bolt.doc.line_of_item("stories", name),
                          f"bolt {bolt.id} lists story '{name}', which does not exist")


@rule("AIDLC-REF-005", E, "references", "a bolt names a unit that does not exist",
      "set `unit:` to an existing unit folder name, or create the unit with `aidlc new unit`")
def bolt_unit(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        if bolt.meta is None:
            continue
        intent = index.intent(bolt.meta.intent)
        for key, listed in (("unit", names(bolt.meta.unit)), ("requires_units", names(bolt.meta.requires_units))):
            for name in listed:
                if index.unit(name, intent) is None:
                    yield Hit(bolt.rel, bolt.doc.line_of_item(key, name),
                              f"bolt {bolt.id} names unit '{name}' in `{key}`, which does not exist")


@rule("AIDLC-REF-006", E, "references", "a bolt depends on or enables a bolt that does not exist",
      "correct the bolt id in `requires_bolts:` / `enables_bolts:` or create that bolt")
def bolt_bolt(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        if bolt.meta is None:
            continue
        for key in ("requires_bolts", "enables_bolts"):
            for name in names(getattr(bolt.meta, key)):
                if index.bolt(name) is None:
                    yield Hit(bolt.rel, bolt.doc.line_of_item(key, name),
                              f"bolt {bolt.id} names bolt '{name}' in `{key}`, which does not exist")


@rule("AIDLC-REF-007", E, "references", "a bolt names an intent that does not exist, or not its unit's intent",
      "set `intent:` to the folder name of the intent its unit belongs to")
def bolt_intent(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        if bolt.meta is None or not isinstance(bolt.meta.intent, str):
            continue
        intent = index.intent(bolt.meta.intent)
        if intent is None:
            yield Hit(bolt.rel, bolt.doc.line_of("intent"),
                      f"bolt {bolt.id} names intent '{bolt.meta.intent}', which does not exist")
            continue
        # index.unit prefers a unit of `intent` and falls back to any: a unit of another intent is a mismatch.
        unit = index.unit(bolt.meta.unit, intent)
        if unit is not None and unit.intent is not intent:
            assert unit.intent is not None
            yield Hit(bolt.rel, bolt.doc.line_of("intent"),
                      f"bolt {bolt.id} names intent '{bolt.meta.intent}' but its unit "
                      f"{unit.id} belongs to {unit.intent.id}",
                      f"set `intent: {unit.intent.id}`")


@story_rule("AIDLC-REF-008", E, "references", "a story's `assigned_bolt` names a bolt that does not exist",
            "correct `assigned_bolt:` or create the bolt with `aidlc new bolt`")
def story_bolt(index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    value = story.meta.assigned_bolt if story.meta else None
    if not isinstance(value, str) or not value.strip() or index.bolt(value) is not None:
        return ()
    return (Hit(story.rel, story.doc.line_of("assigned_bolt"),
                f"story {story.id} is assigned to bolt '{value}', which does not exist"),)


@story_rule("AIDLC-REF-009", W, "references", "a story's `assigned_bolt` names a bolt that does not list the story",
            "add the story to that bolt's `stories:` or correct `assigned_bolt:`")
def story_bolt_agree(index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    value = story.meta.assigned_bolt if story.meta else None
    bolt = index.bolt(value) if isinstance(value, str) and value.strip() else None
    if bolt is None or bolt.meta is None or (bolt.problems and bolt.bad("stories")):
        return ()  # a malformed `stories:` is the schema rule's finding, not a disagreement
    for listing in index.bolts_of(story):
        if listing is bolt:
            return ()
    return (Hit(story.rel, story.doc.line_of("assigned_bolt"),
                f"story {story.id} names bolt {bolt.id} in `assigned_bolt`, but that bolt does not list it"),)
