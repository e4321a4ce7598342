"""Typed LLM failures. Every one is an AidlcError: the CLI prints it with next steps, never a traceback.

    LLMError
     +- LLMConfigError       provider/model/key cannot be used as configured (exit 2)
     +- LLMTransient         worth retrying, then worth a fallback target
     |   +- LLMTimeout
     |   +- LLMRateLimited   (retry_after_s as the server asked)
     |   +- LLMUnavailable   connection refused/reset, 5xx
     +- LLMRejected          the server refused this request (4xx): retrying the same request cannot help
     |   +- LLMFormatRejected  ... because of its response_format (structured output steps down a mode)
     +- LLMTruncated         finish_reason == "length": the answer hit max_tokens
     +- LLMBadOutput         the answer never matched the schema; `raw` keeps it for the trace
     +- LLMBudgetExceeded    the prompt does not fit the per-call token budget
     +- ReplayMiss           a replayed request has no recording; names the digest and the cassette
"""

from __future__ import annotations

from aidlc.errors import AidlcError, UsageError

CHECK = "aidlc llm check    # see what the configured provider answers"
UNREACHABLE = ["start the server, or point llm.base_url in aidlc.yaml (or --base-url) at one that runs",
               "aidlc llm check --base-url http://localhost:11434/v1    # e.g. a local Ollama"]


class LLMError(AidlcError):
    """Any failure of the LLM layer."""

    def __init__(self, message: str, next_steps: list[str] | None = None) -> None:
        super().__init__(message, next_steps if next_steps is not None else [CHECK])


class LLMConfigError(LLMError, UsageError):
    """The configuration cannot work (unknown provider, missing API key, missing extra)."""


class LLMTransient(LLMError):
    """A failure that may pass: retried with backoff, then the fallback chain moves on."""


class LLMTimeout(LLMTransient):
    pass


class LLMRateLimited(LLMTransient):
    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class LLMUnavailable(LLMTransient):
    def __init__(self, message: str, status: int | None = None, next_steps: list[str] | None = None) -> None:
        super().__init__(message, next_steps)
        self.status = status


class LLMRejected(LLMError):
    """A 4xx (other than 408/409/429): the same request would be refused again."""

    def __init__(self, message: str, status: int | None = None, next_steps: list[str] | None = None) -> None:
        super().__init__(message, next_steps)
        self.status = status


class LLMFormatRejected(LLMRejected):
    """The server does not accept the requested response_format (llama.cpp answers 500 to json_schema)."""


class LLMTruncated(LLMError):
    """The model stopped at max_tokens; `raw` is the partial answer."""

    def __init__(self, message: str, raw: str = "", max_tokens: int | None = None) -> None:
        super().__init__(message, [CHECK, "raise the token budget or use a larger model (--model)"])
        self.raw = raw
        self.max_tokens = max_tokens


class LLMBadOutput(LLMError):
    """The answer could not be parsed or validated after the allowed attempts; `raw` is the last answer."""

    def __init__(self, message: str, raw: str = "", errors: list[str] | None = None) -> None:
        super().__init__(message, [CHECK, "try a larger model (--model) or the fallback chain in aidlc.yaml"])
        self.raw = raw
        self.errors = errors or []


class LLMBudgetExceeded(LLMError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ["give the call fewer context pieces or a larger budget"])


class ReplayMiss(LLMError):
    """Replay never invents an answer: a request that was not recorded is this error."""

    def __init__(self, digest: str, cassette: str) -> None:
        super().__init__(
            f"no recorded answer for request {digest} in cassette {cassette}",
            [f"record it: AIDLC_LLM_RECORD={cassette} with a live provider, then replay again",
             f"a changed prompt, schema or context changes the digest: delete {cassette} and record it again"],
        )
        self.digest = digest
        self.cassette = cassette
