"""What a draft's model is told about references the bank refuses: the names to use instead, never an
artifact to create; a name copied from the answer's schema ("description", "UnitDraft") is called so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc.cli.app import MAX_ERROR
from aidlc.draft.apply import problems
from aidlc.draft.proposals import BoltsProposal, RequirementsProposal, StoriesProposal, UnitsProposal
from aidlc.names import shorten
from aidlc.scaffold.new import Creator
from tests.openai_server import ScriptedServer, chat
from tests.test_draft import INTENT, MB, REFUNDS, run, units_answer
from tests.test_new import aidlc, build_chain

ECHO = "is a key, type name or note of the JSON shape asked for"
IDS = f"use the requirement ids intent {INTENT} defines: FR-1, NFR-1"


def bank_files(repo: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in (repo / MB).rglob("*") if p.is_file()}


def test_a_model_that_echoes_the_schema_every_round_is_told_so_and_nothing_is_written(
    repo: Path, server: ScriptedServer
) -> None:
    build_chain(repo)
    before = bank_files(repo)
    echo = units_answer({"title": "UnitDraft", "purpose": "The purpose of the unit draft.",
                         "requirements": ["description", "units", "FR-1"]})
    server.push(chat(echo), chat(echo), chat(echo))
    proc = run(repo, "draft", "units", INTENT, "--base-url", server.url)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "after 3 rounds the model still proposed units the memory bank refuses: units[1].title: 'UnitDraft' " \
           f"{ECHO}: write your own title for this item of units" in proc.stderr
    assert "Next steps:" in proc.stderr and "larger model" in proc.stderr
    assert bank_files(repo) == before  # nothing written, no ledger event
    bodies = server.bodies()
    assert len(bodies) == 3
    for body in bodies[1:]:  # rounds 2 and 3 carry the reasons
        feedback = body["messages"][-1]["content"]
        assert f"units[1].requirements: 'description' {ECHO}, not a requirement id: {IDS}" in feedback
        assert f"units[1].requirements: 'units' {ECHO}, not a requirement id: {IDS}" in feedback
        assert "FR-1'" not in feedback  # the defined id is not complained about
    for body in bodies:  # what aidlc wrote (the model's own answers aside) never names a schema class
        text = json.dumps([m for m in body["messages"] if m["role"] != "assistant"])
        assert "aidlc new" not in text and "define it" not in text
        assert "UnitDraft" not in text.replace("'UnitDraft' " + ECHO, "")


def test_an_unknown_requirement_id_gets_the_defined_ones_not_an_invitation_to_define_it(
    repo: Path, server: ScriptedServer
) -> None:
    build_chain(repo)
    server.push(chat(units_answer({**REFUNDS, "requirements": ["FR-7"]})), chat(units_answer(REFUNDS)))
    proc = run(repo, "draft", "units", INTENT, "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    feedback = server.bodies()[1]["messages"][-1]["content"]
    assert f"units[1].requirements: intent {INTENT} does not define FR-7: {IDS}" in feedback
    assert "aidlc new" not in feedback and ECHO not in feedback


@pytest.fixture
def chain(repo: Path) -> Creator:
    build_chain(repo)
    assert aidlc(repo, "new", "unit", "Receipts", "--intent", "1", "--requirements", "FR-1")[0] == 0
    return Creator(repo)


def found(creator: Creator, proposal: object) -> list[str]:
    return problems(creator, creator.intent("1"), proposal)  # type: ignore[arg-type]


STORY = {"unit": "001-checkout-api", "title": "Refund by card", "as_a": "support agent",
         "so_that": "the shopper gets the money back", "priority": "must", "requirements": ["FR-1"],
         "acceptance_criteria": ["**Given** a paid order, **When** I refund it, **Then** the API answers 202"]}
BOLT = {"unit": "001-checkout-api", "stories": ["001-pay-by-card"], "risk": "low",
        "objective": "Build refunds on the payment gateway."}


@pytest.mark.parametrize(("proposal", "expected"), [
    (StoriesProposal(stories=[{**STORY, "unit": "StoryDraft"}]),
     f"stories[1].unit: 'StoryDraft' {ECHO}, not a unit: use the units of intent {INTENT}: 001-checkout-api, "
     "002-receipts"),
    (StoriesProposal(stories=[{**STORY, "unit": "009-returns"}]),
     f"stories[1].unit: intent {INTENT} has no unit '009-returns': use the units of intent {INTENT}: "
     "001-checkout-api, 002-receipts"),
    (StoriesProposal(stories=[{**STORY, "requirements": ["acceptance_criteria"]}]),
     f"stories[1].requirements: 'acceptance_criteria' {ECHO}, not a requirement id: {IDS}"),
    (BoltsProposal(bolts=[{**BOLT, "stories": ["stories"]}]),
     f"bolts[1].stories: 'stories' {ECHO}, not a story: use the stories of unit 001-checkout-api: 001-pay-by-card"),
    (BoltsProposal(bolts=[{**BOLT, "unit": "002-receipts"}]),
     "bolts[1].stories: unit 002-receipts has no stories: plan bolts only for units with stories: 001-checkout-api"),
    (BoltsProposal(bolts=[{**BOLT, "requires": ["BoltDraft"]}]),
     f"bolts[1].requires: 'BoltDraft' {ECHO}, not a bolt id: use existing bolt ids: 001-checkout-api, "
     "or #N for the N-th bolt of this proposal"),
    (RequirementsProposal(requirements=[{"kind": "FR", "title": "Description", "priority": "must",
                                         "acceptance_criteria": ["**Given** a, **When** b, **Then** c"]}]),
     f"requirements[1].title: 'Description' {ECHO}: write your own title for this item of requirements"),
    (RequirementsProposal(requirements=[{"kind": "FR", "title": "Refunds", "priority": "must",
                                         "acceptance_criteria": ["1 to 20 items"]}]),  # seen from SmolLM2-135M
     f"requirements[1].acceptance_criteria[1]: '1 to 20 items' {ECHO}: write your own criterion for this item "
     "of requirements"),
], ids=["unit-echo", "unit-unknown", "requirement-echo", "story-echo", "unit-without-stories", "bolt-echo",
        "title-echo", "note-echo"])
def test_each_reference_the_bank_refuses_names_what_to_use(chain: Creator, proposal: object, expected: str) -> None:
    assert found(chain, proposal) == [expected]


def test_names_that_only_resemble_schema_words_are_ordinary_references(chain: Creator) -> None:
    ok = UnitsProposal(units=[{**REFUNDS, "title": "Units of measure", "requirements": ["FR-1", "NFR-1"]}])
    assert found(chain, ok) == []
    typo = found(chain, UnitsProposal(units=[{**REFUNDS, "requirements": ["FR-10"]}]))
    assert typo == [f"units[1].requirements: intent {INTENT} does not define FR-10: {IDS}"]



@pytest.mark.parametrize("ref", ["#²", "#" + "9" * 5000])
def test_a_bolt_required_by_a_place_that_is_no_number_is_refused_not_a_traceback(
    repo: Path, server: ScriptedServer, ref: str
) -> None:
    # A model's answer is untrusted: a superscript digit or thousands of digits names no earlier bolt.
    build_chain(repo)
    before = bank_files(repo)
    answer = json.dumps({"bolts": [BOLT, {**BOLT, "requires": [ref]}]})
    server.push(chat(answer), chat(answer), chat(answer))
    proc = run(repo, "draft", "bolts", INTENT, "--base-url", server.url)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    problem = f"bolts[2].requires: {ref} must name an earlier bolt of this proposal (#1..#1)"
    assert shorten(f"after 3 rounds the model still proposed bolts the memory bank refuses: {problem}",
                   MAX_ERROR) in proc.stderr  # 5,000 digits are quoted by their ends, not whole
    assert bank_files(repo) == before
