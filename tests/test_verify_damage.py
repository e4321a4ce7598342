"""The verifier's whole result on ledgers damaged in every way this file knows (edited bytes, non-canonical lines
whose hash recomputes, reused ids, seq gaps, forks, removed, swapped and copied lines, times going back or into
the future or in other forms, bad and unknown commits, torn and unterminated tails, CRLF, escapes in names, keys
and reasons, long lines): the same whether a line is read by the verifier's one regular expression or the way a
line it does not match is read (every line, when the expression is one that matches nothing).
"""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from aidlc.events.canonical import canonical
from aidlc.events.verify import MAX_LINE, EventChecks, Fields, Verifier, line_hash, split_lines
from aidlc.model.events import GENESIS
from tests import forge

DAMAGE = settings(max_examples=150, deadline=None)
NOW = forge.T0 + timedelta(days=400)  # invalid dates (2026-02-30) sort between the events and now
_NOTHING = re.compile(rb"(?!)")

_TEXTS = ["plain", 'a "quoted" word', "back\\slash", "é ü 日本", "tab\there", '"},"commit":"' + "b" * 40,
          '"seq":5,"ts":"2026-01-05T09:00:00.000000Z"', "\u2028", '","prev":"' + "0" * 64 + '",']
_COMMITS = ["a" * 40, "a" * 40, "b" * 40, "c" * 64, "d" * 40, "xyz", "A" * 40, 'a"b', "\\", ""]
_OTHER_TS = ["2026-01-05T09:00:00Z", "2026-01-05T10:00:00+01:00", "2026-01-05t09:00:00.000000z",
             "2026-02-30T09:00:00.000000Z", "2026-13-01T09:00:00.000000Z", "2026-01-05T24:00:00.000000Z",
             "2026-01-05T09:00:00.0000000Z", "yesterday", "", 20260105, None, "2026-01-05T09:00:00.000000Z\\n",
             '2026"01-0T09:00:00.000000Z', "2026\\01-0T09:00:00.000000Z", "2026-01-05T09:00:00.000000Z\u00e9"]


def _ts(rng: random.Random, n: int) -> Any:
    """Event n's time: mostly a minute after the one before, in the form aidlc writes; else a little or a lot
    earlier, in the future, or in another form (some not RFC 3339, some no time at all)."""
    when = forge.T0 + timedelta(minutes=n, microseconds=rng.randrange(1_000_000))
    roll = rng.random()
    if roll < 0.06:
        when -= timedelta(minutes=rng.choice([2, 3, 30, 600]))  # within the clock skew, and beyond it
    elif roll < 0.1:
        when = NOW + timedelta(minutes=rng.choice([1, 10, 60 * 24]))
    elif roll < 0.16:
        return rng.choice(_OTHER_TS)
    return forge.stamp(when)


def _event(rng: random.Random, n: int, ids: list[str]) -> dict[str, Any]:
    def some(values: list[Any], chance: float = 0.3) -> Any:
        return rng.choice(values) if rng.random() < chance else None

    event = forge.event(n, ts=_ts(rng, n))
    name = some(_TEXTS)
    if name is not None:
        event["actor"] = {"kind": "human", "name": name} | ({"email": rng.choice(_TEXTS)} if rng.random() < .5 else {})
    event["id"] = rng.choice(ids) if ids and rng.random() < 0.06 else rng.choice([f"evt_{n:012x}"] * 9 + ['e"v\\t'])
    extra = {"key": some([*_TEXTS, "run_1:pytest"]), "reason": some(_TEXTS), "run": some(["run_1", 'r"1', "r\\1"]),
             "stage": some(["plan", 'p"lan']), "subject": some([{"kind": "bolt", "id": "001-api"},
                                                                 {"kind": "bolt", "id": 'a"b'}]),
             "commit": some(_COMMITS, 0.5), "signature": some([{"format": "ssh", "namespace": "aidlc", "sig": "AA=="}],
                                                              0.1),
             "data": some([{"n": n}, {"ts": "2020-01-01T00:00:00Z"}, {"commit": "b" * 40}, {"text": rng.choice(_TEXTS)},
                           {"big": "x" * rng.choice([3000, 70000])}]),
             "w": some([{"ts": "2099-01-01T00:00:00.000000Z"}, "late"], 0.04),  # a member after `v`
             "type": some([7, 'ty"pe'], 0.03), "v": some([2, "1"], 0.03)}
    return {**event, **{key: value for key, value in extra.items() if value is not None}}


def _line(rng: random.Random, event: dict[str, Any], seq: int, prev: str) -> tuple[bytes, str]:
    """The event as a line after `prev`, and its hash: mostly canonical; sometimes in another layout (keys in
    another order, non-ASCII escaped, seq as text) with its hash recomputed the way the verifier recomputes it."""
    linked = {**event, "seq": seq if rng.random() > 0.02 else str(seq), "prev": prev, "hash": "0" * 64}
    text = canonical(linked)
    if rng.random() < 0.08:
        keys = sorted(linked, reverse=rng.random() < 0.5, key=lambda key: (key == "hash", key))
        keys.remove("hash")
        keys.insert(rng.randrange(len(keys)), "hash")
        text = json.dumps({key: linked[key] for key in keys}, separators=(",", ":"),
                          ensure_ascii=rng.random() < 0.5).encode()
    start = text.rfind(b'"hash":"') + 8
    digest = line_hash(text + b"\n")
    return text[:start] + digest + text[start + 64:] + b"\n", digest.decode()


def damaged_ledger(rng: random.Random) -> list[bytes]:
    """A ledger of up to 40 events, chained mostly onto the line above, sometimes onto an earlier line (a fork),
    the genesis or with a seq gap; then damaged as a file is."""
    lines: list[bytes] = []
    chain: list[tuple[str, int]] = []  # (hash, seq) of each line
    ids: list[str] = []
    for n in range(1, rng.randrange(1, 41)):
        event = _event(rng, n, ids)
        ids.append(event["id"])
        prev, seq = chain[-1] if chain else (GENESIS, 0)
        if chain and rng.random() < 0.05:
            prev, seq = rng.choice([*chain, (GENESIS, 0)])
        line, digest = _line(rng, event, seq + 1 + (rng.random() < 0.04) * rng.randrange(1, 3), prev)
        lines.append(line)
        chain.append((digest, seq + 1))
    for _ in range(rng.choice([0, 0, 1, 2, 4])):
        _damage(rng, lines)
    return split_lines(b"".join(lines))


def _damage(rng: random.Random, lines: list[bytes]) -> None:
    if not lines:
        return
    at = rng.randrange(len(lines))
    kind = rng.choice(["byte", "byte", "mutate", "crlf", "crlf all", "unterminated", "torn", "garbage", "spaces"])
    if kind == "byte":
        edited = bytearray(lines[at])
        edited[rng.randrange(len(edited))] = rng.choice([0x22, 0x5C, 0x30, 0x61, 0x7B, 0x2C, 0x0A, 0xFF])
        lines[at] = bytes(edited)
    elif kind == "mutate":
        forge.mutate(lines, rng.choice(["drop", "swap", "copy", "cut", "splice"]), rng)
    elif kind == "crlf":
        lines[at] = lines[at][:-1] + b"\r\n"
    elif kind == "crlf all":
        lines[:] = [line[:-1] + b"\r\n" if line.endswith(b"\n") else line for line in lines]
    elif kind == "unterminated":
        lines[-1] = lines[-1].rstrip(b"\n")
    elif kind == "torn":
        lines[-1] = lines[-1][: rng.randrange(1, len(lines[-1]))]
    elif kind == "garbage":
        lines.insert(at, rng.choice([b"\n", b"{}\n", b"not json\n", b'{"hash":"' + b"0" * 64 + b'"}\n']))
    else:
        lines[at] = lines[at].replace(b'":', b'": ', 1)


def result(lines: list[bytes], stop: bool, checks: bool, fast: bool) -> tuple[Any, ...]:
    """Everything a verification gives: the problems (line, seq, kind, message), the lines read, the events the
    chain joined (as `on_event` sees them), and the sizes and tip a torn tail and the next append rely on."""
    joined: list[tuple[int, int, bytes, Fields]] = []
    lookup = _lookup(lines)
    verifier = Verifier(EventChecks(NOW, lookup) if checks else None,
                        lambda *seen: joined.append(seen), stop)
    if not fast:
        verifier.fast_line = _NOTHING
    verification = verifier.run(lambda: iter(lines))
    return (verification.events, [(p.line, p.seq, p.kind, p.message) for p in verification.problems], joined,
            verifier.offset, verifier.good_size, verifier.tip, verifier.unterminated)


def _lookup(lines: list[bytes]) -> Any:
    """A repository that lacks every commit starting with b (a shallow clone when the ledger has an odd number
    of lines), or one that cannot tell (no git) for one ledger in seven."""
    if len(lines) % 7 == 6:
        return lambda commits: None
    return lambda commits: ({commit for commit in commits if commit.startswith("b")}, len(lines) % 2 == 1)


@DAMAGE
@given(st.randoms(use_true_random=False))
def test_a_damaged_ledger_verifies_the_same_whichever_way_its_lines_are_read(rng: random.Random) -> None:
    lines = damaged_ledger(rng)
    for stop in (True, False):
        for checks in (True, False):
            assert result(lines, stop, checks, fast=True) == result(lines, stop, checks, fast=False)


def test_most_lines_of_a_clean_ledger_are_read_by_the_expression() -> None:
    """Else the test above compares the slower way with itself."""
    lines = forge.chain([forge.event(n, key=f"run_1:{n}", reason="ok", run="run_1", stage="plan", commit="a" * 40,
                                     subject={"kind": "bolt", "id": "001-api"}) for n in range(1, 50)])
    assert sum(Verifier().fast_line.match(line, line.rfind(b'"hash":"')) is not None for line in lines) == 49


def test_a_line_longer_than_an_event_is_reported_by_its_size_either_way() -> None:
    lines = forge.chain([forge.event(1), forge.event(2, data={"big": "x" * MAX_LINE}), forge.event(3)])
    assert result(lines, False, True, fast=True) == result(lines, False, True, fast=False)
    assert result(lines, False, True, fast=True)[1][0][2] == "invalid"


def test_the_same_result_for_many_seeds_and_every_kind_of_damage() -> None:
    """A fixed sample beyond hypothesis's examples: each kind of damage above, many times over."""
    for seed in range(300):
        lines = damaged_ledger(random.Random(seed))
        assert result(lines, False, True, fast=True) == result(lines, False, True, fast=False), seed
