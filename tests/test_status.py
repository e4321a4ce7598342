"""aidlc status: counts per level and the next safe action, derived from the files."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from aidlc.cli import cli
from tests.bolt_sample import BOLT, STORY, VERIFY, set_config
from tests.helpers import run_cli
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
    bolt.write_text(bolt.read_text().replace("status: planned", "status: shipped"))
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


# -- every suggestion is an action that succeeds, with its command ------------------------------------------------
def suggestions(root: Path, *args: str) -> list[dict]:
    proc = run_cli("--repo", str(root), "--format", "json", "status", *args, env={"AIDLC_ACTOR_KIND": ""})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    return doc["next_actions"] + doc["waiting"]


def test_a_gate_with_nothing_to_approve_is_not_suggested_what_it_needs_is(repo: Path) -> None:
    """A fresh intent's requirements.md is the template: its gate refuses an approval, so status suggests
    writing a requirement instead; once one exists, the suggested approval is recorded."""
    assert aidlc(repo, "new", "intent", "Checkout")[0] == 0
    commands = [a["command"] for a in suggestions(repo)]
    assert not [c for c in commands if c and c.startswith("aidlc gate approve")], commands
    assert any(c and c.startswith('aidlc new requirement "TITLE" --intent 001-checkout') for c in commands)
    assert aidlc(repo, "new", "requirement", "Pay", "--intent", "1",
                 "--criterion", "**Given** a cart, **When** I pay, **Then** an order exists")[0] == 0
    (approval,) = {a["command"] for a in suggestions(repo) if (a["command"] or "").startswith("aidlc gate approve")}
    proc = run_cli("--repo", str(repo), *approval.split()[1:], env={"AIDLC_ACTOR_KIND": ""})
    assert proc.returncode == 0, proc.stderr


def test_every_action_has_its_command_and_a_draft_story_is_never_nothing_to_do(repo: Path) -> None:
    build_chain(repo)  # a draft story in a planned bolt; no verify command yet
    actions = suggestions(repo)
    assert actions and all(a["command"] for a in actions), actions
    (draft,) = [a for a in actions if "is a draft" in a["reason"]]
    assert draft["command"].startswith("$EDITOR memory-bank/intents/001-checkout-payments/units/")
    proc = run_cli("--repo", str(repo), "status", "--intent", "001")
    assert "Nothing to do" not in proc.stdout and "001-pay-by-card of intent 001-checkout-payments is a draft" \
        in proc.stdout, proc.stdout


def test_a_bolt_that_can_start_names_the_command_that_starts_it(shop: Path) -> None:
    story = shop / STORY
    story.write_text(story.read_text().replace("status: draft", "status: ready"))
    (start,) = [a for a in suggestions(shop) if "can start" in a["reason"]]
    assert start["command"] == f"aidlc bolt start {BOLT}"
    set_config(shop, VERIFY, "verify: []\n")  # without a verify command `aidlc bolt start` refuses: status says so
    (start,) = [a for a in suggestions(shop) if "can start" in a["reason"]]
    assert "verify command" in start["reason"] and start["command"].startswith(f"aidlc bolt start {BOLT} --dry-run")
