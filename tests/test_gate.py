"""aidlc gate: human decisions, in order, bound to the bytes they judged, and the status changes they imply.

Every test works in a real git repo scaffolded by `aidlc init --git` and built with `aidlc new`.
Commands run in-process (CliRunner) for speed, and as real subprocesses where the process boundary
matters: the actor's environment, a missing git identity, the command after a crash, the end-to-end run.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import aidlc.gates.decide as decide_module
from aidlc.bank.config import load_config
from aidlc.bank.loader import load_bank
from aidlc.cli import cli
from aidlc.events.ledger import Ledger
from aidlc.gates.catalogue import content_digest
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from aidlc.model.findings import Finding
from aidlc.rules import validate
from tests.evidence_sample import give_evidence
from tests.helpers import run_cli as run_in_process
from tests.helpers import run_cli_process as run_cli  # the real process: these tests are about it

MB = "memory-bank"
INTENT_ID = "001-checkout-payments"
BOLT_ID = "001-checkout-api"
INTENT_DIR = f"{MB}/intents/{INTENT_ID}"
REQUIREMENTS = f"{INTENT_DIR}/requirements.md"
STORY = f"{INTENT_DIR}/units/001-checkout-api/stories/001-pay-by-card.md"
BOLT_DIR = f"{MB}/bolts/{BOLT_ID}"
BOLT = f"{BOLT_DIR}/bolt.md"
PLAN = f"{BOLT_DIR}/implementation-plan.md"
WALKTHROUGH = f"{BOLT_DIR}/implementation-walkthrough.md"
LEDGER = f"{MB}/events.jsonl"
INTENT_STAGES = ("requirements", "units", "stories", "bolt-plan")
ADA = "Ada Lovelace <ada@x.org>"
# The tests decide as a person: whatever the environment of the test run says (CI=true on a CI runner).
HUMAN_ENV: dict[str, str | None] = {"CI": None, "AIDLC_ACTOR_KIND": None}


# -- helpers shared with test_ledger_rules.py and test_status_gates.py ---------------------------------------
def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def set_identity(root: Path, name: str = "Ada Lovelace", email: str = "ada@x.org") -> None:
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", email)


def run(root: Path, *args: str, env: dict[str, str | None] | None = None) -> Result:
    """An aidlc command in-process, as a person (CI and AIDLC_ACTOR_KIND unset unless `env` sets them)."""
    return CliRunner().invoke(cli, ["--repo", str(root), *args], env={**HUMAN_ENV, **(env or {})})


def gate(root: Path, decision: str, subject: str, stage: str, *extra: str,
         env: dict[str, str | None] | None = None) -> Result:
    return run(root, "gate", decision, subject, "--stage", stage, *extra, env=env)


def approve(root: Path, subject: str, stage: str, *extra: str) -> Result:
    result = gate(root, "approve", subject, stage, *extra)
    assert result.exit_code == 0, result.stderr
    return result


def events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / LEDGER).read_text(encoding="utf-8").splitlines()]


def decisions(root: Path) -> list[dict]:
    return [e for e in events(root) if e["type"] == "gate.decided"]


def read(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def edit(root: Path, rel: str, old: str, new: str) -> None:
    text = read(root, rel)
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {rel}"
    write(root, rel, text.replace(old, new))


def front(root: Path, rel: str) -> dict[str, str]:
    """Top-level front-matter keys as raw text (the tests compare what is written, not what YAML makes of it)."""
    lines = read(root, rel).split("---\n")[1].splitlines()
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines) if not k.startswith(" ")}


def check_boxes(root: Path, rel: str = STORY) -> None:
    write(root, rel, read(root, rel).replace("- [ ]", "- [x]"))


def findings(root: Path) -> list[Finding]:
    return validate(load_bank(root, load_config(root))).findings


def ledger_findings(root: Path) -> list[Finding]:
    return [f for f in findings(root) if f.code.startswith("AIDLC-LEDGER")]


def through_inception(root: Path) -> None:
    for stage in INTENT_STAGES:
        approve(root, INTENT_ID, stage)


def through_plan(root: Path) -> None:
    through_inception(root)
    write(root, PLAN, "# Plan\n\nAdd POST /orders.\n")
    approve(root, BOLT_ID, "plan")


def through_walkthrough(root: Path) -> None:
    through_plan(root)
    write(root, WALKTHROUGH, "# Walkthrough\n\nPOST /orders works; tests pass.\n")
    check_boxes(root)
    give_evidence(root, BOLT_ID, run)
    approve(root, BOLT_ID, "walkthrough")



# -- the subject and its stages ------------------------------------------------------------------------------
@pytest.mark.parametrize("subject", ["nope", "bolt:001-checkout-payments", "intent:001-checkout-api", "release:v9",
                                     f"release:../../intents/{INTENT_ID}/requirements", "release:"])
def test_an_unknown_subject_is_a_usage_error_and_nothing_is_appended(chain: Path, subject: str) -> None:
    before = read(chain, LEDGER)
    result = gate(chain, "approve", subject, "deploy" if subject.startswith("release:") else "requirements")
    assert result.exit_code == 2
    assert (subject.partition(":")[2] or subject) in result.stderr
    assert read(chain, LEDGER) == before


def test_a_release_needs_its_note_and_has_one_deploy_gate(chain: Path) -> None:
    result = gate(chain, "approve", "release:2026.11", "deploy")
    assert result.exit_code == 2
    assert f"{MB}/operations/releases/2026.11.md" in result.stderr
    write(chain, f"{MB}/operations/releases/2026.11.md", "# Release 2026.11\n\nCheckout.\n")
    approve(chain, "release:2026.11", "deploy")
    event = decisions(chain)[-1]
    assert event["subject"] == {"kind": "release", "id": "2026.11"} and event["stage"] == "deploy"
    assert event["fingerprint"]["path"] == f"{MB}/operations/releases/2026.11.md"


@pytest.mark.parametrize(
    ("subject", "ddd", "valid"),
    [
        (INTENT_ID, False, "requirements, units, stories, bolt-plan"),
        (BOLT_ID, False, "plan, walkthrough"),
        (BOLT_ID, True, "plan, model, design, adr, walkthrough"),
        ("release:r1", False, "deploy"),
    ],
)
def test_a_stage_outside_the_catalogue_exits_2_listing_the_valid_ones(chain: Path, subject: str, ddd: bool,
                                                                      valid: str) -> None:
    write(chain, f"{MB}/operations/releases/r1.md", "# r1\n")
    if ddd:
        edit(chain, BOLT, "type: simple-construction-bolt", "type: ddd-construction-bolt")
    before = read(chain, LEDGER)
    result = gate(chain, "approve", subject, "sign-off")
    assert result.exit_code == 2
    assert "no 'sign-off' gate" in result.stderr and f"its gates are {valid}" in result.stderr
    assert read(chain, LEDGER) == before


def test_the_stage_picks_the_subject_when_an_intent_and_a_bolt_share_a_name(repo: Path) -> None:
    # `aidlc new bolt` names a bolt after its unit; a unit named like its intent gives both the same id.
    set_identity(repo)
    run(repo, "new", "intent", "Checkout")
    run(repo, "new", "requirement", "Pay", "--intent", "1", "--criterion", "**Given** a, **When** b, **Then** c")
    run(repo, "new", "unit", "Checkout", "--requirements", "FR-1")
    run(repo, "new", "story", "Pay", "--unit", "checkout", "--criterion", "**Given** a, **When** b, **Then** c")
    assert run(repo, "new", "bolt", "--unit", "001-checkout", "--stories", "001-pay").exit_code == 0
    assert (repo / MB / "bolts/001-checkout/bolt.md").is_file()
    approve(repo, "001-checkout", "requirements")
    assert decisions(repo)[-1]["subject"] == {"kind": "intent", "id": "001-checkout"}
    result = gate(repo, "approve", "001-checkout", "walkthrough")
    assert result.exit_code == 1 and "bolt 001-checkout: the plan gate has no decision" in result.stderr
    result = gate(repo, "approve", "001-checkout", "design")
    assert result.exit_code == 2 and "'001-checkout' names an intent and a bolt" in result.stderr
    assert "plan, walkthrough" in result.stderr and "requirements, units, stories, bolt-plan" in result.stderr


def test_ddd_bolt_stages_come_in_order_and_judge_their_stage_files(chain: Path) -> None:
    edit(chain, BOLT, "type: simple-construction-bolt", "type: ddd-construction-bolt")
    through_inception(chain)
    write(chain, PLAN, "# Plan\n")
    approve(chain, BOLT_ID, "plan")
    result = gate(chain, "approve", BOLT_ID, "design")
    assert result.exit_code == 1 and "the model gate has no decision" in result.stderr
    result = gate(chain, "approve", BOLT_ID, "model")
    assert result.exit_code == 1 and f"{BOLT_DIR}/ddd-01-*.md does not exist" in result.stderr
    write(chain, f"{BOLT_DIR}/ddd-01-domain-model.md", "# Domain model\n")
    approve(chain, BOLT_ID, "model")
    assert decisions(chain)[-1]["fingerprint"]["path"] == f"{BOLT_DIR}/ddd-01-domain-model.md"
    result = gate(chain, "approve", BOLT_ID, "walkthrough")
    assert result.exit_code == 1 and "the design gate has no decision" in result.stderr


# -- order -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("subject", "stage", "missing"),
    [
        (INTENT_ID, "units", "requirements"),
        (INTENT_ID, "bolt-plan", "requirements"),
        (BOLT_ID, "walkthrough", "plan"),
    ],
)
def test_out_of_order_gates_are_refused_naming_the_missing_one(chain: Path, subject: str, stage: str,
                                                                missing: str) -> None:
    write(chain, PLAN, "# Plan\n")
    write(chain, WALKTHROUGH, "# Walkthrough\n")
    before = read(chain, LEDGER)
    result = gate(chain, "approve", subject, stage)
    assert result.exit_code == 1
    assert f"the {missing} gate has no decision; the {stage} gate comes after it" in result.stderr
    assert f"aidlc gate approve {subject} --stage {missing}" in result.stderr
    assert read(chain, LEDGER) == before


def test_a_rejected_earlier_gate_blocks_the_next_until_approved(chain: Path) -> None:
    assert gate(chain, "reject", INTENT_ID, "requirements", "--reason", "FR-1 is vague").exit_code == 0
    result = gate(chain, "approve", INTENT_ID, "units")
    assert result.exit_code == 1 and "the requirements gate was decided 'reject'" in result.stderr
    approve(chain, INTENT_ID, "requirements")
    approve(chain, INTENT_ID, "units")
    assert [(e["stage"], e["decision"]) for e in decisions(chain)] == [
        ("requirements", "reject"), ("requirements", "approve"), ("units", "approve")]
    assert decisions(chain)[0]["reason"] == "FR-1 is vague"


def test_a_bolt_gate_waits_for_the_inception_gates_of_its_intent(chain: Path) -> None:
    # Approving the plan starts the bolt; a bolt in progress before inception is done is an AIDLC-LEDGER-004 error.
    write(chain, PLAN, "# Plan\n")
    for stage in INTENT_STAGES[:3]:
        approve(chain, INTENT_ID, stage)
    before = read(chain, LEDGER)
    result = gate(chain, "approve", BOLT_ID, "plan")
    assert result.exit_code == 1
    assert f"intent {INTENT_ID}: the bolt-plan gate has no decision" in result.stderr
    assert read(chain, LEDGER) == before and front(chain, BOLT)["status"] == "planned"
    approve(chain, INTENT_ID, "bolt-plan")
    approve(chain, BOLT_ID, "plan")
    assert ledger_findings(chain) == []


def test_a_stale_earlier_approval_blocks_the_next_gate_until_decided_again(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    edit(chain, REQUIREMENTS, "an order is created", "an order is created and mailed")
    before = read(chain, LEDGER)
    result = gate(chain, "approve", INTENT_ID, "units")
    assert result.exit_code == 1
    assert f"the requirements gate is stale (approved at seq 2; {REQUIREMENTS} changed since)" in result.stderr
    assert read(chain, LEDGER) == before
    approve(chain, INTENT_ID, "requirements")
    approve(chain, INTENT_ID, "units")


def test_a_new_bolt_waits_for_the_bolt_plan_to_be_approved_again(chain: Path) -> None:
    through_plan(chain)
    assert run(chain, "new", "story", "Refund", "--unit", "checkout-api").exit_code == 0
    assert run(chain, "new", "bolt", "--unit", "checkout-api", "--stories", "002-refund").exit_code == 0
    write(chain, f"{MB}/bolts/002-checkout-api/implementation-plan.md", "# Plan\n")
    result = gate(chain, "approve", "002-checkout-api", "plan")
    assert result.exit_code == 1
    assert f"intent {INTENT_ID}: the bolt-plan gate is stale" in result.stderr
    approve(chain, INTENT_ID, "stories")  # the new story changed what the stories gate judged, too
    approve(chain, INTENT_ID, "bolt-plan")
    approve(chain, "002-checkout-api", "plan")
    assert ledger_findings(chain) == []


def test_nothing_to_judge_is_refused(chain: Path) -> None:
    through_inception(chain)
    result = gate(chain, "approve", BOLT_ID, "plan")
    assert result.exit_code == 1 and f"{PLAN} does not exist" in result.stderr


# -- fingerprint and commit ------------------------------------------------------------------------------------
def test_the_fingerprint_is_the_content_digest_of_the_judged_file_and_the_commit_is_head(chain: Path) -> None:
    git(chain, "add", "-A")
    git(chain, "commit", "-q", "-m", "chain")
    approve(chain, INTENT_ID, "requirements")
    event = decisions(chain)[-1]
    data = (chain / REQUIREMENTS).read_bytes()
    assert event["fingerprint"] == {"path": REQUIREMENTS, "sha256": content_digest(data)}
    assert event["commit"] == git(chain, "rev-parse", "HEAD")
    assert event["actor"] == {"kind": "human", "name": "Ada Lovelace", "email": "ada@x.org"}
    for stage in INTENT_STAGES[1:]:
        approve(chain, INTENT_ID, stage)
    write(chain, PLAN, "# Plan\n\nAdd POST /orders.\n")
    git(chain, "add", "-A")
    git(chain, "commit", "-q", "-m", "plan")
    approve(chain, BOLT_ID, "plan")
    event = decisions(chain)[-1]
    # A file without front matter or boxes: the content digest is the plain sha256 of its bytes. The plan is
    # judged under the bolt's risk and scope: their digest goes with it, and the decision records the risk.
    plain = hashlib.sha256(b"# Plan\n\nAdd POST /orders.\n").hexdigest()
    terms = hashlib.sha256(b'{"risk": "medium", "scope": ["src/pay/**"]}').hexdigest()
    judged = [{"path": f"{BOLT} (risk and scope)", "sha256": terms}, {"path": PLAN, "sha256": plain}]
    assert event["data"]["judged"] == judged and event["data"]["bolt_risk"] == "medium"
    both = "".join(f"{d['path']}\0{d['sha256']}\n" for d in judged).encode()
    assert event["fingerprint"] == {"path": PLAN, "sha256": hashlib.sha256(both).hexdigest()}
    assert event["commit"] == git(chain, "rev-parse", "HEAD") != decisions(chain)[0]["commit"]


def test_a_plan_approval_recorded_before_plans_bound_risk_and_scope_is_not_stale_after_an_upgrade(chain: Path) -> None:
    """A plan approval an earlier aidlc recorded judged the plan file alone (no `data.bolt_risk`): it stays current,
    compared with the plan alone; one recorded now binds the risk too."""
    through_inception(chain)
    write(chain, PLAN, "# Plan\n\nAdd POST /orders.\n")
    plain = hashlib.sha256(b"# Plan\n\nAdd POST /orders.\n").hexdigest()
    Ledger(chain / LEDGER, chain).append(
        EventType.gate_decided, Actor(kind=ActorKind.human, name="Ada Lovelace", email="ada@x.org"),
        subject=Subject(kind="bolt", id=BOLT_ID), stage="plan", decision=Decision.approve,
        fingerprint=FileDigest(path=PLAN, sha256=plain))
    assert [f.message for f in findings(chain) if f.code == "AIDLC-LEDGER-005"] == []
    approve(chain, BOLT_ID, "plan")  # a decision made now binds the risk and scope
    edit(chain, BOLT, "risk: medium", "risk: low")
    assert any(f"the plan approval of bolt {BOLT_ID}" in f.message for f in findings(chain)
               if f.code == "AIDLC-LEDGER-005")


def test_without_commits_the_event_has_no_commit(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    assert "commit" not in decisions(chain)[-1]


def test_the_content_digest_ignores_progress_but_not_content() -> None:
    text = b"---\nid: s\nstatus: draft\nimplemented: false\nowner: ada\n---\n\n- [ ] Given a, When b, Then c\n"
    progressed = text.replace(b"status: draft", b"status: complete").replace(b"false", b"true").replace(
        b"- [ ]", b"- [X]")
    assert content_digest(progressed) == content_digest(text)
    assert content_digest(text.replace(b"owner: ada", b"owner: bob")) != content_digest(text)
    assert content_digest(text.replace(b"When b", b"When c")) != content_digest(text)
    assert content_digest(text.replace(b"\n", b"\r\n")) != content_digest(text)  # bytes, not text, are judged


# -- the actor ---------------------------------------------------------------------------------------------------
def test_the_actor_comes_from_git_config_or_as(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    approve(chain, INTENT_ID, "units", "--as", "Grace Hopper <grace@navy.mil>")
    actors = [e["actor"] for e in decisions(chain)]
    assert actors == [{"kind": "human", "name": "Ada Lovelace", "email": "ada@x.org"},
                      {"kind": "human", "name": "Grace Hopper", "email": "grace@navy.mil"}]


def test_as_takes_a_name_and_an_email(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements", "--as", "  Ada Lovelace   <ada@x.org> ")
    assert decisions(chain)[-1]["actor"] == {"kind": "human", "name": "Ada Lovelace", "email": "ada@x.org"}


@pytest.mark.parametrize("value", ["Bob", "Ada <>", "Bob Smith"])
def test_as_without_an_email_is_refused_for_a_persons_decision(chain: Path, value: str) -> None:
    result = gate(chain, "approve", INTENT_ID, "requirements", "--as", value)
    assert result.exit_code == 2, result.stderr
    assert f"--as {value!r} names no email: a person's decision is recorded with their name and email" \
        in result.stderr
    assert '--as "' in result.stderr and "@example.org>" in result.stderr  # the form to type
    assert decisions(chain) == []


@pytest.mark.parametrize("value", ["<nobody@x.org>", "Ada <ada@x.org> and Bob", "Ada <ada@x.org", "Ada <a b@x.org>",
                                   "   "])
def test_as_refuses_what_is_not_a_name_and_email(chain: Path, value: str) -> None:
    result = gate(chain, "approve", INTENT_ID, "requirements", "--as", value)
    assert result.exit_code == 2 and "expected 'Name <email>'" in result.stderr
    assert decisions(chain) == []


def _stage_plan(root: Path) -> list[tuple[str, str]]:
    """Every human checkpoint of the chain, in an order a person can pass them, with the files they judge."""
    edit(root, BOLT, "type: simple-construction-bolt", "type: ddd-construction-bolt")
    for rel in (PLAN, f"{BOLT_DIR}/ddd-01-model.md", f"{BOLT_DIR}/ddd-02-design.md", f"{BOLT_DIR}/adr-001-db.md",
                WALKTHROUGH, f"{MB}/operations/releases/r1.md"):
        write(root, rel, f"# {rel}\n")
    check_boxes(root)
    return ([(INTENT_ID, s) for s in INTENT_STAGES]
            + [(BOLT_ID, s) for s in ("plan", "model", "design", "adr", "walkthrough")] + [("release:r1", "deploy")])


@pytest.mark.parametrize("kind", ["agent", "ci"])
def test_an_agent_or_ci_actor_is_refused_at_every_human_checkpoint(chain: Path, kind: str) -> None:
    env = {"AIDLC_ACTOR_KIND": kind} if kind == "agent" else {"CI": "true"}
    for subject, stage in _stage_plan(chain):
        before = read(chain, LEDGER), read(chain, BOLT)
        result = gate(chain, "approve", subject, stage, "--as", ADA, env=env)
        assert result.exit_code == 1, (subject, stage, result.stderr)
        assert f"{stage} is a human checkpoint, and " in result.stderr and "Ada Lovelace" not in result.stderr
        said = ("CI cannot decide one: this run is CI (CI is set)" if kind == "ci"
                else "this command runs as an agent, whatever name git gives: its actor kind (AIDLC_ACTOR_KIND) "
                "is agent. AI proposes, a human decides.")
        assert said in result.stderr
        # The advice: a person runs the same decision; never "unset AIDLC_ACTOR_KIND" under CI.
        assert f"  aidlc gate approve {subject} --stage {stage}    # a person, from their own shell" in result.stderr
        assert "AIDLC_ACTOR_KIND unset" not in result.stderr
        assert (read(chain, LEDGER), read(chain, BOLT)) == before
        if stage == "walkthrough":
            give_evidence(chain, BOLT_ID, run)
        approve(chain, subject, stage)  # a person passes it, so the agent meets the next one in order
    assert len(decisions(chain)) == 10 and front(chain, BOLT)["status"] == "complete"


def test_an_agent_is_refused_in_a_real_process(chain: Path) -> None:
    before = read(chain, LEDGER)
    proc = run_cli("--repo", str(chain), "gate", "approve", INTENT_ID, "--stage", "requirements",
                   env={"AIDLC_ACTOR_KIND": "agent"})
    assert proc.returncode == 1
    assert "its actor kind (AIDLC_ACTOR_KIND) is agent. AI proposes, a human decides." in proc.stderr
    assert "Ada Lovelace" not in proc.stderr  # shown as the agent, not under the person's git name
    assert "Traceback" not in proc.stderr
    assert read(chain, LEDGER) == before


@pytest.mark.parametrize(("marker", "value", "agent"), [
    ("CLAUDECODE", "1", "Claude Code"), ("GEMINI_CLI", "1", "Gemini CLI"), ("CODEX_SANDBOX", "seatbelt", "Codex"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", "1", "Codex"), ("CURSOR_AGENT", "1", "Cursor"),
    ("CURSOR_EXTENSION_HOST_ROLE", "agent-exec", "Cursor"), ("COPILOT_AGENT", "1", "GitHub Copilot"),
    ("KIRO_SESSION_ID", "0b7c3f2e-6d1a-4f0e-9c55-2a8e1f4d7b90", "Kiro CLI"), ("OPENCODE", "1", "OpenCode")])
def test_a_command_run_in_a_coding_agent_s_shell_is_the_agent_s(chain: Path, marker: str, value: str,
                                                               agent: str) -> None:
    """An agent told to run `aidlc gate approve` runs it in its own shell, which it marks; AIDLC_ACTOR_KIND=human
    does not make it a person's. Before: recorded as Ada's approval. In this process, with exactly the shell's
    environment (the marker is read from it alone); the test above runs the refusal in a real process."""
    before = read(chain, LEDGER)
    proc = run_in_process("--repo", str(chain), "gate", "approve", INTENT_ID, "--stage", "requirements",
                          env={marker: value, "AIDLC_ACTOR_KIND": "human"})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"it runs in a coding agent's shell ({marker} is set: {agent}). AI proposes, a human decides." in \
        proc.stderr
    assert f"aidlc gate approve {INTENT_ID} --stage requirements    # a person, from their own shell" in proc.stderr
    assert read(chain, LEDGER) == before
    other = "user" if marker == "CURSOR_EXTENSION_HOST_ROLE" else "0"  # the editor's own role, or 0: no agent's shell
    assert run_in_process("--repo", str(chain), "gate", "approve", INTENT_ID, "--stage", "requirements",
                          env={marker: other}).returncode == 0


@pytest.mark.parametrize("agent", ["Claude <noreply@anthropic.com>", "Cursor Agent <CursorAgent@cursor.com>"])
def test_a_coding_agent_s_own_identity_is_no_person(chain: Path, agent: str) -> None:
    """The identities coding agents commit under: before, `--as` with one recorded a person's approval."""
    before = read(chain, LEDGER)
    result = gate(chain, "approve", INTENT_ID, "requirements", "--as", agent)
    assert result.exit_code == 1 and "identity" in result.stderr, result.stderr
    assert read(chain, LEDGER) == before


def test_an_approved_bolt_md_that_cannot_be_read_says_so_not_that_it_was_removed(chain: Path) -> None:
    """A Latin-1 note appended to bolt.md: before, its approvals read as "bolt.md was removed since" and "(risk and
    scope) changed since", the way out a new approval; the file is to be saved as UTF-8."""
    through_plan(chain)
    (chain / BOLT).write_bytes((chain / BOLT).read_bytes() + "\nNote: reviewed by Jos\xe9\n".encode("latin-1"))
    found = json.loads(run_cli("--repo", str(chain), "validate", "--format", "json").stdout)["findings"]
    stale = [f["message"] for f in found if f["code"] == "AIDLC-LEDGER-005"]
    assert stale and all("cannot be read now (byte 0xe9 at offset" in message and "save it as UTF-8" in message
                         for message in stale), stale
    assert not any("was removed" in message for message in stale)
    fixes = [f["fix"] for f in found if f["code"] == "AIDLC-LEDGER-005"]
    assert all(fix.startswith(f"save {BOLT} as UTF-8 text, then `aidlc validate`") for fix in fixes), fixes


def test_an_unknown_actor_kind_is_a_usage_error(chain: Path) -> None:
    result = gate(chain, "approve", INTENT_ID, "requirements", env={"AIDLC_ACTOR_KIND": "robot"})
    assert result.exit_code == 2 and "AIDLC_ACTOR_KIND='robot'" in result.stderr
    assert decisions(chain) == []


def test_no_git_identity_and_no_as_exits_2_with_the_config_command(chain: Path, tmp_path: Path) -> None:
    git(chain, "config", "--unset", "user.name")
    git(chain, "config", "--unset", "user.email")
    home = tmp_path / "home"  # no ~/.gitconfig: the only identity would be the repo's
    home.mkdir()
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "GIT_CONFIG_NOSYSTEM": "1"}
    before = read(chain, LEDGER)
    proc = run_cli("--repo", str(chain), "gate", "approve", INTENT_ID, "--stage", "requirements", env=env)
    assert proc.returncode == 2, proc.stderr
    assert "git config has no user.name" in proc.stderr
    assert 'git config user.name "Your Name" && git config user.email you@example.org' in proc.stderr
    assert read(chain, LEDGER) == before
    proc = run_cli("--repo", str(chain), "gate", "approve", INTENT_ID, "--stage", "requirements", "--as", ADA,
                   env=env)
    assert proc.returncode == 0, proc.stderr
    assert decisions(chain)[-1]["actor"]["name"] == "Ada Lovelace"


# -- status effects --------------------------------------------------------------------------------------------
def test_approving_the_bolt_plan_of_an_intent_moves_it_to_construction(chain: Path) -> None:
    edit(chain, REQUIREMENTS, "phase: inception", "phase: inception\nowner: ada  # our key")
    edit(chain, REQUIREMENTS, "## Functional Requirements", "## Functional Requirements\n\nOur prose, as written.")
    for stage in INTENT_STAGES[:3]:
        approve(chain, INTENT_ID, stage)
    assert front(chain, REQUIREMENTS)["phase"] == "inception"
    result = approve(chain, INTENT_ID, "bolt-plan")
    assert f"~ {REQUIREMENTS}" in result.stdout
    text = read(chain, REQUIREMENTS)
    assert front(chain, REQUIREMENTS)["phase"] == "construction"
    assert "owner: ada  # our key" in text and "Our prose, as written." in text
    assert decisions(chain)[-1]["data"]["effects"] == [{"path": REQUIREMENTS, "set": {"phase": "construction"}}]
    assert ledger_findings(chain) == []  # a progress change does not make the requirements approval stale


def test_approving_the_plan_starts_the_bolt_and_keeps_the_persons_text(chain: Path) -> None:
    edit(chain, BOLT, "risk: medium", "risk: medium\nreviewer: grace  # kept")
    edit(chain, BOLT, "## Objective", "## Objective\n\nShip card payments first.")
    through_plan(chain)
    meta = front(chain, BOLT)
    assert meta["status"] == "in-progress"
    assert meta["started"] == decisions(chain)[-1]["data"]["effects"][0]["set"]["started"]
    assert meta["started"].endswith("Z") and meta["completed"] == "null"
    text = read(chain, BOLT)
    assert "reviewer: grace  # kept" in text and "Ship card payments first." in text
    assert front(chain, STORY)["status"] == "draft"


def test_approving_the_walkthrough_completes_the_bolt_and_its_stories(chain: Path) -> None:
    through_walkthrough(chain)
    bolt, story = front(chain, BOLT), front(chain, STORY)
    assert bolt["status"] == "complete" and bolt["completed"].endswith("Z") and bolt["started"] <= bolt["completed"]
    assert story["status"] == "complete" and story["implemented"] == "true"
    assert [f for f in ledger_findings(chain) if BOLT_ID in f.message or f.path in (BOLT, STORY)] == []
    assert ledger_findings(chain) == []


@pytest.mark.parametrize(("decision", "stage"), [("approve", "walkthrough"), ("reject", "walkthrough"),
                                                  ("reject", "plan"), ("approve", "plan")])
def test_the_gates_of_a_completed_bolt_refuse_a_second_decision(chain: Path, decision: str, stage: str) -> None:
    through_walkthrough(chain)
    before = read(chain, LEDGER), read(chain, BOLT), read(chain, STORY)
    result = gate(chain, decision, BOLT_ID, stage, "--reason", "second thoughts")
    assert result.exit_code == 1, result.output
    assert f"bolt {BOLT_ID} is complete: Ada Lovelace approved its walkthrough" in result.stderr
    assert "take no second decision" in result.stderr and "aidlc new bolt --unit 001-checkout-api" in result.stderr
    assert (read(chain, LEDGER), read(chain, BOLT), read(chain, STORY)) == before
    assert ledger_findings(chain) == []


def test_the_walkthrough_is_refused_while_a_story_has_unchecked_boxes(chain: Path) -> None:
    through_plan(chain)
    write(chain, WALKTHROUGH, "# Walkthrough\n")
    before = read(chain, LEDGER), read(chain, BOLT), read(chain, STORY)
    line = read(chain, STORY).splitlines().index("- [ ] **Given** a cart, **When** I pay, **Then** an order exists") + 1
    result = gate(chain, "approve", BOLT_ID, "walkthrough")
    assert result.exit_code == 1
    assert f"story 001-pay-by-card has 1 unchecked acceptance boxes (first at {STORY}:{line})" in result.stderr
    assert (read(chain, LEDGER), read(chain, BOLT), read(chain, STORY)) == before
    # A rejection completes nothing, so it needs no checked boxes.
    assert gate(chain, "reject", BOLT_ID, "walkthrough", "--reason", "declined cards untested").exit_code == 0
    assert front(chain, BOLT)["status"] == "in-progress"


def test_json_output_is_the_event_and_the_changed_files(chain: Path) -> None:
    through_inception(chain)
    write(chain, PLAN, "# Plan\n")
    result = run(chain, "--format", "json", "gate", "approve", BOLT_ID, "--stage", "plan")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["event"] == decisions(chain)[-1] and document["changed"] == [BOLT]


@pytest.mark.parametrize(("broken", "why"), [(BOLT, "the plan gate is stale"), (STORY, "aidlc validate")])
def test_a_file_the_decision_would_change_but_cannot_is_refused_first(chain: Path, broken: str, why: str) -> None:
    # The event is the record: it must not claim a status change that the file cannot take. A bolt.md that does
    # not parse has no risk and scope to read: the plan approved under them is stale first.
    through_plan(chain)
    write(chain, WALKTHROUGH, "# Walkthrough\n")
    check_boxes(chain)
    edit(chain, broken, "---\n\n#", "notes: [unclosed\n---\n\n#")
    before = read(chain, LEDGER)
    result = gate(chain, "approve", BOLT_ID, "walkthrough")
    assert result.exit_code == 1, result.stderr
    assert broken in result.stderr and why in result.stderr
    assert isinstance(result.exception, SystemExit)  # a user error, not a crash
    assert read(chain, LEDGER) == before


# -- crash consistency -----------------------------------------------------------------------------------------
def _crash_on_walkthrough(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """Record the walkthrough approval, then die before the files change (as a kill -9 would)."""
    through_plan(root)
    write(root, WALKTHROUGH, "# Walkthrough\n")
    check_boxes(root)
    give_evidence(root, BOLT_ID, run)

    def crash(repo: Path, event: dict) -> list[str]:
        raise SystemExit("killed between the ledger append and the file update")

    monkeypatch.setattr(decide_module, "apply_effects", crash)
    result = gate(root, "approve", BOLT_ID, "walkthrough")
    monkeypatch.undo()
    assert result.exit_code != 0
    last = decisions(root)[-1]
    assert last["stage"] == "walkthrough" and front(root, BOLT)["status"] == "in-progress"
    return last


def _files_agree_with_ledger(root: Path) -> None:
    assert front(root, BOLT)["status"] == "complete" and front(root, STORY)["status"] == "complete"
    assert front(root, STORY)["implemented"] == "true"
    walkthrough = next(e for e in reversed(decisions(root)) if e["stage"] == "walkthrough")
    assert front(root, BOLT)["completed"] == walkthrough["data"]["effects"][0]["set"]["completed"]
    assert ledger_findings(root) == []


@pytest.mark.parametrize("next_command", [
    ["gate", "approve", "release:r1", "--stage", "deploy"],  # a decision on another subject
    ["gate", "defer", INTENT_ID, "--stage", "no-such-stage"],  # even a command that then fails
])
def test_the_next_gate_command_applies_the_effects_a_crash_left_pending(chain: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        next_command: list[str]) -> None:
    _crash_on_walkthrough(chain, monkeypatch)
    write(chain, f"{MB}/operations/releases/r1.md", "# r1\n")
    proc = run_cli("--repo", str(chain), *next_command)
    assert "applied the status changes of the previous decision" in proc.stderr
    assert BOLT in proc.stderr and STORY in proc.stderr
    _files_agree_with_ledger(chain)
    assert run_cli("--repo", str(chain), "validate").returncode == 0


def test_pending_effects_survive_a_later_non_gate_event(chain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _crash_on_walkthrough(chain, monkeypatch)
    ledger = Ledger(chain / LEDGER, chain)  # e.g. a verification run records its result afterwards
    ledger.append(EventType.check_recorded, Actor(kind=ActorKind.ci, name="ci"), data={"ok": True})
    write(chain, f"{MB}/operations/releases/r1.md", "# r1\n")
    proc = run_cli("--repo", str(chain), "gate", "approve", "release:r1", "--stage", "deploy")
    assert proc.returncode == 0, proc.stderr
    _files_agree_with_ledger(chain)


def test_a_fresh_clone_never_reapplies_an_old_decision_over_later_edits(chain: Path) -> None:
    through_walkthrough(chain)
    assert not (chain / ".aidlc/gate-pending").exists()  # nothing pending once a decision is complete
    edited = read(chain, BOLT).replace("status: complete", "status: in-progress")  # a person's later edit
    write(chain, BOLT, edited)
    stamps = {rel: (chain / rel).stat().st_mtime_ns for rel in (BOLT, STORY, REQUIREMENTS)}
    proc = run_cli("--repo", str(chain), "gate", "defer", INTENT_ID, "--stage", "nope")
    assert proc.returncode == 2
    assert "applied the status changes" not in proc.stderr
    assert {rel: (chain / rel).stat().st_mtime_ns for rel in stamps} == stamps and read(chain, BOLT) == edited


def test_a_crash_before_the_append_leaves_nothing_to_apply(chain: Path) -> None:
    through_plan(chain)
    (chain / ".aidlc/gate-pending").write_text("gate:evt_never_appended\n")
    bolt = read(chain, BOLT)
    proc = run_cli("--repo", str(chain), "gate", "defer", INTENT_ID, "--stage", "nope")
    assert proc.returncode == 2
    assert "applied the status changes" not in proc.stderr
    assert read(chain, BOLT) == bolt and not (chain / ".aidlc/gate-pending").exists()


def test_a_decision_on_a_damaged_ledger_is_refused(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    text = read(chain, LEDGER)
    write(chain, LEDGER, text.replace('"decision":"approve"', '"decision":"approvE"'))
    before = read(chain, LEDGER)
    result = gate(chain, "approve", INTENT_ID, "units")
    assert result.exit_code == 1
    assert f"{LEDGER}:2" in result.stderr and "aidlc log verify" in result.stderr
    assert read(chain, LEDGER) == before


# -- end to end --------------------------------------------------------------------------------------------------
def cli_ok(root: Path, *args: str) -> subprocess.CompletedProcess:
    """In this process: the chain's dozen commands are about the workflow; the tests above start real processes."""
    proc = run_in_process("--repo", str(root), *args)
    assert proc.returncode == 0, (args, proc.stderr)
    return proc


def test_end_to_end_a_chain_through_every_gate_validates_clean(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    assert run_in_process("init", "--git", str(root)).returncode == 0
    set_identity(root, "Grace Hopper", "grace@navy.mil")
    cli_ok(root, "new", "intent", "Checkout & Payments!")
    cli_ok(root, "new", "requirement", "Pay by card", "--intent", "1",
           "--criterion", "**Given** a cart, **When** I pay by card, **Then** an order is created")
    cli_ok(root, "new", "unit", "Checkout API", "--requirements", "FR-1")
    cli_ok(root, "new", "story", "Pay by card", "--unit", "checkout-api", "--requirements", "FR-1",
           "--criterion", "**Given** a cart, **When** I pay, **Then** an order exists")
    cli_ok(root, "new", "bolt", "--unit", "001-checkout-api", "--stories", "001-pay-by-card")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "inception")
    inception = git(root, "rev-parse", "HEAD")
    for stage in INTENT_STAGES:
        cli_ok(root, "gate", "approve", INTENT_ID, "--stage", stage, "--reason", "reviewed")
    write(root, PLAN, "# Implementation plan\n\n- POST /orders\n")
    cli_ok(root, "gate", "approve", BOLT_ID, "--stage", "plan")
    write(root, WALKTHROUGH, "# Walkthrough\n\nPOST /orders answers 201.\n")
    check_boxes(root)
    give_evidence(root, BOLT_ID, lambda where, *args: run_in_process("--repo", str(where), *args))
    cli_ok(root, "gate", "approve", BOLT_ID, "--stage", "walkthrough")
    proc = cli_ok(root, "--format", "json", "validate")
    summary = json.loads(proc.stdout)["summary"]
    assert summary["errors"] == 0, proc.stdout
    assert "ledger verified" in cli_ok(root, "log", "verify").stdout
    assert [(e["subject"]["id"], e["stage"], e["actor"]["name"]) for e in decisions(root)] == [
        *((INTENT_ID, s, "Grace Hopper") for s in INTENT_STAGES), (BOLT_ID, "plan", "Grace Hopper"),
        (BOLT_ID, "walkthrough", "Grace Hopper")]
    assert {e["commit"] for e in decisions(root)[:-1]} == {inception}  # the bolt's commits came after
    assert decisions(root)[-1]["commit"] == git(root, "rev-parse", "HEAD")
    assert front(root, BOLT)["status"] == "complete" and front(root, REQUIREMENTS)["phase"] == "construction"


def test_decide_is_callable_as_a_library_with_an_explicit_actor(chain: Path) -> None:
    bank = load_bank(chain, load_config(chain))
    recorded = decide_module.decide(bank, INTENT_ID, "requirements", Decision.approve, "ok",
                                    Actor(kind=ActorKind.human, name="Ada"))
    assert recorded.event.seq == 2 and recorded.changed == []
    with pytest.raises(decide_module.GateRefused):
        decide_module.decide(bank, INTENT_ID, "units", Decision.approve, None, Actor(kind=ActorKind.agent, name="bot"))


def test_a_torn_last_line_moved_aside_by_a_decision_is_reported(chain: Path) -> None:
    torn = b'{"v":1,"seq":99,"type":"gate.dec'  # an append interrupted before its newline
    with open(chain / LEDGER, "ab") as ledger:
        ledger.write(torn)
    result = gate(chain, "approve", INTENT_ID, "requirements")
    assert result.exit_code == 0, result.stderr
    moved = sorted((chain / LEDGER).parent.glob("events.jsonl.torn-*"))
    assert len(moved) == 1 and moved[0].read_bytes() == torn
    assert f"moved to {moved[0].relative_to(chain).as_posix()}" in result.stderr
    assert [e["type"] for e in events(chain)][-2:] == ["ledger.tail_recovered", "gate.decided"]
