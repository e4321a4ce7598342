"""The aidlc-docs rules that git history decides: audit.md (and each audit/*.md shard) only ever grows, its
timestamps agree with the commits that added the entries, and a stage is ticked in aidlc-state.md only once the
audit log holds its approval.

Git is the evidence: every commit that changed the audit logs or the state file, on HEAD's history (or a pull
request's commits), each compared with its parents (aidlc/vcs/ reads them). Entries are matched across
versions by their text (AuditEntry.text): what a parent holds and the commit does not was deleted or edited by that
commit. A merge is charged only with what no side explains: an entry one side added and the merge dropped, or one
every side kept; an entry one side deleted since the merge base is that side's commit's deletion, not the merge's.

The rules are judged in turn over the commits: the entries of each log (aidlc/rules/docs_history_log.py; the log
removed: aidlc/rules/docs_history_removed.py), their timestamps (aidlc/rules/docs_history_stamps.py), the stages
ticked (aidlc/rules/docs_history_ticks.py).
"""

from __future__ import annotations

from pathlib import Path

from aidlc import vcs
from aidlc.aidlc_docs.model import DocsProject
from aidlc.aidlc_docs.reader import AUDIT_FILE, AUDIT_FOLDER, STATE_FILE, is_audit_of, state_file
from aidlc.model.findings import Finding
from aidlc.rules.docs_approvals import Units
from aidlc.rules.docs_history_judge import Judge, versions
from aidlc.rules.docs_history_log import judge_log, report_deletions
from aidlc.rules.docs_history_removed import judge_ignored, settle_removals
from aidlc.rules.docs_history_stamps import judge_shared, judge_stamps, moment
from aidlc.rules.docs_history_ticks import Reported, judge_state_removed, judge_ticks, ticks_at_head

CHUNK = 64  # commits whose audit log versions are read at once


def history_findings(project: DocsProject, since: str | None = None, ticks: bool = True,
                     units: Units | None = None, reported: Reported = frozenset()) -> list[Finding]:
    """The findings of the history rules on the docs folder of `project` (the work tree's): over every commit
    of HEAD's history, or with `since` (a commit) over the commits of `since..HEAD` only (`aidlc ci --base`).
    `ticks`: judge v1 stage ticks against audit.md's approvals (not on a v2 intent record, whose rows and
    STAGE_COMPLETED events aidlc/rules/docs_records.py judges), reading the logs' entries with `units` (one made here
    when None); the ticks' rule leaves the stages in `reported` to AIDLC-DOCS-003, which reports them. Nothing
    outside a Git repository or in one without commits."""
    root, rel = Path(project.root), project.rel
    history = vcs.history(root)
    if history is None or history.head is None:
        return []
    judge = Judge(history, head=history.files("HEAD", rel))
    state_rel = f"{rel}/{state_file([path[len(rel) + 1:] for path in judge.head]) or STATE_FILE}"
    revisions = history.revisions([f"{rel}/{AUDIT_FILE}", f"{rel}/{AUDIT_FOLDER}", state_rel], since)
    audits = sorted({path for r in revisions for path in r.files if is_audit_of(rel, path)})
    _judge_logs(judge, revisions, audits)
    first = [at for at in (moment(text) for text in history.first_dates(since)) if at is not None]
    judge_stamps(judge, revisions, audits, min(first) if first else None)
    judge_shared(judge, audits, since)
    judge_ignored(judge, rel, audits, since)
    judge_state_removed(judge, revisions, state_rel, project)
    if ticks:
        judge_ticks(judge, revisions, state_rel, audits, project, units or Units(project), reported, since)
    # Each finding at the line HEAD holds what it is about: the line of an older version is another line now.
    at_head = {**{path: judge.entries_at_head(path) for path in audits},
               **({state_rel: ticks_at_head(judge, state_rel, project.units)} if ticks else {})}
    judge.relocate(at_head)
    settle_removals(judge)
    judge.forget_rewritten()
    report_deletions(judge, at_head)
    return sorted(judge.findings, key=lambda f: f.sort_key())


def _judge_logs(judge: Judge, revisions: list[vcs.Revision], audits: list[str]) -> None:
    """Each commit's version of each audit log it changed against its parents' (and a merge's base's), a few
    commits' versions read at a time."""
    history = judge.history
    bases = _merge_bases(history, revisions)
    base_blobs = history.blobs([(base, path) for sha, base in bases.items() for path in audits
                                if path in _revision(revisions, sha).files])
    for start in range(0, len(revisions), CHUNK):  # a few versions' bytes at a time
        chunk = revisions[start:start + CHUNK]
        judge.read({blob for r in chunk for path in audits if path in r.files
                    for blob in versions(r, path, base_blobs.get((bases.get(r.sha, ""), path)))})
        for revision in chunk:
            base = bases.get(revision.sha)
            for path in audits:
                if path in revision.files:
                    judge_log(judge, revision, path, None if base is None else base_blobs[(base, path)])
        judge.forget()


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
