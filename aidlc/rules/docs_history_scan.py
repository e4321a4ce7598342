"""The aidlc-docs rules that git history decides: audit.md (and each audit/*.md shard) only ever grows, its
timestamps agree with the commits that added the entries, and a stage is ticked in aidlc-state.md only once the
audit log holds its approval.

Git is the evidence: every commit that changed the audit logs or the state file, on HEAD's history (or a pull
request's commits), each compared with its parents (aidlc/vcs.py reads them). Entries are matched across
versions by their text (AuditEntry.text): what a parent holds and the commit does not was deleted or edited by that
commit. A merge is charged only with what no side explains: an entry one side added and the merge dropped, or one
every side kept; an entry one side deleted since the merge base is that side's commit's deletion, not the merge's.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from difflib import SequenceMatcher
from pathlib import Path

from aidlc import vcs
from aidlc.aidlc_docs.audit import audit_entries
from aidlc.aidlc_docs.markdown import marker_lines, one_line_end
from aidlc.aidlc_docs.model import AuditEntry, Mark, StateFile
from aidlc.aidlc_docs.reader import AUDIT_FILE, AUDIT_FOLDER, STATE_FILE, STATE_FOLDER, is_audit, state_file
from aidlc.aidlc_docs.stages import BY_SLUG
from aidlc.aidlc_docs.state import read_state
from aidlc.model.findings import Finding
from aidlc.rules.catalogue import Rule, shorten
from aidlc.rules.docs_approvals import approves
from aidlc.rules.docs_history import (
    ENTRY_DELETED,
    ENTRY_EDITED,
    ENTRY_INSERTED,
    ENTRY_REFORMATTED,
    LOG_REMOVED,
    STAMP_AFTER_COMMIT,
    STAMP_BEFORE_REPOSITORY,
    STAMP_SHARED,
    TICKED_UNAPPROVED,
)

CHUNK = 64  # commits whose audit log versions are read at once
CLOCK_TOLERANCE = timedelta(minutes=5)  # a writer's clock may run this far ahead of the committer's
BEFORE_FIRST_COMMIT = timedelta(days=1)  # work may start a day before the repository does, not earlier

_TICKED = re.compile(r"^[ \t]*(?:[-*+][ \t]+\[[xX]\]|\|).*$", re.MULTILINE)  # a ticked line, or a table row


@dataclass
class _Version:
    """One version of an audit log: its entries, their texts counted, and where its last entry starts (its line
    index and the offset of that line in the text), from where a version that only appends to it is read."""

    entries: list[AuditEntry]
    texts: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    resume: tuple[int, int] = (0, 0)

    @classmethod
    def of(cls, text: str, kept: _Version | None = None) -> _Version:
        """The version whose text is `text`; with `kept`, a version whose text `text` starts with: its entries but
        the last are kept, and the text is read from where its last entry starts."""
        line, offset = kept.resume if kept is not None and kept.entries else (0, 0)
        lines = text[offset:].split("\n")
        read = audit_entries(lines, line)
        if kept is not None and kept.entries:
            entries, texts = kept.entries[:-1] + read, kept.texts[:-1] + [entry.text for entry in read]
            counts = kept.counts.copy()
            counts[kept.texts[-1]] -= 1
            counts.update(texts[len(kept.entries) - 1:])
            counts += Counter()  # drop the zero count
        else:
            entries, texts = read, [entry.text for entry in read]
            counts = Counter(texts)
        resume = (line, offset)
        if read:  # the last entry's first line: its offset is the lengths of the lines before it, with their ends
            before = read[-1].line - 1 - line
            resume = (read[-1].line - 1, offset + sum(map(len, lines[:before])) + before)
        return cls(entries, texts, counts, resume)


@dataclass
class _Judge:
    history: vcs.History
    findings: list[Finding] = field(default_factory=list)
    contents: dict[str, bytes] = field(default_factory=dict)  # blob sha -> bytes, of the commits being judged
    missing: set[str] = field(default_factory=set)  # blobs this clone lacks (a partial clone)
    # an entry's words (whitespace and conflict-marker lines aside: _words) -> the commit that added it
    origins: dict[str, vcs.Revision] = field(default_factory=dict)
    # (commit, path) -> the entries of that log whose words that commit added first
    added: dict[tuple[str, str], list[AuditEntry]] = field(default_factory=dict)
    judged: set[str] = field(default_factory=set)  # the blobs judged as a commit's version: their words are known
    _logs: dict[tuple[str, str], _Version] = field(default_factory=dict)
    _texts: dict[str, str] = field(default_factory=dict)  # the last few texts decoded, oldest first
    _ticked: dict[str, dict[tuple[str, str | None], tuple[int, str]]] = field(default_factory=dict)

    def add(self, rule: Rule, path: str, line: int | None, message: str, fix: str | None = None) -> None:
        self.findings.append(Finding(code=rule.code, severity=rule.severity, path=path, line=line,
                                     message=shorten(message), fix=shorten(fix or rule.fix)))

    def text(self, blob: str) -> str:
        if blob not in self._texts:
            if blob not in self.contents:
                self.read({blob})  # one read more: a version read before, forgotten since
            data = self.contents.get(blob) or b""
            self._texts[blob] = one_line_end(data.decode("utf-8", "replace").removeprefix("\ufeff"))
            if len(self._texts) > 8:  # a version is read again mostly as the parent of the next commit's
                del self._texts[next(iter(self._texts))]
        return self._texts[blob]

    def version(self, blob: str | None, path: str, parent: str | None = None) -> _Version | None:
        """The version of `path` in `blob`; read from where `parent`'s (a blob already read) last entry starts when
        it only appends to `parent`, as most commits do."""
        if blob is None:
            return None
        if (blob, path) not in self._logs:
            text = self.text(blob)
            kept = self._logs.get((parent, path)) if parent is not None else None
            if kept is not None and parent is not None and not text.startswith(self.text(parent)):
                kept = None
            self._logs[(blob, path)] = _Version.of(text, kept)
        return self._logs[(blob, path)]

    def ticked(self, blob: str, path: str) -> dict[tuple[str, str | None], tuple[int, str]]:
        """The stages the state file in `blob` holds ticked (read once per blob: as a commit's and its child's)."""
        if blob not in self._ticked:
            self._ticked[blob] = _ticked(read_state(self.text(blob), path))
        return self._ticked[blob]

    def parsed(self, blob: str | None, path: str) -> bool:
        return blob is None or (blob, path) in self._logs

    def read(self, blobs: set[str | None]) -> None:
        wanted = sorted(blob for blob in blobs if blob is not None and blob not in self.contents
                        and blob not in self.missing)
        for blob, data in vcs.objects(self.history.top, wanted).items():
            if data is None:
                self.missing.add(blob)
            else:
                self.contents[blob] = data

    def forget(self) -> None:
        """Let go of the bytes read: what was read of them is kept (an audit log's versions add up to gigabytes)."""
        self.contents.clear()


def history_findings(root: Path, rel: str, since: str | None = None, ticks: bool = True) -> list[Finding]:
    """The findings of the history rules on the docs folder `rel` of the repository at `root`: over every commit
    of HEAD's history, or with `since` (a commit) over the commits of `since..HEAD` only (`aidlc ci --base`).
    `ticks`: judge v1 stage ticks against audit.md's approvals (not on a v2 intent record, whose rows and
    STAGE_COMPLETED events aidlc/rules/docs_records.py judges). Nothing outside a Git repository or in one
    without commits."""
    history = vcs.history(root)
    if history is None or history.head is None:
        return []
    held = history.names("HEAD", rel) + [f"{STATE_FOLDER}/{name}"
                                          for name in history.names("HEAD", f"{rel}/{STATE_FOLDER}")]
    state_rel = f"{rel}/{state_file(held) or STATE_FILE}"
    revisions = history.revisions([f"{rel}/{AUDIT_FILE}", f"{rel}/{AUDIT_FOLDER}", state_rel], since)
    judge = _Judge(history)
    audits = sorted({path for r in revisions for path in r.files if _is_audit(rel, path)})
    bases = _merge_bases(history, revisions)
    base_blobs = history.blobs([(base, path) for sha, base in bases.items() for path in audits
                                if path in _revision(revisions, sha).files])
    for start in range(0, len(revisions), CHUNK):  # a few versions' bytes at a time
        chunk = revisions[start:start + CHUNK]
        judge.read({blob for r in chunk for path in audits if path in r.files
                    for blob in _versions(r, path, base_blobs.get((bases.get(r.sha, ""), path)))})
        for revision in chunk:
            for path in audits:
                if path in revision.files:
                    base = bases.get(revision.sha)
                    _judge_log(judge, revision, path, None if base is None else base_blobs[(base, path)])
        judge.forget()
    first = [at for at in (_moment(text) for text in history.first_dates()) if at is not None]
    _judge_stamps(judge, revisions, audits, min(first) if first else None)
    _judge_shared(judge, audits, since)
    _judge_ignored(judge, rel, audits, since)
    if ticks:
        _judge_ticks(judge, revisions, state_rel, rel, audits)
    return sorted(judge.findings, key=lambda f: f.sort_key())


def _versions(revision: vcs.Revision, path: str, base: str | None = None) -> tuple[str | None, ...]:
    """The blobs of `path` in the commit, in each of its parents and (given) in their merge base."""
    new, old = revision.files[path]
    return new, *old, base


def _is_audit(rel: str, path: str) -> bool:
    return path.startswith(f"{rel}/") and is_audit(path[len(rel) + 1:])


def _revision(revisions: list[vcs.Revision], sha: str) -> vcs.Revision:
    return next(r for r in revisions if r.sha == sha)


def _merge_bases(history: vcs.History, revisions: list[vcs.Revision]) -> dict[str, str]:
    """The merge base of each merge whose parents hold different versions of a file it changed: only there does
    it take a base to tell an entry one side added from one the other side deleted."""
    found = {}
    for revision in revisions:
        if any(len(set(old)) > 1 for _, old in revision.files.values()):
            base = history.merge_base(revision.parents)
            if base is not None:
                found[revision.sha] = base
    return found


def _short(revision: vcs.Revision) -> str:
    return f"commit {revision.sha[:12]} ({revision.subject[:60]})"


def _described(entry: AuditEntry) -> str:
    return f"`{entry.heading or 'an entry without a heading'}` ({entry.timestamp or 'no timestamp'})"


def _unmarked(text: str) -> str:
    markers = set(marker_lines(text))
    return "\n".join(line for number, line in enumerate(text.split("\n"), start=1) if number not in markers)


def _whitespace(text: str) -> str:
    return " ".join(text.split())


@functools.cache  # each entry's text is met in every later version of its log
def _words(text: str) -> str:
    """What an entry says: its text without its whitespace and conflict-marker lines."""
    return _whitespace(_unmarked(text))


def _judge_log(judge: _Judge, revision: vcs.Revision, path: str, base_blob: str | None) -> None:
    new_blob, old_blobs = revision.files[path]
    if any(blob in judge.missing for blob in (new_blob, *old_blobs)):
        return  # a version this clone lacks (a partial clone): nothing to compare
    parents = [judge.version(blob, path) for blob in old_blobs]
    child = judge.version(new_blob, path, old_blobs[0])
    if child is not None and child.texts:
        _origins(judge, revision, path, child, parents, old_blobs)
    if new_blob is not None:
        judge.judged.add(new_blob)
    if not any(p is not None and p.texts for p in parents):
        return
    if len(parents) == 1 and parents[0] is not None and child is not None and _appends(parents[0], child):
        return  # it only appended entries: nothing deleted, edited or moved
    expected = _expected(parents, judge.version(base_blob, path))
    if child is None or not child.texts:
        lost = sum(expected.values())
        if lost:
            what = "deleted" if child is None else "emptied"
            judge.add(LOG_REMOVED, path, None, f"{_short(revision)} {what} {path}, which held {lost} entries "
                      f"before it", f"git checkout {revision.parents[0]} -- {path}    # restore it, then commit")
        return
    removed = expected - child.counts
    added = child.counts - Counter({text: max(p.counts[text] if p else 0 for p in parents) for text in child.counts})
    held: dict[str, tuple[str, AuditEntry]] = {}  # text -> (the parent that held it, its entry there)
    for parent_sha, parent in zip(revision.parents, parents, strict=True):
        for entry in parent.entries if parent else []:
            held.setdefault(entry.text, (parent_sha, entry))
    candidates = [entry for entry in child.entries if added[entry.text] > 0]
    replaced: set[str] = set()
    for text in removed.elements():
        parent_sha, old = held[text]
        fix = f"git show {parent_sha}:{path}    # the entry as it was; restore it, then commit"
        twin = _counterpart(old, [e for e in candidates if e.text not in replaced])
        if twin is None:
            judge.add(ENTRY_DELETED, path, old.line, f"{_short(revision)} deleted the entry {_described(old)} (line "
                      f"{old.line} in {parent_sha[:12]}){_added_by(judge, text)}", fix)
            continue
        replaced.add(twin.text)
        if _words(twin.text) == _words(old.text) and (marker_lines(old.text) or marker_lines(twin.text)):
            continue  # only merge-conflict marker lines came or went: the conflict-marker rule reports those left
        if _whitespace(twin.text) == _whitespace(old.text):
            judge.add(ENTRY_REFORMATTED, path, twin.line, f"{_short(revision)} re-formatted the entry "
                      f"{_described(old)}: only whitespace changed", fix)
        else:
            judge.add(ENTRY_EDITED, path, twin.line, f"{_short(revision)} edited the entry {_described(old)}"
                      f"{_added_by(judge, text)}; it now reads {_described(twin)}", fix)
    if len(parents) == 1 and parents[0] is not None:  # a merge interleaves both sides' entries: order not judged
        _judge_order(judge, revision, path, parents[0], child, set(added) - replaced)


def _expected(parents: list[_Version | None], base: _Version | None) -> Counter[str]:
    """The entries the commit should hold of its parents' (each text counted): a commit's parent's; a merge's, the
    entries of each side, less the entries of the base that a side deleted (that side's commit is charged)."""
    counts = [p.counts if p is not None else Counter() for p in parents]
    if len(counts) == 1:
        return Counter(counts[0])
    base_counts = base.counts if base is not None else Counter()
    texts = {text for c in counts for text in c}
    return Counter({text: (min(c[text] for c in counts) if base_counts[text] else max(c[text] for c in counts))
                    for text in texts})


def _counterpart(old: AuditEntry, candidates: list[AuditEntry]) -> AuditEntry | None:
    """The entry a commit wrote in place of `old`: the same text but for whitespace, else the same heading, else
    the same timestamp (None: `old` was deleted)."""
    for same in (lambda e: _whitespace(e.text) == _whitespace(old.text),
                 lambda e: old.heading is not None and e.heading == old.heading,
                 lambda e: old.timestamp is not None and e.timestamp == old.timestamp):
        found = next((e for e in candidates if same(e)), None)
        if found is not None:
            return found
    return None


def _added_by(judge: _Judge, text: str) -> str:
    origin = judge.origins.get(_words(text))
    return "" if origin is None else f", which commit {origin.sha[:12]} added"


def _appends(parent: _Version, child: _Version) -> bool:
    """Whether `child` holds `parent`'s entries, in their order, and new ones after them only."""
    return child.texts[:len(parent.texts)] == parent.texts


def _origins(judge: _Judge, revision: vcs.Revision, path: str, child: _Version, parents: list[_Version | None],
             blobs: tuple[str | None, ...]) -> None:
    """Record the commit as the origin of each entry whose words no commit before it added and its parents lack."""
    appended = len(parents) == 1 and parents[0] is not None and _appends(parents[0], child)
    entries = child.entries[len(parents[0].texts):] if appended and parents[0] is not None else child.entries
    new = [e for e in entries if not any(p is not None and e.text in p.counts for p in parents)]
    # The words of parents' entries: known already (in origins) when each parent's version was judged as a commit's
    # version; read only for a parent before the judged commits (`since`).
    before: set[str] | None = set() if all(blob is None or blob in judge.judged for blob in blobs) else None
    mine = judge.added.setdefault((revision.sha, path), [])
    for entry in new:
        words = _words(entry.text)
        if words in judge.origins:
            if judge.origins[words] is revision:
                mine.append(entry)
            continue
        if before is None:
            before = {_words(text) for p in parents if p is not None for text in p.counts}
        if words not in before:
            judge.origins[words] = revision
            mine.append(entry)


def _judge_order(judge: _Judge, revision: vcs.Revision, path: str, parent: _Version, child: _Version,
                 new: set[str]) -> None:
    """Entries are appended: every new entry comes after all the entries the parent held, in their order."""
    if child.texts[:len(parent.texts)] == parent.texts:
        return
    matcher = SequenceMatcher(None, parent.texts, child.texts, autojunk=False)
    kept = {index for block in matcher.get_matching_blocks() for index in range(block.b, block.b + block.size)}
    last = max(kept, default=-1)
    for index, entry in enumerate(child.entries):
        if index in kept:
            continue
        if entry.text in new and index < last:
            judge.add(ENTRY_INSERTED, path, entry.line, f"{_short(revision)} inserted the entry {_described(entry)} "
                      f"above entries earlier commits added (line {child.entries[last].line} is one)")
        elif entry.text in parent.counts:
            judge.add(ENTRY_INSERTED, path, entry.line, f"{_short(revision)} moved the entry {_described(entry)}: "
                      "committed entries keep their order")


# -- timestamps ----------------------------------------------------------------------------------------------------
def _moment(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _judge_stamps(judge: _Judge, revisions: list[vcs.Revision], audits: list[str], first: datetime | None) -> None:
    """Each entry against the commit that added it (the first on this history whose version holds it while none of
    its parents did) and against the repository's first commit."""
    judged: set[str] = set()
    for revision in revisions:
        committed = _moment(revision.committed)
        for path in audits:
            if path not in revision.files:
                continue
            for entry in judge.added.get((revision.sha, path), []):
                words = _words(entry.text)
                if entry.at is None or words in judged or judge.origins.get(words) is not revision:
                    continue
                judged.add(words)
                if committed is not None and entry.at > committed + CLOCK_TOLERANCE:
                    late = int((entry.at - committed).total_seconds() // 60)
                    judge.add(STAMP_AFTER_COMMIT, path, entry.line, f"the entry {_described(entry)} is dated {late} "
                              f"minutes after {_short(revision)}, which added it at {revision.committed}")
                elif first is not None and entry.at < first - BEFORE_FIRST_COMMIT:
                    days = (first - entry.at).days
                    judge.add(STAMP_BEFORE_REPOSITORY, path, entry.line, f"the entry {_described(entry)}, added by "
                              f"{_short(revision)}, is dated {days} days before the repository's first commit "
                              f"({first.isoformat()})")


def _judge_shared(judge: _Judge, audits: list[str], since: str | None) -> None:
    """In each audit log as HEAD holds it: an entry whose moment an earlier entry, added by another commit, has
    too. With `since`, only entries the judged commits added are reported (an older one may be the earlier)."""
    heads = judge.history.blobs([("HEAD", path) for path in audits])
    judge.read({blob for (_, path), blob in heads.items() if not judge.parsed(blob, path)})
    for path in audits:
        version = judge.version(heads[("HEAD", path)], path)
        seen: dict[datetime, list[AuditEntry]] = {}
        for entry in version.entries if version else []:
            if entry.at is None:
                continue
            origin = judge.origins.get(_words(entry.text))
            others = [e for e in seen.get(entry.at, []) if judge.origins.get(_words(e.text)) is not origin]
            seen.setdefault(entry.at, []).append(entry)
            if not others or (since is not None and origin is None):
                continue
            lines = ", ".join(str(e.line) for e in others)
            judge.add(STAMP_SHARED, path, entry.line, f"the entry {_described(entry)}"
                      f"{'' if origin is None else f', added by {_short(origin)},'} carries the timestamp of the "
                      f"entry at line {lines}, which another commit added")


# -- the log removed from tracking ----------------------------------------------------------------------------------
def _judge_ignored(judge: _Judge, rel: str, audits: list[str], since: str | None) -> None:
    """An audit log that commits tracked (on the judged history, at HEAD or at `since`) which the work tree's ignore
    rules now ignore: the agent's next entries would never be committed."""
    history = judge.history
    tracked = set(audits)
    for commit in ("HEAD", *([since] if since else [])):
        tracked.update(f"{rel}/{name}" for name in _held_logs(history, commit, rel))
    for found in history.ignored(sorted(tracked)):
        judge.add(LOG_REMOVED, found.source, found.line, f"{found.path} is git-ignored by `{found.pattern}` "
                  f"({found.source}:{found.line}) although commits tracked it: new entries would not be committed",
                  f"remove `{found.pattern}` from {found.source} (or add `!{found.path}` after it), then commit "
                  f"{found.path}")


def _held_logs(history: vcs.History, commit: str, rel: str) -> list[str]:
    top = [AUDIT_FILE] if AUDIT_FILE in history.names(commit, rel) else []
    return top + [f"{AUDIT_FOLDER}/{name}" for name in history.names(commit, f"{rel}/{AUDIT_FOLDER}")
                  if is_audit(f"{AUDIT_FOLDER}/{name}")]


# -- stages ticked without an approval ------------------------------------------------------------------------------
def _judge_ticks(judge: _Judge, revisions: list[vcs.Revision], state_rel: str, rel: str, audits: list[str]) -> None:
    """A commit that ticks a stage (a stage line [x] whose stage and unit no parent's state held ticked) must hold
    an approval of it in its audit logs: an entry whose heading (or context) names the stage (and the unit, where it
    names one), that carries a person's input and says approved. Skipped stages and stages without an approval
    (workspace detection, operations) need none."""
    ticks: list[tuple[vcs.Revision, list[tuple[str, str | None, int, str]]]] = []
    judge.read({blob for r in revisions if state_rel in r.files for blob in _versions(r, state_rel)})
    for revision in revisions:
        if state_rel not in revision.files:
            continue
        new_blob, parent_blobs = revision.files[state_rel]
        if new_blob is None:
            continue
        old_blobs = [blob for blob in parent_blobs if blob is not None]
        if not _ticked_lines(judge.text(new_blob)) - {line for blob in old_blobs
                                                       for line in _ticked_lines(judge.text(blob))}:
            continue  # no ticked line that its parents lack: nothing was ticked
        before: set[tuple[str, str | None]] = set()
        for blob in old_blobs:
            before |= set(judge.ticked(blob, state_rel))
        fresh = [(stage, unit, line, text) for (stage, unit), (line, text) in judge.ticked(new_blob, state_rel).items()
                 if (stage, unit) not in before]
        if fresh:
            ticks.append((revision, fresh))
    if not ticks:
        return
    logs = audits or [f"{rel}/{AUDIT_FILE}"]
    blobs = judge.history.blobs([(revision.sha, path) for revision, _ in ticks for path in logs])
    judge.read({blob for (_, path), blob in blobs.items() if not judge.parsed(blob, path)})
    for revision, fresh in ticks:
        entries = [entry for path in logs for entry in
                   (lambda v: v.entries if v else [])(judge.version(blobs[(revision.sha, path)], path))]
        for stage, unit, line, text in fresh:
            # newest first: an approval is mostly logged just before its stage is ticked
            if not any(approves(entry, stage, unit) for entry in reversed(entries)):
                judge.add(TICKED_UNAPPROVED, state_rel, line, f"{_short(revision)} ticks `{text[:80]}` (stage "
                          f"{stage}{f', unit {unit}' if unit else ''}) and its audit log holds no approval of it")


def _ticked_lines(text: str) -> set[str]:
    return {line.strip() for line in _TICKED.findall(text)}


def _ticked(state: StateFile) -> dict[tuple[str, str | None], tuple[int, str]]:
    """The stages a state file holds ticked and not skipped, that need an approval: (stage, unit) -> (line, text)."""
    found: dict[tuple[str, str | None], tuple[int, str]] = {}
    for line in state.stages:
        if line.mark == Mark.done and line.stage is not None and not line.skipped and BY_SLUG[line.stage].approval:
            found.setdefault((line.stage, line.unit), (line.line, line.text))
    return found
