"""The history rules of an audit log's entries (aidlc/rules/docs_history.py): each commit's version of the log
against its parents'. What a parent holds and the commit does not was deleted or edited by that commit; an entry
it wrote above committed ones was inserted; a log it deleted or emptied was removed
(aidlc/rules/docs_history_removed.py). A merge is charged only with what no side explains (see
aidlc/rules/docs_history_scan.py).
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher

from aidlc import vcs
from aidlc.aidlc_docs.markdown import marker_lines
from aidlc.aidlc_docs.model import AuditEntry
from aidlc.names import arg, shown
from aidlc.rules.docs_history import ENTRY_DELETED, ENTRY_EDITED, ENTRY_INSERTED, ENTRY_REFORMATTED
from aidlc.rules.docs_history_judge import Deletion, Judge, Version, described, short, which, whitespace, words
from aidlc.rules.docs_history_removed import judge_removed, written_again
from aidlc.rules.docs_layout import cut


def judge_log(judge: Judge, revision: vcs.Revision, path: str, base_blob: str | None) -> None:
    """The commit's version of the audit log at `path` against its parents' (`base_blob`: a merge's base's): record
    the entries it added first, then judge what it deleted, edited, re-formatted or moved."""
    new_blob, old_blobs = revision.files[path]
    if any(blob in judge.missing for blob in (new_blob, *old_blobs)):
        return  # a version this clone lacks (a partial clone): nothing to compare
    parents = [judge.version(blob, path) for blob in old_blobs]
    child = judge.version(new_blob, path, old_blobs[0])
    appended = _only_appends(parents, child) or (len(old_blobs) == 1 and judge.appends_lines(old_blobs[0], new_blob))
    if child is not None and child.texts:
        _origins(judge, revision, path, child, parents, old_blobs, appended)
    if child is not None and not any(p is not None and p.texts for p in parents):  # written again, where it was not
        written_again(judge, revision, path, child)
    if new_blob is not None:
        judge.judged.add(new_blob)
    if not any(p is not None and p.texts for p in parents) or appended:
        return  # nothing to lose, or it only appended entries or lines: nothing deleted, edited or moved
    expected = _expected(parents, judge.version(base_blob, path))
    # A merge whose version holds no entry, where a side's held none either, dropped the entries the other side held,
    # as any merge that keeps one side's log does (AIDLC-DOCS-020): it did not empty a log (AI-DLC-Workshop3's 34b64bc,
    # whose 10 lines of a table are its second parent's).
    if child is None or (not child.texts and all(p is not None and p.texts for p in parents)):
        judge_removed(judge, revision, path, parents, child, expected, new_blob)
        return
    new = _judge_rewritten(judge, revision, path, parents, child, expected)
    if len(parents) == 1 and parents[0] is not None:  # a merge interleaves both sides' entries: order not judged
        _judge_order(judge, revision, path, parents[0], child, new)


def _only_appends(parents: list[Version | None], child: Version | None) -> bool:
    return len(parents) == 1 and parents[0] is not None and child is not None and _appends(parents[0], child)


def _judge_rewritten(judge: Judge, revision: vcs.Revision, path: str, parents: list[Version | None], child: Version,
                     expected: Counter[str]) -> set[str]:
    """Each entry the commit should hold and does not: deleted, or written anew (`_counterpart`) as an edit or a
    re-formatting. The texts of the entries it added that replace none."""
    removed = expected - child.counts
    added = child.counts - Counter({text: max(p.counts[text] if p else 0 for p in parents) for text in child.counts})
    # text -> the first parent that held it, and its copies there: a text written twice is two entries, each deleted
    # at its own line (MatthWong/roost-store's four copies of one entry, all named at the first's line before).
    held: dict[str, tuple[str, list[AuditEntry]]] = {}
    for parent_sha, parent in zip(revision.parents, parents, strict=True):
        for entry in parent.entries if parent else []:
            holder, copies = held.setdefault(entry.text, (parent_sha, []))
            if holder == parent_sha:
                copies.append(entry)
    candidates = [entry for entry in child.entries if added[entry.text] > 0]
    replaced: set[str] = set()
    for text in removed.elements():
        parent_sha, copies = held[text]
        old = copies.pop(0) if len(copies) > 1 else copies[0]  # past the last: a merge's other side held more
        twin = _counterpart(old, [e for e in candidates if e.text not in replaced])
        if twin is not None:
            replaced.add(twin.text)
        elif len(parents) > 1:  # a merge that kept the other side's version of an entry both sides wrote
            twin = next((e for e in child.entries if e.heading == old.heading and e.timestamp == old.timestamp), None)
        _judge_lost(judge, revision, path, parent_sha, old, twin)
    return set(added) - replaced


def _judge_lost(judge: Judge, revision: vcs.Revision, path: str, parent_sha: str, old: AuditEntry,
                twin: AuditEntry | None) -> None:
    """The entry `old` the parent `parent_sha` held, which the commit deleted (`twin` None) or wrote as `twin`."""
    fix = f"git show {arg(f'{parent_sha}:{path}')}    # the entry as it was; restore it, then commit"
    if twin is None:
        judge.deletions.append(Deletion(revision, path, parent_sha, old, words(old.text), _origin(judge, old)))
        return
    _written_anew(judge, revision, old, twin)
    if words(twin.text) == words(old.text) and (marker_lines(old.text) or marker_lines(twin.text)):
        pass  # only merge-conflict marker lines came or went: the conflict-marker rule reports those left
    elif whitespace(twin.text) == whitespace(old.text):
        judge.add(ENTRY_REFORMATTED, path, twin.line, f"{short(revision)} re-formatted the entry "
                  f"{described(old)}: only whitespace changed", fix, words(twin.text))
    else:
        judge.add(ENTRY_EDITED, path, twin.line, f"{short(revision)} edited the entry {described(old)}"
                  f"{_added_by([_origin(judge, old)])}: {_change(old, twin)}", fix, words(twin.text))


def report_deletions(judge: Judge, at_head: dict[str, dict[str, int]]) -> None:
    """One AIDLC-DOCS-020 finding for the entries a commit deleted from a log its parent held, leaving out those HEAD
    holds word for word again: a later commit restored them (`audit merge?` after a merge that kept one side's log),
    and nothing was lost. A commit that deleted 64 entries is one cause to mend: one finding, not 64."""
    groups: dict[tuple[str, str, str], list[Deletion]] = {}
    for lost in judge.deletions:
        if lost.said not in at_head.get(lost.path, {}):
            groups.setdefault((lost.revision.sha, lost.path, lost.parent), []).append(lost)
    for (_, path, parent), group in groups.items():
        group.sort(key=lambda lost: lost.entry.line)
        first, last = group[0].entry, group[-1].entry
        if len(group) == 1:
            what = f"the entry {described(first)} (line {first.line} in {parent[:12]})"
        else:
            what = (f"{len(group)} entries that {parent[:12]} held, from {described(first)} at line {first.line} to "
                    f"{described(last)} at line {last.line}")
        them = "the entry as it was; restore it" if len(group) == 1 else "the entries as they were; restore them"
        judge.add(ENTRY_DELETED, path, None, f"{short(group[0].revision)} deleted {what}"
                  f"{_added_by([lost.origin for lost in group])}{_kept(group[0].revision, path, parent)}",
                  f"git show {arg(f'{parent}:{path}')}    # {them}, then commit")


def _kept(revision: vcs.Revision, path: str, parent: str) -> str:
    """`: it kept X's version of the log`, for a merge whose version is byte for byte that of a parent other than
    `parent`, which held the entries it dropped: a conflict resolved by taking one side's file drops the other's."""
    new, old = revision.files[path]
    kept = next((sha for sha, blob in zip(revision.parents, old, strict=True) if blob == new and sha != parent), None)
    return "" if kept is None else f": it kept {kept[:12]}'s version of the log"


def _added_by(shas: list[str | None]) -> str:
    """`, which commit X added` (`, which commits X, Y and 3 more added`): the commits that added the entries."""
    origins = list(dict.fromkeys(sha for sha in shas if sha is not None))
    if not origins:
        return ""
    named = [sha[:12] for sha in origins]
    if len(named) == 1:
        return f", which commit {named[0]} added"
    if len(named) == 2:
        return f", which commits {named[0]} and {named[1]} added"
    return f", which commits {named[0]}, {named[1]} and {len(named) - 2} more added"


def _origin(judge: Judge, entry: AuditEntry) -> str | None:
    origin = judge.origins.get(words(entry.text))
    return None if origin is None else origin.sha


def _written_anew(judge: Judge, revision: vcs.Revision, old: AuditEntry, twin: AuditEntry) -> None:
    """`twin` is `old` edited: the commit that added `old` added the entry, and its time is judged against that
    commit's (AIDLC-DOCS-025 to 027, which judge an entry with its origin), not against the edit's, which the edit's
    own finding reports."""
    origin, said = judge.origins.get(words(old.text)), words(twin.text)
    judge.renamed[words(old.text)] = said  # a finding about the entry is reported where HEAD holds it edited
    if origin is not None and judge.origins.get(said) is revision:
        judge.origins[said] = origin


def _change(old: AuditEntry, new: AuditEntry) -> str:
    """What an edit changed, for the reader to find: the entry's first line that differs, as it was and as it is; of
    a long line, the part where they start to differ (`poetry` -> `uv` at the end of a line of 200 characters)."""
    before, after = old.text.split("\n"), new.text.split("\n")
    pairs = zip(before, after, strict=False)  # the shorter ends first: the line after it differs
    at = next((n for n, (was, now) in enumerate(pairs) if was.strip() != now.strip()), min(len(before), len(after)))
    if at == len(after) < len(before):  # the lines it kept are the entry's first: a heading put into it split it
        rest = next(line.strip() for line in before[at:] if line.strip())
        return (f"its lines from line {at + 1} on (`{cut(shown(rest), 60)}`) are no longer "
                "part of it: a heading inserted into it, or lines deleted from its end")
    if at == len(before) < len(after):  # lines added at its end: a `---` after it that no longer reads as one
        added = next((n for n in range(at, len(after)) if after[n].strip()), at)
        return f"its line {added + 1}, `{cut(shown(after[added].strip()), 60)}`, was added at its end"
    was, now = (lines[at].strip() if at < len(lines) else "" for lines in (before, after))
    same = next((n for n, (a, b) in enumerate(zip(was, now, strict=False)) if a != b), min(len(was), len(now)))
    start = max(0, same - 30) if max(len(was), len(now)) > 80 else 0

    def quoted(text: str) -> str:
        part = ("..." if start else "") + text[start:]
        return f"`{cut(shown(part), 80)}`" if text else "nothing"

    return f"its line {at + 1} read {quoted(was)} and now reads {quoted(now)}"


def _expected(parents: list[Version | None], base: Version | None) -> Counter[str]:
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
    the same timestamp, else the same lines but for the heading and the timestamp (`## Build and Test Stage` become
    `## Build and Test Stage - Unit 2`, its time changed); None: `old` was deleted."""
    body = _body(old)
    for same in (lambda e: whitespace(e.text) == whitespace(old.text),
                 lambda e: old.heading is not None and e.heading == old.heading,
                 lambda e: old.timestamp is not None and e.timestamp == old.timestamp,
                 lambda e: body is not None and _body(e) == body):
        found = next((e for e in candidates if same(e)), None)
        if found is not None:
            return found
    return None


def _body(entry: AuditEntry) -> str | None:
    """An entry's lines but its heading and the line of its timestamp, whitespace aside; None when fewer than two
    lines are left (`**User Input**: "ok"` alone is no one entry's own)."""
    lines = entry.text.split("\n")[1 if entry.heading is not None else 0:]
    kept = [line for line in lines if line.strip() and not (entry.timestamp and entry.timestamp in line)]
    return whitespace("\n".join(kept)) if len(kept) >= 2 else None


def _appends(parent: Version, child: Version) -> bool:
    """Whether `child` holds `parent`'s entries, in their order, and new ones after them only."""
    return child.texts[:len(parent.texts)] == parent.texts


def _origins(judge: Judge, revision: vcs.Revision, path: str, child: Version, parents: list[Version | None],
             blobs: tuple[str | None, ...], appended: bool) -> None:
    """Record the commit as the origin of each entry whose words no commit before it added and its parents lack
    (`appended`: it only appended entries or lines to its one parent's version)."""
    if appended and parents[0] is not None and parents[0].texts:
        _extended(judge, parents[0], child)
    # The words of parents' entries: known already (in origins) when each parent's version was judged as a commit's
    # version; read only for a parent before the judged commits (`since`).
    before: set[str] | None = set() if all(blob is None or blob in judge.judged for blob in blobs) else None
    mine = judge.added.setdefault((revision.sha, path), [])
    for entry in _new_entries(parents, child, appended):
        said = words(entry.text)
        if said in judge.origins:
            if judge.origins[said] is revision:
                mine.append(entry)
            continue
        if before is None:
            before = {words(text) for p in parents if p is not None for text in p.counts}
        if said not in before:
            judge.origins[said] = revision
            mine.append(entry)


def _new_entries(parents: list[Version | None], child: Version, appended: bool) -> list[AuditEntry]:
    """The entries of `child` whose text no parent holds (after the parent's, when it only appended to one: lines
    appended to the parent's last entry make that entry longer, not new, see `_extended`)."""
    entries = child.entries[len(parents[0].texts):] if appended and parents[0] is not None else child.entries
    return [e for e in entries if not any(p is not None and e.text in p.counts for p in parents)]


def _extended(judge: Judge, parent: Version, child: Version) -> None:
    """Lines appended after the parent's last entry, which no `---` closed, read as part of it (AI-DLC-Workshop3's
    table rows): the entry is still the one its commit wrote, its time judged against that commit's, and a finding
    about it is reported where HEAD holds it, longer."""
    last = parent.entries[-1]
    grown = next((e for e in child.entries[len(parent.entries) - 1:] if e.line == last.line), None)
    if grown is None or grown.text == last.text:
        return  # only whole entries appended
    judge.renamed[words(last.text)] = words(grown.text)
    origin = judge.origins.get(words(last.text))
    if origin is not None:
        judge.origins.setdefault(words(grown.text), origin)


def _judge_order(judge: Judge, revision: vcs.Revision, path: str, parent: Version, child: Version,
                 new: set[str]) -> None:
    """Entries are appended: every new entry comes after all the entries the parent held, in their order."""
    if child.texts[:len(parent.texts)] == parent.texts:
        return
    matcher = SequenceMatcher(None, parent.texts, child.texts, autojunk=False)
    kept = {index for block in matcher.get_matching_blocks() for index in range(block.b, block.b + block.size)}
    last = max(kept, default=-1)
    inserted = []
    for index, entry in enumerate(child.entries):
        if index in kept:
            continue
        if entry.text in new and index < last:
            inserted.append(entry)
        elif entry.text in parent.counts:
            judge.add(ENTRY_INSERTED, path, entry.line, f"{short(revision)} moved the entry {described(entry)}: "
                      "committed entries keep their order", subject=words(entry.text))
    restored = judge.restored(path)  # a removed log's entries put back above the ones written since: lost no more
    inserted = [entry for entry in inserted if words(entry.text) not in restored]
    if inserted:  # one finding for the entries one commit inserted (a log kept newest first inserts every one)
        judge.add(ENTRY_INSERTED, path, inserted[0].line, f"{short(revision)} inserted {which(inserted)} above "
                  f"entries earlier commits added (line {child.entries[last].line} of its version is one)",
                  subject=tuple(words(entry.text) for entry in inserted))
