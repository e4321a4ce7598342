"""The approvals the aidlc-docs layout's audit logs record: the entries with a person's words, by the stage (of
which unit) each answers for, read entry after entry along each log in the order logged (`as_logged` in
aidlc/aidlc_docs/audit.py: a log kept newest first from the bottom up; what one entry says:
aidlc/rules/docs_entries.py, and what it answers of the one before it: aidlc/rules/docs_answered.py; when each stage
was first approved: aidlc/rules/docs_approval_order.py). The work-tree rules (aidlc/rules/docs_layout.py), the
history rules (aidlc/rules/docs_history_ticks.py, on each commit's version of the logs), `aidlc status` and the unit
evidence read approvals this one way. What the person's words and the agent's answer say is read in
aidlc/rules/docs_words.py and aidlc/rules/docs_approved.py.

An approval, as these rules read one, is an audit entry whose heading or Context names the stage (and the unit,
when the ticked line names one) and whose User Input or User Response holds a person's words: not an empty, `N/A`
or `(pending)` field, not the AI's own approval prompt, not a `Status` of changes requested, not words that refuse
or only pick options, not the words logged with the agent's answer that puts the stage to the person.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from aidlc.aidlc_docs.audit import as_logged
from aidlc.aidlc_docs.model import AuditEntry, DocsProject, StageLine
from aidlc.aidlc_docs.stages import BY_SLUG, STAGES, stage_of, stages_named
from aidlc.aidlc_docs.units import folders_named, letter_unit, letters_of, listed_units, unit_of
from aidlc.rules.docs_answered import answered, put_to_the_person
from aidlc.rules.docs_approved import approved_for_every_unit, approved_in_answer
from aidlc.rules.docs_entries import (
    approved_stages,
    approves,
    context_stage,
    new_request,
    notes_approval,
    plan_part,
    plans_of,
    refuses,
    says_approved,
)
from aidlc.rules.docs_headings import STARTS, heading_of
from aidlc.rules.docs_words import (
    APPROVAL,
    NOT_APPROVED,
    approval_at,
    done_here,
    goes_ahead,
    has_words,
    names_approval,
    not_a_yes,
    words_of,
)


class Units:
    """Which unit an audit entry is about: `Unit 3`, `U3` in its heading (else its Context), or a unit folder its
    heading (else its Context) names, by the number the state file, the units' document or another entry ties to it
    (heading `(admin-web)`, Context `Unit 3`)."""

    def __init__(self, project: DocsProject) -> None:
        # (the text of the entry before, the entry's text) -> what the entry says for approvals (`_said`)
        self.readings: dict[tuple[str | None, str], _Said] = {}
        # id of a log version's first entry -> its reading but the last entry's (`approvals_in`)
        self.read_logs: dict[int, _LogRead] = {}
        self.folders = [name for name in project.units if unit_of(name) is None]
        self.letters = letters_of([line.unit for line in project.state.stages]) if project.state else frozenset()
        self.alias: dict[str, str] = dict(project.unit_numbers)  # the state file's or the units' document's first
        for log in project.audits:
            for entry in log.entries:
                number = self._number(entry.heading or "") or self._number(entry.fields.get("context", ""))
                for folder in self._folders_in(entry.heading or ""):
                    if number is not None:
                        self.alias.setdefault(folder, number)
        self.every = tuple(dict.fromkeys(unit_of(folder) or self.alias.get(folder, folder) for folder in project.units))

    def _folders_in(self, text: str) -> list[str]:
        return folders_named(text, self.folders)

    def _number(self, text: str) -> str | None:
        """The unit a text names by number, or by a letter the state file names a unit by (`Unit A`)."""
        return unit_of(text) or (letter_unit(text, self.letters) if self.letters else None)

    def key(self, unit: str | None) -> str | None:
        """The unit as approvals are keyed: a unit folder a heading ties to a number, by its number."""
        return self.alias.get(unit, unit) if unit is not None else None

    def of(self, entry: AuditEntry) -> str | None:
        heading, context = heading_of(entry), entry.fields.get("context", "")
        folders = self._folders_in(heading)
        named = self._number(heading) or next((self.alias[f] for f in folders if f in self.alias), None)
        if named or self._number(context):
            return named or self._number(context)
        # A folder named in the Context alone is keyed by its number too (MangoYoun/aidlc-workshop-tableorder: Context
        # `NFR Design (Backend Service) 완료`, the state file's `#### Unit 1: Backend Service`); one tied to no number
        # is the unit as its own name (`v4-migration`, `v4 migration`).
        folders = folders or self._folders_in(context)
        return self.key(folders[0]) if len(folders) == 1 else None

    def each(self, entry: AuditEntry) -> tuple[str | None, ...]:
        """The units an entry is about: those its heading lists (`U3 + U5 功能设计和代码生成完成`), else its one."""
        unit, heading = self.of(entry), heading_of(entry)
        listed = listed_units(heading) if unit is not None and unit_of(heading) == unit else []
        return tuple(listed) if len(listed) > 1 else (unit,)

    def approved(self, entry: AuditEntry) -> tuple[str | None, ...]:
        """The units the stages an entry approves are of: every unit where its heading names none and it says the
        approval is of every unit (`approved_for_every_unit`), whatever unit its Context names; else `each`."""
        heading = heading_of(entry)
        if len(self.every) > 1 and unit_of(heading) is None and not self._folders_in(heading) and \
                approved_for_every_unit(entry, len(self.every)):
            return self.every
        return self.each(entry)


class _Said(NamedTuple):
    """What one audit entry, after the one before it, says for the approvals: a pure reading of the two texts."""

    unit: str | None  # the unit it is about
    # the stage its heading names, else its Context, unless the Context is about another unit (`## U6 Approved / U3
    # Functional Design Start`, Context `U3 Functional Design start`: unit U6 was at Code Generation)
    named: str | None
    words: bool  # it holds a person's words that are no new instruction
    stages: tuple[str, ...]  # the stages it answers for (`approved_stages`)
    unit_approval: bool  # its heading says approved and names no stage: of the stage its unit was at
    answered: tuple[tuple[str, str | None], ...]  # (stage, unit) the entry before put to the person, answered here
    starts: bool  # its heading starts a stage
    says: bool  # its heading, Status, Context or the person's words say approved (`says_approved`)
    plans: frozenset[str]  # the stages whose plan, not the stage, it is about (`plans_of`)
    of_units: tuple[str | None, ...]  # a heading listing units answers for each; one approving every unit, for all
    in_answer: tuple[str, ...]  # stages its heading and Context do not name that its AI response says approved
    heading_says: bool  # its heading, Status or Context says approved


def _said(units: Units, before: AuditEntry | None, entry: AuditEntry) -> _Said:
    key = (before.text if before is not None else None, entry.text)  # the heading is the text's first line
    if key not in units.readings:
        heading, context = heading_of(entry), entry.fields.get("context", "")
        unit = units.of(entry)
        waited = answered(before, entry)
        approved, presented = says_approved(entry), _presented(entry, heading)
        done = () if approved else done_here(entry)
        named_here = _named_here(entry, heading, context)
        units.readings[key] = _Said(
            unit, stage_of(heading) or (context_stage(context) if unit_of(context) in (None, unit) else None),
            has_words(entry) and not new_request(entry) and not not_a_yes(entry),
            tuple(stage for stage in approved_stages(entry) if stage != presented and stage not in done),
            names_approval(heading) and not NOT_APPROVED.search(heading),
            # a go-ahead after kiro-project-demo's `U3 + U5 功能设计和代码生成完成` answers for both units
            tuple((stage, each) for stage in waited for each in units.each(before)) if before is not None else (),
            STARTS.search(entry.heading or "") is not None, approved, plans_of(entry),
            units.approved(entry),
            tuple(stage for stage in approved_in_answer(entry) if stage not in named_here and stage != presented),
            names_approval(heading) or notes_approval(entry))
    return units.readings[key]


def _presented(entry: AuditEntry, heading: str) -> str | None:
    """The stage the entry itself puts to the person (`Requirements Analysis complete. Awaiting user approval.`):
    its words came before that, and approve it no more than the agent's answer does; unless the entry says it was
    approved (`Requirements Analysis approved. Next: User Stories, awaiting approval`), or its heading and the
    person's words do (Neurond-AI's "Approve & Continue" under `## User Stories — Approval`, Context `INCEPTION -
    User Stories - Approval Gate`); not a heading alone (`## Application Design - Approval`, "go", Context `...
    Awaiting explicit approval.`), nor words alone (AIDLC-2.4's `"y" (SSE 구조 승인) + ... 추가 요청` under `##
    Application Design - Complete`: a part approved, more asked, the design made after them), nor a heading approving
    another stage (content-hub-mcp's `Workflow Planning — approved; Functional Design drafted`, "Approve &
    Continue", Context `Functional Design (approval gate)`). A heading naming the gate itself is one saying approval
    (Neurond-AI's `## Consolidated Approval Gate — Functional Design & NFR Requirements (All Units)`, "Approve &
    Continue")."""
    presented = put_to_the_person(entry)
    if presented is None or notes_approval(entry):
        return None
    if names_approval(words_of(entry)) and APPROVAL.search(heading) is not None and \
            stage_of(heading[:approval_at(heading)]) == presented:
        return None
    return presented


def _named_here(entry: AuditEntry, heading: str, context: str) -> list[str]:
    """The stages the heading and Context name, judged there, not in the answer; but for the stage a Context says
    was left, under a heading starting another: the answer may say it approved (Mogibo-AI/carhogo's "承認して続行"
    under `## ワークフロープランニング — 開始`, Context `User Stories 完了 → Workflow Planning 開始`, answered
    "User Stories 承認受領。")."""
    left = context_stage(context)
    if not STARTS.search(entry.heading or "") or stage_of(heading) in (None, left):
        left = None
    return stages_named(heading) + [stage for stage in stages_named(context) if stage != left]


def approvals(project: DocsProject, units: Units | None = None) -> dict[tuple[str, str | None], list[AuditEntry]]:
    """The entries with a person's words, by (stage, unit) they answer for (unit None: the entry names none; a unit
    folder with a number, by its number: `Units.key`). An entry whose heading names a unit and says approved, and no
    stage, answers for the stage the log's last entry about that unit was at."""
    return approvals_in([log.entries for log in project.audits], units or Units(project))


class _LogRead(NamedTuple):
    """One log's entries read for approvals, all but the last: a later version of the log holds them (the same
    objects: aidlc/rules/docs_history_judge.py reads a version that appends from the one before) and is read on
    from there."""

    entries: list[AuditEntry]
    found: dict[tuple[str, str | None], list[AuditEntry]]
    at: dict[str, str]


def approvals_in(logs: list[list[AuditEntry]], units: Units) -> dict[tuple[str, str | None], list[AuditEntry]]:
    """`approvals` of the logs' entries: the work tree's, or a commit's versions of the logs (AIDLC-DOCS-028), each
    entry read once per text (`_said`) however many versions hold it, and a version that holds an earlier one's
    entries read on from where that one's reading stopped (603 versions of 2,500 entries each read whole took 8.7
    s of a 20 s validation)."""
    found: dict[tuple[str, str | None], list[AuditEntry]] = defaultdict(list)
    for written in logs:
        if not written:
            continue
        entries = as_logged(written)
        kept = units.read_logs.get(id(entries[0]))
        done = len(kept.entries) if kept is not None and len(kept.entries) < len(entries) and all(
            a is b for a, b in zip(kept.entries, entries, strict=False)) else 0
        mine: dict[tuple[str, str | None], list[AuditEntry]] = defaultdict(list)
        at: dict[str, str] = {}  # unit -> the per-unit stage its last entry naming one was about
        if kept is not None and done:
            mine.update((key, list(listed)) for key, listed in kept.found.items())
            at.update(kept.at)
        _read_log(entries, done, units, mine, at, stop=len(entries) - 1)
        units.read_logs[id(entries[0])] = _LogRead(entries[:-1], {k: list(v) for k, v in mine.items()}, dict(at))
        _read_log(entries, len(entries) - 1, units, mine, at, stop=len(entries))
        for key, listed in mine.items():
            found[key] += listed
    return found


def _read_log(entries: list[AuditEntry], start: int, units: Units, found: dict[tuple[str, str | None],
              list[AuditEntry]], at: dict[str, str], stop: int) -> None:
    """Read `entries[start:stop]` for approvals into `found`, `at` holding the stage each unit was at."""
    for index in range(start, stop):
        before, entry = (entries[index - 1] if index else None), entries[index]
        said = _said(units, before, entry)
        if said.unit is not None and said.named is not None and BY_SLUG[said.named].per_unit:
            at[said.unit] = said.named
        if not said.words:
            continue
        stages = said.stages
        if not stages and said.unit in at and said.unit_approval:
            stages = (at[said.unit],)  # `## Unit 5: 料理管理 - 承認`: the stage unit 5 was at
        # The stage the entry before put to the person (of its unit), and the entry's own where it says approved
        # and does not start it: a go-ahead that answers the stage before goes on into this one (wwe22123's "B",
        # "proceed to the next stage", after Code Generation's completion, under `## Build and Test Stage`
        # holding the build's results), and the same words approve no more.
        if said.answered and (said.starts or not said.says):
            stages = ()
        # The answer says the words approved a stage the heading does not name, and the heading says no approval:
        # they approve that one and set the heading's going (rc-code-jp's "Continue to Next Stage" under `## Build
        # and Test`, answered "Code Generation の承認を受領。Build and Test に進み", the build yet to run).
        if said.in_answer and not said.heading_says:
            stages = ()
        stages = tuple(stage for stage in stages if stage not in said.plans)
        stages += tuple(stage for stage in said.in_answer if stage not in stages)
        # `U3 + U5 功能设计和代码生成完成`: a heading listing units answers for each of them
        for stage, of in said.answered + tuple((stage, each) for stage in stages for each in said.of_units):
            found[(stage, of if BY_SLUG[stage].per_unit else None)].append(entry)


def approval_read(units: Units, log: list[AuditEntry], entry: AuditEntry) -> str | None:
    """The stage `entry`, appended to the entries of `log`, would be read as a person's approval of, for a writer
    that logs the person's requests and never their approvals (the MCP server's `audit_append`): a stage it says a
    person approved (`approves`), or one the approvals a tick stands on count it for (`approvals_in` over the whole
    log: the person's words under the stage's heading, a go-ahead answering the stage the entry before put to the
    person, a unit approved at the stage its last entry named) where the words approve or go ahead (`yes`, `looks
    good, carry on`), not a request (`Generate the orders API`)."""
    stated = next((stage.slug for stage in STAGES if approves(entry, stage.slug)), None)
    if stated is not None or not goes_ahead(entry):
        return stated
    read = approvals_in([[*log, entry]], units)
    return next((stage for (stage, _), entries in read.items() if any(each is entry for each in entries)), None)


def whole_unit_approvals(project: DocsProject, units: Units) -> dict[str, tuple[AuditEntry, str]]:
    """The first entry of each unit (as approvals are keyed) that approves it as a whole, with its log's path: the
    person's words under a heading that names the unit, says approved and names no stage (`## Unit 3 - User
    Approval` after `## Unit 3 - All Stages - COMPLETED`, `## 유닛 1 설계 - 사용자 승인`). It approves no stage
    (the rules ask each stage's approval before the next starts); a finding of a stage of the unit names it."""
    found: dict[str, tuple[AuditEntry, str]] = {}
    for log in project.audits:
        for entry in as_logged(log.entries):
            heading = heading_of(entry)
            unit = units.of(entry)
            if unit is None or unit in found or stages_named(heading) or not names_approval(heading) \
                    or NOT_APPROVED.search(heading) or not has_words(entry):
                continue
            found[unit] = (entry, log.path)
    return found


def plan_approvals(project: DocsProject, units: Units) -> dict[str | None, tuple[AuditEntry, str]]:
    """The first entry of each unit (as approvals are keyed; None: the entry names none) holding the person's
    approval of Code Generation's plan, with its log's path: its heading names the stage and a plan and it says
    approved (`## Code Generation Plan Approval`, "CONTINUE", in med-manager; not `Plan Created`, "다음 단계가자"). It
    approves the plan, not the code (`approves`); a finding of the stage names it, so that a reader does not take the
    tick for one resting on it."""
    found: dict[str | None, tuple[AuditEntry, str]] = {}
    for log in project.audits:
        for entry in as_logged(log.entries):
            heading = heading_of(entry)
            if stage_of(heading) == "code-generation" and plan_part(entry) and has_words(entry) and \
                    not not_a_yes(entry) and says_approved(entry):
                found.setdefault(units.of(entry), (entry, log.path))
    return found


def refusals(project: DocsProject, units: Units) -> dict[tuple[str, str | None], tuple[AuditEntry, str]]:
    """The last entry of each stage (of each unit, as approvals are keyed; None: the entry names none) holding the
    person's words that refuse or ask for changes (`refuses`: "Request Changes: show prices with tax", "This is not
    approval"), with its log's path: a finding of the stage, ticked with no approval after it, names the objection."""
    found: dict[tuple[str, str | None], tuple[AuditEntry, str]] = {}
    for log in project.audits:
        entries = as_logged(log.entries)
        for before, entry in zip([None, *entries], entries, strict=False):
            said = _said(units, before, entry)
            if said.named is not None and has_words(entry) and refuses(entry):
                found[(said.named, said.unit if BY_SLUG[said.named].per_unit else None)] = (entry, log.path)
    return found


def logged_approval(project: DocsProject, given: dict[tuple[str, str | None], list[AuditEntry]], units: Units,
                    line: StageLine) -> str | None:
    """`<log>:<line>` of the last entry that approves the line's stage (of its unit) in its own words (`approves`:
    the heading, status, context or the person says approved), one whose heading names the stage first (u-10bei's
    NFR Design of unit 2 is approved under its own `Step 9: User Approval`, and named again in the answer of a later
    Code Generation approval, "... NFR Design ... all approved"), or None. `given`: `approvals` of the project."""
    stage = BY_SLUG[line.stage or ""]
    unit = units.key(line.unit) if stage.per_unit else None
    found = [entry for (slug, of), entries in given.items() if slug == stage.slug and (unit is None or of == unit)
             for entry in entries if approves(entry, stage.slug)]  # its unit, `given` holds already
    logged = [(stage_of(heading_of(entry)) == stage.slug, index, f"{log.path}:{entry.line}") for index, (log, entry)
              in enumerate((log, entry) for log in project.audits for entry in as_logged(log.entries))
              if any(entry is approval for approval in found)]
    return max(logged)[2] if logged else None

