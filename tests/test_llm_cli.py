"""`aidlc llm check` in process (CliRunner) and as a real subprocess, against the scripted server and a dead port."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from aidlc.cli import cli
from aidlc.llm.structured import forget_modes
from tests.helpers import in_process, on_terminal
from tests.openai_server import Reply, ScriptedServer, chat, error

GOOD = '{"answer": "pong", "number": 42}'
LLAMA_CPP_REFUSAL = "1 validation error: ('body', 'response_format', 'type') Input should be 'text' or 'json_object'"


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIDLC_", "OPENAI_", "ANTHROPIC_"))}
    # No user config file of whoever runs the tests: XDG_CONFIG_HOME points where there is none.
    return {**env, "CI": "true", "NO_COLOR": "1", "XDG_CONFIG_HOME": "/nonexistent/aidlc-tests", **extra}


def invoke(args: list[str], repo: Path, **env: str):  # type: ignore[no-untyped-def]
    runner = CliRunner()
    return runner.invoke(cli, ["--repo", str(repo), "llm", "check", *args], env=clean_env(**env))


def run(args: list[str], repo: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(repo), "llm", "check", *args],
                          capture_output=True, text=True, env=clean_env(**env), timeout=120)


def here(args: list[str], repo: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """As `run`, in this process (helpers.in_process: the console script's handling, its one JSON document)."""
    return in_process(["--repo", str(repo), "llm", "check", *args], clean_env(**env))


def dead_url() -> str:
    dead = ScriptedServer()  # bound, then closed without serving: nothing listens on that port any more
    url = dead.url
    dead.close()
    return url


def test_check_reports_provider_model_latency_usage_and_mode(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(chat("pong", model="served", prompt_tokens=30, completion_tokens=1), chat(GOOD))
    result = invoke(["--base-url", server.url, "--model", "tiny", "--format", "json"], tmp_path)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["version"] == 1 and doc["ok"] is True and doc["error"] is None
    assert (doc["provider"], doc["model"], doc["base_url"]) == ("openai", "tiny", server.url)
    assert doc["plain"]["text"] == "pong" and doc["plain"]["server_model"] == "served"
    assert doc["plain"]["usage"] == {"prompt_tokens": 30, "completion_tokens": 1, "total_tokens": 31,
                                     "estimated": False}
    assert isinstance(doc["plain"]["latency_s"], float)
    assert doc["structured"]["mode"] == "json_schema" and doc["structured"]["value"] == {"answer": "pong",
                                                                                         "number": 42}
    assert [b["model"] for b in server.bodies()] == ["tiny", "tiny"]



def test_check_says_when_the_servers_token_counts_were_replaced(server: ScriptedServer, tmp_path: Path) -> None:
    lying = chat("pong " * 200, prompt_tokens=30, completion_tokens=-1)
    server.push(lying, chat(GOOD), lying, chat(GOOD))
    doc = json.loads(invoke(["--base-url", server.url, "--format", "json"], tmp_path).stdout)
    assert doc["plain"]["usage"]["completion_tokens"] == 250
    assert doc["plain"]["usage"]["corrected"].startswith("completion_tokens -1 is not a count")
    text = invoke(["--base-url", server.url], tmp_path).stdout
    assert "30+250 tokens (completion_tokens -1 is not a count: estimated from the text's size instead)" in text

def test_check_in_text_mode(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(chat("pong"), error(500, LLAMA_CPP_REFUSAL), chat(GOOD))
    result = invoke(["--base-url", server.url, "--model", "tiny"], tmp_path)
    assert result.exit_code == 0, result.output
    assert "provider    openai" in result.stdout and "model       tiny" in result.stdout
    assert "mode: json_object" in result.stdout and "(refused: json_schema)" in result.stdout


def test_model_and_server_come_from_aidlc_yaml_and_environment(server: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "aidlc.yaml").write_text(f"version: 1\nllm:\n  model: from-yaml\n  base_url: {server.url}\n")
    server.push(chat("pong"), chat(GOOD), chat("pong"), chat(GOOD))
    assert invoke(["--format", "json"], tmp_path).exit_code == 0
    assert invoke(["--format", "json"], tmp_path, AIDLC_LLM_MODEL="from-env").exit_code == 0
    assert [b["model"] for b in server.bodies()] == ["from-yaml", "from-yaml", "from-env", "from-env"]


def test_unusable_structured_output_fails_with_the_reason(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(chat("pong"), chat("I am a teapot"), chat("still a teapot"), chat('{"answer": "pong"}'))
    result = invoke(["--base-url", server.url, "--format", "json"], tmp_path)
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["ok"] is False and "did not match CheckReply after 3 attempts" in doc["error"]
    assert doc["plain"]["text"] == "pong" and doc["structured"]["kind"] == "LLMBadOutput"
    assert doc["structured"]["raw"] == '{"answer": "pong"}' and doc["next_steps"]


def test_a_missing_key_fails_naming_the_variable(tmp_path: Path) -> None:
    result = invoke(["--model", "gpt-4.1-mini"], tmp_path)
    assert result.exit_code == 2  # a configuration error
    assert "OPENAI_API_KEY is not set" in result.stderr and "export OPENAI_API_KEY=" in result.stderr
    assert "Traceback" not in result.output


def test_record_then_replay_through_the_cli(server: ScriptedServer, tmp_path: Path) -> None:
    cassette = tmp_path / "check.jsonl"
    server.push(chat("pong"), chat(GOOD))
    recorded = invoke(["--base-url", server.url, "--record", str(cassette), "--format", "json"], tmp_path)
    assert recorded.exit_code == 0, recorded.output
    forget_modes()
    replayed = invoke(["--replay", str(cassette), "--format", "json"], tmp_path)
    assert replayed.exit_code == 0, replayed.output
    first, second = json.loads(recorded.stdout), json.loads(replayed.stdout)
    for doc in (first, second):
        for part in ("plain", "structured"):
            doc[part].pop("latency_s")
    assert first["plain"] == second["plain"] and first["structured"] == second["structured"]
    assert len(server.bodies()) == 2  # the replay asked the server nothing


def test_subprocess_against_the_server_prints_one_json_document(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(chat("pong"), error(500, LLAMA_CPP_REFUSAL), chat(GOOD))
    proc = run(["--base-url", server.url, "--model", "tiny", "--format", "json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # exactly one document: json.loads refuses anything after it
    assert doc["ok"] and doc["structured"]["mode"] == "json_object"
    assert doc["structured"]["refused_modes"] == ["json_schema"]


def test_subprocess_against_a_dead_port_exits_1_with_a_clear_message(tmp_path: Path) -> None:
    url = dead_url()
    proc = run(["--base-url", url], tmp_path)
    assert proc.returncode == 1
    assert f"error: cannot reach {url}" in proc.stderr and "aidlc llm check" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "plain       failed  LLMUnreachable" in proc.stdout and "structured  not run" in proc.stdout
    assert "start the server" in proc.stderr


def test_dead_port_in_json_mode_is_still_one_document(tmp_path: Path) -> None:
    proc = run(["--base-url", dead_url(), "--format", "json", "--timeout", "2"], tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["ok"] is False and doc["structured"] is None and "cannot reach" in doc["error"]
    assert doc["plain"]["ok"] is False and doc["plain"]["kind"] == "LLMUnreachable"
    assert "Traceback" not in proc.stderr


def test_version_does_not_import_the_sdks() -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "aidlc", "--version"], capture_output=True,
                          text=True, env=clean_env(), timeout=60)
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert not {m for m in imported if m.split(".")[0] in ("openai", "anthropic", "httpx", "httpx2")}
    assert "aidlc.llm" not in imported


def test_llm_appears_in_the_help() -> None:
    result = CliRunner().invoke(cli, ["llm", "--help"])
    assert result.exit_code == 0 and "check" in result.output


def _on_terminal(args: list[str], repo: Path) -> str:
    """`aidlc llm check ARGS` with stdout and stderr on a pseudo-terminal: what a person at a terminal sees."""
    return on_terminal(["--repo", str(repo), "llm", "check", *args],
                       {k: v for k, v in clean_env().items() if k != "CI"})[1]


@pytest.mark.slow
def test_a_slow_answer_shows_how_long_it_has_waited_on_a_terminal(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(Reply(body=chat("pong").body, delay_s=4.5), chat(GOOD))
    seen = _on_terminal(["--base-url", server.url, "--model", "tiny", "--timeout", "60"], tmp_path)
    assert f"\rwaiting for openai:tiny@{server.url}: 3s" in seen, seen
    assert "structured  ok" in seen  # the line is wiped, the report follows


@pytest.mark.slow
def test_a_slow_answer_adds_nothing_when_not_on_a_terminal(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(Reply(body=chat("pong").body, delay_s=4.5), chat(GOOD))
    proc = run(["--base-url", server.url, "--model", "tiny", "--timeout", "60"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "waiting" not in proc.stderr + proc.stdout and "\r" not in proc.stderr + proc.stdout


def test_a_server_that_never_answers_is_reported_at_the_timeout_once(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(*[Reply(body=chat("pong").body, delay_s=120)] * 4)
    proc = here(["--base-url", server.url, "--format", "json", "--timeout", "1"], tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["plain"]["kind"] == "LLMTimeout" and "did not answer within 1s" in doc["error"]
    assert len(server.bodies()) == 1  # asked once: not retried into minutes of waiting


def test_check_asks_the_server_named_on_the_command_line(server: ScriptedServer, tmp_path: Path) -> None:
    """Not the cassette aidlc.yaml names, not a fallback that would answer for it."""
    cassette = tmp_path / "cassette.jsonl"
    (tmp_path / "aidlc.yaml").write_text("version: 1\nllm:\n  provider: replay\n  model: m\n"
                                         f"  base_url: {cassette.name}\n")
    server.push(chat("pong"), chat(GOOD))
    proc = here(["--base-url", server.url, "--format", "json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["provider"], doc["base_url"]) == ("openai", server.url) and len(server.bodies()) == 2
    (tmp_path / "aidlc.yaml").write_text(f"version: 1\nllm:\n  model: m\n  base_url: {dead_url()}\n  fallback:\n"
                                         f"    - {{provider: openai, model: m, base_url: {server.url}}}\n")
    proc = here(["--base-url", dead_url(), "--format", "json"], tmp_path)
    assert proc.returncode == 1 and json.loads(proc.stdout)["plain"]["kind"] == "LLMUnreachable"
    assert json.loads(proc.stdout)["fallback"] == [] and len(server.bodies()) == 2  # the fallback was not asked
