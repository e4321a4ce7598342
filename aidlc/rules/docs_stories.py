"""The aidlc-docs rules on story ids: the ids unit-of-work-story-map.md assigns against those stories.md defines
(aidlc/aidlc_docs/stories.py reads both)."""

from __future__ import annotations

from collections.abc import Iterator

from aidlc.aidlc_docs.model import DocsProject
from aidlc.rules.catalogue import Hit, docs_rule
from aidlc.rules.docs_layout import E, W, check

STORY_UNKNOWN = docs_rule(
    "AIDLC-DOCS-013", E, "unit-of-work-story-map.md assigns a story id that no heading of stories.md defines",
    "correct the id in the map, or write the story in user-stories/stories.md")
STORY_UNMAPPED = docs_rule(
    "AIDLC-DOCS-014", W, "a story of stories.md is assigned to no unit in unit-of-work-story-map.md (the rules: "
    "\"Ensure all stories are assigned to units\")",
    "assign the story to the unit that delivers it in unit-of-work-story-map.md (or retire it in stories.md)")


@check(STORY_UNKNOWN)
def _story_unknown(project: DocsProject) -> Iterator[Hit]:
    defined = {ref.id for ref in project.stories.defined}
    if not defined:  # the project writes no story ids aidlc reads: nothing to compare
        return
    for ref in project.stories.mapped:
        if ref.id not in defined and not ref.within:  # a range's ends are written; what lies between, inferred
            yield Hit(ref.path, ref.line, f"{ref.id} is assigned to a unit, and no heading of stories.md defines it")


@check(STORY_UNMAPPED)
def _story_unmapped(project: DocsProject) -> Iterator[Hit]:
    mapped = {ref.id for ref in project.stories.mapped}
    if not mapped:  # no map, or one whose ids aidlc does not read: never a finding for every story
        return
    for ref in project.stories.defined:
        if ref.id not in mapped:
            maps = ", ".join(project.stories.maps)
            yield Hit(ref.path, ref.line, f"{ref.id} is assigned to no unit in {maps}")
