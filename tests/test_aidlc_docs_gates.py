"""aidlc gate on a project in AWS aidlc-workflows' aidlc-docs layout: people decide each stage, in the documented
order, bound to the stage's files; the ledger lives beside the docs; `ledger_findings` reports what validate must.

Every test builds a real git repository in the layout's shapes (aidlc-state.md, audit.md with the agent's own logged
approvals, inception/ and construction/<unit>/ files, plans with checkboxes) and a ledger made through the ledger's
own API, as `aidlc init` makes one. Decisions go through the CLI as the console script runs it, in the environment
each test gives (the actor is what that environment says).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc.aidlc_docs.reader import read_project
from aidlc.events.ledger import Ledger
from aidlc.gates.actor import recorder
from aidlc.gates.catalogue import docs_judged_files, docs_targets
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from aidlc.rules.docs_gates import ledger_findings
from tests.helpers import run_cli

DOCS = "aidlc-docs"
LEDGER = f"{DOCS}/events.jsonl"
STATE = f"{DOCS}/aidlc-state.md"
AUDIT = f"{DOCS}/audit.md"
REQUIREMENTS = f"{DOCS}/inception/requirements/requirements.md"
STORY_PLAN = f"{DOCS}/inception/plans/story-generation-plan.md"
STORIES = f"{DOCS}/inception/user-stories/stories.md"
UNIT = "unit1-orders-api"
RULES = f"{DOCS}/construction/{UNIT}/functional-design/business-rules.md"
CODE_PLAN = f"{DOCS}/construction/plans/{UNIT}-code-generation-plan.md"

FILES = {
    STATE: """\
# AI-DLC State Tracking

## Project Information
- **Project Type**: Greenfield
- **Start Date**: 2026-03-02T09:00:00Z
- **Current Stage**: CONSTRUCTION - Code Generation

## Stage Progress

### 🔵 INCEPTION PHASE
- [x] Workspace Detection
- [ ] Reverse Engineering - SKIP
- [x] Requirements Analysis
- [x] User Stories
- [x] Workflow Planning
- [ ] Application Design - SKIP
- [ ] Units Generation - SKIP

### 🟢 CONSTRUCTION PHASE
- [x] Functional Design
- [ ] NFR Requirements - SKIP
- [ ] NFR Design - SKIP
- [ ] Infrastructure Design - SKIP
- [ ] Code Generation - EXECUTE
- [ ] Build and Test - EXECUTE
""",
    AUDIT: """\
# AI-DLC Audit Log

## Workspace Detection
**Timestamp**: 2026-03-02T09:00:00Z
**User Input**: "Build an orders API."
**AI Response**: "Greenfield project; starting Requirements Analysis."
**Context**: INCEPTION - Workspace Detection

---

## Requirements Analysis - Approval
**Timestamp**: 2026-03-02T09:40:00Z
**User Input**: "Approve & Continue"
**AI Response**: "Requirements approved; proceeding to User Stories."
**Context**: INCEPTION - Requirements Analysis approved

---
""",
    REQUIREMENTS: "# Requirements\n\n## FR-01 Place an order\nA buyer places an order for items in stock.\n",
    f"{DOCS}/inception/requirements/requirement-verification-questions.md":
        "# Questions\n\n## Question 1\nWhich payment methods?\n\nA) Card\nB) Invoice\n\n[Answer]: A\n",
    STORY_PLAN: "# Story Generation Plan\n\n- [x] Identify personas\n- [ ] Write the stories\n- [ ] Map stories to "
                "requirements\n",
    STORIES: "# User Stories\n\n## US-1 Place an order\nAs a buyer I place an order so that I get my items.\n",
    f"{DOCS}/inception/user-stories/personas.md": "# Personas\n\n## Buyer\nOrders items online.\n",
    f"{DOCS}/inception/plans/execution-plan.md": "# Execution Plan\n\n## Phases to Execute\n- [x] Requirements "
                                                 "Analysis (COMPLETED)\n- [ ] Functional Design - EXECUTE\n",
    f"{DOCS}/construction/plans/{UNIT}-functional-design-plan.md": "# Functional Design Plan\n\n- [ ] Model the "
                                                                  "order\n- [ ] Write the business rules\n",
    RULES: "# Business Rules\n\n- An order needs at least one item.\n",
    CODE_PLAN: "# Code Generation Plan\n\n- [ ] Step 1: order model\n- [ ] Step 2: order endpoint\n",
    f"{DOCS}/construction/{UNIT}/code/code-summary.md": "# Code Summary\n\nsrc/orders.py: the order endpoint.\n",
    f"{DOCS}/construction/build-and-test/build-instructions.md": "# Build\n\n`python -m pytest`\n",
    "src/orders.py": "def place_order(items):\n    return {'items': items}\n",
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A repository in the aidlc-docs layout, with a ledger beside the docs (made as `aidlc init` makes one)."""
    return docs_repo(tmp_path / "orders")


def docs_repo(root: Path, unit: str = UNIT) -> Path:
    """That repository at `root`, its unit's folder and files named `unit`."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Ada Lovelace")
    git(root, "config", "user.email", "ada@x.org")
    for rel, text in FILES.items():
        write(root, rel.replace(UNIT, unit), text)
    commit(root, "AI-DLC inception and construction docs")
    Ledger.of_bank(root, DOCS).append(EventType.ledger_created, recorder(root), key="ledger.created")
    commit(root, "Adopt aidlc: the ledger")
    return root


def gate(root: Path, decision: str, subject: str, stage: str, *extra: str,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run_cli("--repo", str(root), "gate", decision, subject, "--stage", stage, *extra, env=env)


def decisions(root: Path) -> list[dict]:
    events = [json.loads(line) for line in (root / LEDGER).read_text(encoding="utf-8").splitlines()]
    return [e for e in events if e["type"] == "gate.decided"]


def findings(root: Path, code: str = "AIDLC-DOCS-") -> list[tuple[str, str, int | None, str]]:
    """(code, path, line, message) of the ledger's findings whose code starts with `code`."""
    return [(f.code, f.path, f.line, f.message) for f in ledger_findings(read_project(root.resolve(), DOCS))
            if f.code.startswith(code)]


def approve_inception(root: Path) -> None:
    for stage in ("requirements-analysis", "user-stories", "workflow-planning"):
        done = gate(root, "approve", "inception", stage)
        assert done.returncode == 0, done.stdout + done.stderr


def test_a_person_approves_every_stage_in_order_and_the_ledger_verifies(docs: Path) -> None:
    audit_before = (docs / AUDIT).read_bytes()
    approve_inception(docs)
    for subject, stage in ((UNIT, "functional-design"), (UNIT, "code-generation"), ("construction", "build-and-test")):
        done = gate(docs, "approve", subject, stage)
        assert done.returncode == 0, done.stdout + done.stderr
    assert "recorded: phase construction build-and-test -> approve by Ada Lovelace" in done.stdout

    made = decisions(docs)
    assert [(e["subject"]["kind"], e["subject"]["id"], e["stage"]) for e in made] == [
        ("phase", "inception", "requirements-analysis"), ("phase", "inception", "user-stories"),
        ("phase", "inception", "workflow-planning"), ("unit", UNIT, "functional-design"),
        ("unit", UNIT, "code-generation"), ("phase", "construction", "build-and-test")]
    assert {e["actor"]["kind"] for e in made} == {"human"}
    # each decision judged its stage's files: the stories with their plan; the unit's code summary with its plan
    judged = {e["stage"]: sorted(d["path"] for d in e["data"]["judged"]) for e in made if e.get("data")}
    assert judged["user-stories"] == sorted([STORY_PLAN, STORIES, f"{DOCS}/inception/user-stories/personas.md"])
    assert judged["code-generation"] == sorted([CODE_PLAN, f"{DOCS}/construction/{UNIT}/code/code-summary.md"])
    assert made[-1]["fingerprint"]["path"] == f"{DOCS}/construction/build-and-test/build-instructions.md"

    verify = run_cli("--repo", str(docs), "log", "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert f"ledger verified: {LEDGER}, 7 events" in verify.stdout
    assert (docs / AUDIT).read_bytes() == audit_before  # the gate never writes audit.md
    assert not (docs / "memory-bank").exists()
    assert findings(docs) == []


def test_a_stage_before_the_earlier_ones_is_refused(docs: Path) -> None:
    early = gate(docs, "approve", "inception", "user-stories")
    assert early.returncode == 1
    assert ("phase inception: the requirements-analysis gate has no decision; the user-stories gate comes after it"
            in early.stderr)
    assert "SKIP" not in early.stderr  # requirements analysis always runs
    unit = gate(docs, "approve", UNIT, "functional-design")
    assert unit.returncode == 1
    assert "the functional-design gate of unit unit1-orders-api comes after it" in unit.stderr
    build = gate(docs, "approve", "construction", "build-and-test")
    assert build.returncode == 1
    assert "inception: the requirements-analysis gate has no decision" in build.stderr or \
        f"unit {UNIT}: the code-generation gate has no decision" in build.stderr
    assert decisions(docs) == []


def test_build_and_test_waits_for_every_units_code_generation(docs: Path) -> None:
    approve_inception(docs)
    assert gate(docs, "approve", UNIT, "functional-design").returncode == 0
    build = gate(docs, "approve", "construction", "build-and-test")
    assert build.returncode == 1
    assert (f"unit {UNIT}: the code-generation gate has no decision; the build-and-test gate of phase construction "
            "comes after it") in build.stderr


def test_a_stage_the_state_file_does_not_skip_is_waited_for(docs: Path) -> None:
    """Application design is skipped in aidlc-state.md, so units wait only for what ran; once the state file no
    longer skips it and its files exist, the unit's first gate waits for it."""
    approve_inception(docs)
    state = (docs / STATE).read_text(encoding="utf-8")
    write(docs, STATE, state.replace("- [ ] Application Design - SKIP", "- [x] Application Design"))
    write(docs, f"{DOCS}/inception/application-design/components.md", "# Components\n\n- OrdersService\n")
    commit(docs, "application design")
    refused = gate(docs, "approve", UNIT, "functional-design")
    assert refused.returncode == 1
    assert "phase inception: the application-design gate has no decision" in refused.stderr
    assert f"or, if the project skips application-design, mark it SKIP in {STATE}" in refused.stderr


def test_approvals_audit_md_records_are_history_not_decisions(docs: Path) -> None:
    """audit.md logs 'Approve & Continue' for requirements; the ledger holds no decision from it, and the next
    stage still waits for a person's decision in the ledger."""
    refused = gate(docs, "approve", "inception", "user-stories")
    assert refused.returncode == 1
    events = [json.loads(line)["type"] for line in (docs / LEDGER).read_text(encoding="utf-8").splitlines()]
    assert events == ["ledger.created"]


@pytest.mark.parametrize(("env", "why"), [
    ({"AIDLC_ACTOR_KIND": "agent"}, "this command runs as an agent"),
    ({"CI": "true"}, "CI cannot decide one"),
])
def test_an_agent_or_ci_is_refused_and_nothing_is_recorded(docs: Path, env: dict[str, str], why: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(docs), "gate", "approve", "inception",
                           "--stage", "requirements-analysis"], capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1", **env})  # run_cli drops CI: set here
    assert proc.returncode == 1
    assert "requirements-analysis is a human checkpoint" in proc.stderr and why in proc.stderr
    assert decisions(docs) == []


def test_a_bot_identity_is_refused(docs: Path) -> None:
    proc = gate(docs, "approve", "inception", "requirements-analysis", "--as",
                "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>")
    assert proc.returncode == 1
    assert "is a bot" in proc.stderr
    assert decisions(docs) == []


def test_an_edit_of_an_approved_artifact_makes_the_approval_stale(docs: Path) -> None:
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    write(docs, REQUIREMENTS, FILES[REQUIREMENTS] + "\n## FR-02 Cancel an order\nA buyer cancels an order.\n")
    commit(docs, "agent: requirements widened after the approval")
    refused = gate(docs, "approve", "inception", "user-stories")
    assert refused.returncode == 1
    assert ("the requirements-analysis gate is stale (approved at seq 2; "
            f"{REQUIREMENTS} changed since); the user-stories gate comes after it") in refused.stderr
    assert findings(docs, "AIDLC-DOCS-040") == [
        ("AIDLC-DOCS-040", REQUIREMENTS, None, "the requirements-analysis approval of phase inception (seq 2) is "
         f"stale: {REQUIREMENTS} changed since")]
    # a person reviews the change and approves again: the next stage opens
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    assert gate(docs, "approve", "inception", "user-stories").returncode == 0
    assert findings(docs, "AIDLC-DOCS-040") == []


def test_a_new_file_in_an_approved_stage_makes_it_stale(docs: Path) -> None:
    approve_inception(docs)
    write(docs, f"{DOCS}/inception/user-stories/more-stories.md", "# More\n\n## US-2 Cancel\n")
    assert findings(docs, "AIDLC-DOCS-040") == [
        ("AIDLC-DOCS-040", f"{DOCS}/inception/user-stories/more-stories.md", None, "the user-stories approval of "
         f"phase inception (seq 3) is stale: {DOCS}/inception/user-stories/more-stories.md was added since")]


def test_ticking_a_plan_box_does_not_make_the_approval_stale(docs: Path) -> None:
    approve_inception(docs)
    plan = (docs / STORY_PLAN).read_text(encoding="utf-8")
    write(docs, STORY_PLAN, plan.replace("- [ ] Write the stories", "- [x] Write the stories"))
    commit(docs, "agent: story plan step done")
    assert findings(docs, "AIDLC-DOCS-040") == []
    assert gate(docs, "approve", UNIT, "functional-design").returncode == 0
    # a changed step, not a tick, is a change
    write(docs, STORY_PLAN, plan.replace("Write the stories", "Write half of the stories"))
    assert [f[0:2] for f in findings(docs, "AIDLC-DOCS-040")] == [("AIDLC-DOCS-040", STORY_PLAN)]


def test_reject_and_defer_are_recorded_and_keep_the_next_gate_waiting(docs: Path) -> None:
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    rejected = gate(docs, "reject", "inception", "user-stories", "--reason", "US-1 has no acceptance criteria")
    assert rejected.returncode == 0, rejected.stderr
    assert "recorded: phase inception user-stories -> reject by Ada Lovelace" in rejected.stdout
    waiting = gate(docs, "approve", "inception", "workflow-planning")
    assert waiting.returncode == 1
    assert "the user-stories gate was decided 'reject'" in waiting.stderr
    deferred = gate(docs, "defer", "inception", "user-stories", "--reason", "until the product owner is back")
    assert deferred.returncode == 0, deferred.stderr
    made = decisions(docs)
    assert [(e["stage"], e["decision"], e.get("reason")) for e in made] == [
        ("requirements-analysis", "approve", None),
        ("user-stories", "reject", "US-1 has no acceptance criteria"),
        ("user-stories", "defer", "until the product owner is back")]
    assert run_cli("--repo", str(docs), "log", "verify").returncode == 0


def test_a_ticked_stage_without_a_decision_is_found_once_the_ledger_has_decisions(docs: Path) -> None:
    """aidlc-state.md ticks requirements, user stories, workflow planning and the unit's functional design: with
    no decision in the ledger yet they are history; after the first decision each tick needs an approval."""
    assert findings(docs) == []
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    state = (docs / STATE).read_text(encoding="utf-8").splitlines()
    line = {text: number for number, text in enumerate(state, start=1)}
    assert findings(docs) == [
        ("AIDLC-DOCS-041", STATE, line["- [x] User Stories"], "user-stories is ticked for phase inception, and the "
         "ledger holds no approval of it"),
        ("AIDLC-DOCS-041", STATE, line["- [x] Workflow Planning"], "workflow-planning is ticked for phase "
         "inception, and the ledger holds no approval of it"),
        ("AIDLC-DOCS-041", STATE, line["- [x] Functional Design"], f"functional-design is ticked for unit {UNIT}, "
         "and the ledger holds no approval of it")]
    approve_inception_rest = ("user-stories", "workflow-planning")
    for stage in approve_inception_rest:
        assert gate(docs, "approve", "inception", stage).returncode == 0
    assert gate(docs, "approve", UNIT, "functional-design").returncode == 0
    assert findings(docs) == []


def test_an_edited_ledger_line_is_found_and_refuses_the_next_decision(docs: Path) -> None:
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    ledger = docs / LEDGER
    ledger.write_text(ledger.read_text(encoding="utf-8").replace('"approve"', '"reject"'), encoding="utf-8")
    found = findings(docs)
    assert [(f[0], f[1], f[2]) for f in found] == [("AIDLC-DOCS-042", LEDGER, 2)]
    refused = gate(docs, "approve", "inception", "user-stories")
    assert refused.returncode == 1
    assert f"the ledger is damaged at {LEDGER}:2" in refused.stderr
    assert run_cli("--repo", str(docs), "log", "verify").returncode == 1


def test_a_signed_approval_verifies_against_allowed_signers_beside_the_ledger(docs: Path, tmp_path: Path) -> None:
    """Signatures as on the memory bank: the key git signs with, checked by ssh-keygen against
    aidlc-docs/allowed_signers; a key it does not list for the decider is refused, nothing recorded."""
    write(docs, "aidlc.yaml", "governance:\n  require_signed_approvals: true\n")
    no_signers = gate(docs, "approve", "inception", "requirements-analysis")
    assert no_signers.returncode == 1
    assert f"{DOCS}/allowed_signers" in no_signers.stderr
    for name in ("ada", "eve"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(tmp_path / name)],
                       check=True)
    public = " ".join((tmp_path / "ada.pub").read_text().split()[:2])
    write(docs, f"{DOCS}/allowed_signers", f'ada@x.org namespaces="aidlc" {public}\n')
    git(docs, "config", "gpg.format", "ssh")
    git(docs, "config", "user.signingkey", str(tmp_path / "eve"))
    isolated = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "SSH_AUTH_SOCK": ""}
    wrong_key = gate(docs, "approve", "inception", "requirements-analysis", env=isolated)
    assert wrong_key.returncode == 1
    assert "the signature would not be accepted" in wrong_key.stderr
    assert decisions(docs) == []

    git(docs, "config", "user.signingkey", str(tmp_path / "ada"))
    signed = gate(docs, "approve", "inception", "requirements-analysis", env=isolated)
    assert signed.returncode == 0, signed.stderr
    assert decisions(docs)[0]["signature"]["format"] == "ssh"
    verify = run_cli("--repo", str(docs), "log", "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # the allowed key replaced by another: the recorded signature no longer verifies
    other = " ".join((tmp_path / "eve.pub").read_text().split()[:2])
    write(docs, f"{DOCS}/allowed_signers", f'ada@x.org namespaces="aidlc" {other}\n')
    assert run_cli("--repo", str(docs), "log", "verify").returncode == 1

def _keys(tmp_path: Path, *names: str) -> dict[str, str]:
    """An SSH key per name, made by the real ssh-keygen: name -> its public key (`ssh-ed25519 AAAA...`)."""
    for name in names:
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(tmp_path / name)],
                       check=True)
    return {name: " ".join((tmp_path / f"{name}.pub").read_text().split()[:2]) for name in names}


WHO = {f"AIDLC-DOCS-04{n}" for n in range(4, 9)}  # who decided, with which key


def ci_errors(root: Path, *args: str) -> tuple[int, list[tuple[str, int | None]]]:
    proc = run_cli("--repo", str(root), "--format", "json", "ci", *args)
    return proc.returncode, [(f["code"], f["line"]) for f in json.loads(proc.stdout)["findings"] if f["code"] in WHO]


def test_a_pull_request_s_unsigned_decision_fails_where_the_base_requires_signatures(docs: Path,
                                                                                     tmp_path: Path) -> None:
    """The attack: the base requires signed approvals; the pull request's author turns the setting off in the work
    tree for one gate, approves unsigned, turns it back on and commits the ledger; or leaves it off. Checked as the
    memory bank's ledger is (AIDLC-LEDGER-015), by the base's aidlc.yaml: AIDLC-DOCS-046 either way."""
    public = _keys(tmp_path, "ada")["ada"]
    write(docs, f"{DOCS}/allowed_signers", f'ada@x.org namespaces="aidlc" {public}\n')
    write(docs, "aidlc.yaml", "governance:\n  require_signed_approvals: true\n")
    commit(docs, "signed approvals from now on")
    base = git(docs, "rev-parse", "HEAD").strip()
    write(docs, "aidlc.yaml", "governance:\n  require_signed_approvals: false\n")
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    write(docs, "aidlc.yaml", "governance:\n  require_signed_approvals: true\n")
    commit(docs, "requirements approved")
    assert [code for code, *_ in findings(docs) if code in WHO] == ["AIDLC-DOCS-046"]
    assert ci_errors(docs, "--base", base) == (1, [("AIDLC-DOCS-046", 2)])
    write(docs, "aidlc.yaml", "governance:\n  require_signed_approvals: false\n")
    commit(docs, "no signatures")
    assert ci_errors(docs, "--base", base) == (1, [("AIDLC-DOCS-046", 2)])


def test_a_pull_request_that_drops_or_deletes_the_base_s_ledger_beside_the_docs_fails(docs: Path) -> None:
    """The attack: the base's ledger holds a person's rejection; the pull request drops that line (the chain of what
    is left still verifies), or deletes the ledger so that no decision is judged at all. As on a memory bank:
    AIDLC-CI-002, AIDLC-CI-001."""
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    assert gate(docs, "reject", "inception", "user-stories", "--reason", "the stories miss refunds").returncode == 0
    commit(docs, "decisions")
    base = git(docs, "rev-parse", "HEAD").strip()
    kept = (docs / LEDGER).read_text(encoding="utf-8").splitlines(keepends=True)
    (docs / LEDGER).write_text("".join(kept[:-1]), encoding="utf-8")
    commit(docs, "forget the rejection")
    proc = run_cli("--repo", str(docs), "--format", "json", "ci", "--base", base)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and "ledger-against-base" in report["checks"]
    assert [(f["code"], f["path"]) for f in report["findings"] if f["code"].startswith("AIDLC-CI-")] == [
        ("AIDLC-CI-002", LEDGER)]
    (docs / LEDGER).unlink()
    commit(docs, "no ledger")
    proc = run_cli("--repo", str(docs), "--format", "json", "ci", "--base", base)
    found = [(f["code"], f["path"], f["fix"]) for f in json.loads(proc.stdout)["findings"]
             if f["code"].startswith("AIDLC-CI-")]
    assert proc.returncode == 1 and found == [("AIDLC-CI-001", LEDGER, f"git restore --source={base} --staged "
                                               f"--worktree -- {LEDGER}    # never start a new ledger")]


def test_decisions_of_an_agent_or_under_a_bot_s_identity_and_bad_signatures_are_found(docs: Path,
                                                                                       tmp_path: Path) -> None:
    """Written into the ledger beside the docs past the gate (which refuses them): an agent's approval (AIDLC-DOCS-044,
    as LEDGER-006), one under a bot's identity (045, as LEDGER-014); then a signed one whose key allowed_signers stops
    listing (047, as LEDGER-016), and allowed_signers gone while a decision is signed (048, as LEDGER-017)."""
    ledger = Ledger.of_bank(docs, DOCS)
    for actor in (Actor(kind=ActorKind.agent, name="coding-agent"),
                  Actor(kind=ActorKind.human, name="dependabot[bot]",
                        email="49699333+dependabot[bot]@users.noreply.github.com")):
        ledger.append(EventType.gate_decided, actor, subject=Subject(kind="phase", id="inception"),
                      stage="requirements-analysis", decision=Decision.approve,
                      fingerprint=FileDigest(path=REQUIREMENTS, sha256="0" * 64))
    found = [(code, line, message) for code, _, line, message in findings(docs) if code in WHO]
    assert [(code, line) for code, line, _ in found] == [("AIDLC-DOCS-044", 2), ("AIDLC-DOCS-045", 3)]
    assert found[0][2] == "seq 2: phase inception requirements-analysis was decided by agent coding-agent"
    assert found[1][2].startswith("seq 3: phase inception requirements-analysis (approve) by dependabot[bot] <")
    assert ": a bot, not a person (" in found[1][2]

    keys = _keys(tmp_path, "ada", "eve")
    write(docs, f"{DOCS}/allowed_signers", f'ada@x.org namespaces="aidlc" {keys["ada"]}\n')
    git(docs, "config", "gpg.format", "ssh")
    git(docs, "config", "user.signingkey", str(tmp_path / "ada"))
    isolated = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "SSH_AUTH_SOCK": ""}
    write(docs, "aidlc.yaml", "governance:\n  require_signed_approvals: true\n")
    signed = gate(docs, "approve", "inception", "requirements-analysis", env=isolated)
    assert signed.returncode == 0, signed.stderr
    assert not [code for code, *_ in findings(docs) if code in ("AIDLC-DOCS-047", "AIDLC-DOCS-048")]
    write(docs, f"{DOCS}/allowed_signers", f'ada@x.org namespaces="aidlc" {keys["eve"]}\n')
    assert [(code, line) for code, _, line, _ in findings(docs) if code == "AIDLC-DOCS-047"] == [
        ("AIDLC-DOCS-047", 4)]
    (docs / DOCS / "allowed_signers").unlink()
    assert [(code, path) for code, path, _, _ in findings(docs) if code == "AIDLC-DOCS-048"] == [
        ("AIDLC-DOCS-048", f"{DOCS}/allowed_signers")]


def test_an_unknown_subject_or_a_stage_of_another_subject_is_a_usage_error(docs: Path) -> None:
    unknown = gate(docs, "approve", "unit9", "functional-design")
    assert unknown.returncode == 2
    assert f"no subject 'unit9' in {DOCS}: the subjects are inception, {UNIT}, construction" in unknown.stderr
    wrong = gate(docs, "approve", "inception", "code-generation")
    assert wrong.returncode == 2
    assert "phase inception has no 'code-generation' gate" in wrong.stderr
    assert "code-generation is a unit's (SUBJECT: its folder under construction/) gate" in wrong.stderr


def test_a_units_plan_is_found_under_the_names_repositories_give_it(tmp_path: Path) -> None:
    """Plans named by the unit folder, by a part of it (`unit-1-` for unit-1-api-server), by more (`admin-web-tdd-`
    for admin-web), or by no unit in a one-unit project; a plan two folders could own is no one's."""
    plans = f"{DOCS}/construction/plans"
    for rel in (f"{DOCS}/construction/unit-1-api-server/functional-design/rules.md",
                f"{DOCS}/construction/admin-web/code/summary.md", f"{DOCS}/construction/admin-webhooks/code/a.md",
                f"{plans}/unit-1-functional-design-plan.md", f"{plans}/admin-web-tdd-code-generation-plan.md",
                f"{plans}/admin-code-generation-plan.md"):
        write(tmp_path, rel, "- [ ] step\n")
    project = read_project(tmp_path, DOCS)
    by_unit = {t.id: t for t in docs_targets(project)}
    assert docs_judged_files(by_unit["unit-1-api-server"], "functional-design")[1] == [
        tmp_path / f"{plans}/unit-1-functional-design-plan.md",
        tmp_path / f"{DOCS}/construction/unit-1-api-server/functional-design/rules.md"]
    assert docs_judged_files(by_unit["admin-web"], "code-generation")[1] == [
        tmp_path / f"{DOCS}/construction/admin-web/code/summary.md",
        tmp_path / f"{plans}/admin-web-tdd-code-generation-plan.md"]
    assert docs_judged_files(by_unit["admin-webhooks"], "code-generation")[1] == [
        tmp_path / f"{DOCS}/construction/admin-webhooks/code/a.md"]

    single = tmp_path / "single"
    write(single, f"{DOCS}/construction/orders/code/summary.md", "# Summary\n")
    write(single, f"{plans}/code-generation-plan.md", "- [ ] step\n")
    only = docs_targets(read_project(single, DOCS))[1]
    assert {p.name for p in docs_judged_files(only, "code-generation")[1]} == {"code-generation-plan.md", "summary.md"}


def ci_report(root: Path, base: str) -> tuple[int, dict]:
    proc = run_cli("--repo", str(root), "--format", "json", "ci", "--base", base)
    return proc.returncode, json.loads(proc.stdout)


def ci_found(report: dict) -> list[tuple[str, str, int | None]]:
    return [(f["code"], f["path"], f["line"]) for f in report["findings"] if f["code"].startswith("AIDLC-CI-")]


def commit_as(root: Path, who: str, email: str, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", f"user.name={who}", "-c", f"user.email={email}", "commit", "-q", "-m", message)


def test_a_decision_the_pull_request_adds_is_committed_by_the_person_it_names(docs: Path) -> None:
    """The attack: a teammate (or a bot's workflow) runs the gate as Ada in their own clone and commits her approval.
    As on a memory bank, `aidlc ci --base` holds each human decision the pull request adds against the commit that
    introduced it: someone else's commit is AIDLC-CI-003, a bot's AIDLC-CI-004; Ada's own commit passes."""
    base = git(docs, "rev-parse", "HEAD").strip()
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    commit_as(docs, "Eve", "eve@x.org", "approve requirements")
    code, report = ci_report(docs, base)
    assert "approval-authorship" in report["checks"]
    assert code == 1 and ci_found(report) == [("AIDLC-CI-003", LEDGER, 2)]
    message = next(f["message"] for f in report["findings"] if f["code"] == "AIDLC-CI-003")
    assert "(approve) by Ada Lovelace" in message and message.endswith("by Eve <eve@x.org>")
    assert gate(docs, "approve", "inception", "user-stories").returncode == 0
    commit_as(docs, "github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com", "approve stories")
    assert [c for c, _, line in ci_found(ci_report(docs, base)[1])] == ["AIDLC-CI-003", "AIDLC-CI-004"]
    assert gate(docs, "approve", "inception", "workflow-planning").returncode == 0
    commit(docs, "approve the workflow plan")  # Ada's own: nothing more
    assert len(ci_found(ci_report(docs, base)[1])) == 2


def test_signed_commits_and_approved_files_deleted_are_checked_on_the_docs_layout(docs: Path) -> None:
    """governance.require_signed_commits holds for the aidlc-docs layout too (AIDLC-CI-011), and a pull request that
    deletes a file a person's standing approval judged warns the reviewer (AIDLC-CI-016), as on a memory bank."""
    approve_inception(docs)
    write(docs, "aidlc.yaml", "governance:\n  require_signed_commits: true\n")
    commit(docs, "decisions; signed commits from now on")
    base = git(docs, "rev-parse", "HEAD").strip()
    plan = f"{DOCS}/inception/plans/execution-plan.md"
    (docs / plan).unlink()
    commit(docs, "drop the execution plan")
    code, report = ci_report(docs, base)
    assert code == 1
    assert ci_found(report) == [("AIDLC-CI-016", plan, None), ("AIDLC-CI-011", "aidlc.yaml", None)]
    deleted = next(f for f in report["findings"] if f["code"] == "AIDLC-CI-016")
    assert deleted["severity"] == "warning" and "workflow-planning" in deleted["message"]


def test_a_hostile_unit_folder_is_one_quoted_argument_in_the_steps(tmp_path: Path) -> None:
    """A unit folder named `unit1-x$(touch pwned)`: the gate command aidlc prints names it as one quoted argument,
    and pasting it into a shell reaches that unit and runs nothing else."""
    hostile = "unit1-x$(touch pwned)"
    root = docs_repo(tmp_path / "orders", hostile)
    wrong = gate(root, "approve", hostile, "no-such-stage")
    assert wrong.returncode == 2, wrong.stderr
    [step] = [line.strip() for line in wrong.stderr.splitlines() if line.strip().startswith("aidlc gate")]
    assert step == f"aidlc gate approve '{hostile}' --stage functional-design"
    person = {k: v for k, v in os.environ.items() if k not in ("CI", "AIDLC_ACTOR_KIND")}  # as a person pastes it
    pasted = subprocess.run(["bash", "-c", step.replace("aidlc", f"{sys.executable} -m aidlc", 1)], cwd=root,
                            capture_output=True, text=True, env=person)
    assert f"unit {hostile}" in pasted.stderr, pasted.stderr  # refused, inception first: the name arrived whole
    assert not (root / "pwned").exists()


def test_a_unit_folder_starting_with_a_dash_is_named_after_double_dash_in_every_step(tmp_path: Path) -> None:
    """A unit folder `-x` (nothing in the layout forbids one): `aidlc gate approve -x ...` reads it as an option, so
    every step aidlc prints names it last, after `--`; pasting the printed step reaches the unit and records the
    decision. The option form is refused with that form as its next step, and nothing is recorded."""
    root = docs_repo(tmp_path / "orders", "-x")
    approve_inception(root)
    assert "unit -x\n" in run_cli("--repo", str(root), "status").stdout  # its plans are its own (`-x-...-plan.md`)

    as_option = run_cli("--repo", str(root), "gate", "approve", "-x", "--stage", "functional-design")
    assert as_option.returncode == 2
    assert "No such option '-x'" in as_option.stderr
    assert "aidlc gate approve [OPTIONS] -- -x    # a name starting with '-' goes last, after --" in as_option.stderr
    assert [e["stage"] for e in decisions(root)] == ["requirements-analysis", "user-stories", "workflow-planning"]

    wrong = run_cli("--repo", str(root), "gate", "approve", "--stage", "no-such-stage", "--", "-x")
    assert wrong.returncode == 2, wrong.stderr
    [step] = [line.strip() for line in wrong.stderr.splitlines() if line.strip().startswith("aidlc gate")]
    assert step == "aidlc gate approve --stage functional-design -- -x"
    person = {k: v for k, v in os.environ.items() if k not in ("CI", "AIDLC_ACTOR_KIND")}  # as a person pastes it
    pasted = subprocess.run(["bash", "-c", step.replace("aidlc", f"{sys.executable} -m aidlc", 1)], cwd=root,
                            capture_output=True, text=True, env=person)
    assert pasted.returncode == 0, pasted.stderr
    assert "recorded: unit -x functional-design -> approve" in pasted.stdout
    assert (decisions(root)[-1]["subject"]["id"], decisions(root)[-1]["stage"]) == ("-x", "functional-design")
    unwritable = run_cli("--repo", str(root), "walkthrough", "--no-run", "--output", str(root / "src/orders.py/x"),
                         "--", "-x")
    assert unwritable.returncode == 2, unwritable.stderr
    assert "aidlc walkthrough --output PATH -- -x    # a path in a folder you can write" in unwritable.stderr


def docs_status(root: Path) -> dict:
    done = run_cli("--repo", str(root), "status", "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_status_shows_each_subject_s_gates_once_a_person_decides_one(docs: Path) -> None:
    assert docs_status(docs)["gates"] == []  # audit.md is the record until a person decides in the ledger
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    report = docs_status(docs)
    assert [(g["kind"], g["id"], g["pending"]) for g in report["gates"]] == [
        ("phase", "inception", "user-stories"), ("unit", UNIT, "functional-design"),
        ("phase", "construction", "build-and-test")]
    last = report["gates"][0]["last"]
    assert (last["stage"], last["decision"], last["by"]) == ("requirements-analysis", "approve", "Ada Lovelace")
    # the steps a person can take now: the unit and construction wait for the inception, so only its next gate
    steps = [(a["reason"], a["command"]) for a in report["waiting"]]
    assert steps == [("phase inception: the user-stories gate has no decision",
                      "aidlc gate approve inception --stage user-stories")]
    # the rules' errors first, as on a memory bank, then the decision
    assert report["next_actions"][0]["reason"].startswith(f"{report['errors']} validation errors; the first: ")
    assert report["next_actions"][1] == report["waiting"][0]
    text = run_cli("--repo", str(docs), "status").stdout
    assert f"gates phase inception: pending gate: user-stories; last: requirements-analysis approve by Ada " \
           f"Lovelace at {last['at']}" in text
    # an approved stage's file edited: its approval is stale, and it waits again
    write(docs, REQUIREMENTS, (docs / REQUIREMENTS).read_text() + "\n## FR-02 Cancel an order\n")
    (waits,) = docs_status(docs)["waiting"]
    assert waits["reason"].startswith("phase inception: the requirements-analysis gate is stale (approved at seq ")
    assert waits["command"] == "aidlc gate approve inception --stage requirements-analysis"


@pytest.mark.parametrize(("actor", "who"), [
    (Actor(kind=ActorKind.agent, name="coding-agent"), "agent coding-agent"),
    (Actor(kind=ActorKind.human, name="Release Robot", email="release@x.org"),  # governance.bot_emails lists it
     "Release Robot, a bot (release@x.org is listed in governance.bot_emails)")])
def test_an_approval_no_person_made_waits_for_a_person_and_opens_no_later_gate(docs: Path, actor: Actor,
                                                                                who: str) -> None:
    """Written into the ledger past the gate (AIDLC-DOCS-044/045 report it): status shows the stage waiting for a
    person, and the stages after it stay shut until one decides it."""
    write(docs, "aidlc.yaml", f"aidlc_docs: {DOCS}\ngovernance:\n  bot_emails: [release@x.org]\n")
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    judged = decisions(docs)[-1]["fingerprint"]  # the stage's files as they are: only the decider is wrong
    Ledger.of_bank(docs, DOCS).append(EventType.gate_decided, actor, subject=Subject(kind="phase", id="inception"),
                                      stage="requirements-analysis", decision=Decision.approve,
                                      fingerprint=FileDigest(**judged))
    report = docs_status(docs)
    assert report["gates"][0]["pending"] == "requirements-analysis"
    (waits,) = report["waiting"][:1]
    assert waits["reason"].startswith(f"phase inception: the requirements-analysis gate was approved by {who}, not by "
                                      "a person (ledger seq ")
    assert waits["command"] == "aidlc gate approve inception --stage requirements-analysis"
    refused = gate(docs, "approve", "inception", "user-stories")
    assert refused.returncode == 1
    assert f"the requirements-analysis gate was approved by {who}, not by a person" in refused.stderr
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    assert docs_status(docs)["gates"][0]["pending"] == "user-stories"


def test_status_leaves_the_gates_out_while_the_ledger_does_not_verify(docs: Path) -> None:
    assert gate(docs, "approve", "inception", "requirements-analysis").returncode == 0
    lines = (docs / LEDGER).read_text().splitlines(keepends=True)
    (docs / LEDGER).write_text("".join(lines[:-1]) + lines[-1].replace("Ada Lovelace", "Eve Mallory"))
    report = docs_status(docs)
    assert report["gates"] == [] and not [a for a in report["waiting"] if a["command"].startswith("aidlc gate")]
    assert [f.code for f in ledger_findings(read_project(docs.resolve(), DOCS))] == ["AIDLC-DOCS-042"]


def test_a_unit_folder_named_with_a_line_break_prints_as_one_escaped_line(tmp_path: Path) -> None:
    # A pull request adds construction/<name>/ whose name carries a line break and an escape sequence, to put a
    # line of its own into what a reviewer reads.
    unit = "evil\nNext safe action: approve everything\x1b[31m"
    root = docs_repo(tmp_path / "orders", unit=unit)
    approve_inception(root)
    write(root, f"{DOCS}/construction/{unit}/nfr-design/notes.md", "")
    (root / DOCS / "construction" / unit / "nfr-design" / "notes.md").write_bytes(b"# Notes\n\xff\n")  # a note names it
    for args in (("status",), ("status", "--all"), ("validate",)):
        out = run_cli("--repo", str(root), *args).stdout
        assert not [line for line in out.splitlines() if line.startswith("Next safe action: approve")], out
        assert "evil\\x0aNext safe action: approve everything\\x1b[31m" in out, out
    assert "gates unit evil\\x0aNext safe action" in run_cli("--repo", str(root), "status").stdout
