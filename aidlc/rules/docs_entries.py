"""What one audit entry of the aidlc-docs layout says for approvals: the stages it answers for (`approved_stages`),
whether it says a person approved a stage (`approves`). The stage the entry before put to the person that its go-ahead
answers: aidlc/rules/docs_answered.py. The heading as it speaks of approvals:
aidlc/rules/docs_headings.py; how the entries of a log add up to each stage's approvals: aidlc/rules/docs_approvals.py;
what the person's words and the agent's answer say: aidlc/rules/docs_words.py, and what they say was approved
(a stage, its plan, every unit): aidlc/rules/docs_approved.py.
"""

from __future__ import annotations

import re
from functools import lru_cache

from aidlc.aidlc_docs.model import AuditEntry
from aidlc.aidlc_docs.stages import label_starts, stage_of, stages_followed_by, stages_named
from aidlc.aidlc_docs.state_line import SKIPPED_AFTER
from aidlc.aidlc_docs.units import unit_of
from aidlc.rules.docs_approved import (
    DESIGNS,
    PLAN_AFTER,
    PLANNED,
    approved_in_answer,
    names_own_plan,
    plan_approved_in_answer,
    plan_approved_in_note,
    stage_approved_in_note,
    starts_part_two,
)
from aidlc.rules.docs_headings import STARTS, heading_of
from aidlc.rules.docs_words import (
    APPROVAL,
    AWAITED,
    GO_AHEAD_LENGTH,
    NEXT,
    NOT_APPROVED,
    SENTENCE,
    approvals_given,
    has_words,
    names_approval,
    not_a_yes,
    spoken,
    words_of,
)

# A heading that logs answers to a stage's questions, or its start; Spanish `respuesta`, `pregunta` as Programa-Dx---
# bts-integral's `Requirements Analysis — Respuestas recibidas` ("answers received"). Read in the heading alone: a
# field's name (`Respuesta exacta del usuario`, "the user's exact answer") names the person's words, no answers.
# A selection is an answer too: `## Code Generation - TDD 방식 선택` ("TDD method selection"), "A", picked before any
# code was written (aidlc-workshopt-tableorder; aidlc-demo-showcase's `TDD Selection`, aidlc-0204's `(... 선택)`).
# So is a clarification (CalCrony's `Calendar Sync Clarification`, "ICS feed export (Recommended)"), and a change
# or user request is none (Wolfenstein's `User Stories - Change Request (Visual Accuracy)`, suhyup's `User Change
# Request`, jygj65536's `Code Generation (Frontend) - User Request`, "make the front-end code"). So is the user's
# decision (CloudCentric2023/AWS_summit_demo's `Application Design - User Decision (Backend Language)`, "バックエンドは
# Goで実装する", "the backend in Go", while the design's questions were still open).
_ANSWERS = re.compile(r"answer|question|\bstart|inici|\bselect(?:ed|ion)\b|choice|selecci|escolha|respost|pergunt|"
                      r"\buser[ \t]+decision|"
                      r"clarif|\b(?:user|change)[ \t]+request\b|(?:사용자|변경|수정)[ \t]*요청|"
                      r"respuest|pregunt|답변|질문|응답 수신|시작|선택|回答|问题|質問|开始|開始|選択|选择", re.I)
# A stage's name followed by "Request": the heading asks for the stage's work, as a user request does
# (Moonlight-CL/AWSomeshop-Demo's `## User Stories Request`, "generate user stories from requirement.md", before any
# story was written); a stage it names besides is answered still (`Requirements Analysis - Add User Stories Request`).
_REQUEST = re.compile(r"[ \t]*+[-–—:]?[ \t]*+request(?:ed)?\b", re.IGNORECASE)


# "User approved continuation from Code Generation to Build and Test": the stage left behind is the one approved.
_APPROVED_FROM = re.compile(r"\bapprov\w*\b[^.\n]{0,40}?\bfrom[ \t]+(?:the[ \t]+)?(?P<stage>[^.\n]{1,60})",
                            re.IGNORECASE)


def _continued_from(entry: AuditEntry) -> str | None:
    """The stage an entry's Context, else its AI response, says the person approved moving on from (octocat_supply
    logs that approval under the next stage's `## Build and Test - Start`; jin-101/SPA-BRIDGE answers "Continue to
    Next Stage" under `## UOW-05 Build and Test Transition` with "Recorded approval to proceed from UOW-05 Code
    Generation to Build and Test")."""
    for said in (entry.fields.get("context", ""), entry.fields.get("ai_response", "")):
        found = _APPROVED_FROM.search(said)
        if found is None or AWAITED.search(said, 0, found.end()) or NOT_APPROVED.search(said, 0, found.end()):
            continue  # "Awaiting user approval from ...", "not approved from ..."
        left = found.group("stage")
        left = left[:going.start()] if (going := _TO.search(left)) else left
        if (stage := stage_of(left)) is not None:  # `UOW-05 Code Generation`: a unit may come first
            return stage
    return None


_TO = re.compile(r"\b(?:to|into)\b", re.IGNORECASE)  # where the stage moved on from ends


def _approved_before_going_on(entry: AuditEntry) -> tuple[str, ...]:
    """The stages the entry's AI response, or its Context, says approved before it says the work proceeds to the stage
    its heading names, the heading saying approval: sebastianperudev2001/agentcore-memory-viz logs each approval under
    the heading of the stage it starts (`## Workflow Planning Approval`, "Sure, let's continue", answered "Requirements
    approved. Proceeding to Workflow Planning."; `## Code Generation Approval`, "yes", Context "User approved workflow
    plan, advancing to Construction phase"): the words approve the stage left, not the one begun."""
    return _approved_before(heading_of(entry), entry.fields.get("ai_response", ""), entry.fields.get("context", ""))


@lru_cache(maxsize=8192)
def _approved_before(heading: str, answer: str, context: str) -> tuple[str, ...]:
    """`_approved_before_going_on` of an entry's texts: once per entry (it is asked of each stage, and a hostile
    answer naming stages 100,000 times takes seconds to read)."""
    going = stage_of(heading)
    if going is None or not names_approval(heading):
        return ()
    said = [(text, _PROCEEDING.search(text)) for text in (answer, context)]
    if not any(found and stage_of(SENTENCE.split(text[found.end():], 1)[0]) == going for text, found in said):
        return ()
    return tuple(dict.fromkeys(stage for text, found in said
                               for sentence in SENTENCE.split(text[:found.start()] if found else text)
                               if names_approval(sentence) for stage in stages_named(sentence) if stage != going))


# Where a text says the work goes on to a stage: "Proceeding to Workflow Planning", "advancing to Workflow Planning",
# "moving on to", "transitioning to" (beyakus/mechanical-service-ia-dlc's Context `All units complete, transitioning to
# Build & Test`, over the last unit's approval, the build not yet made)
_PROCEEDING = re.compile(r"\b(?:proceed\w*|advanc\w*|transition\w*)[ \t]+(?:to|into|with)\b|"
                         r"\bmov(?:e|ing)[ \t]+(?:on[ \t]+)?(?:to|into)\b", re.IGNORECASE)
_GOING_ON = re.compile(NEXT.pattern + "|" + _PROCEEDING.pattern, re.IGNORECASE)  # or what it says comes next


def refuses(entry: AuditEntry) -> bool:
    """Whether the entry refuses where it speaks of the approval: its heading, the person's words, its Status,
    Context or any field but the agent's answer (chat-cli's "Approved", answered "... added tool-use rejection ...")
    and prompt, which offers the options (dlhwang's "Request Changes 또는 Continue to Code Generation")."""
    return any(NOT_APPROVED.search(text) for text in (entry.heading or "", *(
        value for key, value in entry.fields.items() if key not in ("ai_response", "ai_prompt"))))


def plan_part(entry: AuditEntry) -> bool:
    """Whether the entry is about a stage's plan (its Part 1: its heading names a plan or starts Part 2, its
    answer says Code Generation's plan was approved or starts its Part 2, or the writer's note beside the person's
    words says they approved a plan), which approves the plan, not the stage,
    for the stages whose rules ask a second approval (PLANNED: the stories, the units, the generated code;
    code-generation.md, Part 2's "Wait for Explicit Approval"). Other stages' plans are the stage's own work
    (Workflow Planning's execution plan)."""
    heading = heading_of(entry)  # NESIC-aws-ai-hackathon/GEZA: `## エントリ 063 - U0 Code Generation 承認・Part 2 開始`
    return names_own_plan(heading) or starts_part_two(heading) or plan_approved_in_answer(entry, stage_of(heading)) or \
        plan_approved_in_note(entry)


def plans_of(entry: AuditEntry) -> frozenset[str]:
    """The stages whose plan, not the stage, the entry is about: every one of PLANNED where `plan_part` holds, and a
    design whose name the plan word follows in the heading (`Unit 7 FD Plan Approved; FD Artifacts Ready`,
    `Functional Design Plan - User Approval`; not `FD Approved; NFR Requirements Plan`)."""
    designs = DESIGNS.intersection(stages_followed_by(heading_of(entry), PLAN_AFTER))
    return (designs | PLANNED) if plan_part(entry) else designs


def new_request(entry: AuditEntry) -> bool:
    """Whether the person's words are a new instruction, not an answer to the stage: longer than a go-ahead, and
    nothing of the entry (heading, status, context, the words) says approved (AIDLC-AWS-workshop's `## Game Enhancement
    Request`, Context `Post-code generation enhancements`, with a paragraph of new features)."""
    said = spoken(entry)
    if len(said.split("\n", 1)[0]) <= GO_AHEAD_LENGTH:  # its first line: what follows may be the agent's notes
        return False
    return not says_approved(entry)


def says_approved(entry: AuditEntry) -> bool:
    """Whether the entry's heading, status, context or the person's words say approved."""
    return notes_approval(entry) or names_approval(words_of(entry)) or names_approval(heading_of(entry))


def notes_approval(entry: AuditEntry) -> bool:
    """Whether the entry's Status or Context says approved, before what it says comes next (DocSuri's `U8 Code
    Generation + Build/Test 완료. 다음은 사용자 리뷰/승인 또는 커밋/PR 지시 필요`, "done; next, the user's review or
    approval is needed", says no approval was given)."""
    return any(names_approval(_until_next(text)) for text in (entry.fields.get("status", ""),
                                                               entry.fields.get("context", "")))


def approved_stages(entry: AuditEntry) -> list[str]:
    """The stages an entry with a person's words answers for: those its heading names, else the first its Context
    names (a Context's `Next: User Stories` is not an approval of User Stories, nor is `Unit 2 Functional Design
    starts`, where the heading approved what came before); and Requirements Analysis, where the words are the option
    of its completion message that approves it (`_option_approved`). An entry logging answers to a
    stage's questions (`Requirements Analysis - User Answers Received`) approves nothing: the rules ask for the
    answers, then separately for the approval."""
    named = _stages_answered(entry)
    return named + [stage for stage in _option_approved(entry) if stage not in named]


# The option of Requirements Analysis' completion message that approves it, in the person's words: "✅ Approve &
# Continue - Approve requirements and proceed to User Stories", which ValiaVl/copilot-aidlc's person pasted under
# `## User Stories - Skipped by User`, declining the stories.
_REQUIREMENTS_OPTION = re.compile(r"\bapprove[ \t]+requirements[ \t]+and[ \t]+proceed\b", re.IGNORECASE)


def _option_approved(entry: AuditEntry) -> list[str]:
    return ["requirements-analysis"] if _REQUIREMENTS_OPTION.search(words_of(entry)) else []


def _stages_answered(entry: AuditEntry) -> list[str]:
    heading = heading_of(entry)
    if (noted := stage_approved_in_note(entry)) is not None:
        return [noted]
    if (left := _continued_from(entry)) is not None:
        return [left]
    if approved_before := _approved_before_going_on(entry):
        return list(approved_before)
    if _ANSWERS.search(heading) and not names_approval(heading):
        return []
    named = list(dict.fromkeys(stages_named(heading) + nfr_approved(heading)))
    asked = [] if names_approval(heading) else stages_followed_by(heading, _REQUEST)
    left_out = asked + stages_followed_by(heading, SKIPPED_AFTER)
    if left_out:
        return [stage for stage in named if stage not in left_out]
    if named:
        return named
    context = entry.fields.get("context", "")
    if STARTS.search(context) and not names_approval(context):
        return []  # `Unit 2 Functional Design starts`: the stage the approval opened, not the one it approves
    first = context_stage(context)
    return [first] if first else []


# `NFR` alone, in capitals, right before the word approved: both NFR stages approved, which a log may present together
# (chat-cli/chat-cli's `Unit 2 NFR Approval - Code Generation Planning`, "Continue to Next Stage", after `Unit 2 NFR
# Requirements + NFR Design (combined)`; `Functional Design + NFR - Approval`); not a requirement's id (`NFR-01`).
_NFR_APPROVED = re.compile(r"(?<![\w-])(?-i:NFR)[ \t]*+(?:[-–—:][ \t]*+)?(?:" + APPROVAL.pattern + ")", re.IGNORECASE)


def nfr_approved(heading: str) -> list[str]:
    """Both NFR stages where the heading approves `NFR` alone (`_NFR_APPROVED`; not `NFR approval pending`)."""
    said = "NFR" in heading and _NFR_APPROVED.search(approvals_given(heading))  # most name no NFR: no setting aside
    return ["nfr-requirements", "nfr-design"] if said else []


def context_stage(context: str) -> str | None:
    """The stage a Context is about: the first it names, not one it names as the next (BADA's `## 유닛 1 설계 - 사용자
    승인`, "unit 1 design: approved", Context `Unit 1 design approved. Proceeding to Code Generation.`, approves no code
    yet to be written), nor one it names as past (Naoya-ya-man/Equipment_Operating_Rate's Context `Post-Build-and-Test
    — User-observed anomaly ...`, over the person's bug report: work after the build and test, no approval of it)."""
    about = _until_next(context)
    starts = label_starts(about)  # once: a `post ` before each of a hostile run of them was read to the end
    past = next((found for found in _AFTER.finditer(about) if found.end() in starts), None)
    return stage_of(about[:past.start()] if past else about)


def _until_next(text: str) -> str:
    """`text` up to what it says comes next (`Next: ...`, `다음 ...`, "proceeding to ...")."""
    going = _GOING_ON.search(text)
    return text[:going.start()] if going else text


# "post-" before a stage's name: what follows that stage (`post-Build-and-Test defect fix`, `Post-code generation
# enhancements`)
_AFTER = re.compile(r"\bpost[- ]", re.IGNORECASE)


def approves(entry: AuditEntry, stage: str) -> bool:
    """Whether an audit entry says that a person approved the stage, as the order of first approvals and the MCP
    refusal ask (a stricter question than `approvals`, which takes the person's words under the stage's heading): it
    holds the person's input (`(pending)`, `N/A ...` are none) that neither refuses nor only picks options, and its
    heading (or, without one, its context) names the stage and its heading, status, context or the person's own
    words say approved (`"Aprobar y continuar"` under `## Workflow Planning`), or a sentence of its AI response
    names the stage and says approved ("Requirements Analysis approved; starting User Stories")."""
    if not has_words(entry) or stage in plans_of(entry) or not_a_yes(entry):
        return False
    heading, context = heading_of(entry), entry.fields.get("context", "")
    if stage in stages_followed_by(heading, SKIPPED_AFTER):
        return False
    if stage in _option_approved(entry):
        return True
    if _continued_from(entry) == stage:
        return True
    if approved_before := _approved_before_going_on(entry):
        return stage in approved_before
    # a Context about another unit names none of this one's stages (Wagomu056/RocketJump's `## Unit 1 Approved / Unit 2
    # Functional Design Start`, Context `CONSTRUCTION - Unit 2 Functional Design complete`: unit 1's code approved)
    units = {unit_of(heading), unit_of(context)} - {None}
    named = stage_of(heading) if heading and stage_of(heading) else stage_of(context) if len(units) < 2 else None
    if stage in nfr_approved(heading):  # `Unit 6 NFR - Approval`: both NFR stages named
        named = stage
    if named == stage and any(names_approval(text) for text in (heading, entry.fields.get("status", ""), context)):
        return True
    if named == stage and names_approval(words_of(entry)):
        return True
    return stage in approved_in_answer(entry)
