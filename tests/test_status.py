"""aidlc status: counts per level and the next safe action, derived from the files."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from aidlc.cli import cli
from tests.test_new import aidlc, build_chain


def status(root: Path) -> dict:
    result = CliRunner().invoke(cli, ["--repo", str(root), "--format", "json", "status"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_empty_bank_suggests_an_intent(repo: Path) -> None:
    doc = status(repo)
    assert doc["counts"] == {"intents": 0, "requirements": 0, "units": 0, "stories": 0, "bolts": 0}
    assert doc["next_actions"][0]["command"] == 'aidlc new intent "TITLE"'


def test_counts_and_statuses(repo: Path) -> None:
    build_chain(repo)
    doc = status(repo)
    assert doc["counts"] == {"intents": 1, "requirements": 2, "units": 1, "stories": 1, "bolts": 1}
    assert doc["stories"] == {"draft": 1}
    assert doc["bolts_by_status"] == {"planned": 1}
    assert doc["intents"][0]["units"][0]["stories"] == {"draft": 1}
    assert doc["errors"] == 0


def test_ready_story_without_bolt_is_the_next_action(repo: Path) -> None:
    build_chain(repo)
    assert aidlc(repo, "new", "story", "Refund", "--unit", "checkout-api")[0] == 0
    story = repo / "memory-bank/intents/001-checkout-payments/units/001-checkout-api/stories/002-refund.md"
    story.write_text(story.read_text().replace("status: draft", "status: ready"))
    doc = status(repo)
    first = doc["next_actions"][0]
    assert "002-refund" in first["reason"]
    assert first["command"] == ("aidlc new bolt --intent 001-checkout-payments --unit 001-checkout-api "
                                "--stories 002-refund")


def test_errors_come_first_and_text_output_names_them(repo: Path) -> None:
    build_chain(repo)
    bolt = repo / "memory-bank/bolts/001-checkout-api/bolt.md"
    bolt.write_text(bolt.read_text().replace("status: planned", "status: finished"))
    doc = status(repo)
    assert doc["errors"] == 1
    assert "AIDLC-SCHEMA-002" in doc["next_actions"][0]["reason"]
    result = CliRunner().invoke(cli, ["--repo", str(repo), "status"])
    assert "Next safe action:" in result.stdout and "aidlc validate" in result.stdout


def test_an_intents_line_shows_its_phase_and_counts(repo: Path) -> None:
    build_chain(repo)
    requirements = repo / "memory-bank/intents/001-checkout-payments/requirements.md"
    assert "phase: inception" in requirements.read_text()
    assert status(repo)["intents"][0]["phase"] == "inception"
    requirements.write_text(requirements.read_text().replace("phase: inception", "phase: construction"))
    result = CliRunner().invoke(cli, ["--repo", str(repo), "status", "--all"])
    line = next(line for line in result.stdout.splitlines() if "001-checkout-payments  [" in line)
    assert "construction phase, 2 requirements, 1 unit, stories: 1 draft" in line
