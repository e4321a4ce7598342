"""A repository's aidlc.yaml cannot send the user's key (or pick which secret) to a host the user did not choose.

The scripted server plays every host at once: as the HTTP(S) proxy of the command under test it sees each
request that leaves the machine, wherever it was going, with its Authorization header (an HTTPS request
shows only as the CONNECT to its host: a request that would carry a key to a default endpoint is caught
there). The user's token must never reach it unless the user chose or trusted that server.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from aidlc.bank.config import load_config
from aidlc.cli import cli
from aidlc.llm import LLMUnavailable, Message, provider_from_config
from aidlc.llm.retry import RetryPolicy
from tests.openai_server import ScriptedServer, chat

TOKEN = "sk-proj-TheUsersOwnKey0123456789abcdefXYZ"  # the user's OpenAI key
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # another of the user's secrets
EVIL = "http://evil.example/v1"
GOOD = '{"answer": "pong", "number": 42}'
GIT = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org", "GIT_COMMITTER_NAME": "Ada",
       "GIT_COMMITTER_EMAIL": "ada@example.org"}


def make_repo(root: Path, aidlc_yaml: str) -> Path:
    """A real git repository whose committed aidlc.yaml says `aidlc_yaml`."""
    root.mkdir(parents=True)
    (root / "aidlc.yaml").write_text(aidlc_yaml, encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "HOME": str(root), **GIT}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "start"]):
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    return root


def user_env(home: Path, proxy: ScriptedServer | None = None, **extra: str) -> dict[str, str]:
    """The user's environment: their key, their own config folder, nothing of the machine's AIDLC_/OPENAI_ setup."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AIDLC_", "OPENAI_", "ANTHROPIC_", "AWS_")) and "PROXY" not in k.upper()}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "CI": "true", "NO_COLOR": "1",
                "OPENAI_API_KEY": TOKEN, "AWS_SECRET_ACCESS_KEY": AWS_SECRET})
    if proxy is not None:  # everything that leaves goes through the scripted server
        env.update({"HTTP_PROXY": proxy.root, "HTTPS_PROXY": proxy.root, "http_proxy": proxy.root,
                    "https_proxy": proxy.root, "NO_PROXY": "", "no_proxy": ""})
    return {**env, **extra}


def aidlc(repo: Path, env: dict[str, str], *args: str) -> Result:
    return CliRunner().invoke(cli, ["--repo", str(repo), *args], env=env)


def leaked(server: ScriptedServer) -> list[str]:
    """Every header value the server saw that carries one of the user's secrets."""
    return [f"{r.path} {name}: {value}" for r in server.requests for name, value in r.headers.items()
            if TOKEN in value or AWS_SECRET in value]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def test_a_repository_cannot_send_the_key_to_a_host_it_names(tmp_path: Path, home: Path,
                                                            server: ScriptedServer) -> None:
    repo = make_repo(tmp_path / "shop", f"version: 1\nllm:\n  base_url: {EVIL}\n")
    server.push(chat("pong"), chat(GOOD))
    result = aidlc(repo, user_env(home, server), "llm", "check")
    assert result.exit_code == 2, result.output
    assert server.requests == [] and leaked(server) == []
    assert "evil.example" in result.stderr and "OPENAI_API_KEY" in result.stderr
    assert f"aidlc llm trust {EVIL}" in result.stderr and "Traceback" not in result.output


def test_once_trusted_for_this_repository_the_key_goes_there(tmp_path: Path, home: Path,
                                                            server: ScriptedServer) -> None:
    repo = make_repo(tmp_path / "shop", f"version: 1\nllm:\n  base_url: {EVIL}\n")
    trusted = aidlc(repo, user_env(home), "llm", "trust", EVIL)
    assert trusted.exit_code == 0, trusted.output
    assert "evil.example" in trusted.stdout and "OPENAI_API_KEY" in trusted.stdout
    config = home / ".config" / "aidlc" / "config.yaml"
    assert str(repo.resolve()) in config.read_text() and TOKEN not in config.read_text()

    server.push(chat("pong"), chat(GOOD))
    result = aidlc(repo, user_env(home, server), "llm", "check")
    assert result.exit_code == 0, result.output
    assert [r.path for r in server.requests] == [f"{EVIL}/chat/completions"] * 2
    assert server.requests[0].headers["authorization"] == f"Bearer {TOKEN}"

    # Revoked, it is refused again.
    assert aidlc(repo, user_env(home), "llm", "trust", "--revoke", EVIL).exit_code == 0
    assert aidlc(repo, user_env(home, server), "llm", "check").exit_code == 2
    assert len(server.requests) == 2


def test_trust_belongs_to_one_repository_at_one_place(tmp_path: Path, home: Path, server: ScriptedServer) -> None:
    yaml = f"version: 1\nllm:\n  base_url: {EVIL}\n"
    repo = make_repo(tmp_path / "shop", yaml)
    assert aidlc(repo, user_env(home), "llm", "trust").exit_code == 0  # no URL: what aidlc.yaml asks
    # A clone elsewhere (same history, another place) is not trusted ...
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True, capture_output=True)
    assert aidlc(clone, user_env(home, server), "llm", "check").exit_code == 2
    # ... nor another repository that later takes the trusted one's place.
    shutil.rmtree(repo)
    make_repo(repo, yaml + "# another project\n")
    assert aidlc(repo, user_env(home, server), "llm", "check").exit_code == 2
    assert server.requests == []


@pytest.mark.parametrize("how", ["flag", "environment", "user config"])
def test_a_server_the_user_names_gets_the_key(tmp_path: Path, home: Path, server: ScriptedServer, how: str) -> None:
    repo = make_repo(tmp_path / "shop", "version: 1\nllm:\n  model: team-model\n")
    args, extra = ["llm", "check"], {}
    if how == "flag":
        args += ["--base-url", EVIL]
    elif how == "environment":
        extra["AIDLC_LLM_BASE_URL"] = EVIL
    else:
        (home / ".config" / "aidlc").mkdir(parents=True)
        (home / ".config" / "aidlc" / "config.yaml").write_text(f"version: 1\nllm:\n  base_url: {EVIL}\n")
    server.push(chat("pong"), chat(GOOD))
    result = aidlc(repo, user_env(home, server, **extra), *args)
    assert result.exit_code == 0, result.output
    assert server.requests[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert server.bodies()[0]["model"] == "team-model"


def test_a_repository_cannot_choose_which_secret_is_sent(tmp_path: Path, home: Path, server: ScriptedServer,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # To the provider's own endpoint (https: the proxy would see the CONNECT to api.openai.com) ...
    repo = make_repo(tmp_path / "shop", "version: 1\nllm:\n  api_key_env: AWS_SECRET_ACCESS_KEY\n")
    result = aidlc(repo, user_env(home, server), "llm", "check")
    assert result.exit_code == 2, result.output
    assert "AWS_SECRET_ACCESS_KEY" in result.stderr and "api.openai.com" in result.stderr
    assert server.requests == []
    # ... and, once the user says so, it is sent (in process, to try the connection once, without waits).
    assert aidlc(repo, user_env(home), "llm", "trust").exit_code == 0
    for name, value in user_env(home, server).items():
        monkeypatch.setenv(name, value)
    llm = provider_from_config(load_config(repo).llm, root=repo, retry=RetryPolicy(attempts=1))
    with pytest.raises(LLMUnavailable):
        llm.complete([Message("user", "hi")], max_tokens=8)
    assert [r.path for r in server.requests] == ["CONNECT api.openai.com:443"]


def test_a_local_server_the_repository_names_gets_no_key(tmp_path: Path, home: Path,
                                                        server: ScriptedServer) -> None:
    repo = make_repo(tmp_path / "shop", f"version: 1\nllm:\n  base_url: {server.url}\n"
                                        "  api_key_env: AWS_SECRET_ACCESS_KEY\n")
    server.push(chat("pong"), chat(GOOD))
    result = aidlc(repo, user_env(home), "llm", "check")
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 2 and leaked(server) == []
    assert all("authorization" not in r.headers for r in server.requests)


def test_a_local_server_the_user_names_without_a_key_gets_none(tmp_path: Path, home: Path,
                                                              server: ScriptedServer) -> None:
    repo = make_repo(tmp_path / "shop", "version: 1\n")
    env = {k: v for k, v in user_env(home).items() if k != "OPENAI_API_KEY"}
    server.push(chat("pong"), chat(GOOD))
    assert aidlc(repo, env, "llm", "check", "--base-url", server.url).exit_code == 0
    assert all("authorization" not in r.headers for r in server.requests)


def test_fallback_targets_follow_the_same_rules(tmp_path: Path, home: Path, server: ScriptedServer) -> None:
    repo = make_repo(tmp_path / "shop", f"version: 1\nllm:\n  fallback:\n    - model: small\n      base_url: {EVIL}\n")
    # the server the user names through the variable (checking --base-url asks that server alone, no fallback)
    result = aidlc(repo, user_env(home, server, AIDLC_LLM_BASE_URL="http://mine.example/v1"), "llm", "check")
    assert result.exit_code == 2, result.output
    assert "llm.fallback[0]" in result.stderr and "evil.example" in result.stderr
    assert server.requests == []


def test_replay_needs_no_key_and_no_trust(tmp_path: Path, home: Path, server: ScriptedServer) -> None:
    repo = make_repo(tmp_path / "shop", f"version: 1\nllm:\n  base_url: {EVIL}\n")
    cassette = tmp_path / "check.jsonl"
    server.push(chat("pong"), chat(GOOD))
    assert aidlc(repo, user_env(home), "llm", "check", "--base-url", server.url, "--record", str(cassette)
                 ).exit_code == 0
    assert TOKEN not in cassette.read_text()
    replayed = aidlc(repo, user_env(home, server), "llm", "check", "--replay", str(cassette), "--format", "json")
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.stdout)["ok"] and len(server.requests) == 2


def test_trust_says_when_there_is_nothing_to_trust_and_refuses_an_unknown_url(tmp_path: Path, home: Path) -> None:
    repo = make_repo(tmp_path / "shop", "version: 1\n")
    nothing = aidlc(repo, user_env(home), "llm", "trust")
    assert nothing.exit_code == 0 and "nothing" in nothing.output
    unknown = aidlc(repo, user_env(home), "llm", "trust", EVIL)
    assert unknown.exit_code == 2 and "aidlc.yaml does not send" in unknown.stderr
    assert not (home / ".config" / "aidlc" / "config.yaml").exists()


def test_a_cassette_the_repository_names_outside_itself_is_never_read(tmp_path: Path, home: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text("not a cassette: the user's private notes\n")
    repo = make_repo(tmp_path / "shop", "version: 1\nllm:\n  provider: replay\n  base_url: ../outside.jsonl\n")
    (repo / "inside.jsonl").symlink_to(outside)
    for path in ("../outside.jsonl", str(outside), "inside.jsonl"):
        (repo / "aidlc.yaml").write_text(f"version: 1\nllm:\n  provider: replay\n  base_url: {path}\n")
        result = aidlc(repo, user_env(home), "llm", "check")
        assert result.exit_code == 2, result.output
        assert "outside the repository" in result.stderr and "private notes" not in result.output


def test_an_outside_file_never_reaches_the_server_through_a_draft(repo: Path, home: Path,
                                                                 server: ScriptedServer, tmp_path: Path) -> None:
    from tests.test_new import build_chain

    build_chain(repo)
    outside = tmp_path / "credentials"
    outside.write_text("[default]\nnote = OUTSIDE-FILE-MARKER-7f3a\n")
    (repo / "memory-bank" / "standards" / "secrets.md").symlink_to(outside)
    answer = json.dumps({"units": [{"title": "Refunds API", "purpose": "Pays money back.",
                                    "requirements": ["FR-1"]}]})
    server.push(chat(answer))
    proc = subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(repo), "draft", "units", "1",
                           "--base-url", server.url], capture_output=True, text=True, env=user_env(home))
    assert "Traceback" not in proc.stderr
    assert all("OUTSIDE-FILE-MARKER" not in json.dumps(body) for body in server.bodies())


def test_the_trust_command_for_a_hostile_url_is_pasted_as_one_argument(tmp_path: Path, home: Path) -> None:
    """aidlc.yaml names `http://evil.example/v1?$(touch pwned)`: the refusal's `aidlc llm trust` step, pasted into a
    shell, trusts exactly that URL and runs nothing else."""
    hostile = "http://evil.example/v1?$(touch pwned)"
    repo = make_repo(tmp_path / "shop", f"version: 1\nllm:\n  base_url: '{hostile}'\n")
    result = aidlc(repo, user_env(home), "llm", "check")
    assert result.exit_code == 2, result.output
    [step] = [line.strip().split("    #")[0] for line in result.stderr.splitlines()
              if line.strip().startswith("aidlc llm trust")]
    assert step == f"aidlc llm trust '{hostile}'"
    pasted = subprocess.run(["bash", "-c", step.replace("aidlc", f"{sys.executable} -m aidlc", 1)], cwd=repo,
                            env=user_env(home), capture_output=True, text=True)
    assert pasted.returncode == 0, pasted.stderr
    assert not (repo / "pwned").exists() and hostile in (home / ".config/aidlc/config.yaml").read_text()
