"""The readings kept of the texts read last (aidlc/aidlc_docs/readings.py): bounded by characters, whole under
threads, and a text asked about again is not read again, whatever its reading (a text naming no unit reads None)."""

from __future__ import annotations

import sys
import threading

import pytest

from aidlc.aidlc_docs import stages, units
from aidlc.aidlc_docs.readings import Readings


def test_the_readings_kept_hold_at_most_their_budget_of_characters() -> None:
    """A history of a growing pasted log must not keep each version's fields alive: texts over the budget are read
    and not kept, the oldest go first, and a text read again is read as it was."""
    readings = Readings(stages._read_afresh, budget=130)  # two of the texts below
    texts = [f"Unit {n}: Functional Design / NFR Design, then Code Generation" for n in range(10)]
    for text in texts:
        assert readings(text) == stages._read_afresh(text)
        assert readings.held == sum(map(len, readings.readings)) <= 130
    assert list(readings.readings) == texts[-2:]
    hostile = "Functional Design plan " * 10  # 230 characters
    assert readings(hostile).named == ("functional-design",) and hostile not in readings.readings
    assert readings(texts[-1]) is readings(texts[-1])


def test_the_readings_kept_stay_whole_when_threads_read_at_once() -> None:
    """`aidlc mcp` reads records in worker threads: one thread evicting a text while another marks it read lost
    the count of what was held, and `dictionary is empty` ended the call. Threads switched every microsecond here."""
    readings = Readings(stages._read_afresh, budget=130)  # two of the texts below
    texts = [f"Unit {n}: Functional Design / NFR Design, then Code Generation" for n in range(5)]
    errors: list[BaseException] = []

    def read_on(step: int) -> None:
        try:
            for n in range(5_000):
                readings(texts[n * step % len(texts)])
        except BaseException as error:  # any failure of a thread fails the test
            errors.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=read_on, args=(step,)) for step in (1, 2, 3, 4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == [] and readings.held == sum(map(len, readings.readings)) <= 130


def test_a_reading_of_none_is_kept_as_any_other() -> None:
    read: list[str] = []
    readings = Readings(lambda text: read.append(text), budget=100)
    assert readings("no unit here") is None and readings("no unit here") is None
    assert read == ["no unit here"]


def test_a_long_heading_is_searched_for_its_unit_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules ask one heading for its unit a hundred times: a hostile heading of two megabytes naming none was
    searched each time (1.3 s of a validate's 5)."""
    hostile = "Functional Design plan " * 80_000
    searched = units._units_read.read
    counted: list[int] = []
    monkeypatch.setattr(units._units_read, "read", lambda text: counted.append(len(text)) or searched(text))
    assert [units.unit_of(hostile) for _ in range(100)] == [None] * 100
    assert counted == [len(hostile)]
