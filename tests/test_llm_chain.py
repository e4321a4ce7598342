"""The fallback chain and the factory: degraded answers, keys from the environment, overrides."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from aidlc.llm import LLMConfigError, LLMRejected, LLMUnavailable, Message, provider_from_config, resolve_target
from aidlc.llm.chain import Degradation
from aidlc.llm.factory import is_local
from aidlc.llm.retry import RetryPolicy
from aidlc.model.config import LLMConfig, LLMTarget
from tests.openai_server import ScriptedServer, chat, error

HI = [Message("user", "hi")]


@pytest.fixture
def primary() -> Iterator[ScriptedServer]:
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def backup() -> Iterator[ScriptedServer]:
    with ScriptedServer() as running:
        yield running


def policy(sleeps: list[float]) -> RetryPolicy:
    return RetryPolicy(attempts=3, sleep=sleeps.append, rng=random.Random(5))


def test_the_fallback_answers_after_the_primary_is_exhausted_and_is_marked_degraded(
        primary: ScriptedServer, backup: ScriptedServer) -> None:
    primary.push(*[error(503, "overloaded")] * 3)
    backup.push(chat("from the backup", model="small"))
    llm = LLMConfig(model="big", base_url=primary.url, fallback=[LLMTarget(model="small", base_url=backup.url)])
    notices: list[Degradation] = []
    sleeps: list[float] = []
    answer = provider_from_config(llm, env={}, retry=policy(sleeps), on_degrade=notices.append).complete(
        HI, max_tokens=8)
    assert answer.text == "from the backup" and answer.degraded
    assert answer.target == f"openai:small@{backup.url}"
    assert len(primary.bodies()) == 3 and len(sleeps) == 2  # the primary's retries were spent first
    assert [(n.failed, n.next) for n in notices] == [(f"openai:big@{primary.url}", f"openai:small@{backup.url}")]
    assert "HTTP 503" in notices[0].reason
    assert backup.bodies()[0]["model"] == "small"


def test_an_answer_from_the_primary_is_not_degraded(primary: ScriptedServer, backup: ScriptedServer) -> None:
    primary.push(error(500, "blip"), chat("primary"))
    llm = LLMConfig(model="big", base_url=primary.url, fallback=[LLMTarget(model="small", base_url=backup.url)])
    answer = provider_from_config(llm, env={}, retry=policy([])).complete(HI, max_tokens=8)
    assert (answer.text, answer.degraded) == ("primary", False)
    assert backup.bodies() == []


def test_a_refusal_does_not_fall_back(primary: ScriptedServer, backup: ScriptedServer) -> None:
    primary.push(error(404, "model 'big' not found"))
    llm = LLMConfig(model="big", base_url=primary.url, fallback=[LLMTarget(model="small", base_url=backup.url)])
    with pytest.raises(LLMRejected, match="not found") as caught:
        provider_from_config(llm, env={}, retry=policy([])).complete(HI, max_tokens=8)
    assert backup.bodies() == [] and any("--model" in step for step in caught.value.next_steps)


def test_every_target_down_names_each_failure(primary: ScriptedServer, backup: ScriptedServer) -> None:
    primary.push(*[error(502, "bad gateway")] * 3)
    backup.push(*[error(503, "overloaded")] * 3)
    llm = LLMConfig(model="big", base_url=primary.url, fallback=[LLMTarget(model="small", base_url=backup.url)])
    with pytest.raises(LLMUnavailable, match="every configured target failed") as caught:
        provider_from_config(llm, env={}, retry=policy([])).complete(HI, max_tokens=8)
    assert "openai:big" in caught.value.message and "openai:small" in caught.value.message


def test_a_fallback_on_the_same_provider_inherits_the_server(primary: ScriptedServer) -> None:
    primary.push(*[error(503, "busy")] * 3, chat("small model here"))
    llm = LLMConfig.model_validate({"model": "big", "base_url": primary.url, "fallback": [{"model": "small"}]})
    answer = provider_from_config(llm, env={}, retry=policy([])).complete(HI, max_tokens=8)
    assert answer.degraded and primary.bodies()[-1]["model"] == "small"


def test_a_missing_key_names_the_variable() -> None:
    llm = LLMConfig.model_validate({"model": "gpt-4.1-mini"})
    with pytest.raises(LLMConfigError, match="ACME_OPENAI_KEY is not set") as caught:
        provider_from_config(llm, api_key_env="ACME_OPENAI_KEY", env={})
    assert caught.value.exit_code == 2
    assert any(step.startswith("export ACME_OPENAI_KEY=") for step in caught.value.next_steps)


def test_the_key_comes_from_the_named_variable(primary: ScriptedServer) -> None:
    primary.push(chat("ok"))
    env = {"ACME_KEY": "the-real-key-123", "AIDLC_LLM_BASE_URL": primary.url, "AIDLC_LLM_API_KEY_ENV": "ACME_KEY"}
    provider_from_config(LLMConfig(), env=env).complete(HI, max_tokens=8)
    assert primary.requests[0].headers["authorization"] == "Bearer the-real-key-123"


def test_a_local_server_needs_no_key_and_gets_none(primary: ScriptedServer) -> None:
    primary.push(chat("ok"))
    provider_from_config(LLMConfig(), base_url=primary.url, env={}).complete(HI, max_tokens=8)
    assert "authorization" not in primary.requests[0].headers


@pytest.mark.parametrize(("url", "local"), [
    ("http://localhost:11434/v1", True), ("http://127.0.0.1:8080/v1", True), ("http://[::1]:8080/v1", True),
    ("http://ollama:11434/v1", True), ("http://gpu-box.local:8000/v1", True),
    ("https://api.openai.com/v1", False), ("https://openrouter.ai/api/v1", False), (None, False),
])
def test_which_servers_count_as_local(url: str | None, local: bool) -> None:
    assert is_local(url) is local


def test_anthropic_reads_its_own_key_variable_unless_told_otherwise() -> None:
    pytest.importorskip("anthropic")
    with pytest.raises(LLMConfigError, match="ANTHROPIC_API_KEY"):
        provider_from_config(LLMConfig.model_validate({"provider": "anthropic", "model": "claude-x"}), env={})
    explicit = LLMConfig.model_validate({"provider": "anthropic", "model": "claude-x", "api_key_env": "MY_KEY"})
    with pytest.raises(LLMConfigError, match="MY_KEY"):
        provider_from_config(explicit, env={})


def test_flags_beat_environment_beat_aidlc_yaml() -> None:
    llm = LLMConfig.model_validate({"model": "yaml-model", "base_url": "http://yaml/v1"})
    env = {"AIDLC_LLM_MODEL": "env-model", "AIDLC_LLM_BASE_URL": "http://env/v1"}
    assert resolve_target(llm, env={}).model == "yaml-model"
    assert (resolve_target(llm, env=env).model, resolve_target(llm, env=env).base_url) == ("env-model",
                                                                                           "http://env/v1")
    assert resolve_target(llm, model="flag-model", env=env).model == "flag-model"
    with pytest.raises(LLMConfigError, match="AIDLC_LLM_PROVIDER='gemini' makes no sense: expected one of"):
        resolve_target(llm, env={"AIDLC_LLM_PROVIDER": "gemini"})
