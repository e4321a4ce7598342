"""HTTP failures of any SDK, translated to the typed errors of aidlc.llm.errors.

Both SDKs (openai, anthropic) raise the same shapes: a timeout, a connection error, or a
status error carrying status code, headers and body. One table decides what is retried.
A connection error is told apart by its cause (aidlc.llm.diagnosis): never connected, or dropped
while the server answered; a refused over-long prompt is told apart by the server's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aidlc.llm.base import Message
from aidlc.llm.bounds import Deadline, read_answer
from aidlc.llm.diagnosis import connection_failure, context_refusal
from aidlc.llm.errors import (
    LLMError,
    LLMFormatRejected,
    LLMRateLimited,
    LLMRejected,
    LLMUnavailable,
)
from aidlc.llm.retry import parse_retry_after

# A server that cannot do the requested JSON mode says so in words like these (llama.cpp answers 500).
FORMAT_WORDS = re.compile(r"response_format|output_config|json_schema|json_object|schema|grammar", re.IGNORECASE)


def status_error(status: int, body: str, headers: dict[str, str], *, where: str, model: str,
                 asked_format: bool) -> LLMError:
    detail = f"{where} answered HTTP {status}: {body[:300]}"
    if status == 429:
        return LLMRateLimited(detail, parse_retry_after(headers))
    if status >= 400 and (refusal := context_refusal(status, body, where=where)) is not None:
        return refusal
    if asked_format and status in (400, 422, 500, 501) and FORMAT_WORDS.search(body):
        return LLMFormatRejected(detail, status)
    if status in (408, 409) or status >= 500:
        return LLMUnavailable(detail, status)
    if status in (401, 403):
        return LLMRejected(detail, status, ["check the API key (llm.api_key_env in aidlc.yaml names its variable)",
                                            "aidlc llm check"])
    if status == 404:
        return LLMRejected(detail, status, [f"check the model name ({model}) and llm.base_url",
                                            "aidlc llm check --model NAME --base-url URL"])
    return LLMRejected(detail, status)


def body_text(exc: Any) -> str:
    """The server's own words: error.message from a JSON body, else the raw body."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        return str(error)
    if body is not None:
        return str(body)
    try:
        return str(exc.response.text)
    except Exception:  # a body that cannot be read says nothing more
        return str(exc)


def cause_text(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return str(inner or exc) or type(inner or exc).__name__


@contextmanager
def sdk_errors(sdk: Any, *, where: str, model: str, deadline: Deadline, asked_format: bool, answer: str,
               messages: list[Message] | None = None, response_format: dict[str, Any] | None = None,
               tools: list[dict[str, Any]] | None = None) -> Iterator[None]:
    """Translate one SDK call's failures (openai and anthropic raise the same classes) to our errors.
    `messages`, `response_format` and `tools` are what was asked, as the caller got them: a server that
    stops while answering is reported with that request's digest and size."""
    try:
        yield
    except sdk.APITimeoutError:
        raise deadline.expired(where) from None
    except sdk.APIConnectionError as exc:
        raise connection_failure(exc, cause_text(exc), where=where, messages=messages,
                                 response_format=response_format, tools=tools) from None
    except sdk.APIStatusError as exc:
        raise status_error(exc.status_code, body_text(exc), dict(exc.response.headers), where=where, model=model,
                           asked_format=asked_format) from None
    except (ValueError, sdk.APIResponseValidationError) as exc:
        # A proxy's HTML error page or a half-written body: worth another try, like a 5xx.
        raise LLMUnavailable(f"{where} answered something that is not {answer} "
                             f"({type(exc).__name__}: {str(exc)[:120]})") from None


def read_body(sdk: Any, response: Any, *, limit: int, deadline: Deadline, where: str) -> bytes:
    """The body of a response the SDK streams (`with_streaming_response`), read within the bounds of
    aidlc.llm.bounds. The SDKs translate the HTTP library's failures only until the headers arrive; one while the
    body is read becomes the SDK's connection error here, as it would be there (sdk_errors then says what it was),
    and a read that failed once the deadline had passed is the deadline."""
    try:
        return read_answer(response.iter_bytes(), limit=limit, deadline=deadline, where=where)
    except LLMError:
        raise
    except Exception as exc:
        if deadline.left() <= 0:
            raise deadline.expired(where) from None
        raise sdk.APIConnectionError(request=response.http_response.request) from exc
