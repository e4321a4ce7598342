"""Words that make an acceptance criterion a matter of opinion rather than pass/fail."""

from __future__ import annotations

import re
from bisect import bisect_right

_OPINION = re.compile(
    r"\b(fast|quickly|easy|easily|user[- ]friendly|intuitive|appropriate(ly)?|properly|as needed|"
    r"etc\.?|and/or|reasonabl[ey]|robust|seamless(ly)?|good|nice|efficient(ly)?)\b",
    re.IGNORECASE,
)

# Inline code quotes data (`the page loads fast` as a test input), not the outcome's own words.
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+\1")

# Cheap substring test first: the regex runs only on the few criteria that may hold an opinion word.
# "reasonabl" needs no search of its own: it holds "eas".
_HINTS = ("fast", "quick", "eas", "friendly", "intuitive", "appropriate", "proper", "needed", "etc",
          "and/or", "robust", "seamless", "good", "nice", "efficient")


def may_hold_opinion(text: str) -> bool:
    """False when `text` certainly holds no opinion word (true does not mean it does)."""
    if not text.isascii():  # the regex ignores case as Unicode does ('ſ' is an s, 'İ' an i): lower() keeps them
        return True
    lowered = text.lower()
    for hint in _HINTS:  # noqa: SIM110 - a plain loop: any() over a generator costs a fifth more here
        if hint in lowered:
            return True
    return False


def opinion_hints(texts: list[str]) -> list[bool]:
    """`may_hold_opinion` of each text, found with one search per hint over the ASCII ones lowered and joined: a
    bank's thousands of checklists cost a fraction of a search each per hint (the joined text is long enough for
    CPython's faster search; no hint holds a line break, so none is found across two texts)."""
    hinted = [not text.isascii() for text in texts]
    plain = [n for n, text in enumerate(texts) if not hinted[n]]
    starts = []
    at = 0
    for n in plain:
        starts.append(at)
        at += len(texts[n]) + 1
    lowered = "\n".join([texts[n] for n in plain]).lower()
    for hint in _HINTS:
        found = lowered.find(hint)
        while found != -1:
            which = bisect_right(starts, found) - 1
            hinted[plain[which]] = True
            if which + 1 == len(starts):
                break
            found = lowered.find(hint, starts[which + 1])  # the next text: this one is hinted already
    return hinted


def opinion_word(text: str) -> re.Match[str] | None:
    """The first opinion word of `text`, outside inline code."""
    if not may_hold_opinion(text):
        return None
    return _OPINION.search(_CODE_SPAN.sub(" ", text) if "`" in text else text)
