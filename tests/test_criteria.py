"""A plain checklist's criteria counted without being made (aidlc/bank/criteria.py) and a story's counts."""

from __future__ import annotations

import random
import re

import pytest

from aidlc.bank import markdown
from aidlc.bank.criteria import listed_criteria, plain_checklist

LINES = ["- [ ] **Given** a, **When** b, **Then** c", "- [x] done", "- [X] Done", "", "- [ ]", "- [x] ", "- [ ]  ",
         "- [x] \x1f", "- [ ] \u00a0", "- [x]\ttab", "* [x] star", "- plain", "  - [x] nested", " ", "text",
         "1. numbered", "- [x] text - [ ] inside", "- [y] not a box", "-  [x] wide", "- [x] ends\r"]


@pytest.mark.parametrize("seed", range(30))
def test_plain_checklist_counts_what_listed_criteria_reads(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        text = "\n".join(rng.choice(LINES) for _ in range(rng.randint(0, 8)))
        criteria = listed_criteria(enumerate(text.split("\n"), 1))
        counted = plain_checklist(text)
        if counted is not None:  # only lists of checkboxes with text are counted, and counted right
            assert all(c.checkbox and c.text for c in criteria), repr(text)
            assert counted == (len(criteria), sum(not c.checked for c in criteria)), repr(text)


# The checklist's pattern as first written, without possessive quantifiers: the possessive one must accept the same.
BACKTRACKING = re.compile(r"(?:- \[[ xX]\] \S[^\n]*)?(?:\n(?:- \[[ xX]\] \S[^\n]*)?)*")


@pytest.mark.parametrize("seed", range(10))
def test_the_possessive_checklist_pattern_accepts_what_the_backtracking_one_does(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        text = "\n".join(rng.choice(LINES) for _ in range(rng.randint(0, 8))) + rng.choice(["", "\n", "\n\n"])
        assert (plain_checklist(text) is not None) == (BACKTRACKING.fullmatch(text) is not None), repr(text)


def test_a_usual_checklist_is_counted() -> None:
    assert plain_checklist("\n- [x] one\n- [ ] two\n\n- [X] three\n") == (3, 1)
    assert plain_checklist("- [ ] one") == (1, 1)
    assert plain_checklist("") == (0, 0)
    assert plain_checklist("\n- [x] one\n  - detail\n") is None
    assert plain_checklist("- [x] \n") is None  # an empty box: its text is empty


@pytest.mark.parametrize("seed", range(20))
def test_story_counts_agree_with_its_criteria(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        section = "\n".join(rng.choice(LINES) for _ in range(rng.randint(0, 8)))
        body = f"# Story\n\n## Acceptance Criteria\n{section}\n## Notes\n"
        parts = markdown.story_parts(body, 1)
        count, unchecked, plain = parts.count, parts.unchecked, parts.plain
        criteria = parts.criteria
        assert (count, unchecked, plain) == (len(criteria), sum(c.checkbox and not c.checked for c in criteria),
                                             all(c.checkbox and c.text for c in criteria)), repr(body)
