"""The history rules of stages ticked without an approval (aidlc/rules/docs_history.py): a commit that ticks a stage
in the state file must hold the person's approval of it in its audit logs, as that commit holds them; a line it writes
in place of a stage's unticked line, ticked and naming no stage, ticks that stage under a name no rule reads."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from aidlc import vcs
from aidlc.aidlc_docs.model import AuditEntry, DocsProject, Mark, StageLine, StateFile
from aidlc.aidlc_docs.reader import AUDIT_FILE
from aidlc.aidlc_docs.stages import BY_SLUG
from aidlc.aidlc_docs.state import read_state, restate
from aidlc.names import arg
from aidlc.rules.docs_approvals import Units, approvals_in
from aidlc.rules.docs_history import LOG_REMOVED, STATE_REMOVED, TICKED_RENAMED, TICKED_UNAPPROVED
from aidlc.rules.docs_history_judge import Judge, short, versions, words
from aidlc.rules.docs_standing import approval_of, claimed_units, unnamed_stages

# A ticked line (a later box too: `- [ ] Functional Design / [x] NFR Design`), or a table row.
_TICKED = re.compile(r"^[ \t]*(?:[-*+][ \t]+\[(?:[xX]\]|.\].*\[[xX]\])|\|).*$", re.MULTILINE)

Key = tuple[str, str | None]  # (stage, unit), the unit as the line names it
Ticked = dict[Key, list[StageLine]]  # (stage, unit) -> the lines that hold it ticked, in order
Reported = frozenset[Key]  # (stage, unit) AIDLC-DOCS-003 reports (`docs_standing.unapproved`)
Given = dict[tuple[str, str | None], list[AuditEntry]]  # approvals, as `approvals_in` keys them


def judge_ticks(judge: Judge, revisions: list[vcs.Revision], state_rel: str, audits: list[str],
                project: DocsProject, units: Units, reported: Reported = frozenset(), since: str | None = None) -> None:
    """A commit that ticks a stage (a stage line [x] of a stage and unit that more of its lines hold ticked than any
    parent's state does) must hold an approval of it in its audit logs, read as AIDLC-DOCS-003 reads the work tree's
    (aidlc/rules/docs_standing.py): an entry whose heading (or context) names the stage (and the unit, where it names
    one) with a person's words.
    A commit that ticks a stage again (a line more than its parents hold ticked: a next feature's section beside the
    first's; or ticked after a commit unticked it) must hold one logged since the commit that ticked it before (with
    `since`, the base of `aidlc ci --base`: since the base, for a stage the base holds ticked): the first feature's
    approval is not the next one's. Skipped stages and stages without an approval (workspace detection, operations)
    need none. `project`, the work tree's, names the units and the stages run once for every unit; `units` reads its
    entries (the reading of the work tree's, kept in it, serves every version that holds them). A stage (of a unit)
    in `reported`, ticked in the work tree with no approval at all, is left out: AIDLC-DOCS-003 reports it, an error,
    and the commit that ticked it adds nothing a reader must act on (259 of 330 of these warnings on 93 public
    checkouts)."""
    judge.read({blob for r in revisions if state_rel in r.files for blob in versions(r, state_rel)})
    states = _StateVersions(judge, state_rel, project.units)
    # A version of the state file -> (stage, unit) -> the commit that last ticked it in that version's history: a
    # tick again is judged by the approvals logged since, on the commit's own line of history, not a sibling
    # branch's (a pull request's branches each adding one ticked file; one piece of work committed twice).
    earlier: dict[str, dict[Key, str]] = {}
    base = judge.history.blobs([(since, state_rel)])[(since, state_rel)] if since is not None else None
    if since is not None and base is not None:
        judge.read({base})
        earlier[base] = dict.fromkeys(states.ticked(base), since)
    ticks: list[tuple[vcs.Revision, list[_Tick]]] = []
    order = {revision.sha: index for index, revision in enumerate(revisions)}  # parents before children
    for revision in revisions:
        new, old = revision.files.get(state_rel, (None, ()))
        sides = [earlier[blob] for blob in old if blob is not None and blob in earlier]
        marks = sides[0] if len(sides) == 1 else _later(sides, order)  # shared, never changed in place
        fresh = states.fresh(revision)
        if found := [_Tick(line, nth, marks.get(_key(line))) for line, nth in fresh] + \
                [_Tick(line, 0, marks.get(_key(line)), was.text) for line, was in states.renamed(revision)]:
            ticks.append((revision, found))
        if new is not None:
            earlier[new] = marks | {_key(line): revision.sha for line, _ in fresh} if fresh else marks
    if base is not None and (head := judge.head.get(state_rel)) is not None:
        ticks += _renamed_over_the_range(states, revisions, base, head, ticks)
    if ticks:
        _judge_approved(judge, ticks, audits or [f"{project.rel}/{AUDIT_FILE}"], state_rel, project, units, reported)


def judge_state_removed(judge: Judge, revisions: list[vcs.Revision], state_rel: str, project: DocsProject) -> None:
    """The last commit that deleted the state file, where the work tree reads none: a pull request that renames
    aidlc-state.md (`AIDLC-State.md`, one letter of another alphabet) or splits it into two state/ files leaves every
    stage unjudged, as one that deletes the audit log would (AIDLC-DOCS-024). A folder deleted whole is charged so
    where 024 charged no log of it (judged before this): takashimamorino/aidlc-workflows kept its log as log.md, and
    the pull request deleting the folder passed; so did one whose audit.md held no entry to lose."""
    folder_kept = (Path(project.root) / project.rel).is_dir()
    if project.state is not None or (not folder_kept and any(f.code == LOG_REMOVED.code for f in judge.findings)):
        return
    deleted = [revision for revision in revisions if state_rel in revision.files
               and revision.files[state_rel][0] is None and any(revision.files[state_rel][1])]
    # A state file HEAD holds again was written by a later commit: the deletion is not why none is read (an unreadable
    # one is AIDLC-DOCS-015's), and the deleted version checked out would overwrite it.
    if deleted and state_rel not in judge.head:
        revision = deleted[-1]
        where = (f", and the work tree holds no state file aidlc reads in {project.rel}/ (aidlc-state.md, or one "
                 "state/<branch>.md)" if folder_kept else
                 f", and the {project.rel}/ folder, which held no audit log entry, is gone")
        judge.add(STATE_REMOVED, state_rel, None, f"{short(revision)} deleted {state_rel}{where}: no stage's tick or "
                  "approval is checked", f"git checkout {revision.parents[0][:12]} -- {arg(state_rel)}    # the state "
                  "file as it was; commit it")


def _renamed_over_the_range(states: _StateVersions, revisions: list[vcs.Revision], base: str, head: str,
                            ticks: list[tuple[vcs.Revision, list[_Tick]]]) -> list[tuple[vcs.Revision, list[_Tick]]]:
    """A stage's line renamed and ticked over a pull request's commits, not by one of them (one deletes the unticked
    line, the next writes the ticked one in its place): the base's state file against HEAD's, each such line judged
    as the commit that wrote it holds the logs."""
    seen = {tick.line.text for _, found in ticks for tick in found if tick.renamed is not None}
    found = []
    for line, old in states.replaced(base, head):
        writer = next((revision for revision in revisions if states.writes(revision, line.text)), None)
        if writer is not None and line.text not in seen:
            found.append((writer, [_Tick(line, 0, None, old.text)]))
    return found


def _later(sides: list[dict[Key, str]], order: dict[str, int]) -> dict[Key, str]:
    """A merge's ticks: of each stage (of a unit), the later of its sides' (`order`: the commits, parents first)."""
    marks: dict[Key, str] = {}
    for key, sha in (mark for side in sides for mark in side.items()):
        if order.get(sha, -1) >= order.get(marks.get(key, ""), -1):
            marks[key] = sha
    return marks


class _Tick(NamedTuple):
    """A line that ticks a stage (of a unit): the `nth` line of the state file's that hold it ticked; `before`, the
    commit that ticked it before, if any (the line ticks it again); `renamed`, the text of the stage's unticked line
    it was put in place of, its own naming no stage (`_StateVersions.renamed`)."""

    line: StageLine
    nth: int
    before: str | None
    renamed: str | None = None


def _judge_approved(judge: Judge, ticks: list[tuple[vcs.Revision, list[_Tick]]],
                    logs: list[str], state_rel: str, project: DocsProject, units: Units, reported: Reported) -> None:
    """Each stage a commit ticks, of each unit the line claims it of, against the audit logs `logs` as that commit
    holds them (a tick again: against the entries they hold that the commit of the earlier tick did not)."""
    shas = {revision.sha for revision, _ in ticks} | {tick.before for _, fresh in ticks for tick in fresh
                                                      if tick.before}
    blobs = judge.history.blobs([(sha, path) for sha in shas for path in logs])
    judge.read({blob for (_, path), blob in blobs.items() if not judge.parsed(blob, path)})
    unnamed = unnamed_stages(project)
    held: dict[str, set[str]] = {}  # a commit of an earlier tick -> the words of the entries its logs hold
    for revision, fresh in ticks:
        given = approvals_in([_entries(judge, blobs[(revision.sha, path)], path) for path in logs], units)
        for line, nth, before, renamed in fresh:
            if before is not None and before not in held:
                held[before] = {words(entry.text) for path in logs
                                for entry in _entries(judge, blobs[(before, path)], path)}
            since = given if before is None else _logged_since(given, held[before])
            stage = BY_SLUG[line.stage or ""]
            for unit in claimed_units(project, units, line, since):
                text, named = line.text, unit if stage.per_unit else None
                if (stage.slug, named) in reported or approval_of(since, stage, unit, stage.slug in unnamed):
                    continue
                said = " and its audit log holds no approval of it" if before is None else \
                    f" again, and no approval of it was logged since {before[:12]} held it ticked"
                of = f"{stage.slug}{f', unit {named}' if named else ''}"
                rule, message = (TICKED_UNAPPROVED, f"(stage {of}){said}") if renamed is None else \
                    (TICKED_RENAMED, f"in place of `{renamed[:80]}`, a name no rule reads for the stage {of},{said}")
                judge.add(rule, state_rel, line.line, f"{short(revision)} ticks `{text[:80]}` {message}",
                          subject=(_as_written(text), *([_subject(stage.slug, line.unit, nth)] if nth else []),
                                   _subject(stage.slug, line.unit), _as_written(text, once=False)))


def _logged_since(given: Given, held: set[str]) -> Given:
    """The approvals of `given` whose entries were not yet logged at an earlier tick (`held`: their words)."""
    return {key: since for key, entries in given.items()
            if (since := [entry for entry in entries if words(entry.text) not in held])}


def ticks_at_head(judge: Judge, state_rel: str, units: list[str]) -> dict[str, int]:
    """The line of each text (`_as_written`) the state file holds once at HEAD, which a finding names first: the
    line the commit ticked, even where HEAD reads its stage or unit otherwise (a heading `#### Unit 1: Customer
    Frontend` added over it, or the line moved under an archive heading below the next feature's). Then the line of
    each stage (of each unit), for a line edited since: its first ticked line, else its first (a file that lists a
    stage twice, `Units Generation ✅` and later `⏭️ Skipped`, is pointed at the tick a finding is about). Last, the
    first line of a text HEAD holds more than once (`Build and Test - COMPLETE` under each unit's heading). A stage
    ticked again, on a line of a text HEAD holds more than once (`Units Generation — Complete (2026-04-14)` in two
    increments' sections), is pointed at its nth ticked line."""
    blob = judge.head.get(state_rel)
    state = read_state(judge.text(blob), state_rel, units) if blob is not None else None
    found: dict[str, int] = {_subject(*key, nth): line.line for key, lines in (_ticked(state) if state else {}).items()
                             for nth, line in enumerate(lines) if nth}
    ticked: set[str] = set()
    twice: set[str] = set()
    for line in state.stages if state is not None else []:
        text = _as_written(line.text)
        if found.get(text, line.line) != line.line:  # a line listing two units is read twice, at one line
            twice.add(text)
        found[text] = line.line
        found.setdefault(_as_written(line.text, once=False), line.line)
        subject = _subject(line.stage, line.unit) if line.stage is not None else None
        if subject is None or subject in ticked:
            continue
        if line.mark == Mark.done:
            ticked.add(subject)
            found[subject] = line.line
        else:
            found.setdefault(subject, line.line)
    for text in twice:
        del found[text]
    return found


def _as_written(text: str, once: bool = True) -> str:
    """A state line as a subject of its own: its text (no stage subject has a line feed); `once=False`: its first
    line, wherever HEAD holds it more than once."""
    return f"\n{text.strip()}" + ("" if once else "\n")


def _subject(stage: str, unit: str | None, nth: int = 0) -> str:
    """What a finding on a ticked stage is about: the stage of the unit, wherever the state file writes its line
    (with `nth`: its nth ticked line, the first being the 0th)."""
    return f"{stage}\t{unit or ''}" + (f"\t{nth}" if nth else "")


def _entries(judge: Judge, blob: str | None, path: str) -> list[AuditEntry]:
    version = judge.version(blob, path)
    return version.entries if version else []


@dataclass
class _StateVersions:
    """The versions of the state file at `path`: the stages each holds ticked, read once per blob (as a commit's
    and as its child's parent); a version that only ticks boxes of its parent's is read from the parent's reading
    (`restate`), a few of which are kept."""

    judge: Judge
    path: str
    units: list[str]  # the unit folders, as read_state names units by them
    _ticked: dict[str, Ticked] = field(default_factory=dict)
    _states: dict[str, StateFile] = field(default_factory=dict)  # the last few readings, oldest first

    def fresh(self, revision: vcs.Revision) -> list[tuple[StageLine, int]]:
        """A line for each stage (of a unit) the commit ticks, with its index among the lines that hold it ticked: a
        stage more of its lines hold ticked than any of its parents' do. Ticked in no parent, its first line; else
        (ticked again: a next feature's line) the line `_added` names."""
        if self.path not in revision.files:
            return []
        new_blob, parent_blobs = revision.files[self.path]
        if new_blob is None:
            return []
        old_blobs = [blob for blob in parent_blobs if blob is not None]
        if not _ticked_lines(self.judge.text(new_blob)) - {line for blob in old_blobs
                                                            for line in _ticked_lines(self.judge.text(blob))}:
            return []  # no ticked line that its parents lack: nothing was ticked
        before: Ticked = {}
        for blob in old_blobs:
            for key, lines in self.ticked(blob).items():
                if len(lines) > len(before.get(key, [])):
                    before[key] = lines
        found = []
        inserted: set[int] | None = None
        for key, lines in self.ticked(new_blob, old_blobs[0] if old_blobs else None).items():
            held = before.get(key, [])
            if len(lines) > len(held):
                if held and inserted is None:  # the stage ticked again: which line did it?
                    inserted = _inserted(self.judge.text(old_blobs[0]), self.judge.text(new_blob))
                nth = _added(lines, held, inserted or set())
                if not _second_part(lines[nth], held):
                    found.append((lines[nth], nth))
        return found

    def renamed(self, revision: vcs.Revision) -> list[tuple[StageLine, StageLine]]:
        """The stage lines the commit renamed and ticked: `replaced`, its version against its one parent's."""
        new_blob, old_blobs = revision.files.get(self.path, (None, ()))
        if new_blob is None or len(old_blobs) != 1 or old_blobs[0] is None:
            return []
        return self.replaced(old_blobs[0], new_blob)

    def writes(self, revision: vcs.Revision, text: str) -> bool:
        """Whether the commit writes a ticked line of that text (after its box) that none of its parents holds."""
        new_blob, old_blobs = revision.files.get(self.path, (None, ()))
        if new_blob is None:
            return False
        held = {line for blob in old_blobs if blob is not None for line in _ticked_lines(self.judge.text(blob))}
        return any(line not in held and line.endswith(text) for line in _ticked_lines(self.judge.text(new_blob)))

    def replaced(self, old_blob: str, new_blob: str) -> list[tuple[StageLine, StageLine]]:
        """Each ticked line of `new_blob` naming no stage (or one that waits for no approval: `Workspace Detection
        (x)`) written where `old_blob` holds the unticked line of a stage waiting for approval (the same line of a
        block edited in place, as difflib compares them), no line naming that stage any more (of that unit, or of
        none): (the new line, read as that stage's, the line it replaced). `- [ ] Build and Test - EXECUTE` made `- [x]
        Builds and Tests - EXECUTE` was a tick no rule read. A block rewritten into one of another length is a
        restructuring (BADA's stage lines followed by `POST-MVP - ...` items, Jeldo's work items in place of a unit's
        stage lines: 8 such pairs on 174 public checkouts, none a renaming)."""
        old_text, new_text = self.judge.text(old_blob), self.judge.text(new_blob)
        added = _ticked_lines(new_text) - _ticked_lines(old_text)
        if not added:
            return []
        self.ticked(old_blob)
        self.ticked(new_blob, old_blob)
        new_state, old_state = self._state(new_blob), self._state(old_blob)
        new_lines = new_text.split("\n")
        unknown = {line.line: line for line in new_state.stages if line.mark == Mark.done
                   and (line.stage is None or not BY_SLUG[line.stage].approval)
                   and new_lines[line.line - 1].strip() in added}
        named = {_key(line) for line in new_state.stages if line.stage is not None}
        waiting = {line.line: line for line in old_state.stages if line.stage is not None and line.mark != Mark.done
                   and not line.skipped and BY_SLUG[line.stage].approval and _key(line) not in named
                   and (line.stage, None) not in named
                   and (line.unit is not None or not any(stage == line.stage for stage, _ in named))}
        edits = _edited_in_place(old_text.split("\n"), new_lines, set(waiting), set(unknown)) \
            if unknown and waiting else ()
        return [(unknown[at].model_copy(update={"stage": waiting[was].stage, "unit": waiting[was].unit,
                                                "every_unit": waiting[was].every_unit}), waiting[was])
                for was, at in edits if was in waiting and at in unknown]

    def _state(self, blob: str) -> StateFile:
        """The reading of a version `ticked` has read (read again if no longer kept)."""
        return self._states.get(blob) or self._keep(blob, read_state(self.judge.text(blob), self.path, self.units))

    def _keep(self, blob: str, state: StateFile) -> StateFile:
        self._states[blob] = state
        if len(self._states) > 8:  # a reading is wanted again mostly as the next commit's parent
            del self._states[next(iter(self._states))]
        return state

    def ticked(self, blob: str, parent: str | None = None) -> Ticked:
        if blob not in self._ticked:
            text = self.judge.text(blob)
            known = self._states.get(parent) if parent is not None else None
            state = restate(known, self.judge.text(parent), text) if known is not None and parent is not None \
                else None
            self._ticked[blob] = _ticked(self._keep(blob, state or read_state(text, self.path, self.units)))
        return self._ticked[blob]


def _added(lines: list[StageLine], held: list[StageLine], inserted: set[int]) -> int:
    """Of the lines that hold a stage ticked, the index of the one that ticks it anew, its parent holding `held`: the
    first of a text none held has, among the lines the commit inserted (hammer92/evaluadorIA's next sprint's line,
    not the line of the sprint before that the commit wrote its name on), else the first of a new text, else the
    first line more."""
    texts = {line.text for line in held}
    new = [nth for nth, line in enumerate(lines) if line.text not in texts]
    return next((nth for nth in new if lines[nth].line in inserted), new[0] if new else len(held))


def _second_part(line: StageLine, held: list[StageLine]) -> bool:
    """Whether the line ticks a stage's Part 2 where the parent holds its Part 1 ticked, and no Part 2: the same round
    of the stage, not a next one (agwlvssainokuni/cherry-testtool's `Code Generation Part 1(Planning)`, then `Part 2`;
    DocSuri and BaekJaeIn/cheongYak-radar likewise: 3 of 107 warnings read)."""
    parts = {_part(earlier.text) for earlier in held}
    return _part(line.text) == "2" and "1" in parts and "2" not in parts


def _part(text: str) -> str | None:
    found = _PART.search(text)
    return None if found is None else "1" if found["one"] else "2"


_PART = re.compile(r"\bpart[ \t]*(?:(?P<one>1|one|i)|2|two|ii)\b", re.IGNORECASE)


def _inserted(old: str, new: str) -> set[int]:
    """The numbers of the lines of `new` inserted between lines of `old` (not put in place of others); none told
    apart past `_COMPARED` lines. difflib's own bound on lines met often (`autojunk`) keeps a file of one line repeated
    linear: without it, 20,000 copies of `- [x] Code Generation` took 44 s to compare."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    if max(len(old_lines), len(new_lines)) > _COMPARED:
        return set()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
    return {number + 1 for tag, _, _, start, end in matcher.get_opcodes() if tag == "insert"
            for number in range(start, end)}


def _edited_in_place(old: list[str], new: list[str], olds: set[int], news: set[int]) -> Iterator[tuple[int, int]]:
    """(line of `old` in `olds`, line of `new` in `news`), from 1, of each line of a block edited in place: a `replace`
    of difflib's the same length on both sides; past `_COMPARED` lines (difflib's time may grow with their square),
    an edited line whose neighbours above and below are the same on both sides, so padding hides no edit."""
    if max(len(old), len(new)) <= _COMPARED:
        for tag, old_start, old_end, new_start, new_end in difflib.SequenceMatcher(None, old, new).get_opcodes():
            if tag == "replace" and old_end - old_start == new_end - new_start:
                yield from ((old_start + n + 1, new_start + n + 1) for n in range(old_end - old_start))
        return
    around = {(old[at - 2], old[at]): at for at in sorted(olds, reverse=True) if 1 < at < len(old)}
    yield from ((around[key], at) for at in sorted(news) if 1 < at < len(new)
                and (key := (new[at - 2], new[at])) in around and old[around[key] - 1] != new[at - 1])


_COMPARED = 2_000  # lines of a state file compared to tell an inserted line (public ones hold a few hundred)


def _ticked_lines(text: str) -> set[str]:
    return {line.strip() for line in _TICKED.findall(text)}


def _ticked(state: StateFile) -> Ticked:
    """The stages a state file holds ticked and not skipped, that need an approval, each with its lines."""
    found: Ticked = {}
    for line in state.stages:
        if line.mark == Mark.done and line.stage is not None and not line.skipped and BY_SLUG[line.stage].approval:
            found.setdefault(_key(line), []).append(line)
    return found


def _key(line: StageLine) -> Key:
    return line.stage or "", line.unit
