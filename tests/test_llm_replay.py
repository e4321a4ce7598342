"""Record against the scripted server, replay without it: identical answers; a miss names its digest."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from pydantic import BaseModel

from aidlc.llm import (
    LLMConfigError,
    LLMTransient,
    Message,
    ReplayMiss,
    complete_structured,
    provider_from_config,
    request_digest,
)
from aidlc.llm.openai_provider import OpenAIProvider
from aidlc.llm.replay import Recorder, ReplayProvider
from aidlc.llm.retry import RetryPolicy
from aidlc.llm.structured import forget_modes
from aidlc.model.config import LLMConfig
from tests.openai_server import ScriptedServer, chat, error


class Proposal(BaseModel):
    title: str
    stories: list[str]


ASK = [Message("system", "you draft stories"), Message("user", "draft the stories of unit checkout-api")]
ANSWER = '{"title": "Checkout", "stories": ["pay by card", "refund an order"]}'
NO_WAIT = RetryPolicy(sleep=lambda _s: None, rng=random.Random(3))


def config(url: str) -> LLMConfig:
    return LLMConfig(provider="openai", model="test-model", base_url=url)


def run_session(provider: object) -> tuple[object, ...]:
    """What a command would do: one plain call, one structured call; everything it sees back."""
    plain = provider.complete(ASK, max_tokens=32)  # type: ignore[attr-defined]
    result = complete_structured(provider, ASK, Proposal, max_tokens=64)  # type: ignore[arg-type]
    return (plain.text, plain.usage, plain.model, plain.finish_reason, result.value, result.mode, result.refused,
            result.attempts, result.usage, result.completion.target)


def test_record_then_replay_without_the_server_gives_identical_results(tmp_path: Path) -> None:
    cassette = tmp_path / "cassettes" / "session.jsonl"
    with ScriptedServer() as server:
        # The server refuses json_schema (as llama.cpp does), truncates once, then answers.
        server.push(chat("Hello there", model="served-1"),
                    error(500, "response_format: Input should be 'text' or 'json_object'"),
                    chat('{"title": "Chec', finish_reason="length", completion_tokens=64),
                    chat(ANSWER, model="served-1"))
        recorded = run_session(provider_from_config(config(server.url), record=cassette, env={}, retry=NO_WAIT))
        assert len(server.bodies()) == 4
    forget_modes()  # a new process knows nothing about the server
    replayed = run_session(provider_from_config(config("http://127.0.0.1:9/v1"), replay=cassette, env={}))
    assert replayed == recorded
    assert recorded[4] == Proposal(title="Checkout", stories=["pay by card", "refund an order"])
    assert recorded[5:7] == ("json_object", ("json_schema",))
    lines = [json.loads(line) for line in cassette.read_text().splitlines()]
    assert [("error" in line, line["request"]["max_tokens"]) for line in lines] == [
        (False, 32), (True, 64), (False, 64), (False, 128)]
    assert lines[2]["digest"] == lines[3]["digest"]  # the truncated question asked again: replayed in order


def test_a_replay_miss_names_the_digest_and_the_cassette(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    with ScriptedServer() as server:
        server.push(chat("one"))
        provider_from_config(config(server.url), record=cassette, env={}).complete(ASK, max_tokens=8)
    replay = provider_from_config(config("http://unused.example/v1"), replay=cassette, env={})
    changed = [*ASK[:1], Message("user", "draft the stories of unit refunds")]
    with pytest.raises(ReplayMiss) as caught:
        replay.complete(changed, max_tokens=8)
    digest = request_digest(changed)
    assert caught.value.digest == digest
    assert digest in caught.value.message and str(cassette) in caught.value.message
    assert any("AIDLC_LLM_RECORD" in step for step in caught.value.next_steps)
    assert not isinstance(caught.value, LLMTransient)  # a miss never falls back to anything


def test_the_digest_is_the_question_and_nothing_else(tmp_path: Path) -> None:
    """A cassette recorded with one model and budget replays under another; a changed question misses."""
    cassette = tmp_path / "c.jsonl"
    with ScriptedServer() as server:
        server.push(chat("recorded"))
        recorder = Recorder(OpenAIProvider("model-a", api_key="k", base_url=server.url, retry=NO_WAIT), cassette)
        recorder.complete(ASK, max_tokens=8, temperature=0.0)
    replay = ReplayProvider(cassette)
    same_question = [Message(m.role, m.content) for m in ASK]
    assert replay.complete(same_question, max_tokens=999, temperature=0.7).text == "recorded"
    for other in ({"response_format": {"type": "json_object"}}, {"tools": [{"type": "function", "function": {}}]}):
        with pytest.raises(ReplayMiss):
            replay.complete(ASK, max_tokens=8, **other)  # type: ignore[arg-type]
    with pytest.raises(ReplayMiss):
        replay.complete([*ASK, Message("user", "more")], max_tokens=8)


def test_replay_is_selected_by_environment_and_by_provider_setting(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    with ScriptedServer() as server:
        server.push(chat("recorded"))
        provider_from_config(config(server.url), env={"AIDLC_LLM_RECORD": str(cassette)}).complete(ASK, max_tokens=8)
    by_env = provider_from_config(config("http://unused.example/v1"), env={"AIDLC_LLM_REPLAY": str(cassette)})
    assert by_env.complete(ASK, max_tokens=8).text == "recorded"
    by_setting = provider_from_config(LLMConfig(provider="replay", base_url="c.jsonl"), root=tmp_path, env={})
    assert by_setting.complete(ASK, max_tokens=8).text == "recorded"


def test_a_missing_or_broken_cassette_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(LLMConfigError, match="does not exist"):
        ReplayProvider(tmp_path / "none.jsonl").complete(ASK, max_tokens=8)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"digest": "x", "response": {}}\nnot json\n')
    with pytest.raises(LLMConfigError, match=r"broken.jsonl:2: not a cassette entry"):
        ReplayProvider(broken).complete(ASK, max_tokens=8)


@pytest.mark.parametrize("entry", [
    {"response": {"text": "x", "usage": {"prompt": 1}}},  # a usage field of another name
    {"response": {"text": "x", "tool_calls": [{"name": "f"}]}},  # a tool call without its id
    {"response": "just text"},
    {"error": "refused"},
    {"error": {"kind": "LLMRejected", "status": 400}},  # no message
])
def test_a_cassette_entry_of_the_wrong_shape_is_named_by_its_line(tmp_path: Path, entry: dict) -> None:
    cassette = tmp_path / "c.jsonl"
    good = {"digest": "d" * 64, "response": {"text": "fine"}}
    cassette.write_text(json.dumps(good) + "\n" + json.dumps({"digest": "e" * 64, **entry}) + "\n")
    with pytest.raises(LLMConfigError, match=r"c.jsonl:2: not a cassette entry") as caught:
        ReplayProvider(cassette).complete(ASK, max_tokens=8)
    assert any("remove line 2" in step for step in caught.value.next_steps)


def test_a_cassette_that_cannot_be_written_is_refused_before_the_model_is_asked(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with ScriptedServer() as server:
        server.push(chat("never asked"))
        inner = OpenAIProvider("m", api_key="k", base_url=server.url, retry=NO_WAIT)
        with pytest.raises(LLMConfigError, match=r"cannot record to .*file/c.jsonl"):
            Recorder(inner, tmp_path / "file" / "c.jsonl")
        assert server.requests == []
