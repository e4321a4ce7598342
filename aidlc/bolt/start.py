"""The ways into a run: start one, resume it (after a pause, a crash or a person's decision), abort it. Each
holds the bolt's lock, checks what must hold (aidlc.bolt.guards), and hands the run to the loop (aidlc.bolt.run)."""

from __future__ import annotations

from collections.abc import Callable

from aidlc import vcs
from aidlc.bank.items import BoltItem
from aidlc.bolt.guards import check_not_ended, check_unchanged, end_leftover_check, preflight
from aidlc.bolt.machine import transition
from aidlc.bolt.run import drive
from aidlc.bolt.session import Ask, Outcome, RunSession, S
from aidlc.bolt.standing import decide
from aidlc.bolt.store import Progress, RunStore, bolt_lock, new_run_id, unrecorded_end
from aidlc.errors import UsageError
from aidlc.events.ledger import utc_now
from aidlc.gates.effects import reconcile
from aidlc.llm.base import Provider
from aidlc.model.events import Decision, EventType
from aidlc.model.run import RunState
from aidlc.names import arg
from aidlc.workspace import Workspace


def start(workspace: Workspace, bolt_ref: str, provider: Callable[[], Provider], model: str = "",
          ask: Ask | None = None, progress: Progress | None = None) -> Outcome:
    # The lock first, the checks under it: two starts that both found no unfinished run would make two runs.
    with bolt_lock(workspace.root, workspace.bolt(bolt_ref).id):
        found = preflight(workspace, bolt_ref)
        # The run asks the model first: a provider that cannot be built (no key, bad settings) is refused here,
        # before the run, its branch or its ledger line exist, as `aidlc draft` refuses it.
        model_provider = provider()
        repo, bolt, branch, head = workspace.root, found.bolt, found.branch, found.base
        now = utc_now()
        run_id = new_run_id()
        state = RunState(run_id=run_id, bolt=bolt.id, goal=_goal(bolt), created=now, updated=now, branch=branch,
                         start_branch=found.start_branch, base_commit=head, last_commit=head, model=model)
        store = RunStore(repo, run_id, progress)
        store.save(state)
        run = RunSession(workspace, store, state, lambda: model_provider, ask)
        run.event(EventType.run_started, "started", data={"branch": branch, "base": head})
        vcs.create_branch(repo, branch, head)
        transition(state, S.planning, store, "the run started on a clean tree")
        return drive(run)


def resume(workspace: Workspace, run: RunStore, provider: Callable[[], Provider], decision: Decision | None = None,
           reason: str | None = None, ask: Ask | None = None) -> Outcome:
    with bolt_lock(run.repo, run.load().bolt):
        return _resume(workspace, run, provider, decision, reason, ask)


def _resume(workspace: Workspace, store: RunStore, provider: Callable[[], Provider], decision: Decision | None,
            reason: str | None, ask: Ask | None) -> Outcome:
    state = store.load()  # again, under the lock: the run another process drove until now may have moved on
    end_leftover_check(store, state)
    check_not_ended(workspace, store, state)
    if reconcile(workspace.bank):  # a gate decision a crash interrupted: finish it first, as `aidlc gate` would
        workspace = workspace.refreshed()
    run = RunSession(workspace, store, state, provider, ask)
    check_unchanged(run)
    if decision is not None:
        decide(run, decision, reason)
    if state.pause is not None:
        if state.pause.kind == "risk":
            state.accepted_risks.extend(r for r in state.risks if r not in state.accepted_risks)
        run.event(EventType.run_resumed, f"resumed:{state.pauses}", data={"after": state.pause.kind})
        state.pause = None  # saved by the first step's move or pause
    return drive(run)


def abort(workspace: Workspace, run: RunStore, reason: str | None) -> RunState:
    with bolt_lock(run.repo, run.load().bolt):
        return _abort(workspace, run, reason)


def _abort(workspace: Workspace, store: RunStore, reason: str | None) -> RunState:
    state = store.load()
    end_leftover_check(store, state)
    # An end state.json names that the ledger does not record is not the run's (edited outside aidlc): the abort ends
    # the run all the same, and records its end, which `resume` points to.
    unrecorded = unrecorded_end(workspace.ledger, state)
    if state.terminal and not unrecorded:
        raise UsageError(f"run {state.run_id} has ended already ({state.status.value})",
                         [f"aidlc bolt trace {arg(state.run_id)}"])
    run = RunSession(workspace, store, state, lambda: None)  # type: ignore[arg-type,return-value]  # an abort asks no model
    state.outcome = f"cancelled: {reason or 'no reason given'}" + (
        f"; state.json: {unrecorded} (edited outside aidlc)" if unrecorded else "")
    state.pause = None
    # The ledger first: its event is idempotent, so an abort stopped between the two (a kill, a lock file that is
    # no file) is done again whole; saved first, the run would be CANCELLED with its end never recorded.
    run.event(EventType.run_finished, "finished", data={"status": "CANCELLED", "outcome": state.outcome},
              reason=reason)
    transition(state, S.cancelled, store, state.outcome, unrecorded_end=bool(unrecorded))
    return state


def _goal(bolt: BoltItem) -> str:
    body = bolt.doc.body.split("## Objective", 1)[-1] if "## Objective" in bolt.doc.body else ""
    paragraph = []
    for line in (line.strip() for line in body.strip().splitlines()):
        if line.startswith("#"):
            break
        if line:
            paragraph.append(line)
    return " ".join(paragraph)[:500] or f"deliver the stories of bolt {bolt.id}"
