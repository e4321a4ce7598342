"""The history rules of an audit log's timestamps (aidlc/rules/docs_history.py): an entry is not dated after the
commit that added it nor long before the repository's first commit, and entries different commits added do not
share one moment."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import NamedTuple

from aidlc import vcs
from aidlc.aidlc_docs.model import AuditEntry
from aidlc.rules.docs_history import STAMP_AFTER_COMMIT, STAMP_BEFORE_REPOSITORY, STAMP_SHARED
from aidlc.rules.docs_history_judge import Judge, described, short, which, words

CLOCK_TOLERANCE = timedelta(minutes=5)  # a writer's clock may run this far ahead of the committer's
BEFORE_FIRST_COMMIT = timedelta(days=1)  # work may start a day before the repository does, not earlier


def moment(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


class _Late(NamedTuple):
    """The entries one commit added to a log, dated after it: `zone` the committer's, where every one reads true in
    it (`_local_time`), else None."""

    revision: vcs.Revision
    entries: list[AuditEntry]
    minutes: list[int]
    note: str
    zone: str | None


def judge_stamps(judge: Judge, revisions: list[vcs.Revision], audits: list[str], first: datetime | None) -> None:
    """Each entry against the commit that added it (the first on this history whose version holds it while none of
    its parents did) and against the repository's first commit."""
    judged: set[str] = set()
    written: dict[tuple[str, str], datetime] = {}  # (path, blob) -> when its first commit wrote that version
    late: dict[str, list[_Late]] = {}  # path -> each commit's entries dated after it
    for revision in revisions:
        for path in audits:
            if path in revision.files:
                new, old = revision.files[path]
                # the newest of the versions the commit's parents hold (none where the log was not, or was deleted)
                held = [written[(path, blob)] for blob in old if blob is not None and (path, blob) in written]
                before = max(held, default=None)
                found = _judge_added(judge, revision, path, first, judged, before)
                if found is not None:
                    late.setdefault(path, []).append(found)
                committed = moment(revision.committed)
                if new is not None and committed is not None:
                    written.setdefault((path, new), committed)
    for path, each in late.items():
        _report_late(judge, path, each)


def _report_late(judge: Judge, path: str, late: list[_Late]) -> None:
    """One finding for each commit's late entries, but one for all the commits whose entries read true as a local
    time of one zone written as UTC: agwlvssainokuni/MasterMeister2 writes Tokyo's time with a `Z` in the entries of
    136 commits, one mistake a reviewer fixes once."""
    zones = Counter(found.zone for found in late if found.zone is not None)
    for found in late:
        if found.zone is not None and zones[found.zone] > 1:
            continue
        judge.add(STAMP_AFTER_COMMIT, path, found.entries[0].line, f"{which(found.entries)} {_verb(found.entries)} "
                  f"dated {_span(found.minutes)} minutes after {short(found.revision)}, which added "
                  f"{'it' if len(found.entries) == 1 else 'them'} at {found.revision.committed}{found.note}",
                  subject=words(found.entries[0].text))
    for zone, commits in zones.items():
        if commits < 2:
            continue
        group = [found for found in late if found.zone == zone]
        entries = [entry for found in group for entry in found.entries]
        # the commit by its id alone: the message names the entry, the span and the zone within MAX_MESSAGE
        judge.add(STAMP_AFTER_COMMIT, path, entries[0].line, f"{len(entries)} entries of {commits} commits, "
                  f"the first {described(entries[0])} by commit {group[0].revision.sha[:12]}, are dated "
                  f"{_span([m for found in group for m in found.minutes])} minutes after the commits that added them; "
                  f"read in the committers' zone ({zone}) each falls before its commit (or within the clock "
                  f"difference): a local time written as UTC? Write the zone ({zone}), or the time in UTC",
                  subject=words(entries[0].text))


def _judge_added(judge: Judge, revision: vcs.Revision, path: str, first: datetime | None, judged: set[str],
                 before: datetime | None) -> _Late | None:
    """The entries the commit added first to the log at `path`, each judged once (`judged`: the words judged). The
    entries it dated long before the repository's first commit are one finding: a commit that imports a log kept
    elsewhere brings dozens of them for one cause; those it dated after itself are returned, to be reported so
    (`_report_late`). `before`: when the version of the log they were added to was committed."""
    committed = moment(revision.committed)
    late: list[AuditEntry] = []
    early: list[AuditEntry] = []
    for entry in judge.added.get((revision.sha, path), []):
        said = words(entry.text)
        if entry.at is None or said in judged or judge.origins.get(said) is not revision:
            continue
        judged.add(said)
        if committed is not None and entry.at > committed + CLOCK_TOLERANCE:
            late.append(entry)
        elif first is not None and entry.at < first - BEFORE_FIRST_COMMIT:
            early.append(entry)
    if early and first is not None:
        days = [(first - entry.at).days for entry in early if entry.at is not None]
        judge.add(STAMP_BEFORE_REPOSITORY, path, early[0].line, f"{which(early)}{',' if len(early) == 1 else ''} "
                  f"added by {short(revision)}, {_verb(early)} dated {_span(days)} day{'s' if max(days) != 1 else ''}"
                  f" before the repository's first commit ({first.isoformat()})", subject=words(early[0].text))
    if not late or committed is None:
        return None
    minutes = [int((entry.at - committed).total_seconds() // 60) for entry in late if entry.at is not None]
    note = _local_time(late, committed, before)
    return _Late(revision, late, minutes, note, committed.isoformat()[-6:] if note else None)


def _verb(entries: list[AuditEntry]) -> str:
    return "is" if len(entries) == 1 else "are"


def _span(numbers: list[int]) -> str:
    return f"{min(numbers)}" if min(numbers) == max(numbers) else f"{min(numbers)} to {max(numbers)}"


def _local_time(entries: list[AuditEntry], committed: datetime, before: datetime | None) -> str:
    """A note when every entry's time reads true in the committer's time zone, after the version of the log they
    were added to and before the commit that added them: a local clock written as UTC (`Z`), the most common cause
    of an entry dated after its commit. Read so, times written before the log's last version are not a clock's."""
    zone = committed.utcoffset()
    # An entry stamped exactly midnight is a date with a placeholder time (AIDLC-DOCS-010), no clock's.
    if not zone or any(entry.at is None or entry.at.utcoffset() != timedelta(0) or
                       (entry.at.hour, entry.at.minute, entry.at.second) == (0, 0, 0) for entry in entries):
        return ""
    local = [entry.at.replace(tzinfo=committed.tzinfo) for entry in entries if entry.at is not None]
    if any(at > committed + CLOCK_TOLERANCE or (before is not None and at < before - CLOCK_TOLERANCE)
           for at in local):
        return ""
    zone_text = committed.isoformat()[-6:]
    minutes = [int((committed - at).total_seconds() // 60) for at in local]
    # Some may be a little after it, within the clock difference allowed: no negative minutes "before".
    when = f"{_span(minutes)} minutes before the commit" if min(minutes) >= 0 else \
        f"within {max(abs(m) for m in minutes)} minutes of the commit"
    return (f"; read in the committer's zone ({zone_text}) {'it is' if len(local) == 1 else 'they are'} {when}: a "
            f"local time written as UTC? Write the zone ({zone_text}), or the time in UTC")


def judge_shared(judge: Judge, audits: list[str], since: str | None) -> None:
    """In each audit log as HEAD holds it: an entry whose moment an earlier entry, added by another commit, has
    too. With `since`, only entries the judged commits added are reported (an older one may be the earlier)."""
    heads = {path: judge.head.get(path) for path in audits}
    judge.read({blob for path, blob in heads.items() if not judge.parsed(blob, path)})
    for path in audits:
        version = judge.version(heads[path], path)
        _judge_moments(judge, path, version.entries if version else [], since)


def _judge_moments(judge: Judge, path: str, entries: list[AuditEntry], since: str | None) -> None:
    """Per moment, the entries carrying it that a commit other than the earliest such entry's added: one finding at
    the first of them (cu-aaii stamps 51 entries of 41 commits `2026-08-03T00:00:00Z` and 8 of 6 commits
    `2026-08-07T00:00:00Z`: two findings, not one per entry)."""
    seen: dict[datetime, list[AuditEntry]] = {}
    for entry in entries:
        if entry.at is not None:
            seen.setdefault(entry.at, []).append(entry)
    for group in seen.values():
        origins = [judge.origins.get(words(entry.text)) for entry in group]
        shared = [(entry, origin) for n, (entry, origin) in enumerate(zip(group, origins, strict=True))
                  if any(other is not origin for other in origins[:n]) and not (since is not None and origin is None)]
        if not shared:
            continue
        entry, origin = shared[0]
        if len(shared) == 1:
            earlier = group[:group.index(entry)]
            lines = ", ".join(str(e.line) for e, o in zip(earlier, origins, strict=False) if o is not origin)
            said = (f"the entry {described(entry)}{'' if origin is None else f', added by {short(origin)},'} carries "
                    f"the timestamp of the entry at line {lines}, which another commit added")
        else:
            said = (f"{len(group)} entries, added by {len({id(o) for o in origins})} commits, carry the timestamp "
                    f"{entry.timestamp} (lines {', '.join(str(e.line) for e in group)})")
        judge.add(STAMP_SHARED, path, entry.line, said, subject=words(entry.text))
