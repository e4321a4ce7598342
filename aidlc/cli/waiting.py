"""A model call that takes a while says so, on a terminal: how long it has been waiting, each second.

Nothing is shown when stderr is not a terminal (a log, CI, a pipe) or with -q: the output stays what it was.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

from aidlc.cli.app import App
from aidlc.llm.base import Completion, Message, Provider

SHOWN_AFTER_S = 3.0  # a quicker answer shows nothing


def shows_waiting(app: App, provider: Provider) -> Provider:
    """`provider`, showing on stderr how long each call waits when that is a terminal a person watches."""
    if app.verbosity < 0 or not sys.stderr.isatty():
        return provider
    return ShowsWaiting(provider, sys.stderr)


class ShowsWaiting:
    """Each call past SHOWN_AFTER_S writes `waiting for KEY: 7s` over itself every second; the line is
    wiped when the call ends, however it ends."""

    def __init__(self, inner: Provider, stream: TextIO) -> None:
        self._inner = inner
        self._stream = stream

    @property
    def key(self) -> str:
        return self._inner.key

    def complete(self, messages: list[Message], **options: Any) -> Completion:
        done = threading.Event()
        shown = [0]  # the length of the line on screen

        def tick() -> None:
            started = time.monotonic()
            while not done.wait(SHOWN_AFTER_S if not shown[0] else 1.0):
                line = f"waiting for {self._inner.key}: {time.monotonic() - started:.0f}s"
                self._stream.write(f"\r{line}")
                self._stream.flush()
                shown[0] = len(line)

        ticker = threading.Thread(target=tick, name="aidlc-waiting", daemon=True)
        ticker.start()
        try:
            return self._inner.complete(messages, **options)
        finally:
            done.set()
            ticker.join()
            if shown[0]:
                self._stream.write("\r" + " " * shown[0] + "\r")
                self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
