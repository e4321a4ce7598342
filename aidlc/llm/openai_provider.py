"""The `openai` provider: the official SDK against any OpenAI-compatible server.

OpenAI, Azure, Ollama, vLLM, the llama.cpp server, LM Studio, OpenRouter all speak
POST {base_url}/chat/completions. The SDK is imported on first use, never at start-up.
Its own retries are off (max_retries=0): aidlc.llm.retry decides, with Retry-After honoured.

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

import re
from dataclasses import replace
from typing import Any

from aidlc.llm import window
from aidlc.llm.base import Completion, ContextWindow, Message, ToolCall, Usage
from aidlc.llm.context import estimate_tokens
from aidlc.llm.errors import LLMRejected, LLMUnavailable
from aidlc.llm.httperrors import sdk_errors
from aidlc.llm.remote import NO_KEY, RemoteProvider
from aidlc.llm.retry import with_retries

_MAX_COMPLETION_TOKENS = re.compile(r"max_completion_tokens", re.IGNORECASE)


class OpenAIProvider(RemoteProvider):
    """One OpenAI-compatible target."""

    name = "openai"
    auth_headers = ("Authorization",)
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
        timeout = timeout_s if timeout_s is not None else self.timeout_s
        answer = with_retries(lambda: self._call(request, max_tokens, timeout, messages), self.retry)
        cut_short = answer.usage.estimated or answer.usage.completion_tokens < max_tokens
        if answer.finish_reason == "length" and cut_short:
            answer = replace(answer, context_window=self._context_window())
        return answer

    def _call(self, request: dict[str, Any], max_tokens: int, timeout: float, messages: list[Message]) -> Completion:
        started = self._clock()
        try:
            response = self._send(request, max_tokens, timeout, messages)
        except LLMRejected as exc:
            if self._token_param == "max_tokens" and _MAX_COMPLETION_TOKENS.search(exc.message):
                self._token_param = "max_completion_tokens"
                response = self._send(request, max_tokens, timeout, messages)
            else:
                raise
        return self._completion(response, self._clock() - started, messages)

    def _send(self, request: dict[str, Any], max_tokens: int, timeout: float, messages: list[Message]) -> Any:
        client = self._sdk_client()
        import openai

        with sdk_errors(openai, where=self._where(), model=self.model, timeout=timeout,
                        asked_format="response_format" in request, answer="a chat completion", messages=messages,
                        response_format=request.get("response_format"), tools=request.get("tools")):
            return client.chat.completions.create(**request, **{self._token_param: max_tokens}, timeout=timeout,
                                                  extra_headers=self._extra_headers(openai.Omit()))

    def _completion(self, response: Any, latency: float, messages: list[Message]) -> Completion:
        try:
            choice = response.choices[0]
            message = choice.message
            text = message.content or ""
            calls = tuple(ToolCall(call.id, call.function.name, call.function.arguments or "")
                          for call in message.tool_calls or ())
            finish = choice.finish_reason or "stop"
        except (AttributeError, IndexError, TypeError) as exc:
            raise LLMUnavailable(f"{self._where()} answered something that is not a chat completion "
                                 f"({type(exc).__name__}: {str(exc)[:120]})") from None
        usage = getattr(response, "usage", None)
        if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
            counted = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)
        else:
            counted = Usage(sum(estimate_tokens(m.content) for m in messages), estimate_tokens(text), estimated=True)
        return Completion(text=text, tool_calls=calls, usage=counted, model=getattr(response, "model", "") or "",
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
        import openai

        try:
            return str(self._sdk_client().get(path, cast_to=str, options={
                "timeout": window.PROBE_TIMEOUT_S, "max_retries": 0, "follow_redirects": False,
                "headers": self._extra_headers(openai.Omit()) or {}}))
        except openai.OpenAIError:
            return None

    def _sdk_client(self) -> Any:
        if self._client is None:
            import openai  # lazily: `aidlc --version` must not pay for it

            self._client = openai.OpenAI(api_key=self._api_key or NO_KEY, base_url=self.base_url, max_retries=0,
                                         timeout=self.timeout_s)
        return self._client

    def _where(self) -> str:
        return f"{self.base_url or 'the OpenAI API'} (model {self.model})"


def to_openai_message(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                              for c in message.tool_calls]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    return data
