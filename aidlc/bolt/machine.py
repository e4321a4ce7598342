"""The state machine of a bolt run (docs/design.md, The bolt). Only the transitions listed here exist: the model
fills states, the code moves between them, and every move is saved and traced before anything else happens."""

from __future__ import annotations

from aidlc.bolt.store import RunStore
from aidlc.errors import AidlcError
from aidlc.events.ledger import utc_now
from aidlc.model.run import RunState, RunStatus, Span
from aidlc.names import arg

S = RunStatus
_ENDS = {S.failed, S.cancelled}
ALLOWED: dict[RunStatus, frozenset[RunStatus]] = {
    S.init: frozenset({S.planning, *_ENDS}),
    S.planning: frozenset({S.await_plan_approval, S.walkthrough, *_ENDS}),
    S.await_plan_approval: frozenset({S.executing, S.planning, *_ENDS}),
    S.executing: frozenset({S.verifying, S.walkthrough, *_ENDS}),
    S.verifying: frozenset({S.repairing, S.walkthrough, *_ENDS}),
    S.repairing: frozenset({S.verifying, S.walkthrough, *_ENDS}),
    S.walkthrough: frozenset({S.await_acceptance, *_ENDS}),
    S.await_acceptance: frozenset({S.completed, S.planning, *_ENDS}),  # planning: a rejected walkthrough
    S.completed: frozenset(),
    S.failed: frozenset(),
    S.cancelled: frozenset(),
}


class IllegalTransition(AidlcError):
    """A bug or a tampered state file: the machine never moves where its table does not allow."""


def transition(state: RunState, to: RunStatus, store: RunStore, why: str, unrecorded_end: bool = False) -> None:
    """Move `state` to `to`, save it atomically, trace why. `unrecorded_end`: state.json says the run ended, and the
    ledger records no end of it (edited outside aidlc): an abort still ends the run, to CANCELLED."""
    if to not in ALLOWED[state.status] | ({S.cancelled} if unrecorded_end else set()):
        raise IllegalTransition(f"run {state.run_id}: no transition {state.status.value} -> {to.value}",
                                ["aidlc bolt status    # where the run stands", f"aidlc bolt abort {arg(state.bolt)}"])
    before = state.status
    state.status = to
    store.save(state)
    store.trace(Span(ts=utc_now(), kind="state_transition", name=f"{before.value} -> {to.value}",
                     status=to.value, data={"why": why}))
