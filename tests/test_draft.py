"""aidlc draft: the model proposes the next level through a real OpenAI-protocol server; the files it
writes validate, nothing is approved, the ledger records who proposed (an agent) and on what prompt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import in_process
from tests.openai_server import ScriptedServer, chat
from tests.test_new import aidlc, build_chain

MB = "memory-bank"
INTENT = "001-checkout-payments"


def run(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(root), "CI": "true"}
    return in_process(["--repo", str(root), *args], {**base, **(env or {})})


def units_answer(*units: dict) -> str:
    return json.dumps({"units": list(units)})


REFUNDS = {"title": "Refunds API", "purpose": "Pays money back to the card a shopper used.",
           "requirements": ["FR-1"]}
RECEIPTS = {"title": "Receipts", "purpose": "Sends the receipt of every payment by e-mail.",
            "requirements": ["FR-1", "NFR-1"]}


def test_draft_units_writes_drafts_that_validate_and_records_the_proposal(repo: Path,
                                                                           server: ScriptedServer) -> None:
    build_chain(repo)
    server.push(chat(units_answer(REFUNDS, RECEIPTS), model="small-model"))
    proc = run(repo, "draft", "units", "1", "--base-url", server.url, "--model", "small-model")
    assert proc.returncode == 0, proc.stderr
    assert "aidlc gate approve 001-checkout-payments --stage units" in proc.stdout
    units = repo / MB / "intents" / INTENT / "units"
    brief = (units / "002-refunds-api" / "unit-brief.md").read_text()
    assert "status: draft" in brief and "Pays money back" in brief
    assert (units / "003-receipts" / "unit-brief.md").is_file()
    assert "| 003-receipts | FR-1, NFR-1 |" in (repo / MB / "intents" / INTENT / "units.md").read_text()
    assert run(repo, "validate").returncode == 0
    events = [json.loads(line) for line in (repo / MB / "events.jsonl").read_text().splitlines()]
    proposed = events[-1]
    assert proposed["type"] == "draft.proposed" and proposed["actor"]["kind"] == "agent"
    assert proposed["subject"] == {"kind": "intent", "id": INTENT}
    assert proposed["data"]["model"] == "small-model" and len(proposed["data"]["prompt_sha256"]) == 64
    assert f"{MB}/intents/{INTENT}/units/003-receipts/unit-brief.md" in proposed["data"]["created"]
    # Digests, paths and counts only: no prompt text and no answer text in the ledger.
    assert set(proposed["data"]) == {"level", "model", "target", "mode", "rounds", "prompt_sha256", "usage",
                                     "created", "updated", "kept"}
    assert "Pays money back" not in (repo / MB / "events.jsonl").read_text()
    (request,) = server.bodies()
    prompt = json.dumps(request["messages"])
    assert "untrusted-data" in prompt and "### FR-1: Pay by card" in prompt  # the intent's file, as data
    assert run(repo, "log", "verify").returncode == 0


def test_a_proposal_the_bank_refuses_is_sent_back_with_the_reasons(repo: Path, server: ScriptedServer) -> None:
    build_chain(repo)
    wrong = {**REFUNDS, "requirements": ["FR-7"]}
    server.push(chat(units_answer(wrong)), chat(units_answer(REFUNDS)))
    proc = run(repo, "--format", "json", "draft", "units", INTENT, "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["rounds"] == 2 and doc["ids"] == ["002-refunds-api"]
    retry = server.bodies()[1]["messages"][-1]["content"]
    assert "FR-7" in retry and "does not define" in retry


def test_what_the_budget_leaves_out_of_the_context_is_said(repo: Path, server: ScriptedServer) -> None:
    build_chain(repo)
    standards = repo / MB / "standards" / "coding-standards.md"
    standards.parent.mkdir(exist_ok=True)
    standards.write_text("# Coding standards\n\n" + "Prefer plain code over clever code.\n" * 400)
    server.push(chat(units_answer(REFUNDS)))
    proc = run(repo, "--format", "json", "draft", "units", INTENT, "--budget", "1000", "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    trimmed = json.loads(proc.stdout)["context_trimmed"]
    assert trimmed.startswith("left out ") and f"{MB}/standards/coding-standards.md" in trimmed, trimmed
    assert "the context exceeded the budget of 1000 tokens: left out" in proc.stderr
    assert "Prefer plain code" not in json.dumps(server.bodies()[-1]["messages"])


def test_a_proposal_never_fixed_writes_nothing(repo: Path, server: ScriptedServer) -> None:
    build_chain(repo)
    before = sorted(p.as_posix() for p in (repo / MB).rglob("*"))
    wrong = units_answer({**REFUNDS, "requirements": ["FR-7"]})
    server.push(chat(wrong), chat(wrong), chat(wrong))
    proc = run(repo, "draft", "units", INTENT, "--base-url", server.url)
    assert proc.returncode == 1
    assert "still proposed units the memory bank refuses" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.as_posix() for p in (repo / MB).rglob("*")) == before


def test_a_proposal_that_cannot_be_written_whole_writes_nothing_and_is_sent_back(
    repo: Path, server: ScriptedServer
) -> None:
    """The second unit's title makes no file name: the first unit must not be written alone."""
    build_chain(repo)
    before = {p: p.read_bytes() for p in (repo / MB).rglob("*") if p.is_file()}
    nameless = {**RECEIPTS, "title": "支付网关"}
    server.push(*[chat(units_answer(REFUNDS, nameless))] * 3)
    proc = run(repo, "draft", "units", INTENT, "--base-url", server.url)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "has no letters or digits" in proc.stderr
    assert {p: p.read_bytes() for p in (repo / MB).rglob("*") if p.is_file()} == before
    assert "has no letters or digits" in server.bodies()[1]["messages"][-1]["content"]  # fed back to the model


def test_dry_run_shows_the_files_and_writes_nothing(repo: Path, server: ScriptedServer) -> None:
    build_chain(repo)
    before = {p: p.read_bytes() for p in (repo / MB).rglob("*") if p.is_file()}
    server.push(chat(units_answer(REFUNDS)))
    proc = run(repo, "draft", "units", INTENT, "--dry-run", "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    assert f"would be created: {MB}/intents/{INTENT}/units/002-refunds-api/unit-brief.md" in proc.stdout
    assert "+| 002-refunds-api | FR-1 |" in proc.stdout  # units.md as a diff
    assert {p: p.read_bytes() for p in (repo / MB).rglob("*") if p.is_file()} == before


def test_requirements_stories_and_bolts_levels(repo: Path, server: ScriptedServer) -> None:
    build_chain(repo)
    server.push(chat(json.dumps({"requirements": [
        {"kind": "FR", "title": "Refund a payment", "priority": "must", "description": "",
         "acceptance_criteria": ["**Given** a paid order, **When** support refunds it, **Then** the card is "
                                 "credited within 5 days"]}]})))
    assert run(repo, "draft", "requirements", INTENT, "--base-url", server.url).returncode == 0
    requirements = (repo / MB / "intents" / INTENT / "requirements.md").read_text()
    assert "### FR-2: Refund a payment" in requirements
    server.push(chat(json.dumps({"stories": [
        {"unit": "001-checkout-api", "title": "Refund by card", "as_a": "support agent",
         "so_that": "the shopper gets the money back", "priority": "must", "requirements": ["FR-2"],
         "acceptance_criteria": ["**Given** a paid order, **When** I refund it, **Then** the API answers 202"]}]})))
    assert run(repo, "draft", "stories", INTENT, "--base-url", server.url).returncode == 0
    server.push(chat(json.dumps({"bolts": [
        {"unit": "001-checkout-api", "stories": ["002-refund-by-card"], "type": "simple-construction-bolt",
         "risk": "high", "objective": "Build refunds on the payment gateway.", "scope": ["src/refunds/**"],
         "requires": ["001-checkout-api"]}]})))
    proc = run(repo, "draft", "bolts", INTENT, "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    assert "--stage bolt-plan" in proc.stdout
    bolt = (repo / MB / "bolts" / "002-checkout-api" / "bolt.md").read_text()
    assert "status: planned" in bolt and "risk: high" in bolt and "requires_bolts: [001-checkout-api]" in bolt
    assert run(repo, "validate").returncode == 0


def test_a_re_draft_keeps_what_the_bank_has_and_a_persons_edits(repo: Path, server: ScriptedServer) -> None:
    build_chain(repo)
    server.push(chat(units_answer(REFUNDS)))
    assert run(repo, "draft", "units", INTENT, "--base-url", server.url).returncode == 0
    brief = repo / MB / "intents" / INTENT / "units" / "002-refunds-api" / "unit-brief.md"
    brief.write_text(brief.read_text() + "\nA person's note: refunds go through the gateway's API only.\n")
    edited = brief.read_bytes()
    # The model proposes the same unit again (its title written another way) and a new one.
    server.push(chat(units_answer({**REFUNDS, "title": "refunds  API", "purpose": "Another purpose."}, RECEIPTS,
                                  RECEIPTS)))  # the new one twice: written once
    proc = run(repo, "draft", "units", INTENT, "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    assert brief.read_bytes() == edited
    units = sorted(p.name for p in (repo / MB / "intents" / INTENT / "units").iterdir())
    assert units == ["001-checkout-api", "002-refunds-api", "003-receipts"]
    assert "drafted 1 new units" in proc.stdout
    rel = brief.relative_to(repo).as_posix()
    assert f"  = {rel}    (002-refunds-api exists: kept as it is, a re-draft never rewrites it)" in proc.stdout
    event = json.loads((repo / MB / "events.jsonl").read_text().splitlines()[-1])
    assert event["data"]["kept"] == ["002-refunds-api"] and rel not in event["data"]["created"]

    # A requirement of the same title and a bolt of the same unit and stories are kept too: nothing changes.
    before = {p: p.read_bytes() for p in (repo / MB).rglob("*.md")}
    server.push(chat(json.dumps({"requirements": [
        {"kind": "FR", "title": "pay by Card", "priority": "must", "description": "",
         "acceptance_criteria": ["**Given** a cart, **When** I pay, **Then** it is paid"]}]})))
    proc = run(repo, "--format", "json", "draft", "requirements", INTENT, "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["created"] == [] and document["updated"] == []
    assert document["kept"] == [{"id": f"{INTENT}/FR-1", "path": f"{MB}/intents/{INTENT}/requirements.md"}]
    server.push(chat(json.dumps({"bolts": [
        {"unit": "001-checkout-api", "stories": ["001-pay-by-card"], "type": "simple-construction-bolt",
         "risk": "low", "objective": "Take card payments again.", "scope": [], "requires": []}]})))
    proc = run(repo, "draft", "bolts", INTENT, "--dry-run", "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    assert f"--- kept as it is: {MB}/bolts/001-checkout-api/bolt.md (001-checkout-api exists)" in proc.stdout
    server.push(chat(json.dumps({"requirements": [
        {"kind": "FR", "title": "Pay by card", "priority": "must", "description": "",
         "acceptance_criteria": ["**Given** a cart, **When** I pay, **Then** it is paid"]}]})))
    proc = run(repo, "draft", "requirements", INTENT, "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr
    assert "drafted 0 new requirements" in proc.stdout and "aidlc gate approve" not in proc.stdout
    assert "Nothing new was written: the bank already has all the requirements the model proposed" in proc.stdout
    assert {p: p.read_bytes() for p in (repo / MB).rglob("*.md")} == before
    assert run(repo, "validate").returncode == 0 and run(repo, "log", "verify").returncode == 0


def test_levels_need_the_level_before(repo: Path) -> None:
    assert aidlc(repo, "new", "intent", "Returns")[0] == 0
    proc = run(repo, "draft", "units", "001", "--base-url", "http://127.0.0.1:9/v1")
    assert proc.returncode == 2
    assert "has no requirements yet" in proc.stderr and "aidlc draft requirements 001-returns" in proc.stderr


def test_record_then_replay_gives_identical_drafts(repo: Path, server: ScriptedServer, tmp_path: Path) -> None:
    build_chain(repo)
    twin = tmp_path / "twin"
    subprocess.run(["cp", "-a", str(repo), str(twin)], check=True)
    cassette = tmp_path / "units.jsonl"
    server.push(chat(units_answer(REFUNDS, RECEIPTS)))
    assert run(repo, "draft", "units", INTENT, "--base-url", server.url, "--record", str(cassette)).returncode == 0
    server.close()
    proc = run(twin, "draft", "units", INTENT, "--replay", str(cassette))
    assert proc.returncode == 0, proc.stderr
    for rel in (f"{MB}/intents/{INTENT}/units/002-refunds-api/unit-brief.md",
                f"{MB}/intents/{INTENT}/units/003-receipts/unit-brief.md", f"{MB}/intents/{INTENT}/units.md"):
        mine, theirs = (repo / rel).read_text(), (twin / rel).read_text()
        strip = [line for line in mine.splitlines() if not line.startswith(("created:", "updated:"))]
        assert strip == [line for line in theirs.splitlines() if not line.startswith(("created:", "updated:"))]


def test_an_unreachable_server_is_a_clear_error(repo: Path) -> None:
    build_chain(repo)
    proc = run(repo, "draft", "units", INTENT, "--base-url", "http://127.0.0.1:9/v1",
               env={"AIDLC_LLM_TIMEOUT": "2"})
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "127.0.0.1:9" in proc.stderr
