"""aidlc status at scale: a summary that fits a screen by default, detail on request, everything in JSON.

The 10,000-story bank is the validate benchmark's generator (benchmarks/validate.py), built once for the
module; the views of one subject run on the small chain `aidlc new` builds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.evidence_sample import give_evidence
from tests.helpers import run_cli
from tests.test_gate import BOLT_ID, INTENT_ID, PLAN, STORY, approve, check_boxes, read, run, write

SCREEN = 40  # lines: a terminal's height, with room to spare


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("large") / "bank"
    benchmarks = Path(__file__).resolve().parent.parent / "benchmarks"
    sys.path.insert(0, str(benchmarks))
    try:
        from validate import generate_bank  # a script beside its sibling modules, as the benchmark runs it
    finally:
        sys.path.remove(str(benchmarks))
    shape = generate_bank(root, 10_000)
    assert (shape.stories, shape.bolts) == (10_000, 2_000)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_the_default_fits_a_screen_on_ten_thousand_stories(large: Path) -> None:
    proc = run_cli("status", str(large))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) <= SCREEN, proc.stdout  # it printed 2,571 lines before
    assert lines[1] == "  50 intents, 500 requirements, 500 units, 10000 stories, 2000 bolts"
    assert "  ... and 40 more intents: aidlc status --all" in lines
    assert any(line.startswith("  ... and ") and line.endswith(" more actions: aidlc status --all") for line in lines)
    assert lines[-1] == "aidlc status --all | --intent ID | --bolt ID | --pending    # the detail; -q: counts only"


def test_quiet_is_the_counts_only(large: Path) -> None:
    proc = run_cli("status", str(large), "-q")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 5
    assert lines[0] == "50 intents, 500 requirements, 500 units, 10000 stories, 2000 bolts"
    assert lines[3] == "validation: 0 errors, 1 warning"


def test_json_holds_everything(large: Path) -> None:
    proc = run_cli("status", str(large), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert len(document["intents"]) == 50 and len(document["bolts"]) == 2000
    assert sum(len(intent["units"]) for intent in document["intents"]) == 500
    assert sum(document["stories"].values()) == 10_000
    assert sum(bolt["stories"] for bolt in document["bolts"]) == sum(len(b["story_ids"]) for b in document["bolts"])
    assert len(document["next_actions"]) > 1000  # none cut short: a program reads it


# -- the views of one subject, on the small chain ----------------------------------------------------------

def text(root: Path, *args: str) -> str:
    result = run(root, "status", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_counts_are_in_the_singular_where_there_is_one(chain: Path) -> None:
    assert text(chain, "-q").splitlines()[0] == "1 intent, 2 requirements, 1 unit, 1 story, 1 bolt"
    assert f"  {INTENT_ID}  [draft]  inception phase, 2 requirements, 1 unit, stories: 1 draft" in text(chain)


def test_intent_view(chain: Path) -> None:
    out = text(chain, "--intent", "001")
    assert f"intent {INTENT_ID}  [draft]  inception phase, 2 requirements, 1 unit, stories: 1 draft" in out
    assert "  unit 001-checkout-api  [draft]  stories: 1 draft" in out
    assert f"bolt {BOLT_ID}  [planned]  unit 001-checkout-api, 1 story, risk medium" in out
    assert f"gates intent {INTENT_ID}: pending gate: requirements; no decisions yet" in out
    assert f"aidlc gate approve {INTENT_ID} --stage requirements" in out


def test_bolt_view(chain: Path) -> None:
    out = text(chain, "--bolt", "checkout-api")
    assert f"bolt {BOLT_ID}  [planned]  unit 001-checkout-api, 1 story, risk medium" in out
    assert "  stories: 001-pay-by-card" in out and "  requires bolts: none" in out
    assert f"gates bolt {BOLT_ID}: pending gate: plan; no decisions yet" in out
    assert "intent " not in out and "gates intent" not in out


def test_pending_lists_every_gate_waiting_for_a_person(chain: Path) -> None:
    out = text(chain, "--pending")
    assert f"gates intent {INTENT_ID}: pending gate: requirements; no decisions yet" in out
    assert f"  aidlc gate approve {INTENT_ID} --stage requirements" in out
    assert f"gates bolt {BOLT_ID}" not in out  # its plan gate has no plan to judge yet
    document = json.loads(run(chain, "--format", "json", "status", "--pending").stdout)
    assert [a["command"] for a in document["next_actions"]] == [f"aidlc gate approve {INTENT_ID} --stage requirements"]


def test_a_view_of_what_does_not_exist_lists_what_does(chain: Path) -> None:
    result = run(chain, "status", "--intent", "042")
    assert result.exit_code == 2 and f"no intent '042'; there are: {INTENT_ID}" in result.stderr
    result = run(chain, "status", "--bolt", "042")
    assert result.exit_code == 2 and f"no bolt '042' in memory-bank/bolts/; there are: {BOLT_ID}" in result.stderr
    result = run(chain, "status", "--all", "--pending")
    assert result.exit_code == 2 and "choose one of --all, --intent, --bolt and --pending" in result.stderr


def test_an_intent_and_unit_whose_stories_are_complete_are_not_shown_as_draft(chain: Path) -> None:
    for stage in ("requirements", "units", "stories", "bolt-plan"):
        approve(chain, INTENT_ID, stage)
    write(chain, PLAN, "# Plan\n\nAdd the payment endpoint.\n")
    approve(chain, BOLT_ID, "plan")
    check_boxes(chain)
    write(chain, f"{PLAN.rsplit('/', 1)[0]}/implementation-walkthrough.md", "# Walkthrough\n\nDone.\n")
    give_evidence(chain, BOLT_ID, run)
    approve(chain, BOLT_ID, "walkthrough")
    assert "status: complete" in read(chain, STORY)
    out = text(chain, "--all")
    assert (f"intent {INTENT_ID}  [complete, from its stories; the file says draft]  construction phase, "
            "2 requirements, 1 unit, stories: 1 complete") in out
    assert "  unit 001-checkout-api  [complete, from its stories; the file says draft]  stories: 1 complete" in out
    document = json.loads(run(chain, "--format", "json", "status").stdout)
    (intent,) = document["intents"]
    assert (intent["status"], intent["derived_status"]) == ("draft", "complete")
