"""What the providers that reach a model through a vendor's SDK have in common."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from aidlc.llm.base import DEFAULT_TIMEOUT_S, target_key
from aidlc.llm.retry import RetryPolicy


class RemoteProvider:
    """One model at one server: its identity, timeout and retries, and an SDK client made on first use.
    `api_key` is the key itself (the factory reads it from the environment)."""

    name = ""

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, retry: RetryPolicy | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self._api_key = api_key
        self._clock = clock
        self._client: Any = None

    @property
    def key(self) -> str:
        return target_key(self.name, self.model, self.base_url)
