"""Measure how reading an aidlc-docs audit log grows with the size of an entry: it must grow in proportion.

Usage::

    python benchmarks/audit_growth.py [--lines 25000] [--runs 5] [--json]

An audit log is read entry by entry, each field of an entry being its first line and the lines that continue it.
Real logs paste whole test runs or documents into one entry (a single ``**AI Response**:`` of tens of thousands of
lines), and a pull request can write any audit.md: `aidlc validate` reads the work tree's and `aidlc ci` every
version in the history. This reads (``aidlc.aidlc_docs.audit.read_audit``, in-process) three generated logs:

* one entry whose field continues for ``--lines`` lines, and the same with four times the lines;
* ``--lines`` entries of ten lines each, the same bytes spread over many entries: the baseline of the run.

It then judges the two one-entry logs by every aidlc-docs rule (``aidlc.rules.run_docs_rules``, in-process, over a
docs folder whose aidlc-state.md ticks each stage, so that the rules look for each one's approval in the log; no git
history): the rules read each sentence of the pasted field for approvals and stage names, several times over.

It prints the median and fastest seconds of each, and the goals: four times the lines within 6x the time, for the
reading and for the rules (a reading that grows in proportion takes about 4x; one that copies the field so far at
each line, as aidlc did before, took 16x, and minutes for a pasted log). The seconds depend on the machine; the
ratio is what to compare. The goals are informational: exit code 0.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from measure import Stat  # sibling module: benchmarks run as scripts

from aidlc.aidlc_docs.audit import read_audit
from aidlc.aidlc_docs.reader import read_project
from aidlc.rules import run_docs_rules

GROWTH = 4
GOAL_RATIO = 6.0
LINE = "  PASS tests/test_checkout.py::test_total_with_discount_code[case-{n}] 0.01s"


def one_entry(lines: int) -> str:
    """An audit log of one entry whose AI response continues for `lines` lines (a pasted test run)."""
    body = "\n".join(LINE.format(n=n) for n in range(lines))
    return ("# AI-DLC Audit Log\n\n## Build and Test\n**Timestamp**: 2026-03-02T09:14:07Z\n"
            f"**User Input**: \"run the tests\"\n**AI Response**: the run:\n{body}\n\n---\n")


def many_entries(lines: int) -> str:
    """`lines` / 10 entries of ten lines each: about as many bytes as `one_entry(lines)`."""
    entries = []
    for n in range(0, lines, 10):
        body = "\n".join(LINE.format(n=n + k) for k in range(7))
        entries.append(f"## Build and Test\n**Timestamp**: 2026-03-02T09:14:07Z\n**AI Response**: the run:\n{body}\n")
    return "# AI-DLC Audit Log\n\n" + "\n---\n\n".join(entries)


def timed(text: str, runs: int, entries: int) -> Stat:
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        log = read_audit(text, "aidlc-docs/audit.md")
        seconds.append(time.perf_counter() - start)
        if len(log.entries) != entries:  # else it measured a reading that missed what it was given
            raise SystemExit(f"benchmark: read {len(log.entries)} entries of {entries}")
    return Stat.of(seconds)


STATE = """# AI-DLC State Tracking

## Stage Progress

### INCEPTION PHASE
- [x] Workspace Detection
- [x] Requirements Analysis
- [x] Workflow Planning

### CONSTRUCTION PHASE
- [x] Code Generation
- [x] Build and Test
"""


def judged(text: str, runs: int) -> Stat:
    """Every aidlc-docs rule over a docs folder whose audit log is `text` and whose state file ticks each stage."""
    with tempfile.TemporaryDirectory(prefix="aidlc-audit-growth-") as where:
        docs = Path(where) / "aidlc-docs"
        docs.mkdir()
        (docs / "aidlc-state.md").write_text(STATE, encoding="utf-8")
        (docs / "audit.md").write_text(text, encoding="utf-8")
        seconds = []
        for _ in range(runs):
            start = time.perf_counter()
            findings = run_docs_rules(read_project(Path(where), "aidlc-docs"))
            seconds.append(time.perf_counter() - start)
            if not any(finding.code == "AIDLC-DOCS-003" for finding in findings):  # the stages ticked, none approved
                raise SystemExit("benchmark: the rules found no unapproved stage in a log that approves none")
    return Stat.of(seconds)


def _goal(what: str, small: Stat, large: Stat) -> dict[str, object]:
    ratio = large.median / small.median
    return {"name": f"{what}: {GROWTH}x the lines of one entry within {GOAL_RATIO:g}x the time", "ratio": ratio,
            "measured": f"{ratio:.2f}x (fastest runs {large.min / small.min:.2f}x)", "passed": ratio <= GOAL_RATIO}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=25_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cases: dict[str, tuple[Callable[[int], str], int, int]] = {
        f"one entry, {args.lines:,} lines": (one_entry, args.lines, 1),
        f"one entry, {args.lines * GROWTH:,} lines": (one_entry, args.lines * GROWTH, 1),
        f"{args.lines // 10:,} entries of 10 lines": (many_entries, args.lines, -(-args.lines // 10)),
    }
    stats = {name: timed(make(lines), args.runs, entries) for name, (make, lines, entries) in cases.items()}
    small, large, baseline = stats.values()
    rules = {f"rules, one entry of {lines:,} lines": judged(one_entry(lines), args.runs)
             for lines in (args.lines, args.lines * GROWTH)}
    goals = [_goal("reading", small, large), _goal("rules", *rules.values())]
    if args.json:
        print(json.dumps({"lines": args.lines, "runs": args.runs, "goals": goals,
                          "stats": {name: vars(stat) for name, stat in (stats | rules).items()}}, indent=2))
        return 0
    print(f"{'measurement':<34} {'median s':>9} {'min s':>8} {'x baseline':>11}")
    for name, stat in stats.items():
        print(f"{name:<34} {stat.median:>9.4f} {stat.min:>8.4f} {stat.median / baseline.median:>10.2f}x")
    for name, stat in rules.items():
        print(f"{name:<34} {stat.median:>9.4f} {stat.min:>8.4f} {'-':>11}")
    print("\nGoals (informational):")
    for goal in goals:
        print(f"  {'PASS' if goal['passed'] else 'MISS'}  {goal['name']}: {goal['measured']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
