"""`canonical_event` against its plain definition: a line holds an event in canonical form exactly when
`parse_event` reads an event from it and the line is byte for byte the canonical JSON of what `json` reads, and
then it is the event `parse_event` reads. The lines are events as aidlc writes them, changed as a forger or a
careless editor would. `canonical_events`, which reads lines a block at a time, gives each line what
`canonical_event` gives it."""

from __future__ import annotations

import json
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from aidlc.events import canonical as canonical_module
from aidlc.events.canonical import canonical, canonical_event, canonical_events, parse_event
from aidlc.model.events import Event
from tests import forge

PROPERTY = settings(max_examples=150, deadline=None)

LINES = forge.chain([forge.event(1), forge.event(2, commit="a" * 40),
                     forge.decision(3, "intent:001-a", "requirements", reason="é \"quoted\" \\ tab\t"),
                     forge.event(4, data={"f": 1.5e-05, "big": 10**30, "list": [None, True, {"z": 1, "a": 2}]})])

# What a hand can do to a line: each edit keeps it JSON-looking, and most keep it one event to every parser.
EDITS = {
    "none": lambda line: line,
    "key twice": lambda line: line.replace(b'"seq":', b'"seq":99,"seq":', 1),
    "space": lambda line: line.replace(b'","', b'", "', 1),
    "reordered": lambda line: b'{"v":1,' + line[1:].replace(b',"v":1}', b"}"),
    "unsorted inside": lambda line: line.replace(b'{"kind":"ci","name":"ci"}', b'{"name":"ci","kind":"ci"}'),
    "escaped slash": lambda line: line.replace(b'"evt_', b'"evt\\u005f', 1),
    "unicode escape": lambda line: line.replace("é".encode(), b"\\u00e9"),
    "lone surrogate": lambda line: line.replace(b'"ci"}', b'"ci\\ud800"}', 1),
    "not UTF-8": lambda line: line.replace(b'"ci"', b'"c\xffi"', 1),
    "BOM": lambda line: b"\xef\xbb\xbf" + line,
    "CRLF": lambda line: line.replace(b"\n", b"\r\n"),
    "float written long": lambda line: line.replace(b"1.5e-05", b"0.000015"),
    "NaN": lambda line: line.replace(b"1.5e-05", b"NaN"),
    "unknown field": lambda line: line.replace(b'"v":1}', b'"v":1,"zz":0}'),
    "seq as text": lambda line: line.replace(b'"seq":', b'"seq":"', 1).replace(b',"subject"', b'","subject"', 1),
    "no newline": lambda line: line.removesuffix(b"\n"),
    "array": lambda line: b"[" + line.removesuffix(b"\n") + b"]\n",
}


def plainly(line: bytes) -> bool:
    try:
        return parse_event(line) is not None and canonical(json.loads(line)) == line.removesuffix(b"\n")
    except (ValueError, RecursionError):
        return False


@PROPERTY
@given(st.sampled_from(LINES), st.lists(st.sampled_from(sorted(EDITS)), max_size=3))
def test_canonical_event_is_its_plain_definition(line: bytes, edits: list[str]) -> None:
    for edit in edits:
        line = EDITS[edit](line)

    found = canonical_event(line)

    assert (found is not None) == plainly(line)
    if found is not None:
        assert found == parse_event(line)


def test_the_lines_aidlc_writes_are_canonical_events_and_an_edit_is_not() -> None:
    assert all(canonical_event(line) is not None for line in LINES)
    edited = [EDITS[name](line) for line in LINES for name in ("key twice", "space", "reordered", "BOM")]
    assert [canonical_event(line) for line in edited] == [None] * len(edited)


@PROPERTY
@given(st.lists(st.tuples(st.sampled_from(LINES), st.lists(st.sampled_from(sorted(EDITS)), max_size=2)),
                min_size=1, max_size=12), st.integers(1, 5))
def test_canonical_events_gives_each_line_what_canonical_event_gives_it(
        edited: list[tuple[bytes, list[str]]], block: int) -> None:
    lines = []
    for line, edits in edited:
        for edit in edits:
            line = EDITS[edit](line)
        lines.append(line)

    with mock.patch.object(canonical_module, "BLOCK_LINES", block):
        found = list(canonical_events(lines))

    assert found == [(line, canonical_event(line)) for line in lines]


def test_two_lines_that_are_two_events_only_when_joined_are_none() -> None:
    first = forge.chain([forge.event(1)])
    pair = forge.split_pair(forge.event(2), forge.event(3), json.loads(first[0])["hash"], 1)
    joined = b"[" + b",".join(line.removesuffix(b"\n") for line in pair) + b"]"
    assert canonical(json.loads(joined)) == joined  # the trap: one JSON array of a block reads two events
    assert [Event.model_validate(value).seq for value in json.loads(joined)] == [2, 3]

    found = [event is None for _, event in canonical_events([*first, *pair, *LINES[1:]])]

    assert found == [False, True, True, False, False, False]
