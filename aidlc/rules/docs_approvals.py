"""The approvals the aidlc-docs layout's audit logs record: which entries hold a person's words, which stages (of
which unit) an entry answers for, whether it approves a stage (when each stage was first approved:
aidlc/rules/docs_approval_order.py). The work-tree rules (aidlc/rules/docs_layout.py), the history rules
(aidlc/rules/docs_history_ticks.py, on each commit's version of the logs), `aidlc status` and the unit evidence read
approvals this one way. What the person's words and the agent's answer say is read in aidlc/rules/docs_words.py.

An approval, as these rules read one, is an audit entry whose heading or Context names the stage (and the unit,
when the ticked line names one) and whose User Input or User Response holds a person's words: not an empty, `N/A`
or `(pending)` field, not the AI's own approval prompt, not a `Status` of changes requested, not words that refuse
or only pick options, not the words logged with the agent's answer that puts the stage to the person.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import NamedTuple

from aidlc.aidlc_docs.model import AuditEntry, DocsProject
from aidlc.aidlc_docs.stages import BY_SLUG, STAGES, stage_at, stage_of, stages_named, without_stage_names
from aidlc.aidlc_docs.units import folders_named, listed_units, unit_of
from aidlc.rules.docs_words import (
    AWAITED,
    DONE,
    GO_AHEAD_LENGTH,
    NEXT,
    NOT_APPROVED,
    PLAN,
    approved_in_answer,
    done_here,
    goes_ahead,
    has_words,
    names_approval,
    not_a_yes,
    words_of,
)

# A heading that logs answers to a stage's questions, or its start; Spanish `respuesta`, `pregunta` as Programa-Dx---
# bts-integral's `Requirements Analysis — Respuestas recibidas` ("answers received"). Read in the heading alone: a
# field's name (`Respuesta exacta del usuario`, "the user's exact answer") names the person's words, no answers.
# A selection is an answer too: `## Code Generation - TDD 방식 선택` ("TDD method selection"), "A", picked before any
# code was written (aidlc-workshopt-tableorder; aidlc-demo-showcase's `TDD Selection`, aidlc-0204's `(... 선택)`).
_ANSWERS = re.compile(r"answer|question|\bstart|inici|\bselect(?:ed|ion)\b|choice|selecci|escolha|respost|pergunt|"
                      r"respuest|pregunt|답변|질문|응답 수신|시작|선택|回答|问题|質問|开始|開始|選択|选择", re.I)
_STARTS = re.compile(r"\bstart|\bbegin|시작|开始|開始|inici", re.IGNORECASE)


# "User approved continuation from Code Generation to Build and Test": the stage left behind is the one approved.
_APPROVED_FROM = re.compile(r"\bapprov\w*\b[^.\n]{0,40}?\bfrom[ \t]+(?:the[ \t]+)?(?P<stage>[^.\n]{1,60})",
                            re.IGNORECASE)


def _continued_from(entry: AuditEntry) -> str | None:
    """The stage an entry's Context says the person approved moving on from (octocat_supply logs that approval
    under the next stage's `## Build and Test - Start`)."""
    context = entry.fields.get("context", "")
    found = _APPROVED_FROM.search(context)
    if found is None or AWAITED.search(context, 0, found.end()) or NOT_APPROVED.search(context, 0, found.end()):
        return None  # "Awaiting user approval from ...", "not approved from ..."
    return stage_at(found.group("stage"))


# "**Waiting For**: User approval to proceed to Workflow Planning": the stage an entry's author waits to move on to.
_WAITS_TO_PROCEED = re.compile(r"\bwait\w*\W+(?:for\W+)?(?:the\W+)?(?:user\W+|human\W+)?approval\W+to\W+"
                               r"(?:proceed|continue|move\W+on)\W+to\W+(?:the\W+)?(?P<stage>[^.\n]{1,60})",
                               re.IGNORECASE)


# What an entry's Context or Status says when it puts its stage to the person: it awaits their approval ("approval
# gate before Code Generation", "承認待ち"), or presents the stage for it ("Presenting for approval").
_PRESENTED = re.compile(AWAITED.pattern + r"|\bpresent\w*[ \t]+(?:\w+[ \t]+)?for[ \t]+(?:\w+[ \t]+)?approval|"
                        r"\bready[ \t]+for[ \t]+(?:\w+[ \t]+)?approval|승인[ \t]*요청|承認依頼|请求批准", re.IGNORECASE)


def _answered(before: AuditEntry | None, entry: AuditEntry) -> tuple[str, ...]:
    """The stages `before` put to the person, when `entry`, the next entry, holds their go-ahead: `before` waits
    for their approval to proceed to a next stage and `entry` starts that stage with their words (SUHYUNSHIM's
    `## Application Design - Stage Start` with "ㄱㄱ" after `Waiting For: User approval to proceed to Application
    Design`), or `before`'s Context or Status says it awaits the approval of its stage and the person's words in
    `entry` go ahead, whatever `entry`'s heading (cheongYak-radar's `U4 Infrastructure Design done; approval gate
    before Code Generation.`, then "진행" under `## U4 Code Generation`), or its heading says its stages complete
    and `entry` goes on with a go-ahead (`_completed`). Never words dated before `before`: they answered something
    else (two sessions' entries interleaved, or a log kept newest first: m2nho's `## Unit 3 Functional Design - User
    Approval` at 15:52, below Unit 2's `Code Generation Complete` at 16:30)."""
    if before is None or NOT_APPROVED.search(entry.text) or \
            (before.at is not None and entry.at is not None and entry.at < before.at):
        return ()
    waited = _WAITS_TO_PROCEED.search(before.text)
    if waited is not None:
        left = stage_of(before.heading or "") or stage_of(before.fields.get("context", ""))
        going = stage_of(waited.group("stage"))
        starts = _STARTS.search(entry.heading or "") and stage_of(entry.heading or "") == going
        return (left,) if starts and going is not None and left not in (None, going) else ()
    if not goes_ahead(entry):
        return ()
    put = _put_to_the_person(before)
    return (put,) if put is not None else _completed(before, entry)


# A heading that closes a stage: its work said done (`DONE`), or its completion (`## UOW-10 Functional Design
# Completion`); not in an answer, where "Presenting the completion message" is no work done.
_CLOSED = re.compile(DONE.pattern + r"|\bcompletion\b", re.IGNORECASE)


def _completed(before: AuditEntry, entry: AuditEntry) -> tuple[str, ...]:
    """The stages `before`'s heading says are complete (never a plan, there or in its Context or Status), when
    `entry` goes on to another stage or unit: the person's go-ahead there answers the completion message, whose options
    the rules give as "Request Changes" and "Continue to Next Stage" (jin-101/SPA-BRIDGE's
    "Continue to Next Stage" under `## UOW-10 NFR Requirements Planning`, after `## UOW-10 Functional Design
    Completion`). Not the stage the go-ahead goes on with (`Phase 3 Code Generation 완료`, then "phase#4 진행해주고";
    HCSES's `NFR Requirements / NFR Design / Infrastructure Design - COMPLETED`, then `NFR/Infrastructure Design -
    User Approval`: those words approve their own), nor any under a heading that names no stage (`## Session
    Resumption`, "proceed")."""
    heading, next_heading = heading_of(before), entry.heading or ""
    said = (heading, before.fields.get("context", ""), before.fields.get("status", ""))
    if any(PLAN.search(text) for text in said) or not _CLOSED.search(heading):
        return ()
    # Each stage named before the word that closes them (`NFR Requirements + Infrastructure Design 완료`,
    # aws-AI-DLC-team-3), not one named after it (`Functional Design 완료, NFR Requirements 시작`); the first named
    # where the word stands first or within a stage's name (`코드 생성`, Code Generation, holds 생성, "generated").
    closing = _CLOSED.search(without_stage_names(heading))
    stages = (stages_named(heading[:closing.start()]) if closing else []) or stages_named(heading)[:1]
    going = stage_of(next_heading)
    if going is None:
        return ()
    return tuple(stage for stage in stages if stage != going or unit_of(next_heading) != unit_of(heading))


def _put_to_the_person(entry: AuditEntry) -> str | None:
    """The stage an entry's Context or Status puts to the person for approval (never a plan, there or in its
    heading)."""
    if PLAN.search(entry.heading or ""):
        return None
    for key in ("context", "status"):
        text = entry.fields.get(key, "")
        put = _PRESENTED.search(text)
        if put is not None and not PLAN.search(text):
            # The stage named before the words that put it (`U4 Infrastructure Design done; approval gate before Code
            # Generation`), and before any it names as the next (`다음은 ... Functional Design 승인 게이트`), else the
            # heading's.
            named = text[:put.start()]
            named = named[:found.start()] if (found := NEXT.search(named)) else named
            return stage_of(named) or stage_of(entry.heading or "")
    return None


_PARTS = re.compile(r"[ \t]+/[ \t]+")  # `U6 Approved / U3 Functional Design Start`: two steps in one heading


def heading_of(entry: AuditEntry) -> str:
    """The heading as it speaks of approvals: a compound heading's parts that start something left out (`U6
    Approved / U3 Functional Design Start` is about unit U6's approval, and approves nothing of unit U3's functional
    design; `Requirements Analysis — Approved / User Stories Started` approves requirements analysis only)."""
    heading = entry.heading or ""
    parts = _PARTS.split(heading)
    kept = [part for part in parts if not _STARTS.search(part)]
    return " / ".join(kept) if len(parts) > 1 and kept else heading


def _code_plan(entry: AuditEntry, stage: str) -> bool:
    """Whether the entry is about Code Generation's plan (its Part 1), which approves the plan, not the stage: the
    rules ask for a second approval, of the generated code (code-generation.md, Part 2's "Wait for Explicit
    Approval"). Other stages' plans are the stage's own work (Workflow Planning's execution plan)."""
    return stage == "code-generation" and PLAN.search(heading_of(entry)) is not None


def _new_request(entry: AuditEntry) -> bool:
    """Whether the person's words are a new instruction, not an answer to the stage: longer than a go-ahead, and
    nothing of the entry (heading, status, context, the words) says approved (AIDLC-AWS-workshop's `## Game Enhancement
    Request`, Context `Post-code generation enhancements`, with a paragraph of new features)."""
    said = words_of(entry).strip()
    if len(said.split("\n", 1)[0]) <= GO_AHEAD_LENGTH:  # its first line: what follows may be the agent's notes
        return False
    return not says_approved(entry)


def says_approved(entry: AuditEntry) -> bool:
    """Whether the entry's heading, status, context or the person's words say approved."""
    return any(names_approval(text) for text in (entry.fields.get("status", ""), entry.fields.get("context", ""),
                                                 words_of(entry))) \
        or names_approval(heading_of(entry))


def approved_stages(entry: AuditEntry) -> list[str]:
    """The stages an entry with a person's words answers for: those its heading names, else the first its Context
    names (a Context's `Next: User Stories` is not an approval of User Stories, nor is `Unit 2 Functional Design
    starts`, where the heading approved what came before). An entry logging answers to a
    stage's questions (`Requirements Analysis - User Answers Received`) approves nothing: the rules ask for the
    answers, then separately for the approval."""
    heading = heading_of(entry)
    if (left := _continued_from(entry)) is not None:
        return [left]
    if _ANSWERS.search(heading) and not names_approval(heading):
        return []
    named = stages_named(heading)
    if named:
        return named
    context = entry.fields.get("context", "")
    if _STARTS.search(context) and not names_approval(context):
        return []  # `Unit 2 Functional Design starts`: the stage the approval opened, not the one it approves
    first = stage_of(context)
    return [first] if first else []


def approves(entry: AuditEntry, stage: str) -> bool:
    """Whether an audit entry says that a person approved the stage, as the order of first approvals and the MCP
    refusal ask (a stricter question than `approvals`, which takes the person's words under the stage's heading): it
    holds the person's input (`(pending)`, `N/A ...` are none) that neither refuses nor only picks options, and its
    heading (or, without one, its context) names the stage and its heading, status, context or the person's own
    words say approved (`"Aprobar y continuar"` under `## Workflow Planning`), or a sentence of its AI response
    names the stage and says approved ("Requirements Analysis approved; starting User Stories")."""
    if not has_words(entry) or _code_plan(entry, stage) or not_a_yes(entry):
        return False
    heading, context = heading_of(entry), entry.fields.get("context", "")
    if _continued_from(entry) == stage:
        return True
    named = stage_of(heading) if heading and stage_of(heading) else stage_of(context)
    if named == stage and any(names_approval(text) for text in (heading, entry.fields.get("status", ""), context)):
        return True
    if named == stage and names_approval(words_of(entry)):
        return True
    return stage in approved_in_answer(entry)


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
        self.alias: dict[str, str] = dict(project.unit_numbers)  # the state file's or the units' document's first
        for log in project.audits:
            for entry in log.entries:
                number = unit_of(entry.heading or "") or unit_of(entry.fields.get("context", ""))
                for folder in self._folders_in(entry.heading or ""):
                    if number is not None:
                        self.alias.setdefault(folder, number)

    def _folders_in(self, text: str) -> list[str]:
        return folders_named(text, self.folders)

    def key(self, unit: str | None) -> str | None:
        """The unit as approvals are keyed: a unit folder a heading ties to a number, by its number."""
        return self.alias.get(unit, unit) if unit is not None else None

    def of(self, entry: AuditEntry) -> str | None:
        heading, context = heading_of(entry), entry.fields.get("context", "")
        folders = self._folders_in(heading)
        named = unit_of(heading) or next((self.alias[f] for f in folders if f in self.alias), None)
        if named or unit_of(context):
            return named or unit_of(context)
        # A folder named in the Context alone is keyed by its number too (MangoYoun/aidlc-workshop-tableorder: Context
        # `NFR Design (Backend Service) 완료`, the state file's `#### Unit 1: Backend Service`); one tied to no number
        # is the unit as its own name (`v4-migration`, `v4 migration`).
        folders = folders or self._folders_in(context)
        return self.key(folders[0]) if len(folders) == 1 else None


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
    plan: bool  # its heading names a plan: Code Generation's plan is approved apart from the stage
    of_units: tuple[str | None, ...]  # a heading listing units answers for each
    in_answer: tuple[str, ...]  # stages its heading and Context do not name that its AI response says approved


def _said(units: Units, before: AuditEntry | None, entry: AuditEntry) -> _Said:
    key = (before.text if before is not None else None, entry.text)  # the heading is the text's first line
    if key not in units.readings:
        heading, context = heading_of(entry), entry.fields.get("context", "")
        unit = units.of(entry)
        waited = _answered(before, entry)
        listed = listed_units(heading) if unit is not None and unit_of(heading) == unit else []
        # The stage the entry itself puts to the person (`Requirements Analysis complete. Awaiting user approval.`):
        # its words came before that, and approve it no more than the agent's answer does; unless the entry says it
        # was approved (`Requirements Analysis approved. Next: User Stories, awaiting approval`).
        approved = any(names_approval(entry.fields.get(field, "")) for field in ("context", "status"))
        presented = None if approved else _put_to_the_person(entry)
        done = () if says_approved(entry) else done_here(entry)
        named_here = stages_named(heading) + stages_named(context)
        units.readings[key] = _Said(
            unit, stage_of(heading) or (stage_of(context) if unit_of(context) in (None, unit) else None),
            has_words(entry) and not _new_request(entry) and not not_a_yes(entry),
            tuple(stage for stage in approved_stages(entry) if stage != presented and stage not in done),
            names_approval(heading) and not NOT_APPROVED.search(heading),
            tuple((stage, units.of(before)) for stage in waited) if before is not None else (),
            _STARTS.search(entry.heading or "") is not None, PLAN.search(heading) is not None,
            tuple(listed) if len(listed) > 1 else (unit,),
            tuple(stage for stage in approved_in_answer(entry) if stage not in named_here and stage != presented))
    return units.readings[key]


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
    for entries in logs:
        if not entries:
            continue
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
        # The stage the entry before put to the person (of its unit), and the entry's own unless it starts it.
        if said.answered and said.starts:
            stages = ()
        stages = tuple(stage for stage in stages if not (stage == "code-generation" and said.plan))
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
        for entry in log.entries:
            heading = heading_of(entry)
            unit = units.of(entry)
            if unit is None or unit in found or stages_named(heading) or not names_approval(heading) \
                    or NOT_APPROVED.search(heading) or not has_words(entry):
                continue
            found[unit] = (entry, log.path)
    return found
