"""aidlc/aidlc_docs/state.py's `restate`: a version of aidlc-state.md that only ticks or unticks boxes of its parent's
stage lines is read from the parent's reading, exactly as a whole read would read it; any other change is read
whole. The history rules read hundreds of versions of one state file this way. And aidlc/aidlc_docs/stages.py's
reading of the stages a text names, which the rules ask of one text many times."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aidlc.aidlc_docs import stages
from aidlc.aidlc_docs.stages import stages_named
from aidlc.aidlc_docs.state import read_state, restate

STATE = """\
# AI-DLC State

## Stage Progress
- [x] Requirements Analysis
- [ ] User Stories - SKIP
- [ ] Workflow Planning

### CONSTRUCTION PHASE
#### Unit 1: orders-api
- [ ] Functional Design
- [ ] NFR Requirements / NFR Design
- [ ] Code Generation
- [~] Functional Design (per-unit)
  - [ ] Unit 2: shop-web
- [x] Application Design
- [ ] Application Design - Approval (APPROVED)

```
- [ ] Code Generation (an example in a fence)
```
"""
BOXES = [number for number, line in enumerate(STATE.split("\n"), start=1) if line.lstrip().startswith("- [")
         and "fence" not in line and "[~]" not in line]


@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from(BOXES)))
def test_a_version_that_only_toggles_boxes_reads_as_a_whole_read_does(toggled: set[int]) -> None:
    lines = STATE.split("\n")
    for number in toggled:
        line = lines[number - 1]
        lines[number - 1] = line.replace("[ ]", "[x]", 1) if "[ ]" in line else line.replace("[x]", "[ ]", 1)
    new = "\n".join(lines)
    derived = restate(read_state(STATE, "aidlc-state.md"), STATE, new)
    if derived is not None:
        assert derived == read_state(new, "aidlc-state.md")
    else:  # only a line that may record its stage's approval once ticked is read whole
        assert any("Approval" in lines[number - 1] and "[x]" in lines[number - 1] for number in toggled)


@pytest.mark.parametrize("change", [
    ("- [ ] Workflow Planning", "- [x] Workflow Planning (approved)"),  # the text changed too
    ("- [ ] Workflow Planning\n", "- [ ] Workflow Planning\n- [ ] Units Generation\n"),  # a line added
    ("- [ ] Workflow Planning", "- [S] Workflow Planning"),  # skipped: more than a tick
    ("- [ ] Code Generation (an example", "- [x] Code Generation (an example"),  # in a fence: no stage line
    ("#### Unit 1: orders-api", "#### Unit 3: billing"),  # the units of the lines under it
])
def test_any_other_change_is_read_whole(change: tuple[str, str]) -> None:
    new = STATE.replace(*change, 1)
    assert new != STATE
    assert restate(read_state(STATE, "aidlc-state.md"), STATE, new) is None


def test_a_sub_item_naming_its_parent_s_stage_is_a_step_of_it_and_one_naming_a_unit_is_the_unit_s() -> None:
    # SUHYUNSHIM/aidlc-0204: `Build and Test Summary 문서 생성` under `Build and Test` was a second Build and Test
    # line, and each open plan was reported twice.
    state = read_state("- [x] Build and Test (COMPLETED)\n  - [x] Build Instructions 문서 생성\n"
                       "  - [x] Build and Test Summary 문서 생성\n- [~] Functional Design (per-unit)\n"
                       "  - [x] Functional Design - U1 Chat Core\n", "aidlc-state.md")
    assert [(line.line, line.stage, line.unit) for line in state.stages if line.stage is not None] == [
        (1, "build-and-test", None), (4, "functional-design", None), (5, "functional-design", "1")]


def test_a_unit_folder_named_before_the_stage_gives_the_line_its_unit_and_stage() -> None:
    # shimmk-skt/aidlc_1day: five ticked `Frontend (FE) - <stage>` lines named no stage, so none was checked.
    state = read_state("- [x] CONSTRUCTION - Frontend (FE) - Functional Design (2026-04-08T13:55:00Z — 완료)\n"
                       "- [x] Unit `web`: Functional Design [x] → Code Generation [x]\n", "aidlc-state.md",
                       units=["frontend", "web"])
    assert [(line.stage, line.unit) for line in state.stages] == [("functional-design", "frontend"), (None, "web")]


def test_the_lines_under_an_archive_heading_are_an_earlier_feature_s_until_a_heading_as_high() -> None:
    """content-hub-mcp keeps a finished feature's stage table under `## Completed features (archive)`, below the
    current feature's: those lines are marked archived, rows and boxes alike, down to the next heading of the same
    level or higher."""
    text = ("# State\n\n## Stage Progress\n- [x] Code Generation\n\n## Completed features (archive)\n\n"
            "### Gift cards\n| Phase | Stage | Status |\n|---|---|---|\n"
            "| CONSTRUCTION | Code Generation | ✅ Complete |\n"
            "\n#### Notes\n- [x] Build and Test\n\n## Next feature\n- [ ] Functional Design\n")
    lines = [(line.line, line.stage, line.archived) for line in read_state(text, "aidlc-state.md").stages]
    assert lines == [(4, "code-generation", False), (11, "code-generation", True), (14, "build-and-test", True),
                     (17, "functional-design", False)]


def test_stage_labels_half_in_english_are_read() -> None:
    """88slash writes `- [x] NFR 需求` and `- [x] NFR 设计`: NFR Requirements and NFR Design, not unknown labels."""
    text = "# State\n\n## Stage Progress\n- [x] NFR 需求\n- [x] NFR 设计\n- [x] NFR需求\n"
    assert [line.stage for line in read_state(text, "aidlc-state.md").stages] == [
        "nfr-requirements", "nfr-design", "nfr-requirements"]


def test_a_name_joining_stages_is_a_line_of_each_and_one_saying_more_is_its_first() -> None:
    """socar-rieul/aidlc-modu-2 ticks `U3 Functional Design / NFR Req / NFR Design` for three stages of unit 3; it
    was read as Functional Design alone, and the other two were judged by nothing. Units listed too: each stage of
    each unit."""
    text = ("# State\n\n**U3 Admin Web**\n- [x] U3 Functional Design / NFR Req / NFR Design (8 files + 1 plan)\n"
            "- [x] Code Generation + Build&Test — done\n"
            "- [x] Functional Design and NFR Design - Unit 1 Backend + Unit 2 Frontend\n"
            "- [x] Functional Design for the NFR Design review\n- [x] Code Generation, no NFR required\n")
    assert [(line.line, line.stage, line.unit) for line in read_state(text, "aidlc-state.md").stages] == [
        (4, "functional-design", "3"), (4, "nfr-requirements", "3"), (4, "nfr-design", "3"),
        (5, "code-generation", "3"), (5, "build-and-test", None),
        (6, "functional-design", "1"), (6, "functional-design", "2"), (6, "nfr-design", "1"), (6, "nfr-design", "2"),
        (7, "functional-design", "3"), (8, "code-generation", "3")]
    assert stages_named("no NFR required; NFR request") == []  # `NFR Req` is a word of its own


def test_a_line_closing_on_the_stages_it_went_through_is_a_line_of_each() -> None:
    """ajy92/aidlc-workshp-awsdevops ticks `Unit 1: shared-db (Functional Design → Code Generation)` for each unit:
    a note (AIDLC-DOCS-012) said it names two stages, and neither stage's approval or plan was judged."""
    text = ("# State\n\n- [x] CONSTRUCTION - Unit 1: shared-db (Functional Design → Code Generation)\n"
            "- [x] CONSTRUCTION - Unit 2: web (Functional Design, NFR Design)\n"
            "- [x] CONSTRUCTION - Unit 3: api (Functional Design then Code Generation review)\n")
    assert [(line.line, line.stage, line.unit) for line in read_state(text, "aidlc-state.md").stages] == [
        (3, "functional-design", "1"), (3, "code-generation", "1"),
        (4, "functional-design", "2"), (4, "nfr-design", "2"),
        (5, None, "3")]  # it says more than the stages: never a guess


# Every label, its letters in other cases, with unseen characters, slashes, and any text around them.
LABEL_PIECES = st.sampled_from([label for label, _ in stages._LABELS] + [label.upper() for label, _ in stages._LABELS]
                               + ["FD", "fd", "Bu\u200bild and Test", "/", " / ", "NFR/", "Req/Design/Infra", " "])
LABEL_TEXT = st.lists(st.one_of(LABEL_PIECES, st.text(max_size=6)), max_size=10).map("".join)


# A label with one of its letters written as a character `re`'s case-blind match reads as that letter: Turkish's
# dotless ı and dotted İ (as i), the long ſ (as s), the Kelvin sign (as k).
def _respelled(label: str, at: int, letter: str) -> str:
    at %= len(label)
    return label[:at] + letter + label[at + 1:] if label[at].lower() in "iks" else label


RESPELLED = st.builds(_respelled, st.sampled_from([label for label, _ in stages._LABELS]), st.integers(0, 40),
                      st.sampled_from("ıİſ\u212a"))


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.one_of(RESPELLED, LABEL_PIECES, st.text(max_size=4)), max_size=6).map("".join))
def test_any_text_is_read_for_its_stages_without_failing(text: str) -> None:
    """Each label the pattern finds is one the tables hold: `Buıld and Test` once stopped validate with a KeyError."""
    starts = stages.label_starts(text)
    assert set(starts.values()) <= set(stages.stages_named(text))  # and more, where a label shares its last word
    assert len(stages.without_stage_names(text)) == len(text)
    assert stages.stage_of(text) == next(iter(starts.values()), None)


@settings(max_examples=400, deadline=None)
@given(text=LABEL_TEXT)
def test_the_lookahead_before_the_labels_finds_what_the_labels_alone_find(text: str) -> None:
    """The lookahead of any label's first two letters only skips places where no label starts."""
    alone = re.compile("|".join(stages._pattern(label) for label, _ in stages._LABELS), re.IGNORECASE)
    plain = stages._plain(text)
    assert [m.span() for m in stages._LABEL.finditer(plain)] == [m.span() for m in alone.finditer(plain)]


@pytest.mark.parametrize(("text", "named"), [
    ("Unit 1 - NFR/Infrastructure Design - User Approval", ["nfr-design", "infrastructure-design"]),
    ("Functional / NFR/Infra Design", ["functional-design", "nfr-design", "infrastructure-design"]),
    ("NFR Requirements / NFR Design", ["nfr-requirements", "nfr-design"]),
    ("and/or Infrastructure Design", ["infrastructure-design"]),  # `or design` is no stage
    ("NFR/基础设施设计", ["infrastructure-design"]),  # no word to share
    ("Unit 1 Code Gen Plan Approved", ["code-generation"]),
    ("a code generator for the API", []),  # `Code Gen` is a word of its own
    ("Unit 7 FD Approved; NFR Requirements Ready", ["functional-design", "nfr-requirements"]),
    ("closed the fd of the FDA upload; SFD", []),  # `FD` is a word of its own, in capitals
])
def test_a_stages_last_word_shared_over_a_slash_names_each_and_short_forms_name_their_stage(
        text: str, named: list[str]) -> None:
    assert stages_named(text) == named


def test_a_line_with_a_box_before_each_stage_is_a_line_of_each_with_its_own_mark_and_words() -> None:
    """DallYeo_FE ticks each unit's stages on one sub-item of the unit's line, a box before each stage: `  - [x]
    Functional Design / [x] NFR Requirements / [x] NFR Design / [x] Infrastructure Design (SKIP) / [x] Code
    Generation`. It was read as one Functional Design line, skipped by Infrastructure Design's `(SKIP)`, and the
    other four ticks were judged by nothing. Each part, up to the next box, is a line of its own at that line: its
    box, its words (SKIP, awaiting approval), the unit of the line above; a part joining stages claims each."""
    text = ("### CONSTRUCTION PHASE\n"
            "- [x] **U1 Login** — **완료** (자동승인) — LOGIN-S1/S2/S4; LOGIN-S3→U3. 검증: typecheck/45 tests ✓\n"
            "  - [x] Functional Design / [x] NFR Requirements / [x] NFR Design / [x] Infrastructure Design (SKIP) / "
            "[x] Code Generation\n"
            "- [x] **U2 Onboarding (V01)** — 진행 중\n"
            "  - [x] Functional Design / NFR Design / [ ] NFR Requirements (awaiting approval) / [ ] Code Generation\n")
    lines = [(line.line, line.stage, line.unit, line.mark.value, line.skipped, line.awaiting, line.parent)
             for line in read_state(text, "aidlc-state.md").stages]
    assert lines == [
        (2, None, "1", "done", False, False, None),
        (3, "functional-design", "1", "done", False, False, 2), (3, "nfr-requirements", "1", "done", False, False, 2),
        (3, "nfr-design", "1", "done", False, False, 2), (3, "infrastructure-design", "1", "done", True, False, 2),
        (3, "code-generation", "1", "done", False, False, 2),
        (4, None, "2", "done", False, False, None),
        (5, "functional-design", "2", "done", False, False, 4), (5, "nfr-design", "2", "done", False, False, 4),
        (5, "nfr-requirements", "2", "pending", False, True, 4),
        (5, "code-generation", "2", "pending", False, False, 4)]


def test_a_line_glued_to_the_next_after_a_dash_is_a_line_of_each() -> None:
    # da0-gif: `- [x] Functional Design (2026-03-20) - UOW-01, APPROVED- [ ] NFR Requirements - SKIP`, two lines run
    # together: the ticked Functional Design was read as skipped by the next line's SKIP, and judged by nothing.
    text = "- [x] Functional Design (2026-03-20) - UOW-01, APPROVED- [ ] NFR Requirements - SKIP\n"
    assert [(line.stage, line.mark.value, line.skipped) for line in read_state(text, "aidlc-state.md").stages] == [
        ("functional-design", "done", False), ("nfr-requirements", "pending", True)]


@pytest.mark.parametrize(("line", "stages"), [
    # DocSuri: a box in a sentence, before no stage's name
    ("- [x] Code Generation — Part 1·2 완료. 계획서 18단계 전부 [x]. 코드 `backend/modules/`", ["code-generation"]),
    ("- [x] Code Generation — the plan's line `/ [ ] NFR Design` is kept", ["code-generation"]),  # a code span
    ("- [x] Code Generation — the plan's [x] NFR Design step is done", ["code-generation"]),  # after no separator
    ("- [x] Setup / [x] Code Generation", [None]),  # the first part names no stage: one line, as written
    # wc2026-predictor: a box after each stage's name, then an arrow
    ("- [x] Unit `web`: Functional Design [x] → Code Generation [x] (5 tests pass)", [None]),
    ("- [x] Functional Design - Unit 1 / [ ] Unit 2", ["functional-design"]),  # a box before a unit, not a stage
])
def test_a_box_in_a_sentence_a_code_span_or_before_no_stage_s_name_leaves_the_line_one(
        line: str, stages: list[str | None]) -> None:
    assert [line.stage for line in read_state(line + "\n", "aidlc-state.md").stages] == stages


def test_ticking_the_first_box_of_a_line_of_several_reads_the_line_whole() -> None:
    """The first box of `- [ ] Functional Design / [x] NFR Design / [ ] Code Generation` is Functional Design's only:
    ticking it ticks neither Code Generation nor any other part, as `restate` would have had it."""
    old = "# State\n- [ ] Functional Design / [x] NFR Design / [ ] Code Generation\n- [ ] Build and Test\n"
    new = old.replace("- [ ] Functional", "- [x] Functional")
    assert restate(read_state(old, "aidlc-state.md"), old, new) is None
    marks = [(line.stage, line.mark.value) for line in read_state(new, "aidlc-state.md").stages]
    assert marks == [("functional-design", "done"), ("nfr-design", "done"), ("code-generation", "pending"),
                     ("build-and-test", "pending")]


def test_a_unit_named_only_after_the_stage_is_the_headings_unit_when_it_has_one() -> None:
    """soneda-yuya/ontology-agent writes `NFR Requirements (approved; ... inherits U1/shared)` under `**U2
    Permission**`: unit 1 was read, its approval asked for and U2's left unjudged (3 false AIDLC-DOCS-028 of 127
    checkouts; rumoag's `... de Unidad 5` under Unidad 6, DocSuri, cherry-testtool's `../lib/common` too). A unit
    named with the stage is the line's own; one named after it stands where no heading or parent names one."""
    text = ("# State\n\n**U2 Permission**\n- [x] NFR Requirements (approved; inherits U1/shared)\n"
            "- [x] NFR Design (approved; inherits U1/U3/shared)\n"
            "- [x] U3 Code Generation (shared with U1)\n"
            "- [x] Functional Design - Unit 1 Backend + Unit 2 Frontend\n\n"
            "## Construction\n- [x] Code Generation (COMPLETED - Unit 4)\n")
    assert [(line.line, line.stage, line.unit) for line in read_state(text, "aidlc-state.md").stages] == [
        (4, "nfr-requirements", "2"), (5, "nfr-design", "2"), (6, "code-generation", "3"),
        (7, "functional-design", "1"), (7, "functional-design", "2"), (10, "code-generation", "4")]
