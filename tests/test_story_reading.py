"""Story files as the loader reads them: odd bodies give the same parts as the general Markdown readers.

The loader reads a story body with `markdown.story_parts`, which visits only heading and fence lines;
`acceptance_criteria` and `related_requirements` over `prose_lines` are the general way. Files with
unusual encodings, line breaks or front matter must come out of the loader exactly as the general
way reads them, or as the finding that says why they cannot be read.
"""

from __future__ import annotations

import pytest

from aidlc.bank import frontmatter, markdown
from aidlc.bank.config import load_config
from aidlc.bank.loader import load_bank
from aidlc.names import hides
from aidlc.rules import validate
from tests.helpers import UNIT_DIR, Bank

# Bodies that take every branch of the story reader, and files it cannot read at all.
ODD_STORIES: dict[str, bytes] = {
    "003-fenced.md": b"---\nid: 003-fenced\nunit: 001-checkout-api\nstatus: draft\n---\n\n## Acceptance Criteria\n\n"
                     b"```\n- [ ] inside a fence\n```\n- [ ] **Given** a, **When** b, **Then** it is fast\n"
                     b"\n**Related Requirements**: FR-1 / FR-9\n",
    "004-crlf.md": b"---\r\nid: 004-crlf\r\nunit: 001-checkout-api\r\n---\r\n\r\n## Acceptance Criteria\r\n\r\n"
                   b"- [x] done\r\n-\r\n* plain bullet\r\n",
    "005-bom.md": "\ufeff---\nid: 005-bom\nunit: 001-checkout-api\n---\n# Acceptance criteria\n- [ ] b\n".encode(),
    "006-label.md": b"---\nid: 006-label\nunit: 001-checkout-api\n---\n"
                    b"**Acceptance Criteria**:\n- [ ] a\n- appropriate\n",
    "007-odd-breaks.md": b"---\nid: 007-odd-breaks\n---\n## Acceptance Criteria\x0c\n- [ ] x\x0b- [ ] y\n",
    "008-latin1.md": b"---\nid: 008-latin1\n---\n## Acceptance Criteria\n- [ ] caf\xe9\n",
    "009-no-front-matter.md": b"# Story\n\n## Acceptance Criteria\n\n- [ ] only a body\n",
    "010-unclosed.md": b"---\nid: 010-unclosed\n## Acceptance Criteria\n- [ ] never closed\n",
    "011-empty.md": b"",
    "012-fence-in-related.md": b"---\nid: 012-fence-in-related\n---\n~~~\n**Related Requirements**: FR-2\n~~~\n"
                               b"### Acceptance Criteria\n#### Scenario\n1. numbered\n    - indented\n"
                               b"**Related Requirements**: NFR-1\n",
}


@pytest.fixture
def odd_bank(bank: Bank) -> Bank:
    for name, data in ODD_STORIES.items():
        bank.write_bytes(f"{UNIT_DIR}/stories/{name}", data)
    return bank


def test_each_odd_story_is_read_as_the_general_readers_read_it(odd_bank: Bank) -> None:
    loaded = {story.rel: story for story in load_bank(odd_bank.root, load_config(odd_bank.root)).stories}
    assert len(loaded) == 2 + len(ODD_STORIES)
    compared = 0
    for rel, story in loaded.items():
        doc = frontmatter.read(odd_bank.path(rel), rel)
        lines = list(markdown.prose_lines(doc.body, doc.body_start))
        assert (story.criteria_line, story.criteria) == markdown.acceptance_criteria(lines), rel
        assert (story.related_line, story.related) == markdown.related_requirements(lines), rel
        assert story.doc.problem == doc.problem or story.doc.problem.kind == frontmatter.ProblemKind.not_mapping
        compared += bool(story.criteria)
    assert compared >= 8  # the comparison saw real criteria, not only empty bodies


def test_odd_stories_give_their_findings(odd_bank: Bank) -> None:
    report = validate(load_bank(odd_bank.root, load_config(odd_bank.root)))
    found = {(f.code, f.path.rsplit("/", 1)[-1]) for f in report.findings}
    assert ("AIDLC-FILE-001", "008-latin1.md") in found  # not UTF-8: read as a finding, never a crash
    assert ("AIDLC-FILE-003", "009-no-front-matter.md") in found  # a story needs front matter
    assert ("AIDLC-FILE-003", "010-unclosed.md") in found
    assert ("AIDLC-FILE-003", "011-empty.md") in found
    assert ("AIDLC-STRUCT-002", "003-fenced.md") in found  # 'fast', outside the fence
    assert ("AIDLC-STRUCT-002", "006-label.md") in found  # a bullet that is not a checkbox
    assert ("AIDLC-REF-001", "003-fenced.md") in found  # FR-9 is not defined
    assert ("AIDLC-REF-001", "012-fence-in-related.md") not in found  # the fenced FR-2 line is not the link


def test_a_story_keeps_no_body_once_read(odd_bank: Bank) -> None:
    """10,000 story bodies would be most of a large bank's memory: only the parts the rules need stay (a body
    holding a character that hides text is kept for AIDLC-ID-004, which names it)."""
    stories = load_bank(odd_bank.root, load_config(odd_bank.root)).stories
    assert stories and all(story.doc.body == "" or hides(story.doc.body) for story in stories)
    assert any(story.doc.body == "" for story in stories)
