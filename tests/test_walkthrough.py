"""aidlc walkthrough: the evidence report of a bolt (md, json, html, in-toto), verification strength by risk, and
the walkthrough gate that enforces it. Two repository histories are built once for the module, a bolt run by
`aidlc bolt` against a real OpenAI-protocol server and a bolt done by hand, and copied for each test."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest

from aidlc.events.ledger import Ledger
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from tests.bolt_sample import (
    BOLT,
    BOLT_DIR,
    CALC,
    FIXED,
    STORY,
    TEST,
    copy,
    edit_answer,
    events,
    git,
    plan_answer,
    run,
)
from tests.evidence_sample import bolt_commit
from tests.openai_server import ScriptedServer, chat

WALKTHROUGH = f"{BOLT_DIR}/implementation-walkthrough.md"
PLAN = f"{BOLT_DIR}/implementation-plan.md"
GOLDEN = Path(__file__).parent / "golden"
BOB = "Bob Builder <bob@example.org>"
HAND_PLAN = f"""# Implementation plan: {BOLT}

## Files

| Action | Path | Why |
|---|---|---|
| modify | `{CALC}` | total() subtracts each price |

## Risks

- callers that relied on the wrong sign
"""


@pytest.fixture(scope="module")
def _ran(tmp_path_factory: pytest.TempPathFactory, _sample: Path) -> Path:
    """The bolt run by `aidlc bolt` to its walkthrough gate."""
    root = copy(_sample, tmp_path_factory.mktemp("ran") / "shop")
    with ScriptedServer() as server:
        server.push(plan_answer())
        proc = run(root, "bolt", "start", BOLT, "--base-url", server.url, "--model", "test-model")
        assert proc.returncode == 3, proc.stderr
        server.push(edit_answer("        result -= price\n", "        result += price\n"))
        proc = run(root, "bolt", "resume", BOLT, "--base-url", server.url, "--approve")
        assert proc.returncode == 3, proc.stderr + proc.stdout
    return root


@pytest.fixture(scope="module")
def _hand(tmp_path_factory: pytest.TempPathFactory, _sample: Path) -> Path:
    """The same bolt done by hand: a plan a person approved, then one commit carrying `Aidlc-Bolt`."""
    root = copy(_sample, tmp_path_factory.mktemp("hand") / "shop")
    (root / PLAN).write_text(HAND_PLAN)
    assert run(root, "gate", "approve", BOLT, "--stage", "plan").returncode == 0
    (root / CALC).write_text(FIXED)
    bolt_commit(root, BOLT, "pay: total() adds the prices")
    return root


@pytest.fixture
def ran(_ran: Path, tmp_path: Path) -> Path:
    return copy(_ran, tmp_path / "shop")


@pytest.fixture
def hand(_hand: Path, tmp_path: Path) -> Path:
    return copy(_hand, tmp_path / "shop")


def walkthrough(root: Path, *args: str, **extra: str) -> dict:
    proc = run(root, "walkthrough", BOLT, "--format", "json", *args, extra_env=extra or None)
    assert proc.stdout, proc.stderr
    report = json.loads(proc.stdout)
    assert proc.returncode == (0 if report["verification"]["satisfied"] else 1), proc.stderr
    return report


def set_risk(root: Path, risk: str) -> None:
    bolt = root / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace("risk: medium", f"risk: {risk}"))


def check_boxes(root: Path) -> None:
    story = root / STORY
    story.write_text(story.read_text().replace("- [ ] **Given**", "- [x] **Given**"))


def item(report: dict, name: str) -> dict:
    return next(i for i in report["verification"]["items"] if i["id"] == name)


def normalised(text: str) -> str:
    """The report without what differs from one build to the next: commit ids, times, digests, run ids."""
    text = re.sub(r"\b[0-9a-f]{64}\b", "<sha256>", text)
    text = re.sub(r"\b[0-9a-f]{40}\b", "<commit>", text)
    text = re.sub(r"\b[0-9a-f]{12}\b", "<short>", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)", "<time>", text)
    text = re.sub(r"run-\d{8}T\d{6}-[0-9a-f]{6}", "<run>", text)
    return re.sub(r"\d+\.\d s of work", "<seconds> s of work", text)


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("AIDLC_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(normalised(text))
    assert normalised(text) == path.read_text(), f"differs from {path} (AIDLC_UPDATE_GOLDEN=1 writes it again)"


# -- the report ------------------------------------------------------------------------------------------------------
def test_a_run_bolt_gets_its_report_from_the_run_and_the_ledger(ran: Path) -> None:
    checks_before = sum(e["type"] == "check.recorded" for e in events(ran))
    report = walkthrough(ran)
    assert sum(e["type"] == "check.recorded" for e in events(ran)) == checks_before  # the run's checks are current
    assert set(report) == {"version", "bolt", "risk", "base", "head", "traceability", "changes", "deviations", "checks",
                           "commits", "verification", "risks", "rollback", "timeline", "cost", "decision", "notes"}
    assert report["version"] == 1 and report["deviations"] == []
    assert [c["path"] for c in report["changes"]] == [CALC]
    assert report["changes"][0]["reason"] == "total() subtracts each price"
    assert (report["changes"][0]["added"], report["changes"][0]["removed"]) == (1, 1)
    assert [c["trailers"]["Aidlc-Stage"] for c in report["commits"]] == ["execute", "walkthrough"]
    assert report["head"] == report["commits"][0]["sha"]  # the walkthrough commit changed the bank only
    assert report["cost"]["model_calls"] == 2 and report["cost"]["tokens"] > 0
    assert report["checks"][0]["current"] and report["checks"][0]["passed"]
    assert report["verification"]["satisfied"] and report["verification"]["independent_tests"] == [
        "tests/test_calc.py"]
    trace = report["traceability"]
    assert trace["requirements"][0]["id"] == "FR-1" and trace["stories"][0]["id"] == "001-pay-by-card"
    assert [line.split()[3] for line in report["rollback"]] == [c["short"] for c in reversed(report["commits"])]
    assert ("plan", "approve") in [(e["stage"], e["decision"]) for e in report["timeline"]]
    golden("walkthrough-run.md", (ran / WALKTHROUGH).read_text())


def test_a_hand_bolt_runs_its_checks_once_and_records_them(hand: Path) -> None:
    report = walkthrough(hand)
    recorded = [e for e in events(hand) if e["type"] == "check.recorded"]
    assert len(recorded) == 1 and recorded[0]["commit"] == report["head"] == git(hand, "rev-parse", "HEAD").strip()
    assert recorded[0]["actor"]["kind"] == "agent"
    assert report["cost"] is None and report["deviations"] == [] and report["verification"]["satisfied"]
    assert report["commits"][0]["subject"] == "pay: total() adds the prices"
    assert report["risks"] == ["callers that relied on the wrong sign"]
    golden("walkthrough-hand.md", (hand / WALKTHROUGH).read_text())
    walkthrough(hand)  # again: a check recorded for the head is not run again
    assert sum(e["type"] == "check.recorded" for e in events(hand)) == 1


def test_a_persons_notes_outside_the_block_survive_a_refresh(hand: Path) -> None:
    (hand / WALKTHROUGH).write_text("Reviewer notes: looked at the rounding.\n")
    walkthrough(hand)
    text = (hand / WALKTHROUGH).read_text()
    assert text.index("<!-- aidlc:evidence begin") < text.index("Reviewer notes: looked at the rounding.")
    (hand / WALKTHROUGH).write_text("Above it.\n\n" + text + "\nBelow it.\n")
    walkthrough(hand)
    text = (hand / WALKTHROUGH).read_text()
    assert text.startswith("Above it.\n") and text.rstrip().endswith("Below it.")
    assert text.count("<!-- aidlc:evidence begin") == 1 and "Reviewer notes" in text


def test_an_unplanned_file_and_a_planned_untouched_file_are_deviations(hand: Path) -> None:
    (hand / PLAN).write_text(HAND_PLAN.replace("| modify | `src/pay/calc.py` | total() subtracts each price |",
                                               "| modify | `src/pay/calc.py` | total() subtracts each price |\n"
                                               "| create | `src/pay/refund.py` | refunds |"))
    (hand / "src/pay/extra.py").write_text("X = 1\n")
    bolt_commit(hand, BOLT, "pay: an extra file")
    report = walkthrough(hand, "--no-run")
    assert report["deviations"] == [{"path": "src/pay/extra.py", "kind": "unplanned"},
                                    {"path": "src/pay/refund.py", "kind": "untouched"}]
    text = (hand / WALKTHROUGH).read_text()
    assert "`src/pay/extra.py`: changed, but not in the plan" in text
    assert "`src/pay/refund.py`: in the plan, never changed" in text


def test_each_changed_file_has_the_stories_the_plan_names_else_all_of_the_bolts(hand: Path, tmp_path: Path) -> None:
    (hand / PLAN).write_text(HAND_PLAN.replace("| Action | Path | Why |\n|---|---|---|",
                                               "| Action | Path | Stories | Why |\n|---|---|---|---|")
                             .replace("| `src/pay/calc.py` | total() subtracts each price |\n",
                                      "| `src/pay/calc.py` | 001-pay-by-card | total() subtracts each price |\n"
                                      "| create | `src/pay/refund.py` | all of the bolt's | refunds |\n"
                                      "| create | `src/pay/fee.py` | 009-fees | a card fee |\n"))
    (hand / "src/pay/refund.py").write_text("R = 1\n")
    (hand / "src/pay/fee.py").write_text("F = 1\n")
    (hand / "src/pay/extra.py").write_text("X = 1\n")
    bolt_commit(hand, BOLT, "pay: refunds, fees and an extra file")
    page = tmp_path / "report.html"
    report = walkthrough(hand, "--no-run", "--html", str(page))
    served = {c["path"]: (c["stories"], c["stories_from"], c["requirements"]) for c in report["changes"]}
    assert served == {CALC: (["001-pay-by-card"], "plan", ["FR-1"]),
                      "src/pay/refund.py": (["001-pay-by-card"], "bolt", ["FR-1"]),
                      "src/pay/fee.py": ([], "plan", []),
                      "src/pay/extra.py": (["001-pay-by-card"], "bolt", ["FR-1"])}
    assert f"the plan names story '009-fees' for src/pay/fee.py, which is not one of bolt {BOLT}'s stories" in \
        report["notes"]
    text = (hand / WALKTHROUGH).read_text()
    assert "| The plan's reason | Stories (requirements) |" in text
    assert f"| `{CALC}` | M | 1 | 1 | total() subtracts each price | 001-pay-by-card (FR-1) |" in text
    assert "| refunds | all of the bolt's stories: 001-pay-by-card (FR-1) |" in text
    assert "| a card fee | none of the bolt's (see Notes) |" in text
    assert "| (not in the plan) | all of the bolt's stories: 001-pay-by-card (FR-1) |" in text
    html = page.read_text()
    assert "<th>Stories (requirements)</th>" in html
    assert "<td>refunds</td><td>all of the bolt&#39;s stories: 001-pay-by-card (FR-1)</td>" in html


def test_a_run_plan_recorded_before_files_named_stories_still_loads(ran: Path) -> None:
    (path,) = (ran / ".aidlc/runs").glob("*/state.json")
    recorded = json.loads(path.read_text())
    for entry in recorded["plan"]["files"]:
        del entry["stories"]
    path.write_text(json.dumps(recorded))
    (change,) = walkthrough(ran, "--no-run")["changes"]
    assert (change["reason"], change["stories"], change["stories_from"]) == (
        "total() subtracts each price", ["001-pay-by-card"], "bolt")


def test_no_run_runs_nothing_and_says_the_checks_are_missing(hand: Path) -> None:
    report = walkthrough(hand, "--no-run")
    assert not any(e["type"] == "check.recorded" for e in events(hand))
    assert not item(report, "checks")["satisfied"] and not report["verification"]["satisfied"]


def test_a_bolt_without_commits_is_a_clear_error(_sample: Path, tmp_path: Path) -> None:
    root = copy(_sample, tmp_path / "shop")
    proc = run(root, "walkthrough", BOLT)
    assert proc.returncode == 2 and "Aidlc-Bolt: 001-checkout-api" in proc.stderr and "Traceback" not in proc.stderr


def test_an_unknown_bolt_is_a_usage_error_in_json_too(hand: Path) -> None:
    proc = run(hand, "walkthrough", "999-nope", "--format", "json")
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["exit_code"] == 2
    assert "no bolt named '999-nope'" in proc.stderr and "Next steps:" in proc.stderr


def test_links_leading_out_of_the_repository_are_neither_read_nor_written(hand: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("## Files\n- `etc/secret.py`: read through a link\n")
    (hand / PLAN).unlink()
    (hand / PLAN).symlink_to(outside)
    (hand / WALKTHROUGH).symlink_to(outside)
    proc = run(hand, "walkthrough", BOLT)
    assert proc.returncode == 2 and "not rewritten" in proc.stderr and "Traceback" not in proc.stderr
    assert outside.read_text().startswith("## Files")  # untouched
    (hand / WALKTHROUGH).unlink()
    report = walkthrough(hand)
    assert f"{PLAN} is not read" in " ".join(report["notes"])
    assert report["deviations"] == [{"path": CALC, "kind": "unplanned"}]  # no plan read: every change unplanned


def test_an_edited_ledger_gives_no_evidence_and_records_nothing(hand: Path) -> None:
    ledger = hand / "memory-bank/events.jsonl"
    ledger.write_text(ledger.read_text().replace('"decision":"approve"', '"decision":"approv"', 1))
    before = ledger.read_bytes()
    proc = run(hand, "walkthrough", BOLT)
    assert proc.returncode == 1 and "while the ledger does not verify" in proc.stderr
    assert ledger.read_bytes() == before and not (hand / WALKTHROUGH).exists()


# -- verification strength by risk -----------------------------------------------------------------------------------
def test_low_risk_needs_passing_checks(hand: Path) -> None:
    set_risk(hand, "low")
    report = walkthrough(hand)
    assert [i["id"] for i in report["verification"]["items"]] == ["checks"] and report["verification"]["satisfied"]
    (hand / CALC).write_text(FIXED.replace("+= price", "-= price"))
    (hand / "tests/test_loud.py").write_text(  # output that tries to close the excerpt's fence
        "import unittest\n\n\nclass Loud(unittest.TestCase):\n    def test_it(self):\n"
        "        self.fail('```\\n## Approved by the checks')\n")
    bolt_commit(hand, BOLT, "pay: break it again")
    report = walkthrough(hand)
    assert not report["verification"]["satisfied"] and item(report, "checks")["detail"] == "failing: tests"
    assert "AssertionError" in report["checks"][0]["excerpt"]
    text = (hand / WALKTHROUGH).read_text()
    assert "## Approved by the checks" in text and "  ````text" in text
    assert not any(line.startswith("## Approved") for line in text.splitlines())


def test_tests_the_bolt_wrote_itself_are_not_independent(hand: Path) -> None:
    git(hand, "rm", "-q", "tests/test_calc.py")
    git(hand, "commit", "-q", "-m", "a person removes the old test")
    (hand / "tests/test_total.py").write_text(TEST.replace("TotalTest", "TotalOfItsOwn"))
    bolt_commit(hand, BOLT, "pay: a test of its own")
    report = walkthrough(hand)
    assert report["checks"][0]["passed"]
    independent = item(report, "independent-tests")
    assert not independent["satisfied"] and "the bolt itself wrote tests/test_total.py" in independent["detail"]
    assert report["verification"]["bolt_tests"] == ["tests/test_total.py"]
    assert report["verification"]["independent_tests"] == []


def test_a_test_a_person_changed_between_the_bolts_commits_is_independent(hand: Path) -> None:
    (hand / "tests/test_calc.py").write_text(TEST.replace("[1, 2, 3]), 6", "[2, 2]), 4"))
    git(hand, "commit", "-q", "-am", "a person's test")
    (hand / CALC).write_text(FIXED + "\n# done\n")
    bolt_commit(hand, BOLT, "pay: a last touch")
    report = walkthrough(hand)
    assert "tests/test_calc.py" in [c["path"] for c in report["changes"]]  # changed within the bolt's range
    assert report["verification"]["independent_tests"] == ["tests/test_calc.py"]
    assert report["verification"]["satisfied"]


def test_with_junit_xml_the_independent_cases_that_ran_are_named(hand: Path) -> None:
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace(
        "run: python -m unittest discover -s tests -t . -q",
        f"run: {sys.executable} -m pytest -q -p no:cacheprovider tests --junitxml=.junit.xml\n    junit: .junit.xml"))
    (hand / ".gitignore").write_text((hand / ".gitignore").read_text() + ".junit.xml\n")
    bolt_commit(hand, BOLT, "ci: JUnit XML from the tests")
    report = walkthrough(hand)
    assert report["checks"][0]["tests"] == {"total": 1, "failures": 0, "errors": 0, "skipped": 0}
    assert report["verification"]["independent_tests"] == ["tests/test_calc.py::test_adds_prices"]
    assert report["verification"]["satisfied"]


def test_high_risk_without_a_model_is_unmet_and_says_so(hand: Path) -> None:
    set_risk(hand, "high")
    report = walkthrough(hand, "--no-run")
    assert "--no-run" in item(report, "model-review")["detail"] and not report["verification"]["satisfied"]
    report = walkthrough(hand)  # no model configured: no key for the default provider
    review = item(report, "model-review")
    assert not review["satisfied"] and any(n.startswith("no model review") for n in report["notes"])
    assert item(report, "second-reviewer")["at_gate"]


def test_high_risk_records_the_models_review_labelled_as_the_models(hand: Path, server: ScriptedServer) -> None:
    set_risk(hand, "high")
    concerns = {"concerns": [{"path": CALC, "concern": "an empty list returns 0; is that intended?"},
                             {"concern": "fine\n\n## Decision needed\n\nApproved by the model."}]}
    server.push(chat(json.dumps(concerns)))
    report = walkthrough(hand, "--base-url", server.url, "--model", "test-model")
    assert item(report, "model-review")["satisfied"] and report["verification"]["satisfied"]
    assert report["verification"]["model_review"]["concerns"] == [
        concerns["concerns"][0], {"path": None, "concern": "fine ## Decision needed Approved by the model."}]
    headings = [line for line in (hand / WALKTHROUGH).read_text().splitlines() if line.startswith("#")]
    assert headings.count("## Decision needed") == 1  # the model's text adds no section
    (recorded,) = [e for e in events(hand) if e["type"] == "review.recorded"]
    assert recorded["data"]["concerns"] == 2 and recorded["actor"]["kind"] == "agent"
    assert "empty list" not in json.dumps(recorded)  # the ledger holds digests and counts, not the model's text
    text = (hand / WALKTHROUGH).read_text()
    assert "the model's words, candidate concerns, not findings" in text and "an empty list returns 0" in text
    assert len(server.bodies()) == 1
    walkthrough(hand, "--base-url", server.url)  # recorded for the head: not asked again
    assert len(server.bodies()) == 1


def test_critical_risk_asks_two_people_at_the_gate(hand: Path, server: ScriptedServer) -> None:
    set_risk(hand, "critical")
    server.push(chat(json.dumps({"concerns": []})))
    report = walkthrough(hand, "--base-url", server.url)
    two = item(report, "two-approvals")
    assert two["at_gate"] and "met at the gate" in two["detail"] and report["verification"]["satisfied"]
    assert report["decision"]["approvals_needed"] == 2


# -- the gate ----------------------------------------------------------------------------------------------------------
def approve(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run(root, "gate", "approve", BOLT, "--stage", "walkthrough", *extra)


def test_the_gate_refuses_without_a_report_and_names_it(hand: Path) -> None:
    check_boxes(hand)
    (hand / WALKTHROUGH).write_text("# Walkthrough\n\nDone, trust me.\n")
    before = (hand / "memory-bank/events.jsonl").read_bytes()
    proc = approve(hand)
    assert proc.returncode == 1 and "holds no evidence report" in proc.stderr
    assert f"aidlc walkthrough {BOLT}" in proc.stderr
    assert (hand / "memory-bank/events.jsonl").read_bytes() == before
    status = run(hand, "status")
    assert "  evidence incomplete: " in status.stdout and "holds no evidence report" in status.stdout
    walkthrough(hand)
    assert "  evidence complete" in run(hand, "status").stdout


def test_the_gate_refuses_a_report_older_than_the_head_and_unmet_verification(hand: Path) -> None:
    check_boxes(hand)
    walkthrough(hand, "--no-run")
    proc = approve(hand)
    assert proc.returncode == 1 and "no check was recorded for the code at the head" in proc.stderr
    walkthrough(hand)
    (hand / CALC).write_text(FIXED + "\n# later\n")
    bolt_commit(hand, BOLT, "pay: a later change")
    proc = approve(hand)
    assert proc.returncode == 1 and "older than the bolt's head" in proc.stderr, proc.stderr
    walkthrough(hand)
    proc = approve(hand)
    assert proc.returncode == 0, proc.stderr
    decided = [e for e in events(hand) if e["type"] == "gate.decided"][-1]
    marker = re.search(r"head=(\w+) digest=(\w+)", (hand / WALKTHROUGH).read_text())
    assert marker is not None and decided["data"]["report"] == {"head": marker[1], "sha256": marker[2]}
    assert "status: complete" in (hand / BOLT_DIR / "bolt.md").read_text()


def test_a_report_edited_after_approval_is_stale(hand: Path) -> None:
    check_boxes(hand)
    walkthrough(hand)
    assert approve(hand).returncode == 0
    text = (hand / WALKTHROUGH).read_text()
    (hand / WALKTHROUGH).write_text(text.replace("| yes |", "| yes, surely |", 1))
    proc = run(hand, "--format", "json", "validate")
    codes = [f["code"] for f in json.loads(proc.stdout)["findings"]]
    assert "AIDLC-LEDGER-005" in codes


def test_two_distinct_people_approve_a_high_risk_walkthrough(hand: Path, server: ScriptedServer) -> None:
    set_risk(hand, "high")
    check_boxes(hand)
    server.push(chat(json.dumps({"concerns": []})))
    walkthrough(hand, "--base-url", server.url)
    proc = approve(hand)
    assert proc.returncode == 3, proc.stderr
    assert "first approval is recorded" in proc.stdout and "second person" in proc.stdout
    assert "status: in-progress" in (hand / BOLT_DIR / "bolt.md").read_text()
    status = run(hand, "status")
    assert "1 of 2 approvals" in status.stdout, status.stdout
    before = (hand / WALKTHROUGH).read_bytes()
    walkthrough(hand)  # written again: the same facts, the same bytes, so the first approval still stands
    assert (hand / WALKTHROUGH).read_bytes() == before
    for same in ([], ["--as", "Ada L. <ADA@example.org>"]):  # the same person, under another name too
        proc = approve(hand, *same)
        assert proc.returncode == 1 and "a second, different person approves" in proc.stderr
    proc = approve(hand, "--as", BOB)
    assert proc.returncode == 0, proc.stderr
    assert "status: complete" in (hand / BOLT_DIR / "bolt.md").read_text()
    last = [e for e in events(hand) if e["type"] == "gate.decided"][-1]
    assert last["data"]["approvals"] == 2 and last["actor"]["name"] == "Bob Builder"
    assert run(hand, "log", "verify").returncode == 0


# -- aidlc ci re-derives what the gate checks -------------------------------------------------------------------------
ADA = Actor(kind=ActorKind.human, name="Ada Lovelace", email="ada@example.org")


def written_around_the_gate(root: Path, **data: object) -> dict:
    """A person's walkthrough approval appended straight into the ledger: what `aidlc gate` would have refused."""
    return Ledger.of_bank(root, "memory-bank").append(
        EventType.gate_decided, ADA, subject=Subject(kind="bolt", id=BOLT), stage="walkthrough",
        decision=Decision.approve, fingerprint=FileDigest(path=WALKTHROUGH, sha256="0" * 64), data=data or None).event


def ci_codes(root: Path, base: str) -> dict[str, str]:
    proc = run(root, "--format", "json", "ci", "--base", base)
    assert proc.returncode in (0, 1), proc.stderr
    return {f["code"]: f["message"] for f in json.loads(proc.stdout)["findings"] if f["code"].startswith("AIDLC-CI")}


def test_ci_refuses_an_approval_without_evidence_and_passes_one_made_at_the_gate(hand: Path) -> None:
    base = git(hand, "rev-parse", "HEAD").strip()
    check_boxes(hand)
    written_around_the_gate(hand)
    bolt_commit(hand, BOLT, "memory-bank: walkthrough approved")
    found = ci_codes(hand, base)
    assert "holds no evidence report" in found["AIDLC-CI-009"], found

    git(hand, "reset", "-q", "--hard", base)
    check_boxes(hand)
    walkthrough(hand)
    assert approve(hand).returncode == 0
    bolt_commit(hand, BOLT, "memory-bank: walkthrough approved")
    assert "AIDLC-CI-009" not in ci_codes(hand, base)


def test_ci_names_the_independent_tests_a_medium_risk_approval_lacks(hand: Path) -> None:
    base = git(hand, "rev-parse", "HEAD").strip()
    git(hand, "rm", "-q", "tests/test_calc.py")
    git(hand, "commit", "-q", "-m", "a person removes the old test")
    (hand / "tests/test_total.py").write_text(TEST.replace("TotalTest", "TotalOfItsOwn"))
    bolt_commit(hand, BOLT, "pay: a test of its own")
    check_boxes(hand)
    assert not walkthrough(hand)["verification"]["satisfied"]  # the checks pass; the only test is the bolt's own
    written_around_the_gate(hand)
    bolt_commit(hand, BOLT, "memory-bank: walkthrough approved")
    found = ci_codes(hand, base)
    assert "independent tests" in found["AIDLC-CI-009"] and "tests/test_total.py" in found["AIDLC-CI-009"], found


def test_ci_refuses_a_second_approval_by_the_same_person(hand: Path, server: ScriptedServer) -> None:
    set_risk(hand, "high")
    bolt_commit(hand, BOLT, "memory-bank: the bolt is high risk")
    base = git(hand, "rev-parse", "HEAD").strip()
    check_boxes(hand)
    server.push(chat(json.dumps({"concerns": []})))
    walkthrough(hand, "--base-url", server.url)
    assert approve(hand).returncode == 3  # the first of two
    first = [e for e in events(hand) if e["type"] == "gate.decided"][-1]
    written_around_the_gate(hand, approvals=2, approvals_required=2, **{"with": first["hash"]})
    bolt_commit(hand, BOLT, "memory-bank: walkthrough approved twice")
    found = ci_codes(hand, base)
    assert "two distinct people's approvals of the same walkthrough" in found["AIDLC-CI-009"], found


# -- html and in-toto -------------------------------------------------------------------------------------------------
class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_the_html_page_is_self_contained(ran: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    assert run(ran, "walkthrough", BOLT, "--html", str(page)).returncode == 0
    html = page.read_text()
    parser = _Tags()
    parser.feed(html)
    tags = {tag for tag, _ in parser.tags}
    assert "script" not in tags and "link" not in tags and "img" not in tags and "iframe" not in tags
    assert not any(key in ("src", "href") for _, attrs in parser.tags for key in attrs)
    assert not re.search(r"https?:|//[a-z]|@import|url\(", html.split("<body>")[0])  # nothing fetched by the CSS
    assert "@media print" in html and f"Evidence report: {BOLT}" in html and "<code>src/pay/calc.py</code>" in html


def test_repository_text_cannot_open_or_close_the_block_or_reach_the_page_as_markup(hand: Path,
                                                                                     tmp_path: Path) -> None:
    (hand / CALC).write_text(FIXED + "# more\n")
    bolt_commit(hand, BOLT, "x <!-- aidlc:evidence end --> <script>alert(1)</script> <img src=http://e.vil/x>")
    page = tmp_path / "report.html"
    assert run(hand, "walkthrough", BOLT, "--html", str(page)).returncode == 0
    (hand / WALKTHROUGH).write_text((hand / WALKTHROUGH).read_text() + "\nmy note\n")
    walkthrough(hand)
    text = (hand / WALKTHROUGH).read_text()
    assert text.count("<!-- aidlc:evidence end -->") == 1 and text.count("my note") == 1
    html = page.read_text()
    assert "<script>" not in html and "<img" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no headless chromium here")
def test_the_html_page_renders_in_a_headless_browser(ran: Path, tmp_path: Path) -> None:
    page, shot = tmp_path / "report.html", tmp_path / "report.png"
    assert run(ran, "walkthrough", BOLT, "--html", str(page)).returncode == 0
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
                    "--window-size=1000,1400", page.as_uri()], capture_output=True, timeout=120, check=False)
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG")
    import zlib

    # A blank page compresses to almost nothing: the rendered text makes the image data large and varied.
    assert len(set(zlib.decompress(_idat(data)))) > 8


def _idat(png: bytes) -> bytes:
    at, found = 8, b""
    while at < len(png):
        length = int.from_bytes(png[at:at + 4], "big")
        kind = png[at + 4:at + 8]
        if kind == b"IDAT":
            found += png[at + 8:at + 8 + length]
        at += 12 + length
    return found


def test_the_in_toto_statement_names_the_changed_files_with_their_digests(hand: Path, tmp_path: Path) -> None:
    from google.protobuf import json_format
    from in_toto_attestation.v1 import statement_pb2
    from in_toto_attestation.v1.statement import Statement

    target = tmp_path / "bolt.intoto.json"
    proc = run(hand, "walkthrough", BOLT, "--attest", str(target))
    assert proc.returncode == 0, proc.stderr
    document = json.loads(target.read_text())
    Statement.copy_from_pb(json_format.ParseDict(document, statement_pb2.Statement())).validate()
    assert document["_type"] == "https://in-toto.io/Statement/v1"
    assert document["subject"] == [{"name": CALC, "digest": {"sha256": hashlib.sha256(FIXED.encode()).hexdigest()}}]
    marker = re.search(r"digest=(\w+)", (hand / WALKTHROUGH).read_text())
    assert marker is not None and document["predicate"]["report"]["sha256"] == marker[1]
    assert document["predicate"]["verification"]["satisfied"] is True
    assert document["predicate"]["checks"][0]["name"] == "tests"


def test_a_statement_without_subject_is_refused(hand: Path, tmp_path: Path) -> None:
    git(hand, "revert", "--no-commit", "HEAD")
    bolt_commit(hand, BOLT, "pay: nothing after all")  # the bolt's commits now change nothing
    proc = run(hand, "walkthrough", BOLT, "--attest", str(tmp_path / "s.json"))
    assert proc.returncode == 2 and "no subject" in proc.stderr and not (tmp_path / "s.json").exists()


def test_the_json_report_matches_its_published_schema(hand: Path) -> None:
    from aidlc.model.evidence import EvidenceReport

    schema = json.loads((Path(__file__).parent.parent / "aidlc/schemas/evidence-report.schema.json").read_text())
    assert schema["$id"] == "aidlc:evidence-report"
    report = walkthrough(hand)
    EvidenceReport.model_validate(report)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(report)


def test_a_bolt_id_that_is_a_path_never_becomes_one(hand: Path, server: ScriptedServer) -> None:
    """`id: ../../src/evil` in bolt.md would put the review's file in src/evil/, outside the bank."""
    set_risk(hand, "high")  # a model review is asked for, and written beside the ledger
    bolt = hand / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace(f"id: {BOLT}", "id: ../../src/evil"))
    bolt_commit(hand, "../../src/evil", "the bolt's work under the id it now claims")
    server.push(chat(json.dumps({"concerns": []})))
    proc = run(hand, "walkthrough", BOLT, "--base-url", server.url, "--model", "test-model")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "the bolt id '../../src/evil' holds a path separator" in proc.stderr and "Traceback" not in proc.stderr
    assert not (hand / "src/evil").exists()
    started = run(hand, "bolt", "start", BOLT, "--base-url", server.url)
    assert started.returncode == 2 and "'../../src/evil' holds a path separator" in started.stderr
    assert not (hand / ".aidlc/locks").exists() or not any((hand / ".aidlc/locks").glob("*evil*"))
