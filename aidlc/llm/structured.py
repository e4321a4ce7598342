"""Structured output: an answer validated against a pydantic model, whatever the server can do.

    result = complete_structured(provider, [system_message(task), Message("user", ...)], Proposal,
                                 max_tokens=2048)
    result.value        # a validated Proposal
    result.completion   # the answer that validated (model, usage, latency, degraded, target)
    result.mode         # "json_schema" | "json_object" | "prompt": what the server accepted
    result.refused      # modes the server refused during this call
    result.attempts, result.usage, result.raw

Modes, tried in this order and remembered per provider key (provider + model + server):
1. `json_schema`: response_format {"type": "json_schema", "json_schema": {name, schema, strict}}
   (OpenAI, vLLM, recent Ollama). `strict` only when the schema allows it (all fields required).
2. `json_object`: {"type": "json_object", "schema": ...} (llama.cpp's server answers HTTP 500 to
   json_schema but constrains output with this one).
3. `prompt`: no response_format; the shape in the prompt only.
A server refusing a mode (LLMFormatRejected) moves to the next one; that costs no attempt.

The server is sent the model's JSON Schema relaxed for grammar engines (aidlc.llm.serverschema: no
pattern, no long length bounds, no nested unions); the prompt states the answer's shape with every
constraint as a note (aidlc.llm.schemashape), not the raw schema, whose class titles and keywords a
small model copies into its answer. Whatever the mode, the answer is parsed robustly
(aidlc.llm.jsonparse) and validated against the full pydantic model. A failure is fed back word for
word (validation errors, or why the JSON could not be read), with an instruction that gets stricter each time
(templates/prompts/structured_retry.md.j2); after `attempts` answers, LLMBadOutput keeps every raw
answer (`answers`), and a result that validated late keeps those before it (`rejected`). An answer cut
at max_tokens (finish_reason "length") that does not parse is LLMTruncated:
asked once more with max_tokens raised to `max_tokens_limit` (default: double), then raised.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, replace
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from aidlc.llm.base import Completion, Message, Provider, Usage
from aidlc.llm.bounds import ends_after, left
from aidlc.llm.diagnosis import truncated
from aidlc.llm.errors import LLMBadOutput, LLMFormatRejected
from aidlc.llm.jsonparse import JSONAnswerError, parse_json_answer
from aidlc.llm.prompts import render_prompt
from aidlc.llm.schemashape import schema_objects, shape
from aidlc.llm.serverschema import server_schema

T = TypeVar("T", bound=BaseModel)
Mode = Literal["json_schema", "json_object", "prompt"]
MODES: tuple[Mode, ...] = ("json_schema", "json_object", "prompt")
MAX_ECHO_CHARS = 4000  # a rejected answer quoted back to the model is cut here, to keep retries affordable

_working_mode: dict[str, Mode] = {}  # provider key -> the first mode its server accepted


@dataclass(frozen=True)
class Structured(Generic[T]):
    value: T
    completion: Completion
    mode: Mode
    attempts: int  # answers the model gave (refused modes not counted)
    usage: Usage  # all calls together
    raw: str  # the text that validated
    refused: tuple[Mode, ...] = ()  # modes the server refused on the way (this call only)
    rejected: tuple[str, ...] = ()  # the answers before it that did not validate, oldest first


def complete_structured(provider: Provider, messages: list[Message], schema: type[T], *, max_tokens: int = 1024,
                        max_tokens_limit: int | None = None, temperature: float | None = 0.0, attempts: int = 3,
                        timeout_s: float | None = None) -> Structured[T]:
    """Ask for a `schema` instance; see the module docstring for modes, retries and errors."""
    name = schema_name(schema)
    json_schema, strict = strict_schema(schema)
    sent = server_schema(json_schema)
    answer_shape = shape(json_schema)
    conversation = _with_instruction(messages, render_prompt("structured.md.j2", shape=answer_shape))
    mode_index = MODES.index(_working_mode.get(provider.key, MODES[0]))
    limit = max_tokens_limit if max_tokens_limit is not None else max_tokens * 2
    tokens, grown = max_tokens, False
    usage, asked = Usage(), 0
    errors: list[str] = []
    refused: list[Mode] = []
    rejected: list[str] = []
    ends = ends_after(timeout_s)  # `timeout_s` bounds every call this makes together
    while True:
        mode = MODES[mode_index]
        try:
            answer = provider.complete(conversation, max_tokens=tokens, temperature=temperature,
                                       response_format=response_format(mode, name, sent, strict),
                                       timeout_s=left(ends))
        except LLMFormatRejected:
            if mode_index + 1 >= len(MODES):
                raise
            refused.append(mode)
            mode_index += 1
            _working_mode[provider.key] = MODES[mode_index]
            continue
        _working_mode[provider.key] = mode
        asked += 1
        usage = usage + answer.usage
        try:
            value = schema.model_validate(parse_json_answer(answer.text))
        except JSONAnswerError as exc:
            problem, details = "It is not readable JSON", [f"- {exc}"]
        except ValidationError as exc:
            problem, details = "It does not have the shape asked for", describe_validation(exc)
        else:
            return Structured(value, answer, mode, asked, usage, answer.text, tuple(refused), tuple(rejected))
        if answer.finish_reason == "length":
            # Cut by our budget: ask again with room. Cut by the server (its context window) with fewer
            # tokens than asked: a larger budget cannot help, so say so now.
            cut_by_budget = answer.usage.estimated or answer.usage.completion_tokens >= tokens
            if cut_by_budget and not grown and limit > tokens:
                tokens, grown = limit, True
                continue  # the same question with room to finish; not a format failure
            raise truncated(answer, max_tokens=tokens, unfinished=f"its {name} JSON",
                            target=answer.target or provider.key)
        errors.append("\n".join(details))
        rejected.append(answer.text)
        if len(errors) >= attempts:
            raise LLMBadOutput(f"the model's answer did not match {name} after {attempts} attempts "
                               f"({answer.target or provider.key}): {details[0].lstrip('- ')}",
                               raw=answer.text, errors=errors, answers=rejected)
        retry = render_prompt("structured_retry.md.j2", level=len(errors), problem=problem, errors=details,
                              shape=answer_shape)
        echoed = answer.text if len(answer.text) <= MAX_ECHO_CHARS else answer.text[:MAX_ECHO_CHARS] + " [cut]"
        conversation = [*conversation, Message("assistant", echoed), Message("user", retry)]


def response_format(mode: Mode, name: str, json_schema: dict[str, Any], strict: bool) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": json_schema, "strict": strict}}
    if mode == "json_object":
        return {"type": "json_object", "schema": json_schema}
    return None


def schema_name(schema: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64]


def strict_schema(schema: type[BaseModel]) -> tuple[dict[str, Any], bool]:
    """The model's JSON Schema with `additionalProperties: false` on every object; strict-capable or not.

    OpenAI's strict mode wants every property required and no defaults or free-form maps; a
    model with optional fields is still sent its schema, just without `strict`.
    """
    document = copy.deepcopy(schema.model_json_schema())
    strict = True

    for node in schema_objects(document):
        if "properties" in node:
            if node.get("additionalProperties") not in (None, False):
                strict = False
            node["additionalProperties"] = False
            if set(node.get("required", [])) != set(node["properties"]):
                strict = False
        elif node.get("type") == "object" and node.get("additionalProperties") not in (None, False):
            strict = False  # dict[str, X]: a free-form map
        if "default" in node:
            strict = False
    return document, strict


def describe_validation(exc: ValidationError) -> list[str]:
    """One line per pydantic error: where, what, and what was there instead."""
    lines = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "(the whole object)"
        got = json.dumps(error.get("input"), ensure_ascii=False, default=str)
        got = got if len(got) <= 80 else got[:77] + "..."
        lines.append(f"- {where}: {error['msg']} (got {got})")
    return lines


def working_mode(provider_key: str) -> Mode | None:
    """The mode remembered for a provider key, if any call has settled it."""
    return _working_mode.get(provider_key)


def forget_modes() -> None:
    """Forget what each server accepted (tests; a server upgraded under a running process)."""
    _working_mode.clear()


def _with_instruction(messages: list[Message], instruction: str) -> list[Message]:
    if messages and messages[-1].role == "user":
        last = messages[-1]
        return [*messages[:-1], replace(last, content=f"{last.content}\n\n{instruction}")]
    return [*messages, Message("user", instruction)]
