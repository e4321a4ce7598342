from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from aidlc.bank.wording import _OPINION, may_hold_opinion, opinion_hints, opinion_word

WORDS = ("fast", "quickly", "easy", "easily", "user-friendly", "user friendly", "intuitive", "appropriate",
         "appropriately", "properly", "as needed", "etc", "and/or", "reasonable", "reasonably", "robust", "seamless",
         "seamlessly", "good", "nice", "efficient", "efficiently")
# Each letter as it may be written and still be matched ignoring case: either case, and the characters Unicode
# case-folds onto it (a long s is an s, a dotted capital I an i, the Kelvin sign a k).
SPELLINGS = {"s": "sSſ", "i": "iIİ", "k": "kKK"}


@st.composite
def spelled(draw: st.DrawFn) -> str:
    word = draw(st.sampled_from(WORDS))
    letters = [draw(st.sampled_from(SPELLINGS.get(c, c + c.upper()))) for c in word]
    around = st.sampled_from(["", " ", "The page is ", " to use.", "(", ")"])
    return draw(around) + "".join(letters) + draw(around)


@given(spelled())
def test_the_cheap_test_never_rules_out_what_the_rule_finds(text: str) -> None:
    if _OPINION.search(text):
        assert may_hold_opinion(text), text


def test_an_opinion_word_spelled_with_a_letter_unicode_folds_is_still_found() -> None:
    for text in ("The page is eaſy to use", "a nİce layout", "robuſt retries", "EASY"):
        assert opinion_word(text) is not None, text


TEXT_PIECES = ("fast", "eas", "y", "and/", "or", "etc", "Good", "ni", "ce", "\n", " ", "- [x] ", "**Given** a file",
               "ſ", "É", "", "robust", "APPROPRIATE", "seam", "less")


@given(st.lists(st.lists(st.sampled_from(TEXT_PIECES), max_size=6).map("".join), max_size=12))
def test_the_batched_hints_are_each_texts_own(texts: list[str]) -> None:
    """The hints found for many texts at once are each text's may_hold_opinion: none found across two texts."""
    assert opinion_hints(texts) == [may_hold_opinion(text) for text in texts]
