"""Structured output through the real SDK: JSON modes, robust parsing, corrective retries, truncation."""

from __future__ import annotations

import random

import pytest
from pydantic import BaseModel

from aidlc.llm.base import Message
from aidlc.llm.errors import LLMBadOutput, LLMTruncated
from aidlc.llm.jsonparse import JSONAnswerError, parse_json_answer
from aidlc.llm.openai_provider import OpenAIProvider
from aidlc.llm.retry import RetryPolicy
from aidlc.llm.structured import complete_structured, strict_schema, working_mode
from tests.openai_server import ScriptedServer, chat, error


class Unit(BaseModel):
    name: str
    count: int


class Loose(BaseModel):
    name: str
    tags: list[str] = []


ASK = [Message("system", "you propose units"), Message("user", "propose one unit")]
GOOD = '{"name": "checkout-api", "count": 2}'


def make(server: ScriptedServer) -> OpenAIProvider:
    return OpenAIProvider("test-model", api_key="k", base_url=server.url, timeout_s=10,
                          retry=RetryPolicy(sleep=lambda _s: None, rng=random.Random(1)))


def test_json_schema_mode_is_asked_first_with_the_strict_schema(server: ScriptedServer) -> None:
    server.push(chat(GOOD))
    result = complete_structured(make(server), ASK, Unit, max_tokens=100)
    assert result.value == Unit(name="checkout-api", count=2)
    assert (result.mode, result.attempts, result.refused) == ("json_schema", 1, ())
    (body,) = server.bodies()
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Unit" and fmt["json_schema"]["strict"]
    assert fmt["json_schema"]["schema"]["additionalProperties"] is False
    assert set(fmt["json_schema"]["schema"]["required"]) == {"name", "count"}
    # The schema is also in the prompt: servers that ignore response_format still know what to write.
    assert '"count"' in body["messages"][-1]["content"] and body["messages"][-1]["role"] == "user"
    assert body["messages"][-1]["content"].startswith("propose one unit")


def test_fenced_json_with_prose_comments_and_trailing_commas_is_read(server: ScriptedServer) -> None:
    server.push(chat('Here you go!\n```json\n{"name": "a", // the unit\n "count": 3,}\n```\nAnything else?'))
    result = complete_structured(make(server), ASK, Unit)
    assert result.value == Unit(name="a", count=3) and result.attempts == 1


def test_malformed_json_is_fed_back_and_fixed(server: ScriptedServer) -> None:
    server.push(chat('{"name": "a" "count": 3}'), chat(GOOD))
    result = complete_structured(make(server), ASK, Unit)
    assert result.value.count == 2 and result.attempts == 2
    assert result.rejected == ('{"name": "a" "count": 3}',)
    retry = server.bodies()[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": '{"name": "a" "count": 3}'}
    assert "not readable JSON" in retry[-1]["content"] and "Expecting ',' delimiter" in retry[-1]["content"]


def test_a_schema_invalid_answer_is_fixed_with_the_exact_validation_error(server: ScriptedServer) -> None:
    server.push(chat('{"name": "a", "count": "several"}'), chat(GOOD))
    result = complete_structured(make(server), ASK, Unit)
    assert result.value == Unit(name="checkout-api", count=2)
    assert result.attempts == 2 and result.usage.prompt_tokens == 22  # both calls counted
    feedback = server.bodies()[1]["messages"][-1]["content"]
    assert "- count: Input should be a valid integer, unable to parse string as an integer (got \"several\")" \
        in feedback
    assert feedback.startswith("Your previous answer could not be used")


def test_one_never_fixed_fails_after_three_attempts_keeping_the_raw_answer(server: ScriptedServer) -> None:
    server.push(chat('{"name": "a"}'), chat('{"name": "b"}'), chat('{"name": "c"}'), chat(GOOD))
    with pytest.raises(LLMBadOutput, match="did not match Unit after 3 attempts") as caught:
        complete_structured(make(server), ASK, Unit)
    assert caught.value.raw == '{"name": "c"}'
    assert caught.value.answers == ['{"name": "a"}', '{"name": "b"}', '{"name": "c"}']  # every one, for a trace
    assert len(caught.value.errors) == 3 and "count: Field required" in caught.value.errors[0]
    bodies = server.bodies()
    assert len(bodies) == 3  # the fourth scripted answer was never asked for
    second, third = bodies[1]["messages"][-1]["content"], bodies[2]["messages"][-1]["content"]
    assert second.startswith("Your previous answer") and third.startswith("STRICT:")  # stricter each time
    assert "Start with `{`" in third


def test_the_third_instruction_is_the_strictest(server: ScriptedServer) -> None:
    server.push(chat("no"), chat("no"), chat("no"), chat("no"), chat(GOOD))
    with pytest.raises(LLMBadOutput):
        complete_structured(make(server), ASK, Unit, attempts=4)
    assert server.bodies()[3]["messages"][-1]["content"].startswith("LAST ATTEMPT")


def test_truncation_is_retried_once_with_a_larger_budget(server: ScriptedServer) -> None:
    server.push(chat('{"name": "checkout-a', finish_reason="length", completion_tokens=50), chat(GOOD))
    result = complete_structured(make(server), ASK, Unit, max_tokens=50, max_tokens_limit=400)
    assert result.value.count == 2
    first, second = server.bodies()
    assert (first["max_tokens"], second["max_tokens"]) == (50, 400)
    assert second["messages"] == first["messages"]  # the same question, with room to finish


def test_an_answer_the_server_cut_short_is_not_asked_again_with_more_room(server: ScriptedServer) -> None:
    server.push(chat('{"name": "checkout-a', finish_reason="length", prompt_tokens=2012, completion_tokens=36))
    with pytest.raises(LLMTruncated, match="context window"):
        complete_structured(make(server), ASK, Unit, max_tokens=50, max_tokens_limit=400)
    assert [body["max_tokens"] for body in server.bodies()] == [50]  # a larger budget cannot help


def test_truncated_twice_is_its_own_error(server: ScriptedServer) -> None:
    server.push(chat('{"name": "ch', finish_reason="length", completion_tokens=100),
                chat('{"name": "checkout-api", "cou', finish_reason="length", completion_tokens=200))
    with pytest.raises(LLMTruncated, match="max_tokens=200") as caught:
        complete_structured(make(server), ASK, Unit, max_tokens=100)
    assert caught.value.raw == '{"name": "checkout-api", "cou' and caught.value.max_tokens == 200


def test_no_larger_budget_means_no_truncation_retry(server: ScriptedServer) -> None:
    server.push(chat('{"name": "ch', finish_reason="length"))
    with pytest.raises(LLMTruncated):
        complete_structured(make(server), ASK, Unit, max_tokens=100, max_tokens_limit=100)
    assert len(server.bodies()) == 1


def test_a_complete_object_at_the_length_limit_is_accepted(server: ScriptedServer) -> None:
    server.push(chat(GOOD + "\nI hope this", finish_reason="length"))
    assert complete_structured(make(server), ASK, Unit).value.count == 2


def test_json_schema_refused_with_500_steps_to_json_object_and_remembers(server: ScriptedServer) -> None:
    refusal = ("1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
               "'msg': \"Input should be 'text' or 'json_object'\"}")  # what llama.cpp's server says
    server.push(error(500, refusal), chat(GOOD), chat(GOOD))
    provider = make(server)
    first = complete_structured(provider, ASK, Unit)
    assert (first.mode, first.refused, first.attempts) == ("json_object", ("json_schema",), 1)
    assert working_mode(provider.key) == "json_object"
    second = complete_structured(provider, ASK, Unit)
    assert (second.mode, second.refused) == ("json_object", ())
    formats = [body["response_format"] for body in server.bodies()]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]
    assert formats[1]["schema"]["properties"]["count"]["type"] == "integer"
    assert len(server.bodies()) == 3  # a format refusal is not retried as a server fault


def test_every_json_mode_refused_ends_in_prompt_only_mode(server: ScriptedServer) -> None:
    server.push(error(400, "response_format json_schema is not supported"),
                error(400, "response_format json_object is not supported"), chat(GOOD))
    result = complete_structured(make(server), ASK, Unit)
    assert (result.mode, result.refused) == ("prompt", ("json_schema", "json_object"))
    assert "response_format" not in server.bodies()[2]


def test_a_plain_500_is_a_server_fault_not_a_format_refusal(server: ScriptedServer) -> None:
    server.push(error(500, "CUDA out of memory"), chat(GOOD))
    result = complete_structured(make(server), ASK, Unit)
    assert result.mode == "json_schema"  # retried in the same mode
    assert [b["response_format"]["type"] for b in server.bodies()] == ["json_schema", "json_schema"]


def test_optional_fields_make_the_schema_non_strict() -> None:
    schema, strict = strict_schema(Loose)
    assert not strict and schema["additionalProperties"] is False
    assert strict_schema(Unit)[1]


@pytest.mark.parametrize(("text", "expected"), [
    (GOOD, {"name": "checkout-api", "count": 2}),
    ("```\n" + GOOD + "\n```", {"name": "checkout-api", "count": 2}),
    ("Sure. " + GOOD + " Done. }", {"name": "checkout-api", "count": 2}),
    ('{"a": [1, 2,], /* note */ "b": "x // not a comment"}', {"a": [1, 2], "b": "x // not a comment"}),
    ('{"text": "line one\nline two"}', {"text": "line one\nline two"}),
    ("Options [a, b] then " + GOOD, {"name": "checkout-api", "count": 2}),
    ('\ufeff{"a": "}"}', {"a": "}"}),
])
def test_parse_json_answer_reads_what_models_write(text: str, expected: object) -> None:
    assert parse_json_answer(text) == expected


@pytest.mark.parametrize(("text", "why"), [
    ("", "empty"),
    ("I cannot help with that.", "no JSON object"),
    ('{"name": "checkout', "truncated"),
    ('{"a": 1 "b": 2}', "Expecting ',' delimiter"),
])
def test_parse_json_answer_says_why_it_failed(text: str, why: str) -> None:
    with pytest.raises(JSONAnswerError, match=why):
        parse_json_answer(text)


def test_the_retry_conversation_is_valid_json_for_the_server(server: ScriptedServer) -> None:
    server.push(chat("```json\n{oops}\n```"), chat(GOOD))
    complete_structured(make(server), ASK, Unit)
    assert all(isinstance(body, dict) for body in server.bodies())  # every request parsed as a JSON object
    assert [m["role"] for m in server.bodies()[1]["messages"]] == ["system", "user", "assistant", "user"]
