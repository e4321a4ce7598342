"""aidlc bolt at a terminal: a real pseudo-terminal runs `python -m aidlc bolt start`, and a person answers the
gate's question (or does not: Ctrl-D pauses, an agent is not asked)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bolt_sample import BOLT, BOLT_DIR, CALC, FIXED, edit_answer, env, events, git, plan_answer, run, set_config
from tests.openai_server import ScriptedServer
from tests.test_bolt import state

APPROVE_PROMPT = b"[a/r/p] "
REASON_PROMPT = b"why (recorded in the ledger)? "
EOF = b"\x04"  # Ctrl-D at the start of a line: the terminal ends the input
HANG_GUARD_S = 120  # a prompt that never comes fails the test instead of hanging it


def at_terminal(root: Path, server: ScriptedServer, *args: str, answers: list[tuple[bytes, bytes]],
                **extra: str) -> tuple[int, str]:
    """Run `aidlc bolt ARGS` with stdin, stdout and stderr on a pseudo-terminal; for each (prompt, answer),
    wait for the prompt and type the answer. Returns the exit code and everything the terminal showed."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "aidlc", "--repo", str(root), "bolt", *args, "--base-url",
                             server.url], stdin=slave, stdout=slave, stderr=slave, env=env(**extra), cwd=root)
    os.close(slave)
    shown, answered_up_to, pending = b"", 0, list(answers)
    try:
        while True:
            ready, _, _ = select.select([master], [], [], HANG_GUARD_S)
            assert ready, f"nothing shown for {HANG_GUARD_S} s; so far: {shown.decode(errors='replace')}"
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            shown += chunk
            if pending and pending[0][0] in shown[answered_up_to:]:
                prompt, answer = pending.pop(0)
                answered_up_to = shown.index(prompt, answered_up_to) + len(prompt)
                os.write(master, answer)
    finally:
        os.close(master)
        code = proc.wait()
    assert not pending, f"never asked {pending[0][0]!r}; shown: {shown.decode(errors='replace')}"
    return code, shown.decode(errors="replace").replace("\r\n", "\n")


def decided(root: Path) -> list[tuple[str, str, str, str | None]]:
    return [(e["stage"], e["decision"], e["actor"]["kind"], e.get("reason")) for e in events(root)
            if e["type"] == "gate.decided" and e["subject"]["kind"] == "bolt"]


def test_a_person_at_a_terminal_approves_the_plan_and_pauses_at_the_walkthrough_with_ctrl_d(
        shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer(), edit_answer("        result -= price\n", "        result += price\n"))
    code, shown = at_terminal(shop, server, "start", BOLT, answers=[(APPROVE_PROMPT, b"a\n"), (APPROVE_PROMPT, EOF)])
    assert code == 3, shown
    plan_question = shown.split("[a/r/p]")[0]
    assert f"The plan of bolt {BOLT} waits for your decision: {BOLT_DIR}/implementation-plan.md" in plan_question
    assert "Make total() add the prices" in plan_question and f"modify {CALC}" in plan_question
    assert "callers that relied on the wrong sign" in plan_question
    assert f"{BOLT_DIR}/implementation-walkthrough.md" in shown and "tests passed" in shown
    assert (shop / CALC).read_text() == FIXED
    assert state(shop)["status"] == "AWAIT_ACCEPTANCE" and state(shop)["pause"]["kind"] == "walkthrough_gate"
    assert decided(shop) == [("plan", "approve", "human", None)]  # Ctrl-D recorded nothing
    assert "aidlc bolt resume" in shown and "--approve" in shown  # the ways on, as without a terminal
    assert run(shop, "log", "verify").returncode == 0
    assert "plan gate approve: decided at the terminal" in run(shop, "bolt", "trace", BOLT).stdout


def test_a_rejection_at_the_terminal_asks_why_and_the_model_plans_again(
        shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer(), plan_answer(summary="Add the prices; an empty cart totals 0."))
    code, shown = at_terminal(shop, server, "start", BOLT, answers=[
        (APPROVE_PROMPT, b"r\n"), (REASON_PROMPT, b"\n"), (REASON_PROMPT, b"say what an empty cart costs\n"),
        (APPROVE_PROMPT, b"p\n")])
    assert code == 3, shown
    assert decided(shop) == [("plan", "reject", "human", "say what an empty cart costs")]
    assert "say what an empty cart costs" in json.dumps(server.bodies()[-1]["messages"])
    assert "an empty cart totals 0" in shown.split("[a/r/p]")[1]  # the second question shows the new plan
    assert state(shop)["status"] == "AWAIT_PLAN_APPROVAL" and state(shop)["pause"]["kind"] == "plan_gate"


def test_ctrl_d_at_the_first_question_pauses_and_records_nothing(shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer())
    code, shown = at_terminal(shop, server, "start", BOLT, answers=[(APPROVE_PROMPT, EOF)])
    assert code == 3, shown
    assert decided(shop) == [] and state(shop)["status"] == "AWAIT_PLAN_APPROVAL"
    assert f"aidlc gate approve {BOLT} --stage plan" in shown


@pytest.mark.parametrize("how", ["agent", "ci", "no-input"])
def test_no_question_for_an_agent_under_ci_or_with_no_input(shop: Path, server: ScriptedServer,
                                                            how: str) -> None:
    server.push(plan_answer())
    extra = {"agent": {"AIDLC_ACTOR_KIND": "agent"}, "ci": {"CI": "true"}, "no-input": {}}[how]
    flags = ["--no-input"] if how == "no-input" else []
    code, shown = at_terminal(shop, server, "start", BOLT, *flags, answers=[], **extra)
    assert code == 3, shown
    assert "[a/r/p]" not in shown and decided(shop) == []
    assert f"aidlc gate approve {BOLT} --stage plan" in shown and f"aidlc bolt resume {BOLT} --approve" in shown
    if how == "agent":
        assert "human checkpoint" in shown and "is agent" in shown


def test_a_person_at_a_terminal_resumes_and_accepts_the_walkthrough(shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer(), edit_answer("        result -= price\n", "        result += price\n"))
    code, shown = at_terminal(shop, server, "start", BOLT, answers=[(APPROVE_PROMPT, b"a\n"), (APPROVE_PROMPT, b"p\n")])
    assert code == 3, shown
    story = next(shop.glob("memory-bank/intents/*/units/*/stories/001-*.md"))
    code, shown = at_terminal(shop, server, "resume", BOLT, answers=[(APPROVE_PROMPT, b"approve\n")])
    assert code == 3 and "the decision was refused" in shown, shown  # the stories' boxes are not checked yet
    story.write_text(story.read_text().replace("- [ ] **Given**", "- [x] **Given**"))
    code, shown = at_terminal(shop, server, "resume", BOLT, answers=[(APPROVE_PROMPT, b"approve\n")])
    assert code == 0, shown
    assert state(shop)["status"] == "COMPLETED"
    assert decided(shop) == [("plan", "approve", "human", None), ("walkthrough", "approve", "human", None)]


def test_a_walkthrough_rejected_at_the_terminal_sends_the_work_back_to_a_new_plan(
        shop: Path, server: ScriptedServer) -> None:
    server.push(plan_answer(), edit_answer("        result -= price\n", "        result += price\n"),
                plan_answer(summary="Say what an empty cart totals."))
    code, shown = at_terminal(shop, server, "start", BOLT, answers=[
        (APPROVE_PROMPT, b"a\n"), (APPROVE_PROMPT, b"reject\n"), (REASON_PROMPT, b"the empty cart is untested\n"),
        (APPROVE_PROMPT, b"p\n")])
    assert code == 3, shown
    assert "the model plans the rework with your reason" in shown
    assert state(shop)["status"] == "AWAIT_PLAN_APPROVAL" and state(shop)["reworks"] == ["the empty cart is untested"]
    assert decided(shop) == [("plan", "approve", "human", None),
                             ("walkthrough", "reject", "human", "the empty cart is untested")]
    stages = [line for line in subprocess.run(
        ["git", "-C", str(shop), "log", "--format=%(trailers:key=Aidlc-Stage,valueonly)"], capture_output=True,
        text=True, check=True).stdout.split() if line]
    assert stages == ["walkthrough", "execute"]  # the walkthrough a person rejected is the one committed, once
    assert run(shop, "log", "verify").returncode == 0


def test_a_bot_identity_at_the_terminal_is_refused_and_the_run_pauses(shop: Path, server: ScriptedServer) -> None:
    set_config(shop, "bot_emails: []", "bot_emails: [release-bot@example.org]")
    git(shop, "commit", "-qam", "the release bot is a bot")
    git(shop, "config", "user.email", "release-bot@example.org")
    server.push(plan_answer())
    code, shown = at_terminal(shop, server, "start", BOLT, answers=[(APPROVE_PROMPT, b"a\n")])
    assert code == 3, shown
    assert "the decision was refused" in shown and "release-bot@example.org" in shown, shown
    assert state(shop)["status"] == "AWAIT_PLAN_APPROVAL" and state(shop)["pause"]["kind"] == "plan_gate"
    assert decided(shop) == []


def test_a_required_signature_is_made_at_the_terminal_or_the_decision_waits(
        shop: Path, server: ScriptedServer, tmp_path: Path) -> None:
    key = tmp_path / "ada"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada", "-f", str(key)], check=True)
    public = " ".join(Path(f"{key}.pub").read_text().split()[:2])
    (shop / "memory-bank/allowed_signers").write_text(f'ada@example.org namespaces="aidlc" {public}\n')
    set_config(shop, "require_signed_approvals: false", "require_signed_approvals: true")
    git(shop, "add", "-A")
    git(shop, "commit", "-qm", "approvals are signed")
    server.push(plan_answer())
    code, shown = at_terminal(shop, server, "start", BOLT, answers=[(APPROVE_PROMPT, b"a\n")])
    assert code == 3 and "the decision was refused" in shown and "signingkey" in shown, shown  # no key: nothing
    assert decided(shop) == []

    git(shop, "config", "gpg.format", "ssh")
    git(shop, "config", "user.signingkey", str(key))
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    code, shown = at_terminal(shop, server, "resume", BOLT, answers=[(APPROVE_PROMPT, b"a\n"), (APPROVE_PROMPT, EOF)])
    assert code == 3 and state(shop)["status"] == "AWAIT_ACCEPTANCE", shown
    (approval,) = [e for e in events(shop) if e["type"] == "gate.decided" and e["subject"]["kind"] == "bolt"]
    assert approval["stage"] == "plan" and approval["signature"]["format"] == "ssh"
    assert run(shop, "log", "verify").returncode == 0
