"""The body structures the validator reads: fences, headings, requirement blocks, criteria, related links."""

from __future__ import annotations

import pytest

from aidlc.bank import markdown
from aidlc.bank.markdown import Line
from tests.helpers import corpus_dir


def lines(text: str, first: int = 1) -> list[Line]:
    return list(markdown.prose_lines(text, first))


# --- fenced code ---------------------------------------------------------------------------------


def test_prose_lines_number_from_the_first_body_line() -> None:
    assert lines("a\nb\n", first=7) == [Line(7, "a"), Line(8, "b")]


def test_prose_lines_skip_backtick_and_tilde_fences() -> None:
    text = "a\n```yaml\n### FR-9: fake\n```\nb\n~~~\n- [ ] fake\n~~~\nc\n"
    assert [line.text for line in lines(text)] == ["a", "b", "c"]
    assert [line.number for line in lines(text)] == [1, 5, 9]


def test_a_shorter_or_other_fence_does_not_close_a_longer_one() -> None:
    text = "````md\n```\n## Acceptance Criteria\n```\n~~~\n````\nafter\n"
    assert [line.text for line in lines(text)] == ["after"]


def test_a_fence_with_an_info_string_does_not_close() -> None:
    text = "```\ncode\n```python\nstill code\n```\nprose\n"
    assert [line.text for line in lines(text)] == ["prose"]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert [line.text for line in lines("a\n```\n## heading\n- [ ] x\n")] == ["a"]


def test_inline_backticks_are_not_a_fence() -> None:
    assert [line.text for line in lines("use ```code``` inline\nnext\n")] == ["use ```code``` inline", "next"]


def test_crlf_bodies() -> None:
    assert [line.text for line in lines("a\r\n```\r\nx\r\n```\r\nb\r\n")] == ["a", "b"]


# --- headings ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("# Title", (1, "Title")), ("### FR-1: Pay ###", (3, "FR-1: Pay")), ("####### seven", None),
     ("#no-space", None), ("  ## indented", None)],
)
def test_heading(text: str, expected: tuple[int, str] | None) -> None:
    assert markdown.heading(text) == expected


# --- requirements --------------------------------------------------------------------------------

REQUIREMENTS = """\
# Intent

## Functional Requirements

### FR-1: Pay by card

**Priority**: Must

**Acceptance Criteria**:
- [ ] **Given** a cart, **When** paying, **Then** an order exists
- [x] **Given** a bad card, **When** paying, **Then** no order exists

**Notes**: not a criterion

### **FR-2** - Refunds (Should)

- FR-2.1: full refunds
- **FR-2.2**: partial refunds

### FR-3 Export

- **Priority**: could

```
### FR-9: inside a fence, not a requirement
```

## Non-Functional Requirements

### NFR-1. Latency

| Priority | Must |
|---|---|

### Not a requirement
"""


def blocks() -> dict[str, markdown.RequirementBlock]:
    return {block.id: block for block in markdown.requirement_blocks(lines(REQUIREMENTS))}


def test_requirement_blocks_ids_titles_lines() -> None:
    found = blocks()
    assert list(found) == ["FR-1", "FR-2", "FR-3", "NFR-1"]
    assert [(b.title, b.line) for b in found.values()] == [
        ("Pay by card", 5), ("Refunds", 15), ("Export", 20), ("Latency", 30)]


def test_requirement_priorities_in_every_written_form() -> None:
    assert {rid: b.priority for rid, b in blocks().items()} == {
        "FR-1": "must", "FR-2": "should", "FR-3": "could", "NFR-1": "must"}


def test_requirement_acceptance_criteria() -> None:
    criteria = blocks()["FR-1"].criteria
    assert [(c.line, c.checked, c.checkbox) for c in criteria] == [(10, False, True), (11, True, True)]
    assert criteria[0].text.startswith("**Given** a cart")


def test_sub_requirement_ids() -> None:
    assert blocks()["FR-2"].sub_ids == ["FR-2.1", "FR-2.2"]


def test_a_requirement_without_priority() -> None:
    found = markdown.requirement_blocks(lines("### FR-1: x\n\nSome text.\n"))
    assert [(b.id, b.priority) for b in found] == [("FR-1", None)]


# --- story acceptance criteria -------------------------------------------------------------------


def test_story_criteria_under_a_heading_with_scenarios() -> None:
    text = ("# Story\n\n## Acceptance Criteria\n\n- [ ] one\n\n### Scenario: two\n- [x] two\n"
            "    - nested detail\n\n## Notes\n- not a criterion\n")
    line, criteria = markdown.acceptance_criteria(lines(text))
    assert line == 3
    assert [(c.line, c.text, c.checked) for c in criteria] == [(5, "one", False), (8, "two", True)]


def test_story_criteria_after_a_bold_label() -> None:
    text = "# Story\n\n**Acceptance Criteria**:\n- [ ] one\n- two\n\n## Notes\n- [ ] no\n"
    line, criteria = markdown.acceptance_criteria(lines(text))
    assert line == 3
    assert [(c.text, c.checkbox) for c in criteria] == [("one", True), ("two", False)]


def test_story_criteria_inside_a_fence_are_not_criteria() -> None:
    text = "```\n## Acceptance Criteria\n- [ ] fake\n```\n"
    assert markdown.acceptance_criteria(lines(text)) == (None, [])


def test_story_without_criteria() -> None:
    assert markdown.acceptance_criteria(lines("# Story\n\nNo list here.\n")) == (None, [])


@pytest.mark.parametrize(
    ("text", "checked", "checkbox"),
    [("- [ ] a", False, True), ("* [x] a", True, True), ("+ [X] a", True, True), ("- a", False, False),
     ("1. a", False, False)],
)
def test_criteria_in(text: str, checked: bool, checkbox: bool) -> None:
    (criterion,) = markdown.criteria_in([Line(1, text)])
    assert (criterion.text, criterion.checked, criterion.checkbox) == ("a", checked, checkbox)


# --- related requirements ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ids"),
    [("**Related Requirements**: FR-3 / NFR-8", ["FR-3", "NFR-8"]),
     ("- **Related Requirement**: FR-1.2, FR-4", ["FR-1.2", "FR-4"]),
     ("**related requirements** FR-1", ["FR-1"]),
     ("**Related Requirements**: TBD", [])],
)
def test_related_requirements(text: str, ids: list[str]) -> None:
    assert markdown.related_requirements(lines(f"# Story\n\n{text}\n")) == (3, ids)


def test_related_requirements_in_a_fence_are_ignored() -> None:
    assert markdown.related_requirements(lines("```\n**Related Requirements**: FR-1\n```\n")) == (None, [])


def test_story_parts_reads_every_corpus_story_like_the_general_functions() -> None:
    """The one-pass story reader is an optimisation: it must agree with the general readers."""
    from aidlc.bank import frontmatter

    corpus = corpus_dir()
    stories = sorted(corpus.glob("memory-bank/intents/*/units/*/stories/*.md"))
    assert len(stories) > 50
    for path in stories:
        doc = frontmatter.read(path, path.name)
        lines = list(markdown.prose_lines(doc.body, doc.body_start))
        parts = markdown.story_parts(doc.body, doc.body_start)
        assert (parts.criteria_line, parts.criteria) == markdown.acceptance_criteria(lines), path
        assert (parts.related_line, parts.related) == markdown.related_requirements(lines), path


FRAGMENTS = [
    "## Acceptance Criteria", "### Acceptance criteria", "# Story", "## Notes", "### Scenario 1", "####",
    "- [ ] **Given** a, **When** b, **Then** c", "- [x] done", "* [X] also done", "- plain bullet",
    "1. numbered", "    - indented", "\t- tabbed", "", "text", "```", "```python", "~~~", "````",
    "**Related Requirements**: FR-1 / NFR-2", "**related requirement**: FR-3.1", "**Acceptance Criteria**:",
    "## Title ##", "#NoSpace", "Ünïcode ✓", "> quote",
    "#", "# ", "#\tTabbed title", "## Acceptance Criteria ##", "####### seven", "   ```", "    ```",
    "~~~~ info", "```` ", "  ~~~", "- [ ]", "2) second", "+ [x] plus", "**Related Requirements**: FR-9",
    "**Related Requirements**", "**RELATED REQUIREMENT** : nfr-2, FR-3", "text ``` inline",
    "## Acceptance\u00a0criteria", "# acceptance criteria and more", "-", "1. ", "    - [x] deep box",
    "##Acceptance Criteria",
]


@pytest.mark.parametrize("seed", range(60))
def test_story_parts_agrees_with_the_general_readers_on_random_bodies(seed: int) -> None:
    import random

    rng = random.Random(seed)
    for _ in range(100):
        lines = [rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 25))]
        newline = rng.choice(["\n", "\n", "\r\n", "\n\x0c"])
        body = newline.join(lines) + rng.choice(["", newline])
        first = rng.randint(1, 9)
        prose = list(markdown.prose_lines(body, first))
        parts = markdown.story_parts(body, first)
        assert (parts.criteria_line, parts.criteria) == markdown.acceptance_criteria(prose), repr(body)
        assert (parts.related_line, parts.related) == markdown.related_requirements(prose), repr(body)
