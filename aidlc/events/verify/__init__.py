"""Verifying the ledger: every hash recomputes, every `prev` names an earlier event, nothing was
removed, reordered, duplicated or edited, (against a git ref) nothing old is missing, and every
event is plausible beyond its hash: its `ts` is an RFC 3339 time with a zone, not before the event
it follows nor in the future by more than CLOCK_SKEW, and its `commit` exists in the repository.

`seq` is one more than the seq of the event named by `prev`: this detects a removed event
and stays true when two branches both append and their lines are merged (the two forks
may then share a seq, which is why seq is checked along the chain, not for uniqueness).

Speed: a canonical line has its chain fields at known places (`lines`), so the fast path reads them (and
the ts, in the form aidlc writes) with one regular expression from the last `"hash":"` to the end of the line, or
failing that with byte searches, and recomputes the hash over the raw bytes, without parsing the line as JSON
(parsing costs more than all the checks together). A line the fast path cannot read goes to the slow
path, which parses it and says what is wrong with it. What the fast path does not prove is that the
rest of a line whose hash recomputes is well-formed JSON: random damage cannot keep the hash, and a
forger can write a valid line as easily as a broken one; readers (`Ledger.events`) parse every line
and skip what is not JSON.

Memory: one pass in constant memory (`verifier`), a second only when the first leaves questions
(`second_pass`). Most lines name the line just above them (`prev` is the hash of the previous event),
which the first pass checks with what it holds. A line that names another (a fork, after a merge) is
noted with its `prev`; so is a line whose id a fixed-size filter (`id_filter`) may have seen before.
The second pass looks those up: the line each fork names, and whether a noted id really stood
earlier. A duplicated line always starts with such a fork (the copy names the same `prev` as the
original, which is not the line above it, or the first of a copied block of lines is), so a copy is
found there. What the first pass keeps is bounded: the filter, the forks and candidates (few in any
real ledger), the first problem (or, when asked for all, every problem) and the commits of one batch
(`event_checks`). `--against` holds the older version's hashes, one per event it had.

Lines longer than MAX_LINE are not events (no event holds that much): they are reported without
being read into memory whole, so a file with a gigabyte on one line cannot exhaust it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from aidlc.events.verify.event_checks import CLOCK_SKEW, EventChecks, instant_of
from aidlc.events.verify.lines import MAX_LINE, Fields, key_of, line_hash, raw_key, read_lines, split_lines, ts_of
from aidlc.events.verify.problems import CHAIN_KINDS, TIME_KINDS, Problem, ProblemKind, Verification
from aidlc.events.verify.verifier import OnEvent, Verifier

__all__ = ["CHAIN_KINDS", "CLOCK_SKEW", "MAX_LINE", "TIME_KINDS", "EventChecks", "Fields", "OnEvent", "Problem",
           "ProblemKind", "Verification", "Verifier", "instant_of", "key_of", "line_hash", "raw_key", "read_lines",
           "split_lines", "ts_of", "verify_lines"]


def verify_lines(open_lines: Callable[[], Iterable[bytes]], against: Iterable[bytes] | None = None,
                 stop_at_first: bool = False, checks: EventChecks | None = None,
                 on_event: OnEvent | None = None) -> Verification:
    """Verify the lines `open_lines` yields (called once, or twice when the first pass leaves questions),
    every complete line of `against` (an older version) expected among them."""
    verifier = Verifier(checks, on_event, stop_at_first)
    if against is not None:
        verifier.noted.expect(against)
    return verifier.run(open_lines)
