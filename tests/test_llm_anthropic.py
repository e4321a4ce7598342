"""The anthropic provider: the missing-extra error, message translation, and the real SDK against a fake endpoint."""

from __future__ import annotations

import random
import sys

import pytest
from pydantic import BaseModel

from aidlc.llm import LLMConfigError, LLMFormatRejected, Message, ToolCall, complete_structured, provider_from_config
from aidlc.llm.anthropic_provider import to_anthropic_messages, to_anthropic_tool
from aidlc.llm.retry import RetryPolicy
from aidlc.model.config import LLMConfig
from tests.openai_server import ScriptedServer, anthropic_message, error


class Answer(BaseModel):
    answer: str
    number: int


def test_without_the_extra_the_error_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # import anthropic -> ImportError
    llm = LLMConfig.model_validate({"provider": "anthropic", "model": "claude-x"})
    with pytest.raises(LLMConfigError) as caught:
        provider_from_config(llm, env={"ANTHROPIC_API_KEY": "sk-ant-test-000000000000000000"})
    assert "anthropic package" in caught.value.message
    assert caught.value.next_steps[0] == "pip install 'aidlc[anthropic]'    # or 'aidlc[llm]': every provider"


def test_messages_are_translated_to_alternating_turns_with_blocks() -> None:
    call = ToolCall("toolu_1", "read_file", '{"path": "a.py"}')
    system, turns = to_anthropic_messages([
        Message("system", "rules"), Message("system", "more rules"), Message("user", "hi"), Message("user", "again"),
        Message("assistant", "reading", tool_calls=(call,)), Message("tool", "print(1)", tool_call_id="toolu_1"),
    ])
    assert system == "rules\n\nmore rules"
    assert turns == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "again"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "reading"},
                                          {"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                           "input": {"path": "a.py"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "print(1)"}]},
    ]
    tool = {"type": "function", "function": {"name": "read_file", "description": "read", "parameters": {"x": 1}}}
    assert to_anthropic_tool(tool) == {"name": "read_file", "description": "read", "input_schema": {"x": 1}}


def provider(server: ScriptedServer):  # type: ignore[no-untyped-def]
    pytest.importorskip("anthropic")
    llm = LLMConfig.model_validate({"provider": "anthropic", "model": "claude-test"})
    # The user names the server (a flag): a server only the repository named would get no key.
    return provider_from_config(llm, base_url=server.root, env={"ANTHROPIC_API_KEY": "ant-key-for-tests"},
                                retry=RetryPolicy(sleep=lambda _s: None, rng=random.Random(2)))


def test_the_real_sdk_talks_to_a_messages_endpoint(server: ScriptedServer) -> None:
    server.push(error(529, "overloaded"), anthropic_message("pong"))
    answer = provider(server).complete([Message("system", "be brief"), Message("user", "ping")], max_tokens=16)
    assert (answer.text, answer.model, answer.finish_reason) == ("pong", "claude-test", "stop")
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (13, 5)
    request = server.requests[-1]
    assert request.path == "/v1/messages"
    # SDK versions differ in the header (x-api-key, or Authorization: Bearer); the key is the one configured.
    assert "ant-key-for-tests" in (request.headers.get("x-api-key", ""), request.headers.get("authorization", "")[7:])
    assert request.body["system"] == "be brief" and request.body["max_tokens"] == 16
    assert request.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "ping"}]}]
    assert len(server.bodies()) == 2  # the 529 was retried by our loop


def test_max_tokens_stop_is_a_length_finish(server: ScriptedServer) -> None:
    server.push(anthropic_message('{"answer": "po', stop_reason="max_tokens"))
    assert provider(server).complete([Message("user", "x")], max_tokens=4).finish_reason == "length"


def test_structured_output_uses_output_config_and_skips_json_object(server: ScriptedServer) -> None:
    server.push(error(400, "output_config.format: json_schema is not supported for this model"),
                anthropic_message('{"answer": "pong", "number": 42}'))
    result = complete_structured(provider(server), [Message("user", "check")], Answer, max_tokens=64)
    assert result.value == Answer(answer="pong", number=42)
    assert (result.mode, result.refused) == ("prompt", ("json_schema", "json_object"))
    first, second = server.bodies()
    assert first["output_config"]["format"]["type"] == "json_schema"
    assert first["output_config"]["format"]["schema"]["properties"]["number"]["type"] == "integer"
    assert "output_config" not in second  # json_object was refused locally, never sent


def test_json_object_is_refused_without_a_request(server: ScriptedServer) -> None:
    with pytest.raises(LLMFormatRejected):
        provider(server).complete([Message("user", "x")], max_tokens=4, response_format={"type": "json_object"})
    assert server.bodies() == []
