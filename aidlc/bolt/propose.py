"""The plan the model proposes for the bolt, checked before a person sees it: an answer the plan checks refuse
goes back to the model with the problems, up to MAX_PLAN_ROUNDS answers."""

from __future__ import annotations

from aidlc.bolt import plan as plans
from aidlc.bolt.calls import call
from aidlc.bolt.context import plan_messages
from aidlc.bolt.session import Failed, RunSession
from aidlc.llm.base import Message
from aidlc.llm.prompts import render_prompt
from aidlc.model.run import Plan

MAX_PLAN_ROUNDS = 3  # answers the plan checks refuse, fed back to the model, before the run fails


def propose_plan(run: RunSession) -> Plan:
    """Ask for a plan; an answer the plan checks refuse goes back to the model with the problems."""
    index = run.workspace.index
    scope = run.bolt.meta.scope if run.bolt.meta else []
    messages = plan_messages(run, index)
    for round_ in range(1, MAX_PLAN_ROUNDS + 1):
        plan = call(run, messages, f"plan-{run.state.plan_rounds + 1}.{round_}", "plan", schema=Plan)
        problems = plans.check_plan(run.repo, plan, scope, index, run.bolt) + _rework_gaps(run, plan)
        run.span("tool_call", "plan checks", status="ok" if not problems else "refused", data={"problems": problems})
        if not problems:
            return plan
        run.save(durable=True)  # the refused answer's step and tokens
        messages = [*messages, Message("assistant", plan.model_dump_json()),
                    Message("user", render_prompt("bolt_plan_fix.md.j2", problems=problems))]
    raise Failed(f"the plan still had problems after {MAX_PLAN_ROUNDS} rounds: {problems[0]}")


def _rework_gaps(run: RunSession, plan: Plan) -> list[str]:
    """A rework plan covers the whole bolt: each file the earlier rounds changed, and that still exists, is in it
    (else the walkthrough would call that change unplanned)."""
    if not run.state.reworks:
        return []
    planned = {plans.normal(f.path) for f in plan.files}
    return [f"{rel}: changed by an earlier round of this bolt; list it in the plan too (action modify, with why)"
            for rel in run.state.touched if rel not in planned and (run.repo / rel).exists()]
