"""The approvals the aidlc-docs layout's audit logs record: which entries hold a person's words, which stages (of
which unit) an entry answers for, whether it approves a stage, and when each stage was first approved. The
work-tree rules (aidlc/rules/docs_layout.py), the history rules (aidlc/rules/docs_history_ticks.py) and the unit
evidence read approvals this one way.

An approval, as these rules read one, is an audit entry whose heading or Context names the stage (and the unit,
when the ticked line names one) and whose User Input or User Response holds a person's words: not an empty, `N/A`
or `(pending)` field, not the AI's own approval prompt, not a `Status` of changes requested.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict

from aidlc.aidlc_docs.model import AuditEntry, DocsProject
from aidlc.aidlc_docs.stages import BY_SLUG, ORDER, stage_at, stage_of, stages_named
from aidlc.aidlc_docs.state import AWAITING
from aidlc.aidlc_docs.units import folders_named, listed_units, unit_of

# `(...)`, `（...）`: an agent's note where the person said nothing; a note before their quoted words (`(답변) "Q2는
# B로 ..."`: "(answer)") labels them, unless the note says there are none (`(pending) — approval prompt presented`).
_NONE_YET = r"\((?:n/?a|none|pending|tbd|no (?:direct )?(?:user )?input)\b"
_NO_WORDS = re.compile(r"^(?:n/?a\b|none\b|pending\b|tbd\b|no (?:direct )?(?:user )?input|-+$|—$|\(.*\)\W*$|"
                       + _NONE_YET + "|"
                       r"（.*）\W*$|없음|해당\s*없음)", re.IGNORECASE | re.DOTALL)
_ANSWERS = re.compile(r"answer|question|\bstart|답변|질문|응답 수신|시작|回答|问题|質問|开始|開始|respost|pergunt|"
                      r"inici", re.IGNORECASE)
# aprova: Portuguese; aprob, aprueb: Spanish (aprobado, apruebo); "Continue to Next Stage": the rules' own name of
# the option that approves a construction stage ("✅ **Continue to Next Stage** - Approve functional design ...").
_APPROVAL = re.compile(r"approv|승인|批准|审批|承認|aprova|aprob|aprueb|continue to (?:the )?next stage", re.IGNORECASE)
# An approval awaited or asked for is none: "awaiting approval", "承認待ち", "approval gate", "승인 게이트".
_AWAITED = re.compile(AWAITING.pattern + r"|approval[ \t]+(?:gate|prompt|request)|승인[ \t]*게이트|承認ゲート",
                      re.IGNORECASE)
_STARTS = re.compile(r"\bstart|\bbegin|시작|开始|開始|inici", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n")
# What an agent writes where the person said nothing: not a person's input.
_NO_INPUT = re.compile(r"^\W*(?:|pending|n/?a\b.*|none|\(.*\)|（.*）|대기.*)\W*$|^\W*" + _NONE_YET,
                       re.IGNORECASE | re.DOTALL)
_NOT_APPROVED = re.compile(r"changes? requested|request(?:ed)? changes|reject|declin|거절|반려|수정 요청|"
                           r"\bnot approv|n't approv|\bno aprob|\bno aprueb|\bnão aprov|미승인|不批准|未批准|"
                           r"承認しない", re.IGNORECASE)


# "User approved continuation from Code Generation to Build and Test": the stage left behind is the one approved.
_APPROVED_FROM = re.compile(r"\bapprov\w*\b[^.\n]{0,40}?\bfrom[ \t]+(?:the[ \t]+)?(?P<stage>[^.\n]{1,60})",
                            re.IGNORECASE)


def _continued_from(entry: AuditEntry) -> str | None:
    """The stage an entry's Context says the person approved moving on from (octocat_supply logs that approval
    under the next stage's `## Build and Test - Start`)."""
    context = entry.fields.get("context", "")
    found = _APPROVED_FROM.search(context)
    if found is None or _AWAITED.search(context, 0, found.end()) or _NOT_APPROVED.search(context, 0, found.end()):
        return None  # "Awaiting user approval from ...", "not approved from ..."
    return stage_at(found.group("stage"))


# "**Waiting For**: User approval to proceed to Workflow Planning": the stage an entry's author waits to move on to.
_WAITS_TO_PROCEED = re.compile(r"\bwait\w*\W+(?:for\W+)?(?:the\W+)?(?:user\W+|human\W+)?approval\W+to\W+"
                               r"(?:proceed|continue|move\W+on)\W+to\W+(?:the\W+)?(?P<stage>[^.\n]{1,60})",
                               re.IGNORECASE)


# What an entry's Context or Status says when it puts its stage to the person: it awaits their approval ("approval
# gate before Code Generation", "承認待ち"), or presents the stage for it ("Presenting for approval").
_PRESENTED = re.compile(_AWAITED.pattern + r"|\bpresent\w*[ \t]+(?:\w+[ \t]+)?for[ \t]+(?:\w+[ \t]+)?approval|"
                        r"\bready[ \t]+for[ \t]+(?:\w+[ \t]+)?approval|승인[ \t]*요청|承認依頼|请求批准", re.IGNORECASE)
# A person's words that let the work go on: an approval, or a go-ahead ("진행", "다음단계 진행해줘", "继续下一阶段",
# "continue", "yes, proceed", "ok").
_GO_AHEAD = re.compile(_APPROVAL.pattern + r"|\bcontinu|\bproceed|\bgo[ \t]+ahead|\bnext[ \t]+(?:stage|step|phase)|"
                       r"\blgtm\b|looks[ \t]+good|^\W*(?:ok|okay|yes|sure)\b|진행|다음[ \t]*단계|계속|좋아|ㄱㄱ|继续|"
                       r"下一|次へ|進めて|進んで|adelante|sigamos|prossig|avan[cç]", re.IGNORECASE)
_GO_AHEAD_LENGTH = 80  # a go-ahead is a short answer; a longer message is a new instruction, whatever words it holds
_NEXT = re.compile(r"\bnext\b|\bthen\b|다음|次は|下一|→|->", re.IGNORECASE)  # a stage named after it is the next
# A plan put to the person (Code Generation's Part 1) is approved apart from the stage's work.
_PLAN = re.compile(r"\bplan|\bpart[ \t]*1\b|계획|计划|計画|plano\b", re.IGNORECASE)


def _answered(before: AuditEntry | None, entry: AuditEntry) -> str | None:
    """The stage `before` put to the person, when `entry`, the next entry, holds their go-ahead: `before` waits
    for their approval to proceed to a next stage and `entry` starts that stage with their words (SUHYUNSHIM's
    `## Application Design - Stage Start` with "ㄱㄱ" after `Waiting For: User approval to proceed to Application
    Design`), or `before`'s Context or Status says it awaits the approval of its stage and the person's words in
    `entry` go ahead, whatever `entry`'s heading (cheongYak-radar's `U4 Infrastructure Design done; approval gate
    before Code Generation.`, then "진행" under `## U4 Code Generation`)."""
    if before is None or _NOT_APPROVED.search(entry.text):
        return None
    waited = _WAITS_TO_PROCEED.search(before.text)
    if waited is not None:
        left = stage_of(before.heading or "") or stage_of(before.fields.get("context", ""))
        going = stage_of(waited.group("stage"))
        starts = _STARTS.search(entry.heading or "") and stage_of(entry.heading or "") == going
        return left if starts and going is not None and left not in (None, going) else None
    said = " ".join(entry.fields.get(key, "") for key in ("user_input", "user_response")).strip().strip("\"'“”「」 ")
    if len(said) > _GO_AHEAD_LENGTH or not _GO_AHEAD.search(said):
        return None
    return _put_to_the_person(before)


def _put_to_the_person(entry: AuditEntry) -> str | None:
    """The stage an entry's Context or Status puts to the person for approval (never a plan, there or in its
    heading)."""
    if _PLAN.search(entry.heading or ""):
        return None
    for key in ("context", "status"):
        text = entry.fields.get(key, "")
        put = _PRESENTED.search(text)
        if put is not None and not _PLAN.search(text):
            # The stage named before the words that put it (`U4 Infrastructure Design done; approval gate before Code
            # Generation`), and before any it names as the next (`다음은 ... Functional Design 승인 게이트`), else the
            # heading's.
            named = text[:put.start()]
            named = named[:found.start()] if (found := _NEXT.search(named)) else named
            return stage_of(named) or stage_of(entry.heading or "")
    return None


def in_turn(entries: list[AuditEntry]) -> list[tuple[AuditEntry | None, AuditEntry]]:
    """Each entry of one log with the entry before it (None for the first): an entry may answer the one before."""
    return list(zip([None, *entries], entries, strict=False))


_PARTS = re.compile(r"[ \t]+/[ \t]+")  # `U6 Approved / U3 Functional Design Start`: two steps in one heading


def heading_of(entry: AuditEntry) -> str:
    """The heading as it speaks of approvals: a compound heading's parts that start something left out (`U6
    Approved / U3 Functional Design Start` is about unit U6's approval, and approves nothing of unit U3's functional
    design; `Requirements Analysis — Approved / User Stories Started` approves requirements analysis only)."""
    heading = entry.heading or ""
    parts = _PARTS.split(heading)
    kept = [part for part in parts if not _STARTS.search(part)]
    return " / ".join(kept) if len(parts) > 1 and kept else heading


def _approval(text: str) -> bool:
    """Whether `text` says approved, once what says an approval is awaited is set aside."""
    return _APPROVAL.search(_AWAITED.sub(" ", text)) is not None


def has_words(entry: AuditEntry) -> bool:
    """Whether the entry holds a person's words (User Input or User Response), and no refusal in its Status."""
    said = [entry.fields.get(key, "").strip().strip("\"'`“”「」 ") for key in ("user_input", "user_response")]
    if not any(text and not _NO_WORDS.match(text) for text in said):
        return False
    return not _NOT_APPROVED.search(entry.fields.get("status", ""))


def _code_plan(entry: AuditEntry, stage: str) -> bool:
    """Whether the entry is about Code Generation's plan (its Part 1), which approves the plan, not the stage: the
    rules ask for a second approval, of the generated code (code-generation.md, Part 2's "Wait for Explicit
    Approval"). Other stages' plans are the stage's own work (Workflow Planning's execution plan)."""
    return stage == "code-generation" and _PLAN.search(heading_of(entry)) is not None


def _new_request(entry: AuditEntry) -> bool:
    """Whether the person's words are a new instruction, not an answer to the stage: longer than a go-ahead, and
    nothing of the entry (heading, status, context, the words) says approved (AIDLC-AWS-workshop's `## Game Enhancement
    Request`, Context `Post-code generation enhancements`, with a paragraph of new features)."""
    said = " ".join(entry.fields.get(key, "") for key in ("user_input", "user_response")).strip()
    if len(said.split("\n", 1)[0]) <= _GO_AHEAD_LENGTH:  # its first line: what follows may be the agent's notes
        return False
    return not says_approved(entry)


def says_approved(entry: AuditEntry) -> bool:
    """Whether the entry's heading, status, context or the person's words say approved."""
    return any(_approval(entry.fields.get(key, "")) for key in ("status", "context", "user_input", "user_response")) \
        or _approval(heading_of(entry))


def approved_stages(entry: AuditEntry) -> list[str]:
    """The stages an entry with a person's words answers for: those its heading names, else the first its Context
    names (a Context's `Next: User Stories` is not an approval of User Stories, nor is `Unit 2 Functional Design
    starts`, where the heading approved what came before). An entry logging answers to a
    stage's questions (`Requirements Analysis - User Answers Received`) approves nothing: the rules ask for the
    answers, then separately for the approval."""
    heading = heading_of(entry)
    if (left := _continued_from(entry)) is not None:
        return [left]
    if _ANSWERS.search(heading) and not _approval(heading):
        return []
    named = stages_named(heading)
    if named:
        return named
    context = entry.fields.get("context", "")
    if _STARTS.search(context) and not _approval(context):
        return []  # `Unit 2 Functional Design starts`: the stage the approval opened, not the one it approves
    first = stage_of(context)
    return [first] if first else []


def approves(entry: AuditEntry, stage: str, unit: str | None, before: AuditEntry | None = None) -> bool:
    """Whether an audit entry records a person's approval of the stage (of the unit, where the entry names one): it
    holds the person's input (`(pending)`, `N/A ...` are none), and its heading (or, without one, its context)
    names the stage and its heading, status, context or the person's own words say approved (`"Aprobar y
    continuar"` under `## Workflow Planning`), or a sentence of its AI response names the stage and says approved
    ("Requirements Analysis approved; starting User Stories"), or it answers the entry `before` it, which waited for
    the approval of the stage (`_answered`)."""
    person = entry.fields.get("user_input") or entry.fields.get("user_response") or ""
    if _NO_INPUT.match(person.strip()) or _code_plan(entry, stage):
        return False
    heading, context = heading_of(entry), entry.fields.get("context", "")
    if _continued_from(entry) == stage:
        return unit is None or unit_of(context) in (None, unit)
    if before is not None and _answered(before, entry) == stage:
        return unit is None or unit_of(f"{before.heading or ''} {before.fields.get('context', '')}") in (None, unit)
    said = unit_of(f"{heading} {context}")
    if unit is not None and said is not None and said != unit and unit not in listed_units(heading):
        return False
    named = stage_of(heading) if heading and stage_of(heading) else stage_of(context)
    if named == stage and any(_approval(text) for text in (heading, entry.fields.get("status", ""), context)):
        return True
    if named == stage and _approval(person) and not _NOT_APPROVED.search(person):
        return True
    return any(stage_of(sentence) == stage and _approval(sentence)
               for sentence in _SENTENCE.split(entry.fields.get("ai_response", "")))


class Units:
    """Which unit an audit entry is about: `Unit 3`, `U3` in its heading (else its Context), or a unit folder its
    heading names (`(admin-web)`) that another entry ties to a number (heading `(admin-web)`, Context `Unit 3`)."""

    def __init__(self, project: DocsProject) -> None:
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
        # a folder no entry ties to a number is the unit as its own name (`v4-migration`, `v4 migration`)
        folders = folders or self._folders_in(context)
        return folders[0] if len(folders) == 1 else None


def approvals(project: DocsProject, units: Units | None = None) -> dict[tuple[str, str | None], list[AuditEntry]]:
    """The entries with a person's words, by (stage, unit) they answer for (unit None: the entry names none; a unit
    folder with a number, by its number: `Units.key`). An entry whose heading names a unit and says approved, and no
    stage, answers for the stage the log's last entry about that unit was at."""
    units = units or Units(project)
    found: dict[tuple[str, str | None], list[AuditEntry]] = defaultdict(list)
    for log in project.audits:
        at: dict[str, str] = {}  # unit -> the per-unit stage its last entry naming one was about
        for before, entry in in_turn(log.entries):
            heading = heading_of(entry)
            unit, named = units.of(entry), stage_of(heading) or stage_of(entry.fields.get("context", ""))
            if unit is not None and named is not None and BY_SLUG[named].per_unit:
                at[unit] = named
            if not has_words(entry) or _new_request(entry):
                continue
            stages = approved_stages(entry)
            if not stages and unit in at and _approval(heading) and not _NOT_APPROVED.search(heading):
                stages = [at[unit]]  # `## Unit 5: 料理管理 - 承認`: the stage unit 5 was at
            # The stage the entry before put to the person (of its unit), and the entry's own unless it starts it.
            answered = [(waited, units.of(before))] if (waited := _answered(before, entry)) and before else []
            if answered and _STARTS.search(entry.heading or ""):
                stages = []
            stages = [stage for stage in stages if not _code_plan(entry, stage)]
            # `U3 + U5 功能设计和代码生成完成`: a heading listing units answers for each of them
            listed = listed_units(heading) if unit is not None and unit_of(heading) == unit else []
            of_units = listed if len(listed) > 1 else [unit]
            for stage, of in answered + [(stage, each) for stage in stages for each in of_units]:
                found[(stage, of if BY_SLUG[stage].per_unit else None)].append(entry)
    return found


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
            if unit is None or unit in found or stages_named(heading) or not _approval(heading) \
                    or _NOT_APPROVED.search(heading) or not has_words(entry):
                continue
            found[unit] = (entry, log.path)
    return found


# -- the order of the first approvals (AIDLC-DOCS-007) ---------------------------------------------------------
Scope = tuple[int, str]  # a run of the workflow (see `first_approvals`), and `inception` or a unit


def first_approvals(project: DocsProject) -> dict[tuple[Scope, str], tuple[AuditEntry, str]]:
    """The first approval of each stage (of each unit, for the per-unit ones), with its log's path, by scope (the
    run of the workflow, and `inception`, else the unit) and stage: stages are compared within inception, and within
    each unit, of one run; a per-unit stage's approval naming no unit is compared with nothing. Each Workspace
    Detection logged starts a run, as the workflow starts with it (aidlc-demo-showcase's `## Workspace Detection
    (Brownfield)`, after a first run through code generation, runs every stage again from reverse engineering)."""
    first: dict[tuple[Scope, str], tuple[AuditEntry, str]] = {}
    units = Units(project)
    starts = sorted(entry.at for log in project.audits for entry in log.entries
                    if entry.at is not None and stage_of(heading_of(entry)) == "workspace-detection")
    for log in project.audits:
        for entry in log.entries:
            stage = _approved_stage(entry)
            if stage is None or entry.at is None:
                continue
            unit = units.of(entry) if BY_SLUG[stage].per_unit else "inception"
            if unit is None:
                continue
            scope = (bisect_right(starts, entry.at), unit)
            known = first.get((scope, stage))
            if known is None or entry.at < (known[0].at or entry.at):
                first[(scope, stage)] = (entry, log.path)
    return first


def _approved_stage(entry: AuditEntry) -> str | None:
    """The stage an entry approves, as the order is judged: the stage its heading names (else its Context), of an
    entry that says it approves (a person's words alone may be answers or a request); Build and Test aside."""
    if entry.at is None or not has_words(entry):
        return None
    stages = approved_stages(entry)
    stage = stages[0] if stages else None
    if stage is None or not BY_SLUG[stage].approval or stage == "build-and-test" or not approves(entry, stage, None):
        return None
    return stage


def asked_for_out_of_order(project: DocsProject, scope: Scope, stage: str, approval: AuditEntry) -> bool:
    """Whether the person changed the order on purpose: before `approval` (the stage's first), their own words name
    the stage in an entry of a stage the order puts after it, in the same scope (aws-ai-dlc's `## INCEPTION - Workflow
    Planning (User Override)` with "User Stories 단계를 건너뛰지마": don't skip User Stories). Words naming the stage
    under an earlier stage's heading, or in its own approval, decide no order."""
    units = Units(project)
    per_unit = BY_SLUG[stage].per_unit
    for log in project.audits:
        for entry in log.entries:
            if entry is approval or entry.at is None or approval.at is None or entry.at > approval.at:
                continue
            of = stage_of(heading_of(entry)) or stage_of(entry.fields.get("context", ""))
            if of is None or ORDER[of] <= ORDER[stage] or BY_SLUG[of].per_unit != per_unit or not has_words(entry):
                continue
            said = " ".join(entry.fields.get(key, "") for key in ("user_input", "user_response"))
            if stage in stages_named(said) and (not per_unit or units.of(entry) == scope[1]):
                return True
    return False


def later_approved_before(first: dict[tuple[Scope, str], tuple[AuditEntry, str]], scope: Scope,
                           stage: str, entry: AuditEntry, log: str) -> tuple[AuditEntry, str] | None:
    """(its approval, the stage) of the earliest approval in `scope`, before `entry` (of `log`), of a stage the
    documented order puts after `stage`; None when there is none. Before in time, and in one log above it too: where
    the log's order and its times disagree (a time written by hand, AIDLC-DOCS-009; entries put above older ones,
    AIDLC-DOCS-023), which came first is not known."""
    before = [(other.at, other, later) for (other_scope, later), (other, other_log) in first.items()
              if other_scope == scope and ORDER[later] > ORDER[stage] and other.at and entry.at
              and other.at < entry.at and (other_log != log or other.line < entry.line)]
    if not before:
        return None
    _, other, later = min(before, key=lambda found: found[0])
    return other, later
