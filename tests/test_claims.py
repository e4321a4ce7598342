"""Completion claims and where the ledger is: git's word, never the bank's own dates.

* AIDLC-LEDGER-008: a completion without gate decisions is adopted history (a warning) only when git
  shows it already so in the last commit before the ledger, its file unchanged since; otherwise it is an
  error (002/003/004), which says what git shows instead, or what evidence is missing where git cannot.
* AIDLC-LEDGER-003: a story's completion is covered only by an approved walkthrough of a bolt of its
  intent that lists it (`assigned_bolt` alone grants nothing).
* AIDLC-LEDGER-013: a ledger that git holds but the work tree lacks is an error, with the restore command;
  AIDLC-LEDGER-007 stays a warning only for a bank that never had a ledger.

Real git repositories (commits, deletions, renames, shallow clones) in temporary folders.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from aidlc.events.ledger import Ledger
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from aidlc.model.findings import Finding
from aidlc.model.types import Severity
from aidlc.vcs import process
from tests import helpers
from tests.helpers import BOLT1, MB, REQUIREMENTS, STORY1, Bank, complete_first_bolt, run_cli

LEDGER = f"{MB}/events.jsonl"
GIT_ENV = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@x.org", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@x.org"}
CLAIMS = ("AIDLC-LEDGER-002", "AIDLC-LEDGER-003", "AIDLC-LEDGER-004", "AIDLC-LEDGER-008")


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT_ENV})
    return proc.stdout.strip()


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")


def start_ledger(root: Path) -> Ledger:
    ledger = Ledger(root / LEDGER, root)
    ledger.append(EventType.ledger_created, Actor(kind=ActorKind.human, name="Ada"), key="ledger.created")
    return ledger


def claims(bank: Bank) -> dict[str, list[Finding]]:
    found = bank.findings()
    return {code: [f for f in found if f.code == code] for code in CLAIMS}


def where(found: list[Finding]) -> list[tuple[str, int | None]]:
    return sorted((f.path, f.line) for f in found)


def completed_where(bank: Bank) -> list[tuple[str, int | None]]:
    """The three claims of `complete_first_bolt`: the bolt, its story, and the intent past inception."""
    return sorted([(BOLT1, bank.line(BOLT1, "status:")), (STORY1, bank.line(STORY1, "status:")),
                   (REQUIREMENTS, bank.line(REQUIREMENTS, "phase:"))])


def errors(bank: Bank) -> list[Finding]:
    return [f for f in bank.findings() if f.severity == Severity.error]


# -- AIDLC-LEDGER-008: adopted history is what git shows in the last commit before the ledger ----------------------
def adopted_note(before: str, was: str = "completed") -> str:
    return f"unattested, {was} before aidlc governed this bank (so in commit {before[:12]}, the last before the " \
        "ledger, and unchanged since): "


def adopt(bank: Bank) -> str:
    """The bank committed as it is, then the ledger started in a commit of its own: the commit before it."""
    before = commit(bank.root, "a specs.md bank with history")
    start_ledger(bank.root)
    commit(bank.root, "aidlc: start the ledger")
    return before


def test_008_completions_committed_before_the_ledger_are_adopted_history(bank: Bank) -> None:
    complete_first_bolt(bank)
    before = adopt(bank)
    found = claims(bank)
    assert where(found["AIDLC-LEDGER-008"]) == completed_where(bank)
    assert all(f.severity == Severity.warning and f.adopted == before for f in found["AIDLC-LEDGER-008"])
    story = next(f for f in found["AIDLC-LEDGER-008"] if f.path == STORY1)
    assert story.message.startswith(adopted_note(before) + "story 001-pay-by-card is complete")
    intent = next(f for f in found["AIDLC-LEDGER-008"] if f.path == REQUIREMENTS)
    assert intent.message.startswith(adopted_note(before, "in construction"))
    assert errors(bank) == []


def test_008_completions_committed_with_the_ledger_are_not_history(bank: Bank) -> None:
    """The ledger's own commit is not before it: a completion it brings is judged like any later one."""
    before = commit(bank.root, "a specs.md bank, in progress")
    complete_first_bolt(bank)
    start_ledger(bank.root)
    commit(bank.root, "adopt aidlc, and finish bolt 001 on the way")
    found = claims(bank)
    assert where(found["AIDLC-LEDGER-002"]) == [(BOLT1, bank.line(BOLT1, "status:"))]
    assert found["AIDLC-LEDGER-002"][0].message.endswith(
        f"(it was not complete in commit {before[:12]}, the last before the ledger)")
    assert where(found["AIDLC-LEDGER-008"]) == [(REQUIREMENTS, bank.line(REQUIREMENTS, "phase:"))]


def test_008_a_bank_that_came_with_its_ledger_has_no_history(bank: Bank) -> None:
    complete_first_bolt(bank)
    start_ledger(bank.root)
    first = commit(bank.root, "a bank and its ledger, at once")
    found = claims(bank)
    assert found["AIDLC-LEDGER-008"] == []
    assert where(found["AIDLC-LEDGER-002"] + found["AIDLC-LEDGER-003"] + found["AIDLC-LEDGER-004"]) \
        == completed_where(bank)
    assert found["AIDLC-LEDGER-002"][0].message.endswith(
        f"(no commit shows it was so before the ledger: the ledger came with the repository's first commit "
        f"{first[:12]}, so no commit is older than it)")


def test_008_completions_in_specs_md_status_words_are_adopted_history(bank: Bank) -> None:
    # specs.md's own words for complete: what git shows at the ledger's creation is read as the bank reads it.
    complete_first_bolt(bank)
    bank.set_key(BOLT1, "status", "completed")
    bank.set_key(STORY1, "status", "Done")
    commit(bank.root, "a specs.md bank with history")
    start_ledger(bank.root)
    commit(bank.root, "aidlc: start the ledger")
    assert where(claims(bank)["AIDLC-LEDGER-008"]) == completed_where(bank)
    assert errors(bank) == []


def test_008_a_backdated_hand_completion_after_the_ledger_is_an_error(bank: Bank) -> None:
    # The hole: `completed:` written before the ledger's creation time made this an unattested warning.
    before = adopt(bank)
    complete_first_bolt(bank)
    bank.set_key(BOLT1, "started", "2020-01-01T00:00:00Z")
    bank.set_key(BOLT1, "completed", "2020-01-02T00:00:00Z")
    commit(bank.root, "done, honestly (in 2020)")
    found = claims(bank)
    assert where(found["AIDLC-LEDGER-002"]) == [(BOLT1, bank.line(BOLT1, "status:"))]
    assert where(found["AIDLC-LEDGER-003"]) == [(STORY1, bank.line(STORY1, "status:"))]
    bolt, story = found["AIDLC-LEDGER-002"][0], found["AIDLC-LEDGER-003"][0]
    assert bolt.message.endswith(f"(it was not complete in commit {before[:12]}, the last before the ledger)")
    assert bolt.fix == "aidlc gate approve 001-checkout-api --stage plan"
    assert f"was not complete in commit {before[:12]}" in story.message
    # The intent was in construction before the ledger (bolt 001 was in progress), and requirements.md is as it
    # was: that part is history.
    assert where(found["AIDLC-LEDGER-008"]) == [(REQUIREMENTS, bank.line(REQUIREMENTS, "phase:"))]
    assert found["AIDLC-LEDGER-004"] == []


def test_008_a_completion_edited_after_the_ledger_is_an_error_again(bank: Bank) -> None:
    complete_first_bolt(bank)
    before = adopt(bank)
    assert errors(bank) == []
    bank.replace(STORY1, "# Story", "# Story (reworded)")
    commit(bank.root, "touch up an old story")
    found = claims(bank)
    assert where(found["AIDLC-LEDGER-003"]) == [(STORY1, bank.line(STORY1, "status:"))]
    assert found["AIDLC-LEDGER-003"][0].severity == Severity.error
    assert found["AIDLC-LEDGER-003"][0].message.endswith(
        f"(it was complete in commit {before[:12]}, the last before the ledger, but its file changed after aidlc "
        "governed this bank)")
    assert len(found["AIDLC-LEDGER-008"]) == 2  # the bolt and the intent, untouched, stay history


def test_008_an_intent_moved_to_construction_by_hand_after_the_ledger_is_an_error(bank: Bank) -> None:
    bank.set_key(BOLT1, "status", "planned")
    bank.set_key(BOLT1, "started", "null")
    before = adopt(bank)
    bank.set_key(REQUIREMENTS, "phase", "construction")
    bank.set_key(REQUIREMENTS, "updated", "2020-01-01T00:00:00Z")
    found = claims(bank)
    assert where(found["AIDLC-LEDGER-004"]) == [(REQUIREMENTS, bank.line(REQUIREMENTS, "phase:"))]
    assert found["AIDLC-LEDGER-004"][0].message.endswith(
        f"(it was not in construction in commit {before[:12]}, the last before the ledger)")


def test_008_a_story_that_did_not_exist_before_the_ledger_is_not_history(bank: Bank) -> None:
    story = helpers.STORY1
    text = bank.read(story)
    bank.remove(story)
    before = adopt(bank)
    bank.write(story, text)
    complete_first_bolt(bank)
    commit(bank.root, "the story, done")
    found = claims(bank)["AIDLC-LEDGER-003"]
    assert where(found) == [(story, bank.line(story, "status:"))]
    assert found[0].message.endswith(f"(it did not exist in commit {before[:12]}, the last before the ledger)")


def test_008_a_new_genesis_does_not_move_the_creation_commit(bank: Bank) -> None:
    before = adopt(bank)
    bank.remove(LEDGER)
    commit(bank.root, "drop the ledger")
    complete_first_bolt(bank)
    start_ledger(bank.root)  # a fresh genesis, written by hand over the completions
    commit(bank.root, "a new ledger")
    found = claims(bank)
    assert where(found["AIDLC-LEDGER-008"]) == [(REQUIREMENTS, bank.line(REQUIREMENTS, "phase:"))]
    assert f"was not complete in commit {before[:12]}" in found["AIDLC-LEDGER-002"][0].message


def test_008_history_follows_a_moved_bank(bank: Bank) -> None:
    complete_first_bolt(bank)
    adopt(bank)
    git(bank.root, "mv", MB, "docs")
    bank.write("aidlc.yaml", "version: 1\nmemory_bank: docs\n")
    commit(bank.root, "the bank moves to docs/")
    found = claims(bank)
    assert len(found["AIDLC-LEDGER-008"]) == 3 and errors(bank) == []


def test_008_while_the_ledger_is_not_committed_head_is_before_it(bank: Bank) -> None:
    """`aidlc init` has just started the ledger: every commit is older than it, and what HEAD holds complete is
    history; a completion not committed yet is not."""
    complete_first_bolt(bank)
    head = commit(bank.root, "a specs.md bank with history")
    start_ledger(bank.root)
    found = claims(bank)
    assert where(found["AIDLC-LEDGER-008"]) == completed_where(bank) and errors(bank) == []
    assert {f.adopted for f in found["AIDLC-LEDGER-008"]} == {head}
    bank.set_key(helpers.BOLT2, "status", "complete")  # done in the work tree only
    bank.set_key(helpers.BOLT2, "completed", "2020-01-02T00:00:00Z")
    found = claims(bank)
    assert where(found["AIDLC-LEDGER-002"]) == [(helpers.BOLT2, bank.line(helpers.BOLT2, "status:"))]
    assert found["AIDLC-LEDGER-002"][0].message.endswith(
        f"(it was not complete in commit {head[:12]}, the last before the ledger)")


@pytest.mark.parametrize("setting", ["nothing committed", "no repository"])
def test_008_without_a_commit_to_show_it_a_completion_is_an_error_that_says_why(bank: Bank, setting: str) -> None:
    complete_first_bolt(bank)
    start_ledger(bank.root)
    if setting == "no repository":
        subprocess.run(["rm", "-rf", str(bank.root / ".git")], check=True)
    found = claims(bank)
    assert found["AIDLC-LEDGER-008"] == []
    assert where(found["AIDLC-LEDGER-002"] + found["AIDLC-LEDGER-003"] + found["AIDLC-LEDGER-004"]) \
        == completed_where(bank)
    gap, fetch = {"nothing committed": ("nothing is committed yet", f"git add {MB} && git commit"),
                  "no repository": ("this bank is not in a git repository", f"git init && git add {MB} && git commit"),
                  }[setting]
    message = found["AIDLC-LEDGER-002"][0].message
    assert f"no commit shows it was so before the ledger: {gap} (`{fetch}` gives git that evidence)" in message


def test_008_a_shallow_clone_cannot_show_history_until_it_is_fetched(bank: Bank, tmp_path: Path) -> None:
    complete_first_bolt(bank)
    adopt(bank)
    bank.write("README.md", "later work\n")
    commit(bank.root, "later")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{bank.root}", str(clone)], check=True)
    shallow = Bank(clone)
    found = claims(shallow)
    assert found["AIDLC-LEDGER-008"] == [] and len(found["AIDLC-LEDGER-002"]) == 1
    assert "this clone is shallow (`git fetch --unshallow` gives git that evidence)" in \
        found["AIDLC-LEDGER-002"][0].message
    git(clone, "fetch", "-q", "--unshallow")
    assert len(claims(shallow)["AIDLC-LEDGER-008"]) == 3 and errors(shallow) == []


def test_008_one_git_walk_per_validate_run(bank: Bank, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(3, 73):  # seventy more complete stories in bolt 001: many claims, one question to git
        rel = f"{helpers.UNIT_DIR}/stories/{n:03}-more.md"
        bank.write(rel, bank.read(STORY1).replace("id: 001-pay-by-card", f"id: {n:03}-more"))
        bank.replace(BOLT1, "  - 001-pay-by-card\n", f"  - 001-pay-by-card\n  - {n:03}-more\n")
    complete_first_bolt(bank)
    for n in range(3, 73):
        bank.replace(f"{helpers.UNIT_DIR}/stories/{n:03}-more.md", "status: in-progress", "status: complete")
    adopt(bank)
    bank.replace(f"{helpers.UNIT_DIR}/stories/003-more.md", "# Story", "# Story, edited")  # one changed since
    calls: list[str] = []
    original = process.git_process
    monkeypatch.setattr(process, "git_process", lambda where, args, *a, **k: calls.append(args[0]) or
                        original(where, args, *a, **k))
    found = claims(bank)
    assert len(found["AIDLC-LEDGER-008"]) == 72 and len(found["AIDLC-LEDGER-003"]) == 1
    # The commit that added the ledger, whether it moved it, the files before it, which of them changed since
    # (git's index, not a read of each file), and the front matter then of the one that did.
    assert calls == ["log", "diff-tree", "ls-tree", "diff", "cat-file"]


# -- AIDLC-LEDGER-003: no borrowed approvals ------------------------------------------------------------------------
def _approve_walkthrough(root: Path, bolt: str) -> None:
    Ledger(root / LEDGER, root).append(
        EventType.gate_decided, Actor(kind=ActorKind.human, name="Ada", email="ada@x.org"),
        subject=Subject(kind="bolt", id=bolt), stage="walkthrough", decision=Decision.approve,
        fingerprint=FileDigest(path=f"{MB}/bolts/{bolt}/implementation-walkthrough.md", sha256="0" * 64))


GIFT = f"{helpers.UNIT_DIR}/stories/003-gift-card.md"


def _gift_card_story(bank: Bank) -> None:
    """A third story of intent 001-checkout, complete by hand."""
    text = bank.read(STORY1).replace("id: 001-pay-by-card", "id: 003-gift-card").replace("- [ ]", "- [x]")
    bank.write(GIFT, text.replace("status: in-progress", "status: complete").replace("implemented: false",
               "implemented: true").replace("assigned_bolt: 001-checkout-api", "assigned_bolt: 002-checkout-refunds"))


def test_003_assigned_bolt_alone_grants_nothing(bank: Bank) -> None:
    start_ledger(bank.root)
    commit(bank.root, "aidlc: start the ledger")
    _gift_card_story(bank)  # assigned to bolt 002, which does not list it
    _approve_walkthrough(bank.root, "002-checkout-refunds")
    found = claims(bank)["AIDLC-LEDGER-003"]
    assert where(found) == [(GIFT, bank.line(GIFT, "status:"))]
    assert "no approved walkthrough covers it (no bolt of its intent lists it; its assigned_bolt " \
           "002-checkout-refunds does not)" in found[0].message
    assert found[0].fix == ("add 003-gift-card to the `stories:` of bolt 002-checkout-refunds, then a person "
                            "approves its walkthrough")
    bank.replace(helpers.BOLT2, "stories: [002-refund-order]", "stories: [002-refund-order, 003-gift-card]")
    assert claims(bank)["AIDLC-LEDGER-003"] == []  # listed by the approved bolt: covered


def test_003_a_bolt_of_another_intent_lends_no_approval(bank: Bank) -> None:
    other = f"{MB}/intents/002-returns"
    bank.write(f"{other}/requirements.md", bank.read(REQUIREMENTS).replace("intent: 001-checkout",
                                                                          "intent: 002-returns"))
    bank.write(f"{other}/units/001-returns-api/unit-brief.md", bank.read(helpers.UNIT_BRIEF)
               .replace("unit: 001-checkout-api", "unit: 001-returns-api").replace("intent: 001-checkout",
                                                                                  "intent: 002-returns"))
    bank.write(f"{MB}/bolts/003-returns/bolt.md", bank.read(helpers.BOLT2)
               .replace("id: 002-checkout-refunds", "id: 003-returns").replace("unit: checkout-api",
                                                                              "unit: 001-returns-api")
               .replace("intent: 001-checkout", "intent: 002-returns").replace("[002-refund-order]", "[003-gift-card]"))
    start_ledger(bank.root)
    commit(bank.root, "aidlc: start the ledger")
    _gift_card_story(bank)
    _approve_walkthrough(bank.root, "003-returns")
    found = claims(bank)["AIDLC-LEDGER-003"]
    assert where(found) == [(GIFT, bank.line(GIFT, "status:"))]
    assert "no bolt of its intent lists it" in found[0].message


# -- AIDLC-LEDGER-013 and 007: a lost ledger, and a bank that never had one ---------------------------------------
def _lost(bank: Bank) -> list[Finding]:
    return bank.findings("AIDLC-LEDGER-013")


def test_013_a_ledger_deleted_from_the_work_tree_is_restored_from_head(bank: Bank) -> None:
    start_ledger(bank.root)
    commit(bank.root, "aidlc: start the ledger")
    assert _lost(bank) == []
    bank.remove(LEDGER)  # nothing complete: before, this was silent
    found = _lost(bank)
    assert where(found) == [(LEDGER, None)] and found[0].severity == Severity.error
    assert "is missing, but HEAD has it" in found[0].message
    assert found[0].fix == f"git restore --source=HEAD --staged --worktree -- {LEDGER}; aidlc log verify"


def test_013_a_ledger_removed_by_a_commit_names_the_commit_that_still_has_it(bank: Bank) -> None:
    start_ledger(bank.root)
    kept = commit(bank.root, "aidlc: start the ledger")
    bank.remove(LEDGER)
    removed = commit(bank.root, "tidy up")
    complete_first_bolt(bank)
    commit(bank.root, "done by hand")
    found = _lost(bank)
    restore = f"git restore --source={kept} --staged --worktree -- {LEDGER}"
    assert where(found) == [(LEDGER, None)] and restore in found[0].fix
    assert f"commit {kept[:12]} has it (a later commit removed it)" in found[0].message
    assert bank.findings("AIDLC-LEDGER-007") == []  # not a bank that never had a ledger
    for command in (("log", "verify"), ("log", "show"), ("init", str(bank.root)),
                    ("gate", "approve", "001-checkout-api", "--stage", "plan", "--as", "Ada <ada@x.org>")):
        proc = run_cli("--repo", str(bank.root), *command, cwd=bank.root)
        assert proc.returncode == 2 and restore in proc.stderr and "Traceback" not in proc.stderr, command
        assert not (bank.root / LEDGER).exists()  # init did not start a new history
    subprocess.run(restore.split(), cwd=bank.root, check=True)  # the next step, as printed, works
    assert git(bank.root, "show", f"{kept}:{LEDGER}") == bank.read(LEDGER).strip()
    assert removed != kept


def test_013_a_ledger_lost_in_a_merge_is_restored_from_the_side_that_had_it(bank: Bank) -> None:
    commit(bank.root, "a bank")
    git(bank.root, "checkout", "-qb", "adopt")
    start_ledger(bank.root)
    side = commit(bank.root, "aidlc: start the ledger")
    git(bank.root, "checkout", "-q", "-")
    git(bank.root, "merge", "-q", "--no-ff", "--no-commit", "adopt")
    git(bank.root, "rm", "-qf", LEDGER)
    git(bank.root, "commit", "-qm", "merge, without the ledger")
    assert f"--source={side} " in _lost(bank)[0].fix


def test_013_a_shallow_clone_with_completions_cannot_show_it_never_had_a_ledger(bank: Bank, tmp_path: Path) -> None:
    start_ledger(bank.root)
    commit(bank.root, "aidlc: start the ledger")
    bank.remove(LEDGER)
    commit(bank.root, "drop it")
    complete_first_bolt(bank)
    commit(bank.root, "done by hand")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{bank.root}", str(clone)], check=True)
    found = Bank(clone).findings("AIDLC-LEDGER-013")
    assert where(found) == [(LEDGER, None)] and "this clone is shallow" in found[0].message
    assert "git fetch --unshallow" in found[0].fix and Bank(clone).findings("AIDLC-LEDGER-007") == []
    proc = run_cli("init", str(clone), cwd=clone)  # init never starts a genesis history may hold
    assert proc.returncode == 2 and "git fetch --unshallow" in proc.stderr and not (clone / LEDGER).exists()
    git(clone, "fetch", "-q", "--unshallow")
    assert "--source=" in Bank(clone).findings("AIDLC-LEDGER-013")[0].fix


def test_007_a_bank_that_never_had_a_ledger_keeps_its_warning(bank: Bank) -> None:
    complete_first_bolt(bank)
    commit(bank.root, "a specs.md bank")
    assert [f.code for f in bank.findings() if f.code.startswith("AIDLC-LEDGER")] == ["AIDLC-LEDGER-007"]
    assert bank.findings("AIDLC-LEDGER-007")[0].severity == Severity.warning
