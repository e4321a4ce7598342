"""The bolt's runs of `aidlc bolt` in its evidence report, as the ledger records them: the latest run (its branch,
model and end) and what the runs spent. A run's state.json is its own record, which code a check ran can rewrite:
where it says otherwise than the ledger, the ledger's is shown and a note says so."""

from __future__ import annotations

import re

from aidlc.gates.facts import Facts, one_line
from aidlc.model import evidence as ev
from aidlc.model.events import Event, EventType, Spent, most_spent
from aidlc.model.run import RunState

REPAIR = re.compile(r"(rework-\d+\.)?repair-\d+")  # a repair step's stage, in any rework round


def run_record(facts: Facts) -> ev.RunRecord | None:
    """The latest run as its run.started, first plan.proposed and run.finished events record it."""
    run = facts.run
    if run is None:
        return None
    own = [e for e in facts.events if e.run == run.run_id]
    started = _first(own, EventType.run_started)
    # Its first plan is proposed before any code of the model's ran, by the model the run recorded then.
    planned = next((e for e in own if e.type == EventType.plan_proposed and e.datum("model")), None)
    finished = _first(own, EventType.run_finished)
    model = str(planned.datum("model")) if planned is not None else None
    if model is not None and run.model != model:
        facts.notes.append(f"run {run.run_id}'s state.json names model {one_line(run.model)!r}, its plan.proposed "
                           f"event recorded {one_line(model)!r} (edited outside aidlc): the ledger's is shown")
    status = str(finished.datum("status")) if finished is not None else None
    outcome = str(finished.datum("outcome") or status).lower() if finished is not None else None
    _note_end(facts, run, status, outcome if finished is not None and finished.datum("outcome") else None)
    return ev.RunRecord(id=run.run_id, branch=str(started.datum("branch")) if started is not None else None,
                        model=model, status=status, outcome=outcome)


def _first(events: list[Event], kind: EventType) -> Event | None:
    return next((e for e in events if e.type == kind), None)


def _note_end(facts: Facts, run: RunState, status: str | None, outcome: str | None) -> None:
    """A note where state.json tells the run's end otherwise than its run.finished event (`status`, `outcome`)."""
    said = f"run {run.run_id}'s state.json says it ended {run.status.value}, but"
    if run.terminal and status is None:
        facts.notes.append(f"{said} the ledger records no end of it (edited outside aidlc): no outcome is shown")
    elif run.terminal and status != run.status.value:
        facts.notes.append(f"{said} its run.finished event recorded {status} (edited outside aidlc): the ledger's is "
                           "shown")
    elif not run.terminal and status is not None:
        facts.notes.append(f"run {run.run_id}'s state.json says it is at {run.status.value}, but its run.finished "
                           f"event recorded its end ({status}): the ledger's is shown")
    elif outcome is not None and run.outcome != outcome:
        facts.notes.append(f"run {run.run_id}'s state.json gives its outcome as {one_line(run.outcome or '')!r}, its "
                           f"run.finished event as {one_line(outcome)!r} (edited outside aidlc): the ledger's is shown")


def cost(facts: Facts) -> ev.Cost | None:
    """What the runs spent: their own record of calls and tokens, never fewer than their ledger events recorded (a
    state.json counting fewer is noted), and the repair steps their edits.committed events record."""
    if not facts.runs:
        return None
    calls = tokens = 0
    for run in facts.runs:
        most = most_spent(facts.events, run.run_id)
        spent = most[0] if most is not None else Spent(steps=0, tokens=0)
        if run.budget.steps < spent.steps or run.budget.tokens < spent.tokens:
            facts.notes.append(f"run {run.run_id}'s state.json counts {run.budget.steps} model call(s) and "
                               f"{run.budget.tokens} token(s), fewer than its ledger events recorded ({spent.steps} "
                               f"and {spent.tokens}; edited outside aidlc): those are counted")
        calls += max(run.budget.steps, spent.steps)
        tokens += max(run.budget.tokens, spent.tokens)
    ids = {run.run_id for run in facts.runs}
    repairs = sum(1 for e in facts.events if e.type == EventType.edits_committed and e.run in ids
                  and REPAIR.fullmatch(str(e.datum("stage"))))
    return ev.Cost(runs=[r.run_id for r in facts.runs], model_calls=calls, tokens=tokens, repairs=repairs,
                   wall_time_s=round(sum(r.budget.elapsed_s for r in facts.runs), 1))
