"""Measure how often the ledger verifier's id filter says "maybe seen" of an id it has not seen.

Usage::

    python benchmarks/id_filter.py [--ids 1000000] [--runs 3] [--json]

Each run puts ``--ids`` distinct event ids (the form aidlc writes, a random prefix per run) into a fresh
``IdFilter``, as a verification of a ledger of that many events does. An id is compared with the mark of every
taken slot from its own slot to the free one it lands in; each comparison is a wrong "maybe" by chance 2**-31
(a mark is 31 bits of the id's hash), so the comparisons per verification give the expected wrong "maybe"s per
verification. A wrong "maybe" costs a second pass over the ledger, never a wrong verdict. Any id the filter
called seen is counted too (a wrong "maybe" that happened). Prints the mean comparisons per id, the longest run
an id walked, and one verification in how many that is expected to meet a wrong "maybe".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

from aidlc.events.verify.id_filter import RUN_LIMIT, IdFilter

MARK_CHANCE = 2.0 ** -31


def one_run(ids: int) -> tuple[int, int, int]:
    """(taken slots compared, the longest walk, ids called seen) over `ids` new ids in a fresh filter. Past the
    table's room (3,145,728 ids) later ids go to its Bloom filter, whose wrong "maybe"s are not counted here."""
    table = IdFilter()
    marks, mask = table.marks, table.mask
    prefix = os.urandom(4).hex()
    compared = longest = wrong = 0
    for n in range(ids):
        event_id = f"evt_{prefix}{n:015x}".encode()
        wrong += table.seen_before(event_id)
        value = hash(event_id)
        home, mark = value & mask, value >> 32 & 0xFFFFFFFF | 1
        walked = 0  # taken slots before the one holding its mark (a free one: it went to the Bloom filter)
        while marks[home + walked & mask] not in (mark, 0) and walked < RUN_LIMIT:
            walked += 1
        if marks[home + walked & mask] != mark and table.overflow is None:
            # Every id is in the table while the Bloom filter is unused: the slot and mark here are no longer
            # IdFilter's, and every count below would be wrong.
            raise SystemExit(f"benchmark: id {event_id!r} is not where IdFilter puts it; update one_run")
        compared += walked
        longest = max(longest, walked)
    return compared, longest, wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [one_run(args.ids) for _ in range(args.runs)]
    compared = statistics.mean(r[0] for r in results)
    report = {"ids": args.ids, "runs": args.runs, "compared_per_id": compared / args.ids,
              "longest_walk": max(r[1] for r in results), "wrong_maybes": sum(r[2] for r in results),
              "one_verification_in": 1 / (compared * MARK_CHANCE) if compared else None}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"id filter, {args.ids:,} ids, {args.runs} runs: {report['compared_per_id']:.4f} taken slots compared "
          f"per id (longest walk {report['longest_walk']}); wrong \"maybe\"s seen: {report['wrong_maybes']}")
    if compared:
        print(f"a wrong \"maybe\" expected in one verification of {args.ids:,} events in "
              f"{report['one_verification_in']:,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
