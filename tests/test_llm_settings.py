"""AIDLC_LLM_* variables, flags and the user config file: nonsense is a clear configuration error (exit 2)
from every command that reads them, never a traceback or a hang; and who wins when several say something."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from aidlc.cli import cli
from aidlc.llm import resolve_target
from aidlc.model.config import LLMConfig
from tests.helpers import in_one_process
from tests.openai_server import ScriptedServer, chat

NONSENSE_TIMEOUTS = ["abc", "-1", "0", "nan", "inf", "1e309", "", " "]
# Both commands that read the LLM settings, with arguments that need no model to reach them.
COMMANDS = {"llm check": ["llm", "check"], "draft": ["draft", "units", "1"]}


def env_of(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIDLC_", "OPENAI_", "ANTHROPIC_"))}
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "CI": "true", "NO_COLOR": "1",
            **extra}


def invoke(repo: Path, args: list[str], **env: str) -> Result:
    return CliRunner().invoke(cli, ["--repo", str(repo), *args], env=env_of(repo, **env))


def run(repo: Path, args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    # The timeout only keeps a regression (a hang) from blocking the suite forever.
    return subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(repo), *args], capture_output=True,
                          text=True, env=env_of(repo, **env), timeout=120)


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("value", NONSENSE_TIMEOUTS)
def test_a_nonsense_timeout_is_a_configuration_error(tmp_path: Path, command: str, value: str) -> None:
    result = invoke(tmp_path, COMMANDS[command], AIDLC_LLM_TIMEOUT=value)
    assert result.exit_code == 2, result.output
    assert "AIDLC_LLM_TIMEOUT" in result.stderr and "Traceback" not in result.output
    if value.strip():
        assert repr(value) in result.stderr and "seconds" in result.stderr
    else:
        assert "set but empty" in result.stderr


def test_a_nonsense_timeout_in_a_real_process(tmp_path: Path) -> None:
    proc = run(tmp_path, ["--format", "json", "llm", "check"], AIDLC_LLM_TIMEOUT="nan")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "AIDLC_LLM_TIMEOUT='nan' makes no sense" in proc.stderr
    assert '"exit_code": 2' in proc.stdout  # the one JSON document is the error


@pytest.mark.parametrize("value", ["nan", "inf", "1e309"])
def test_a_nonsense_timeout_flag_is_refused_too(tmp_path: Path, value: str) -> None:
    result = invoke(tmp_path, ["llm", "check", "--timeout", value])
    assert result.exit_code == 2 and "--timeout" in result.stderr


def test_a_sensible_timeout_is_used(tmp_path: Path, server: ScriptedServer) -> None:
    server.push(chat("pong"), chat('{"answer": "pong", "number": 42}'))
    result = invoke(tmp_path, ["llm", "check", "--base-url", server.url], AIDLC_LLM_TIMEOUT=" 30 ")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("name", "value", "says"), [
    ("AIDLC_LLM_PROVIDER", "gemini", "one of openai, anthropic, replay"),
    ("AIDLC_LLM_PROVIDER", "", "set but empty"),
    ("AIDLC_LLM_MODEL", "", "set but empty"),
    ("AIDLC_LLM_MODEL", "gpt\nevil", "without control characters"),
    ("AIDLC_LLM_BASE_URL", "ftp://models.example/v1", "an http(s) URL"),
    ("AIDLC_LLM_BASE_URL", "localhost:11434", "an http(s) URL"),
    ("AIDLC_LLM_API_KEY_ENV", "MY KEY", "the name of an environment variable"),
    ("AIDLC_LLM_RECORD", "", "set but empty"),
    ("AIDLC_LLM_REPLAY", " ", "set but empty"),
])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_other_variables_that_make_no_sense(tmp_path: Path, command: str, name: str, value: str, says: str) -> None:
    result = invoke(tmp_path, COMMANDS[command], **{name: value})
    assert result.exit_code == 2, result.output
    assert name in result.stderr and says in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("url", ["file:///etc/passwd", "http://[::1"])  # the second: urlsplit raises
def test_a_repository_base_url_that_is_no_url_names_aidlc_yaml(tmp_path: Path, url: str) -> None:
    (tmp_path / "aidlc.yaml").write_text(f"version: 1\nllm:\n  base_url: '{url}'\n")
    result = invoke(tmp_path, ["llm", "check"])
    assert result.exit_code == 2 and f"llm.base_url in aidlc.yaml='{url}'" in result.stderr, result.output


@pytest.mark.parametrize("variable", ["AIDLC_LLM_REPLAY", "AIDLC_LLM_RECORD"])
@pytest.mark.parametrize("kind", ["folder", "FIFO", "device"])
def test_a_cassette_that_is_no_regular_file_is_refused_without_hanging(tmp_path: Path, variable: str,
                                                                       kind: str) -> None:
    path = tmp_path / "cassette"
    if kind == "folder":
        path.mkdir()
    elif kind == "FIFO":
        os.mkfifo(path)  # opening it to read or write would wait for the other end for ever
    else:
        path = Path("/dev/zero")  # reading it never ends
    commands = [["--repo", str(tmp_path), *args, "--base-url", "http://127.0.0.1:9/v1"] for args in COMMANDS.values()]
    for proc in in_one_process(commands, env_of(tmp_path, **{variable: str(path)})):  # a hang ends at its timeout
        assert proc.returncode == 2, proc.stderr
        assert str(path) in proc.stderr and "Traceback" not in proc.stderr
        assert kind in proc.stderr


def test_a_missing_replay_cassette_names_it(tmp_path: Path) -> None:
    result = invoke(tmp_path, ["draft", "units", "1", "--replay", str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and "none.jsonl does not exist" in result.stderr


def user_config(home: Path, text: str) -> None:
    (home / ".config" / "aidlc").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "aidlc" / "config.yaml").write_text(text)


def test_flags_beat_variables_beat_the_user_config_beats_aidlc_yaml(tmp_path: Path) -> None:
    home = tmp_path / "home"
    user_config(home, "version: 1\nllm:\n  model: user-model\n  base_url: http://user.example/v1\n")
    repo = LLMConfig.model_validate({"model": "repo-model", "base_url": "http://repo.example/v1",
                                     "provider": "anthropic"})
    env = env_of(home)
    assert (resolve_target(repo, env=env).model, resolve_target(repo, env=env).base_url,
            resolve_target(repo, env=env).provider) == ("user-model", "http://user.example/v1", "anthropic")
    env["AIDLC_LLM_MODEL"] = "env-model"
    assert resolve_target(repo, env=env).model == "env-model"
    assert resolve_target(repo, model="flag-model", env=env).model == "flag-model"
    assert resolve_target(repo, env={}).model == "repo-model"  # no HOME: no user config file


@pytest.mark.parametrize(("text", "says"), [
    ("llm:\n  base_url: [unclosed\n", "config.yaml:2"),
    ("version: 1\nllm:\n  colour: blue\n", "config.yaml:3: 'llm.colour'"),
    ("- a list\n", "expected a mapping"),
])
def test_a_broken_user_config_names_the_file_and_line(tmp_path: Path, text: str, says: str) -> None:
    user_config(tmp_path, text)
    result = invoke(tmp_path, ["llm", "check"])
    assert result.exit_code == 2, result.output
    assert says in result.stderr and "Traceback" not in result.output


def test_a_user_config_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    (tmp_path / ".config" / "aidlc").mkdir(parents=True)
    os.mkfifo(tmp_path / ".config" / "aidlc" / "config.yaml")
    proc = run(tmp_path, ["llm", "check"])
    assert proc.returncode == 2 and "FIFO" in proc.stderr
