"""Pausing the garbage collector while a bank is loaded, and handing it back without a collection."""

from __future__ import annotations

import gc

from aidlc.perf import gc_paused


def test_the_collector_comes_back_with_no_backlog_to_walk() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        kept = [[n] for n in range(50_000)]  # tracked objects made while paused
    assert gc.isenabled()
    assert gc.get_count()[0] < 700  # the young generation was handed over, not left to be walked
    assert gc.get_freeze_count() == 0  # nothing stays frozen
    assert len(kept) == 50_000


def test_objects_the_host_program_froze_stay_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            _made = [[n] for n in range(1_000)]
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()


def test_a_nested_pause_leaves_the_collector_off_until_the_outer_one_ends() -> None:
    with gc_paused():
        with gc_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
