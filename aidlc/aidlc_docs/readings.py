"""What a reading makes of each text read last, kept so that a text asked about many times is read once.

The rules ask one heading or Context about its stages and its unit many times over: a hostile heading of a
megabyte, full of stage labels, was read a hundred times (seconds an entry). The store is bounded by the characters
of the texts it keeps, not by their count, where `aidlc ci` reads each version of a growing pasted log. Locked:
`aidlc mcp` reads records in worker threads, and one thread's eviction must not fall between another's finding a
text and marking it read."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
_UNREAD = object()  # a reading may be None (a text that names no unit)


class Readings(Generic[T]):
    """`read` of the texts read last, at most `budget` characters of them; a longer text is read and not kept."""

    def __init__(self, read: Callable[[str], T], budget: int) -> None:
        self.read, self.budget, self.held = read, budget, 0
        self.readings: OrderedDict[str, T] = OrderedDict()
        self.lock = threading.Lock()

    def __call__(self, text: str) -> T:
        with self.lock:
            kept = self.readings.get(text, _UNREAD)
            if kept is not _UNREAD:
                self.readings.move_to_end(text)
                return kept  # type: ignore[return-value]  # not _UNREAD, so a T
        reading = self.read(text)  # outside the lock: a long text is read while other threads go on
        if len(text) <= self.budget:
            with self.lock:
                if text not in self.readings:  # another thread may have read it meanwhile
                    self.readings[text] = reading
                    self.held += len(text)
                    while self.held > self.budget:
                        self.held -= len(self.readings.popitem(last=False)[0])
        return reading
