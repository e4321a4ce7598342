"""Where the run's two gates stand, and deciding them, exactly as `aidlc gate` does (aidlc.gates): the plan gate
and the walkthrough gate of the bolt (docs/design.md, Gates), the policy's approval of a low-risk plan, and a
person asked at the terminal."""

from __future__ import annotations

from aidlc.bolt import plan as plans
from aidlc.bolt.session import GateQuestion, Paused, RunSession, S
from aidlc.errors import AidlcError, UsageError
from aidlc.gates.actor import actor_from
from aidlc.gates.catalogue import fingerprint
from aidlc.gates.decide import decide as decide_gate
from aidlc.gates.history import standing
from aidlc.gates.resolve import resolve
from aidlc.model.events import Actor, ActorKind, Decision
from aidlc.names import arg, gate_command

AFTER_PLAN_REJECT = "the model plans again"
AFTER_WALKTHROUGH_REJECT = "the model plans the rework with your reason"


def gate(run: RunSession, stage: str) -> tuple[str, str | None]:
    """("approved" | "rejected" | "waiting", reason) for the gate, as the ledger holds it for the file now."""
    bank, index = run.bank, run.workspace.index
    target = resolve(bank, index, run.state.bolt, stage)
    history = run.workspace.view.history
    if standing(history, bank, index, target, stage) is None:
        return "approved", None
    latest = history.latest(target.kind, target.id, stage)
    now = fingerprint(bank, index, target, stage, latest)
    if latest and latest.decision == Decision.reject and now is not None and latest.fingerprint is not None \
            and latest.fingerprint.sha256 == now.sha256:
        return "rejected", latest.reason or "no reason given"
    return "waiting", None


def decide(run: RunSession, decision: Decision, reason: str | None) -> None:
    """Record a person's decision on the gate the run waits at, exactly as `aidlc gate` does; the bank is read
    again after it (the decision's effects changed it), the ledger is as the decision left it."""
    stage = {S.await_plan_approval: "plan", S.await_acceptance: "walkthrough"}.get(run.state.status)
    if stage is None:
        raise UsageError(f"run {run.state.run_id} is at {run.state.status.value}, not waiting at a gate; "
                         "--approve/--reject decide a gate", [f"aidlc bolt resume {arg(run.state.bolt)}"])
    recorded = decide_gate(run.bank, run.state.bolt, stage, decision, reason, actor_from(run.repo, None),
                           head=run.state.last_commit, index=run.workspace.index)
    run.refresh(recorded.view)


def approve_by_policy(run: RunSession) -> bool:
    """policy.auto_approve_plan approves the plan when its risk is one the policy lets through (low or medium
    only). The bank is not read again here: the next step to read it (the walkthrough) reads it anew."""
    assert run.state.plan is not None
    risk = plans.plan_risk(run.state.plan, run.bolt.meta.risk if run.bolt.meta else None)
    allowed = run.config.policy.auto_approve_plan
    if risk not in allowed or risk not in (plans.Risk.low, plans.Risk.medium):
        return False
    policy = Actor(kind=ActorKind.policy, name="policy.auto_approve_plan")
    decide_gate(run.bank, run.state.bolt, "plan", Decision.approve, f"risk {risk} is in policy.auto_approve_plan",
                policy, policy_risk=risk, head=run.state.last_commit, index=run.workspace.index)
    run.span("decision", "plan approved by policy", data={"reason": f"risk {risk}"})
    return True


def waiting_at(run: RunSession, stage: str, judged: str, after_reject: str) -> Paused:
    """The pause at a gate of the bolt, with the two ways on (and what a rejection does)."""
    bolt = run.state.bolt
    return Paused(f"{stage}_gate", f"the {stage} of bolt {bolt} waits for a person: {judged}",
                  [f"{gate_command(bolt, stage)} && aidlc bolt resume {arg(bolt)}",
                   f"or: aidlc bolt resume {arg(bolt)} --approve",
                   f"or: aidlc bolt resume {arg(bolt)} --reject --reason '...'    # {after_reject}"])


def ask_at_gate(run: RunSession, pause: Paused) -> Paused | None:
    """A person at the terminal decides the gate now (None: decided, the loop goes on); else the pause."""
    stage = {"plan_gate": "plan", "walkthrough_gate": "walkthrough"}.get(pause.kind)
    if run.ask is None or stage is None:
        return pause
    try:
        actor = actor_from(run.repo, None)
    except AidlcError as exc:
        return Paused(pause.kind, f"{pause.reason}; not asked: {exc.message}", [*exc.next_steps, *pause.next_steps])
    if actor.kind != ActorKind.human:  # as `aidlc gate` refuses it: AI proposes, a human decides
        return Paused(pause.kind, f"{pause.reason}; not asked: the {stage} gate is a human checkpoint and actor "
                      f"{actor.name} is {actor.kind.value}", pause.next_steps)
    run.tick()
    answer = run.ask(question(run, stage))
    run.restart_clock()  # the time a person took to answer is not the run's work
    if answer is None:
        return pause
    run.refresh()  # the person may have edited it before answering
    try:
        decide(run, answer.decision, answer.reason)
    except AidlcError as exc:  # refused as `aidlc gate` would refuse it (a bot, no signature, unchecked boxes)
        return Paused(pause.kind, f"{pause.reason}; the decision was refused: {exc.message}",
                      [*exc.next_steps, *pause.next_steps])
    run.span("decision", f"{stage} gate {answer.decision.value}", status=answer.decision.value,
             data={"reason": f"decided at the terminal: {answer.reason or 'no reason given'}"})
    return None


def question(run: RunSession, stage: str) -> GateQuestion:
    state = run.state
    plan = state.plan
    risks = [*(plan.risks if plan else []), *state.risks]
    if stage == "plan":
        assert plan is not None
        return GateQuestion("plan", state.bolt, f"{run.bolt_dir}/{plans.PLAN_FILE}", plan.summary,
                            [f"{f.action} {f.path}: {f.reason}" for f in plan.files], risks, AFTER_PLAN_REJECT)
    rounds = [f"{c.stage}: " + ", ".join(f"{r.name} {'passed' if r.passed else 'FAILED'}" for r in c.results)
              for c in state.checks]
    summary = "; ".join([plan.summary if plan else state.goal, *rounds[-1:]])
    return GateQuestion("walkthrough", state.bolt, f"{run.bolt_dir}/{plans.WALKTHROUGH_FILE}", summary,
                        list(state.touched), risks, AFTER_WALKTHROUGH_REJECT)
