"""The history rule of an audit log removed (aidlc/rules/docs_history.py, AIDLC-DOCS-024): deleted, emptied of its
entries, or hidden by the ignore rules once HEAD no longer holds it. A log written again holding every entry it held,
first and in order, lost nothing."""

from __future__ import annotations

import os
from collections import Counter

from aidlc import vcs
from aidlc.aidlc_docs.reader import is_audit_of
from aidlc.names import arg, shorten
from aidlc.plural import plural
from aidlc.rules.docs_history import LOG_REMOVED
from aidlc.rules.docs_history_judge import Judge, Removal, Version, short, words


def judge_removed(judge: Judge, revision: vcs.Revision, path: str, parents: list[Version | None],
                  child: Version | None, expected: Counter[str], blob: str | None) -> None:
    """The commit deleted the log (`child` None) or emptied it of its entries (its version `blob`: empty, saved as
    UTF-16, where no entry reads as the UTF-8 the rules write, or lines none of which reads as an entry)."""
    lost = sum(expected.values())
    if not lost:
        return
    held = [text for parent in parents if parent is not None for text in parent.texts if text in expected]
    removal = Removal(len(judge.findings), revision.parents[0], tuple(words(text) for text in dict.fromkeys(held)),
                      utf16=judge.utf16(blob))
    judge.removed[path] = removal
    if removal.utf16:
        judge.add(LOG_REMOVED, path, None, f"{short(revision)} saved {path} as UTF-16: none of the "
                  f"{plural(lost, 'entry')} it held before reads as UTF-8", f"iconv -f UTF-16 -t UTF-8 {arg(path)} "
                  f"> {arg(path + '.utf8')} && mv {arg(path + '.utf8')} {arg(path)}    # UTF-8 again, then commit")
        return
    lines = [line for line in judge.text(blob).split("\n") if line.strip()] if blob is not None else []
    what, left = "deleted" if blob is None else "emptied", ""
    if not all(line.startswith("#") for line in lines):  # more than its title: lines, none of them an entry
        what, left = "left no entry in", f": none of its {plural(len(lines), 'line')} reads as one"
    judge.add(LOG_REMOVED, path, None, f"{short(revision)} {what} {path}, which held {plural(lost, 'entry')} "
              f"before it{left}", f"git checkout {revision.parents[0]} -- {arg(path)}    # restore it, then commit")


def written_again(judge: Judge, revision: vcs.Revision, path: str, child: Version) -> None:
    """A version of the log written where its parents held none, after a commit deleted or emptied it: holding every
    entry the log held then, in its order and first, nothing was lost (ai-dlc-workshop-db: "Delete aidlc-workshop
    directory", then "Add files via upload" with two entries more); else the removal stands: a log deleted and written
    again reordered, or with an entry edited, is no way around the rules on order and edits. Another branch's version
    of the log, which never lost it, forgives nothing."""
    removal = judge.removed.pop(path, None)
    if removal is None:
        return
    now = [words(text) for text in child.texts]
    if tuple(now[:len(removal.held)]) == removal.held:
        judge.rewritten.add(removal.finding)
        return
    removal.again = revision
    judge.standing.append((path, removal))
    lacked = len(set(removal.held) - set(now))
    how = ("without them" if lacked == len(removal.held) else f"without {lacked} of them" if lacked
           else "not starting with them in their order")
    finding = judge.findings[removal.finding]
    finding.message = shorten(f"{finding.message}; {short(revision)} wrote it again {how}")


def settle_removals(judge: Judge) -> None:
    """Each removal still standing once the walk is done, against the log HEAD holds: one that starts with every entry
    the removed log held, in their order, lost nothing (put back above the entries written since). Else, where a file
    stands at the path, HEAD's or one the work tree holds, the step puts the entries back into it, never checks the
    old version out over it: SUNCHANG-KWON/aidlc-workshop-tableorder's 04b9d5c deleted audit.md and b27a81a wrote
    another log there, which the checkout would have overwritten."""
    for path, removal in [*judge.standing, *judge.removed.items()]:
        head = judge.at_head(path)
        now = [words(text) for text in head.texts] if head is not None else []
        if tuple(now[:len(removal.held)]) == removal.held:
            judge.rewritten.add(removal.finding)
        elif not removal.utf16 and (head is not None or os.path.lexists(judge.history.project / path)):
            judge.findings[removal.finding].fix = shorten(_put_back(removal, path, set(now)))


def _put_back(removal: Removal, path: str, now: set[str]) -> str:
    """The step that puts a removed log's entries back above the entries of the log at `path` (`now`: their words):
    all of them by one command where it holds none of them, else the old log shown and the ones to put back said."""
    shown = f"git show {arg(f'{removal.parent}:{path}')}"
    lacked = sum(said not in now for said in removal.held)
    if lacked < len(removal.held):  # no command takes the lacking entries and leaves the others
        return (f"{shown}    # the log as it was: put the {plural(lacked, 'entry')} the current log lacks back "
                "above its entries, in their order, then commit")
    new = arg(f"{path}.new")
    return (f"{{ {shown} && echo && cat {arg(path)}; }} > {new} && mv {new} {arg(path)}    # the "
            f"{plural(lacked, 'entry')} it held back above the current ones, then commit")


# -- the log removed from tracking ----------------------------------------------------------------------------------
def judge_ignored(judge: Judge, rel: str, audits: list[str], since: str | None) -> None:
    """An audit log that commits tracked (on the judged history, or at `since`) which HEAD no longer holds and the
    work tree's ignore rules ignore: the agent's next entries would never be committed. A log HEAD holds is tracked,
    and git commits its changes whatever the ignore rules say (aidlc-workshop's `audit.md` line in .gitignore)."""
    history = judge.history
    held = _held_logs(judge.head, rel)
    tracked = set(audits)
    if since:
        tracked.update(_held_logs(history.files(since, rel), rel))
    for found in history.ignored(sorted(tracked - held)):
        judge.add(LOG_REMOVED, found.source, found.line, f"{found.path} is git-ignored by `{found.pattern}` "
                  f"({found.source}:{found.line}) although commits tracked it: new entries would not be committed",
                  f"remove `{found.pattern}` from {found.source} (or add `!{found.path}` after it), then commit "
                  f"{found.path}")


def _held_logs(files: dict[str, str], rel: str) -> set[str]:
    """The audit logs among `files` (a commit's, in the docs folder `rel`: History.files)."""
    return {path for path in files if is_audit_of(rel, path)}
