"""Property-based tests of the ledger reader and verifier: whatever bytes a ledger holds (random bytes, random
JSON structures, mutated valid lines), reading and verifying it never raises, and any byte changed in a
valid ledger is reported. The only exception a reader raises is LedgerError, for a file it cannot read.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aidlc.events import checkpoint
from aidlc.events.canonical import event_of, line_of, parse_event
from aidlc.events.ledger import Ledger, LedgerError
from aidlc.events.merge import merge_ledgers
from aidlc.events.state import scan
from aidlc.events.verify import EventChecks, verify_lines
from aidlc.events.view import view_of_bytes
from aidlc.model.events import Actor, ActorKind, Event, EventType
from tests import forge

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
VALID = b"".join(forge.chain([forge.event(1), forge.decision(2, "bolt:001-api", "plan"),
                              forge.event(3, key="run_1:pytest", commit="a" * 40),
                              forge.decision(4, "bolt:001-api", "plan", "reject")]))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
        ["seq", "prev", "hash", "id", "ts", "type", "actor", "subject", "stage", "decision", "data", "key", "commit",
         "supersedes", "v", "x"]), inner, max_size=6),
    max_leaves=25)


def same_reading(line: bytes) -> None:
    """`parse_event` (pydantic's JSON parser first) accepts exactly the lines Python's parser and the model accept,
    and reads them into the same event; `event_of` (the scan's raw form) takes only those in canonical form."""
    try:
        plain = Event.model_validate(json.loads(line))
    except (ValueError, TypeError, RecursionError):
        plain = None
    typed, raw = parse_event(line), event_of(line)
    assert (plain is None) == (typed is None), line
    if typed is not None:
        assert typed == plain
    if raw is not None:
        assert typed == Event.model_validate(raw) and line_of(raw) == line + b"\n" * (not line.endswith(b"\n"))


def read_everything(data: bytes) -> None:
    """Every way the ledger's bytes are read: none may raise."""
    lines = data.split(b"\n")
    checks = EventChecks(commits=lambda commits: (set(commits[::2]), len(commits) % 2 == 0))
    for stop in (True, False):
        result = verify_lines(lambda: iter([line + b"\n" for line in lines[:-1]] + [lines[-1]] * bool(lines[-1])),
                              stop_at_first=stop, checks=checks)
        assert result.events >= 0 and (result.ok or result.first_error is not None)
    view = view_of_bytes(data)
    history = view.history
    for key in list(history.gates()):
        history.latest(*key)
        history.conflict(*key)
        history.last_of(key[0], key[1])
    for line in lines:
        same_reading(line)
    merge_ledgers(data, VALID)
    merge_ledgers(VALID, data)


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise(data: bytes) -> None:
    read_everything(data)
    read_everything(VALID + data)


@FUZZ
@given(st.lists(json_values, max_size=8))
def test_random_json_structures_never_raise(values: list) -> None:
    read_everything(b"".join(json.dumps(value).encode() + b"\n" for value in values))


@FUZZ
@given(st.lists(st.dictionaries(st.sampled_from(["ts", "type", "actor", "subject", "stage", "decision", "data",
                                                 "commit", "key", "fingerprint"]), json_values, max_size=5),
                min_size=1, max_size=6))
def test_hashed_events_of_any_shape_never_raise(fields: list[dict]) -> None:
    """Correctly chained and hashed lines whose fields are anything at all: the hash proves nothing about them."""
    read_everything(b"".join(forge.chain([forge.event(n + 1, **f) for n, f in enumerate(fields)])))


@FUZZ
@given(st.integers(0, len(VALID) - 1), st.integers(0, 255))
def test_any_byte_changed_in_a_valid_ledger_is_reported(at: int, value: int) -> None:
    changed = bytearray(VALID)
    if changed[at] == value:
        return
    changed[at] = value
    read_everything(bytes(changed))
    lines = bytes(changed).split(b"\n")
    result = verify_lines(lambda: iter([line + b"\n" for line in lines[:-1]] + [lines[-1]] * bool(lines[-1])))
    assert not result.ok


@FUZZ
@given(st.lists(st.sampled_from(["drop", "swap", "copy", "cut", "splice"]), min_size=1, max_size=3),
       st.randoms(use_true_random=False))
def test_mutated_valid_lines_never_raise(mutations: list[str], rng) -> None:  # type: ignore[no-untyped-def]
    lines = VALID.splitlines(keepends=True)
    for mutation in mutations:
        forge.mutate(lines, mutation, rng)
    read_everything(b"".join(lines))


@FUZZ
@given(st.binary(max_size=600))
def test_a_ledger_file_of_any_bytes_reads_and_appends_or_refuses(tmp_path_factory, data: bytes) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("fuzz")
    path = root / "events.jsonl"
    path.write_bytes(VALID + data)
    ledger = Ledger(path, root)
    state = ledger.state()
    list(ledger.events())
    scan(ledger.lines)
    try:
        ledger.append(EventType.check_recorded, Actor(kind=ActorKind.ci, name="ci"), key="k")
    except LedgerError:
        assert not state.ok and not state.torn  # refused only a damaged ledger
    else:
        assert verify_lines(Ledger(path, root).lines).ok


@FUZZ
@given(json_values)
def test_a_checkpoint_of_any_shape_is_ignored_or_used_never_raises(tmp_path_factory, value) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("checkpoint")
    path = root / "events.jsonl"
    path.write_bytes(VALID)
    ledger = Ledger(path, root)
    saved = root / checkpoint.CHECKPOINT
    ledger.state(keep=True)  # writes a genuine checkpoint
    _, header, _, keys = saved.read_bytes().split(b"\n", 3)
    document = json.loads(header)
    document["state"] = value if not isinstance(value, dict) else {**document["state"], **value}
    rest = b"\n".join([json.dumps(document).encode(), json.dumps(value).encode(), keys])
    saved.write_bytes(hashlib.sha256(rest).hexdigest().encode() + b"\n" + rest)  # passes its digest: parsed
    fd = os.open(path, os.O_RDONLY)
    try:
        checkpoint.load(root, ledger.rel, fd)
    finally:
        os.close(fd)
    Path(saved).unlink()


def test_the_lines_only_pythons_json_parser_reads_are_read_as_before() -> None:
    """A lone surrogate escape, a BOM, NaN, a number as text, bytes that are not UTF-8: pydantic's parser and
    Python's disagree on some of these; the event read is the same as before either way."""
    line = VALID.split(b"\n")[0]
    for variant in (line, line.replace(b'"ts":"', b'"ts":"\\ud800'), b"\xef\xbb\xbf" + line,
                    line.replace(b'"seq":1', b'"seq":"1"'), line.replace(b'"seq":1', b'"seq":NaN'),
                    line.replace(b'"ts":"', b'"ts":"\xff'), b"  " + line + b"  ", line[:-1]):
        same_reading(variant)
    assert parse_event(line.replace(b'"ts":"', b'"ts":"\\ud800')) is not None
    assert parse_event(line.replace(b'"ts":"', b'"ts":"\xff')) is None
