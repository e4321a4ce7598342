"""A bolt run: Plan -> Execute -> Verify -> Repair -> Walkthrough, driven by the state machine (docs/design.md,
The bolt). `drive` runs the handler of the state the run is in until the run ends or waits for a person.

The model fills states; this code decides every transition (aidlc.bolt.machine). Each step is idempotent, so
`resume` after a pause, a crash or SIGKILL repeats nothing that already happened:
* a model answer is saved in the run's folder before it is used, and never asked for again;
* a step's commit is found again by its trailers (Aidlc-Run, Aidlc-Stage) before one is made;
* every ledger event carries an idempotency key (`run:<run-id>:<milestone>`), so it is appended once.
"""

from __future__ import annotations

from aidlc import vcs
from aidlc.bank.write import atomic_write
from aidlc.bolt import plan as plans
from aidlc.bolt.loop import LoopStop
from aidlc.bolt.propose import propose_plan
from aidlc.bolt.session import Failed, Outcome, Paused, RunSession, S
from aidlc.bolt.standing import (
    AFTER_PLAN_REJECT,
    AFTER_WALKTHROUGH_REJECT,
    approve_by_policy,
    ask_at_gate,
    gate,
    waiting_at,
)
from aidlc.bolt.steps import commit_walkthrough, edit_step
from aidlc.bolt.verify import accepted_risks, results_of, signature, weakening
from aidlc.errors import AidlcError
from aidlc.model.events import EventType
from aidlc.model.run import Pause
from aidlc.names import arg

MAX_REJECTIONS = 3  # plans a person rejects before the run fails
MAX_REWORKS = 3  # walkthroughs a person rejects (each sends the work back to a new plan) before the run fails


def drive(run: RunSession) -> Outcome:
    state = run.state
    try:
        while not state.terminal:
            try:
                HANDLERS[state.status](run)
            except Paused as pause:
                waiting = ask_at_gate(run, pause)
                if waiting is not None:
                    return _pause(run, waiting)
            run.continuing = False
    except (Failed, LoopStop) as exc:
        return _fail(run, exc.message if isinstance(exc, AidlcError) else str(exc))
    if state.status == S.completed:
        return Outcome(state, 0, f"bolt {state.bolt} is complete: the walkthrough was accepted")
    return Outcome(state, 1, f"run {state.run_id} ended {state.status.value}: {state.outcome}",
                   [f"aidlc bolt trace {arg(state.run_id)}"])


def _pause(run: RunSession, pause: Paused) -> Outcome:
    state = run.state
    state.pause = Pause(kind=pause.kind, reason=pause.reason)  # type: ignore[arg-type]  # pause kinds are the Literal's words
    state.pauses = max(state.pauses, run.recorded("paused")) + 1
    run.save(durable=True)
    run.span("decision", "paused", status=pause.kind, data={"reason": pause.reason})
    # The risks a person is asked about go into the ledger too: the evidence report reads them there.
    accepted = accepted_risks(run)  # as the ledger holds them: state.json's own list may have been written by a check
    risks = {"risks": [r for r in state.risks if r not in accepted]} if pause.kind == "risk" else {}
    run.event(EventType.run_paused, f"paused:{state.pauses}", reason=pause.reason,
              data={"kind": pause.kind, "state": state.status.value, **risks})
    return Outcome(state, 3, pause.reason, pause.next_steps)


def _fail(run: RunSession, reason: str) -> Outcome:
    state = run.state
    state.outcome = f"failed: {reason}"
    run.span("error", "stopped", data={"reason": reason})
    # At AWAIT_ACCEPTANCE (a rejected walkthrough) the walkthrough is written and committed already.
    if state.status not in (S.walkthrough, S.await_plan_approval, S.init, S.await_acceptance):
        run.move(S.walkthrough, reason)
    if state.status == S.walkthrough:
        commit_walkthrough(run, partial=True)
    run.move(S.failed, reason)
    run.event(EventType.run_finished, "finished", data={"status": "FAILED", "outcome": state.outcome})
    return Outcome(state, 1, f"run {state.run_id} FAILED: {reason}",
                   [f"aidlc bolt trace {arg(state.run_id)}    # why the loop went where it went",
                    f"read {run.bolt_dir}/{plans.WALKTHROUGH_FILE} (partial); the work so far is on branch "
                    f"{state.branch}"])


def init(run: RunSession) -> None:
    """A crash before the branch existed, or before it was checked out (or before the start was recorded)."""
    run.event(EventType.run_started, "started", data={"branch": run.state.branch, "base": run.state.base_commit})
    if vcs.branch_commit(run.repo, run.state.branch) is None:
        vcs.create_branch(run.repo, run.state.branch, run.state.base_commit)
    elif vcs.current_branch(run.repo) != run.state.branch:
        vcs.checkout(run.repo, run.state.branch)
    run.move(S.planning, "the run's branch is checked out")


def planning(run: RunSession) -> None:
    state = run.state
    if state.plan is None:
        state.plan = propose_plan(run)
        state.plan_rounds = max(state.plan_rounds, run.recorded("plan")) + 1
        run.save(durable=True)  # flushed after each model answer: the calls it counts are what the ledger records
        run.refresh()  # a person may have changed the bank while the model answered
    text = plans.render_plan(state)
    path = run.repo / run.bolt_dir / plans.PLAN_FILE
    atomic_write(path, text, run.repo)
    state.plan_hash = plans.digest(text)
    risk = plans.plan_risk(state.plan, run.bolt.meta.risk if run.bolt.meta else None)
    run.event(EventType.plan_proposed, f"plan:{state.plan_rounds}",
              data={"plan_sha256": state.plan_hash, "files": [f.path for f in state.plan.files],
                    "risk": str(risk) if risk else None, "model": state.model})
    run.move(S.await_plan_approval, f"plan {state.plan_rounds} written to {path.relative_to(run.repo)}")


def await_plan(run: RunSession) -> None:
    state = run.state
    verdict, reason = gate(run, "plan")
    if verdict == "approved" or (verdict == "waiting" and approve_by_policy(run)):
        run.move(S.executing, "the plan gate is approved")
        return
    if verdict == "rejected":
        state.rejections.append(reason or "")
        if len(state.rejections) > MAX_REJECTIONS:
            raise Failed(f"a person rejected {len(state.rejections)} plans; the last reason: {reason}")
        state.plan = None
        run.move(S.planning, f"the plan was rejected: {reason}")
        return
    raise waiting_at(run, "plan", f"{run.bolt_dir}/{plans.PLAN_FILE}", AFTER_PLAN_REJECT)


def executing(run: RunSession) -> None:
    edit_step(run, run.stage("execute"))
    run.move(S.verifying, "the execute step is committed")


def verifying(run: RunSession) -> None:
    state = run.state
    stage = state.commits[-1]["stage"]
    results = results_of(run, stage)
    fresh = weakening(run, results)
    if fresh:
        state.risks.extend(f for f in fresh if f not in state.risks)
        run.save()
        raise Paused("risk", f"the edits of {stage} may weaken the tests: {'; '.join(fresh)}",
                     [f"git show {state.last_commit[:12]}    # look at the change",
                      f"aidlc bolt resume {arg(state.bolt)}    # accept the risk and go on (it is named in the "
                      "walkthrough)", f"aidlc bolt abort {arg(state.bolt)} --reason '...'"])
    failing = [r for r in results if not r.passed]
    if not failing:
        run.move(S.walkthrough, f"every check passed at {stage}")
        return
    failure = signature(failing[0])
    if state.failures and state.failures[-1] == failure:
        raise Failed(f"the same failure twice in a row ({failing[0].name}): the repair did not help")
    state.failures.append(failure)
    if state.repairs >= run.config.policy.max_repairs:
        raise Failed(f"checks still fail after {state.repairs} repair round(s) (policy.max_repairs): "
                     f"{failing[0].name} exit {failing[0].exit_code}")
    state.repairs += 1
    run.move(S.repairing, f"{failing[0].name} failed; repair round {state.repairs}")


def repairing(run: RunSession) -> None:
    stage = run.stage(f"repair-{run.state.repairs}")
    edit_step(run, stage)
    if run.state.trees[-1] in run.state.trees[:-1]:
        raise Failed(f"{stage} brought the tree back to an earlier state; the repairs go in circles")
    run.move(S.verifying, f"{stage} is committed")


def walkthrough(run: RunSession) -> None:
    outcome = run.state.outcome or ""
    if outcome.startswith("failed: "):  # a stop (_fail) that a kill interrupted: it ends as it was stopping
        raise Failed(outcome.removeprefix("failed: "))
    commit_walkthrough(run, partial=False)
    run.move(S.await_acceptance, "the walkthrough is written")


def await_acceptance(run: RunSession) -> None:
    state = run.state
    verdict, reason = gate(run, "walkthrough")
    if verdict == "approved":
        state.outcome = "completed: the walkthrough was accepted"
        run.move(S.completed, state.outcome)
        run.event(EventType.run_finished, "finished", data={"status": "COMPLETED", "outcome": state.outcome})
        return
    if verdict == "rejected":
        _rework(run, reason or "no reason given")
        return
    raise waiting_at(run, "walkthrough", f"{run.bolt_dir}/{plans.WALKTHROUGH_FILE} (branch {state.branch})",
                     AFTER_WALKTHROUGH_REJECT)


def _rework(run: RunSession, reason: str) -> None:
    """A rejected walkthrough sends the work back (docs/design.md, Gates): the model plans again with the
    reviewer's reason, on top of the work so far, and the new plan waits for a person like the first."""
    state = run.state
    if len(state.reworks) >= MAX_REWORKS:
        raise Failed(f"a person rejected {len(state.reworks) + 1} walkthroughs; the last reason: {reason}")
    state.reworks.append(reason)
    state.plan = None
    state.repairs = 0  # each plan gets policy.max_repairs rounds of its own
    state.failures = []
    run.move(S.planning, f"the walkthrough was rejected: {reason}; rework round {len(state.reworks)} of at most "
                         f"{MAX_REWORKS} plans again")


HANDLERS = {S.init: init, S.planning: planning, S.await_plan_approval: await_plan, S.executing: executing,
            S.verifying: verifying, S.repairing: repairing, S.walkthrough: walkthrough,
            S.await_acceptance: await_acceptance}
