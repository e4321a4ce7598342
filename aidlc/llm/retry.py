"""Our own retry loop: exponential backoff with jitter, honouring Retry-After, bounded attempts.

The SDKs' internal retries are switched off (max_retries=0) so that one loop, with an
injectable clock, decides: tests assert the waits without sleeping, and the fallback chain
knows exactly when a target is exhausted (the last LLMTransient is re-raised).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from aidlc.llm.errors import LLMRateLimited, LLMServerStopped, LLMTimeout, LLMTransient, LLMUnreachable

T = TypeVar("T")


@dataclass
class RetryPolicy:
    attempts: int = 4  # calls in all, the first included
    base_s: float = 0.5  # first backoff; doubles each time
    cap_s: float = 30.0  # no single backoff is longer (Retry-After may ask for more, up to max_retry_after_s)
    max_retry_after_s: float = 120.0  # a server asking for a longer pause fails now rather than hanging a run
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def backoff(self, retry: int) -> float:
        """Equal jitter: half the exponential step fixed, half random, so clients that failed together spread out."""
        step = min(self.cap_s, self.base_s * (2 ** retry))
        return step / 2 + self.rng.uniform(0, step / 2)


def with_retries(call: Callable[[], T], policy: RetryPolicy,
                 on_retry: Callable[[LLMTransient, float], None] | None = None, *, ends: float | None = None) -> T:
    """Run `call`; on an LLMTransient wait and try again, at most `policy.attempts` calls in all, and none that
    would begin past `ends` (time.monotonic: the time allowed for the whole call).

    A server that stopped while answering (LLMServerStopped) and then refused every retry is reported as
    having stopped, not as unreachable: the first failure is the diagnosis, the refusals confirm it.
    A server that did not answer in the time allowed (LLMTimeout) is reported then, not retried: another wait
    as long would only report it minutes later."""
    stopped: LLMServerStopped | None = None
    refused = 0
    for retry in range(policy.attempts):
        try:
            return call()
        except LLMTransient as exc:
            if isinstance(exc, LLMTimeout):
                raise
            if isinstance(exc, LLMServerStopped):
                stopped, refused = exc, 0
            elif isinstance(exc, LLMUnreachable) and stopped is not None:
                refused += 1
            else:
                stopped = None
            if retry + 1 >= policy.attempts:
                if stopped is not None and refused:
                    raise stopped.refused_since(refused) from None
                raise
            wait = policy.backoff(retry)
            if isinstance(exc, LLMRateLimited) and exc.retry_after_s is not None:
                if exc.retry_after_s > policy.max_retry_after_s:
                    raise
                wait = max(wait, exc.retry_after_s)  # never sooner than the server asked
            if ends is not None and time.monotonic() + wait >= ends:
                raise  # no time is left for another attempt
            if on_retry is not None:
                on_retry(exc, wait)
            policy.sleep(wait)
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def parse_retry_after(headers: dict[str, str] | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from `retry-after-ms`, `retry-after` (seconds or an HTTP date); None when absent."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    if "retry-after-ms" in lowered:
        try:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now())
    except (TypeError, ValueError):
        return None
