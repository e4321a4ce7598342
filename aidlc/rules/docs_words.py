"""What the words of an aidlc-docs audit entry say, for the approvals (aidlc/rules/docs_approvals.py): the person's
(User Input, User Response) and the agent's answer (AI Response)."""

from __future__ import annotations

import re

from aidlc.aidlc_docs.audit import PERSON, person_words
from aidlc.aidlc_docs.model import AuditEntry
from aidlc.aidlc_docs.stages import stages_named
from aidlc.aidlc_docs.state_line import AWAITING

_NONE_YET = r"\((?:n/?a|none|pending|tbd|no (?:new )?(?:direct )?(?:user )?input)\b"
# What an agent writes where the person said nothing, after any marks (`**`, quotes, `- `; an emoji is words):
# nothing, `N/A`, `None`, `Pending ...`, `TBD`, `No user input`, `No new user input; <the writer's note>` (waikato-
# ahuora-smart-energy-systems/OpenPinch, 122 times), `없음`, `해당 없음` ("none"), `대기 중` ("waiting";
# not `대기업`, "a large company"), a note in brackets to the end (`(...)`, `[pending]`, `（...）`), or a bracketed
# note saying there are none, whatever follows (`(pending) — approval prompt presented`); a note before quoted words
# (`(답변) "Q2는 B로 ..."`: "(answer)") labels them. The marks are matched possessively and the notes atomically:
# patterns backtracking between them took seconds on a hostile `[[[...]]]a`.
_NO_WORDS = re.compile(r"[\s*_`\"'“”‘’「」『』.,:;!?>#|~—–-]*+(?:$|(?:n/?a|none|pending|tbd)\b|"
                       r"no (?:new )?(?:direct )?(?:user )?input|해당\s*없음|없음|대기(?:[ \t]*중)?(?!\w)|"
                       r"\((?>.*\))\W*+$|\[(?>.*\])\W*+$|（(?>.*）)\W*+$|" + _NONE_YET + ")",
                       re.IGNORECASE | re.DOTALL)
# 核可: Chinese (Taiwan); aprova: Portuguese; aprob, aprueb: Spanish (aprobado, apruebo); "Continue to Next Stage": the
# rules' own name of the option that approves a construction stage ("✅ **Continue to Next Stage** - Approve ...").
APPROVAL = re.compile(r"approv|승인|批准|审批|核可|承認|aprova|aprob|aprueb|continue to (?:the )?next stage",
                       re.IGNORECASE)
# A review and approval awaited together, whole: `AWAITING` alone sets aside "awaiting user review" and leaves
# "and approval" saying approved (Shaikh1828/SPL-3's Context `...; awaiting user review and approval`, over "Option 2",
# the person's choice that the agent propose the answers; dcrearer/zero2prod's Status `Awaiting user review and
# approval`; `awaiting review/approval`).
_REVIEW_AND_APPROVAL = (r"(?:awaiting|waiting[ \t]+for)[ \t]+(?:the[ \t]+)?(?:user[ \t]+|human[ \t]+)?review[ \t]*"
                        r"(?:and|&|/|or)[ \t]*(?:the[ \t]+)?approval")
# An approval awaited or asked for is none: "awaiting approval", "承認待ち", "approval gate", "승인 게이트", "approval
# pending" (alicestellar/MacroEditor's Context `Application Design approval pending, then Units Generation`, over
# "Go ahead and continue until you need my input"); nor one yet to come: aws-ai-dlc's Context `Infrastructure Design
# 승인 전 전체 교차 검증 완료` ("cross-check done before Infrastructure Design's approval"), under a heading naming
# no stage, with a request to check everything (not `승인 전환`). Nor one asked for: "Presenting for approval",
# "ready for approval", "승인 요청" ("approval requested"; Zip-Captions' `## INCEPTION - Requirements Analysis (Gate
# Cleared)`, "done" to the questions, Context `Requirements Analysis complete. Presenting for approval.`), "for my
# approval" (jongon/betmeet-clone's canned command "... present the plan (with validated Mermaid) for my approval. Do
# not proceed without confirmation.", 7 times cited as Workflow Planning's approval), "for user review and approval".
AWAITED = re.compile(_REVIEW_AND_APPROVAL + "|" + AWAITING.pattern +
                     r"|approval[ \t]+(?:gate|prompt|request)|승인[ \t]*게이트|承認ゲート|"
                     r"\bpresent\w*[ \t]+(?:\w+[ \t]+)?for[ \t]+(?:\w+[ \t]+)?approval|"
                     r"\bfor[ \t]+(?:my|your|(?:the[ \t]+)?user'?s?)[ \t]+(?:review[ \t]+and[ \t]+)?approval|"
                     r"\bready[ \t]+for[ \t]+(?:\w+[ \t]+)?approval|승인[ \t]*요청|承認依頼|请求批准|"
                     r"approval[ \t]+(?:is[ \t]+)?(?:still[ \t]+)?pending|"
                     r"\b(?:before|prior[ \t]+to)[ \t]+(?:the[ \t]+)?(?:user'?s?[ \t]+|final[ \t]+)?approval|"
                     r"승인[ \t]*전(?![환송달])|承認前|批准前|审批前", re.IGNORECASE)
# Nor is one given before the entry: agwlvssainokuni/MasterMeister4's `## UNIT-10 承認後の追加是正` ("further fixes
# after approval"), over the person's error report, was read as an approval; nor "the approved" thing, named as one
# approved before (abdullahsohaill/erp-supplier-onboarding's Context `Construction workflow planning complete and
# awaiting explicit user approval. ... and the approved partial Property-Based Testing extension are included`); but
# "the approved plan" is this entry's (oliver-koeth/hre-demo's "Executed the approved UOW-03 code generation plan",
# over "Continue to Next Stage": the plan approved, the code made, in one entry); nor one "already approved" or
# "previously approved" (agwlvssainokuni/MasterMeister2's Context `U2 Functional Design, artifacts under review
# (Step 7/8 gate still open). ... U1's already-approved frontend-components.md was amended`, over the person's
# question).
_GIVEN_BEFORE = re.compile(r"\b(?:after|post)[ \t-]+(?:the[ \t]+)?(?:user'?s?[ \t]+)?approval|"
                           r"\bthe[ \t]+approved(?=[ \t]+\w)(?![ \t]+(?:[\w-]+[ \t]+){0,4}[\w-]*plan)|"
                           r"\b(?:already|previously)[ \t-]+approved\b|"
                           r"승인[ \t]*후|承認後|批准后|审批后", re.IGNORECASE)
# Nor is one asked for from now on: lyhlg's Context `변경 전 반드시 승인 받을 것` ("get approval before any change"),
# logged with the person's rebuke, "revert the change you just made" (no stage put to the person: not AWAITED).
_REQUIRED = re.compile(r"승인을?[ \t]*받(?:을|아야)|approval[ \t]+(?:is[ \t]+)?(?:required|needed)|"
                       r"(?:requires?|needs?|must[ \t]+(?:get|obtain))[ \t]+(?:\w+[ \t]+)?approval", re.IGNORECASE)
# A sentence ends at a stop and a blank, or at a full-width stop alone (Mameta29's `実行プラン承認。Application
# Designに進行。`)
SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n")
# Nor is an approval awaited with a stage, unit or plan named between: MagicExist/Memo-Rise's Context `still awaiting
# U1 Code Generation approval`, over setup questions asked before it. It says the approval is yet to come, not that
# the entry puts that stage to the person (nix-config's `awaiting second approval` is a revision's, not Workflow
# Planning's, which the next entry's "approved, you may proceed" answers).
_AWAITED_NAMED = re.compile(r"\b(?:awaiting|waiting[ \t]+for)[ \t]+(?:[\w&-]+[ \t]+){1,4}?approval", re.IGNORECASE)
# An approval denied: "not approved", "not yet approved", "has not been approved", hyphenated too ("a
# not-yet-approved artifact", Naoya-ya-man/Equipment_Operating_Rate) (MD-team-project's Context `Step 9
# approval gate still pending - requirements.md has not been approved`, over "check the PR it's merged.").
_DENIED = re.compile(r"(?:\bnot|n't)[ \t-]+(?:yet[ \t-]+)?(?:been[ \t-]+)?approv\w*", re.IGNORECASE)
NOT_APPROVED = re.compile(r"(?<!no )(?<!without )changes? requested|request(?:ed)? changes|reject|declin|거절|반려|"
                          r"\bnot[ \t]+(?:a[ \t]+|my[ \t]+)?consent|" + _DENIED.pattern + r"|"
                          r"수정 요청|\bno aprob|\bno aprueb|\bnão aprov|미승인|不批准|未批准|"
                          r"承認しない", re.IGNORECASE)
# A person's words that let the work go on: an approval, or a go-ahead ("진행", "다음단계 진행해줘", "继续下一阶段",
# "continue", "go on", "yes, proceed", "ok"), or a yes that is the whole answer ("y", "go", "next", "네", "ㅇㅇ"),
# said once or more (SUHYUNSHIM/aidlc-0204's "네네", "yes yes"; "고고", "go go").
# Spanish (ferco): "Bien, hagamoslo" ("let's do it"), "Dale noma" ("go on, then": first, never "dale un nombre",
# "give it a name"), "Vamo a darle" ("let's get to it"), "vamos" ("let's go", never "vamos a cambiar ...", "we are
# going to change ..."); not "listo", "done", which life-os, minimum-latency-challenge and ferco write when they
# have filled in a stage's questions, nor "sigue", "keeps" in ferco's "Sigue pasando lo mismo", a bug report.
# "Add User Stories", "Add Skipped Stages": options the rules' completion messages offer beside "Approve & Continue",
# which go on to the stage added (aidlc-table-order-test).
# "OKです" or "レビューOKです" ("review OK") as the whole first sentence (miura-bd's "レビューOKです。
# Inception フェーズを完了させてください", after Units Generation awaited approval): not "OKですか" (a
# question), nor "OKですが ..." ("OK, but ...").
_GO_AHEAD = re.compile(APPROVAL.pattern + r"|\bcontinu|\bproceed|\bgo[ \t]+ahead|\b(?:go|carry|move)[ \t]+on\b|"
                       r"\bnext[ \t]+(?:stage|step|phase)|"
                       r"\blgtm\b|looks[ \t]+good|^\W*(?:ok|okay|yes|sure)\b|"
                       r"^\W*(?:レビュー[ \t]*)?ok[ \t]*(?:です)?[ \t]*(?:[。！!\n]|$)|"
                       r"진행|다음[ \t]*단계|계속|좋아|ㄱㄱ|继续|"
                       r"下一|次へ|進めて|進んで|adelante|sigamos|prossig|avan[cç]|"
                       r"^\W*add[ \t]+(?:user[ \t]+stories|skipped[ \t]+stages)\W*$|"
                       r"\bhag[aá]moslo\b|^\W*dale\b(?![ \t]+(?:una?|el|la|los|las|al?|m[aá]s)\b)|"
                       r"\bvamos\b(?![ \t]+a\b)|\bvamos?[ \t]+a[ \t]+darle\b|"
                       r"^\W*(?:(?:y|yep|yeah|go|next|네|넵|응|웅|ㅇㅇ|고|sí|si|sim|はい|好的?|可以)\W*)+$",
                       re.IGNORECASE)
# Words that go on to the next stage: the rules' "Continue to Next Stage" in the person's own words (`다음 진행하자`,
# "let's go on to the next", kai-cupist).
NEXT_STAGE = re.compile(r"다음[ \t]*(?:단계|진행)|\bnext[ \t]+(?:stage|step|phase)\b|下一(?:步|阶段)|"
                        r"次の(?:ステップ|段階|ステージ)|siguiente[ \t]+(?:etapa|fase|paso)|"
                        r"pr[oó]xim[ao][ \t]+(?:etapa|fase|passo|paso)",
                        re.IGNORECASE)
# A word of an answer that picks options: a question's number, an option's letter, or both (`Q1:`, `A`, `1-B`).
_CHOICE_WORD = re.compile(r"(?:q?\d+[:.)=-]?)?(?P<option>[a-e])?", re.IGNORECASE)
_CHOICE_GAP = re.compile(r"[\s,;/]+")
# One question answered by its number and title, the answer after an arrow: adityawagh1710/document-uploader-aspose-
# total-demo's "### Question 3 — Maximum input size -> D" and "### Question 6 — Caller authentication -> X - no auth,
# we'll add it later" (the answer file's heading, then the option or the person's own answer), 9 times cited as
# Requirements Analysis's approval. An answer that also goes ahead (`-> D, approve & continue`) is more than a pick.
_TITLED_ANSWER = re.compile(r"#*[ \t]*(?:question|q)[ \t]*\d{1,4}\b[^\n]{0,120}?[ \t]*"
                            r"(?:(?:=>?|:)[ \t]*[a-e]|(?:->|→)(?P<answer>[^\n]*))", re.IGNORECASE)
GO_AHEAD_LENGTH = 80  # a go-ahead is a short answer; a longer message is a new instruction, whatever words it holds
NEXT = re.compile(r"\bnext\b|\bthen\b|다음|次は|下一|→|->", re.IGNORECASE)  # a stage named after it is the next
QUOTES = "\"'`“”「」 "  # around the words, as logs quote them


def words_of(entry: AuditEntry) -> str:
    """The person's words of an entry: its User Input and User Response (without an IDE's context before them)."""
    return " ".join(person_words(entry.fields.get(key, "")) for key in PERSON)


# The person's words as a log quotes them; what stands outside the quotes is the writer's note on them. Then the
# quoted words with a writer's note in brackets: `"Approve & Continue" (User Stories approval)`,
# soneda-yuya/ontology-agent's `"Continue" (interpreted per AI's offer = batch NFR Design + Infrastructure, ...)`.
QUOTED = re.compile(r'"[^"\n]*"|“[^“”\n]*”|「[^「」\n]*」')
NOTED = re.compile(rf"(?P<words>{QUOTED.pattern})[ \t]*[(（](?P<note>[^()（）\n]{{1,120}})[)）]")


# What may stand between the quoted words of answers given one after another: a writer's note, a joining word.
_BETWEEN_QUOTES = re.compile(r"(?:[ \t]*[(（][^()（）\n]{1,120}[)）])?[ \t]*(?:(?:then|and|\+|→|->|,|;)[ \t]*)?",
                             re.IGNORECASE)


def spoken(entry: AuditEntry) -> str:
    """The person's words as their length is judged (a go-ahead is short): their quoted words alone, where a writer's
    note in brackets is all that follows them, or all that stands between answers given one after another (soneda-
    yuya/ontology-agent's `"Continue to Next Stage" (infra approved) then "Approve & Continue" (code-gen plan
    approved)`)."""
    said = words_of(entry).strip()
    around = QUOTED.split(said)
    if len(around) == 1 or around[0] or not all(_BETWEEN_QUOTES.fullmatch(part) for part in around[1:]):
        return said
    return " ".join(QUOTED.findall(said))


def approval_at(text: str) -> int:
    """Where `text` first says approved, once what says an approval is awaited, was given before, is required or
    denied is blanked out (offsets kept); its length where it does not."""
    if APPROVAL.search(text) is None:  # most texts name no approval: nothing to set aside (four passes saved)
        return len(text)
    found = APPROVAL.search(approvals_given(text))
    return found.start() if found else len(text)


def approvals_given(text: str) -> str:
    """`text` with what says an approval is awaited, was given before, is required or denied blanked out (offsets
    kept)."""
    for set_aside in (AWAITED, _AWAITED_NAMED, _GIVEN_BEFORE, _REQUIRED, _DENIED):
        text = set_aside.sub(lambda found: " " * len(found.group()), text)
    return text


def names_approval(text: str) -> bool:
    """Whether `text` says approved, once what says an approval is awaited, was given before, is required or denied
    is set aside."""
    return approval_at(text) < len(text)


def goes_ahead(entry: AuditEntry) -> bool:
    """Whether the person's words are a go-ahead: an approval or words that let the work go on, at most 80
    characters (`진행`, `yes, proceed`; not a request such as `Generate the orders API`)."""
    said = words_of(entry).strip().strip(QUOTES)  # a writer's note may say what they meant: `"B" (다음 단계로 진행)`
    return len(spoken(entry).strip(QUOTES)) <= GO_AHEAD_LENGTH and _GO_AHEAD.search(said) is not None \
        and not _asks(said)


# A question: it ends in a question mark, a Korean or Japanese question's ending (`확인가능할까요`, "could I check?";
# `있나요`, `ですか`), or starts with a question word ("so what is the next step"). Matched at the words' two ends
# alone: searched through the words, `?\W*$` took seconds on a hostile run of question marks.
# A question may end in a hedge: abdullahsohaill/erp-supplier-onboarding's "shuoldnt veeyr user story be mapped to
# functional requirment? idk", under `## User Story Traceability Cleanup`, the stories then changed.
_QUESTION_END = re.compile(r"(?:[?？]|까요|나요|가요|인가|ですか|ますか|でしょうか|吗)"
                           r"(?:\W*(?:idk|maybe|not sure|i guess))?\W*$", re.IGNORECASE)
_QUESTION_START = re.compile(r"\W*(?:so[ \t]+|and[ \t]+)?(?:what|which|how|why|when|where|who)\b", re.IGNORECASE)


def _asks(said: str) -> bool:
    """Whether the words ask a question, and do not also say approved ("okay approved, whats next?" approves):
    jwjoung's "혹시 ... 어떤 단계가 진행되고 안되는지 확인가능할까요" ("could I check which stages run?"), logged
    after a stage's completion, approves nothing, whatever words of going on it holds."""
    end = said.rstrip()[-12:]
    asked = _QUESTION_START.match(said[:40]) is not None or \
        any(_QUESTION_END.match(end, at) for at in range(len(end)))
    return asked and not names_approval(said)


def has_words(entry: AuditEntry) -> bool:
    """Whether the entry holds a person's words (User Input or User Response), and no refusal in its Status."""
    if all(_NO_WORDS.match(person_words(entry.fields.get(key, "")).strip()) for key in PERSON):
        return False
    return not NOT_APPROVED.search(entry.fields.get("status", ""))


def not_a_yes(entry: AuditEntry) -> bool:
    """Whether the person's words refuse (`I do not approve: changes requested`), only pick options (`A, B, C`,
    `Q1: A, Q2: C`: answers to the stage's questions, which the rules ask before its approval; one option, `A`,
    unless the entry's heading, Status or Context says approved: aiao-workshop's "A" under `## NFR Design - Unit 1
    Frontend - Plan Created`, aws-hackathon-2026's "B" under `## Requirements Analysis - 承認`), ask a question (the
    same exception: `_asks`), ask for a change and do not go ahead (aws-ai-dlc's "서비스 호출을 ... 카테고리에 속하도록
    변경해줄래?", "could you move the service call under a category?", under `## INCEPTION - Application Design (서비스
    호출 구조 변경)`), or hand the stages to the
    agent's autopilot (dd_tableorder's `"claude --enable-auto-mode" → autopilot 활성화` under `## Units Generation -
    Autopilot Execution`: the agent then picked the answers and ran the stage; no one approved it), or resume a
    session and do not say approved (`_RESUMED`), or correct the stage's work and do not go ahead, under a heading
    that names a correction and says no approval (`## User Story Correction`; not `## User Stories — Approval +
    Schema Correction`), or stop the work (`_STOPPED`) or only say the questions are answered (`_ANSWERED`), where
    the entry says no approval."""
    said = words_of(entry)
    picked = _choices(said.strip().strip(QUOTES))
    if NOT_APPROVED.search(said) is not None or _AUTOPILOT.search(said) is not None or picked > 1:
        return True
    # ian-blog's "user story추가" ("add user stories") under `## Requirements Analysis 완료 — 사용자 승인`: approved
    approved = any(names_approval(entry.fields.get(field, "")) for field in ("status", "context")) or \
        names_approval(entry.heading or "")
    if _RESUMED.search(entry.heading or "") is not None and not names_approval(said):
        return True
    return not approved and (picked == 1 or _asks(said.strip().strip(QUOTES)) or _more_work_asked(entry) or
                             _STOPPED.match(said.strip().strip(QUOTES)) is not None or
                             (_ANSWERED.fullmatch(spoken(entry).strip(QUOTES)) is not None and
                              not names_approval(said)) or
                             (_CORRECTION.search(entry.heading or "") is not None and not goes_ahead(entry)))


# Words that stop the work where it stands: agwlvssainokuni/MasterMeister2's "ここで中断する" ("I'll stop here"),
# its answer to "go on to the next item?" after each commit of unit 3's code, 17 times, each cited as the code's
# approval; "Let's just stop here so I can pick this up with a new direction in the future".
_STOPPED = re.compile(r"\W*(?:ここで(?:一旦|いったん)?(?:中断|停止|止め)|"
                      r"(?:let'?s[ \t]+(?:just[ \t]+)?)?(?:stop|pause)[ \t]+here\b)", re.IGNORECASE)
# Words saying the stage's questions are answered, and no more: welligtoncos/ia-dlc-lote-clientes-aws's "respondido"
# under each design's `... gerado` heading (16 times), sreeram2506/workflow-builder's "answered", DocSuri's "done",
# Context `User finished answering NFR design questions`: the rules ask for the answers, then for the approval.
_ANSWERED = re.compile(r"\W*(?:done|answered|respondid[oa]s?|listo|답변[ \t]*완료|回答(?:しました|済み|完了)|"
                       r"已回答|完成了?)\W*", re.IGNORECASE)


# A heading that says its entry corrects the work: abdullahsohaill/erp-supplier-onboarding's "there were supposed to
# be only 3 personas as there's only a single reviewer" under `## User Story Correction`, the stories then changed;
# not a go-ahead (GhedeePhilsophy/content-hub-mcp's "go" under `## Code Generation — Unit A (specs + generation
# correction)`, a correction of what the code does). `修正`, `수정` ("fix"): agwlvssainokuni/MasterMeister4's bug report
# under `## UNIT-03 Code Generation Complete提示 - レビュー指摘・修正` ("review finding, fix"); `指摘`, `지적` ("a point
# raised": agwlvssainokuni/cherry-testtool's bug report under `## FR11 フッターコピーライト表記のカンマ位置指摘`).
_CORRECTION = re.compile(r"\bcorrections?\b|修正|수정|指摘|지적", re.IGNORECASE)


def _more_work_asked(entry: AuditEntry) -> bool:
    """Whether the person's words ask for a change or more work (`_CHANGE_ASKED`) and go no further than it: a
    go-ahead counts where it comes first (`ㄱㄱ 진행. 그리고 ... 확인해줘봐`, "go, go. And check ...") or goes on to
    the next stage or says approved (`추가해주고 다음 단계 진행해줘`, "add them and go on to the next step"), not one
    that goes on with the work asked (mapa-tofu's `"TDD로 구현해줘" → "TDD사이클부터 진행해"`, "implement it with
    TDD" then "start with the TDD cycle", after Code Generation's completion)."""
    said = words_of(entry).strip().strip(QUOTES)
    asked = _CHANGE_ASKED.search(said)
    if asked is None:
        return False
    if not goes_ahead(entry):
        return True
    went = _GO_AHEAD.search(said)
    return not (names_approval(said) or NEXT_STAGE.search(said) or _THEN_GO_ON.search(said, asked.end()) or
                (went is not None and went.start() <= asked.start()))


# A go-ahead joined to the request as the step after it: "remove it and proceed", eunjilee-wm's `SSE emitter 기능은
# 제거하고 진행해` ("remove the SSE emitter and go on"), DocSuri's `... 질문지를 확정하고, 다음 질문지 단계까지 쭉
# 진행해 주세요` ("settle the questions, and go on through to the next questionnaire"); not `TDD사이클부터 진행해`
# ("go on starting with the TDD cycle"), which goes on with the work asked.
_THEN_GO_ON = re.compile(r"(?:하|주)고[ \t]*,?[ \t]+[^\n]{0,60}?진행|"
                         r"\band[ \t]+(?:then[ \t]+)?(?:proceed|continue|go[ \t]+on|move[ \t]+on)\b", re.IGNORECASE)


# Words that ask for a change or more work (read with `_more_work_asked`): Korean's verbs of change (변경, 수정, 추가,
# 바꿔, 삭제, 반영; "있었으면 좋겠" "I'd like there to be", "보였으면 좋겠어" "I'd like it shown", "있게 해줘" "make it
# so it can": Hooneats/aws-ai-dlc's new features under User Stories headings) and requests to verify, review, check,
# implement or set up (mapa-tofu's `... 다시 읽어서 검증해줘`, "re-read it and verify", under the functional design it
# then changed; not `확인했어`, "I checked") or to undo (lyhlg's `... 방금 변경사항은 돌려줘`, "revert the change you
# just made"), an English request that starts with one (`Add ...`, `Please change ...`, `Verify ...`) or asks one
# (`Could you ...?`).
_CHANGE_ASKED = re.compile(r"변경|수정|추가|바꿔|바꾸|삭제|제거|고쳐|반영|"
                           r"[었였았]으면[ \t]*좋겠|있게[ \t]*해[ \t]*(?:줘|주세요)|"
                           r"(?:검증|검토|점검|검수|구현|확인|설정)해[ \t]*(?:줘|주세요|주시|줄래|서|봐|$|[.!])|"
                           r"돌려|원복|"
                           # Japanese: "please check / fix / change / add ..." (Naoya-ya-man/Equipment_Operating_Rate's
                           # "少し仕様を変えたので確認してください", "I changed the spec a little; please check")
                           r"(?:確認|検証|レビュー|修正|変更|追加|削除|実装)(?:して|を)?(?:ください|下さい|ほしい|(?:お)?願い)|"
                           # Chinese: "help me ..." (446541492/kiro-project-demo's "帮我运行项目", "run the project
                           # for me", under `## 构建与测试阶段 - 完成`: the build's work asked, no approval of it),
                           # "change", "add", "delete", "make it ..."
                           r"帮我(?!继续|进行)|修改|添加|增加|删除|去掉|改成|改为|"
                           r"^\W*(?:please[ \t]+)?(?:change|add|update|fix|remove|delete|rename|modify|replace|move|"
                           r"verify|review|check|implement|revert|undo)\b|"
                           r"\b(?:can|could|would)[ \t]+you\b[^?\n]{0,200}\?", re.IGNORECASE)


# A heading logging the person's return to an interrupted session: their words there resume the work wherever it
# stood, and approve no stage the entry names (metamorph-erp/AT's "lets resume ai-dlc" under `## Session
# Resumption`, Context `resuming from Requirements Analysis`, the requirements not yet made; catface996/item-plan's
# "继续" under `## 会话恢复`; miso-taku/image_description's `## ... - Session Resume (Code Generation & Build/Test)`).
_RESUMED = re.compile(r"\bsession[ \t]++resum|\bresum\w*+[ \t]++(?:the[ \t]++|of[ \t]++(?:the[ \t]++)?)?session\b|"
                      r"会话恢复|恢复会话|セッション再開|세션[ \t]*+재개", re.IGNORECASE)

# Nor are words a coding tool writes itself to go on after its own subtask: jongon/betmeet-clone logs Claude Code's
# "Summarize the task tool output above and continue with your task." as the User Input of 13 entries, each with a
# note calling it an approval continuation.
_AUTOPILOT = re.compile(r"--enable-auto-mode|\bauto-?pilot\b|\bauto[- ]mode\b|--dangerously-skip-permissions|"
                        r"\byolo\b|summari[sz]e the task tool output above", re.IGNORECASE)


def _choices(said: str) -> int:
    """How many options the words pick when they pick options and say nothing else (`A, C, B`, `Q1: A, Q2: C`, `1-B
    2-A`, `A`; one question answered by its title, `_TITLED_ANSWER`); 0 for any other words. Read word by word (a
    pattern over the whole text would backtrack without end on `a a a ... !`)."""
    options = 0
    for word in _CHOICE_GAP.split(said):
        read = _CHOICE_WORD.fullmatch(word)
        if read is None:
            titled = _TITLED_ANSWER.fullmatch(said)
            return int(titled is not None and _GO_AHEAD.search(titled.group("answer") or "") is None)
        options += read.group("option") is not None
    return options


# What an agent's answer says of work it did in answer to the words: `Build and Test 지침 생성 완료`, "generated".
DONE = re.compile(r"\b(?:complete[ds]?|generated|created|produced|finished|done)\b|완료|생성|작성|完成|生成|作成|完了|"
                  r"conclu[íi]d|gerad", re.IGNORECASE)


def done_here(entry: AuditEntry) -> tuple[str, ...]:
    """The stages whose work the entry's AI response says it did in answer to the person's words (a sentence naming
    the stage and saying it was done or made; one naming none and the work's products or numbered steps of its plan,
    the heading's stages: kai-cupist's "믿고 간다", "I trust you, go", under `## CONSTRUCTION - backend-api NFR
    Design`, answered `설계 패턴 + 논리적 컴포넌트 산출물 생성`, "design patterns and logical components produced"): the
    words came before that work, and approve none of it (worryDolls' "계속해줘", answered `Unit 4 Build and Test 지침
    생성 완료`)."""
    return tuple(stage for sentence in SENTENCE.split(entry.fields.get("ai_response", ""))
                 if DONE.search(sentence) for stage in stages_named(sentence) or
                 (stages_named(entry.heading or "") if ARTIFACTS.search(sentence) or
                  _PLAN_STEP.search(sentence) else []))


# A numbered step of the stage's plan, the work the plan lists (Janeeffect/aidlc-demo-showcase's "go" under `## CR
# Cycle 2 - TDD Code Generation Step 5~6 완료`, answered `Step 5 GREEN 구현 + Step 6 E2E 검증 완료`).
_PLAN_STEP = re.compile(r"\bsteps?[ \t]*\d|ステップ[ \t]*\d", re.IGNORECASE)
# The work products a stage makes, named as such (not a file, which may be the next stage's: "Created
# user-stories-assessment.md" under `Requirements Analysis - User Requests User Stories`).
ARTIFACTS = re.compile(r"산출물|\bartifacts?\b|\bdeliverables?\b|\bdocuments\b|문서|成果物|ドキュメント|文档|产物|"
                       r"artefa[ct]tos", re.IGNORECASE)
