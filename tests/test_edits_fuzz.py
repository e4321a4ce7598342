"""Whatever a model answers, reading it gives edit blocks or an EditFormatError, never another
exception; and matching gives the one replacement or a MatchProblem."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aidlc.bolt.edit_format import EditBlock, EditFormatError, parse_edit_blocks
from aidlc.bolt.edit_match import MatchProblem, replace_once

FUZZ = settings(deadline=None, max_examples=300, database=None, suppress_health_check=[HealthCheck.too_slow])

# Lines built from the pieces the parser looks for, so that examples hit its branches, not only prose.
PIECES = ["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<<<<< DELETE", "```", "```python", "````", "~~~",
          "src/app.py", "`src/a b.py`", "**x.py**:", "# File: ", "Makefile", "", " ", "\t", "\r", "...", "..", "/",
          "\u2028", "\x00", "def f():", "    return 1"]
LINE = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=12)), max_size=4).map("".join)
ANSWER = st.lists(LINE, max_size=30).map("\n".join)
CODE_LINE = st.text(alphabet=st.sampled_from("ab \t#.:()\r"), max_size=8)
PLAIN_LINE = st.text(alphabet=st.sampled_from("ab \t#.:()"), max_size=8)  # a line's last '\r' is its ending


@FUZZ
@given(answer=ANSWER, whole_file=st.booleans())
def test_any_answer_reads_as_blocks_or_a_format_error(answer: str, whole_file: bool) -> None:
    read_or_refused(answer, whole_file)


@FUZZ
@given(answer=st.text(max_size=300), whole_file=st.booleans())
def test_any_text_reads_as_blocks_or_a_format_error(answer: str, whole_file: bool) -> None:
    read_or_refused(answer, whole_file)


def read_or_refused(answer: str, whole_file: bool) -> None:
    try:
        blocks = parse_edit_blocks(answer, whole_file)
    except EditFormatError as exc:
        assert exc.problem and exc.message.startswith(exc.problem)
        return
    assert blocks and all(isinstance(block, EditBlock) and block.path.strip() for block in blocks)


@FUZZ
@given(lines=st.lists(CODE_LINE, max_size=12), search=st.lists(CODE_LINE, min_size=1, max_size=3),
       replace=st.lists(CODE_LINE, max_size=3), newline=st.sampled_from(["\n", "\r\n"]))
def test_matching_replaces_one_place_or_says_why_not(lines: list[str], search: list[str], replace: list[str],
                                                     newline: str) -> None:
    text = "".join(line + newline for line in lines)
    try:
        result = replace_once(text, "".join(f"{line}\n" for line in search), "".join(f"{line}\n" for line in replace))
    except MatchProblem as exc:
        assert str(exc).startswith("SEARCH matches")
        return
    assert isinstance(result, str)


@FUZZ
@given(before=st.lists(PLAIN_LINE, max_size=5), after=st.lists(PLAIN_LINE, max_size=5),
       replace=st.lists(PLAIN_LINE, max_size=3))
def test_a_unique_exact_match_is_replaced_and_nothing_else_changes(before: list[str], after: list[str],
                                                                    replace: list[str]) -> None:
    marker = "UNIQUE MARKER LINE"
    text = "".join(f"{line}\n" for line in [*before, marker, *after])
    new = "".join(f"{line}\n" for line in replace)
    assert replace_once(text, f"{marker}\n", new) == "".join(f"{line}\n" for line in [*before, *replace, *after])
