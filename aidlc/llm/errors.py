"""Typed LLM failures. Every one is an AidlcError: the CLI prints it with next steps, never a traceback.

    LLMError
     +- LLMConfigError       provider/model/key cannot be used as configured (exit 2)
     +- LLMTransient         worth retrying, then worth a fallback target
     |   +- LLMTimeout
     |   +- LLMRateLimited   (retry_after_s as the server asked)
     |   +- LLMUnavailable   5xx, an answer that is not one, a connection that failed
     |       +- LLMUnreachable    nothing accepted the connection (refused, unknown host): no server runs there
     |       +- LLMServerStopped  the connection died while the server answered (it may have crashed on it)
     +- LLMRejected          the server refused this request (4xx): retrying the same request cannot help
     |   +- LLMFormatRejected  ... because of its response_format (structured output steps down a mode)
     |   +- LLMContextExceeded ... because the prompt does not fit the server's context window
     +- LLMTruncated         finish_reason == "length": max_tokens, or the server's context window, was reached
 +- LLMAnswerTooLarge    the answer grew past llm.max_answer_bytes while it was read (it is not kept)
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


class LLMUnreachable(LLMUnavailable):
    """The connection was never made (refused, unknown host, TLS): the server is not running there."""


class LLMServerStopped(LLMUnavailable):
    """The connection was closed or reset while the server was answering our request. `request` describes
    it (digest, size); `refused_after` counts the attempts since that found nothing listening."""

    def __init__(self, where: str, how: str, request: str, next_steps: list[str], refused_after: int = 0) -> None:
        since = (f"; the {refused_after} attempt{'s' if refused_after > 1 else ''} since found nothing listening"
                 if refused_after else "")
        super().__init__(f"the server at {where} stopped while answering this request (it may have crashed on "
                         f"it): {how}{since}. The request: {request}", None, next_steps)
        self.where, self.how, self.request, self.refused_after = where, how, request, refused_after

    def refused_since(self, attempts: int) -> LLMServerStopped:
        """The same diagnosis, once later attempts were refused: the server is gone, not merely busy."""
        return LLMServerStopped(self.where, self.how, self.request, self.next_steps, attempts)


class LLMRejected(LLMError):
    """A 4xx (other than 408/409/429): the same request would be refused again."""

    def __init__(self, message: str, status: int | None = None, next_steps: list[str] | None = None) -> None:
        super().__init__(message, next_steps)
        self.status = status


class LLMFormatRejected(LLMRejected):
    """The server does not accept the requested response_format (llama.cpp answers 500 to json_schema)."""


CONTEXT_STEPS = ["raise the server's context size, e.g. to {size}: llama-server -c {size}, llama-cpp-python "
                 "--n_ctx {size}, Ollama num_ctx {size} (PARAMETER num_ctx in a Modelfile, or options.num_ctx)",
                 "or send less: aidlc draft --budget N (fewer tokens of the bank's context in the prompt)", CHECK]
BUDGET_STEPS = [CHECK, "raise the token budget (aidlc draft --max-tokens N) or use a larger model (--model)"]


def context_steps(size: int = 4096) -> list[str]:
    return [step.format(size=size) for step in CONTEXT_STEPS]


class LLMContextExceeded(LLMRejected):
    """The server refused the prompt: it does not fit its context window (llama.cpp, vLLM, OpenAI answer 400)."""

    def __init__(self, message: str, status: int | None = None, next_steps: list[str] | None = None) -> None:
        super().__init__(message, status, next_steps if next_steps is not None else context_steps())


class LLMTruncated(LLMError):
    """The answer was cut (finish_reason "length"); `raw` is the partial answer. What cut it, max_tokens or
    the server's context window, is in the message and the next steps (aidlc.llm.diagnosis)."""

    def __init__(self, message: str, raw: str = "", max_tokens: int | None = None,
                 next_steps: list[str] | None = None) -> None:
        super().__init__(message, next_steps if next_steps is not None else BUDGET_STEPS)
        self.raw = raw
        self.max_tokens = max_tokens


class LLMAnswerTooLarge(LLMError):
    """The server's answer passed the size limit while it was read: refused, and not retried (the same server
    would answer the same), nor handed to a fallback target (a server answering this is broken or hostile)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ["if answers this large are expected, raise llm.max_answer_bytes in aidlc.yaml",
                                   CHECK])


class LLMBadOutput(LLMError):
    """The answer could not be parsed or validated after the allowed attempts; `raw` is the last answer,
    `answers` every answer given (oldest first), `errors` what was wrong with each."""

    def __init__(self, message: str, raw: str = "", errors: list[str] | None = None,
                 answers: list[str] | None = None) -> None:
        super().__init__(message, [CHECK, "try a larger model (--model) or the fallback chain in aidlc.yaml"])
        self.raw = raw
        self.errors = errors or []
        self.answers = answers if answers is not None else [raw]


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
