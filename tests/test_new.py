"""aidlc new: artifacts from templates, next free numbers, links checked, nothing overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from aidlc.bank.config import load_config
from aidlc.bank.loader import load_bank
from aidlc.cli import cli
from aidlc.cli.app import MAX_ERROR
from aidlc.names import shorten
from aidlc.rules import validate


def aidlc(root: Path, *args: str) -> tuple[int, dict]:
    """Run a command in-process with --format json; return the exit code and the document."""
    result = CliRunner().invoke(cli, ["--repo", str(root), "--format", "json", *args])
    document = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.exit_code, document


def build_chain(root: Path) -> None:
    assert aidlc(root, "new", "intent", "Checkout & Payments!")[0] == 0
    assert aidlc(root, "new", "requirement", "Pay by card", "--intent", "1",
                 "--criterion", "**Given** a cart, **When** I pay by card, **Then** an order is created")[0] == 0
    assert aidlc(root, "new", "requirement", "p95 under 300 ms", "--kind", "NFR", "--priority", "should",
                 "--intent", "checkout-payments")[0] == 0
    assert aidlc(root, "new", "unit", "Checkout API", "--requirements", "FR-1,NFR-1")[0] == 0
    assert aidlc(root, "new", "story", "Pay by card", "--unit", "checkout-api", "--requirements", "FR-1",
                 "--criterion", "**Given** a cart, **When** I pay, **Then** an order exists")[0] == 0
    assert aidlc(root, "new", "bolt", "--unit", "001-checkout-api", "--stories", "001-pay-by-card",
                 "--risk", "medium", "--scope", "src/pay/**")[0] == 0


def test_a_whole_chain_validates_clean(repo: Path) -> None:
    build_chain(repo)
    bank_dir = repo / "memory-bank"
    intent = bank_dir / "intents/001-checkout-payments"
    assert (intent / "requirements.md").read_text().count("### FR-1: Pay by card") == 1
    assert "### NFR-1: p95 under 300 ms" in (intent / "requirements.md").read_text()
    assert "| 001-checkout-api | FR-1, NFR-1 |" in (intent / "units.md").read_text()
    story = (intent / "units/001-checkout-api/stories/001-pay-by-card.md").read_text()
    assert "assigned_bolt: 001-checkout-api" in story and "requirements: [FR-1]" in story
    bolt = (bank_dir / "bolts/001-checkout-api/bolt.md").read_text()
    assert "stories: [001-pay-by-card]" in bolt and 'scope: ["src/pay/**"]' in bolt and "risk: medium" in bolt
    assert "[001-pay-by-card]" in (bank_dir / "story-index.md").read_text()
    report = validate(load_bank(repo, load_config(repo)))
    assert report.findings == []


def test_numbers_increase_and_slugs_are_ascii(repo: Path) -> None:
    assert aidlc(repo, "new", "intent", "Première étape")[1]["id"] == "001-premiere-etape"
    assert aidlc(repo, "new", "intent", "Second")[1]["id"] == "002-second"
    code, doc = aidlc(repo, "new", "requirement", "A", "--intent", "002")
    assert code == 0 and doc["id"] == "002-second/FR-1"
    assert aidlc(repo, "new", "requirement", "B", "--intent", "002")[1]["id"] == "002-second/FR-2"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["new", "unit", "U", "--intent", "nope"], "no intent 'nope'"),
        (["new", "unit", "U", "--intent", "001", "--requirements", "FR-9"], "does not define FR-9"),
        (["new", "story", "S", "--unit", "ghost"], "no unit 'ghost'"),
        (["new", "story", "S", "--unit", "checkout-api", "--requirements", "NFR-7"], "does not define NFR-7"),
        (["new", "bolt", "--unit", "checkout-api", "--stories", "009-missing"], "has no story '009-missing'"),
        (["new", "bolt", "--unit", "checkout-api", "--stories", "001-pay-by-card", "--requires", "042-x"],
         "no bolt '042-x'"),
        (["new", "intent", "!!!"], "no letters or digits"),
    ],
)
def test_dangling_links_are_refused_and_nothing_is_written(repo: Path, args: list[str], message: str) -> None:
    build_chain(repo)
    before = contents(repo)
    result = CliRunner().invoke(cli, ["--repo", str(repo), *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Next steps:" in result.stderr
    assert contents(repo) == before


def contents(repo: Path) -> dict[str, bytes]:
    """Every file outside .git with its bytes: 'nothing written' means no file added, removed or changed."""
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*")
            if p.is_file() and ".git" not in p.parts}


def test_a_bolt_whose_story_cannot_take_it_writes_nothing(repo: Path) -> None:
    build_chain(repo)
    assert aidlc(repo, "new", "story", "Refund", "--unit", "checkout-api")[0] == 0
    second = next((repo / "memory-bank" / "intents").glob("*/units/*/stories/002-*.md"))
    second.write_text(second.read_text().replace("status: draft", "status: [draft"))  # front matter that won't parse
    before = contents(repo)
    result = CliRunner().invoke(cli, ["--repo", str(repo), "new", "bolt", "--unit", "checkout-api",
                                      "--stories", "001-pay-by-card,002-refund"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cannot update {second.relative_to(repo).as_posix()}" in result.output
    assert contents(repo) == before  # no bolt folder, and 001 did not get assigned_bolt


def test_requirement_keeps_the_persons_prose_and_unknown_keys(repo: Path) -> None:
    assert aidlc(repo, "new", "intent", "Checkout")[0] == 0
    path = repo / "memory-bank/intents/001-checkout/requirements.md"
    text = path.read_text().replace("phase: inception", "phase: inception\nowner: ada  # our own key")
    text = text.replace("## Functional Requirements", "## Functional Requirements\n\nOur notes, kept as written.")
    path.write_text(text)
    assert aidlc(repo, "new", "requirement", "Refunds", "--intent", "1")[0] == 0
    after = path.read_text()
    assert "owner: ada  # our own key" in after
    assert "Our notes, kept as written." in after
    assert after.index("### FR-1: Refunds") < after.index("## Non-Functional Requirements")


@pytest.mark.parametrize(("heading", "expected"), [
    ("### FR-1.2: Pay by card", "FR-2"),                  # a numbered part counts as its requirement
    (f"### FR-{'9' * 5000}: Pay by card", "FR-1"),       # thousands of digits number nothing
    ("### FR-4: Pay by card\n\n### NFR-9: Fast", "FR-5"),  # the other kind's numbers are its own
])
def test_the_next_requirement_number_reads_any_heading(repo: Path, heading: str, expected: str) -> None:
    assert aidlc(repo, "new", "intent", "Checkout")[0] == 0
    path = repo / "memory-bank/intents/001-checkout/requirements.md"
    path.write_text(path.read_text().replace("## Functional Requirements",
                                             f"## Functional Requirements\n\n{heading}\n\n- **Priority**: Must\n"))
    code, doc = aidlc(repo, "new", "requirement", "Refunds", "--intent", "1")
    assert (code, doc.get("id")) == (0, f"001-checkout/{expected}")
    assert f"### {expected}: Refunds" in path.read_text()


@pytest.mark.parametrize("ref", ["²", "9" * 5000])  # a digit int() refuses; more digits than it takes
def test_a_reference_that_is_no_number_names_nothing(repo: Path, ref: str) -> None:
    assert aidlc(repo, "new", "intent", "Checkout")[0] == 0
    result = CliRunner().invoke(cli, ["--repo", str(repo), "new", "requirement", "Refunds", "--intent", ref])
    assert result.exit_code == 2, result.exception  # a usage error, not a traceback
    # A reference of 5,000 digits is quoted by its ends (the error's length is bounded), not whole.
    assert f"error: {shorten(f'no intent {ref!r}', MAX_ERROR)}\n" in result.stderr
    assert "existing: 001-checkout" in result.stderr


def test_a_story_says_what_the_user_wants_in_their_words(repo: Path) -> None:
    build_chain(repo)
    code, doc = aidlc(repo, "new", "story", "Refund order", "--unit", "checkout-api", "--as-a", "shopper",
                      "--i-want", "my money back when I return an order", "--so-that", "I trust the shop")
    assert code == 0, doc
    text = (repo / doc["created"][0]).read_text()
    assert "**As a** shopper\n**I want** my money back when I return an order\n**So that** I trust the shop" in text
    assert validate(load_bank(repo, load_config(repo))).summary.errors == 0


def test_story_in_unit_with_existing_stories_gets_next_number(repo: Path) -> None:
    build_chain(repo)
    code, doc = aidlc(repo, "new", "story", "Refund order", "--unit", "checkout-api")
    assert code == 0 and doc["id"] == "002-refund-order"
    code, doc = aidlc(repo, "new", "bolt", "--unit", "checkout-api", "--stories", "002-refund-order",
                      "--requires", "001-checkout-api")
    assert code == 0 and doc["id"] == "002-checkout-api"
    assert "requires_bolts: [001-checkout-api]" in (repo / "memory-bank/bolts/002-checkout-api/bolt.md").read_text()


def test_new_without_a_bank_says_how_to_create_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--repo", str(tmp_path), "new", "intent", "X"])
    assert result.exit_code == 2
    assert "aidlc init" in result.stderr


# --- file-system refusals and permissions ----------------------------------------------------------

MB = "memory-bank"


def test_written_files_get_the_usual_permissions_and_edited_ones_keep_theirs(repo: Path) -> None:
    import os
    import stat

    build_chain(repo)
    story = next((repo / MB / "intents").glob("*/units/*/stories/001-*.md"))
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(story.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600
    story.chmod(0o664)
    assert aidlc(repo, "new", "bolt", "--unit", "001-checkout-api", "--stories", "001-pay-by-card")[0] == 0
    assert stat.S_IMODE(story.stat().st_mode) == 0o664  # assigned_bolt was set; the mode stayed


def test_a_file_aidlc_must_edit_that_is_not_utf8_is_named_with_its_line(repo: Path) -> None:
    build_chain(repo)
    requirements = next((repo / MB / "intents").glob("*/requirements.md"))
    requirements.write_bytes(requirements.read_bytes() + b"\n## Notes\n\ncaf\xe9\n")
    before = requirements.read_bytes()
    result = CliRunner().invoke(cli, ["--repo", str(repo), "new", "requirement", "Refunds", "--intent", "1"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    rel = requirements.relative_to(repo).as_posix()
    lines = before.count(b"\n")
    assert f"{rel}:{lines}: byte 0xe9" in result.output and "UTF-8" in result.output
    assert requirements.read_bytes() == before


def test_a_folder_aidlc_cannot_write_to_is_named_and_nothing_is_lost(repo: Path) -> None:
    import shutil
    import subprocess

    build_chain(repo)
    stories = next((repo / MB / "intents").glob("*/units/*/stories"))
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(stories)]).returncode != 0:
        pytest.skip("needs chattr +i (root ignores file modes)")
    try:
        before = sorted(p.name for p in stories.iterdir())
        result = CliRunner().invoke(cli, ["--repo", str(repo), "new", "story", "Refund", "--unit", "checkout-api"])
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert "cannot be written" in result.output and "stories/002-refund.md" in result.output
        assert "Next steps:" in result.output and sorted(p.name for p in stories.iterdir()) == before
    finally:
        subprocess.run(["chattr", "-i", str(stories)], check=True)


def test_a_unit_is_named_by_its_number_within_its_intent_as_the_intent_is(repo: Path) -> None:
    build_chain(repo)
    assert aidlc(repo, "new", "unit", "Refunds", "--intent", "1")[0] == 0
    code, doc = aidlc(repo, "new", "story", "Refund order", "--intent", "001", "--unit", "2")
    assert code == 0, doc
    assert doc["created"][0].startswith("memory-bank/intents/001-checkout-payments/units/002-refunds/stories/")
    code, doc = aidlc(repo, "new", "story", "Nowhere", "--intent", "001", "--unit", "3")
    assert code == 2 and "no unit '3' in intent 001-checkout-payments" in json.dumps(doc)
