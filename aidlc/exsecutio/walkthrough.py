"""The implementation walkthrough: one renderer for the whole file, partial or not (the evidence report
extends it, never copies it)."""

from __future__ import annotations

from aidlc.model.run import RunState


def deviations(state: RunState) -> list[str]:
    planned = {f.path for f in state.plan.files} if state.plan else set()
    found = [f"{path}: changed, but not in the plan" for path in state.touched if path not in planned]
    if state.repairs:
        found.append(f"{state.repairs} repair round(s) after the first checks")
    return found + [f"accepted by a person when the run paused: {risk}" for risk in state.accepted_risks]


def render_walkthrough(state: RunState, partial: bool) -> str:
    from aidlc.templating import render

    plan = state.plan
    outcome_line = state.outcome or ("checks passed; waiting for a person at the walkthrough gate" if not partial
                                     else "stopped")
    risks = [*(plan.risks if plan else []), *state.risks]
    return render("artifacts/implementation-walkthrough.md.j2", bolt=state.bolt, run_id=state.run_id,
                  branch=state.branch, base_commit=state.base_commit, model=state.model, partial=partial,
                  outcome_line=outcome_line, summary=plan.summary if plan else "No plan was approved.",
                  commits=state.commits, files=plan.files if plan else [], touched=state.touched,
                  checks=state.checks, deviations=deviations(state), risks=risks,
                  rollback=(plan.rollback if plan else "Nothing to roll back.") +
                  f"\n\nThe whole run: `git checkout {state.start_branch or 'main'} && git branch -D {state.branch}`.",
                  budget=state.budget)
