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
from dataclasses import replace
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest

from aidlc.bolt import check_runs, check_settings
from aidlc.events.ledger import Ledger
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from tests import forge
from tests.bolt_sample import (
    BOLT,
    BOLT_DIR,
    BUGGY,
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
from tests.evidence_sample import bolt_commit, person_commit
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


def test_a_persons_plan_from_its_template_is_read_its_risks_and_estimate_too(_sample: Path, tmp_path: Path) -> None:
    root = copy(_sample, tmp_path / "shop")
    made = run(root, "new", "plan", "001")
    assert made.returncode == 0 and f"+ {PLAN}" in made.stdout, made.stderr
    again = run(root, "new", "plan", BOLT)
    assert again.returncode == 2 and f"{PLAN} exists already" in again.stderr and f"edit {PLAN}" in again.stderr
    template = (root / PLAN).read_text()
    assert "## Files" in template and "Estimated risk: medium" in template and "- (none named)" in template
    (root / PLAN).write_text(template.replace("| modify | `path/to/file` |", f"| modify | `{CALC}` |")
                             .replace("Estimated risk: medium", "Estimated risk: high")
                             .replace("- (none named)", "- callers that relied on the wrong sign"))
    assert run(root, "gate", "approve", BOLT, "--stage", "plan").returncode == 0
    (root / CALC).write_text(FIXED)
    bolt_commit(root, BOLT, "pay: total() adds the prices")
    report = walkthrough(root, "--no-run")
    assert report["risk"] == "high"  # the plan's estimate over the bolt's medium
    assert report["risks"] == ["callers that relied on the wrong sign"]
    assert "unplanned" not in [d["kind"] for d in report["deviations"]]
    (root / PLAN).write_text(template.replace("Estimated risk: medium", "Estimated risk: huge"))
    report = walkthrough(root, "--no-run")
    assert report["risk"] == "medium" and report["risks"] == []  # (none named) names no risk
    assert any("'Estimated risk: huge' is no risk level" in note for note in report["notes"])


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


def set_risk(root: Path, risk: str, was: str = "medium", *, approve: bool = True) -> None:
    """A person sets the bolt's risk and (`approve`) approves its intent's bolt plan and its plan again."""
    bolt = root / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace(f"risk: {was}", f"risk: {risk}"))
    if approve:
        for subject, stage in (("001-checkout-payments", "bolt-plan"), (BOLT, "plan")):
            proc = run(root, "gate", "approve", subject, "--stage", stage)
            assert proc.returncode == 0, proc.stderr


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
                           "commits", "verification", "risks", "rollback", "timeline", "cost", "run", "decision",
                           "notes"}
    assert report["version"] == 1 and report["deviations"] == []
    assert [c["path"] for c in report["changes"]] == [CALC]
    assert report["changes"][0]["reason"] == "total() subtracts each price"
    assert (report["changes"][0]["added"], report["changes"][0]["removed"]) == (1, 1)
    assert [c["trailers"]["Aidlc-Stage"] for c in report["commits"]] == ["execute", "walkthrough"]
    assert report["head"] == report["commits"][0]["sha"]  # the walkthrough commit changed the bank only
    assert report["cost"]["model_calls"] == 2 and report["cost"]["tokens"] > 0 and report["cost"]["repairs"] == 0
    assert report["run"]["model"] == "test-model" and report["run"]["status"] is None  # waiting: not ended
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


def test_a_persons_notes_that_are_not_utf8_stop_the_refresh_and_stay_as_they_are(hand: Path) -> None:
    """Before: the refresh decoded them with replacements and saved U+FFFD over the person's byte, saying nothing."""
    walkthrough(hand)
    notes = "Notes: caf\xe9 au lait.\n\n".encode("latin-1") + (hand / WALKTHROUGH).read_bytes()
    (hand / WALKTHROUGH).write_bytes(notes)
    proc = run(hand, "walkthrough", BOLT, "--no-run")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{WALKTHROUGH}:1: not rewritten: byte 0xe9 at offset 10 is not UTF-8" in proc.stderr
    assert f"save {WALKTHROUGH} as UTF-8 text, then run aidlc walkthrough {BOLT}" in proc.stderr
    assert (hand / WALKTHROUGH).read_bytes() == notes
    (hand / WALKTHROUGH).write_bytes(notes.decode("latin-1").encode("utf-8"))  # the step: saved as UTF-8
    assert run(hand, "walkthrough", BOLT, "--no-run").returncode in (0, 1)
    assert (hand / WALKTHROUGH).read_text(encoding="utf-8").startswith("Notes: caf\xe9 au lait.")


def test_an_unplanned_file_and_a_planned_untouched_file_are_deviations(hand: Path) -> None:
    (hand / PLAN).write_text(HAND_PLAN.replace("| modify | `src/pay/calc.py` | total() subtracts each price |",
                                               "| modify | `src/pay/calc.py` | total() subtracts each price |\n"
                                               "| create | `src/pay/refund.py` | refunds |"))
    (hand / "src/pay/extra.py").write_text("X = 1\n")
    bolt_commit(hand, BOLT, "pay: an extra file")
    report = walkthrough(hand, "--no-run")
    assert report["deviations"] == [{"path": "src/pay/extra.py", "kind": "unplanned", "detail": None},
                                    {"path": "src/pay/refund.py", "kind": "untouched", "detail": None}]
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
    assert "no bolt '999-nope' in memory-bank/bolts/; there are:" in proc.stderr and "Next steps:" in proc.stderr


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
    # no plan read: every change unplanned
    assert report["deviations"] == [{"path": CALC, "kind": "unplanned", "detail": None}]


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


NEUTER = "import unittest\n\nunittest.TestCase.assertEqual = lambda *a, **k: None\n"


def independent_unmet(root: Path, message: str) -> tuple[dict, dict]:
    """The bolt commits the work tree, the boxes ticked: its checks pass, and its independent tests are unmet (the
    report, and that item)."""
    bolt_commit(root, BOLT, message)
    check_boxes(root)
    report = walkthrough(root)
    assert item(report, "checks")["satisfied"]
    independent = item(report, "independent-tests")
    assert not independent["satisfied"] and not report["verification"]["satisfied"]
    return report, independent


@pytest.mark.parametrize("harness", ["tests/__init__.py", "conftest.py", "tests/helpers.py"])
def test_a_bolt_that_changes_what_the_runner_loads_with_the_tests_gets_no_independent_credit(
        hand: Path, harness: str) -> None:
    """`unittest.TestCase.assertEqual = lambda *a, **k: None` in a file the runner loads with the tests (a helper
    module the base's test imports, too): the test of the base passes on the buggy code, the bolt never touched it.
    Before: "independent tests ... passed", and the walkthrough gate approved."""
    if harness == "conftest.py":  # loaded by pytest only
        use_junit(hand, f"{sys.executable} -m pytest -q -p no:cacheprovider tests --junitxml=.junit.xml")
    if harness == "tests/helpers.py":  # a person's helper, which the base's test imports
        (hand / harness).write_text("PRICES = [1, 2, 3]\n")
        (hand / "tests/test_calc.py").write_text("from tests.helpers import PRICES  # noqa: F401\n" + TEST)
        person_commit(hand, "tests: a helper")
    (hand / CALC).write_text(BUGGY)
    (hand / harness).write_text(((hand / harness).read_text() if (hand / harness).exists() else "") + NEUTER)
    _, independent = independent_unmet(hand, "pay: make the tests agree")
    assert f"the bolt's own commits changed {harness}, which the test runner loads with the tests" in \
        independent["detail"]
    proc = approve(hand)
    assert proc.returncode == 1 and harness in proc.stderr


@pytest.mark.parametrize("settings", ["pyproject.toml", "setup.cfg", "pytest.toml"])
def test_a_bolt_that_deselects_the_tests_in_the_runners_settings_gets_no_independent_credit(
        hand: Path, settings: str) -> None:
    """pytest reads its options from pyproject.toml's [tool.pytest.ini_options] and setup.cfg's [tool:pytest], files
    a bolt changes for much else, and from a pytest.toml the bolt may add: `--deselect` there stops the base's test,
    a test of the bolt's own passes, and the runner's closing line counted it. Before: "independent tests ...
    passed" on the buggy code."""
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace("run: python -m unittest discover -s tests -t . -q",
                                                 f"run: {sys.executable} -m pytest -q -p no:cacheprovider tests"))
    deselect = "tests/test_calc.py::TotalTest::test_adds_prices"
    added = {"pyproject.toml": f"addopts = '--deselect {deselect}'\n",
             "setup.cfg": f"addopts = --deselect {deselect}\n",
             "pytest.toml": f"[pytest]\naddopts = ['--deselect', '{deselect}']\n"}[settings]
    if settings != "pytest.toml":  # a person's settings, which the bolt adds to
        (hand / settings).write_text("[tool.pytest.ini_options]\nminversion = '7'\n" if settings == "pyproject.toml"
                                     else "[metadata]\nname = shop\n\n[tool:pytest]\nminversion = 7\n")
    person_commit(hand, "ci: the tests run under pytest")
    (hand / CALC).write_text(BUGGY)
    (hand / "tests/test_more.py").write_text("def test_more():\n    assert True\n")
    (hand / settings).write_text(((hand / settings).read_text() if (hand / settings).exists() else "") + added)
    _, independent = independent_unmet(hand, "pay: make the tests agree")
    part = {"pyproject.toml": "pyproject.toml ([tool.pytest])", "setup.cfg": "setup.cfg ([tool:pytest])",
            "pytest.toml": "pytest.toml"}[settings]
    assert f"the bolt's own commits changed {part}, which the test runner loads" in independent["detail"]
    proc = approve(hand)
    assert proc.returncode == 1 and settings in proc.stderr


def test_a_bolt_that_changes_the_settings_a_runners_settings_import_gets_no_independent_credit(hand: Path) -> None:
    """jest.config.js spreading `./config/jest.base.js`: the bolt that adds `testPathIgnorePatterns` there stops the
    base's tests, known by no runner's file name. Before: "independent tests ... passed"."""
    (hand / "config").mkdir()
    (hand / "config/jest.base.js").write_text("module.exports = {testEnvironment: 'node'};\n")
    (hand / "jest.config.js").write_text("const base = require('./config/jest.base');\nmodule.exports = {...base};\n")
    person_commit(hand, "ci: jest's settings")
    (hand / CALC).write_text(FIXED)
    (hand / "config/jest.base.js").write_text("module.exports = {testPathIgnorePatterns: ['calc']};\n")
    bolt_commit(hand, BOLT, "pay: fewer tests")
    check_boxes(hand)
    independent = item(walkthrough(hand), "independent-tests")
    assert not independent["satisfied"]
    assert "the bolt's own commits changed config/jest.base.js, which the test runner loads" in independent["detail"]


@pytest.mark.parametrize(("path", "before", "after", "parts"), [
    ("package.json", '{"scripts": {"test": "jest", "lint": "eslint ."}}', '{"scripts": {"test": "jest", "lint": "x"}}',
     []),
    ("package.json", '{"scripts": {"test": "jest"}}', '{"scripts": {"test": "jest --testPathIgnorePatterns calc"}}',
     ["scripts.test"]),
    ("package.json", '{"name": "shop"}', '{"name": "shop", "jest": {"testPathIgnorePatterns": ["calc"]}}', ["jest"]),
    ("web/setup.cfg", "[testenv]\ncommands = pytest\n", "[testenv]\ncommands = true\n", ["[testenv]"]),
    ("pyproject.toml", "[tool.tox]\nenv_list = ['py311']\n", "[tool.tox]\nenv_list = []\n", ["[tool.tox]"]),
    ("pyproject.toml", "[project]\nname = 'shop'\n", "[project\nname = 'shop'\n",
     ["all of it: a version of it does not parse"]),
    ("jest.config.js", None, "module.exports = {}\n", [""]),
    ("package.json", "{}", '{"jest": ' + "[" * 100_000 + "]" * 100_000 + "}",
     ["all of it: a version of it does not parse"]),
    ("pyproject.toml", "", "[tool.pytest]\nx = " + "[" * 100_000 + "]" * 100_000 + "\n",
     ["all of it: a version of it does not parse"]),
])
def test_only_the_runners_part_of_a_shared_settings_file_counts(path: str, before: str | None, after: str,
                                                                parts: list[str]) -> None:
    assert check_settings.changed_parts(path, before.encode() if before is not None else None, after.encode(),
                                        check_settings.TEST_RUNNERS) == parts


@pytest.mark.parametrize(("run", "tools"), [
    ("mypy src", [("mypy", ())]), (f"{sys.executable} -m pytest --cov=src -q", [("pytest", ()), ("coverage", ())]),
    ("npx eslint . && tsc --noEmit", [("eslint", ("eslintConfig",)), ("tsc", ())]),
    ("npm test", [("npm", ("scripts.pretest", "scripts.test", "scripts.posttest"))]),
    ("yarn --silent run check", [("yarn", ("scripts.precheck", "scripts.check", "scripts.postcheck"))]),
    ("npm --prefix web test", [("npm", ("scripts.pretest", "scripts.test", "scripts.posttest"))]),
    ("pnpm --filter web lint", [("pnpm", ("scripts.prelint", "scripts.lint", "scripts.postlint", "workspaces"))]),
    ("./scripts/check.sh", [("sh", ())]), ("pre-commit run -a", [("pre-commit", ())]), ("bash -e ci/lint", []),
    ("bash ci/lint && . ./env", [("sh", ())] * 2),
    ("bash -c 'ruff check src && mypy src'", [("ruff", ()), ("mypy", ())]), ("sh -e -xc 'ruff check'", [("ruff", ())]),
    ("echo -c 'ruff check'", []),
    ("eslint . && ./gradlew check", [("eslint", ("eslintConfig",)), ("sh", ())]),
    ("python scripts/check.py", [("python", ())]),
    ("bundle exec rubocop --parallel", [("rubocop", ())]), ("cargo clippy -- -D warnings", [("clippy", ())]),
    ("uvx ty check && typos", [("ty", ()), ("typos", ())]),
    ("npx prettier --check . && black --check src", [("prettier", ("prettier",)), ("black", ())]),
])
def test_the_tools_a_check_runs_are_named_by_its_words(run: str, tools: list[tuple[str, tuple[str, ...]]]) -> None:
    found = check_runs.tools_run(check_runs.command_words({"run": run}))
    assert [(tool.name, tool.package) for tool in found] == tools


WORKSPACES = {
    "package.json": json.dumps({"workspaces": {"packages": ["packages/*", "./tools/lint/"]},
                                "scripts": {"lint": "pyright"}}).encode(),
    "pnpm-workspace.yaml": b"packages:\n  - 'apps/*'\n  - '!apps/old'\n",
    "packages/web/package.json": json.dumps({"name": "@shop/web", "scripts": {"lint": "eslint src"}}).encode(),
    "tools/lint/package.json": json.dumps({"name": "lint-kit", "scripts": {"lint": "tsc --noEmit"}}).encode(),
    "apps/api/package.json": json.dumps({"name": "api", "scripts": {"lint": "vitest run"}}).encode(),
    "packages/web-old/package.json": json.dumps({"name": "web", "scripts": {"lint": "mocha"}}).encode(),
}


@pytest.mark.parametrize(("run", "tool"), [
    ("npm run lint -w packages/web", "eslint"), ("npm run lint --workspace=@shop/web", "eslint"),
    ("npm run lint --workspace lint-kit", "tsc"), ("pnpm --filter api lint", "vitest"),
    ("pnpm -F ./packages/web lint", "eslint"), ("pnpm --filter '@shop/web...' lint", "eslint"),
    ("yarn workspace @shop/web lint", "eslint"), ("yarn workspace @shop/web run lint", "eslint"),
    ("bun run --filter=api lint", "vitest"), ("pnpm -w lint", "pyright"), ("npm run lint", "pyright"),
    ("npm run lint -w web", None),  # no workspace of that folder or name (packages/web-old is named web, not in */web)
])
def test_the_scripts_of_the_workspace_a_command_names_are_what_it_runs(run: str, tool: str | None) -> None:
    """`npm run lint -w web` runs the `lint` script of the workspace web, not the root's: found by its folder, or by
    its name among the folders the root's `workspaces` or pnpm-workspace.yaml list."""
    runs = check_runs.tools_of([{"name": "lint", "run": run}], WORKSPACES.get)
    assert [found.name for found in runs if found.name not in ("npm", "pnpm", "yarn", "bun")] == \
        ([tool] if tool else [])


@pytest.mark.parametrize(("run", "tools"), [
    ("npm run lint --workspaces", ["pyright", "eslint", "tsc", "vitest", "mocha"]),
    ("pnpm -r lint", ["pyright", "eslint", "tsc", "vitest", "mocha"]),
    ("pnpm --filter './packages/*' lint", ["pyright", "eslint", "tsc", "vitest", "mocha"]),  # each, a superset
    ("turbo run @shop/web#lint", ["eslint"]), ("turbo lint-kit#lint", ["tsc"]), ("turbo run //#lint", ["pyright"]),
    ("nx run-many --targets=build,lint --projects web", ["pyright", "eslint", "tsc", "vitest", "mocha"]),
    ("turbo run build", []),  # no workspace has that script
])
def test_the_scripts_of_every_workspace_a_command_runs_are_what_it_runs(run: str, tools: list[str]) -> None:
    """`pnpm -r lint`, `npm run lint --workspaces`, turbo, nx and lerna run the script in every workspace (the root's
    too, as a superset); `turbo run @shop/web#lint` one workspace's; the workspaces are the folders the root's patterns
    match among the project's files (pnpm's `!apps/old` left out, node_modules never)."""
    files = [*WORKSPACES, "apps/old/package.json", "packages/web/node_modules/x/package.json"]
    read = {**WORKSPACES, "apps/old/package.json": b'{"scripts": {"lint": "jest"}}',
            "packages/web/node_modules/x/package.json": b'{"scripts": {"lint": "ava"}}'}.get
    runs = check_runs.tools_of([{"name": "lint", "run": run}], read, lambda: files)
    assert [found.name for found in runs if found.name not in ("npm", "pnpm", "turbo", "nx")] == tools


def test_the_files_a_runner_reads_that_do_not_parse_are_named_with_why() -> None:
    """Each format by its name: a Makefile or shell script reads by lines and is never named; a file not there is
    not either (the runner then fails the check itself)."""
    files = {"pyproject.toml": b"[tool.pdm.scripts\nlint = 'ruff'", "tox.ini": b"[testenv:lint\ncommands = ruff",
             "ci/check.py": b"import subprocess\nsubprocess.run(['ruff' 'check'\n", "Makefile": b"lint:\n\t\x00\xff",
             "scripts/lint.sh": b"#!/bin/sh\n((( ruff"}
    verify = [{"name": name, "run": run} for name, run in (
        ("pdm", "pdm run lint"), ("tox", "tox -e lint"), ("python", "python ci/check.py"), ("make", "make lint"),
        ("sh", "sh scripts/lint.sh"), ("npm", "npm run lint"), ("also-pdm", "pdm run types"))]
    assert [(path, names, why.split(" (")[0]) for path, names, why in check_runs.unread(verify, files.get)] == [
        ("pyproject.toml", ["pdm", "also-pdm"], "Expected ']' at the end of a table declaration"),
        ("tox.ini", ["tox"], "File contains no section headers."),
        ("ci/check.py", ["python"], "line 2: '[' was never closed")]


def test_every_workspace_is_found_within_bounds() -> None:
    """A root listing no patterns has every package.json below it as a workspace; 50 at most are read, and those
    holding a file the change touched."""
    files = [f"p{n:03}/package.json" for n in range(500)]
    reads: list[str] = []

    def read(path: str) -> bytes:
        reads.append(path)
        return b'{"scripts": {"lint": "eslint ."}}'

    runs = check_runs.tools_of([{"name": "lint", "run": "pnpm -r lint"}], lambda path: read(path), lambda: files)
    assert [tool.name for tool in runs] == ["pnpm", "eslint"]
    assert len({path for path in reads if "/" in path}) == 50
    reads.clear()  # those holding a changed file, then 50 others
    check_runs.tools_of([{"name": "lint", "run": "pnpm -r lint"}], read, lambda: files, ["p400/src/a/b.js", "p499/x"])
    assert sorted({path for path in reads if "/" in path})[-2:] == ["p400/package.json", "p499/package.json"]
    assert len({path for path in reads if "/" in path}) == 52


def test_the_tools_the_hooks_pre_commit_runs_call_are_the_checks_tools() -> None:
    """A hook by the id of a tool's (`ruff-format`: ruff), a local hook by its entry (a script's lines too); `pre-commit
    run mypy` only that hook; `-c` another configuration."""
    hooks = (b"repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.6.9\n    hooks:\n"
             b"      - id: ruff-format\n  - repo: local\n    hooks:\n      - {id: types, entry: mypy src, language: "
             b"system}\n      - {id: lint, entry: bash scripts/lint, language: system}\n      - id: [1]\n")
    files = {".pre-commit-config.yaml": hooks, "ci/hooks.yaml": hooks.replace(b"ruff-format", b"pylint"),
             "scripts/lint": b"eslint .\n"}

    def tools(run: str) -> list[str]:
        runs = check_runs.tools_of([{"name": "hooks", "run": run}], files.get)
        return sorted(tool.name for tool in runs if tool.name not in ("pre-commit", "sh"))

    assert tools("pre-commit run --all-files") == tools("prek run -a") == ["eslint", "mypy", "ruff"]
    assert tools("python -m pre_commit run types --all-files") == ["mypy"]
    assert tools("pre-commit run -c ci/hooks.yaml -a") == ["eslint", "mypy", "pylint"]
    assert check_runs.tools_of([{"name": "hooks", "run": "pre-commit run"}], {
        ".pre-commit-config.yaml": b"repos: {a: 1}\n"}.get) == {replace(
            check_settings.PRE_COMMIT, recipe_files=check_settings.PRE_COMMIT.files): ["hooks"]}  # nothing followed


TOX_INI = (b"[tox]\nenvlist = py311, lint\n\n[testenv]\ncommands = pytest {posargs}\n\n[testenv:lint]\n"
           b"commands =\n    ruff check src\n    # mypy src\n    - pyright \\\n      src\n\n"
           b"[testenv:docs]\ndeps = mkdocs\n")
LEGACY_TOX = b'[tool.tox]\nlegacy_tox_ini = """\n[testenv:lint]\ncommands = mypy src\n"""\n'


@pytest.mark.parametrize(("files", "run", "tools"), [
    ({"tox.ini": TOX_INI}, "tox -e lint", ["pyright", "ruff"]),
    ({"tox.ini": TOX_INI}, "tox", ["pyright", "pytest", "ruff"]),  # every environment defined
    ({"tox.ini": TOX_INI}, "tox run -e py311,docs", ["pytest"]),  # the base's commands
    ({"tox.ini": TOX_INI}, "python -m tox -elint", ["pyright", "ruff"]),
    ({"ci/tox.ini": TOX_INI}, "tox -c ci/tox.ini -e lint", ["pyright", "ruff"]),
    ({"setup.cfg": b"[metadata]\nname = shop\n", "pyproject.toml": LEGACY_TOX}, "tox -e lint", ["mypy"]),
    ({"pyproject.toml": b"[project]\nname = 'shop'\n", "tox.toml": b"[env_run_base]\ncommands = [['pytest']]\n\n"
      b"[env.lint]\ncommands = [['ruff', 'check'], ['pyright', 'src']]\n"}, "tox -e lint", ["pyright", "ruff"]),
    ({"tox.toml": b"[env_run_base]\ncommands = [['pytest']]\n"}, "tox -e py312", ["pytest"]),
    ({"tox.ini": b"[testenv\n"}, "tox", []), ({"tox.toml": b"env = 1\nnot toml"}, "tox", []),
])
def test_the_tools_a_tox_environment_runs_are_the_checks_tools(files: dict[str, bytes], run: str,
                                                               tools: list[str]) -> None:
    """`tox -e lint` runs the commands of [testenv:lint] (an environment without its own, the base's), from tox.ini,
    setup.cfg's [tox:tox], pyproject.toml's [tool.tox] or tox.toml, whichever holds tox's configuration first."""
    runs = check_runs.tools_of([{"name": "tox", "run": run}], files.get)
    assert sorted(tool.name for tool in runs if tool.name != "tox") == tools


PDM = b"""[project]
name = "shop"

[tool.pdm.scripts]
pre_lint = "ruff check src"
lint = {composite = ["types", "pytest -q"]}
types = {cmd = ["mypy", "src"]}
post_lint = {call = "tasks:report"}
"""
POE = b"""[tool.poe.tasks]
check = ["style", {ref = "types"}]
style = {shell = "ruff check src\\nbash \\\\\\n  ci/lint"}
types = {cmd = "mypy src", deps = ["prepare"]}
prepare = "pyright"
"""
HATCH = b"""[tool.hatch.envs.default.scripts]
test = "pytest {args}"
[tool.hatch.envs.lint.scripts]
style = ["ruff check .", "test"]
[tool.hatch.envs.lint]
dependencies = ["ruff"]
"""


@pytest.mark.parametrize(("files", "run", "tools"), [
    ({"pyproject.toml": PDM}, "pdm run lint", ["mypy", "pytest", "ruff"]),  # pre_lint, its composite
    ({"pyproject.toml": PDM}, "pdm types", ["mypy"]), ({"pyproject.toml": PDM}, "pdm run pyright src", ["pyright"]),
    ({"pyproject.toml": POE, "ci/lint": b"flake8 src\n"}, "poe check", ["flake8", "mypy", "pyright", "ruff"]),
    ({"pyproject.toml": HATCH}, "hatch run lint:style", ["pytest", "ruff"]),  # the default environment's `test`
    ({"pyproject.toml": HATCH}, "hatch run test", ["pytest"]),
    ({"pyproject.toml": b"[project]\nname = 'shop'\n", "hatch.toml": HATCH.replace(b"tool.hatch.", b"")},
     "hatch run lint:style", ["pytest", "ruff"]),
    ({"pyproject.toml": b"[tool.pdm.scripts\n"}, "pdm run lint", []), ({"pyproject.toml": POE}, "hatch fmt", []),
])
def test_the_tools_a_python_task_runner_runs_are_the_checks_tools(files: dict[str, bytes], run: str,
                                                                  tools: list[str]) -> None:
    """`pdm run lint`, `poe check` and `hatch run lint:style` run the tasks pyproject.toml (or hatch.toml) defines,
    and the tasks those name in turn (a shell task's `bash \\` continued on the next line runs ci/lint)."""
    runs = check_runs.tools_of([{"name": "lint", "run": run}], files.get)
    assert sorted(tool.name for tool in runs if tool.name not in ("pdm", "poe", "hatch", "sh")) == tools


CHECK_PY = b"""import os
import subprocess
import sys

COMMAND = ["pyright"]


def main() -> int:
    subprocess.run(["ruff", "check", "src"], check=True)
    os.system("mypy src && pytest -q")
    subprocess.run(COMMAND + sys.argv[1:])  # computed at run time: not followed
    return subprocess.call(("eslint", "web"))
"""
NOXFILE = b"""import nox


@nox.session
def lint(session):
    session.run("ruff", "check", "src")


@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install("pytest")
    session.run("pytest", "-q")


def helper(session):
    session.run("pyright")
"""


@pytest.mark.parametrize(("files", "run", "tools"), [
    ({"ci/check.py": CHECK_PY}, "python ci/check.py", ["eslint", "mypy", "pytest", "ruff"]),
    ({"ci/check.py": CHECK_PY}, "python3.12 -u ci/check.py --fast", ["eslint", "mypy", "pytest", "ruff"]),
    ({"noxfile.py": NOXFILE}, "nox -s lint", ["ruff"]), ({"noxfile.py": NOXFILE}, "nox", ["pytest", "ruff"]),
    ({"noxfile.py": NOXFILE}, "python -m nox --session tests lint -- -x", ["pytest", "ruff"]),
    ({"ci/nox.py": NOXFILE}, "nox -f ci/nox.py -s tests", ["pytest"]),
    ({"ci/check.py": b"def broken(:\n"}, "python ci/check.py", []),
    ({"ci/check.py": b"\x00"}, "python ci/check.py", []),
])
def test_the_commands_a_python_script_or_nox_session_runs_are_the_checks_tools(files: dict[str, bytes], run: str,
                                                                                tools: list[str]) -> None:
    """`python ci/check.py` runs what it gives subprocess and os.system in string literals; `nox -s lint` what the
    session's `session.run` calls do."""
    runs = check_runs.tools_of([{"name": "checks", "run": run}], files.get)
    assert sorted(tool.name for tool in runs if tool.name not in ("python", "nox")) == tools


def test_the_tools_the_package_scripts_call_are_the_checks_tools() -> None:
    package = json.dumps({"scripts": {"lint": "eslint . && tsc --noEmit", "test": "npm run unit", "unit": "jest",
                                      "loop": "npm run loop"}}).encode()
    makefile = (b".PHONY: lint test\nPY = python\n\nlint: types  # the linters\n\t@$(PY) -m ruff check src\n\n"
                b"check types:\n\t-mypy src\n\ntest:\n\tpytest -q\n\nall:\n\t$(MAKE) check\n\n"
                b"override CHECK ?= $(TOOL)  # a variable's value may use another's\nTOOL := mypy\nCHECK += --strict\n"
                b"strict:\n\t$(CHECK) src\n")
    taskfile = (b"version: '3'\ntasks:\n  default: go test ./...\n  lint:\n    deps: [vet, {task: fmt}]\n    cmds:\n"
                b"      - golangci-lint run\n      - task: types\n      - cmd: echo done\n  vet: [go vet ./...]\n"
                b"  fmt:\n    cmd: gofmt -l .\n  types:\n    cmds: [npx tsc --noEmit]\n  loop:\n    deps: [loop]\n")
    web = json.dumps({"scripts": {"prelint": "pyright", "lint": "vitest run"}}).encode()
    files = {"package.json": package, "Makefile": makefile, "Taskfile.dist.yml": taskfile, "web/package.json": web}
    verify = [{"name": "lint", "run": "npm run lint"}, {"name": "tests", "run": "npm test"},
              {"name": "loop", "run": "yarn loop"}, {"name": "make-lint", "run": "make -s lint"},
              {"name": "all", "run": "make all"}, {"name": "strict", "run": "make strict"},
              {"name": "strict-pyright", "run": "make strict CHECK=pyright"}, {"name": "go-lint", "run": "task lint"},
              {"name": "task-loop", "run": "task loop"}, {"name": "web", "run": "npm --prefix web run lint"},
              {"name": "web-pnpm", "run": "pnpm --dir=web lint"}]
    runs = check_runs.tools_of(verify, files.get)
    runners = ("npm", "yarn", "pnpm", "make", "task")
    assert {tool.name: names for tool, names in runs.items() if tool.name not in runners} == {
        "eslint": ["lint"], "tsc": ["lint", "go-lint"], "jest": ["tests"], "ruff": ["make-lint"],
        "mypy": ["make-lint", "all", "strict"], "pyright": ["strict-pyright", "web", "web-pnpm"],
        "golangci-lint": ["go-lint"], "vitest": ["web", "web-pnpm"]}
    assert {"Taskfile.dist.yml", "package.json", "web/package.json"} <= set(check_runs.files_read(verify))
    for broken in (b"tasks: [1, 2]\n", b"tasks:\n  lint: {deps: [[1]], cmds: {a: 1}}\n", b"\x00: [", b"- 1\n"):
        found = check_runs.tools_of([{"name": "go-lint", "run": "task lint"}], {"Taskfile.yml": broken}.get)
        assert [tool.name for tool in found] == ["task"]
    assert check_runs.tools_of([{"name": "lint", "run": "npm run lint"}], {"package.json": b"not json"}.get) == {
        check_settings.Tool("npm", package=("scripts.prelint", "scripts.lint", "scripts.postlint"),
                            recipe_files=("package.json",)): ["lint"]}


def add_lint_check(hand: Path, run: str, files: dict[str, str], message: str) -> None:
    """A person's commit writing `files` and adding the verify command `lint`, which runs `run`."""
    for path, text in files.items():
        (hand / path).parent.mkdir(parents=True, exist_ok=True)
        (hand / path).write_text(text)
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace(
        "run: python -m unittest discover -s tests -t . -q",
        f"run: python -m unittest discover -s tests -t . -q\n  - name: lint\n    run: {run}"))
    person_commit(hand, message)


def refused_for_what_it_runs(hand: Path, subject: str) -> dict:
    """The bolt's fix committed over the edit in the work tree, the walkthrough run without the checks: the one
    `verify-changed` deviation, the verify-unchanged item refused."""
    (hand / CALC).write_text(FIXED + "\n# done\n")
    bolt_commit(hand, BOLT, subject)
    check_boxes(hand)
    report = walkthrough(hand, "--no-run")
    (deviation,) = [d for d in report["deviations"] if d["kind"] == "verify-changed"]
    assert not item(report, "verify-unchanged")["satisfied"]
    return deviation


GO_LINT = (".golangci.yml", "linters:\n  disable: [errcheck]\n")
PRE_COMMIT_CONFIG = ("repos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v5.0.0\n    hooks:\n"
                     "      - id: check-yaml\n  - repo: https://github.com/golangci/golangci-lint\n    rev: v2.1.6\n"
                     "    hooks:\n      - id: golangci-lint-full\n")
GO_SCRIPT = "#!/bin/sh\nset -e\n# the Go linters\ngolangci-lint run \\\n  ./...\n"


@pytest.mark.parametrize(("runner", "recipes", "run", "settings", "tool"), [
    ("npm", {"package.json": '{"name": "shop", "scripts": {"lint": "eslint src"}}\n'}, "npm run --silent lint",
     ("eslint.config.js", "export default [{rules: {'no-unused-vars': 'off'}}];\n"), "eslint"),
    ("npm", {"web/package.json": '{"name": "web", "scripts": {"lint": "eslint src"}}\n'}, "npm --prefix web run lint",
     ("web/eslint.config.js", "export default [{rules: {'no-unused-vars': 'off'}}];\n"), "eslint"),
    ("task", {"Taskfile.yml": "version: '3'\ntasks:\n  lint:\n    deps: [go-lint]\n  go-lint:\n    cmds:\n"
                              "      - golangci-lint run ./...\n"}, "task lint", GO_LINT, "golangci-lint"),
    ("task", {"Taskfile.yml": "version: '3'\ntasks:\n  go-lint: &go\n    cmds:\n      - golangci-lint run ./...\n"
                              "  lint:\n    <<: *go\n    desc: the linters\n"}, "task lint", GO_LINT, "golangci-lint"),
    ("task", {"Taskfile.yml": "version: '3'\nincludes:\n  go: ./go\n",
              "go/Taskfile.yml": "version: '3'\ntasks:\n  lint:\n    cmds:\n      - golangci-lint run ./...\n"},
     "task go:lint", GO_LINT, "golangci-lint"),
    ("npm", {"package.json": '{"name": "shop", "private": true, "workspaces": ["packages/*"]}\n',
             "packages/web/package.json": '{"name": "@shop/web", "scripts": {"lint": "eslint src"}}\n'},
     "npm run lint --workspace=@shop/web",
     ("packages/web/eslint.config.js", "export default [{rules: {'no-unused-vars': 'off'}}];\n"), "eslint"),
    *[("every workspace", {"package.json": '{"name": "shop", "private": true, "workspaces": ["packages/*"]}\n',
                           "packages/web/package.json": '{"name": "@shop/web", "scripts": {"lint": "eslint src"}}\n',
                           "packages/api/package.json": '{"name": "@shop/api", "scripts": {"test": "vitest"}}\n'},
       run, ("packages/web/eslint.config.js", "export default [{rules: {'no-unused-vars': 'off'}}];\n"), "eslint")
      for run in ("npm run lint --workspaces", "pnpm -r run lint", "yarn workspaces foreach -A run lint",
                  "npx turbo run lint test", "npx nx run-many -t lint", "npx lerna run lint",
                  "pnpm --filter '*' lint")],
    ("sh", {"scripts/lint.sh": GO_SCRIPT}, "sh scripts/lint.sh", GO_LINT, "golangci-lint"),
    ("sh -c", {}, "bash -c 'set -e; golangci-lint run ./...'", GO_LINT, "golangci-lint"),
    ("pre-commit", {".pre-commit-config.yaml": PRE_COMMIT_CONFIG}, "pre-commit run --all-files", GO_LINT,
     "golangci-lint"),
    ("tox", {"tox.ini": "[tox]\nenvlist = py311, lint\n\n[testenv:lint]\ncommands =\n    golangci-lint run\n"},
     "tox -e lint", GO_LINT, "golangci-lint"),
    ("pdm", {"pyproject.toml": "[project]\nname = 'shop'\n\n[tool.pdm.scripts]\nlint = {composite = ['go-lint']}\n"
                               "go-lint = 'golangci-lint run'\n"}, "pdm run lint", GO_LINT, "golangci-lint"),
    ("python", {"ci/lint.py": "import subprocess\n\nsubprocess.run(['golangci-lint', 'run'], check=True)\n"},
     "python ci/lint.py", GO_LINT, "golangci-lint"),
    ("nox", {"noxfile.py": "import nox\n\n\n@nox.session\ndef lint(session):\n    session.run('golangci-lint', "
                           "'run')\n"}, "nox -s lint", GO_LINT, "golangci-lint"),
    ("rubocop", {}, "bundle exec rubocop", (".rubocop.yml", "Style/StringLiterals:\n  Enabled: false\n"), "rubocop"),
    ("prettier", {}, "npx prettier --check .", (".prettierignore", "src/\n"), "prettier"),
    ("make", {"Makefile": "lint:\n\t@./scripts/go-lint\n", "scripts/go-lint": GO_SCRIPT}, "make lint", GO_LINT,
     "golangci-lint"),
])
def test_a_bolt_that_turns_off_a_rule_of_a_linter_a_runner_runs_is_refused(
        hand: Path, runner: str, recipes: dict[str, str], run: str, settings: tuple[str, str], tool: str) -> None:
    """`npm run lint` runs package.json's `eslint src` (`--workspace=@shop/web` the workspace's), `task lint` the
    Taskfile's `lint` task whose dependency runs `golangci-lint run`, or which a merge key `<<: *go` gives another's
    commands (`task go:lint` the `lint` task of the Taskfile the root's includes as `go`; `sh scripts/lint.sh`, or
    a Makefile's recipe running `./scripts/go-lint`, the script's lines; `pre-commit run --all-files` its
    golangci-lint hook; `tox -e lint` the environment's commands; `pdm run lint` the pyproject.toml script its
    composite names; `python ci/lint.py` its subprocess call, `nox -s lint` the session's `session.run`): a bolt
    that adds the linter's settings file turning a rule off passes the unchanged command. Before: verify unchanged
    (the included Taskfile's, the merged task's, the scripts', the workspace's, pre-commit's, tox's, pdm's, the
    Python script's and nox's, until each was read)."""
    add_lint_check(hand, run, recipes, f"ci: lint through {runner}")
    (hand / settings[0]).write_text(settings[1])
    deviation = refused_for_what_it_runs(hand, "pay: quiet the linter")
    assert deviation["path"] == settings[0] and f"changed it: the settings of {tool}, which the verify " \
        "command(s) 'lint' run" in deviation["detail"], deviation


TURBOREPO = {"package.json": '{"private": true, "workspaces": ["apps/*", "packages/*"]}\n',
             "apps/web/package.json": '{"name": "web", "scripts": {"lint": "eslint ."}}\n',
             "packages/eslint-config/package.json": '{"name": "@repo/eslint-config", "exports": '
                                                    '{"./base": "./base.js"}}\n'}


@pytest.mark.parametrize(("run", "settings", "base", "weakened"), [
    ("ruff check src", ("pyproject.toml", "[project]\nname = 'shop'\n\n[tool.ruff]\nextend = 'config/lint.toml'\n"),
     ("config/lint.toml", "[lint]\nselect = ['F']\n"), "[lint]\nselect = ['F']\nignore = ['F401']\n"),
    ("ruff check src", ("ruff.toml", "extend = 'config/base.toml'\n"),  # a base extending a base
     ("config/base.toml", "extend = 'strict.toml'\n"), None),
    ("npx tsc --noEmit", ("tsconfig.json", '{\n  // the shared settings\n  "extends": "./config/strict",\n}\n'),
     ("config/strict.json", '{"compilerOptions": {"strict": true}}\n'), '{"compilerOptions": {"strict": false}}\n'),
    ("npx eslint src", (".eslintrc.json", '{"extends": ["eslint:recommended", "./eslint/base.json"]}\n'),
     ("eslint/base.json", '{"rules": {"no-unused-vars": "error"}}\n'), '{"rules": {"no-unused-vars": "off"}}\n'),
    ("npx eslint src", ("eslint.config.js", "import base from './eslint/base.mjs';\nexport default [...base];\n"),
     ("eslint/base.mjs", "export default [{rules: {'no-unused-vars': 'error'}}];\n"),
     "export default [{rules: {'no-unused-vars': 'off'}}];\n"),
    ("bundle exec rubocop", (".rubocop.yml", "inherit_from:\n  - config/rubocop-base.yml\n"),
     ("config/rubocop-base.yml", "Style/StringLiterals:\n  Enabled: true\n"),
     "Style/StringLiterals:\n  Enabled: false\n"),
    ("npx turbo run lint", ("apps/web/eslint.config.js",  # a Turborepo's shared settings, a workspace's package
                            "import { config } from '@repo/eslint-config/base';\nexport default config;\n"),
     ("packages/eslint-config/base.js", "export const config = [{rules: {'no-unused-vars': 'error'}}];\n"),
     "export const config = [{rules: {'no-unused-vars': 'off'}}];\n"),
    ("vendor/bin/phpstan analyse", ("phpstan.neon", "includes:\n\t- phpstan-baseline.neon\nparameters:\n\tlevel: 6\n"),
     ("phpstan-baseline.neon", "parameters:\n\tignoreErrors: []\n"),
     "parameters:\n\tignoreErrors:\n\t\t- message: '#.*#'\n"),
])
def test_a_bolt_that_weakens_the_settings_a_linters_settings_extend_is_refused(
        hand: Path, run: str, settings: tuple[str, str], base: tuple[str, str], weakened: str | None) -> None:
    """pyproject.toml's `[tool.ruff] extend = 'config/lint.toml'` (tsconfig's and .eslintrc's `extends`, an
    eslint.config.js importing its base, rubocop's `inherit_from`, phpstan's `includes` of its baseline): a bolt that
    turns a rule off in the file extended, known by no tool's file name, passed the unchanged command and settings
    (phpstan ignoring every error through its baseline; a Turborepo's app importing `@repo/eslint-config/base`, the
    workspace package holding the shared rules). A base the base extends counts too (`weakened` None: the bolt
    writes the second base). Before: verify unchanged."""
    second = hand / "config" / "strict.toml"
    strict = {"config/strict.toml": "[lint]\nselect = ['F']\n"} if weakened is None else {}
    add_lint_check(hand, run, {**dict([settings, base]), **TURBOREPO, **strict}, "ci: lint")
    if weakened is None:
        second.write_text("[lint]\nselect = []\n")
    else:
        (hand / base[0]).write_text(weakened)
    deviation = refused_for_what_it_runs(hand, "pay: quiet the linter")
    changed = "config/strict.toml" if weakened is None else base[0]
    assert deviation["path"] == changed and "changed it: the settings of " in deviation["detail"], deviation


def test_a_file_a_linters_settings_do_not_extend_is_not_their_settings(hand: Path) -> None:
    """A TOML, JSON or script file no settings name (a package's name in `extends` is no file here) changed by the
    bolt is no change of what the check runs."""
    (hand / "tsconfig.json").write_text('{"extends": "@tsconfig/node20/tsconfig.json"}\n')
    (hand / "config").mkdir()
    (hand / "config" / "app.json").write_text('{"port": 80}\n')
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace(
        "run: python -m unittest discover -s tests -t . -q",
        "run: python -m unittest discover -s tests -t . -q\n  - name: types\n    run: npx tsc --noEmit"))
    person_commit(hand, "ci: types")
    (hand / "config" / "app.json").write_text('{"port": 8080}\n')
    (hand / CALC).write_text(FIXED + "\n# done\n")
    bolt_commit(hand, BOLT, "pay: another port")
    check_boxes(hand)
    report = walkthrough(hand, "--no-run")
    assert [d for d in report["deviations"] if d["kind"] == "verify-changed"] == []


@pytest.mark.parametrize(("path", "text", "run", "why"), [
    ("Taskfile.yml", "version: !!str 3\ntasks:\n  lint:\n    cmds:\n      - golangci-lint run\n", "task lint",
     "line 1: invalid YAML: tags are not allowed"),
    ("package.json", '{"scripts": {"lint": "eslint src",}}\n', "npm run lint", "Expecting property name"),
    ("noxfile.py", "import nox\n\n@nox.session\ndef lint(session)\n    session.run('ruff')\n", "nox -s lint",
     "line 4: expected ':'"),
])
def test_a_file_a_check_runs_through_that_does_not_parse_is_named_in_the_notes(
        hand: Path, path: str, text: str, run: str, why: str) -> None:
    """task reads `version: !!str 3`, which aidlc's YAML refuses: what `task lint` runs was silently not followed, and
    a bolt's .golangci.yml would have passed unseen. The report now says so, without refusing the gate (the person's
    file, not the bolt's change)."""
    add_lint_check(hand, run, {path: text}, "ci: lint")
    (hand / CALC).write_text(FIXED + "\n# done\n")
    bolt_commit(hand, BOLT, "pay: done")
    check_boxes(hand)
    report = walkthrough(hand, "--no-run")
    [note] = [note for note in report["notes"] if "does not parse" in note]
    assert note.startswith(f"{path} does not parse (") and why in note and "the verify command(s) 'lint' run" in note
    assert note.endswith("name those tools in aidlc.yaml's verify commands, and run `aidlc walkthrough` again")
    assert [d for d in report["deviations"] if d["kind"] == "verify-changed"] == []


@pytest.mark.parametrize(("files", "run", "edit", "tool"), [
    ({".pre-commit-config.yaml": PRE_COMMIT_CONFIG}, "pre-commit run --all-files",
     (".pre-commit-config.yaml", PRE_COMMIT_CONFIG.split("  - repo: https://github.com/golangci")[0]), "pre-commit"),
    ({"package.json": '{"private": true}\n', "pnpm-workspace.yaml": "packages: ['packages/*']\n",
      "packages/web/package.json": '{"name": "web", "scripts": {"lint": "eslint src"}}\n'}, "pnpm -r lint",
     ("pnpm-workspace.yaml", "packages: ['packages/*', '!packages/web']\n"), "pnpm"),
])
def test_a_bolt_that_drops_what_the_check_runs_is_refused(
        hand: Path, files: dict[str, str], run: str, edit: tuple[str, str], tool: str) -> None:
    """`pre-commit run --all-files` runs the hooks .pre-commit-config.yaml lists, `pnpm -r lint` every workspace
    pnpm-workspace.yaml lists: a bolt that drops the linter's hook, or adds `!packages/web` to the workspaces, passes
    the unchanged command and script. Before: verify unchanged (the workspaces' list, until it was read)."""
    add_lint_check(hand, run, files, "ci: lint")
    (hand / edit[0]).write_text(edit[1])
    deviation = refused_for_what_it_runs(hand, "pay: less to run")
    assert deviation["path"] == edit[0] and f"the settings of {tool}, which the verify command(s) 'lint' run" in \
        deviation["detail"], deviation


def test_workspaces_a_bolt_adds_do_not_crowd_out_the_one_whose_linter_it_silenced(hand: Path) -> None:
    """`pnpm -r lint` follows fifty workspaces: a bolt adding sixty script-less ones that sort before packages/web,
    and turning its linter's rule off there, passed the walkthrough. Before: no deviation."""
    add_lint_check(hand, "pnpm -r lint", {"package.json": '{"private": true}\n', "pnpm-workspace.yaml":
                   "packages: ['packages/*']\n", "packages/web/package.json":
                   '{"name": "web", "scripts": {"lint": "eslint src"}}\n'}, "ci: lint")
    for n in range(60):
        (hand / f"packages/a{n:02}").mkdir(parents=True)
        (hand / f"packages/a{n:02}/package.json").write_text(f'{{"name": "a{n}"}}\n')
    (hand / "packages/web/eslint.config.js").write_text("export default [{rules: {'no-unused-vars': 'off'}}];\n")
    assert refused_for_what_it_runs(hand, "pay: packages")["path"] == "packages/web/eslint.config.js"


@pytest.mark.parametrize("through", ["", "make", "make-variable"])
def test_a_bolt_that_silences_the_linter_a_check_runs_in_pyproject_is_refused(hand: Path, through: str) -> None:
    """`ruff check src` judges by pyproject.toml's [tool.ruff] (run directly, or by `make lint`, whose recipe may
    name it by a variable, `$(LINT)`): a bolt that adds `ignore = ["F401"]` there passes the unchanged command with
    the import it left unused. Before: verify unchanged, the walkthrough approved (through a variable, until the
    Makefile's variables were read)."""
    if through and shutil.which("make") is None:
        pytest.skip("no make here")
    lint = f"{sys.executable} -m ruff check --no-cache -q src"
    (hand / "pyproject.toml").write_text("[project]\nname = 'shop'\n\n[tool.ruff.lint]\nselect = ['F']\n")
    if through:
        recipe = "$(LINT)" if through == "make-variable" else lint
        (hand / "Makefile").write_text(f"LINT := {lint}\n.PHONY: lint\n\nlint:\n\t@{recipe}\n")
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace(
        "run: python -m unittest discover -s tests -t . -q",
        "run: python -m unittest discover -s tests -t . -q\n  - name: lint\n    run: "
        + ("make -s lint" if through else lint)))
    person_commit(hand, "ci: lint")
    (hand / CALC).write_text("import os\n\n\n" + FIXED)
    (hand / "pyproject.toml").write_text((hand / "pyproject.toml").read_text().replace(
        "name = 'shop'", "name = 'shop'\nversion = '1.1'") + "ignore = ['F401']\n")
    bolt_commit(hand, BOLT, "pay: quiet the linter")
    check_boxes(hand)
    report = walkthrough(hand)
    assert item(report, "checks")["satisfied"], report["checks"]
    (deviation,) = [d for d in report["deviations"] if d["kind"] == "verify-changed"]
    assert deviation["path"] == "pyproject.toml" and "changed it ([tool.ruff]): the settings of ruff, which the " \
        "verify command(s) 'lint' run" in deviation["detail"], deviation
    assert not item(report, "verify-unchanged")["satisfied"]
    proc = approve(hand)
    assert proc.returncode == 1 and "pyproject.toml" in proc.stderr


def test_a_bolt_that_changes_other_settings_in_the_same_files_keeps_its_independent_credit(hand: Path) -> None:
    (hand / "pyproject.toml").write_text("[project]\nname = 'shop'\n\n[tool.pytest.ini_options]\nminversion = '7'\n")
    (hand / "package.json").write_text('{"name": "shop", "jest": {"testTimeout": 5000}}\n')
    person_commit(hand, "build: project settings")
    (hand / "pyproject.toml").write_text((hand / "pyproject.toml").read_text().replace(
        "name = 'shop'", "name = 'shop'\nversion = '1.1'"))
    (hand / "package.json").write_text('{"name": "shop", "version": "1.1.0", "jest": {"testTimeout": 5000}}\n')
    bolt_commit(hand, BOLT, "pay: a version")
    check_boxes(hand)
    report = walkthrough(hand)
    assert item(report, "independent-tests")["satisfied"], item(report, "independent-tests")


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
    person_commit(hand, "ci: JUnit XML from the tests")  # a person's change of the checks: not a deviation
    (hand / CALC).write_text(FIXED + "\n# done\n")
    bolt_commit(hand, BOLT, "pay: a last touch")
    report = walkthrough(hand)
    assert report["checks"][0]["tests"] == {"total": 1, "failures": 0, "errors": 0, "skipped": 0}
    assert report["verification"]["independent_tests"] == ["tests/test_calc.py::test_adds_prices"]
    assert "1 test case(s) the JUnit report names as run and passed" in item(report, "independent-tests")["detail"]
    assert report["verification"]["satisfied"] and item(report, "verify-unchanged")["satisfied"]
    assert "verify-changed" not in [d["kind"] for d in report["deviations"]]


def test_hundreds_of_test_cases_are_counted_in_the_report_and_named_in_the_json(hand: Path) -> None:
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace(
        "run: python -m unittest discover -s tests -t . -q",
        f"run: {sys.executable} -m pytest -q -p no:cacheprovider tests --junitxml=.junit.xml\n    junit: .junit.xml"))
    (hand / ".gitignore").write_text((hand / ".gitignore").read_text() + ".junit.xml\n")
    (hand / "tests/test_many.py").write_text("import pytest\n\n\n@pytest.mark.parametrize('n', range(300))\n"
                                              "def test_case(n):\n    assert n >= 0\n")
    person_commit(hand, "tests: many cases, and JUnit XML from the tests")  # a person's: independent
    (hand / CALC).write_text(FIXED + "\n# done\n")
    bolt_commit(hand, BOLT, "pay: a last touch")
    report = walkthrough(hand)
    assert len(report["verification"]["independent_tests"]) == 301  # every case by name, in the JSON
    text = (hand / WALKTHROUGH).read_text()
    assert "Independent tests: 301 in 2 file(s): `tests/test_many.py` 300, `tests/test_calc.py` 1. Each by name: " \
           f"`aidlc walkthrough {BOLT} --format json` (`verification.independent_tests`)." in text
    assert text.count("tests/test_many.py::") <= 10  # the evidence table's line names ten at most, no paragraph
    shown = run(hand, "walkthrough", BOLT)
    assert shown.stdout.count("tests/test_many.py::") <= 10, shown.stdout  # so does the command's summary


def use_junit(root: Path, run_: str) -> None:
    """A person configures the tests check to write a JUnit report, .junit.xml, and commits it."""
    config = root / "aidlc.yaml"
    config.write_text(config.read_text().replace("run: python -m unittest discover -s tests -t . -q",
                                                 f"run: {run_}\n    junit: .junit.xml"))
    (root / ".gitignore").write_text((root / ".gitignore").read_text() + ".junit.xml\n")
    person_commit(root, "ci: the tests write JUnit XML")
    (root / CALC).write_text(FIXED + "\n# done\n")
    bolt_commit(root, BOLT, "pay: a last touch")


def test_a_configured_junit_report_the_check_does_not_write_fails_it_and_the_gate(hand: Path) -> None:
    use_junit(hand, f"{sys.executable} -m unittest discover -s tests -t . -q")  # exits 0, writes no report
    check_boxes(hand)
    report = walkthrough(hand)
    (check,) = report["checks"]
    assert check["exit_code"] == 0 and not check["passed"] and item(report, "checks")["detail"] == "failing: tests"
    assert "JUnit report .junit.xml: the check wrote none; aidlc.yaml's verify 'tests' sets `junit: .junit.xml`, " \
           "so a report written by this run counting at least one test was expected: the check fails" in \
           check["excerpt"]
    assert "the check wrote none" in (hand / WALKTHROUGH).read_text()
    proc = approve(hand)
    assert proc.returncode == 1 and "failing: tests" in proc.stderr
    assert not [e for e in events(hand) if e["type"] == "gate.decided" and e.get("stage") == "walkthrough"]


def test_a_bolt_that_deletes_its_test_gets_no_credit_for_an_unrelated_one(hand: Path) -> None:
    (hand / "tests/test_other.py").write_text(TEST.replace("TotalTest", "OtherTest").replace(
        "self.assertEqual(total([1, 2, 3]), 6)", "self.assertEqual(len('abc'), 3)"))
    person_commit(hand, "an unrelated test")
    git(hand, "rm", "-q", "tests/test_calc.py")
    (hand / CALC).write_text(BUGGY)  # the bug is back; the test that showed it is gone
    report, independent = independent_unmet(hand, "pay: drop a test in the way")  # the unrelated test passes
    assert "the bolt's own commits deleted tests/test_calc.py, test(s) that existed before it" in independent["detail"]
    assert report["verification"]["removed_tests"] == ["tests/test_calc.py"]
    assert "Tests of the base the bolt deleted: `tests/test_calc.py`." in (hand / WALKTHROUGH).read_text()
    proc = approve(hand)
    assert proc.returncode == 1 and "deleted tests/test_calc.py" in proc.stderr


def test_with_junit_an_unrelated_test_counts_only_when_the_report_names_it(hand: Path) -> None:
    (hand / "tests/test_other.py").write_text(TEST.replace("TotalTest", "OtherTest"))  # never run by the check
    use_junit(hand, f"{sys.executable} -m pytest -q -p no:cacheprovider tests/test_calc.py --junitxml=.junit.xml")
    (hand / "tests/test_calc.py").write_text(TEST.replace("[1, 2, 3]), 6", "[2, 2]), 4"))
    bolt_commit(hand, BOLT, "pay: the bolt's own version of the test")
    report = walkthrough(hand)
    assert item(report, "checks")["satisfied"] and report["verification"]["bolt_tests"] == ["tests/test_calc.py"]
    assert report["verification"]["independent_tests"] == []  # tests/test_other.py is at the base, but never ran
    assert item(report, "independent-tests")["detail"] == (
        "no JUnit report names a passing test case of a test file that existed before the bolt; the bolt itself "
        "wrote tests/test_calc.py")
    assert not report["verification"]["satisfied"]


def test_a_bolt_that_replaces_the_verify_command_with_true_is_refused_at_medium_risk(hand: Path) -> None:
    (hand / CALC).write_text(BUGGY)
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace("run: python -m unittest discover -s tests -t . -q", "run: 'true'"))
    bolt_commit(hand, BOLT, "pay: simpler checks")
    check_boxes(hand)
    report = walkthrough(hand)
    assert item(report, "checks")["satisfied"]  # `true` passes
    (deviation,) = [d for d in report["deviations"] if d["kind"] == "verify-changed"]
    shas = [c["short"] for c in report["commits"] if c["subject"] == "pay: simpler checks"]
    assert deviation == {"path": "aidlc.yaml", "kind": "verify-changed", "detail": (
        f"the bolt's own commit(s) {shas[0]} changed the verify commands: 'tests' runs `true` (was "
        "`python -m unittest discover -s tests -t . -q`)")}
    unchanged = item(report, "verify-unchanged")
    assert not unchanged["satisfied"] and not report["verification"]["satisfied"]
    text = (hand / WALKTHROUGH).read_text()
    assert "- `aidlc.yaml`: decides whether the bolt passes, and the bolt changed it: the bolt's own commit(s)" in text
    proc = approve(hand)
    assert proc.returncode == 1 and "'tests' runs `true`" in proc.stderr, proc.stderr

    set_risk(hand, "low")  # low risk: shown as a deviation, not refused
    report = walkthrough(hand)
    assert [d["kind"] for d in report["deviations"]].count("verify-changed") == 1
    assert report["verification"]["satisfied"] and [i["id"] for i in report["verification"]["items"]] == ["checks"]


CHECK_SCRIPT = ("import subprocess, sys\n\nsys.exit(subprocess.call([sys.executable, '-m', 'unittest', 'discover', "
                "'-s', 'tests', '-t', '.', '-q']))\n")


def test_a_model_that_empties_the_check_script_gets_no_walkthrough_approval(_sample: Path, tmp_path: Path) -> None:
    root = copy(_sample, tmp_path / "shop")
    (root / "scripts").mkdir()
    (root / "scripts/check.py").write_text(CHECK_SCRIPT)
    config = root / "aidlc.yaml"
    config.write_text(config.read_text().replace("run: python -m unittest discover -s tests -t . -q",
                                                 f"run: {sys.executable} scripts/check.py"))
    bolt = root / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace('scope: ["src/pay/**"]', 'scope: ["src/pay/**", "scripts/**"]'))
    assert run(root, "gate", "approve", "001-checkout-payments", "--stage", "bolt-plan").returncode == 0
    person_commit(root, "ci: the checks in a script; the bolt may touch scripts")
    with ScriptedServer() as server:
        server.push(plan_answer(files=[{"path": CALC, "action": "modify", "reason": "the sign"},
                                       {"path": "scripts/check.py", "action": "modify", "reason": "a faster check"}]))
        assert run(root, "bolt", "start", BOLT, "--base-url", server.url, "--model", "m").returncode == 3
        server.push(chat("scripts/check.py\n```python\n<<<<<<< SEARCH\n" + CHECK_SCRIPT + "=======\nprint('OK')\n"
                         ">>>>>>> REPLACE\n```\n"))  # the bug stays; the check it must pass no longer tests
        proc = run(root, "bolt", "resume", BOLT, "--base-url", server.url, "--approve")
        assert proc.returncode == 3 and "scripts/check.py: changed, and the verify command 'tests' names it" in \
            proc.stdout + proc.stderr, proc.stdout + proc.stderr
        proc = run(root, "bolt", "resume", BOLT, "--base-url", server.url)  # a person accepts the risk
        assert proc.returncode == 3, proc.stdout + proc.stderr
    assert (root / CALC).read_text() == BUGGY
    check_boxes(root)
    proc = approve(root)
    assert proc.returncode == 1 and "the bolt's own commits changed no verify command" in proc.stderr, proc.stderr
    assert "scripts/check.py: the bolt's own commit(s)" in proc.stderr
    assert "- `scripts/check.py`: decides whether the bolt passes, and the bolt changed it" in \
        (root / WALKTHROUGH).read_text()


def test_a_bolt_that_empties_the_script_a_check_runs_is_refused(hand: Path) -> None:
    (hand / "scripts").mkdir()
    (hand / "scripts/check.py").write_text(CHECK_SCRIPT)
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace("run: python -m unittest discover -s tests -t . -q",
                                                 f"run: {sys.executable} scripts/check.py"))
    person_commit(hand, "ci: the checks in a script")
    (hand / "scripts/check.py").write_text("print('OK')\n")
    bolt_commit(hand, BOLT, "ci: a faster check")
    report = walkthrough(hand)
    (deviation,) = [d for d in report["deviations"] if d["kind"] == "verify-changed"]
    assert deviation["path"] == "scripts/check.py" and "the verify command 'tests' runs it" in deviation["detail"]
    assert not item(report, "verify-unchanged")["satisfied"]



@pytest.mark.skipif(shutil.which("make") is None, reason="no make here")
@pytest.mark.parametrize("recipes", ["Makefile", "mk/test.mk"])
def test_a_bolt_that_rewrites_the_make_target_a_check_runs_is_refused(hand: Path, recipes: str) -> None:
    """`make test` runs the recipe the Makefile holds (or the file it includes, mk/test.mk): a bolt that makes it
    run only a test of its own passes on the buggy code, the base's test untouched and never run. Before: verify
    unchanged, independent tests passed (through an included file, until includes were read)."""
    recipe = f"{sys.executable} -m unittest discover -s tests -t . -q"
    (hand / "mk").mkdir()
    (hand / "Makefile").write_text("include mk/test.mk\n")
    (hand / recipes).write_text(f"test:\n\t{recipe}\n\nlint:\n\ttrue\n")
    config = hand / "aidlc.yaml"
    config.write_text(config.read_text().replace("run: python -m unittest discover -s tests -t . -q",
                                                 "run: make -s test"))
    person_commit(hand, "ci: the checks through make")
    (hand / CALC).write_text(BUGGY)
    (hand / "tests/test_more.py").write_text("import unittest\n\n\nclass More(unittest.TestCase):\n"
                                             "    def test_more(self):\n        self.assertTrue(True)\n")
    (hand / recipes).write_text(f"test:\n\t{sys.executable} -m unittest tests.test_more -q\n\nlint:\n\ttrue\n")
    bolt_commit(hand, BOLT, "ci: a faster check")
    check_boxes(hand)
    report = walkthrough(hand)
    assert item(report, "checks")["satisfied"]
    (deviation,) = [d for d in report["deviations"] if d["kind"] == "verify-changed"]
    assert deviation["path"] == recipes and "the verify command 'tests' runs it" in deviation["detail"]
    assert not item(report, "verify-unchanged")["satisfied"]
    proc = approve(hand)
    assert proc.returncode == 1 and recipes in proc.stderr


def test_the_report_lists_each_check_the_bolt_silenced(hand: Path) -> None:
    """`# type: ignore`, `# noqa`, `// eslint-disable-next-line`: the lint and type checks pass on the line the bolt
    silenced. Before: the report said nothing of them."""
    ignored = "def total(prices):  # type: ignore[no-untyped-def]"
    (hand / CALC).write_text("import os  # noqa: F401\n" + FIXED.replace("def total(prices):", ignored))
    (hand / "web").mkdir()
    (hand / "web/cart.ts").write_text("// eslint-disable-next-line @typescript-eslint/no-explicit-any\n"
                                      "export const cart: any = `${1}`;\n")
    bolt_commit(hand, BOLT, "pay: quiet the checks")
    report = walkthrough(hand, "--no-run")
    silenced = {d["path"]: d["detail"] for d in report["deviations"] if d["kind"] == "check-silenced"}
    assert silenced == {CALC: f"line 1: import os # noqa: F401; line 2: {' '.join(ignored.split())}",
                        "web/cart.ts": "line 1: // eslint-disable-next-line @typescript-eslint/no-explicit-any"}
    text = (hand / WALKTHROUGH).read_text()
    assert f"`{CALC}`: silences a check where the bolt changed it: line 1: import os # noqa: F401" in text


@pytest.mark.parametrize(("diff", "found"), [
    ('+++ "b/caf\\303\\251.py"\n@@ -0,0 +1,2 @@\n+x = 1\n+y = f()  # type: ignore\n',
     {"café.py": [(2, "y = f()  # type: ignore")]}),
    ("+++ b/a.py\n@@ -3,2 +3,3 @@\n ctx\n-old  # noqa\n+new\n+z  # pragma: no cover\n",
     {"a.py": [(5, "z  # pragma: no cover")]}),
    ("+++ b/a.go\n@@ -1 +1 @@\n+x := f() //nolint:errcheck\n", {"a.go": [(1, "x := f() //nolint:errcheck")]}),
    ("+++ b/a.py\n@@ -1 +1 @@\n+text = 'no quality'\n", {}),
])
def test_the_lines_that_silence_a_check_are_found_in_a_diff(diff: str, found: dict) -> None:
    from aidlc.bolt.suppressions import added

    assert added(diff) == found


@pytest.mark.parametrize("line", [
    "subprocess.call(cmd, shell=True)  # nosec B602", "x := 1 //lint:ignore SA4006 later", "# yamllint disable-line",
    "<!-- markdownlint-disable MD013 -->", "$a = 1; // phpcs:ignore", "/** @phpstan-ignore-next-line */",
    "/** @psalm-suppress MixedAssignment */", "int x = 1; // NOSONAR", "/* stylelint-disable */",
    "// prettier-ignore", "# fmt: off", "import os  # isort: skip", "# hadolint ignore=DL3008",
    "// deno-lint-ignore no-explicit-any", "#[expect(dead_code)]", "// swiftlint:disable force_cast",
    '[SuppressMessage("Style", "IDE0059")]', '@Suppress("UNCHECKED_CAST")', "//noinspection SpellCheckingInspection",
])
def test_the_markers_of_other_tools_silence_a_check(line: str) -> None:
    from aidlc.bolt.suppressions import added

    assert added(f"+++ b/a.txt\n@@ -0,0 +1 @@\n+{line}\n") == {"a.txt": [(1, line)]}

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


def test_an_approved_walkthrough_is_never_rewritten(hand: Path, tmp_path: Path) -> None:
    check_boxes(hand)
    walkthrough(hand)
    assert approve(hand).returncode == 0
    approved = (hand / WALKTHROUGH).read_bytes()
    (hand / CALC).write_text(FIXED + "# later\n")  # a later commit: a fresh report would differ
    bolt_commit(hand, BOLT, "pay: a later change")
    proc = run(hand, "walkthrough", BOLT)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    assert f"{WALKTHROUGH} is not rewritten: Ada Lovelace approved it" in proc.stderr
    assert "<!-- aidlc:evidence begin" in proc.stdout and "--output FILE" in proc.stderr  # the report, printed
    elsewhere = tmp_path / "reports" / "later.md"  # its folder does not exist yet
    proc = run(hand, "walkthrough", BOLT, "--no-run", "--output", str(elsewhere))
    assert proc.returncode in (0, 1) and f"evidence report written to {elsewhere}" in proc.stdout, proc.stderr
    assert elsewhere.read_text().startswith("<!-- aidlc:evidence begin")
    assert (hand / WALKTHROUGH).read_bytes() == approved
    proc = run(hand, "--format", "json", "validate")
    assert "AIDLC-LEDGER-005" not in [f["code"] for f in json.loads(proc.stdout)["findings"]]


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


def test_lowering_a_critical_risk_makes_the_plan_stale_and_one_person_still_cannot_complete_the_bolt(
        hand: Path, server: ScriptedServer) -> None:
    set_risk(hand, "critical")  # the plan approved at critical: the ledger records it
    plan = [e for e in events(hand) if e["type"] == "gate.decided" and e["stage"] == "plan"][-1]
    assert plan["data"]["bolt_risk"] == "critical"
    check_boxes(hand)
    server.push(chat(json.dumps({"concerns": []})))
    walkthrough(hand, "--base-url", server.url)
    set_risk(hand, "low", was="critical", approve=False)  # one person lowers it ...
    found = json.loads(run(hand, "--format", "json", "validate").stdout)["findings"]
    assert any(f["code"] == "AIDLC-LEDGER-005" and f"{BOLT_DIR}/bolt.md (risk and scope) changed" in f["message"]
               for f in found), found
    proc = approve(hand)
    assert proc.returncode == 1 and "the plan gate is stale" in proc.stderr, proc.stderr
    gates = json.loads(run(hand, "--format", "json", "status").stdout)["gates"]
    assert next(g for g in gates if g["kind"] == "bolt" and g["id"] == BOLT)["pending"] == "plan", gates
    set_risk(hand, "low", was="low")  # ... approves the bolt plan and the plan again at low ...
    walkthrough(hand, "--base-url", server.url)
    proc = approve(hand)  # ... and is only the first of two
    assert proc.returncode == 3 and "first approval is recorded" in proc.stdout, proc.stderr + proc.stdout
    assert "its bolt.md says low; its plan was approved or estimated at critical" in proc.stdout
    assert approve(hand).returncode == 1
    assert "status: in-progress" in (hand / BOLT_DIR / "bolt.md").read_text()
    assert approve(hand, "--as", BOB).returncode == 0
    assert "status: complete" in (hand / BOLT_DIR / "bolt.md").read_text()


def test_widening_the_scope_makes_the_plan_stale(hand: Path) -> None:
    bolt = hand / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace('scope: ["src/pay/**"]', 'scope: ["**"]'))
    check_boxes(hand)
    proc = approve(hand)
    assert proc.returncode == 1 and "the plan gate is stale" in proc.stderr, proc.stderr


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


def test_ci_runs_the_checks_itself_and_a_forged_passing_check_does_not_count(hand: Path) -> None:
    """A `check.recorded` line saying the tests passed, appended around aidlc for code whose tests fail: the
    walkthrough and the gate believe the ledger, CI runs the base's verify command at the head and does not."""
    base = git(hand, "rev-parse", "HEAD").strip()
    (hand / CALC).write_text(BUGGY)
    bolt_commit(hand, BOLT, "pay: total() as it was")
    head = git(hand, "rev-parse", "HEAD").strip()
    Ledger.of_bank(hand, "memory-bank").append(
        EventType.check_recorded, Actor(kind=ActorKind.agent, name="aidlc bolt"), subject=Subject(kind="bolt", id=BOLT),
        commit=head, data={"name": "tests", "command": "python -m unittest discover -s tests -t . -q", "exit_code": 0,
                           "passed": True, "timed_out": False, "duration_ms": 5,
                           "tests": {"total": 1, "failures": 0, "errors": 0, "skipped": 0},
                           "output_sha256": "0" * 64, "output_bytes": 0})
    check_boxes(hand)
    assert walkthrough(hand)["verification"]["satisfied"]  # the report reads the ledger's claim
    assert approve(hand).returncode == 0  # and so does the gate
    bolt_commit(hand, BOLT, "memory-bank: walkthrough approved")
    found = ci_codes(hand, base)
    assert "AIDLC-CI-009" in found and "tests" in found["AIDLC-CI-009"], found


@pytest.mark.parametrize("record", [WALKTHROUGH, ".aidlc/runs/r1/state.json"])
def test_code_a_check_runs_cannot_write_the_records_ci_judges_after_it(hand: Path, record: str) -> None:
    """The bolt's code, imported by the tests CI runs, rewrites the walkthrough report (here: appends to it), or
    writes a run's state the evidence reads (once the ledger holds the approval), while CI runs them: CI would then
    judge a file its own run wrote. Before: the report passed; the run's state was read as the run's own."""
    base = git(hand, "rev-parse", "HEAD").strip()
    when = "True" if record == WALKTHROUGH else \
        "'\"stage\":\"walkthrough\"' in Path('memory-bank/events.jsonl').read_text()"
    (hand / CALC).write_text(FIXED + f"\nfrom pathlib import Path\nif {when}:\n    Path({record!r}).parent.mkdir("
                             f"parents=True, exist_ok=True)\n    with Path({record!r}).open('a') as _report:\n"
                             "        _report.write('<!-- written by the code under test -->\\n')\n")
    bolt_commit(hand, BOLT, "pay: total() adds the prices")
    check_boxes(hand)
    walkthrough(hand)
    if record == WALKTHROUGH:
        (hand / record).write_text((hand / record).read_text().replace(
            "<!-- written by the code under test -->\n", ""))  # the report as the person read it
    assert approve(hand).returncode == 0, "the gate approves"
    bolt_commit(hand, BOLT, "memory-bank: walkthrough approved")
    found = ci_codes(hand, base)
    assert "AIDLC-CI-009" in found and f"CI's run of the checks changed {record}" in found["AIDLC-CI-009"], found



# Run by the code under test once a walkthrough approval is in the ledger (while CI runs the checks): the history
# rewritten so that the bolt's harness change reads as a person's commit before the bolt's first, HEAD moved there
# (the same trees at the end: the work tree and the memory bank untouched).
LAUNDER = f"""set -e
approval=$(git rev-parse HEAD) bolt=$(git rev-parse HEAD~1) base=$(git rev-parse HEAD~2)
export GIT_INDEX_FILE=.git/launder-index GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME='Ada Lovelace' GIT_COMMITTER_EMAIL=ada@example.org
git read-tree $base
git update-index --add --cacheinfo 100644,$(git rev-parse $bolt:tests/__init__.py),tests/__init__.py
person=$(git commit-tree $(git write-tree) -p $base -m 'tests: a person tidies the package')
code=$(git commit-tree $bolt^{{tree}} -p $person -m 'pay: total() adds the prices' -m 'Aidlc-Bolt: {BOLT}')
git update-ref HEAD $(git commit-tree $approval^{{tree}} -p $code -m 'memory-bank: walkthrough approved')
rm -f .git/launder-index
"""


def test_code_a_check_runs_cannot_rewrite_the_history_ci_judges_after_it(hand: Path) -> None:
    """The bolt neuters the tests' assertions in tests/__init__.py (no independent credit) and, from code the tests
    import, rewrites the history while CI runs them (LAUNDER): the harness change a person's commit, HEAD moved
    there. CI re-derived the evidence from the moved HEAD. Before: passed."""
    base = git(hand, "rev-parse", "HEAD").strip()
    (hand / "tests/__init__.py").write_text(NEUTER)
    (hand / CALC).write_text(BUGGY + "\nimport pathlib as _pathlib\nimport subprocess as _subprocess\n\n"
                             "if '\"stage\":\"walkthrough\"' in _pathlib.Path('memory-bank/events.jsonl')"
                             f".read_text():\n    _subprocess.run(['sh', '-c', {LAUNDER!r}], check=True)\n")
    bolt_commit(hand, BOLT, "pay: make the tests agree")
    check_boxes(hand)
    walkthrough(hand)
    head = git(hand, "rev-parse", "HEAD").strip()
    written_around_the_gate(hand)
    person_commit(hand, "memory-bank: walkthrough approved")
    approved = git(hand, "rev-parse", "HEAD").strip()
    found = ci_codes(hand, base)
    assert git(hand, "rev-parse", "HEAD").strip() != approved and git(hand, "rev-parse", "HEAD~1").strip() != head
    assert "AIDLC-CI-009" in found and f"HEAD (moved it from {approved[:12]}" in found["AIDLC-CI-009"], found


@pytest.mark.parametrize("rewrite", ["git update-ref HEAD $(git commit-tree HEAD^{tree} -p HEAD~1 -m 'a person')",
                                     "git config log.showSignature true", "echo > .git/info/grafts",
                                     "git config -f .git/included/settings log.showSignature true"])
def test_checks_that_rewrite_the_history_record_nothing_at_the_walkthrough(hand: Path, rewrite: str) -> None:
    """`aidlc walkthrough` runs the checks in the person's repository: code they import that recommits the bolt's
    work without its trailer and moves HEAD there would have the person push that history (or changes how git
    reads it, in a settings file or one that a settings file includes: before, an included file was not watched).
    Before: the checks were recorded as passing, nothing said."""
    (hand / ".git/included").mkdir()
    (hand / ".git/included/settings").write_text("")
    with (hand / ".git/config").open("a", encoding="utf-8") as config:
        config.write('[includeIf "gitdir:/nowhere/"]\n\tpath = "./included/settings" ; watched, whatever the if\n')
    (hand / CALC).write_text(FIXED + f"\nimport subprocess as _subprocess\n\n_subprocess.run(['sh', '-c', {rewrite!r}],"
                             " check=True)\n")
    bolt_commit(hand, BOLT, "pay: total() adds the prices")
    head = git(hand, "rev-parse", "HEAD").strip()
    check_boxes(hand)
    report = walkthrough(hand)
    changed = (f"HEAD (moved it from {head[:12]}" if "update-ref" in rewrite else
               "git's settings" if "config" in rewrite else ".git/info/grafts")
    assert any(f"the checks ran and changed {changed}" in note for note in report["notes"]), report["notes"]
    assert not item(report, "checks")["satisfied"]
    assert not [e for e in events(hand) if e["type"] == "check.recorded" and e.get("commit") == head]


def test_checks_that_only_move_other_refs_are_recorded(hand: Path) -> None:
    """A branch made or a remote ref fetched while the checks run (an editor's fetch, git's maintenance) moves
    nothing aidlc reads: the results are recorded."""
    (hand / CALC).write_text(FIXED + "\nimport subprocess as _subprocess\n\n_subprocess.run(['git', 'branch', '-f', "
                             "'scratch'], check=True)\n")
    bolt_commit(hand, BOLT, "pay: total() adds the prices")
    check_boxes(hand)
    report = walkthrough(hand)
    assert not any("the checks ran and changed" in note for note in report["notes"]), report["notes"]
    assert item(report, "checks")["satisfied"]


def test_a_check_line_whose_details_are_not_of_their_types_is_no_evidence_and_breaks_no_command(hand: Path) -> None:
    """A `check.recorded` line chained and hashed around aidlc, its `passed` the text "yes" and its test count "many":
    every reader leaves it out (AIDLC-LEDGER-018), so the walkthrough runs the checks itself, and no command that reads
    the ledger's checks stops on it."""
    head = git(hand, "rev-parse", "HEAD").strip()
    ledger = hand / "memory-bank/events.jsonl"
    line = len(ledger.read_bytes().splitlines()) + 1
    forge.append_events(ledger, [forge.event(
        line, ts=forge.stamp(datetime.now(UTC)), actor={"kind": "agent", "name": "aidlc bolt"}, commit=head,
        subject={"kind": "bolt", "id": BOLT}, data={"name": "tests", "command": "true", "exit_code": 0,
                                                    "passed": "yes", "tests": {"total": "many", "failures": 0,
                                                                               "errors": 0, "skipped": 0}})])
    check_boxes(hand)
    report = walkthrough(hand)
    assert [c["name"] for c in report["checks"]] == ["tests"] and report["checks"][0]["history"][0]["seq"] > line
    assert sum(e["type"] == "check.recorded" for e in events(hand)) == 2  # the forged line and the check aidlc ran
    for argv in (["status", "--format", "json"], ["bolt", "status", BOLT, "--format", "json"]):
        proc = run(hand, *argv)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (argv, proc.stderr)
    for argv in (["ci"], ["log", "verify"]):
        proc = run(hand, *argv)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, (argv, proc.stderr)
        assert f"events.jsonl:{line}" in proc.stdout and "a check result's passed: input should be a valid boolean" \
            in proc.stdout, (argv, proc.stdout)


def test_without_junit_independent_tests_need_the_runners_own_count(hand: Path) -> None:
    """A check with no JUnit report that prints no test runner's closing line proves no test ran: the old test file
    alone does not make the independent-tests item (medium risk); unittest's `Ran 1 test` does."""
    config = hand / "aidlc.yaml"
    runner = "python -m unittest discover -s tests -t . -q"
    config.write_text(config.read_text().replace(runner, "python -c pass"))
    person_commit(hand, "ci: a check that runs no test")
    (hand / CALC).write_text(FIXED + "# the bolt's head holds the person's change\n")
    bolt_commit(hand, BOLT, "pay: a comment")
    check_boxes(hand)
    item_of = next(i for i in walkthrough(hand)["verification"]["items"] if i["id"] == "independent-tests")
    assert not item_of["satisfied"] and "closing line" in item_of["detail"], item_of
    config.write_text(config.read_text().replace("python -c pass", runner))
    person_commit(hand, "ci: the tests again")
    (hand / CALC).write_text(FIXED)
    bolt_commit(hand, BOLT, "pay: without the comment")
    item_of = next(i for i in walkthrough(hand)["verification"]["items"] if i["id"] == "independent-tests")
    assert item_of["satisfied"] and "the test runner counted 1 test(s)" in item_of["detail"], item_of


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


def test_ci_refuses_a_branch_that_lowered_the_bases_critical_risk_to_complete_with_one_person(hand: Path) -> None:
    set_risk(hand, "critical", approve=False)  # critical at the base, with no approval recording it
    bolt_commit(hand, BOLT, "memory-bank: the bolt is critical")
    base = git(hand, "rev-parse", "HEAD").strip()
    set_risk(hand, "low", was="critical")  # the branch: one person lowers it and approves again
    check_boxes(hand)
    walkthrough(hand)
    assert approve(hand).returncode == 0  # the gate sees a low-risk bolt
    bolt_commit(hand, BOLT, "memory-bank: walkthrough approved")
    found = ci_codes(hand, base)
    assert "critical risk needs two people's approvals" in found["AIDLC-CI-009"], found


def test_ci_refuses_one_approval_of_a_bolt_whose_plan_was_approved_critical(hand: Path, server: ScriptedServer) -> None:
    set_risk(hand, "critical")
    bolt_commit(hand, BOLT, "memory-bank: the bolt is critical")
    base = git(hand, "rev-parse", "HEAD").strip()
    set_risk(hand, "low", was="critical")
    check_boxes(hand)
    server.push(chat(json.dumps({"concerns": []})))
    walkthrough(hand, "--base-url", server.url)
    written_around_the_gate(hand)  # the one approval the gate would have held as the first of two
    bolt_commit(hand, BOLT, "memory-bank: walkthrough approved")
    found = ci_codes(hand, base)
    assert "critical risk needs two people's approvals" in found["AIDLC-CI-009"], found


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


def _validated(document: dict) -> None:
    """The in-toto-attestation package's own check of a Statement v1."""
    from google.protobuf import json_format
    from in_toto_attestation.v1 import statement_pb2
    from in_toto_attestation.v1.statement import Statement

    Statement.copy_from_pb(json_format.ParseDict(document, statement_pb2.Statement())).validate()


def _with_a_persons_commit_between(root: Path) -> str:
    """After the bolt's first commit, a person's unrelated commit, then a second commit of the bolt: the person's
    commit lies between the bolt's base and head. Returns its sha."""
    (root / "docs").mkdir()
    (root / "docs/notes.md").write_text("a person's notes\n")
    person_commit(root, "docs: notes")
    sha = git(root, "rev-parse", "HEAD").strip()
    (root / "src/pay/rounding.py").write_text("DIGITS = 2\n")
    bolt_commit(root, BOLT, "pay: rounding")
    return sha


def test_a_persons_commit_between_base_and_head_is_a_deviation_not_a_subject(hand: Path, tmp_path: Path) -> None:
    persons = _with_a_persons_commit_between(hand)
    target = tmp_path / "bolt.intoto.json"
    proc = run(hand, "walkthrough", BOLT, "--attest", str(target))
    assert proc.returncode in (0, 1), proc.stderr
    document = json.loads(target.read_text())
    _validated(document)
    assert [s["name"] for s in document["subject"]] == [CALC, "src/pay/rounding.py"]  # not docs/notes.md
    report = walkthrough(hand, "--no-run")
    assert "docs/notes.md" in [c["path"] for c in report["changes"]]  # the report's diff from base to head has it
    [deviation] = document["predicate"]["deviations"]
    assert deviation["commit"] == persons and deviation["paths"] == ["docs/notes.md"]
    assert deviation["author"] == "Ada Lovelace <ada@example.org>" and deviation["bolts"] == []
    assert len(document["predicate"]["commits"]) == 2 and persons not in document["predicate"]["commits"]
    assert f"--attest: commit {persons[:12]} by Ada Lovelace" in proc.stderr and "not attested" in proc.stderr


def test_a_signed_statement_verifies_with_ssh_keygen_against_allowed_signers(hand: Path, tmp_path: Path) -> None:
    import base64

    from aidlc.gates.signing import armor

    key = tmp_path / "ada"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada", "-f", str(key)], check=True)
    public = " ".join(Path(f"{key}.pub").read_text().split()[:2])
    signers = hand / "memory-bank/allowed_signers"
    signers.write_text(f'ada@example.org namespaces="aidlc" {public}\n')
    git(hand, "config", "gpg.format", "ssh")
    git(hand, "config", "user.signingkey", str(key))
    target = tmp_path / "bolt.intoto.json"
    proc = run(hand, "walkthrough", BOLT, "--attest", str(target), "--sign")
    assert proc.returncode == 0, proc.stderr
    envelope = json.loads(target.read_text())
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    payload = base64.b64decode(envelope["payload"])
    _validated(json.loads(payload))
    [signature] = envelope["signatures"]
    assert signature["keyid"].startswith("SHA256:")
    sigfile = tmp_path / "statement.sig"
    sigfile.write_text(armor(signature["sig"]))

    def verify(data: bytes) -> subprocess.CompletedProcess:  # as a reader does, with DSSE's PAE
        kind = envelope["payloadType"].encode()
        pae = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(data), data)
        return subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", "ada@example.org",
                               "-n", "aidlc", "-s", str(sigfile)], input=pae, capture_output=True)

    assert verify(payload).returncode == 0, verify(payload).stderr
    found = subprocess.run(["ssh-keygen", "-Y", "find-principals", "-f", str(signers), "-s", str(sigfile)],
                           capture_output=True, text=True)
    assert found.stdout.strip() == "ada@example.org"
    forged = payload.replace(CALC.encode(), b"src/pay/other.py")  # a subject changed after signing
    assert forged != payload and verify(forged).returncode != 0
    # The commands docs/ci.md gives, as a reader runs them beside the envelope.
    page = (Path(__file__).parent.parent / "docs" / "ci.md").read_text(encoding="utf-8")
    commands = re.search(r"```bash\n(.*?)```", page[page.index("**Attestations.**"):], flags=re.S)
    assert commands is not None
    shutil.copy(target, hand / "bolt.intoto.json")
    said = subprocess.run(["bash", "-euo", "pipefail", "-c", commands[1]], cwd=hand, capture_output=True, text=True)
    assert said.returncode == 0, said.stderr
    lines = said.stdout.splitlines()
    assert lines[0] == "ada@example.org" and lines[1].startswith('Good "aidlc" signature for ada@example.org')
    assert json.loads((hand / "payload.json").read_text()) == json.loads(payload)


def test_sign_without_a_key_git_signs_with_is_refused_and_writes_nothing(hand: Path, tmp_path: Path) -> None:
    target = tmp_path / "bolt.intoto.json"
    proc = run(hand, "walkthrough", BOLT, "--attest", str(target), "--sign")
    assert proc.returncode != 0 and "--sign, and" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not target.exists()
    alone = run(hand, "walkthrough", BOLT, "--sign")
    assert alone.returncode == 2 and "--sign signs the statement --attest writes" in alone.stderr


@pytest.mark.parametrize("option", ["--html", "--attest", "--output"])
def test_an_output_file_gets_its_missing_folders_and_an_unwritable_one_is_a_clear_error(
        hand: Path, tmp_path: Path, option: str) -> None:
    assert not (hand / WALKTHROUGH).exists()
    target = tmp_path / "new" / "folder" / "report.out"
    proc = run(hand, "walkthrough", BOLT, "--no-run", option, str(target))
    assert proc.returncode in (0, 1) and target.is_file(), proc.stderr
    (tmp_path / "a-file").write_text("in the way\n")
    blocked = tmp_path / "a-file" / "report.out"  # its folder is a file
    proc = run(hand, "walkthrough", BOLT, "--no-run", option, str(blocked))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"error: {option} {blocked}: cannot be written (" in proc.stderr and "nothing was written there" \
        in proc.stderr
    assert f"aidlc walkthrough {BOLT} {option} PATH" in proc.stderr
    assert (hand / WALKTHROUGH).exists() is (option != "--output")  # --output writes there instead


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
