"""The `anthropic` provider: the official SDK's Messages API, an optional extra.

    pip install 'aidlc[anthropic]'

Without the package, building this provider is an LLMConfigError naming that command.
Messages in the OpenAI shape are translated: system messages become the `system` parameter,
tool calls become `tool_use` blocks, tool results `tool_result` blocks, and consecutive
messages of one role are merged (the API wants user and assistant turns to alternate).
Structured output: `json_schema` maps to `output_config.format` (sent as extra body so older SDK
versions pass it through); `json_object` has no Anthropic equivalent and is refused locally, so
aidlc.llm.structured goes straight to its prompt-only mode.
"""

from __future__ import annotations

import json
from typing import Any

from aidlc.llm.base import Completion, Message, ToolCall, Usage
from aidlc.llm.errors import LLMConfigError, LLMFormatRejected, LLMUnavailable
from aidlc.llm.httperrors import sdk_errors
from aidlc.llm.remote import NO_KEY, RemoteProvider
from aidlc.llm.retry import with_retries

INSTALL_HINT = "pip install 'aidlc[anthropic]'"
_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls",
           "refusal": "content_filter", "model_context_window_exceeded": "length"}


def require_sdk() -> Any:
    try:
        import anthropic
    except ImportError:
        raise LLMConfigError("the anthropic provider needs the anthropic package, which is not installed",
                             [INSTALL_HINT, "or set llm.provider: openai in aidlc.yaml"]) from None
    return anthropic


class AnthropicProvider(RemoteProvider):
    name = "anthropic"
    auth_headers = ("X-Api-Key", "Authorization")  # SDK versions differ in which one carries the key

    def __init__(self, model: str, **options: Any) -> None:
        """The options of `RemoteProvider`."""
        self._sdk = require_sdk()  # fail at configuration time, not at the first call
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
        timeout = timeout_s if timeout_s is not None else self.timeout_s
        return with_retries(lambda: self._call(request, timeout, messages, response_format, tools), self.retry)

    def _call(self, request: dict[str, Any], timeout: float, messages: list[Message],
              response_format: dict[str, Any] | None, tools: list[dict[str, Any]] | None) -> Completion:
        sdk = self._sdk
        client = self._sdk_client()
        started = self._clock()
        with sdk_errors(sdk, where=self._where(), model=self.model, timeout=timeout,
                        asked_format="extra_body" in request, answer="a message", messages=messages,
                        response_format=response_format, tools=tools):
            response = client.messages.create(**request, timeout=timeout,
                                              extra_headers=self._extra_headers(sdk.Omit()))
        latency = self._clock() - started
        return from_anthropic_response(response, latency, self.key)

    def _sdk_client(self) -> Any:
        if self._client is None:
            self._client = self._sdk.Anthropic(api_key=self._api_key or NO_KEY, base_url=self.base_url, max_retries=0,
                                               timeout=self.timeout_s)
        return self._client

    def _takes_temperature(self) -> bool:
        # Recent SDKs dropped `temperature` from messages.create (the newest models fix it); older ones take it.
        import inspect

        return "temperature" in inspect.signature(self._sdk_client().messages.create).parameters

    def _where(self) -> str:
        return f"{self.base_url or 'the Anthropic API'} (model {self.model})"


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


def from_anthropic_response(response: Any, latency: float, key: str) -> Completion:
    try:
        blocks = list(response.content)
        text = "".join(b.text for b in blocks if getattr(b, "type", "") == "text")
        calls = tuple(ToolCall(b.id, b.name, json.dumps(b.input, ensure_ascii=False))
                      for b in blocks if getattr(b, "type", "") == "tool_use")
        usage = Usage(response.usage.input_tokens or 0, response.usage.output_tokens or 0)
    except (AttributeError, TypeError) as exc:
        raise LLMUnavailable(f"the answer is not an Anthropic message "
                             f"({type(exc).__name__}: {str(exc)[:120]})") from None
    finish = _FINISH.get(response.stop_reason or "end_turn", response.stop_reason or "stop")
    return Completion(text=text, tool_calls=calls, usage=usage, model=response.model or "", finish_reason=finish,
                      latency_s=round(latency, 3), target=key)


def _arguments(text: str) -> Any:
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return {"_raw": text}  # the model's malformed arguments, kept rather than lost
