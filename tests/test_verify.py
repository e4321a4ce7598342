"""The verifier's parts, each against a plainer equivalent: the id filter never forgets an id and a filter that
answers "maybe" to everything finds exactly what the real one finds; lines are read exactly as the ledger
splits them, a long line reported by its size without being held; a clean chain is read once; the commit read
from a line's bytes is the one JSON reads.
"""

from __future__ import annotations

import io
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from aidlc.events.canonical import line_of
from aidlc.events.verify import MAX_LINE, EventChecks, Verifier, read_lines, split_lines, verify_lines
from aidlc.events.verify.id_filter import RUN_LIMIT, IdFilter
from aidlc.events.verify.lines import LongLine, commit_of
from tests import forge

PROPERTY = settings(max_examples=80, deadline=None)


@PROPERTY
@given(st.lists(st.binary(min_size=1, max_size=40), max_size=300))
def test_the_id_filter_never_forgets_an_id(ids: list[bytes]) -> None:
    tiny, full = IdFilter(slot_bits=6), IdFilter()
    added: set[bytes] = set()
    for raw in ids:
        for ids_filter in (tiny, full):
            assert ids_filter.seen_before(raw) or raw not in added  # "not seen" is certain
        added.add(raw)
        assert tiny.seen_before(raw) and full.seen_before(raw)


def test_ids_whose_slots_crowd_together_cost_a_bounded_run_each() -> None:
    """A ledger's author who knows the hash (PYTHONHASHSEED set) can pick ids that all start at one slot: the table
    takes RUN_LIMIT of them, the rest go to the Bloom filter, so none is read past a run of RUN_LIMIT slots; and
    every one of them is still remembered."""
    crowded = IdFilter(slot_bits=10)
    ids = [raw for raw in (f"evt_{n:012x}".encode() for n in range(400_000)) if hash(raw) & crowded.mask == 0][:200]
    assert len(ids) == 200
    for raw in ids:
        crowded.seen_before(raw)
    assert sum(1 for mark in crowded.marks if mark) == RUN_LIMIT
    assert all(crowded.seen_before(raw) for raw in ids)


def _ledger(rng: random.Random) -> list[bytes]:
    """A short ledger, then mutated as damage and forgers do: lines dropped, swapped, copied, cut, ids reused."""
    events = [forge.event(n, id=f"evt_{rng.choice([n, n, 1, 2]):012x}", commit=rng.choice([None, "a" * 40, "b" * 40]))
              for n in range(1, 12)]
    lines = forge.chain(events)
    for _ in range(rng.randrange(4)):
        forge.mutate(lines, rng.choice(["drop", "swap", "copy", "cut"]), rng)
    return lines


def _findings(lines: list[bytes], stop: bool, slot_bits: int | None) -> tuple[int, list[tuple]]:
    checks = EventChecks(commits=lambda commits: ({c for c in commits if c.startswith("b")}, False))
    verifier = Verifier(checks, stop_at_first=stop)
    if slot_bits is not None:
        verifier.ids = IdFilter(slot_bits)
    result = verifier.run(lambda: iter(lines))
    return result.events, [(p.line, p.seq, p.kind, p.message) for p in result.problems]


@PROPERTY
@given(st.randoms(use_true_random=False), st.booleans())
def test_a_filter_that_always_says_maybe_finds_exactly_what_the_real_one_finds(rng: random.Random,
                                                                              stop: bool) -> None:
    """Every id of the tiny filter is a candidate the second pass must confirm or drop: the findings (kind, line,
    message) are the same as with the real filter, whose candidates are rare."""
    lines = _ledger(rng)
    assert _findings(lines, stop, slot_bits=1) == _findings(lines, stop, slot_bits=None)


def test_a_reused_id_is_found_whichever_filter_reads_it() -> None:
    lines = forge.chain([forge.event(1), forge.event(2), forge.event(3, id=forge.event(1)["id"])])
    for slot_bits in (1, None):
        _, problems = _findings(lines, False, slot_bits)
        assert [(line, kind) for line, _, kind, _ in problems] == [(3, "duplicate_id")]


def test_a_clean_chain_is_read_once() -> None:
    lines = forge.chain([forge.event(n) for n in range(1, 2001)])
    opened: list[int] = []

    def open_lines() -> list[bytes]:
        opened.append(1)
        return lines

    assert verify_lines(open_lines).ok and len(opened) == 1


@PROPERTY
@given(st.lists(st.sampled_from([b"a", b"\n", b"\r", b"{}", b"\n\n"]), max_size=40), st.integers(0, 60))
def test_lines_are_read_as_the_ledger_splits_them(parts: list[bytes], cut: int) -> None:
    data = b"".join(parts)
    assert list(read_lines(io.BytesIO(data))) == split_lines(data)
    assert list(read_lines(io.BytesIO(data), cut)) == split_lines(data[:cut])


def test_a_long_line_is_read_past_and_reported_by_its_size() -> None:
    huge = b"x" * (3 * MAX_LINE) + b"\n"
    for limit in (None, len(huge) + 3):
        read = list(read_lines(io.BytesIO(huge + b"ok\n"), limit))
        assert isinstance(read[0], LongLine) and read[0].size == len(huge) and len(read[0]) == MAX_LINE + 2
        assert read[1:] == [b"ok\n"]


# The bytes that could mislead a reader of raw bytes: quotes, escapes, braces, the key's own name.
_TEXT = st.lists(st.sampled_from(['"', "\\", "}", ",", ":", "{", "a", "é", '"},"commit":"']), max_size=8).map("".join)


@PROPERTY
@given(name=_TEXT, email=st.none() | _TEXT, commit=st.none() | _TEXT, data_commit=st.none() | _TEXT)
def test_the_commit_read_from_the_bytes_is_the_top_level_one_json_reads(name: str, email: str | None,
                                                                         commit: str | None,
                                                                         data_commit: str | None) -> None:
    actor = {"kind": "human", "name": name} | ({"email": email} if email is not None else {})
    event = {"actor": actor, "data": {"x": {"y": name}} | ({"commit": data_commit} if data_commit else {}),
             "seq": 1, "ts": "2026-01-01T00:00:00.000000Z", "type": "gate.decided", "v": 1}
    if commit is not None:
        event["commit"] = commit
    line = line_of(event)

    found = commit_of(line)

    assert (json.loads(found.join([b'"', b'"'])) if found is not None else None) == commit
