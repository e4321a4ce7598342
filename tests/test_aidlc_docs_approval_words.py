"""Approvals as public audit logs word them, beyond the clean project's: each test puts a real log's entries (their
headings, the person's words, the agent's answer, in the original language) into the clean project and asserts,
through the CLI, which ticked stages stand approved. Each reading here was once wrong on the repository named."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from aidlc.aidlc_docs.stages import stages_named
from aidlc.rules.docs_approved import PLAN
from aidlc.rules.docs_words import approval_at, names_approval
from tests.aidlc_docs_sample import (
    AUDIT,
    ENTRIES,
    STATE,
    DocsRepo,
    audit_text,
    build_docs_repo,
    entry_text,
    iso,
    stamp,
)
from tests.helpers import run_cli

Entry = tuple[str, str | None, str, str]


@pytest.fixture
def docs(tmp_path_factory: pytest.TempPathFactory) -> DocsRepo:
    return build_docs_repo(tmp_path_factory.mktemp("docs") / "shop")


def unapproved(docs: DocsRepo) -> set[int]:
    """The state file's lines AIDLC-DOCS-003 reports, as `aidlc validate --format json` gives them."""
    report = json.loads(run_cli("validate", "--format", "json", cwd=docs.root).stdout)
    return {f["line"] for f in report["findings"] if f["code"] == "AIDLC-DOCS-003"}


def replacing(headings: tuple[str, ...], *entries: Entry) -> list[Entry]:
    """The clean log with the entries headed `headings` replaced by `entries`, where the first of them stood."""
    at = next(index for index, entry in enumerate(ENTRIES) if entry[0] in headings)
    kept = [entry for entry in ENTRIES if entry[0] not in headings]
    return [*kept[:at], *entries, *kept[at:]]


def test_a_bare_stage_after_an_approval_in_a_heading_is_the_step_it_opened(docs: DocsRepo) -> None:
    # eunjilee-wm: `## Application Design - Approval & Functional Design`, "진행해" ("go ahead"), answered
    # "Application Design approved. Proceeding with Functional Design. business-logic-model.md ... made."
    docs.write(AUDIT, audit_text(replacing(
        ("Workflow Planning - Approval", "Application Design - Approval"),
        ("Workflow Planning - Approval & Application Design", "진행해",
         "Workflow Planning 승인. Application Design 진행. components.md, services.md 생성 완료.",
         "INCEPTION - Application Design complete."))))
    assert unapproved(docs) == {docs.line(STATE, "Application Design")}
    # the word after both shares the approval: `Functional Design + NFR Requirements Approval`
    docs.write(AUDIT, audit_text(replacing(
        ("Workflow Planning - Approval", "Application Design - Approval"),
        ("Workflow Planning + Application Design Approval", "진행해", "Both approved.", "INCEPTION"))))
    assert unapproved(docs) == set()


def test_a_go_ahead_with_a_long_writers_note_after_its_quoted_words_answers_the_stage_put_to_the_person(
        docs: DocsRepo) -> None:
    # soneda-yuya/ontology-agent: `"Continue" (interpreted per AI's offer = batch NFR Design + Infrastructure, both
    # inheritance-only)` under `## Construction — U5 NFR Design + Infrastructure (batched)`, answered "U5 NFR
    # Requirements approved. Generated NFR Design ...": its note made it a long new instruction, approving nothing
    said = ('"Continue" (interpreted per the offer = batch Units Generation and its plan, both drawn from the '
            'design)')
    docs.write(AUDIT, audit_text(replacing(
        ("Application Design - Approval",),
        ("Application Design - Approval Prompt", None, "Presented the application design; requested approval "
         "(Request Changes / Continue to Next Stage = Units Generation).", "INCEPTION - Application Design gate"),
        ("Units Generation (batched)", "NOTED", "Application design approved. Generated the units of work.",
         "INCEPTION - Units Generation")
    )).replace('"NOTED"', said))
    assert len(said) > 80 and unapproved(docs) == set()
    docs.replace(AUDIT, said, '"Continue, but first rename the orders service to checkout across the whole design '
                 'and its diagrams"')
    assert unapproved(docs) == {docs.line(STATE, "Application Design")}  # words as long are an instruction


def test_words_a_coding_tool_writes_to_go_on_after_its_own_subtask_approve_nothing(docs: DocsRepo) -> None:
    # jongon/betmeet-clone logs Claude Code's own continuation as the person's words, 13 times, its note calling it
    # an approval: unit 43's design and code stood on it, and every unit's Build and Test was cited to one
    said = '"Summarize the task tool output above and continue with your task." (approval continuation from gate)'
    docs.write(AUDIT, audit_text(replacing(
        ("Application Design - Approval",),
        ("Application Design - Approval", "NOTED", "Treated the continuation as approval of the design.",
         "INCEPTION - Application Design"))).replace('"NOTED"', said))
    assert unapproved(docs) == {docs.line(STATE, "Application Design")}


CODE_DONE = ("Code Generation - Unit 2 Complete", None, "Unit 2 code generated: 14 files.",
             "CONSTRUCTION - Unit 2 shop-web Code Generation 완료")


@pytest.mark.parametrize(("build", "approved"), [
    # wwe22123: the "B" that answers Code Generation's completion, logged with Build and Test's results
    (("Build and Test Stage", "다음 단계로 진행", "Build: success. 48 passed, 0 failed.",
      "CONSTRUCTION - Build and Test 완료"), False),
    (("Build and Test - Approval", "다음 단계로 진행", "Build and test approved.", "CONSTRUCTION - Build and Test"),
     True)])  # words under a heading that says approved approve its stage too
def test_a_go_ahead_answering_the_stage_before_does_not_approve_the_one_it_goes_into(
        docs: DocsRepo, build: Entry, approved: bool) -> None:
    docs.write(AUDIT, audit_text(replacing(("Code Generation - Unit 2 Approval", "Build and Test - Approval"),
                                           CODE_DONE, build)))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "- [x] Build and Test")})


def test_a_go_ahead_after_units_whose_context_closes_their_stage_answers_it_not_the_stage_it_goes_into(
        docs: DocsRepo) -> None:
    # Mynor454-s/TCGT-QA-Panel: "Ok continua" logged with Build and Test's results, after `## CONSTRUCTION - Units 4,
    # 5, 6 Complete`, whose Context closed their code generation; the build was never approved after it ran
    docs.write(AUDIT, audit_text(replacing(
        ("Code Generation - Unit 2 Approval", "Build and Test - Approval"),
        ("CONSTRUCTION - Unit 2 Complete", None, "All remaining units generated and build verified.",
         "CONSTRUCTION PHASE - All units code generation complete. Ready for Build and Test phase."),
        ("Build and Test Stage", "Ok continua", "Build Status: Success. Test Status: Pass (31/31 tests).",
         "CONSTRUCTION PHASE - Build and Test complete. All tests pass. AI-DLC workflow complete."))))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Build and Test")}



@pytest.mark.parametrize("build", [
    # rc-code-jp: "Continue to Next Stage" under `## Build and Test`, answered "Code Generation's approval received;
    # going on to Build and Test", Context "Build and Test start record"
    ("Build and Test", "Continue to Next Stage", "Code Generation の承認を受領。Build and Test に進み、手順書を更新。",
     "Build and Test 開始記録"),
    # thetechdabbler: the approval of the unit's code, logged as the stage it set going
    ("Build and Test — Unit 2: shop-web — IN PROGRESS", "Approve & Continue",
     "Code Generation for Unit 2 (shop-web) approved. Executing Build and Test.", "CONSTRUCTION")])
def test_words_the_answer_says_approved_the_stage_before_do_not_approve_the_one_the_heading_sets_going(
        docs: DocsRepo, build: Entry) -> None:
    docs.write(AUDIT, audit_text(replacing(("Code Generation - Unit 2 Approval", "Build and Test - Approval"),
                                           CODE_DONE, build)))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Build and Test")}


@pytest.mark.parametrize(("said", "approved"), [
    ("요구사항이 전부 들어가 있는지 한 글자도 빠짐없이 다시 읽어서 검증해줘.", False),  # mapa-tofu: "re-read, verify"
    ("방금 변경사항은 돌려줘", False),  # lyhlg: "revert the change you just made"
    ("hero-ui mcp 로 작업하도록 설정해줘", False),  # kohwg: "set it up to work with the hero-ui MCP"
    ("Verify every requirement is covered", False),
    ("帮我运行项目", False),  # 446541492/kiro-project-demo: "run the project for me"
    # Hooneats/aws-ai-dlc: new features asked under User Stories headings, "I'd like the discount shown too",
    # "make it so the next guests can use the table"
    ("특정 메뉴에 할인이 가능하도록 하고 싶어. 보이는 화면에 할인율도 같이 보였으면 좋겠어", False),
    ("정산 버튼을 누르게 해서 다음 사람도 이용할 수 있게 해줘", False),
    ("할인율도 보였으면 좋겠어. 그렇게 하고 다음 단계 진행해줘", True),  # and goes on to the next step
    ("帮我继续", True),  # "carry on for me"
    ("확인했어, 좋아", True),  # "I checked, good"
    ("ㄱㄱ 진행. 그리고 다른부분도 자세하게 잘 이해할 수 있게끔 확인해줘봐.", True),  # "go, go. And check the rest too"
    ("추가해주고 다음 단계 진행해줘", True),  # "add it and go on to the next step"
    ("SSE emitter 기능은 제거하고 진행해", True),  # eunjilee-wm: "remove the SSE emitter and go on"
    ("remove the SSE emitter and proceed", True)])
def test_words_asking_for_more_work_under_the_stage_s_heading_are_no_approval_of_it(
        docs: DocsRepo, said: str, approved: bool) -> None:
    docs.write(AUDIT, audit_text(replacing(("Application Design - Approval",), (
        "Application Design - Review", said, "Done as asked.", "INCEPTION - Application Design"))))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "Application Design")})


@pytest.mark.parametrize(("said", "approved"), [
    # mapa-tofu: after Code Generation "awaiting user approval", "implement it with TDD" then "start with the TDD
    # cycle": the go-ahead goes on with the work asked, not past the stage
    ('"TDD로 구현해줘" → "TDD사이클부터 진행해"', False),
    ('"추가해주고 다음 단계 진행해줘"', True),  # "add it and go on to the next step"
    ('"진행해줘"', True)])
def test_a_go_ahead_that_goes_on_with_the_work_it_asks_approves_nothing(docs: DocsRepo, said: str,
                                                                     approved: bool) -> None:
    put = ("Application Design - Complete", None, "components.md 생성.", "Application Design 완료, 사용자 승인 대기")
    rework = entry_text("Application Design - TDD", stamp(6), "SAID", "Red-Green cycle run; 16 tests pass.",
                        "INCEPTION - Application Design TDD cycle")
    text = audit_text(replacing(("Application Design - Approval",), put, ("MARK", None, "", "")))
    marked = text.index("## MARK")
    docs.write(AUDIT, text[:marked] + rework.replace('"SAID"', said) + text[text.index("---", marked) + 5:])
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "Application Design")})


@pytest.mark.parametrize("heading", ["Workflow Planning — Approval", "Consolidated Approval Gate — Workflow Planning"])
def test_an_approval_whose_context_names_the_approval_gate_stands(docs: DocsRepo, heading: str) -> None:
    # Neurond-AI: `## User Stories — Approval`, "Approve & Continue", Context `... - Approval Gate` (the gate the
    # words answer, not one still waiting); `## Consolidated Approval Gate — Functional Design & NFR Requirements`
    docs.write(AUDIT, audit_text(replacing(("Workflow Planning - Approval",), (
        heading, "Approve & Continue", "Execution plan approved. Proceeding to Application "
        "Design stage.", "INCEPTION - Workflow Planning - Approval Gate"), (  # no go-ahead after it
        "Application Design - Plan Created", None, "application-design-plan.md created.", "INCEPTION"))))
    assert unapproved(docs) == set()


ANSWERS = ("INCEPTION - Requirements Analysis (Answers Received)", "완료",
           "All 15 answers validated. Requirements document generated.",
           "Requirements Analysis stage complete.")
CHANGED = ("Requirements Analysis - Change Request (Order Alarm Sound)", "주문 완료 시에 알람 소리 추가 해줘.",
           "Added the order alarm sound.", "Requirements Analysis - adding order notification sound feature")


@pytest.mark.parametrize(("before", "said", "approved"), [
    # ratiel: the rules' option of Requirements Analysis' completion message, under `User Stories (Start)`
    (ANSWERS, "Add User Stories", True),
    (CHANGED, "유저 스토리 진행해줘", True),  # jbil4268: "go on with user stories", after a change asked
    (ANSWERS, "two personas, as planned", False),  # no go-ahead
    (CHANGED, "Application Design 진행해줘", False)])  # it names another stage than the one the heading starts
def test_a_go_ahead_naming_the_stage_it_starts_approves_the_stage_left(docs: DocsRepo, before: Entry, said: str,
                                                                     approved: bool) -> None:
    docs.write(AUDIT, audit_text(replacing(
        ("Requirements Analysis - Approval Prompt", "Requirements Analysis - Approval"), before,
        ("INCEPTION - User Stories (Start)", said, "Proceeding with the story generation plan.",
         "INCEPTION - User Stories"))))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "Requirements Analysis")})


def test_a_go_ahead_naming_requirement_analysis_in_the_singular_approves_the_stage_left(docs: DocsRepo) -> None:
    # dcrearer/zero2prod: reverse engineering done, the person asks it committed, then "yes proceed with requirement
    # analysis phase." under `## Requirements Analysis - Start`: their approval of Reverse Engineering
    docs.write(STATE, docs.read(STATE).replace("- [ ] Reverse Engineering - SKIP", "- [x] Reverse Engineering"))
    docs.write(AUDIT, audit_text([ENTRIES[0], (
        "Git Commit - Reverse Engineering Phase", "please commit this phase to github with an appropriate message",
        "Created commit 8ff943a with message 'docs: Add AI-DLC reverse engineering phase'",
        "Committed 42 files including 10 reverse engineering artifacts"), (
        "Requirements Analysis - Start", "yes proceed with requirement analysis phase.",
        "Starting Requirements Analysis phase", "Loading reverse engineering artifacts"), *ENTRIES[1:]]))
    assert unapproved(docs) == set()


@pytest.mark.parametrize(("text", "named"), [
    ("Unit 3 NFR Req/Design/Infra + Code Gen Plan 승인", ["nfr-requirements", "nfr-design", "infrastructure-design",
                                                         "code-generation"]),  # agnecom
    ("NFR Requirements/Design/Infrastructure", ["nfr-requirements", "nfr-design", "infrastructure-design"]),
    ("NFR/Infrastructure Design", ["nfr-design", "infrastructure-design"]),
    ("Functional Design / NFR Requirements", ["functional-design", "nfr-requirements"]),
    ("Code Generation/Testing", ["code-generation"]),
    ("User Stories/Personas", ["user-stories"])])
def test_words_after_a_stage_and_a_slash_name_the_stages_they_complete(text: str, named: list[str]) -> None:
    assert stages_named(text) == named


def test_an_answer_approving_stages_named_over_slashes_approves_each(docs: DocsRepo) -> None:
    # agnecom: "Unit 3 NFR Req/Design/Infra + Code Gen Plan 승인" ("... approved"): NFR Design and Infrastructure
    # Design of the unit were approved with NFR Requirements
    for stage in ("NFR Design", "Infrastructure Design"):
        docs.replace(STATE, f"- [ ] {stage} - SKIP", f"- [x] {stage} - EXECUTE (Unit 1: orders-api)")
    docs.write(AUDIT, audit_text([
        ("Unit 1 Design & Code Gen Plan - Approval", "네 진행해주세요",
         "Unit 1 NFR Req/Design/Infra + Code Gen Plan 승인. Code Generation 실행 시작.",
         "CONSTRUCTION - Unit 1 - Code Generation 시작") if e[0] == "NFR Requirements - Unit 1 Approval" else e
        for e in ENTRIES]))
    assert unapproved(docs) == set()


def test_a_go_ahead_after_a_completion_listing_units_approves_the_stage_of_each(docs: DocsRepo) -> None:
    # kiro-project-demo: `## 构建阶段 - U3 + U5 功能设计和代码生成完成` ("U3 + U5 functional design and code generation
    # complete"), then "继续" ("continue") under the next unit's heading
    kept = [e for e in ENTRIES if e[0] not in ("Code Generation - Unit 1 Approval", "Code Generation - Unit 2 Approval",
                                               "Build and Test - Approval")]
    docs.write(AUDIT, audit_text([
        *kept, ("Code Generation - Unit 1 + Unit 2 Complete", None, "Code generated for both units.",
                "CONSTRUCTION - code generation complete"),
        ("Build and Test - Start", "继续", "Starting build and test.", "CONSTRUCTION - Build and Test"),
        ("Build and Test - Approval", "approved", "Build and test approved.", "CONSTRUCTION - Build and Test")]))
    assert unapproved(docs) == set()


@pytest.mark.parametrize(("answer", "approved"), [
    # jin-101/SPA-BRIDGE: "Continue to Next Stage" under `## UOW-05 Build and Test Transition`, after a review prompt
    ("Recorded approval to proceed from Unit 2 Code Generation to Build and Test.", True),
    ("Awaiting approval to proceed from Unit 2 Code Generation to Build and Test.", False)])
def test_an_answer_saying_the_person_approved_moving_on_from_a_stage_approves_it(docs: DocsRepo, answer: str,
                                                                                 approved: bool) -> None:
    docs.write(AUDIT, audit_text(replacing(("Code Generation - Unit 2 Approval",), (
        "Code Generation - Unit 2 Review Prompt", None, "Presented the unit 2 code for review.",
        "CONSTRUCTION - Unit 2 Code Generation completion review"), (
        "Unit 2 Build and Test Transition", "Continue to Next Stage", answer, "CONSTRUCTION - Build and Test"))))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "Code Generation - EXECUTE (Unit 2")})


@pytest.mark.parametrize(("approval", "approved"), [
    (None, False),  # lyhlg: the lines under `#### Customer App (FE)` stood on unit 1's approval
    (("Code Generation - Shared Package Approval", "approved", "Shared package code approved.",
      "CONSTRUCTION - shared package"), True)])  # an approval naming no unit is the line's
def test_a_line_naming_no_unit_beside_units_own_lines_stands_on_no_unit_s_approval(
        docs: DocsRepo, approval: Entry | None, approved: bool) -> None:
    docs.replace(STATE, "- [x] Build and Test - EXECUTE",
                 "\n#### Shared Package\n- [x] Code Generation - COMPLETED\n\n- [x] Build and Test - EXECUTE")
    entries = list(ENTRIES)
    if approval is not None:
        entries.insert(len(entries) - 1, approval)
    docs.write(AUDIT, audit_text(entries))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "- [x] Code Generation - COMPLETED")})


SETUP_QUESTIONS = ("Code Generation - Unit 1 Local Environment Bring-up (post-generation setup support)",
                   'Setup questions — "how can i run my backend?", "where is the anon key? how can i get it?"',
                   "Guided backend/frontend env setup. Started the local stack.",
                   "CONSTRUCTION — Unit 1 local dev stack running; still awaiting Unit 1 Code Generation approval")
PR_MERGED = ("PR #4 Merged - Verification", "check the PR it's merged.", "Verified. PR #4 MERGED.",
             "INCEPTION - Requirements Analysis complete and merged. Step 9 approval gate still pending - "
             "requirements.md has not been approved, so Workflow Planning has not started.")


@pytest.mark.parametrize(("entries", "stage"), [
    # MagicExist/Memo-Rise: setup questions asked between Code Generation's completion and its approval, Context
    # `... still awaiting U1 Code Generation approval`: the approval it names is yet to be given
    (replacing(("Code Generation - Unit 1 Approval",), SETUP_QUESTIONS), "Code Generation - EXECUTE (Unit 1"),
    # MD-team-project/2026-prompthon-WDC: "check the PR it's merged.", Context `... Step 9 approval gate still pending
    # - requirements.md has not been approved` (its next entry held the approval)
    ([*(entry for entry in ENTRIES if entry[0] != "Requirements Analysis - Approval"), PR_MERGED],
     "- [x] Requirements Analysis")])
def test_a_context_saying_the_stage_s_approval_is_yet_to_come_approves_nothing(docs: DocsRepo, entries: list[Entry],
                                                                              stage: str) -> None:
    docs.write(AUDIT, audit_text(entries))
    assert unapproved(docs) == {docs.line(STATE, stage)}


def test_a_context_saying_the_stage_s_approval_is_pending_approves_nothing(docs: DocsRepo) -> None:
    # alicestellar/MacroEditor: the person hands the agent the stages to come, Context `Application Design approval
    # pending, then Units Generation`; the next words start the code. Neither stage was approved.
    resumed = ("Resuming AIDLC Workflow",
               "Go ahead and continue until you need my input or we're ready to start changing code again.",
               "Resuming from Application Design approval. Application Design was presented but not yet explicitly "
               "approved. Proceeding to finalize Application Design, then Units Generation, then into CONSTRUCTION.",
               "INCEPTION - Application Design approval pending, then Units Generation.")
    code_start = ("Construction - Unit 1 Code Generation Start",
                  "Go ahead. Remember that when we're done with this change, we need to run another functional test "
                  "to make sure that we didn't break anything.",
                  "Beginning Unit 1 implementation - extracting 5 duplicate functions to MacroEditorUtils.",
                  "CONSTRUCTION - Code Generation, Unit 1 (Deduplication)")
    docs.write(AUDIT, audit_text(replacing(("Application Design - Approval", "Units Generation - Approval"),
                                           resumed, code_start)))
    assert unapproved(docs) == {docs.line(STATE, "Application Design"), docs.line(STATE, "Units Generation")}


@pytest.mark.parametrize(("replaced", "entry", "stage"), [
    # MD-team-project/2026-prompthon-WDC: Units Generation ran in the entry that approved Application Design; its own
    # approval came in the next entry
    (("Application Design - Approval", "Units Generation - Approval"),
     ("Application Design Approved, Units Generation Complete (minimal)",
      "최소로 돌리고 상태 파일 분리는 conflict 시 한명이 resolve하는 방식으로 해결",
      "Read as approval of Application Design plus two decisions. Ran Units Generation compressed.",
      "INCEPTION COMPLETE. Next: CONSTRUCTION, per-unit and parallel."),
     "Units Generation - EXECUTE"),
    # MamaMoh/SimbaFlow: each heading approves one stage of a unit and names the next one made after it
    (("Functional Design - Unit 1 Approval", "NFR Requirements - Unit 1 Approval"),
     ("Unit 1 Functional Design — Approved; NFR Requirements Generated", "a",
      "Wrote Unit 1 NFR requirements. Presenting nfr-requirements-approval-questions.md.",
      "Awaiting NFR Requirements approval before NFR Design."),
     "NFR Requirements - EXECUTE (Unit 1"),
    # MD-team-project/2026-prompthon-WDC: `Requirements Approved` holds the word in the stage's name; the stories were
    # made after it, and approved under `## User Stories Approved, Workflow Planning Executed`
    (("Requirements Analysis - Approval", "User Stories - Approval"),
     ("Requirements Approved, User Stories Included", "Do not skip user stories,",
      "Interpreted as selecting the 'Add User Stories' option at the Requirements Analysis Step 9 gate. Loaded "
      "inception/user-stories.md in full.", "INCEPTION - User Stories"),
     "- [x] User Stories"),
    # lyhlg: `## ... Functional Design (Unit 1: Core) - 변경 원복` ("change reverted"): "don't remove things on your
    # own, always ask, got it? revert the change you just made", answered "sorry for changing without approval", its
    # Context `사용자 피드백 - 변경 전 반드시 승인 받을 것` ("get approval before any change"): a rebuke asking approval
    # from now on is no approval
    (("Application Design - Approval",),
     ("CONSTRUCTION - Application Design - 변경 원복",
      "맘대로 제거하지말고, 물어봐 항상 알겠지? 방금 변경사항은 돌려줘",
      "승인 없이 변경한 것에 대해 사과. 원복 완료. 앞으로 모든 변경은 반드시 승인 후 진행.",
      "사용자 피드백 - 변경 전 반드시 승인 받을 것"),
     "Application Design"),
    # Moonlight-CL/AWSomeshop-Demo: `## User Stories Request`, "generate user stories from requirement.md; ask me
    # whatever needs clarifying", answered "Starting User Stories generation phase"; the stories were never approved
    (("User Stories - Approval",),
     ("User Stories Request",
      "请基于目前的requirement.md进行user stories的生成，如果生成过程中需要我澄清一些问题，请提问",
      "Starting User Stories generation phase based on requirements.md",
      "User requested User Stories generation based on current requirements document"),
     "- [x] User Stories")])
def test_words_approving_the_step_before_asking_for_work_or_for_approval_later_leave_the_stage_unapproved(
        docs: DocsRepo, replaced: tuple[str, ...], entry: Entry, stage: str) -> None:
    docs.write(AUDIT, audit_text(replacing(replaced, entry)))
    assert unapproved(docs) == {docs.line(STATE, stage)}


def test_an_approval_closing_its_part_of_a_heading_approves_nothing_the_next_part_names(docs: DocsRepo) -> None:
    # chat-cli/chat-cli: `## Unit 7 - Approval, Unit 8 Functional Design + NFR Complete`, "Approved", after unit 7's
    # code awaited approval: the words approve unit 7's code; unit 8's design, made after them in the answer, was
    # never approved (it was read as approving both units' designs)
    code_done = ("Unit 1 Code Generation Complete", None, "Executed all 10 steps TDD-ordered.",
                 "CONSTRUCTION PHASE, Unit 1 - Code Generation complete, awaiting approval before Unit 2")
    approved = ("Unit 1 - Approval, Unit 2 Functional Design + NFR Complete", "Approved",
                "Designed Unit 2 directly, verified against the source.",
                "CONSTRUCTION PHASE, Unit 2 - Functional Design + NFR complete, awaiting approval before Code "
                "Generation")
    docs.write(AUDIT, audit_text(replacing(("Code Generation - Unit 1 Approval", "Functional Design - Unit 2 Approval"),
                                           code_done, approved)))
    assert unapproved(docs) == {docs.line(STATE, "Functional Design - EXECUTE (Unit 2")}


@pytest.mark.parametrize(("said", "status", "answer", "approved"), [
    ("Approved", "Approved", "Designed Unit 2 directly. Added tool-use rejection as a third stage.", True),
    ("Rejected: rework the retries first", "Approved", "Designed Unit 2 directly.", False),  # the person refuses
    ("Approved", "Rejected", "Designed Unit 2 directly.", False)])  # the Status refuses
def test_a_refusal_word_in_the_agent_s_account_of_its_work_refuses_no_approval(
        docs: DocsRepo, said: str, status: str, answer: str, approved: bool) -> None:
    # chat-cli/chat-cli: "Approved", Status Approved, under `## Unit 7 - Approval, Unit 8 Functional Design + NFR
    # Complete`, after unit 7's code awaited approval, answered "... added tool-use rejection as a third stage ...": a
    # feature of the product, read as the entry refusing, and unit 7's code stood unapproved
    code_done = ("Unit 1 Code Generation Complete", None, "Executed all 10 steps TDD-ordered.",
                 "CONSTRUCTION PHASE, Unit 1 - Code Generation complete, awaiting approval before Unit 2")
    design = ("Unit 1 - Approval, Unit 2 Functional Design + NFR Complete", said, answer,
              "CONSTRUCTION PHASE, Unit 2 - Functional Design + NFR complete, awaiting approval before Code Generation")
    text = audit_text(replacing(("Code Generation - Unit 1 Approval", "Functional Design - Unit 2 Approval"),
                                code_done, design))
    docs.write(AUDIT, text.replace(f'"{said}"\n', f'"{said}"\n**Status**: {status}\n'))
    code = set() if approved else {docs.line(STATE, "Code Generation - EXECUTE (Unit 1")}
    assert unapproved(docs) == {docs.line(STATE, "Functional Design - EXECUTE (Unit 2"), *code}


@pytest.mark.parametrize(("heading", "approved"), [
    ("Unit 1 NFR Approval - Code Generation Planning", True),
    ("Unit 1 Functional Design + NFR - Approval", True),
    ("Unit 1 NFR approval pending - Code Generation Planning", False),  # none given
    ("Unit 1 NFR-01 Approval - Code Generation Planning", False)])  # a requirement's id
def test_nfr_alone_before_the_word_approved_names_both_nfr_stages(docs: DocsRepo, heading: str, approved: bool) -> None:
    # chat-cli/chat-cli presents both NFR stages at once, `## Unit 2 NFR Requirements + NFR Design (combined)`, then
    # logs "Continue to Next Stage" under `## Unit 2 NFR Approval - Code Generation Planning`: NFR alone named no
    # stage, and both stood unapproved
    combined = ("Unit 1 NFR Requirements + NFR Design (combined)", None,
                "Generated nfr-requirements.md and nfr-design-patterns.md. Presenting combined for one approval.",
                "Unit 1 NFR Requirements + NFR Design, CONSTRUCTION phase")
    approval = (heading, "Continue to Next Stage", "Approval recorded. Creating the code generation plan for Unit 1.",
                "Unit 1 Code Generation (Planning), CONSTRUCTION phase")
    docs.write(AUDIT, audit_text(replacing(("NFR Requirements - Unit 1 Approval",), combined, approval)))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "NFR Requirements - EXECUTE (Unit 1")})


def test_a_heading_requesting_the_next_stage_still_names_the_stage_it_closes(docs: DocsRepo) -> None:
    # The rules' own option at the requirements' gate, "Add User Stories", logged under a heading naming both: it
    # approves the requirements and asks for the stories' work; only the stage asked for is set aside
    docs.write(AUDIT, audit_text(replacing(("Requirements Analysis - Approval",), (
        "Requirements Analysis - Add User Stories Request", "Add User Stories",
        "Moving on to User Stories planning.", "INCEPTION"))))
    assert unapproved(docs) == set()


# miura-bd/t4g.lazy.4xlarge-aidlc-hackathon-2026 writes each entry's `###` sections after its AI Response, and its
# Context last: the Context of Units Generation's completion puts the stage to the person (`Step 17 (承認待ち)`,
# "awaiting approval"), and the next entry's words answer it. Its sections list every stage: a table saying a stage
# approved is no answer that approved it.
UNITS_DONE = """\
## Units Generation Part 2 Generation 完了
**Timestamp**: {at}
**User Input**: (Stage 7 自動進行)
**AI Response**: 3 ファイル生成完了。`aidlc-docs/inception/application-design/` 配下に追加:

### 生成成果物
- **`unit-of-work.md`** — 2 Unit の詳細定義

### ⛔ GATE
ユーザーレビュー → Stage 7 完了承認 → INCEPTION フェーズ完了。

**Context**: INCEPTION フェーズ Stage 7 (Units Generation) Part 2 完了 → Step 17 (承認待ち)。

---

## 🎉 INCEPTION フェーズ完了 (Stage 7 承認 + 全 7 ステージ完了)
**Timestamp**: {later}
**User Input**: "{said}"
**AI Response**: Stage 7 を ✅ Completed としてマーク。**INCEPTION フェーズ全 7 ステージ完了**。

### INCEPTION フェーズ Stage Progress (最終)
| # | Stage | Status |
| --- | --- | --- |
| 6 | Application Design | ✅ Completed (承認済み) |
| 7 | Units Generation | ✅ Completed |

**Context**: INCEPTION フェーズ完了 → CONSTRUCTION フェーズ着手予定。

---

"""


@pytest.mark.parametrize(("said", "approved"), [
    ("OKです。次に進めてください", True), ("Unit を 3 つに分けてください", False),
    # its words there: "review OK. Please complete the Inception phase"; not a question, nor an OK with a "but"
    ("レビューOKです。Inception フェーズを完了させてください", True), ("レビューOKですか？", False),
    ("OKですが、Unit を 3 つに分けてください", False)])
def test_a_context_after_an_entry_s_sections_puts_its_stage_to_the_person(docs: DocsRepo, said: str,
                                                                         approved: bool) -> None:
    entries = [entry for entry in ENTRIES if entry[0] != "Application Design - Approval"]
    at = next(index for index, entry in enumerate(entries) if entry[0] == "Units Generation - Approval")
    text = audit_text(entries)
    units = text[text.index("## Units Generation - Approval"):]
    units = units[:units.index("---\n\n") + 5]
    docs.write(AUDIT, text.replace(units, UNITS_DONE.format(
        at=iso(stamp(at)), later=iso(stamp(at) + timedelta(minutes=3)), said=said)))
    design = docs.line(STATE, "Application Design")
    assert unapproved(docs) == ({design} if approved else {design, docs.line(STATE, "Units Generation")})
STORY_PLAN_APPROVAL = ("INCEPTION - User Stories (プラン承認)", "OK",
                       "プラン承認を確認。Part 2: ストーリー生成に進む。", "User Stories - Step 13-14")


@pytest.mark.parametrize(("entries", "approved"), [
    # Mr-Unchain/markdown-editor: "OK" under `(プラン承認)` ("plan approval") approves the story plan; the stories
    # are approved under `(承認)` after Part 2
    ((STORY_PLAN_APPROVAL,), False),
    ((STORY_PLAN_APPROVAL, ("INCEPTION - User Stories (承認)", "OK",
                            "ユーザーストーリー承認を確認。Workflow Planningステージへ進む。",
                            "User Stories - Step 21-23")), True)])
def test_words_under_a_heading_naming_the_story_plan_in_japanese_approve_the_plan_alone(
        docs: DocsRepo, entries: tuple[Entry, ...], approved: bool) -> None:
    docs.write(AUDIT, audit_text(replacing(("User Stories - Approval",), *entries)))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "- [x] User Stories")})


@pytest.mark.parametrize(("made", "answer", "approved"), [
    # Mogibo-AI/carhogo, a log kept newest first: "承認して続行" ("approve and continue") under the next stage's
    # start, its Context naming the stories done, answered "User Stories' approval received"
    (("ユーザーストーリー — 生成完了・承認待ち", None, "personas.md・stories.md を生成完了。承認待ち。",
      "INCEPTION - User Stories, Part 2 Generation 完了"),
     "User Stories 承認受領。Workflow Planning を開始。execution-plan.md を生成。", True),
    # the story plan's approval, after the plan was put to the person
    (("ユーザーストーリー — プラン作成・承認待ち", None, "story-generation-plan.md を作成。プランの承認待ち。",
      "INCEPTION - User Stories, Part 1 Planning"), "User Stories プラン承認受領。Part 2 を開始。", False)])
def test_an_answer_saying_the_stage_its_context_names_was_approved_under_the_next_stage_s_start_approves_it(
        docs: DocsRepo, made: Entry, answer: str, approved: bool) -> None:
    entries = replacing(("User Stories - Approval",), made, (
        "ワークフロープランニング — 開始", "承認して続行", answer,
        "INCEPTION - User Stories 完了 → Workflow Planning 開始"))
    docs.write(AUDIT, "# AI-DLC Audit Log\n\n" + "".join(
        entry_text(heading, stamp(n), user, response, context)
        for n, (heading, user, response, context) in reversed(list(enumerate(entries)))))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "- [x] User Stories")})


@pytest.mark.parametrize(("heading", "plan"), [
    ("ユーザーストーリー — プラン承認", True),  # Mogibo-AI/carhogo: the story plan approved
    ("ワークフロープランニング — 開始", False)])  # Workflow Planning's name, as `Workflow Planning` is
def test_a_japanese_heading_names_a_plan_by_its_word_not_by_workflow_planning_s_name(heading: str, plan: bool) -> None:
    assert (PLAN.search(heading) is not None) is plan


def test_where_a_text_says_approved_skips_approvals_awaited_required_or_denied() -> None:
    # One reading for `names_approval` and the offset a heading's steps are cut at: before, the offset stopped at an
    # approval awaited with a stage named, and a step split there named no stage
    text = "still awaiting U1 Code Generation approval; Functional Design approved"
    assert approval_at(text) == text.index("approved")
    assert not names_approval("Requirements Analysis has not been approved")
    assert approval_at("no such word here") == len("no such word here")


FD_PLAN = ("Unit 1 FD Plan Approved; FD Artifacts Ready", "a,a,a,a,a (Q1–Q5=A; Q6 treated as A recommended)",
           "Generated Unit 1 FD (entities, rules). Presenting functional-design-approval-questions.md.",
           "Awaiting FD approval before NFR Requirements.")
FD_APPROVED = ("Unit 1 FD Approved; NFR Requirements Ready", "A,A (approve FD; env-only token)",
               "Wrote Unit 1 NFR requirements. Presenting nfr-requirements-approval-questions.md.",
               "Awaiting NFR Requirements approval before NFR Design.")
FD_AND_NFR = ("Functional Design - Unit 1 Approval", "NFR Requirements - Unit 1 Approval")


@pytest.mark.parametrize(("replaced", "entries", "unapproved_stages"), [
    # MamaMoh/SimbaFlow: `FD` is Functional Design; the plan's answers, awaiting FD's approval "before NFR
    # Requirements", approve neither stage, and `Unit 7 FD Approved; NFR Requirements Ready` the design alone
    (FD_AND_NFR, (FD_PLAN,), ("Functional Design - EXECUTE (Unit 1", "NFR Requirements - EXECUTE (Unit 1")),
    (FD_AND_NFR, (FD_PLAN, FD_APPROVED), ("NFR Requirements - EXECUTE (Unit 1",)),
    # MangoYoun/aidlc-workshop-tableorder: "승인할게" ("I'll approve") under the plan's approval, before the design
    # was made ("아티팩트 생성 시작", "starting the artifacts")
    (FD_AND_NFR[:1], (("Functional Design Plan - User Approval", "승인할게",
                       "Functional Design Plan 승인 확인, 아티팩트 생성 시작 - business-logic-model.md",
                       "CONSTRUCTION - Unit 1 Functional Design, 아티팩트 생성 중"),),
     ("Functional Design - EXECUTE (Unit 1",))])
def test_the_approval_of_a_design_s_plan_approves_its_answers_not_the_design(
        docs: DocsRepo, replaced: tuple[str, ...], entries: tuple[Entry, ...],
        unapproved_stages: tuple[str, ...]) -> None:
    docs.write(AUDIT, audit_text(replacing(replaced, *entries)))
    assert unapproved(docs) == {docs.line(STATE, stage) for stage in unapproved_stages}


# Naoya-ya-man/Equipment_Operating_Rate: after `## Build and Test Stage` (the agent's alone), the person's bug report
# under a heading naming no stage, Context `Post-Build-and-Test — ...`: work after the stage, no approval of it
POST_BUILD_BUG = ("Real Environment Testing - Serial-Generation Bug in CsvGenerator (Major Fix)",
                  "実行はできているのに日別稼働率が10%にも届かない、号機が多いからか、それともランダム投入が少なすぎるのか",
                  "chain_builder.py の直列生成を並行生成に修正。",
                  "Post-Build-and-Test — User-observed anomaly (implausibly low utilization) led to discovery of a "
                  "core algorithm bug")


def test_a_context_naming_a_stage_as_past_approves_nothing_of_it(docs: DocsRepo) -> None:
    docs.write(AUDIT, audit_text(replacing(
        ("Build and Test - Approval",),
        ("Build and Test Stage", None, "Build and test complete: 60 tests pass.", "CONSTRUCTION - Build and Test"),
        POST_BUILD_BUG)))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Build and Test")}


def test_a_hyphenated_not_yet_approved_context_approves_nothing(docs: DocsRepo) -> None:
    # Naoya-ya-man/Equipment_Operating_Rate: the person edited requirements.md and asked for a check (their approval,
    # "承認します", came four entries later)
    edited = ("Requirements Analysis - User Direct Edit to requirements.md", "少し仕様を変えたので確認してください",
              "編集内容を分析。チャット上で直接3つの確認質問を提示する。",
              "Requirements Analysis (INCEPTION PHASE) — Mid-workflow change to a not-yet-approved artifact")
    note = "（ユーザーが `requirements.md` を直接編集。FR-1に「A/B/C/D/Eの順番で加工され、Eの製品が完成品」を追記）"
    text = audit_text(replacing(("Requirements Analysis - Approval",), edited))
    docs.write(AUDIT, text.replace(f'"{edited[1]}"\n', f'"{edited[1]}"{note}\n'))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Requirements Analysis")}


def test_the_answer_to_a_stage_awaiting_review_and_approval_is_its_approval(docs: DocsRepo) -> None:
    # Shaikh1828/SPL-3: "Option 2", the agent to propose the stage's answers, logged with the artifacts it then made,
    # Context `All ... decisions aligned with locked NFR Design (...); ...; awaiting user review and approval`; the
    # next entry's "Continue to Next Stage" approved it, not the one before
    proposed = ("Requirements Analysis - Backend Unit (PROPOSED)", "Option 2",
                "Generated 20 proposed answers; created requirements.md; identified no ambiguities",
                "All decisions aligned with the locked Workspace Detection (greenfield); pragmatic MVP-first approach; "
                "awaiting user review and approval")
    text = audit_text(replacing(("Requirements Analysis - Approval",), proposed))
    docs.write(AUDIT, text.replace('"Option 2"\n', '"Option 2" (propose requirements answers)\n'))
    status = run_cli("status", cwd=docs.root).stdout
    cited = next(line for line in status.splitlines() if "requirements-analysis" in line)
    assert cited.endswith(f"logged approval: {AUDIT}:{docs.line(AUDIT, '## User Stories - Approval')}")


def test_a_stage_an_earlier_clause_names_with_the_heading_is_the_one_put_to_the_person(docs: DocsRepo) -> None:
    # cheongYak-radar: `## U4 Functional Design Approved / Infrastructure Design Done`, Context `U4 Infrastructure
    # Design done; approval gate before Code Generation.`, then "진행" under `## U4 Code Generation`: the gate's stage
    # is the one the clause before names and the heading names too, not the heading's first
    docs.write(AUDIT, audit_text(replacing(
        ("Functional Design - Unit 1 Approval", "NFR Requirements - Unit 1 Approval"),
        ("Unit 1 Functional Design Approved / NFR Requirements Done", "진행",
         "Unit 1 functional design approved. NFR requirements generated.",
         "CONSTRUCTION — Unit 1 NFR Requirements done; approval gate before Code Generation."),
        ("Unit 1 Code Generation", "진행", "Unit 1 code generation plan created.", "CONSTRUCTION — Unit 1"))))
    assert unapproved(docs) == set()


def test_a_heading_approving_code_generation_and_starting_its_part_2_approves_the_plan_alone(docs: DocsRepo) -> None:
    # NESIC-aws-ai-hackathon/GEZA: `## エントリ 063 - U0 Code Generation 承認・Part 2 開始` ("approval, Part 2
    # starts"), "承認します / AI-DLCに従って進めて" ("I approve / go on as AI-DLC says"), before the code was written
    docs.write(AUDIT, audit_text(replacing(("Code Generation - Unit 1 Approval",), (
        "エントリ 063 - Unit 1 Code Generation 承認・Part 2 開始", "承認します / AI-DLCに従って進めて",
        "Step 10〜33 順次実行開始", "CONSTRUCTION - Unit 1 Code Generation（Part 2: Generation）"))))
    assert unapproved(docs) == {docs.line(STATE, "Code Generation - EXECUTE (Unit 1")}


@pytest.mark.parametrize(("entry", "approved"), [
    # oliver-koeth/hre-demo: the code approved, the next unit's design planned in the same heading, or in the same
    # sentence of the answer; the plan is the design's, not Code Generation's
    (("CONSTRUCTION - UOW-01 Code Generation Approved and UOW-02 Functional Design Planning Start",
      "**Continue to Next Stage**", "Recorded explicit approval of UOW-01 Code Generation, advanced aidlc-state to "
      "Functional Design UOW-02 Planning.", "CONSTRUCTION Phase - UOW-02 Functional Design planning"), True),
    (("CONSTRUCTION - UOW-01 Code Generation Approval and UOW-02 Functional Design Start",
      "**Continue to Next Stage**", "Recorded UOW-01 Code Generation approval, updated stage tracking, and started "
      "UOW-02 Functional Design planning.", "CONSTRUCTION Phase - UOW-02 Functional Design planning"), True),
    # its plan's approval, the code written after it: Code Generation's plan (Part 1) alone
    (("CONSTRUCTION - UOW-01 Code Generation Approval and Implementation", "**Continue to Next Stage**",
      "Recorded UOW-01 code generation plan approval and executed the full 16-step implementation plan.",
      "CONSTRUCTION Phase - UOW-01 Code Generation implementation"), False)])
def test_a_design_s_plan_named_beside_code_generation_s_approval_is_the_design_s(docs: DocsRepo, entry: Entry,
                                                                              approved: bool) -> None:
    gate = ("CONSTRUCTION - UOW-01 Code Generation Approval Prompt Logged", "N/A (AI-DLC stage gate prompt)",
            "Prepared standardized construction-stage completion gate with two options: Request Changes or Continue "
            "to Next Stage.", "CONSTRUCTION Phase - UOW-01 Code Generation review gate")
    docs.write(AUDIT, audit_text(replacing(("Code Generation - Unit 1 Approval",), gate, entry)))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "Code Generation - EXECUTE (Unit 1")})


@pytest.mark.parametrize(("entry", "note"), [
    # welligtoncos/ia-dlc-lote-clientes-aws: "aprovado" answered the plan put to the person; the answer says so in a
    # sentence naming no stage ("Plano APPROVED."), under the heading of the code it then wrote
    (("Unit 1 Code Generation executada", "aprovado", "Plano APPROVED. Parte 2: modulos TF, envs/dev, "
      "deploy-dev.yml, runbooks. terraform fmt ok.", "CONSTRUCTION — Unit 1 Code Generation Parte 2"), ""),
    # primevalsistail/endless-runner: the writer's note after the quoted words says whose approval they were
    (("Code Generation - Unit 1 v1.2 完了", "OK", "全15ステップ実装完了。テスト26件パス。プロダクションビルド成功。",
      "CONSTRUCTION PHASE - Unit 1 Code Generation - COMPLETED"), "（Code Generation Plan 承認）"),
    # cheongYak-radar: `## U3 Code Generation — Approved & Complete`, the plan approved and the code written at once
    (("U1 Code Generation — Approved & Complete", "go", "Implemented the collector and its tests; 42 passing.",
      "CONSTRUCTION - Unit 1 Code Generation"), " (approve U1 code-gen plan)")])
def test_words_that_approved_code_generation_s_plan_approve_the_plan_alone(docs: DocsRepo, entry: Entry,
                                                                           note: str) -> None:
    text = audit_text(replacing(("Code Generation - Unit 1 Approval",), entry))
    docs.write(AUDIT, text.replace(f'"{entry[1]}"\n', f'"{entry[1]}"{note}\n'))
    assert unapproved(docs) == {docs.line(STATE, "Code Generation - EXECUTE (Unit 1")}


@pytest.mark.parametrize(("entry", "left_unapproved"), [
    # oliver-koeth/hre-demo: the requirements approved and the work paused "before User Stories", which were approved
    # in their own words a session later: the stories were read as approved with the requirements
    (("Requirements Approval Recorded", "Approve the requirements, but do not yet continue (will do so in new "
      "session)", "Recorded approval of Requirements Analysis and paused the workflow before User Stories for "
      "later continuation in a new session.", "INCEPTION - Requirements approved, workflow paused"),
     ["- [x] User Stories"]),
    # adityawagh1710/document-uploader-aspose-total-demo: the stage the clause after the approval says was skipped
    # (the answer's "requirements" alone names no stage, so the clause after the word was read for one)
    (("Requirements APPROVED + Workflow Planning executed (HTML conversion)", "Approve & Continue",
      "Recorded requirements approval (User Stories stage confirmed skipped). Executed Workflow Planning.",
      "Workflow Planning complete; 3 stages to execute; awaiting plan approval."),
     ["- [x] User Stories"])])
def test_a_stage_the_answer_names_after_before_or_as_skipped_is_not_approved(
        docs: DocsRepo, entry: tuple[str, str, str, str], left_unapproved: list[str]) -> None:
    docs.write(AUDIT, audit_text(replacing(("Requirements Analysis - Approval", "User Stories - Approval"), entry)))
    assert unapproved(docs) == {docs.line(STATE, line) for line in left_unapproved}


@pytest.mark.parametrize(("replaced", "entry", "left_unapproved"), [
    # sebastianperudev2001/agentcore-memory-viz: each approval under the heading of the stage it starts
    (("Requirements Analysis - Approval", "Workflow Planning - Approval"),
     ("Workflow Planning Approval", "Sure, let's continue", "Requirements approved. Proceeding to Workflow Planning.",
      "User approved requirements, advancing to Workflow Planning stage"), "- [x] Workflow Planning"),
    (("Workflow Planning - Approval", "Application Design - Approval"),
     ("Application Design Approval", "yes", "Workflow approved. Proceeding to Application Design — Part 1 (Planning).",
      "User approved workflow plan, advancing to Application Design"), "- [x] Application Design")])
def test_an_approval_under_the_heading_of_the_stage_it_proceeds_to_approves_the_stage_left(
        docs: DocsRepo, replaced: tuple[str, ...], entry: Entry, left_unapproved: str) -> None:
    docs.write(AUDIT, audit_text(replacing(replaced, entry)))
    assert unapproved(docs) == {docs.line(STATE, left_unapproved)}


def test_an_approval_logged_with_the_next_stage_s_work_approves_the_stage_made_before(docs: DocsRepo) -> None:
    # impku-ibm/studymate-service: the person answers each gate in the entry of the next stage, its work made after
    # the words; the design's own approval comes later
    docs.write(AUDIT, audit_text(replacing(
        ("Workflow Planning - Approval", "Application Design - Approval"),
        ("Workflow Planning - Execution", "proceed", "Created execution plan with 10 units of work across 4 phases.",
         "INCEPTION - Workflow Planning"),
        ("Application Design - Execution", "Approved continue", "Generated application design artifacts: "
         "components.md, services.md, application-design.md.", "INCEPTION - Application Design"),
        ("Application Design - Approved", "PROCEED", "Application design approved. Proceeding to Units Generation.",
         "INCEPTION - Application Design approved"))))
    assert unapproved(docs) == set()


@pytest.mark.parametrize(("answer", "approved"), [
    # nahom-habtamu/Bug-Squelcher: both units' designs presented together, approved together; the Context names the
    # next step's unit alone
    ("Functional Design approved for both units. Creating orders-api code generation plan before writing any code.",
     True),
    ("Functional Design approved. Code Generation for both units comes next.", False),
    ("Functional Design approved for all 3 units.", False),
    (f"Functional Design approved for all {'9' * 5000} units.", False)])  # more digits than int() takes
def test_an_approval_the_answer_says_is_of_both_units_approves_the_stage_of_each(docs: DocsRepo, answer: str,
                                                                                 approved: bool) -> None:
    docs.write(AUDIT, audit_text(replacing(
        ("Functional Design - Unit 1 Approval", "Functional Design - Unit 2 Approval"),
        ("Functional Design - Orders API + Shop Web Complete", None, "Generated all Functional Design artifacts for "
         "both units. Presenting for architect review.", "CONSTRUCTION - Functional Design (both units)"),
        ("Functional Design - Architect Approval", "Continue and approve", answer,
         "CONSTRUCTION - Code Generation (Unit 1 orders-api), Part 1 Planning"))))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "Functional Design - EXECUTE (Unit 2")})


def test_words_under_a_heading_saying_the_stage_was_skipped_approve_the_stage_of_the_option_they_paste(
        docs: DocsRepo) -> None:
    # ValiaVl/copilot-aidlc: the person declines the stories they had asked for, pasting the option of the
    # requirements' completion message that approves them
    docs.write(AUDIT, audit_text(replacing(
        ("Requirements Analysis - Approval", "User Stories - Approval"),
        ("Requirements Analysis - User Approval", "I want to include user stories",
         "User approved requirements and opted to include User Stories stage. Proceeding to User Stories phase.",
         "INCEPTION - Requirements Analysis (Approval Gate) → User Stories"),
        ("User Stories - Skipped by User", "I dont want to include user stories. I want to procede to this stage: ✅ "
         "Approve & Continue - Approve requirements and proceed to User Stories", "User changed their mind — skipping "
         "User Stories. Approving requirements and proceeding directly to Workflow Planning.",
         "INCEPTION - User Stories (Skipped) → Workflow Planning"))))
    assert unapproved(docs) == {docs.line(STATE, "- [x] User Stories")}


@pytest.mark.parametrize("resumed", [
    # metamorph-erp/AT: the person resumed the session while the requirements' questions awaited answers
    ("Session Resumption", "lets resume ai-dlc", "Loaded aidlc-state.md and audit.md. Project is in INCEPTION phase, "
     "Requirements Analysis stage. Presenting welcome-back prompt.",
     "Session continuity — resuming from Requirements Analysis"),
    # catface996/item-plan: `## 会话恢复` ("session resumed"), "继续" ("continue"), before the requirements were made
    ("会话恢复", "继续", "用户选择继续商品审核模块项目，恢复到需求分析阶段", "INCEPTION 阶段 - 需求分析（会话恢复）"),
    # miso-taku/image_description: "continue from last time with AI-DLC", the stages it names never approved
    ("Session Resume (Requirements Analysis)", "AI-DLCで前回の続きを実施してください",
     "Treated the user request as continuation.", "INCEPTION")])
def test_words_resuming_a_session_approve_no_stage_the_entry_names(docs: DocsRepo, resumed: Entry) -> None:
    docs.write(AUDIT, audit_text(replacing(("Requirements Analysis - Approval Prompt",
                                            "Requirements Analysis - Approval"), resumed)))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Requirements Analysis")}


def test_words_saying_approved_in_a_resumed_session_approve(docs: DocsRepo) -> None:
    # earlgrey940208/ai_dlc_study: the person resumed saying they had approved ("I said I approve, and it froze")
    docs.write(AUDIT, audit_text(replacing(("Requirements Analysis - Approval",), (
        "Session Resumption", "승인한다고 했는데 먹통이 되어버림ㅠ 현재 진행상태 추적하고 재진행해줘",
        "세션 재개. 사용자가 승인했다고 확인하여 Requirements Analysis 승인 처리 후 User Stories 단계로 진행.",
        "세션 중단 후 재개 - Requirements Analysis 승인 처리"))))
    assert unapproved(docs) == set()


def test_a_context_transitioning_to_a_stage_names_the_stage_the_approval_opened(docs: DocsRepo) -> None:
    # beyakus/mechanical-service-ia-dlc: the last unit approved as a whole, "approve and go on to Build & Test", the
    # build not yet made; no later entry approved it
    docs.write(AUDIT, audit_text(replacing(("Build and Test - Approval",), (
        "Unit 2: shop-web - Approval Received",
        "Continuar al Siguiente Stage - Aprobar y proceder a Build & Test (instrucciones finales)",
        "Unit 2 approved. All 2 units code generation complete. Proceeding to Build & Test stage.",
        "CONSTRUCTION - All units complete, transitioning to Build & Test"))))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Build and Test")}


@pytest.mark.parametrize("presented", [
    # Zip-Captions/zip-captions-monorepo: "done" to the questions, the requirements made and put to the person
    ("INCEPTION - Requirements Analysis (Gate Cleared)", "done",
     "Read user answers. No contradictions detected. Generated requirements.md with 7 FRs, 4 NFR groups.",
     "Requirements Analysis complete. Presenting for approval."),
    # createmain/aidlc: the person asks where things stand; the agent puts the approval request again (승인 요청 재제시)
    ("INCEPTION - Requirements Analysis (상태 확인 및 승인 재요청)",
     "aidlc-workflow 현재 진행 상태 확인하고, 다음 단계 진행해",
     "현재 상태 확인 — Requirements Analysis 산출물 생성 완료, 최종 승인 미완료. 승인 요청 재제시.",
     "Requirements Analysis - Step 9 (승인 요청 재제시)")])
def test_words_logged_where_the_agent_presents_the_stage_for_approval_are_not_its_approval(
        docs: DocsRepo, presented: Entry) -> None:
    docs.write(AUDIT, audit_text(replacing(("Requirements Analysis - Approval Prompt",), presented)))
    report = json.loads(run_cli("status", "--format", "json", cwd=docs.root).stdout)
    cited = {s["stage"]: s["approvals"] for s in report["phases"][0]["stages"]}
    assert cited["requirements-analysis"] == [f"{AUDIT}:{docs.line(AUDIT, '## Requirements Analysis - Approval')}"]


@pytest.mark.parametrize(("heading", "said", "context", "unapproved_line"), [
    # adityawagh1710/document-uploader-aspose-total-demo: the stories added late and approved, the words logged in
    # the entry of the code they let go on: the stories approved, not the code
    ("User Stories - Approval", "looks good, continue", "INCEPTION - User Stories approved", None),
    ("Code Generation Part 2 — All 20 Steps Executed", '"Approve & Continue" (User Stories approval) — resumed Code '
     "Generation Part 2.", "Code Generation complete pending user approval", None),
    ("Code Generation Part 2 — All 20 Steps Executed", '"Approve & Continue" — resumed Code Generation Part 2.',
     "Code Generation complete pending user approval", "- [x] User Stories"),
    # the stage named after the word is what the approval is of, never the one the words went on to
    ("Code Generation Part 2 — All 20 Steps Executed", '"Approve & Continue" (approval of User Stories)',
     "Code Generation complete pending user approval", None),
    ("User Stories - Approval", '"b" (approved - on to Workflow Planning)', "INCEPTION - User Stories", None),
])
def test_a_writer_s_note_beside_the_quoted_words_names_the_stage_they_approved(
        docs: DocsRepo, heading: str, said: str, context: str, unapproved_line: str | None) -> None:
    docs.write(AUDIT, docs.read(AUDIT).replace(
        '## User Stories - Approval\n', f"## {heading}\n").replace(
        '**User Input**: "looks good, continue"\n', f"**User Input**: {said}\n").replace(
        "**Context**: INCEPTION - User Stories approved\n", f"**Context**: {context}\n"))
    assert unapproved(docs) == (set() if unapproved_line is None else {docs.line(STATE, unapproved_line)})


def test_a_writer_s_note_naming_another_stage_is_no_approval_of_the_heading_s(docs: DocsRepo) -> None:
    # The words under unit 1's Code Generation approval, noted as the NFR Requirements' approval, approve no code.
    text = docs.read(AUDIT)
    at = text.index("## Code Generation - Unit 1 Approval")
    docs.write(AUDIT, text[:at] + text[at:].replace('**User Input**: "Continue to Next Stage"',
                                                    '**User Input**: "Continue to Next Stage" (NFR Requirements '
                                                    'approval)', 1))
    assert unapproved(docs) == {docs.line(STATE, "Code Generation - EXECUTE (Unit 1")}


@pytest.mark.parametrize("heading", ["Unit 2 承認後の追加是正: ci.ymlのsecretsコンテキストエラー",  # MasterMeister4
                                     "Unit 2 - Fixes after approval: ci.yml secrets error"])
def test_words_under_a_heading_of_work_after_an_approval_are_no_approval(docs: DocsRepo, heading: str) -> None:
    # agwlvssainokuni/MasterMeister4: the person's error report under `## UNIT-10 承認後の追加是正` ("further fixes
    # after approval"), Context naming Build and Test, was read as Build and Test's approval.
    docs.write(AUDIT, audit_text(replacing(("Build and Test - Approval",), (
        heading, "(Line: 58, Col: 9): Unrecognized named-value: 'secrets'. Located at position 1 within expression: "
        "secrets.NVD_API_KEY != '' のエラーが ci.yml で発生。", "Moved the condition to the step.",
        "CONSTRUCTION - Build and Test, further fixes to unit 2's code"))))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Build and Test")}


@pytest.mark.parametrize(("said", "approved"), [
    ("shuoldnt veeyr user story be mapped to functional requirment? idk", False),  # abdullahsohaill
    ("should every story map to a requirement? maybe", False),
    ("looks good? not sure, go on anyway", True)])  # the question is not the words' end
def test_a_question_ending_in_a_hedge_is_still_a_question(docs: DocsRepo, said: str, approved: bool) -> None:
    # abdullahsohaill/erp-supplier-onboarding: the person's question, then "idk", under `## User Story Traceability
    # Cleanup`, was cited as the stories' approval.
    docs.write(AUDIT, audit_text(replacing(("User Stories - Approval",), (
        "User Stories Traceability Cleanup", said, "Mapped every story to a functional requirement.",
        "INCEPTION - User story to functional requirement traceability"))))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "- [x] User Stories")})


CORRECTED = "there were supposed to be only 3 personas as there's only a single reviewer"


@pytest.mark.parametrize(("heading", "said", "approved"), [
    ("User Story Correction", CORRECTED, False),  # abdullahsohaill/erp-supplier-onboarding
    ("User Stories Scope Corrections", CORRECTED, False),
    ("User Stories — Approval + Schema Correction", CORRECTED, True),  # the heading says approved
    ("User Stories (persona correction)", "go", True),  # a go-ahead (GhedeePhilsophy/content-hub-mcp)
    # agwlvssainokuni/MasterMeister4: a bug report under `## UNIT-03 Code Generation Complete提示 - レビュー指摘・修正`
    # ("review finding, fix"); zizuiliaoya-droid/clothinkai's `用户反馈 8 条 P1 修正` ("8 P1 fixes from feedback")
    ("User Stories - レビュー指摘・修正", "ペルソナ一覧でレビュアーが二人になっている。", False),
    ("User Stories - 用户反馈 8 条 P1 修正", "8 条 Findings[P1] 反馈", False),
    # agwlvssainokuni/cherry-testtool: a bug report under `## FR11 フッターコピーライト表記のカンマ位置指摘` ("a point
    # raised: the comma in the footer's copyright"); DocSuri's `리뷰 지적`
    ("User Stories - ペルソナ表記のカンマ位置指摘", "ペルソナ一覧のカンマの位置がおかしいかな。", False),
    ("User Stories — 페르소나 리뷰 지적", "리뷰어 페르소나가 두 개로 나뉘어 있어", False),
    ("User Stories 수정 승인", "좋아요", True)])  # the heading says approved
def test_words_under_a_heading_naming_a_correction_correct_the_stage_and_approve_nothing(
        docs: DocsRepo, heading: str, said: str, approved: bool) -> None:
    # abdullahsohaill/erp-supplier-onboarding: "there were supposed to be only 3 personas as there's only a single
    # reviewer" under `## User Story Correction`, the stories then changed, was read as the stories' approval.
    docs.write(AUDIT, audit_text(replacing(("User Stories - Approval",), (
        heading, said,
        "Collapsed reviewer variants into a single Reviewer persona; updated stories.",
        "INCEPTION - User Stories and Requirements correction"))))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "- [x] User Stories")})


@pytest.mark.parametrize(("context", "approved"), [
    # abdullahsohaill/erp-supplier-onboarding: the plan awaits approval; "the approved" extension is an earlier one's
    ("INCEPTION - Workflow planning complete and awaiting explicit user approval. Security Baseline and the approved "
     "partial Property-Based Testing extension are included as blocking constraints.", False),
    # agwlvssainokuni/MasterMeister2: the stage's gate still open, an earlier stage's artifact "already-approved"
    ("INCEPTION - Workflow Planning, artifacts under review (gate still open). The already-approved requirements "
     "were amended post-approval.", False),
    ("INCEPTION - Workflow Planning approved; the approved extensions stay in force.", True)])
def test_the_approved_thing_a_context_names_is_an_earlier_approval_not_this_one(
        docs: DocsRepo, context: str, approved: bool) -> None:
    # Its request, "okay now that Database schema has been finalised, I want you to create this ATP database ...",
    # under `## Oracle ATP and ORDS Construction Planning Request`, was cited as Workflow Planning's approval.
    docs.write(AUDIT, audit_text(replacing(("Workflow Planning - Approval",), (
        "Orders Database Construction Planning Request", "okay now that the schema has been finalised, I want you to "
        "create the database locally, seed sample data in each table and write tests against all the use cases.",
        "Created the execution plan for the local database, its migrations, seed data and tests.", context), (
        "Repository Commit and Push Request", "ok pls push stuff in commits while i review the plan",
        "Pushed the plan in three commits.", "Repository maintenance during the plan's review"))))
    assert unapproved(docs) == (set() if approved else {docs.line(STATE, "- [x] Workflow Planning")})


@pytest.mark.parametrize(("replaced", "entry", "ticked"), [
    # jongon/betmeet-clone: the person's canned command, logged at two units' Functional Design gates, was cited as
    # their approval for its words "the approved units"
    ("Functional Design - Unit 2 Approval", (
        "Unit 2 — Construction", "Execute the CONSTRUCTION PHASE, following core-workflow.md. Walk the per-unit loop "
        "(Functional Design -> Code Generation) for the approved units.",
        "Completed unit 2's Functional Design and generated its code.",
        "CONSTRUCTION — Unit 2 per-unit loop (Functional Design → Code Generation)"),
     "- [x] Functional Design - EXECUTE (Unit 2"),
    # but "the approved plan" is the entry's own: oliver-koeth/hre-demo's "Continue to Next Stage" under
    # `## CONSTRUCTION - UOW-03 Code Generation Execution`, answered "Executed the approved UOW-03 code generation plan
    # end-to-end", approves the plan; the code's approval came later (here none comes)
    ("Code Generation - Unit 1 Approval", (
        "Code Generation - Unit 1 Execution", "Continue to Next Stage",
        "Executed the approved unit 1 code generation plan end-to-end: the orders API code is generated.",
        "CONSTRUCTION - Unit 1 orders-api code generation"),
     "- [x] Code Generation - EXECUTE (Unit 1")])
def test_the_approved_thing_is_an_earlier_approval_but_the_approved_plan_this_entry_s(
        docs: DocsRepo, replaced: str, entry: tuple[str, str, str, str], ticked: str) -> None:
    docs.write(AUDIT, audit_text(replacing((replaced,), entry)))
    assert unapproved(docs) == {docs.line(STATE, ticked)}


@pytest.mark.parametrize(("heading", "said", "context", "approved"), [
    # agwlvssainokuni/MasterMeister2: "ここで中断する" ("I'll stop here"), its answer to "go on to the next item?",
    # 17 times, each cited as the code's approval
    ("Code Generation - Unit 2 Paused After Item 1-1", "ここで中断する", "CONSTRUCTION - Unit 2 shop-web, Part 2",
     False),
    ("Code Generation - Unit 2 Paused", "Let's just stop here so I can pick this up with a new direction later",
     "CONSTRUCTION - Unit 2 shop-web", False),
    # welligtoncos/ia-dlc-lote-clientes-aws: "respondido" ("answered") under each design's `... gerado` heading;
    # sreeram2506/workflow-builder's "answered"; DocSuri's "done", the questions answered
    ("Code Generation - Unit 2", "respondido", "CONSTRUCTION - Unit 2 shop-web", False),
    ("Code Generation - Unit 2 Round 2 Changes Applied", "answered", "CONSTRUCTION - Unit 2 shop-web", False),
    ("Code Generation - Unit 2", "done", "User finished answering the code generation questions.", False),
    ("Code Generation - Unit 2 答案收集", "完成了", "CONSTRUCTION - Unit 2 shop-web", False),  # kiro-project-demo
    # MamaMoh/SimbaFlow: "done" where the entry says approved
    ("Code Generation - Unit 2 Approval", "done", "User approved unit 2's code.", True),
    ("Code Generation - Unit 2", "done, go on", "CONSTRUCTION - Unit 2 shop-web", True)])
def test_words_that_stop_the_work_or_say_the_questions_are_answered_approve_nothing(
        docs: DocsRepo, heading: str, said: str, context: str, approved: bool) -> None:
    docs.write(AUDIT, audit_text(replacing(("Code Generation - Unit 2 Approval",), (
        heading, said, "Committed the unit's next item.", context))))
    code = docs.line(STATE, "- [x] Code Generation - EXECUTE (Unit 2")
    assert unapproved(docs) == (set() if approved else {code})


def test_words_asking_for_the_person_s_approval_are_not_it(docs: DocsRepo) -> None:
    # jongon/betmeet-clone's canned command, 7 times cited as Workflow Planning's approval: "for my approval" asks for
    # one, as "presenting for approval" does (a parenthesis between present and for hid that)
    docs.write(AUDIT, audit_text(replacing(("Workflow Planning - Approval",), (
        "Workflow Planning — Execution Plan Created", "Execute the Workflow Planning stage, following "
        "core-workflow.md. Decide which stages to run and present the plan (with validated Mermaid) for my approval. "
        "Do not proceed without confirmation.", "Created the execution plan.", "INCEPTION - Workflow Planning"))))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Workflow Planning")}


def test_an_answer_presenting_the_next_plan_for_approval_leaves_the_stage_approved(docs: DocsRepo) -> None:
    # sreeram2506/workflow-builder: "User Stories approved. Started Workflow Planning; created execution-plan.md with
    # ... Code Gen Phase 1 gate; presented plan for approval.": a plan put to the person, not one approved; read as
    # the stories' plan approved, the stories' approval was lost (a false AIDLC-DOCS-007 later).
    docs.write(AUDIT, audit_text(replacing(("User Stories - Approval",), (
        "User Stories — Approved", "Approve & Continue", "User Stories approved. Started Workflow Planning; created "
        "execution-plan.md with Code Gen Phase 1 gate; presented plan for approval.",
        "User Stories complete → Workflow Planning"))))
    assert unapproved(docs) == set()


@pytest.mark.parametrize(("said", "approved"), [
    # soneda-yuya/ontology-agent: the person's two answers in one entry, each with the writer's note of what it approved
    ('"Continue to Next Stage" (nfr approved) then "Approve & Continue" (code-gen plan approved)', True),
    # oliver-koeth/hre-demo: the time the IDE stamps on the message, before the words (82 entries)
    ('"<current_datetime>2026-07-23T07:54:30.538+02:00</current_datetime>\n\nContinue to Next Stage"', True),
    ('"<current_datetime>2026-07-24T10:46:49.176+02:00</current_datetime>\n\n<tools_changed_notice>\nTools no longer '
     'available: create, edit\n\nImportant: Do not attempt to call tools that are no longer available.\n'
     '</tools_changed_notice>\n\nContinue to Next Stage"', True),
    ('"Add a cache in front of the orders table and retry twice on timeouts before failing the request"', False)])
def test_a_go_ahead_after_an_approval_prompt_answers_it(docs: DocsRepo, said: str, approved: bool) -> None:
    # The prompt logs no words of the person; the next entry, under the next stage's heading, holds their answer.
    docs.write(AUDIT, audit_text(replacing(("NFR Requirements - Unit 1 Approval",), (
        "Unit 1 NFR Requirements — Approval Prompt", None,
        "Presented Unit 1 NFR requirements; requested approval. Next = Code Generation.",
        "CONSTRUCTION — Unit 1 NFR Requirements gate."), (
        "CONSTRUCTION — Unit 1 Code Generation (Part 1 + Part 2)", "SAID", "Implemented Unit 1: orders API and tests.",
        "CONSTRUCTION — Unit 1 Code Generation complete (awaiting approval)."))).replace('"SAID"', said, 1))
    nfr = docs.line(STATE, "- [x] NFR Requirements - EXECUTE (Unit 1")
    assert unapproved(docs) == (set() if approved else {nfr})


def test_a_go_ahead_after_an_approval_prompt_of_a_plan_approves_the_plan_alone(docs: DocsRepo) -> None:
    # m2nho/aidlc-test: the prompt's heading names the stage, its Context the plan put to the person
    docs.write(AUDIT, audit_text(replacing(("Code Generation - Unit 1 Approval",), (
        "Unit 1 Code Generation - Approval Prompt", None, "Unit 1 Code Generation Plan 생성 완료. 승인을 기다립니다.",
        "Code Generation Plan 승인 요청"), (
        "Unit 1 Code Generation - User Approval", "승인", "Code Generation Plan 승인 확인, Part 2 (Generation) 시작",
        "Code Generation 실행 시작"))))
    assert unapproved(docs) == {docs.line(STATE, "- [x] Code Generation - EXECUTE (Unit 1")}


def test_the_user_s_decision_under_a_stage_s_heading_is_an_answer_not_an_approval(docs: DocsRepo) -> None:
    # CloudCentric2023/AWS_summit_demo: the backend's language chosen while the design's questions were still open
    docs.write(AUDIT, audit_text(replacing(("Application Design - Approval",), (
        "Application Design - User Decision (Backend Language)", "バックエンドはGoで実装する",
        "了解。バックエンドGoで確定。質問ファイルの回答を引き続き待機。",
        "Application Design - Backend language confirmed as Go"))))
    assert unapproved(docs) == {docs.line(STATE, "Application Design")}
