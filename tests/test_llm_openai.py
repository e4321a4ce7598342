"""The openai provider through the real SDK against a scripted local server: faults, retries, translation."""

from __future__ import annotations

import random

import pytest

from aidlc.llm.base import Message, ToolCall
from aidlc.llm.errors import LLMRateLimited, LLMRejected, LLMTimeout, LLMUnavailable
from aidlc.llm.openai_provider import OpenAIProvider
from aidlc.llm.retry import RetryPolicy, parse_retry_after, with_retries
from tests.openai_server import Reply, ScriptedServer, chat, error

HI = [Message("system", "be brief"), Message("user", "hi")]


def make(server: ScriptedServer, sleeps: list[float], *, timeout_s: float = 10.0, attempts: int = 4,
         base_url: str | None = None) -> OpenAIProvider:
    policy = RetryPolicy(attempts=attempts, sleep=sleeps.append, rng=random.Random(7))
    return OpenAIProvider("test-model", api_key="test-key", base_url=base_url or server.url, timeout_s=timeout_s,
                          retry=policy)


def test_a_plain_answer_carries_text_usage_model_and_the_request_as_sent(server: ScriptedServer) -> None:
    server.push(chat("pong", model="served-model", prompt_tokens=21, completion_tokens=2))
    answer = make(server, []).complete(HI, max_tokens=16, temperature=0.2)
    assert (answer.text, answer.model, answer.finish_reason) == ("pong", "served-model", "stop")
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens, answer.usage.estimated) == (21, 2, False)
    assert answer.target == f"openai:test-model@{server.url}" and not answer.degraded
    (body,) = server.bodies()
    assert body["model"] == "test-model" and body["max_tokens"] == 16 and body["temperature"] == 0.2
    assert body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    assert "response_format" not in body and "tools" not in body
    assert server.requests[0].headers.get("authorization") == "Bearer test-key"


def test_429_waits_at_least_retry_after_then_succeeds(server: ScriptedServer) -> None:
    server.push(error(429, "rate limited", {"Retry-After": "7"}), chat("ok"))
    sleeps: list[float] = []
    answer = make(server, sleeps).complete(HI, max_tokens=8)
    assert answer.text == "ok"
    assert len(sleeps) == 1 and sleeps[0] >= 7  # the injected sleep saw the wait; no wall clock involved
    assert len(server.bodies()) == 2  # the SDK's own retries are off: one request per attempt


def test_500_then_success_backs_off_once(server: ScriptedServer) -> None:
    server.push(error(500, "boom"), chat("ok"))
    sleeps: list[float] = []
    assert make(server, sleeps).complete(HI, max_tokens=8).text == "ok"
    assert len(sleeps) == 1 and 0.25 <= sleeps[0] <= 0.5  # equal jitter around the first 0.5 s step


def test_backoff_grows_exponentially_and_attempts_are_bounded(server: ScriptedServer) -> None:
    server.push(*[error(503, "down")] * 4)
    sleeps: list[float] = []
    with pytest.raises(LLMUnavailable, match="HTTP 503") as caught:
        make(server, sleeps, attempts=4).complete(HI, max_tokens=8)
    assert caught.value.status == 503
    assert len(server.bodies()) == 4 and len(sleeps) == 3
    for wait, (low, high) in zip(sleeps, [(0.25, 0.5), (0.5, 1.0), (1.0, 2.0)], strict=True):
        assert low <= wait <= high  # half of each doubling step fixed, half jitter


def test_a_hang_past_the_timeout_is_reported_at_the_timeout_not_retried(server: ScriptedServer) -> None:
    sleeps: list[float] = []
    target = make(server, sleeps, timeout_s=0.3, attempts=4)
    server.push(Reply(body=chat("late").body, delay_s=5), chat("on time"))
    with pytest.raises(LLMTimeout, match=r"did not answer within 0\.3s"):
        target.complete(HI, max_tokens=8)
    assert len(server.replies) == 1 and sleeps == []  # one wait as long as the timeout, no second request


def test_a_body_that_is_not_json_is_a_retried_server_fault(server: ScriptedServer) -> None:
    server.push(Reply(body="<html>502 Bad Gateway</html>"), chat("ok"))
    sleeps: list[float] = []
    assert make(server, sleeps).complete(HI, max_tokens=8).text == "ok"
    assert len(sleeps) == 1


def test_an_unreachable_server_is_unavailable_after_the_retries(server: ScriptedServer) -> None:
    dead = ScriptedServer()
    url = dead.url
    dead.close()  # the port is free again: nothing listens there
    sleeps: list[float] = []
    with pytest.raises(LLMUnavailable, match="cannot reach"):
        make(server, sleeps, base_url=url, attempts=3).complete(HI, max_tokens=8)
    assert len(sleeps) == 2


def test_a_refused_key_is_not_retried_and_says_what_to_check(server: ScriptedServer) -> None:
    server.push(error(401, "invalid api key"))
    sleeps: list[float] = []
    with pytest.raises(LLMRejected) as caught:
        make(server, sleeps).complete(HI, max_tokens=8)
    assert caught.value.status == 401 and sleeps == []
    assert any("api_key_env" in step for step in caught.value.next_steps)


def test_a_retry_after_beyond_the_limit_fails_now_instead_of_hanging(server: ScriptedServer) -> None:
    server.push(error(429, "quota", {"Retry-After": "3600"}))
    sleeps: list[float] = []
    with pytest.raises(LLMRateLimited) as caught:
        make(server, sleeps).complete(HI, max_tokens=8)
    assert caught.value.retry_after_s == 3600 and sleeps == []


def test_a_server_that_wants_max_completion_tokens_gets_it_from_then_on(server: ScriptedServer) -> None:
    server.push(error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. "
                           "Use 'max_completion_tokens' instead."), chat("a"), chat("b"))
    provider = make(server, [])
    assert provider.complete(HI, max_tokens=9).text == "a"
    assert provider.complete(HI, max_tokens=9).text == "b"
    first, second, third = server.bodies()
    assert first["max_tokens"] == 9 and "max_tokens" not in second and second["max_completion_tokens"] == 9
    assert third["max_completion_tokens"] == 9


def test_tool_calls_round_trip(server: ScriptedServer) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}
    server.push(chat(None, finish_reason="tool_calls", tool_calls=[call]), chat("done"))
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    provider = make(server, [])
    first = provider.complete(HI, max_tokens=32, tools=tools)
    assert first.tool_calls == (ToolCall("call_1", "read_file", '{"path": "a.py"}'),)
    assert first.finish_reason == "tool_calls" and first.text == ""
    follow_up = [*HI, Message("assistant", "", tool_calls=first.tool_calls),
                 Message("tool", "print('a')", tool_call_id="call_1")]
    assert provider.complete(follow_up, max_tokens=32, tools=tools).text == "done"
    sent = server.bodies()[1]["messages"]
    assert sent[2]["tool_calls"][0]["function"]["name"] == "read_file"
    assert sent[3] == {"role": "tool", "content": "print('a')", "tool_call_id": "call_1"}
    assert server.bodies()[0]["tools"] == tools


def test_a_server_without_usage_gets_an_estimate_marked_as_such(server: ScriptedServer) -> None:
    server.push(chat("x" * 40, prompt_tokens=None))
    usage = make(server, []).complete([Message("user", "y" * 400)], max_tokens=32).usage
    assert usage.estimated and usage.completion_tokens == 10 and usage.prompt_tokens == 100


def test_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "2.5"}) == 2.5
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=lambda: 1445412480.0) == 10.0
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None


def test_with_retries_reraises_the_last_transient_error() -> None:
    calls: list[int] = []

    def always_down() -> str:
        calls.append(1)
        raise LLMUnavailable(f"down {len(calls)}")

    with pytest.raises(LLMUnavailable, match="down 3"):
        with_retries(always_down, RetryPolicy(attempts=3, sleep=lambda _s: None))
    assert len(calls) == 3
