"""What a model server can make a call do, bounded: how long it takes, how large its answer is, and what it
may claim the answer cost.

Time. httpx, and so both SDKs, times each read, not the call: a server that sends one byte every few seconds
never trips a read timeout and holds the call as long as it likes, headers included. So each attempt runs in a
worker thread and the caller waits for it until the attempt's `Deadline` (time.monotonic), no longer: past it
the call is an LLMTimeout naming the deadline. An attempt's deadline is the provider's timeout, or what is left
of the caller's time for the whole call (`timeout_s`, e.g. a run's deadline) when that is sooner; retries never
wait past it. The worker reads the answer in chunks (the SDK's streaming-response API) and stops at the first
chunk after the deadline, or at its read timeout (the deadline too) when nothing comes.

Size. The answer is read chunk by chunk and refused (LLMAnswerTooLarge) as soon as it passes
`llm.max_answer_bytes`: a 40 MB answer is never held whole.

Usage. The server's token counts are what policy.max_tokens counts, so they are checked (`counted`): a count
that is not a whole number of at least 0, or an answer's count below what its bytes can hold, is replaced by the
estimate from the text's size, and `Usage.corrected` says why.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from aidlc.llm.base import Message, Usage
from aidlc.llm.context import CHARS_PER_TOKEN, estimate_tokens
from aidlc.llm.errors import LLMAnswerTooLarge, LLMTimeout

T = TypeVar("T")

# No tokenizer packs more than this into one token on average over an answer (English is about 4 bytes a token,
# code about 3, and only runs of spaces or dashes make single tokens this long): an answer's count below its
# bytes / 16 cannot be true.
MAX_BYTES_PER_TOKEN = 16


def ends_after(seconds: float | None) -> float | None:
    """The moment (time.monotonic) `seconds` from now; None for no limit."""
    return None if seconds is None else time.monotonic() + seconds


def left(ends: float | None) -> float | None:
    """Seconds left until `ends` (0 once it has passed); None for no limit."""
    return None if ends is None else max(0.0, ends - time.monotonic())


@dataclass(frozen=True)
class Deadline:
    """When one attempt must be over, connect to last byte, and what set it (for the error)."""

    at: float  # time.monotonic()
    seconds: float  # what the attempt had when it began
    why: str

    def left(self) -> float:
        return self.at - time.monotonic()

    def expired(self, where: str) -> LLMTimeout:
        return LLMTimeout(f"{where} did not answer within {self.seconds:g}s ({self.why}; the whole answer is "
                          "bounded, from connecting to its last byte)")


def attempt_deadline(timeout_s: float, ends: float | None) -> Deadline:
    """The provider's timeout from now, or the caller's `ends` for the whole call when that comes first."""
    now = time.monotonic()
    if ends is not None and ends - now < timeout_s:
        return Deadline(ends, round(max(0.0, ends - now), 3), "what was left of the time allowed for the whole call")
    return Deadline(now + timeout_s, timeout_s, "the call's timeout")


def within(deadline: Deadline, attempt: Callable[[], T], where: str) -> T:
    """`attempt()` run in a worker thread and waited for until `deadline`: its result, its error, or LLMTimeout.
    A worker left behind reads no further than its next chunk (`read_answer`) and its answer is dropped."""
    if deadline.left() <= 0:
        raise deadline.expired(where)
    results: list[T] = []
    errors: list[BaseException] = []
    finished = threading.Event()

    def work() -> None:
        try:
            results.append(attempt())
        except BaseException as exc:  # handed to the caller as it is
            errors.append(exc)
        finally:
            finished.set()

    threading.Thread(target=work, name="aidlc-model-call", daemon=True).start()
    if not finished.wait(max(0.0, deadline.left())):
        raise deadline.expired(where)
    if errors:
        raise errors[0]
    return results[0]


def read_answer(chunks: Iterable[bytes], *, limit: int, deadline: Deadline, where: str) -> bytes:
    """The answer's body, read chunk by chunk: LLMAnswerTooLarge once it passes `limit` bytes, LLMTimeout once the
    deadline has passed (the caller has stopped waiting: nothing more is read)."""
    body = bytearray()
    for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise LLMAnswerTooLarge(f"{where} sent an answer larger than {limit:,} bytes (llm.max_answer_bytes): "
                                    "it was refused while it was read, and nothing of it is used")
        if deadline.left() <= 0:
            raise deadline.expired(where)
    return bytes(body)


def counted(prompt: object, completion: object, *, messages: list[Message], answer: str) -> Usage:
    """The server's counts when they can be true, else the estimate from the text's size and why (see the module
    docstring). No counts at all are estimated too, without blame. `answer` is all the model wrote (text and tool
    calls). The prompt's count is only checked for sense: the prompt is ours, fitted to a budget before sending."""
    answer_bytes = len(answer.encode())
    prompt_estimate = sum(estimate_tokens(m.content) for m in messages)
    answer_estimate = math.ceil(answer_bytes / CHARS_PER_TOKEN)
    if prompt is None and completion is None:
        return Usage(prompt_estimate, answer_estimate, estimated=True)
    reasons = []
    if not _is_count(prompt):
        reasons.append(f"prompt_tokens {prompt!r} is not a count")
        prompt = prompt_estimate
    if not _is_count(completion):
        reasons.append(f"completion_tokens {completion!r} is not a count")
        completion = answer_estimate
    elif completion * MAX_BYTES_PER_TOKEN < answer_bytes:  # type: ignore[operator]  # _is_count narrowed it to an int
        reasons.append(f"completion_tokens {completion} is fewer than an answer of {answer_bytes:,} bytes holds "
                       f"(at most {MAX_BYTES_PER_TOKEN} bytes a token)")
        completion = answer_estimate
    if not reasons:
        return Usage(prompt, completion)  # type: ignore[arg-type]  # both are counts here
    return Usage(prompt, completion, estimated=True,  # type: ignore[arg-type]  # both are counts here
                 corrected="; ".join(reasons) + ": estimated from the text's size instead")


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
