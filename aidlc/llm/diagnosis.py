"""What went wrong with a call, said accurately: the message and next steps of three failures that
used to send users the wrong way.

* A connection that died while the server answered (closed or reset, no complete answer) is not
  "cannot reach": the server was there and stopped on *this* request (LLMServerStopped). The message
  names the request by the digest the replay cassettes use (aidlc.llm.replay.request_digest) and by
  its size, and the next steps point at what in it is large. A connection refused from the start
  stays "cannot reach" (LLMUnreachable). aidlc.llm.retry keeps the first diagnosis when the retries
  after it are refused.
* An answer cut by finish_reason "length" is not always max_tokens: when fewer tokens than asked were
  generated, a limit of the server's cut it, usually its context window (prompt + answer reached
  it). The usage numbers say which; the server's window (aidlc.llm.window) confirms it when known.
* A server refusing a prompt longer than its context (HTTP 400 from llama.cpp, vLLM, OpenAI) gets the
  same advice: raise the server's context, or send less.
"""

from __future__ import annotations

import re
from typing import Any

from aidlc.llm.base import Completion, ContextWindow, Message
from aidlc.llm.context import estimate_messages
from aidlc.llm.errors import (
    BUDGET_STEPS,
    CHECK,
    UNREACHABLE,
    LLMContextExceeded,
    LLMServerStopped,
    LLMTruncated,
    LLMUnavailable,
    LLMUnreachable,
    context_steps,
)
from aidlc.llm.replay import canonical, request_digest

LONG_PROMPT_TOKENS = 2048  # from here a prompt is worth naming as a possible cause of a crash

# How the HTTP clients (httpx, httpx2) name what went wrong, found along the exception's cause chain.
_NEVER_CONNECTED = {"ConnectError", "ConnectTimeout", "ProxyError", "UnsupportedProtocol", "ConnectionRefusedError",
                    "gaierror"}
_DROPPED = {"ReadError", "WriteError", "ConnectionResetError", "BrokenPipeError", "ConnectionAbortedError"}
_CLOSED_EARLY = re.compile(r"disconnected|peer closed|closed connection|incomplete", re.IGNORECASE)

# What servers say when a prompt does not fit their context; named groups give the numbers where they do.
_CONTEXT_REFUSALS = [
    re.compile(r"Requested tokens \((?P<prompt>\d+)\) exceed context window of (?P<window>\d+)"),  # llama-cpp-python
    re.compile(r"request \((?P<prompt>\d+) tokens\) exceeds the available context size "
               r"\((?P<window>\d+) tokens\)"),  # llama-server
    re.compile(r"maximum context length is (?P<window>\d+) tokens"),  # vLLM, OpenAI
    re.compile(r"exceeds the available context size|context_length_exceeded|exceed_context_size_error"),
]


def connection_failure(exc: BaseException, cause: str, *, where: str, messages: list[Message] | None,
                       response_format: dict[str, Any] | None, tools: list[dict[str, Any]] | None) -> LLMUnavailable:
    """An SDK connection error, by its cause: never connected, dropped while answering, or not HTTP at all."""
    chain = _causes(exc)
    names = {type(e).__name__ for e in chain}
    if names & _NEVER_CONNECTED:
        return LLMUnreachable(f"cannot reach {where}: {cause}", None, UNREACHABLE)
    closed_early = any(type(e).__name__ == "RemoteProtocolError" and _CLOSED_EARLY.search(str(e)) for e in chain)
    if names & _DROPPED or closed_early:
        return server_stopped(where, f"the connection was closed or reset before a complete answer ({cause})",
                              messages or [], response_format, tools)
    if "RemoteProtocolError" in names:
        return LLMUnavailable(f"{where} did not answer in HTTP: {cause}")
    return LLMUnreachable(f"cannot reach {where}: {cause}", None, UNREACHABLE)


def server_stopped(where: str, how: str, messages: list[Message], response_format: dict[str, Any] | None,
                   tools: list[dict[str, Any]] | None) -> LLMServerStopped:
    asked = {"messages": [m.to_dict() for m in messages], "response_format": response_format, "tools": tools or None}
    size = len(canonical(asked).encode("utf-8"))
    tokens = estimate_messages(messages)
    schema = len(canonical(response_format).encode("utf-8")) if response_format else 0
    described = (f"digest {request_digest(messages, response_format, tools)} (as a cassette recorded with "
                 f"AIDLC_LLM_RECORD names it), {size:,} bytes: {len(messages)} messages of ~{tokens:,} tokens")
    if schema:
        described += f", and a {schema:,}-byte response_format ({response_format.get('type')})"  # type: ignore[union-attr]  # schema > 0 only when response_format is given
    if tools:
        described += f", and {len(tools)} tool definitions"
    steps = ["read the server's log for why it stopped (a crash, out of memory, a killed process), then restart it"]
    if schema:
        steps.append(f"this request asked for structured output with a {schema:,}-byte JSON schema: servers that "
                     "compile a schema into a grammar (llama.cpp) have crashed on large ones; see whether the log "
                     "names the grammar")
    if tokens >= LONG_PROMPT_TOKENS:
        steps.append(f"the prompt is long (~{tokens:,} tokens): a server short of memory or context may fail on it; "
                     "aidlc draft --budget N sends less")
    steps.append("aidlc llm check    # once it runs again: does it answer a small request?")
    return LLMServerStopped(where, how, described, steps)


def context_refusal(status: int, body: str, *, where: str) -> LLMContextExceeded | None:
    """The server's refusal of a prompt longer than its context, or None when `body` says something else."""
    for pattern in _CONTEXT_REFUSALS:
        found = pattern.search(body)
        if found is None:
            continue
        numbers = {k: int(v) for k, v in found.groupdict().items() if v is not None}
        prompt, window = numbers.get("prompt"), numbers.get("window")
        if prompt is not None and window is not None:
            size = f" (the prompt is {prompt:,} tokens, the window {window:,})"
        elif window is not None:
            size = f" of {window:,} tokens"
        else:
            size = ""
        return LLMContextExceeded(f"the prompt does not fit the server's context window{size}: "
                                  f"{where} answered HTTP {status}: {body[:300]}", status,
                                  context_steps(_suggested(max(prompt or 0, window or 0))))
    return None


def truncated(answer: Completion, *, max_tokens: int, unfinished: str, target: str) -> LLMTruncated:
    """The error for an answer cut by finish_reason "length", saying what cut it: the token budget
    (max_tokens), the server's context window, or another limit of the server's."""
    prompt, generated = answer.usage.prompt_tokens, answer.usage.completion_tokens
    window = answer.context_window
    used = prompt + generated
    suggested = _suggested(max(used, window.tokens if window and not window.trained else 0))
    if window is not None and window.trained and window.tokens > used:
        suggested = min(suggested, window.tokens)  # never more than the model was trained for
    before = f"before finishing {unfinished} ({target})"
    if answer.usage.estimated:
        known = f"; the server's context window: {_window(window)}" if window else ""
        return _truncated(answer, max_tokens, f"the answer was cut (finish_reason \"length\") {before}; the server "
                          f"reported no token counts (estimated: a prompt of ~{prompt:,} tokens, an answer of "
                          f"~{generated:,}, max_tokens={max_tokens}){known}",
                          [BUDGET_STEPS[1], context_steps(suggested)[0], CHECK])
    if window is not None and used >= window.tokens - max(4, window.tokens // 100):
        whose = "model's" if window.trained else "server's"
        steps = (["use a model with a longer context, or send less: aidlc draft --budget N", CHECK] if window.trained
                 else context_steps(suggested))
        return _truncated(answer, max_tokens, f"the {whose} context window is full: {_window(window)}; the prompt "
                          f"took {prompt:,} of them, so the model generated only {generated:,} of the "
                          f"max_tokens={max_tokens} asked, {before}", steps)
    if generated >= max_tokens:
        return _truncated(answer, max_tokens, f"the model stopped at max_tokens={max_tokens} {before}: it generated "
                          f"{generated:,} tokens after a prompt of {prompt:,}", BUDGET_STEPS)
    if window is not None and not window.trained:
        return _truncated(answer, max_tokens, f"the server stopped the answer after {generated:,} tokens, below the "
                          f"max_tokens={max_tokens} asked and its context window ({_window(window)}; prompt "
                          f"{prompt:,} + answer {generated:,} = {used:,}), {before}: a limit of the server's own cut "
                          "it, such as a cap on generated tokens",
                          ["raise the server's cap on generated tokens (llama-server -n N, Ollama num_predict N)",
                           CHECK])
    trained = (f"; the model was trained for {window.tokens:,} tokens ({window.source}), the server may run with "
               "less" if window is not None else "")
    return _truncated(answer, max_tokens, f"the server stopped the answer after {generated:,} tokens, below the "
                      f"max_tokens={max_tokens} asked, {before}: a limit other than the token budget was hit, most "
                      f"likely the server's context window (the prompt took {prompt:,} tokens; prompt + answer = "
                      f"{used:,}){trained}",
                      [*context_steps(suggested)[:2], "if the server caps generated tokens (llama-server -n, Ollama "
                       "num_predict), raise that cap", CHECK])


def _truncated(answer: Completion, max_tokens: int, message: str, steps: list[str]) -> LLMTruncated:
    return LLMTruncated(message, raw=answer.text, max_tokens=max_tokens, next_steps=steps)


def _window(window: ContextWindow) -> str:
    return f"{window.tokens:,} tokens ({window.source})"


def _suggested(used: int) -> int:
    """A context size to suggest: the next power of two at least twice what was used, and at least 4,096."""
    size = 4096
    while size < 2 * used:
        size *= 2
    return size


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 16:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain
