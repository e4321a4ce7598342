"""The `anthropic` provider: the official SDK's Messages API, an optional extra.

    pip install 'aidlc[anthropic]'

Without the package, building this provider is an LLMConfigError naming that command.
Messages in the OpenAI shape are translated: system messages become the `system` parameter,
tool calls become `tool_use` blocks, tool results `tool_result` blocks, and consecutive
messages of one role are merged (the API wants user and assistant turns to alternate).
Structured output: `json_schema` maps to `output_config.format` (sent as extra body so older SDK
versions pass it through); `json_object` has no Anthropic equivalent and is refused locally, so
aidlc.llm.structured goes straight to its prompt-only mode.
The answer is read through the SDK's streaming-response API within the bounds of aidlc.llm.bounds, as for the
openai provider.
"""

from __future__ import annotations

import json
from typing import Any

from aidlc.llm.base import Completion, Message, ToolCall
from aidlc.llm.bounds import Deadline, counted
from aidlc.llm.errors import LLMFormatRejected, LLMUnavailable
from aidlc.llm.httperrors import read_body, sdk_errors
from aidlc.llm.remote import NO_KEY, RemoteProvider, require_sdk

_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls",
           "refusal": "content_filter", "model_context_window_exceeded": "length"}


class AnthropicProvider(RemoteProvider):
    name = "anthropic"
    auth_headers = ("X-Api-Key", "Authorization")  # SDK versions differ in which one carries the key
    default_server = "the Anthropic API"

    def __init__(self, model: str, **options: Any) -> None:
        """The options of `RemoteProvider`."""
        self._sdk = require_sdk("anthropic")  # fail at configuration time, not at the first call
        super().__init__(model, **options)

    def complete(self, messages: list[Message], *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: dict[str, Any] | None = None, tools: list[dict[str, Any]] | None = None,
                 timeout_s: float | None = None) -> Completion:
        system, turns = to_anthropic_messages(messages)
        request: dict[str, Any] = {"model": self.model, "messages": turns, "max_tokens": max_tokens}
        if system:
            request["system"] = system
        if temperature is not None and self._takes_temperature():
            request["temperature"] = temperature
        if tools:
            request["tools"] = [to_anthropic_tool(t) for t in tools]
        if response_format is not None:
            if response_format.get("type") != "json_schema":
                raise LLMFormatRejected(f"anthropic has no {response_format.get('type')} mode", None)
            schema = response_format.get("json_schema", {}).get("schema", {})
            request["extra_body"] = {"output_config": {"format": {"type": "json_schema", "schema": schema}}}
        return self._attempts(lambda deadline: self._call(request, deadline, messages, response_format, tools),
                              timeout_s)

    def _call(self, request: dict[str, Any], deadline: Deadline, messages: list[Message],
              response_format: dict[str, Any] | None, tools: list[dict[str, Any]] | None) -> Completion:
        sdk = self._sdk
        client = self._sdk_client()
        started = self._clock()
        where = self._where()
        with sdk_errors(sdk, where=where, model=self.model, deadline=deadline,
                        asked_format="extra_body" in request, answer="a message", messages=messages,
                        response_format=response_format, tools=tools):
            with client.messages.with_streaming_response.create(
                    **request, timeout=max(deadline.left(), 0.001),
                    extra_headers=self._extra_headers(sdk.Omit())) as response:
                body = read_body(sdk, response, limit=self.max_answer_bytes, deadline=deadline, where=where)
            answer = json.loads(body)
        return from_anthropic_response(answer, self._clock() - started, self.key, messages)

    def _sdk_client(self) -> Any:
        if self._client is None:
            self._client = self._sdk.Anthropic(api_key=self._api_key or NO_KEY, base_url=self.base_url, max_retries=0,
                                               timeout=self.timeout_s)
        return self._client

    def _takes_temperature(self) -> bool:
        # Recent SDKs dropped `temperature` from messages.create (the newest models fix it); older ones take it.
        import inspect

        return "temperature" in inspect.signature(self._sdk_client().messages.create).parameters


def to_anthropic_messages(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """(system text, alternating turns with content blocks)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "tool":
            role, blocks = "user", [{"type": "tool_result", "tool_use_id": message.tool_call_id or "",
                                     "content": message.content}]
        else:
            role = message.role
            blocks = [{"type": "text", "text": message.content}] if message.content else []
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _arguments(c.arguments)}
                       for c in message.tool_calls]
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return system, turns


def to_anthropic_tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = tool.get("function", tool)
    return {"name": function["name"], "description": function.get("description", ""),
            "input_schema": function.get("parameters") or {"type": "object", "properties": {}}}


def from_anthropic_response(answer: Any, latency: float, key: str, messages: list[Message]) -> Completion:
    """A Completion from the Messages API's JSON answer (`messages`: what was asked, for the usage check)."""
    try:
        blocks = list(answer["content"])
        text = "".join(_block_text(b) for b in blocks if b.get("type") == "text")
        calls = tuple(ToolCall(str(b["id"]), str(b["name"]), json.dumps(b.get("input"), ensure_ascii=False))
                      for b in blocks if b.get("type") == "tool_use")
        usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
    except (AttributeError, KeyError, TypeError) as exc:
        raise LLMUnavailable(f"the answer is not an Anthropic message "
                             f"({type(exc).__name__}: {str(exc)[:120]})") from None
    tokens = counted(usage.get("input_tokens"), usage.get("output_tokens"), messages=messages,
                     answer=text + "".join(call.name + call.arguments for call in calls))
    stop = str(answer.get("stop_reason") or "end_turn")
    return Completion(text=text, tool_calls=calls, usage=tokens, model=str(answer.get("model") or ""),
                      finish_reason=_FINISH.get(stop, stop), latency_s=round(latency, 3), target=key)


def _block_text(block: dict[str, Any]) -> str:
    text = block.get("text") or ""
    if not isinstance(text, str):
        raise TypeError(f"a text block holds {type(text).__name__}, not text")
    return text


def _arguments(text: str) -> Any:
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return {"_raw": text}  # the model's malformed arguments, kept rather than lost
