"""The aidlc-docs rules of the audit logs' timestamps as the work tree holds them: each an ISO 8601 moment, none
earlier than the entry above it, and none in a placeholder's pattern (midnight, one time on several entries, every
time to the whole minute). The history rules hold them against the commits (aidlc/rules/docs_history_stamps.py)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from itertools import pairwise

from aidlc.aidlc_docs.model import AuditEntry, DocsProject
from aidlc.rules.catalogue import Hit, docs_rule
from aidlc.rules.docs_layout import E, I, W, check, cut, some_lines

SHARED = 3  # this many entries or more on one timestamp is a pattern, not a coincidence
_MIDNIGHT = re.compile(r"T00:00(?::00(?:\.0+)?)?(?:Z|[+-]\d|\s|$)")
# A clock read at random lands on a whole minute once in 60 times: nine in ten of ten or more entries is no clock.
WHOLE_SHARE, WHOLE_LEAST = 0.9, 10

NOT_ISO = docs_rule(
    "AIDLC-DOCS-008", E, "an audit entry's timestamp is not an ISO 8601 date and time (the rules: "
    "`YYYY-MM-DDTHH:MM:SSZ`)",
    "write the time the entry was made, from the clock: `date -u +%Y-%m-%dT%H:%M:%SZ` (or `aidlc audit append`, "
    "which writes it)")
OUT_OF_ORDER = docs_rule(
    "AIDLC-DOCS-009", W, "an audit entry's timestamp is earlier than the entry above it (audit.md is appended to, "
    "so times only grow); one finding for a run of such entries in a row, a part of the log kept newest first",
    "append new entries at the end, never above older ones (a merge that kept two branches' entries, one side's "
    "after the other's, leaves this too: say so in a new entry); a timestamp that was invented is left as it is "
    "and explained in a new entry")
MIDNIGHT = docs_rule(
    "AIDLC-DOCS-010", W, "an audit entry's timestamp is exactly midnight (`T00:00:00`): the pattern of a "
    "placeholder, not a clock; one finding for all of a log's",
    "take timestamps from the clock (`date -u +%Y-%m-%dT%H:%M:%SZ`, or `aidlc audit append`); leave a logged "
    "placeholder as it is and explain it in a new entry")
SHARED_TIME = docs_rule(
    "AIDLC-DOCS-011", W, f"{SHARED} or more audit entries share one timestamp: the pattern of a time written once "
    "and copied, not read from the clock",
    "take each entry's time from the clock when it is written (`aidlc audit append` does)")
WHOLE_MINUTES = docs_rule(
    "AIDLC-DOCS-019", I, "nine in ten or more of an audit log's timed entries (ten at least) fall on the whole "
    "minute: times estimated when written, not read from a clock, so they say little of when a person answered",
    "take each new entry's time from the clock, seconds and all (`date -u +%Y-%m-%dT%H:%M:%SZ`, or `aidlc audit "
    "append`, which writes it); leave the past entries as they are")
# The rules that read one writer's timestamps: a v2 intent record's engine writes several blocks in one second.
V1_TIME_RULES = (SHARED_TIME,)


# -- audit timestamps --------------------------------------------------------------------------------------------
@check(NOT_ISO)
def _not_iso(project: DocsProject) -> Iterator[Hit]:
    """One finding per log, at its first such entry: DDthonWinner/CompanyOps dates all 41 entries `2026-09-08`, one
    habit that 41 findings would not say better."""
    for log in project.audits:
        found = [entry for entry in log.entries if entry.at is None]
        if not found:
            continue
        shown = f"\"{cut(found[0].timestamp or '')}\"" if found[0].timestamp else "missing or empty"
        if len(found) == 1:
            yield Hit(log.path, found[0].line, f"the timestamp is {shown}, not an ISO 8601 date and time")
        else:
            yield Hit(log.path, found[0].line, f"{len(found)} entries' timestamps are not ISO 8601 dates and times, "
                      f"the first {shown} (lines {some_lines([entry.line for entry in found])})")


@check(OUT_OF_ORDER)
def _out_of_order(project: DocsProject) -> Iterator[Hit]:
    """One finding for each run of entries in a row, each earlier than the one above it: socar-rieul keeps its log
    newest first, 23 entries that 23 findings would not say better."""
    for log in project.audits:
        timed = [entry for entry in log.entries if entry.at is not None]
        run: list[tuple[AuditEntry, AuditEntry]] = []  # (entry, the entry above it) of the run going on
        for above, entry in pairwise(timed):
            if entry.at is not None and above.at is not None and entry.at < above.at:
                run.append((entry, above))
                continue
            yield from _run(log.path, run)
            run = []
        yield from _run(log.path, run)


def _run(path: str, run: list[tuple[AuditEntry, AuditEntry]]) -> Iterator[Hit]:
    if not run:
        return
    (first, above), last = run[0], run[-1][0]
    if len(run) == 1:
        yield Hit(path, first.line, f"{first.timestamp} is earlier than the entry above it (line {above.line}, "
                  f"{above.timestamp})")
        return
    lines = some_lines([entry.line for entry, _ in run])
    yield Hit(path, first.line, f"{len(run)} entries in a row are each earlier than the entry above it, from "
              f"{first.timestamp} (below line {above.line}, {above.timestamp}) to {last.timestamp} at line "
              f"{last.line}: this part of the log runs newest first (lines {lines})")


@check(MIDNIGHT)
def _midnight(project: DocsProject) -> Iterator[Hit]:
    """One finding per log, at its first midnight entry: cu-aaii stamps 68 entries with a date and `T00:00:00Z`, one
    habit that 68 findings would not say better."""
    for log in project.audits:
        found = [entry for entry in log.entries if entry.at is not None and _MIDNIGHT.search(entry.timestamp or "")]
        if len(found) == 1:
            yield Hit(log.path, found[0].line, f"{found[0].timestamp} is exactly midnight")
        elif found:
            yield Hit(log.path, found[0].line, f"{len(found)} entries are stamped exactly midnight, the first "
                      f"{found[0].timestamp} (lines {some_lines([entry.line for entry in found])})")


@check(SHARED_TIME)
def _shared(project: DocsProject) -> Iterator[Hit]:
    for log in project.audits:
        groups: dict[datetime, list[AuditEntry]] = defaultdict(list)
        for entry in log.entries:
            if entry.at is not None:
                groups[entry.at].append(entry)
        for moment, group in groups.items():
            if len(group) >= SHARED:
                lines = ", ".join(str(entry.line) for entry in group)
                # One moment written in several forms (`12:00:00Z ~ 12:15:00Z`, `12:00:00Z ~ 12:30:00Z`): the one they
                # share is where each starts.
                said = {entry.timestamp for entry in group}
                shared = group[0].timestamp if len(said) == 1 else moment.isoformat()
                yield Hit(log.path, group[0].line, f"{len(group)} entries share the timestamp {shared} "
                          f"(lines {lines})")


@check(WHOLE_MINUTES)
def _whole_minutes(project: DocsProject) -> Iterator[Hit]:
    for log in project.audits:
        timed = [entry.at for entry in log.entries if entry.at is not None]
        whole = [at for at in timed if at.second == 0 and at.microsecond == 0]
        if len(timed) >= WHOLE_LEAST and len(whole) >= WHOLE_SHARE * len(timed):
            fives = sum(1 for at in whole if at.minute % 5 == 0)
            yield Hit(log.path, next(e.line for e in log.entries if e.at is not None), f"{len(whole)} of "
                      f"{len(timed)} timed entries fall on the whole minute ({fives} on a five-minute mark)")
