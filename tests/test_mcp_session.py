"""`aidlc mcp` as a real subprocess over stdio: a scripted agent session on each layout through the SDK's client,
ending at a gate only a person decides (then `aidlc gate approve`, the person's command, records it); raw protocol
abuse (a line that is not JSON, a client gone in the middle of a call) survived."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, Implementation

from aidlc.events.ledger import Ledger
from aidlc.model.events import Event
from tests.aidlc_docs_sample import DOCS, UNITS, build_docs_repo
from tests.bolt_sample import BOLT, events
from tests.helpers import run_cli

CHECK = "python -c \\\"import sys; sys.path.insert(0, 'src'); from shop.orders import place_order\\\""


def stdio(root: Path) -> StdioServerParameters:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    return StdioServerParameters(command=sys.executable, args=["-m", "aidlc", "mcp", "--repo", str(root)], env=env,
                                 cwd=str(root))


def agent(root: Path, script: list[tuple[str, dict[str, Any]]]) -> list[CallToolResult]:
    """The calls of `script`, in order, by a client named claude-code talking to `aidlc mcp` over its stdio."""
    async def main() -> list[CallToolResult]:
        async with Client(stdio(root), client_info=Implementation(name="claude-code", version="2.0")) as client:
            assert {t.name for t in (await client.list_tools()).tools} >= {"status", "audit_append", "check"}
            return [await client.call_tool(name, arguments) for name, arguments in script]
    return anyio.run(main)


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    return result.structured_content


def person_runs(root: Path, command: str) -> subprocess.CompletedProcess[str]:
    """A `aidlc gate ...` command as the status names it, run by the person (git's user) at a terminal."""
    words = command.split()
    assert words[:3] == ["aidlc", "gate", "approve"], command
    return run_cli("--repo", str(root), *words[1:], "--reason", "reviewed")


def test_an_agent_works_a_memory_bank_and_waits_for_the_person(shop: Path) -> None:
    status, made, bolt, checked, actions, refused = agent(shop, [
        ("status", {}),
        ("new", {"kind": "story", "title": "Refund a card", "unit": "001-checkout-api", "requirements": ["FR-1"],
                 "criteria": ["**Given** a paid order, **When** I refund it, **Then** the card is credited"]}),
        ("new", {"kind": "bolt", "unit": "001-checkout-api", "stories": ["002-refund-a-card"], "risk": "low"}),
        ("check", {"ref": BOLT}),
        ("next_actions", {}),
        ("gate", {"subject": BOLT, "stage": "plan"}),
    ])
    assert ok(status)["counts"]["bolts"] == 1
    assert ok(made)["id"] == "002-refund-a-card"
    new_bolt = ok(bolt)["id"]
    assert ok(checked)["events"][0]["actor"] == {"kind": "agent", "name": "mcp:claude-code"}
    # The new story changed what the intent's stories gate judged: it waits for the person again.
    waiting = [a["command"] for a in ok(actions)["waiting"]]
    assert waiting == ["aidlc gate approve 001-checkout-payments --stage stories"], waiting
    assert refused.is_error and "aidlc gate approve SUBJECT --stage STAGE" in refused.content[0].text
    before = [e for e in events(shop) if e["type"] == "gate.decided"]
    assert all(e["actor"]["kind"] == "human" for e in before)  # the sample's, by the person
    proc = person_runs(shop, waiting[0])
    assert proc.returncode == 0, proc.stderr
    decided = [e for e in events(shop) if e["type"] == "gate.decided"][len(before):]
    assert [(e["stage"], e["actor"]["kind"], e["actor"]["name"]) for e in decided] == \
        [("stories", "human", "Ada Lovelace")]
    assert new_bolt == "002-checkout-api"
    assert run_cli("log", "verify", cwd=shop).returncode == 0


def test_an_agent_works_an_aidlc_docs_project_and_waits_for_the_person(tmp_path: Path) -> None:
    repo = build_docs_repo(tmp_path / "shop")
    assert run_cli("init", cwd=repo.root).returncode == 0
    repo.replace("aidlc.yaml", "verify: []", f'verify:\n  - {{name: orders, run: "{CHECK}"}}')
    repo.commit("adopt the docs with aidlc init")
    root = repo.root
    status, stage, logged, approval, checked, report, actions = agent(root, [
        ("status", {}),
        ("show", {"kind": "unit", "ref": UNITS[0]}),
        ("audit_append", {"stage": "code-generation", "user_input": "Generate the orders API",
                          "ai_response": "Generated src/shop/orders.py"}),
        ("audit_append", {"stage": "Code Generation - Approval", "user_input": "Approve & Continue",
                          "ai_response": "Code generation approved"}),
        ("check", {"ref": UNITS[0]}),
        ("walkthrough", {"ref": UNITS[0]}),
        ("next_actions", {}),
    ])
    assert ok(status)["layout"] == "aidlc-docs"
    # asked by its folder (as gates name it): the state file's unit 1, its stage lines and its plans
    shown = ok(stage)
    assert (shown["unit"], shown["folders"]) == ("1", [UNITS[0]])
    assert [s["stage"] for s in shown["stages"]] == ["functional-design", "nfr-requirements", "code-generation"]
    entry = ok(logged)
    assert entry["path"] == f"{DOCS}/audit.md" and entry["stage"] == "code-generation"
    assert approval.is_error and "aidlc gate approve SUBJECT --stage STAGE" in approval.content[0].text
    assert ok(checked)["passed"] is True
    assert ok(report)["checks_passed"] is True
    recorded = [e for e in _events(root) if e.type in ("audit.appended", "check.recorded")]
    assert [(e.type, e.actor.kind, e.actor.name) for e in recorded] == \
        [("audit.appended", "agent", "mcp:claude-code"), ("check.recorded", "agent", "mcp:claude-code")]
    assert "Approve & Continue" not in (root / DOCS / "audit.md").read_text().split("Generated src/shop/orders.py")[1]
    assert "aidlc log verify" in [a["command"] for a in ok(actions)["next_actions"]]
    # The records were adopted: audit.md's approvals are history, and the ledger's first gate waits for the person.
    proc = person_runs(root, "aidlc gate approve inception --stage requirements-analysis")
    assert proc.returncode == 0, proc.stderr
    person = subprocess.run(["git", "-C", str(root), "config", "user.name"], capture_output=True, text=True).stdout
    decided = [e for e in _events(root) if e.type == "gate.decided"]
    assert [(e.actor.kind, e.actor.name) for e in decided] == [("human", person.strip())]


def _events(root: Path) -> list[Event]:
    return list(Ledger.of_bank(root, DOCS).events())


def _exchange(proc: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def _start(root: Path) -> subprocess.Popen[str]:
    params = stdio(root)
    return subprocess.Popen([params.command, *params.args], cwd=root, env=params.env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


_INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-client", "version": "0"}}}


def test_malformed_requests_are_survived_and_the_server_keeps_serving(shop: Path) -> None:
    """A line that is not JSON is dropped (the SDK's transport: it has no id to answer); a request without the
    tool's name gets a JSON-RPC error; a call with arguments of the wrong type a tool error; then a good call is
    answered."""
    proc = _start(shop)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        assert "result" in _exchange(proc, _INITIALIZE)
        proc.stdin.write('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": \n')
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        no_name = _exchange(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {}}})
        assert no_name["id"] == 3 and no_name["error"]["code"] == -32602  # invalid params
        wrong = _exchange(proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                 "params": {"name": "log", "arguments": {"limit": "all"}}})
        assert wrong["id"] == 4 and wrong["result"]["isError"] is True
        answer = _exchange(proc, {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                                  "params": {"name": "rules", "arguments": {"code": "AIDLC-REF-001"}}})
        assert answer["id"] == 5 and answer["result"]["structuredContent"]["rules"][0]["code"] == "AIDLC-REF-001"
    finally:
        proc.stdin.close()
        assert proc.wait() == 0
    assert "Traceback" not in proc.stderr.read()


def test_a_client_gone_in_the_middle_of_a_check_leaves_the_ledger_whole(shop: Path) -> None:
    config = shop / "aidlc.yaml"
    config.write_text(config.read_text().replace("run: python -m unittest discover -s tests -t . -q",
                                                 "run: python -c \"import time; time.sleep(1)\""))
    subprocess.run(["git", "-C", str(shop), "commit", "-qam", "a slow check"], check=True)
    proc = _start(shop)
    assert "result" in _exchange(proc, _INITIALIZE)
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")  # type: ignore[union-attr]
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",  # type: ignore[union-attr]
                                 "params": {"name": "check", "arguments": {"ref": BOLT}}}) + "\n")
    proc.stdin.close()  # type: ignore[union-attr]
    proc.stdout.close()  # type: ignore[union-attr]
    assert proc.wait() == 0
    assert "Traceback" not in proc.stderr.read()  # type: ignore[union-attr]
    verified = run_cli("log", "verify", cwd=shop)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # The call in flight was finished and recorded whole before the server ended: the client's going cut no write.
    last = events(shop)[-1]
    assert (last["type"], last["data"]["passed"], last["actor"]["name"]) == ("check.recorded", True, "mcp:raw-client")
