"""Which stage an audit entry's go-ahead answers: the one the entry before it put to the person (`answered`), by
saying it awaits their approval (`put_to_the_person`), that it waits for it to proceed to a next stage, or that its
stages are complete; or the one the person's words leave by going on to the next (`_moved_on`). What an entry
says for approvals on its own: aidlc/rules/docs_entries.py.
"""

from __future__ import annotations

import re

from aidlc.aidlc_docs.model import AuditEntry
from aidlc.aidlc_docs.stages import stage_of, stages_named, without_stage_names
from aidlc.aidlc_docs.units import unit_of
from aidlc.rules.docs_approved import PLAN
from aidlc.rules.docs_entries import plan_part, refuses
from aidlc.rules.docs_headings import STARTS, heading_of
from aidlc.rules.docs_words import (
    APPROVAL,
    ARTIFACTS,
    AWAITED,
    DONE,
    NEXT,
    NEXT_STAGE,
    SENTENCE,
    goes_ahead,
    has_words,
    names_approval,
    words_of,
)

# "**Waiting For**: User approval to proceed to Workflow Planning": the stage an entry's author waits to move on to
# ("awaiting user approval to enter Construction Functional Design", Supplier-Onboarding).
_WAITS_TO_PROCEED = re.compile(r"\ba?wait\w*\W+(?:for\W+)?(?:the\W+)?(?:user\W+|human\W+)?approval\W+to\W+"
                               r"(?:(?:proceed|continue|move\W+on)\W+to|enter)\W+(?:the\W+)?(?P<stage>[^.\n]{1,60})",
                               re.IGNORECASE)


# What an entry's Context or Status says when it puts its stage to the person: it awaits their approval ("approval
# gate before Code Generation", "承認待ち"), or presents the stage for it ("Presenting for approval").
_PRESENTED = re.compile(AWAITED.pattern + "|"
                        # Portfolio's `Build and Test complete; asking final stage-gate question`
                        r"\bask\w*[ \t]+(?:\w+[ \t]+)?(?:stage[- ])?gate[ \t]+question", re.IGNORECASE)


def answered(before: AuditEntry | None, entry: AuditEntry) -> tuple[str, ...]:
    """The stages `before` put to the person, when `entry`, the next entry, holds their go-ahead: `before` waits
    for their approval to proceed to a next stage and `entry` starts that stage with their words (SUHYUNSHIM's
    `## Application Design - Stage Start` with "ㄱㄱ" after `Waiting For: User approval to proceed to Application
    Design`; when `entry` starts another stage, its words answered no wait; when it starts none, it is read as
    below), or `before`'s Context or Status says it awaits the approval of its stage and the person's words in
    `entry` go ahead, whatever `entry`'s heading (cheongYak-radar's `U4 Infrastructure Design done; approval gate
    before Code Generation.`, then "진행" under `## U4 Code Generation`; else its heading asks for it, `_prompted`), or
    its heading says its stages complete and `entry` goes on with a go-ahead (`_completed`). Never words dated before
    `before`: they answered something else (two sessions' entries interleaved, or a log kept newest first: m2nho's
    `## Unit 3 Functional Design - User Approval` at 15:52, below Unit 2's `Code Generation Complete` at 16:30)."""
    if before is None or refuses(entry) or dated_before(entry, before):
        return ()
    waited = _WAITS_TO_PROCEED.search(before.text)
    heading = entry.heading or ""
    started = stage_of(heading) if waited is not None and STARTS.search(heading) else None
    if waited is not None and started is not None:  # an entry starting no stage is read as any other below
        # the stage it is about: its heading's, its Context's, else the one its sentence puts it in before the wait
        # (`still formally in INCEPTION - Units Generation Review, awaiting user approval to enter Construction ...`)
        left = stage_of(before.heading or "") or stage_of(before.fields.get("context", "")) \
            or stage_of(SENTENCE.split(before.text[:waited.start()])[-1])
        return (left,) if started == stage_of(waited.group("stage")) and left not in (None, started) else ()
    if not goes_ahead(entry):
        return ()
    put = put_to_the_person(before) or _prompted(before, entry)
    return (put,) if put is not None else _completed(before, entry) or _moved_on(before, entry)


def dated_before(entry: AuditEntry, before: AuditEntry) -> bool:
    """Whether `entry` is dated before the entry logged above it: its words cannot answer that one."""
    return before.at is not None and entry.at is not None and entry.at < before.at


def _moved_on(before: AuditEntry, entry: AuditEntry) -> tuple[str, ...]:
    """The stage `before` is about, when `entry` starts another stage with the person's words going on to the next
    one (aws-ai-dlc's "다음단계 진행해줘", "go on to the next step", under `## INCEPTION - Units Generation (시작)`,
    after the last entry of Application Design), or to the stage it starts by name (ratiel's "Add User Stories",
    the rules' option of Requirements Analysis' completion message, under `## INCEPTION - User Stories (Start)`;
    jbil4268's "유저 스토리 진행해줘", "go on with user stories", after a change to the requirements), or under a
    heading that starts nothing, right after the stage's work (`_went_on_from_work`): their approval of the stage
    they leave."""
    heading, said = entry.heading or "", words_of(entry)
    going, left = stage_of(heading), stage_of(heading_of(before)) or stage_of(before.fields.get("context", ""))
    named = stage_of(said) == going and not plan_part(entry)  # not a plan's approval that starts its Part 2
    starts = STARTS.search(heading) and (NEXT_STAGE.search(said) or named)
    if not (starts or _went_on_from_work(before, entry)) or going is None:
        return ()
    return (left,) if left is not None and (left != going or unit_of(heading) != unit_of(heading_of(before))) else ()


def _went_on_from_work(before: AuditEntry, entry: AuditEntry) -> bool:
    """Whether the person's go-ahead in `entry`, under another stage's heading, comes right after `before`'s answer
    said it did its stage's work: the answer to a completion message the log left out (aws-ai-dlc's "다음단계
    부탁해", "the next step, please", under `## Operations Phase (Placeholder)`, after `## Build and Test Stage`
    answered `Build and Test 문서 5개 생성 완료`, "five documents made"; impku-ibm's "proceed" under `## Requirements
    Analysis - Questions Created`, after reverse engineering "Generated 8 artifacts"; its "Approved continue" under
    `## Application Design - Execution`, after "Created execution plan"). Not after a plan (its answers went on; the
    stage's work was yet to come; not zizuiliaoya-droid's `## U06b ... — Functional Design Plan + 3 文档`, "and 3
    documents"), nor where either heading speaks of an approval, given or awaited: the person's
    words answered that one, or it is yet to come (`## Workflow Planning - Approval`, then "add it and go on to the
    next step" under `## Application Design - Review`; `## Unit 1 NFR approval pending - Code Generation Planning`)."""
    about = (before.heading or "", before.fields.get("context", ""), before.fields.get("status", ""))
    # the stages' names set aside: `코드 생성`, Code Generation, holds 생성, "generated"
    return DONE.search(without_stage_names(before.fields.get("ai_response", ""))) is not None and \
        not any(PLAN.search(text) and not ARTIFACTS.search(text) for text in about) and \
        not APPROVAL.search(f"{before.heading} {entry.heading}")


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
    if not stages:  # a heading naming units alone: the stages its Context closes (Mynor454-s's `## CONSTRUCTION -
        # Units 4, 5, 6 Complete`, `All units code generation complete. Ready for Build and Test phase.`)
        context = before.fields.get("context", "")
        closing = _CLOSED.search(without_stage_names(context))
        stages = stages_named(context[:closing.start()]) if closing else []
    going, unit = stage_of(next_heading), unit_of(next_heading)
    if going is None:  # another unit's heading goes on (Clipboard--Mac's `## 单元生成完成`, "Units Generation done",
        # then "继续", "continue", under `## Construction - Unit 1 Core 设计完成`)
        return tuple(stages) if unit not in (None, unit_of(heading)) else ()
    return tuple(stage for stage in stages if stage != going or unit != unit_of(heading))


_CLAUSES = re.compile(";|" + SENTENCE.pattern)  # where a Context's clauses part: its sentences, and at a semicolon


def put_to_the_person(entry: AuditEntry) -> str | None:
    """The stage an entry's Context or Status puts to the person for approval (never a plan, there or in its
    heading)."""
    if PLAN.search(entry.heading or ""):
        return None
    for key in ("context", "status"):
        text = entry.fields.get(key, "")
        put = _PRESENTED.search(text)
        if put is not None and not PLAN.search(text):
            # The stage named before the words that put it, and before any it names as the next (`다음은 ...
            # Functional Design 승인 게이트`): in their own clause, else in an earlier one that the heading names too
            # (cheongYak-radar's `## U4 Functional Design Approved / Infrastructure Design Done`, Context `U4
            # Infrastructure Design done; approval gate before Code Generation`), else the heading's: an earlier clause
            # may name a stage the work stands on (Shaikh1828/SPL-3's `## Infrastructure Design - Backend Unit
            # (PROPOSED)`, Context `All infrastructure decisions aligned with locked NFR Design (...); ...; awaiting
            # user review and approval`).
            named = text[:put.start()]
            named = named[:found.start()] if (found := NEXT.search(named)) else named
            headed = stages_named(entry.heading or "")
            in_its_clause = stage_of(_CLAUSES.split(named)[-1])
            headed_before = next((stage for stage in stages_named(named) if stage in headed), None)
            return in_its_clause or headed_before or stage_of(entry.heading or "") or stage_of(named)
    return None


def _prompted(before: AuditEntry, entry: AuditEntry) -> str | None:
    """The stage `before`'s heading puts to the person, where it holds no words of theirs and names no plan, and
    `entry`'s heading says no approval of its own (ontology-agent's `## U2 Infrastructure Design — Approval Prompt`,
    "Presented U2 infrastructure design; requested approval.", then `## Construction — U2 Code Generation (Part 1 +
    Part 2)` holding the go-ahead; not m2nho's `## Unit 3 Code Generation - Approval Prompt`, Context `Code Generation
    Plan 승인 요청`, "the plan's approval asked")."""
    if has_words(before) or PLAN.search(before.text) or names_approval(heading_of(entry)):
        return None
    asked = AWAITED.search(before.heading or "")
    return stage_of((before.heading or "")[:asked.start()]) if asked is not None else None
