"""What the providers that reach a model through a vendor's SDK have in common."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from aidlc.llm.base import DEFAULT_TIMEOUT_S, target_key
from aidlc.llm.retry import RetryPolicy

NO_KEY = "no-key"  # the SDKs insist on a key at construction; its header is then left out of every request


class RemoteProvider:
    """One model at one server: its identity, timeout and retries, and an SDK client made on first use.
    `api_key` is the key itself (the factory reads it from the environment), or None to send no key at all:
    no Authorization (nor X-Api-Key) header, not even one the SDK would take from the environment."""

    name = ""
    auth_headers: tuple[str, ...] = ()  # the headers that carry a key, left out when there is none

    def __init__(self, model: str, *, api_key: str | None, base_url: str | None = None,
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

    def _extra_headers(self, omit: object) -> dict[str, object] | None:
        """Per-request headers: without a key, the SDK's `omit` marker for each header that would carry one."""
        return None if self._api_key is not None else {name: omit for name in self.auth_headers}
