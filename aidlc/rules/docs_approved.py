"""What an aidlc-docs audit entry says was approved, for the approvals (aidlc/rules/docs_approvals.py): the stages its
answer says approved, whether the words approved a stage's plan (Part 1) rather than its work, and whether they
approve a stage for every unit. The words themselves are read in aidlc/rules/docs_words.py."""

from __future__ import annotations

import re

from aidlc.aidlc_docs.audit import PERSON
from aidlc.aidlc_docs.model import AuditEntry
from aidlc.aidlc_docs.stages import label_starts, stages_followed_by, stages_named
from aidlc.aidlc_docs.state_line import ALL_UNITS, SKIPPED
from aidlc.aidlc_docs.units import unit_of
from aidlc.rules.docs_words import (
    APPROVAL,
    NEXT,
    NOT_APPROVED,
    NOTED,
    QUOTED,
    SENTENCE,
    approval_at,
    approvals_given,
    names_approval,
    words_of,
)

# A plan put to the person (Code Generation's Part 1) is approved apart from the stage's work; Japanese プラン too
# (Mr-Unchain/markdown-editor's `## INCEPTION - User Stories (プラン承認)`). (Workflow Planning is a stage's name,
# `ワークフロープランニング`, no plan put to the person.)
PLAN = re.compile(r"(?<!workflow )\bplan|\bpart[ \t]*1\b|계획|计划|計画|(?<!ワークフロー)プラン|plano\b", re.IGNORECASE)
# The plan word right after a stage's name (`Code Gen Plan`, `User Stories プラン`, `Functional Design (Part 1)`).
PLAN_AFTER = re.compile(r"\W{0,3}(?:" + PLAN.pattern + ")", re.IGNORECASE)
# The stages whose plan (Part 1) the rules put to the person apart from the stage's work (Part 2): User Stories'
# story plan, Units Generation's unit-of-work plan, Code Generation's plan.
PLANNED = frozenset({"user-stories", "units-generation", "code-generation"})
# The design stages, whose plan holds questions the person answers before the design is made, then approved
# (functional-design.md, Step 8): an entry about the plan named right after the stage's name approves the plan's
# answers, not the design (MamaMoh/SimbaFlow's `Unit 7 FD Plan Approved; FD Artifacts Ready`, MangoYoun's
# `Functional Design Plan - User Approval`). Not Workflow Planning: its execution plan is the stage's work.
DESIGNS = frozenset({"application-design", "functional-design", "nfr-requirements", "nfr-design",
                     "infrastructure-design"})


def approved_in_answer(entry: AuditEntry) -> tuple[str, ...]:
    """The stages a sentence of the agent's answer says approved (`Functional Design 승인 처리`: "Functional Design's
    approval recorded"; "Requirements Analysis approved; starting User Stories"; "Approved the requirements, moving
    to Workflow Planning"), never the plan of a stage the rules approve apart from its work (PLANNED: "User Stories
    プラン承認", "the story plan approved"), nor a design's plan named so (DESIGNS: "Functional Design Plan 승인
    확인"): where the person's go-ahead is logged under the next stage's
    heading, the answer names the stage it approved (aws-ai-dlc's "다음단계 부탁해" under `## Frontend NFR Requirements
    - Questions`). The stage named before the word approved, else in the clause after it: not the next one."""
    found: list[str] = []
    for sentence in SENTENCE.split(entry.fields.get("ai_response", "")):
        if APPROVAL.search(sentence) is None:  # most sentences name no approval: nothing to set aside
            continue
        text = approvals_given(sentence)
        said = APPROVAL.search(text)
        if said is None or NOT_APPROVED.search(text) or _ASSUMED.search(text):
            continue
        after = _CLAUSE.split(text[said.end():], 1)[0]  # a stage the clause says was skipped is none approved
        named = stages_named(text[:said.end()]) or ([] if SKIPPED.search(after) else stages_named(after))
        plans = DESIGNS.intersection(stages_followed_by(text, PLAN_AFTER))
        found += [stage for stage in named if not (stage in PLANNED and PLAN.search(text)) and stage not in plans]
    return tuple(dict.fromkeys(found))


def plan_approved_in_answer(entry: AuditEntry, stage: str | None) -> bool:
    """Whether a sentence of the agent's answer says Code Generation's plan was approved, or its Part 2 starts
    (thetkim9's `## Construction Phase - TDD Code Generation 승인`, "Approve & Continue", answered `TDD Code Generation
    Plan 승인. Step 0 실행 시작.`: the plan's approval, the code yet to be written); a sentence naming no stage
    speaks of the `stage` the heading names (welligtoncos/ia-dlc-lote-clientes-aws's `## unit-infra-aws Code
    Generation executada`, "aprovado", answered "Plano APPROVED. Parte 2: ...")."""
    for sentence in SENTENCE.split(entry.fields.get("ai_response", "")):
        if not (_says_plan_approved(sentence) or starts_part_two(sentence)):
            continue  # asked first: most sentences say neither, and naming their stages costs more
        if "code-generation" in (stages_named(sentence) or ([stage] if stage is not None else [])):
            return True
    return False



def plan_approved_in_note(entry: AuditEntry) -> bool:
    """Whether the writer's note beside the person's quoted words says they approved a plan (primevalsistail/
    endless-runner's `"OK"（Code Generation Plan 承認）` under `## Code Generation - v1.2 完了`, cheongYak-radar's
    `"go" (approve U3 code-gen plan)` under `## U3 Code Generation — Approved & Complete`): the plan's approval, the
    code written after the words."""
    for key in PERSON:
        text = entry.fields.get(key, "")
        if QUOTED.search(text) and _says_plan_approved(QUOTED.sub(" ", text)):
            return True
    return False


# `approval of`, `approval continuation from`: the approval word, maybe one more, then what it is of
_OF = re.compile(r"\w*(?:[ \t]+\w+)?[ \t]+(?:of|from)\b", re.IGNORECASE)


def stage_approved_in_note(entry: AuditEntry) -> str | None:
    """The stage the writer's note in brackets right after the person's quoted words says they approved, naming it
    alone before the approval word, or as what the approval is of or from (adityawagh1710/document-uploader-aspose-
    total-demo's `"Approve & Continue" (User Stories approval) — resumed Code Generation Part 2.` under `## Code
    Generation Part 2 — All 20 Steps Executed`: the stories approved, the code written after the words); not a plan's
    (`plan_approved_in_note`), nor the stage the words went on to (`"b" (approved - on to Code Generation)`)."""
    for key in PERSON:
        for note in NOTED.finditer(entry.fields.get(key, "")):
            text = note["note"]
            at = approval_at(text)
            if at == len(text) or NOT_APPROVED.search(text) or names_own_plan(text):
                continue
            # `(approval of U2 Functional Design)`, betmeet's `(approval continuation from User Stories)`: the stage
            # after the word, as what it is of
            named = stages_named(text[:at]) or (stages_named(text[at:]) if _OF.match(text, at) else [])
            if len(named) == 1:
                return named[0]
    return None


def _says_plan_approved(text: str) -> bool:
    """Whether `text` says a plan was approved: not "presented plan for approval", an approval awaited
    (sreeram2506/workflow-builder's "User Stories approved. Started Workflow Planning; ... presented plan for
    approval." read the stories' approval as their plan's)."""
    return names_approval(text) and names_own_plan(text)


def names_own_plan(text: str) -> bool:
    """Whether `text` names a plan that is not a design's: a plan word belongs to the stage named last before it
    (oliver-koeth/hre-demo's `UOW-03 Code Generation Approved and UOW-04 Functional Design Planning Start`, answered
    "... advanced aidlc-state to Functional Design UOW-04 Planning": the code approved, the next unit's design being
    planned)."""
    labels = iter(label_starts(text).items())  # in the order of the text, as the plan words are found
    label, last = next(labels, None), None
    for word in PLAN.finditer(text):  # one walk over both: a hostile run of plan words and labels stays linear
        while label is not None and label[0] < word.start():
            last, label = label[1], next(labels, None)
        if last not in DESIGNS:
            return True
    return False


def starts_part_two(text: str) -> bool:
    """Whether `text` says a stage's Part 2 starts (`Code Generation Part 2 (Generation) 시작`): the plan (Part 1)
    approved, the work yet to be done."""
    return _PART_TWO_STARTS.search(text) is not None


# An answer that starts Code Generation's Part 2 answered the plan's approval: m2nho's "응" ("yeah") under `## Code
# Generation - Unit 1 Backend - User Approval`, answered `Code Generation Part 2 (Generation) 시작`.
_PART_TWO_STARTS = re.compile(r"\bpart[ \t]*(?:2|two|ii)\b[^.\n]{0,40}?(?:시작|\bstart|\bbegin|開始|开始|진입)",
                              re.IGNORECASE)


# An approval the agent took for granted is none: "Functional Design 승인 간주" ("deemed approved"; shimmk-skt, after
# "Backend Unit 개발 시작할거야": "I'll start the backend unit"), "approval assumed", "视为批准".
_ASSUMED = re.compile(r"간주|\bassum(?:ed|ing)\b|\bdeem|\btreat\w*[ \t]+as|\btaken[ \t]+as|みな|見な|视为|視為",
                      re.IGNORECASE)
# Where the clause of an approval ends: a stop, the next stage (NEXT), a word that goes on, in Spanish and Portuguese
# too (ferco's "Se registra la aprobacion de requisitos y se inicia Workflow Planning": requirements approved, the
# next stage started, not approved), a stage not yet reached (oliver-koeth/hre-demo's "Recorded approval of
# Requirements Analysis and paused the workflow before User Stories").
_CLAUSE = re.compile(r"[;,:—–；，：、]|\s-\s|" + NEXT.pattern +
                     r"|\b(?:moving|starting|proceed\w*|inici\w*|comienz\w*|before)\b|进入|開始|开始", re.IGNORECASE)


def approved_for_every_unit(entry: AuditEntry, units: int) -> bool:
    """Whether a sentence of the heading, the person's words or the agent's answer says approved and, in the same
    clause, for every unit of a project of `units` units, naming none (nahom-habtamu/Bug-Squelcher's "Functional
    Design approved for both units" under `## Functional Design — Architect Approval`, its Context naming the next
    step's unit: `Code Generation (Backend), Part 1 Planning`): `both units` only where there are two, `all 3 units`
    only where there are three."""
    return any(_approves_every_unit(sentence, units)
               for text in (entry.heading or "", words_of(entry), entry.fields.get("ai_response", ""))
               for sentence in SENTENCE.split(text))


_COUNTS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")  # ALL_UNITS's words, from 2


def _approves_every_unit(sentence: str, units: int) -> bool:
    if ALL_UNITS.search(sentence) is None or APPROVAL.search(sentence) is None or unit_of(sentence) is not None \
            or NOT_APPROVED.search(sentence):
        return False  # most sentences speak of no unit at all
    given = approvals_given(sentence)
    said = APPROVAL.search(given)
    if said is None:
        return False
    clause = _CLAUSE.split(given[:said.start()])[-1] + said.group() + _CLAUSE.split(given[said.end():], 1)[0]
    every = ALL_UNITS.search(clause)
    if every is None:
        return False
    words = every.group().lower().split()
    counted = 2 if "both" in words else next((int(word) if word.isdigit() else _COUNTS.index(word) + 2
                                              for word in words if word.isdigit() or word in _COUNTS), units)
    return counted == units
