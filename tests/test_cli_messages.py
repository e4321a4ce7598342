"""The CLI says what it means: the exact advice of each message a person meets when something is not
right yet. Real git repos scaffolded by `aidlc init --git`, real subprocesses where the process matters."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from aidlc.cli import cli
from aidlc.cli.app import MAX_ERROR
from tests.helpers import STORY1, STORY2, Bank, corpus_dir
from tests.helpers import run_cli_process as run_cli  # the real process: these tests are about it
from tests.test_gate import BOLT_ID, INTENT_ID, LEDGER, PLAN, STORY, approve, decisions, gate, read, run, write

NEXT = "Next steps:\n"


def steps(stderr: str) -> list[str]:
    """The lines under `Next steps:`, without their indentation."""
    assert NEXT in stderr, stderr
    return [line.strip() for line in stderr.split(NEXT, 1)[1].splitlines() if line.startswith("  ")]


# -- global options after the command name ---------------------------------------------------------------

def test_repo_is_accepted_after_the_command_name(chain: Path, tmp_path: Path) -> None:
    proc = run_cli("validate", "--repo", str(chain), "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"errors": 0' in proc.stdout
    proc = run_cli("gate", "approve", "001", "--repo", str(chain), "--stage", "requirements", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(("group", "command"), [
    ("audit", "append"), ("bolt", "abort"), ("gate", "approve"), ("llm", "check"), ("log", "verify"), ("new", "intent"),
    ("schema", "export")])
def test_a_command_group_takes_the_global_options_before_its_command(chain: Path, group: str, command: str) -> None:
    # `aidlc gate --format json approve ...` was refused: "No such option '--format'".
    result = CliRunner().invoke(cli, [group, "--repo", str(chain), "--format", "json", "-q", command, "--help"],
                                prog_name="aidlc")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: aidlc {group} {command} ")


def test_global_options_before_a_group_s_command_take_effect(chain: Path, tmp_path: Path) -> None:
    # the --repo after `gate` names the repository over the one before it (an empty folder)
    result = run(tmp_path, "gate", "--repo", str(chain), "--format", "json", "approve", "042", "--stage",
                 "requirements")
    assert result.exit_code == 2, result.output
    assert json.loads(result.stdout)["error"]["message"].startswith("no intent or bolt named '042'")


# -- gate subjects named as `aidlc new` names them --------------------------------------------------------

@pytest.mark.parametrize("subject", ["001", "1", "checkout-payments", INTENT_ID, f"intent:{INTENT_ID}", "intent:001"])
def test_an_intent_gate_subject_by_number_slug_or_name(chain: Path, subject: str) -> None:
    approve(chain, subject, "requirements")
    assert [(d["subject"]["kind"], d["subject"]["id"]) for d in decisions(chain)] == [("intent", INTENT_ID)]


@pytest.mark.parametrize("subject", ["001", "checkout-api", BOLT_ID, "bolt:001"])
def test_a_bolt_gate_subject_by_number_slug_or_name(chain: Path, subject: str) -> None:
    for stage in ("requirements", "units", "stories", "bolt-plan"):
        approve(chain, INTENT_ID, stage)
    write(chain, PLAN, "# Plan\n\nAdd the payment endpoint.\n")
    approve(chain, subject, "plan")  # `001` names the intent too: only the bolt has a plan gate
    assert (decisions(chain)[-1]["subject"], decisions(chain)[-1]["stage"]) == ({"kind": "bolt", "id": BOLT_ID}, "plan")


def test_an_unknown_subject_lists_what_exists(chain: Path) -> None:
    result = gate(chain, "approve", "042", "requirements")
    assert result.exit_code == 2
    assert f"no intent or bolt named '042'; there are: intent {INTENT_ID}, bolt {BOLT_ID}" in result.stderr
    assert steps(result.stderr) == [
        "aidlc status    # the intents and bolts that exist",
        "name one by its number (001), its name (checkout) or its folder (001-checkout); prefix the kind when a "
        "name is both: bolt:ID, intent:ID, release:ID"]


def test_a_subject_of_5000_digits_is_quoted_by_its_ends_in_the_error(chain: Path) -> None:
    result = gate(chain, "approve", "7" * 5000, "requirements")
    assert result.exit_code == 2
    message = result.stderr.split("\n", 1)[0]
    assert message.startswith("error: no intent or bolt named '777") and " ... " in message
    assert message.endswith(f"there are: intent {INTENT_ID}, bolt {BOLT_ID}")  # what exists, still said
    assert len(message) <= len("error: ") + MAX_ERROR
    assert steps(result.stderr)[0] == "aidlc status    # the intents and bolts that exist"
    as_json = run(chain, "--format", "json", "gate", "approve", "7" * 5000, "--stage", "requirements")
    assert as_json.exit_code == 2 and len(json.loads(as_json.stdout)["error"]["message"]) <= MAX_ERROR


# -- next steps right for the situation --------------------------------------------------------------------

def test_an_empty_folder_outside_git_is_told_to_init_with_git(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    proc = run_cli("status", cwd=folder)
    assert proc.returncode == 2
    assert steps(proc.stderr)[0] == f"aidlc init --git {folder}    # not a Git repository yet: git init, then scaffold"
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    in_git = steps(run_cli("status", cwd=folder).stderr)[0]
    assert in_git == f"aidlc init {folder}    # scaffold aidlc.yaml and memory-bank/"


def test_a_folder_with_a_space_is_one_argument_in_the_step_it_is_told(tmp_path: Path) -> None:
    folder = tmp_path / "my project"
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    proc = run_cli("status", cwd=folder)
    assert proc.returncode == 2
    assert steps(proc.stderr)[0] == f"aidlc init '{folder}'    # scaffold aidlc.yaml and memory-bank/"
    ledger = run_cli("log", "verify", cwd=folder)
    assert ledger.returncode == 2 and f"aidlc init '{folder}'" in ledger.stderr, ledger.stderr



def test_a_hostile_bolt_name_in_a_next_step_is_one_quoted_argument(chain: Path) -> None:
    """A pull request names a bolt `001-x$(touch pwned)` (a folder may hold any character but '/'): the commands
    aidlc prints for it hold the name as one quoted argument, and pasting one into a shell runs nothing else."""
    hostile = "001-x$(touch pwned)"
    bolts = chain / "memory-bank/bolts"
    (bolts / BOLT_ID).rename(bolts / hostile)
    bolt = f"memory-bank/bolts/{hostile}/bolt.md"
    write(chain, bolt, read(chain, bolt).replace(f"id: {BOLT_ID}", f"id: '{hostile}'"))
    write(chain, STORY, read(chain, STORY).replace(f"assigned_bolt: {BOLT_ID}", f"assigned_bolt: '{hostile}'")
          .replace("status: draft", "status: ready"))
    for stage in ("requirements", "units", "stories", "bolt-plan"):
        approve(chain, INTENT_ID, stage)
    refused = gate(chain, "approve", hostile, "plan")
    assert refused.exit_code == 1 and steps(refused.stderr)[:2] == [
        f"aidlc bolt start '{hostile}'    # the model writes the plan, then waits for a person",
        f"aidlc new plan '{hostile}'    # or its template, for you to write"]
    status = run_cli("status", cwd=chain)
    [step] = [line.strip() for line in status.stdout.splitlines() if line.strip().startswith("aidlc bolt start")]
    command = step.split("    #")[0]
    assert command == f"aidlc bolt start '{hostile}' --dry-run"
    # Pasted into bash, the words aidlc would get (printf shows them): the bolt's name whole, nothing run.
    pasted = subprocess.run(["bash", "-c", command.replace("aidlc", "printf '%s\\n'", 1)], cwd=chain,
                            capture_output=True, text=True, check=True)
    assert pasted.stdout.splitlines() == ["bolt", "start", hostile, "--dry-run"]
    assert not (chain / "pwned").exists()


def test_a_hostile_story_file_name_is_one_quoted_argument_to_the_editor(chain: Path) -> None:
    """A draft story in a file named `002-x$(touch pwned).md`: the `$EDITOR` step status prints opens that file."""
    hostile = STORY.replace("001-pay-by-card", "002-x$(touch pwned)")
    write(chain, hostile, read(chain, STORY).replace("id: 001-pay-by-card", "id: '002-x$(touch pwned)'")
          .replace("assigned_bolt: 001-checkout-api", "assigned_bolt: null"))
    status = run_cli("status", "--all", "--format", "json", cwd=chain)
    [command] = [a["command"].split("    #")[0] for a in json.loads(status.stdout)["next_actions"]
                 if "002-x" in (a["command"] or "")]
    assert command == f"$EDITOR '{hostile}'"
    pasted = subprocess.run(["bash", "-c", command], cwd=chain, capture_output=True, text=True,
                            env={**os.environ, "EDITOR": "ls"})
    assert pasted.returncode == 0 and pasted.stdout.strip() == hostile, pasted.stderr
    assert not (chain / "pwned").exists()

def test_ci_is_told_that_ci_cannot_decide_a_human_gate(chain: Path) -> None:
    before = read(chain, LEDGER)
    result = gate(chain, "approve", "001", "requirements", env={"CI": "true"})
    assert result.exit_code == 1
    assert "requirements is a human checkpoint, and CI cannot decide one" in result.stderr
    assert steps(result.stderr) == [
        "aidlc gate approve 001 --stage requirements    # a person, from their own shell, then push the ledger"]
    assert "AIDLC_ACTOR_KIND" not in result.stderr and read(chain, LEDGER) == before


def test_a_bolt_without_a_plan_says_how_to_get_one(chain: Path) -> None:
    for stage in ("requirements", "units", "stories", "bolt-plan"):
        approve(chain, INTENT_ID, stage)
    result = gate(chain, "approve", BOLT_ID, "plan")
    assert result.exit_code == 1
    assert f"nothing to judge for the plan gate: {PLAN} does not exist" in result.stderr
    assert steps(result.stderr) == [
        f"aidlc bolt start {BOLT_ID}    # the model writes the plan, then waits for a person",
        f"aidlc new plan {BOLT_ID}    # or its template, for you to write",
        f"write {PLAN}, then: aidlc gate approve {BOLT_ID} --stage plan"]


# -- the requirements gate needs requirements ---------------------------------------------------------------

def test_the_requirements_gate_refuses_an_intent_that_is_still_the_template(repo: Path) -> None:
    subprocess.run(["git", "-C", str(repo), "config", "user.name", "Ada Lovelace"], check=True)
    assert run(repo, "new", "intent", "Returns").exit_code == 0
    before = read(repo, LEDGER)
    result = gate(repo, "approve", "001", "requirements")
    assert result.exit_code == 1
    assert ("intent 001-returns has nothing to approve at its requirements gate: "
            "memory-bank/intents/001-returns/requirements.md is still the template: its statement is the "
            "placeholder and it defines no requirement") in result.stderr
    assert steps(result.stderr) == [
        'aidlc new requirement "TITLE" --intent 001-returns --priority must --criterion '
        '"**Given** ..., **When** ..., **Then** ..."',
        "aidlc draft requirements 001-returns    # or have the model propose them"]
    assert read(repo, LEDGER) == before


def test_the_requirements_gate_refuses_an_intent_with_no_requirement(repo: Path) -> None:
    subprocess.run(["git", "-C", str(repo), "config", "user.name", "Ada Lovelace"], check=True)
    assert run(repo, "new", "intent", "Returns", "--statement", "Buyers send goods back.").exit_code == 0
    result = gate(repo, "approve", "returns", "requirements")
    assert result.exit_code == 1
    assert ("memory-bank/intents/001-returns/requirements.md defines no requirement (no `### FR-n:` or "
            "`### NFR-n:` heading)") in result.stderr
    # Rejecting an empty intent is a person's decision like any other.
    assert gate(repo, "reject", "returns", "requirements", "--reason", "empty").exit_code == 0


# -- findings grouped under real files ---------------------------------------------------------------------

def test_a_stale_approval_of_a_set_of_files_is_grouped_under_its_ledger_line(chain: Path) -> None:
    for stage in ("requirements", "units", "stories", "bolt-plan"):
        approve(chain, INTENT_ID, stage)
    # A second bolt joins the set the bolt-plan approval judged (one file then): the approval is stale.
    assert run(chain, "new", "bolt", "--unit", "checkout-api", "--stories", "001-pay-by-card").exit_code == 0
    result = run(chain, "validate")
    (stale,) = [line for line in result.stdout.splitlines() if "[ERROR]" in line]
    line = next(n for n, text in enumerate(read(chain, LEDGER).splitlines(), 1) if '"stage":"bolt-plan"' in text)
    assert f" {LEDGER}:{line} AIDLC-LEDGER-005 the bolt-plan approval of intent {INTENT_ID} (seq 5) is stale: " \
           f"memory-bank/bolts (intent {INTENT_ID}) changed since" in stale
    groups = [text for text in result.stdout.splitlines() if text and not text.startswith((" ", "validation", "Next"))]
    assert all((chain / group).exists() for group in groups), groups


def test_next_steps_name_the_rule_of_an_error_before_any_warning(bank_root: Path) -> None:
    # AIDLC-COV-001 (a warning) sorts before AIDLC-REF-001 (an error): the error comes first all the same.
    proc = run_cli("validate", str(bank_root))
    assert proc.returncode == 1
    assert "validation failed: 8 files, 1 error, 1 warning, 0 notes" in proc.stdout
    assert proc.stdout.split(NEXT, 1)[1].splitlines()[0] == \
        "  aidlc rules AIDLC-REF-001    # what the rule checks and how to fix it"


def test_ci_names_the_rule_of_the_same_error_as_validate(bank_root: Path) -> None:
    # ci named the first new code by name (AIDLC-COV-001, the warning), not the error that fails the run.
    proc = run_cli("ci", str(bank_root))
    assert proc.returncode == 1
    assert proc.stdout.split(NEXT, 1)[1].splitlines()[0] == \
        "  aidlc rules AIDLC-REF-001    # what the rule checks and how to fix it"


@pytest.fixture
def bank_root(bank: Bank) -> Path:
    """The clean bank with a warning (a Must requirement left without a story) and an error (a dangling link)."""
    bank.set_key(STORY1, "requirements", "[FR-1, FR-9]")
    bank.replace(STORY2, "FR-2 / NFR-1", "FR-2")
    return bank.root


# -- init says what the bank in front of it needs ----------------------------------------------------------

def test_init_of_an_empty_repo_suggests_a_first_intent(tmp_path: Path) -> None:
    proc = run_cli("init", "--git", str(tmp_path / "shop"), env={"CI": "true"})
    assert proc.returncode == 0, proc.stderr
    assert steps(proc.stdout)[:3] == ['aidlc new intent "TITLE"', "aidlc validate", "aidlc status"]


def test_init_of_an_existing_bank_suggests_what_it_needs(tmp_path: Path) -> None:
    root = tmp_path / "specsmd"
    shutil.copytree(corpus_dir(), root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    proc = run_cli("init", str(root))
    assert proc.returncode == 0, proc.stderr
    # Nothing committed yet: adoption is what git shows before the ledger, so the bank is committed first, alone.
    first, second = steps(proc.stdout)[:2]
    assert first.startswith(f"git -C {root} add -A -- . ':(exclude)memory-bank/events.jsonl' && git -C {root} "
                            'commit -m "The bank before aidlc"    # nothing is committed yet')
    assert second.startswith(f"aidlc validate {root}    # then: what that commit shows complete is adopted history")
    subprocess.run(first.split("    #")[0], shell=True, check=True, env={**os.environ, "GIT_AUTHOR_NAME": "A",
                   "GIT_AUTHOR_EMAIL": "a@x.org", "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@x.org"})
    assert subprocess.run(["git", "-C", str(root), "ls-files", "memory-bank/events.jsonl"], capture_output=True,
                          text=True, check=True).stdout == ""
    adopted = json.loads(run_cli("validate", str(root), "--format", "json").stdout)["summary"]
    assert adopted["adopted"] > 0
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=A", "-c", "user.email=a@x.org", "commit", "-qm", "adopt"],
                   check=True)
    again = steps(run_cli("init", str(root)).stdout)
    assert again[0].startswith("aidlc validate    # the bank as it is: ")
    assert again[1] == ("aidlc new bolt --intent 007-installer-analytics --unit 002-privacy-documentation --stories "
                        "001-create-privacy-md    # story 007-privacy-story-1 is complete but is in no bolt")
    assert not any(step.startswith("aidlc new intent") for step in again)


def test_gate_help_describes_each_decision() -> None:
    proc = run_cli("gate", "--help")
    assert proc.returncode == 0
    listed = proc.stdout.split("Commands:\n", 1)[1].splitlines()
    assert [" ".join(line.split()) for line in listed] == [
        "approve The gate passes: the artifact is right as it is.",
        "defer Not decided now: the gate waits.",
        "escalate Someone else must decide: the gate waits.",
        "reject The artifact is not right: the gate waits for its rework."]
    assert "SUBJECT: an intent or a bolt, named as `aidlc new` names them (001, checkout," in proc.stdout
    reject = " ".join(run_cli("gate", "reject", "--help").stdout.split())
    assert ("The artifact is not right: recorded with the reason, nothing changes, and the gate waits for a new "
            "decision once the artifact is reworked.") in reject
