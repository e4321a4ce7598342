"""The `openai` provider: the official SDK against any OpenAI-compatible server.

OpenAI, Azure, Ollama, vLLM, the llama.cpp server, LM Studio, OpenRouter all speak
POST {base_url}/chat/completions. The SDK (the `openai` extra: `pip install 'aidlc[openai]'`) is imported on first
use, never at start-up; without it, the call is an LLMConfigError naming the extra.
Its own retries are off (max_retries=0): aidlc.llm.retry decides, with Retry-After honoured.

The answer is read through the SDK's streaming-response API within the bounds of aidlc.llm.bounds (a deadline
from connecting to the last byte, a size limit) and parsed here; its token counts are checked before they count.

Errors are translated to aidlc.llm.errors so callers never see an SDK exception:
timeouts -> LLMTimeout, 429 -> LLMRateLimited, connection errors and 5xx -> LLMUnavailable
(all retried; a refused connection is LLMUnreachable, one dropped while the server answered
LLMServerStopped), a refused response_format -> LLMFormatRejected (aidlc.llm.structured steps
down to a simpler JSON mode), a prompt longer than the server's context -> LLMContextExceeded,
other 4xx -> LLMRejected.

An answer cut by finish_reason "length" short of max_tokens was cut by a limit of the server's:
the server is then asked, once per target, what its context window is (aidlc.llm.window), and
the answer carries it (Completion.context_window) for the diagnosis (aidlc.llm.diagnosis).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from aidlc.llm import window
from aidlc.llm.base import Completion, ContextWindow, Message, ToolCall
from aidlc.llm.bounds import Deadline, counted
from aidlc.llm.errors import LLMRejected, LLMUnavailable
from aidlc.llm.httperrors import read_body, sdk_errors
from aidlc.llm.remote import NO_KEY, RemoteProvider, require_sdk

_MAX_COMPLETION_TOKENS = re.compile(r"max_completion_tokens", re.IGNORECASE)


class OpenAIProvider(RemoteProvider):
    """One OpenAI-compatible target."""

    name = "openai"
    auth_headers = ("Authorization",)
    default_server = "the OpenAI API"
    # OpenAI's reasoning models refuse `max_tokens`; most other servers only know it. Learned (per
    # instance) on refusal.
    _token_param = "max_tokens"
    _window: ContextWindow | None = None
    _window_asked = False

    def complete(self, messages: list[Message], *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: dict[str, Any] | None = None, tools: list[dict[str, Any]] | None = None,
                 timeout_s: float | None = None) -> Completion:
        request: dict[str, Any] = {"model": self.model, "messages": [to_openai_message(m) for m in messages]}
        if temperature is not None:
            request["temperature"] = temperature
        if response_format is not None:
            request["response_format"] = response_format
        if tools:
            request["tools"] = tools
        answer = self._attempts(lambda deadline: self._call(request, max_tokens, deadline, messages), timeout_s)
        cut_short = answer.usage.estimated or answer.usage.completion_tokens < max_tokens
        if answer.finish_reason == "length" and cut_short:
            answer = replace(answer, context_window=self._context_window())
        return answer

    def _call(self, request: dict[str, Any], max_tokens: int, deadline: Deadline,
              messages: list[Message]) -> Completion:
        started = self._clock()
        try:
            answer = self._send(request, max_tokens, deadline, messages)
        except LLMRejected as exc:
            if self._token_param == "max_tokens" and _MAX_COMPLETION_TOKENS.search(exc.message):
                self._token_param = "max_completion_tokens"
                answer = self._send(request, max_tokens, deadline, messages)
            else:
                raise
        return self._completion(answer, self._clock() - started, messages)

    def _send(self, request: dict[str, Any], max_tokens: int, deadline: Deadline, messages: list[Message]) -> Any:
        """The answer's JSON, read within `deadline` and the size limit."""
        client = self._sdk_client()
        openai = require_sdk("openai")

        where = self._where()
        with sdk_errors(openai, where=where, model=self.model, deadline=deadline,
                        asked_format="response_format" in request, answer="a chat completion", messages=messages,
                        response_format=request.get("response_format"), tools=request.get("tools")):
            with client.chat.completions.with_streaming_response.create(
                    **request, **{self._token_param: max_tokens}, timeout=max(deadline.left(), 0.001),
                    extra_headers=self._extra_headers(openai.Omit())) as response:
                body = read_body(openai, response, limit=self.max_answer_bytes, deadline=deadline, where=where)
            return json.loads(body)

    def _completion(self, answer: Any, latency: float, messages: list[Message]) -> Completion:
        try:
            choice = answer["choices"][0]
            message = choice["message"]
            text = message.get("content") or ""
            calls = tuple(ToolCall(str(call["id"]), str(call["function"]["name"]),
                                   _text(call["function"].get("arguments")))
                          for call in message.get("tool_calls") or ())
            finish = str(choice.get("finish_reason") or "stop")
            if not isinstance(text, str):
                raise TypeError(f"the message's content is {type(text).__name__}, not text")
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            raise LLMUnavailable(f"{self._where()} answered something that is not a chat completion "
                                 f"({type(exc).__name__}: {str(exc)[:120]})") from None
        usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
        tokens = counted(usage.get("prompt_tokens"), usage.get("completion_tokens"), messages=messages,
                         answer=text + "".join(call.name + call.arguments for call in calls))
        return Completion(text=text, tool_calls=calls, usage=tokens, model=str(answer.get("model") or ""),
                          finish_reason=finish, latency_s=round(latency, 3), target=self.key)

    def _context_window(self) -> ContextWindow | None:
        """The server's context window, asked once per target (and only of a configured server: the OpenAI
        API says nothing of it): its /models, then llama-server's /props, both on the host of base_url."""
        if not self._window_asked and self.base_url:
            self._window_asked = True
            listed = window.from_models(self._get("models"), self.model)
            if listed is None or listed.trained:
                listed = window.best(window.from_props(self._get(window.props_url(self.base_url))), listed)
            self._window = listed
        return self._window

    def _get(self, path: str) -> str | None:
        """A GET through the SDK's client (its key, its proxies), short and never retried; None on any failure."""
        openai = require_sdk("openai")

        try:
            return str(self._sdk_client().get(path, cast_to=str, options={
                "timeout": window.PROBE_TIMEOUT_S, "max_retries": 0, "follow_redirects": False,
                "headers": self._extra_headers(openai.Omit()) or {}}))
        except openai.OpenAIError:
            return None

    def _sdk_client(self) -> Any:
        if self._client is None:
            openai = require_sdk("openai")  # lazily, and an optional extra: `aidlc[openai]`
            self._client = openai.OpenAI(api_key=self._api_key or NO_KEY, base_url=self.base_url, max_retries=0,
                                         timeout=self.timeout_s)
        return self._client


def _text(value: object) -> str:
    """Tool-call arguments as the model wrote them: text, or nothing."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"tool-call arguments are {type(value).__name__}, not text")
    return value


def to_openai_message(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                              for c in message.tool_calls]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    return data
