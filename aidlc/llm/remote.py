"""What the providers that reach a model through a vendor's SDK have in common: identity, retries, and the
bounds every attempt is read within (aidlc.llm.bounds)."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

from aidlc.llm.base import DEFAULT_TIMEOUT_S, Completion, target_key
from aidlc.llm.bounds import Deadline, attempt_deadline, ends_after, within
from aidlc.llm.errors import LLMConfigError
from aidlc.llm.retry import RetryPolicy, with_retries
from aidlc.model.config import DEFAULT_MAX_ANSWER_BYTES


def require_sdk(package: str) -> Any:
    """The vendor SDK of the provider of that name (`openai`, `anthropic`: each an optional extra of aidlc), or an
    LLMConfigError saying which extra installs it."""
    try:
        return importlib.import_module(package)
    except ImportError:
        raise LLMConfigError(f"the {package} provider needs the {package} package, which is not installed",
                             [install_hint(package), "or answer from a cassette: --replay FILE (no SDK needed)"]
                             ) from None


def install_hint(package: str) -> str:
    return f"pip install 'aidlc[{package}]'    # or 'aidlc[llm]': every provider"


NO_KEY = "no-key"  # the SDKs insist on a key at construction; its header is then left out of every request


class RemoteProvider:
    """One model at one server: its identity, timeout, answer size limit and retries, and an SDK client made on
    first use.
    `api_key` is the key itself (the factory reads it from the environment), or None to send no key at all:
    no Authorization (nor X-Api-Key) header, not even one the SDK would take from the environment."""

    name = ""
    auth_headers: tuple[str, ...] = ()  # the headers that carry a key, left out when there is none
    default_server = ""  # where the SDK goes without a base_url, as messages name it

    def __init__(self, model: str, *, api_key: str | None, base_url: str | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, retry: RetryPolicy | None = None,
                 max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES, clock: Callable[[], float] = time.monotonic) -> None:
        require_sdk(self.name)  # a provider whose SDK is not installed is a configuration error, named now
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.max_answer_bytes = max_answer_bytes
        self.retry = retry or RetryPolicy()
        self._api_key = api_key
        self._clock = clock
        self._client: Any = None

    @property
    def key(self) -> str:
        return target_key(self.name, self.model, self.base_url)

    def _attempts(self, attempt: Callable[[Deadline], Completion], timeout_s: float | None) -> Completion:
        """One call: `attempt` retried (self.retry), each attempt in a worker bounded by its deadline, the provider's
        timeout or what is left of `timeout_s` for the whole call, whichever comes first."""
        self._sdk_client()  # the SDK loaded and its client made before the clock starts: the time is the server's
        ends = ends_after(timeout_s)

        def bounded() -> Completion:
            deadline = attempt_deadline(self.timeout_s, ends)
            return within(deadline, lambda: attempt(deadline), self._where())

        return with_retries(bounded, self.retry, ends=ends)

    def _sdk_client(self) -> Any:
        """The vendor SDK's client, made on first use (each provider makes its own)."""
        raise NotImplementedError

    def _where(self) -> str:
        return f"{self.base_url or self.default_server} (model {self.model})"

    def _extra_headers(self, omit: object) -> dict[str, object] | None:
        """Per-request headers: without a key, the SDK's `omit` marker for each header that would carry one."""
        return None if self._api_key is not None else {name: omit for name in self.auth_headers}
