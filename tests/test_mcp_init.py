"""`aidlc init --agent AGENT` through the real CLI: each agent's MCP configuration file, read back and used as the agent
uses it (its command started over stdio through the SDK's client), its rules file, an existing configuration kept, a
broken one refused."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.helpers import run_cli

CONFIGS = {"claude": (".mcp.json", "mcpServers", "CLAUDE.md"),
           "kiro": (".kiro/settings/mcp.json", "mcpServers", ".kiro/steering/aidlc.md"),
           "cursor": (".cursor/mcp.json", "mcpServers", ".cursor/rules/aidlc.mdc"),
           "vscode": (".vscode/mcp.json", "servers", ".github/copilot-instructions.md"),
           "q": (".amazonq/mcp.json", "mcpServers", ".amazonq/rules/aidlc.md")}


def tools_of(root: Path, entry: dict[str, object]) -> set[str]:
    """The tools of the server the configuration entry starts, in the project, as the agent starts it."""
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    params = StdioServerParameters(command=str(entry["command"]), args=list(entry["args"]), env=env,  # type: ignore[call-overload]
                                   cwd=str(root))

    async def main() -> set[str]:
        async with Client(params) as client:
            return {tool.name for tool in (await client.list_tools()).tools}
    return anyio.run(main)


@pytest.mark.parametrize("agent", sorted(CONFIGS))
def test_init_writes_the_agents_mcp_configuration_that_starts_aidlc_mcp(repo: Path, agent: str) -> None:
    config, key, rules = CONFIGS[agent]
    proc = run_cli("init", str(repo), "--agent", agent)
    assert proc.returncode == 0, proc.stderr
    assert f"+ created   {config}" in proc.stdout and f"+ created   {rules}" in proc.stdout
    entry = json.loads((repo / config).read_text())[key]["aidlc"]
    assert entry["command"] == "aidlc" and entry["args"] == ["mcp"]
    assert entry.get("type") == ("stdio" if agent == "vscode" else None)
    assert {"status", "validate", "audit_append", "check"} <= tools_of(repo, entry)
    text = (repo / rules).read_text()
    assert "`validate` before you ask a person for an approval" in text and "`audit_append`" in text
    assert "Never approve" in text
    again = run_cli("init", str(repo), "--agent", agent)  # rerun: nothing changes
    assert f"= unchanged {config}" in again.stdout and f"= unchanged {rules}" in again.stdout


def test_an_existing_configuration_keeps_its_servers_and_a_shared_rules_file_its_text(repo: Path) -> None:
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "other-server"}}, "x": 1}))
    (repo / "CLAUDE.md").write_text("# House rules\n\nTabs, never spaces.\n")
    assert run_cli("init", str(repo), "--agent", "claude").returncode == 0
    assert run_cli("init", str(repo), "--agent", "claude").returncode == 0
    document = json.loads((repo / ".mcp.json").read_text())
    assert document["x"] == 1 and set(document["mcpServers"]) == {"other", "aidlc"}
    text = (repo / "CLAUDE.md").read_text()
    assert text.startswith("# House rules\n\nTabs, never spaces.\n\n<!-- aidlc:begin -->")
    assert text.count("<!-- aidlc:begin -->") == 1


def test_a_configuration_that_is_not_json_is_refused_and_nothing_is_written(repo: Path) -> None:
    (repo / ".cursor").mkdir()
    (repo / ".cursor/mcp.json").write_text("{ not json")
    proc = run_cli("init", str(repo), "--agent", "cursor")
    assert proc.returncode == 2
    assert ".cursor/mcp.json: not readable as JSON" in proc.stderr and "nothing was written" in proc.stderr
    assert (repo / ".cursor/mcp.json").read_text() == "{ not json"
    assert not (repo / ".cursor/rules").exists()


def test_a_rules_file_linked_outside_the_repository_is_never_copied_into_it(repo: Path, tmp_path: Path) -> None:
    """A hostile repository links CLAUDE.md to a secret of the person who runs init: it is refused, and nothing
    of the secret lands in a file aidlc writes."""
    secret = tmp_path / "id_ed25519"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    (repo / "CLAUDE.md").symlink_to(secret)
    proc = run_cli("init", str(repo), "--agent", "claude")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "CLAUDE.md: cannot be read" in proc.stderr and "outside the repository" in proc.stderr
    assert "nothing was written" in proc.stderr
    assert (repo / "CLAUDE.md").is_symlink() and secret.read_text().endswith("secret\n")
    assert not any("PRIVATE KEY" in path.read_text(errors="replace") for path in repo.rglob("*")
                   if path.is_file() and not path.is_symlink() and ".git" not in path.parts)


def test_a_rules_file_that_is_not_utf8_is_a_clear_error(repo: Path) -> None:
    (repo / "CLAUDE.md").write_bytes(b"# R\xe8gles\n")
    proc = run_cli("init", str(repo), "--agent", "claude")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "CLAUDE.md: cannot be read" in proc.stderr and (repo / "CLAUDE.md").read_bytes() == b"# R\xe8gles\n"
