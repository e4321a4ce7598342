"""The README's first command: the demo on the built-in sample runs end to end, the bolt included, from the
recorded cassette in examples/demo/."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aidlc.llm.base import Message
from aidlc.llm.replay import load_cassette, request_digest
from tests.demo_cassette import ANSWERS, CASSETTE, DEMO, MODEL

pytestmark = pytest.mark.slow  # whole-program runs: .ci/run runs them with -m slow

BOLT = "001-checkout-api"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One run of the demo, as the README's first command runs it on a fresh machine: no model server, no key,
    no network, no git identity or user configuration (an empty HOME), and from a coding agent's shell (an agent
    following the README: Claude Code's and Cursor's markers set). Before: refused at Ada's first gate there."""
    shop = tmp_path_factory.mktemp("demo") / "shop"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AIDLC_", "GIT_", "XDG_")) and not k.endswith("_API_KEY")}
    env.update({"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "CI": "true",
                "HOME": str(tmp_path_factory.mktemp("home")), "CLAUDECODE": "1",
                "CURSOR_EXTENSION_HOST_ROLE": "agent-exec"})
    proc = subprocess.run(["bash", str(DEMO), str(shop)], env=env, capture_output=True, text=True)
    return proc, shop


def test_the_live_demo_fails_when_its_model_server_is_down(tmp_path: Path) -> None:
    """AIDLC_LLM_BASE_URL names a port where nothing listens: the demo stops at the bolt with exit 1 and says
    which server failed, instead of going on to "Done"."""
    with socket.socket() as probe:  # a free port, closed again: nothing answers there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AIDLC_", "GIT_", "XDG_")) and not k.endswith("_API_KEY")}
    env.update({"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "CI": "true",
                "HOME": str(tmp_path / "home"), "AIDLC_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1",
                "AIDLC_LLM_MODEL": "any"})
    proc = subprocess.run(["bash", str(DEMO), str(tmp_path / "shop")], env=env, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"demo: the live model at http://127.0.0.1:{port}/v1 failed: " in proc.stderr
    assert "aidlc llm check --base-url" in proc.stderr and "Done." not in proc.stdout


def section(stdout: str, number: int) -> str:
    return stdout.split(f"== {number}.")[1].split("\n== ")[0]


def run_state(shop: Path) -> dict[str, Any]:
    [state] = list((shop / ".aidlc/runs").glob("*/state.json"))
    return json.loads(state.read_text())


def test_demo_builds_a_chain_passes_its_gates_then_catches_every_break(demo: tuple[Any, Path]) -> None:
    proc, shop = demo
    assert proc.returncode == 0, proc.stderr
    before, after = proc.stdout.split("== 7.")
    assert "validation passed: 6 files, 0 errors, 0 warnings" in section(before, 2)
    assert "validation passed: 6 files, 0 errors, 0 warnings" in section(before, 6)  # the bolt complete
    assert "is agent. AI proposes, a human decides." in proc.stderr
    # The edited approvals no longer count (a line whose hash fails vouches for nothing): the intent is in
    # construction without them (LEDGER-004), besides the broken chain itself (LEDGER-001).
    for code in ("AIDLC-REF-001", "AIDLC-STATE-001", "AIDLC-STATE-002", "AIDLC-STATE-005", "AIDLC-SCHEMA-004",
                 "AIDLC-LEDGER-001", "AIDLC-LEDGER-002", "AIDLC-LEDGER-003", "AIDLC-LEDGER-004"):
        assert code in after, code
    assert "aidlc validate exited 1 and aidlc log verify exited 1" in after
    summary = json.loads(next(line for line in after.splitlines() if line.startswith('{"files"')))
    assert summary["errors"] == 10  # the cycle of two bolts is reported on each of them
    events = [json.loads(line) for line in (shop / "memory-bank/events.jsonl").read_text().splitlines()]
    decisions = [(e["subject"]["id"], e["stage"], e["actor"]["name"]) for e in events if e["type"] == "gate.decided"]
    assert decisions == [("001-checkout", s, "Ada Lovelace") for s in ("requirements", "units", "stories",
                                                                        "bolt-plan")] + [
        (BOLT, "plan", "Ada Lovelace"), (BOLT, "walkthrough", "Ada Lovelace")]


def test_the_bolt_plans_pauses_fails_a_check_repairs_and_stops_at_the_walkthrough_gate(
        demo: tuple[Any, Path]) -> None:
    proc, shop = demo
    assert proc.returncode == 0, proc.stderr
    assert "ReplayMiss" not in proc.stdout + proc.stderr and "no recorded answer" not in proc.stdout + proc.stderr
    bolt = section(proc.stdout, 5)
    assert "answers written for this demo" in bolt and "not a" in bolt  # says plainly what stands in for a model
    start, resumed = bolt.split("(aidlc bolt start exited 3; 3 = paused for a person)")
    assert f"{BOLT}: AWAIT_PLAN_APPROVAL" in start
    assert f"{BOLT}: AWAIT_ACCEPTANCE" in resumed and "(aidlc bolt resume exited 3" in resumed
    trace = resumed.split("(aidlc bolt resume exited 3")[1]
    assert trace.index("cart failed (exit 1") < trace.index("VERIFYING -> REPAIRING") \
        < trace.index("repair-1 applied") < trace.index("cart passed (exit 0") \
        < trace.index("WALKTHROUGH -> AWAIT_ACCEPTANCE")
    assert "# Implementation walkthrough: 001-checkout-api" in trace
    assert "ledger verified: memory-bank/events.jsonl" in trace  # aidlc log verify, at the walkthrough gate
    assert "-        result -= price\n+        result += prices" in trace  # the slip the check catches
    assert "FAIL total([250]) == 250, got \"TypeError: unsupported operand" in trace
    assert "-        result += prices\n+        result += price" in trace  # the repair
    state = run_state(shop)  # after section 6: Ada accepted the walkthrough
    assert state["status"] == "COMPLETED" and state["repairs"] == 1
    assert [s["stage"] for s in state["steps"]] == ["plan-1.1", "execute", "repair-1"]
    assert {s["model"] for s in state["steps"]} == {MODEL} and not any(s.get("error") for s in state["steps"])
    assert [[r["passed"] for r in c["results"]] for c in state["checks"]] == [[False], [True]]
    last = proc.stdout.strip().splitlines()[-7:]
    assert f"The bolt: 3 model calls, {state['budget']['tokens']} tokens, 1 repair round(s), ended COMPLETED." in last


def test_the_cassette_is_valid_and_holds_every_answer_the_demo_uses() -> None:
    recorded = load_cassette(CASSETTE)  # every line parses
    lines = [json.loads(line) for line in CASSETTE.read_text(encoding="utf-8").splitlines()]
    for entry in lines:  # each digest is the digest of the request stored beside it: a replay finds it
        request = entry["request"]
        messages = [Message(m["role"], m["content"]) for m in request["messages"]]
        assert entry["digest"] == request_digest(messages, request["response_format"], request["tools"])
    answers = [entry["response"]["text"] for entry in lines if "response" in entry]
    assert answers == ANSWERS and len(recorded) == len(ANSWERS)
    assert {entry["response"]["model"] for entry in lines if "response" in entry} == {MODEL}


def test_the_demo_builds_only_its_own_sample_never_in_a_folder_of_yours(tmp_path: Path) -> None:
    """The demo plays a person (and clears an agent's shell markers for that): pointed at an existing repository,
    it wrote its chain and Ada's approvals there. Now it refuses, exit 2, and writes nothing."""
    repo = tmp_path / "yours"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("# Mine\n")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "CLAUDECODE": "1"}
    proc = subprocess.run(["bash", str(DEMO), str(repo)], env=env, capture_output=True, text=True)
    assert proc.returncode == 2 and f"demo: {repo} exists and is not empty" in proc.stderr, proc.stderr
    assert "Next steps:" in proc.stderr
    assert sorted(p.name for p in repo.iterdir()) == [".git", "README.md"]
