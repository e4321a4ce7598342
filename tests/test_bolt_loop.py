"""Loop control without a model: the budget and the loop detector decide from the run's state alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc.bolt.loop import LoopStop, after_call, before_call
from aidlc.bolt.machine import IllegalTransition, transition
from aidlc.bolt.store import RunStore
from aidlc.model.config import Policy
from aidlc.model.run import RunState, RunStatus


def fresh() -> RunState:
    return RunState(run_id="run-1", bolt="001-b", goal="g", created="t", updated="t", branch="aidlc/001-b",
                    base_commit="a" * 40, last_commit="a" * 40)


def test_the_same_request_three_times_is_a_loop() -> None:
    state = fresh()
    after_call(state, "req", "a1", None)
    after_call(state, "req", "a2", None)
    with pytest.raises(LoopStop, match="same request"):
        after_call(state, "req", "a3", None)


def test_answers_oscillating_a_b_a_b_are_a_loop() -> None:
    state = fresh()
    for request, answer in (("r1", "A"), ("r2", "B"), ("r3", "A")):
        after_call(state, request, answer, None)
    with pytest.raises(LoopStop, match="oscillate"):
        after_call(state, "r4", "B", None)


def test_three_errors_in_a_row_stop_and_a_success_resets_the_count() -> None:
    state = fresh()
    after_call(state, "r1", None, "bad")
    after_call(state, "r2", None, "bad")
    after_call(state, "r3", "ok", None)
    after_call(state, "r4", None, "bad")
    after_call(state, "r5", None, "bad")
    with pytest.raises(LoopStop, match="three errors"):
        after_call(state, "r6", None, "bad")


@pytest.mark.parametrize(("field", "limit"), [("steps", "max_steps"), ("tokens", "max_tokens")])
def test_the_budget_warns_once_at_70_percent_and_stops_at_100(field: str, limit: str) -> None:
    state, policy = fresh(), Policy(**{limit: 10})
    setattr(state.budget, field, 6)
    assert before_call(state, policy) is None
    setattr(state.budget, field, 7)
    assert "over 70%" in (before_call(state, policy) or "")
    assert before_call(state, policy) is None  # once
    setattr(state.budget, field, 10)
    with pytest.raises(LoopStop, match="budget spent"):
        before_call(state, policy)


def test_the_deadline_counts_seconds_of_work() -> None:
    state, policy = fresh(), Policy(deadline_s=100)
    state.budget.elapsed_s = 100.5
    with pytest.raises(LoopStop, match="deadline_s"):
        before_call(state, policy)


def test_the_machine_refuses_a_move_its_table_does_not_list(tmp_path: Path) -> None:
    store = RunStore(tmp_path, "run-1")
    state = fresh()
    state.status = RunStatus.executing
    store.save(state)
    saved = store.state_file.read_bytes()
    with pytest.raises(IllegalTransition, match="no transition EXECUTING -> COMPLETED"):
        transition(state, RunStatus.completed, store, "the model said it was done")
    assert store.state_file.read_bytes() == saved
