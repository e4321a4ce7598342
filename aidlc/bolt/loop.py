"""Loop control, checked before every model call (failed parses count too): the step, token and time budget
with a warning at 70% and a hard stop at 100%, and the loop detector (the same call three times, answers
oscillating A->B->A->B, three errors in a row)."""

from __future__ import annotations

from aidlc.errors import AidlcError
from aidlc.model.config import Policy
from aidlc.model.run import RunState

WARN_AT = 0.7


class LoopStop(AidlcError):
    """The run must stop: its budget is spent or it is going round in circles. `reason` goes to the walkthrough."""


def usage(state: RunState, policy: Policy) -> dict[str, tuple[float, float]]:
    """Each budget: (used, limit)."""
    return {"steps": (state.budget.steps, policy.max_steps), "tokens": (state.budget.tokens, policy.max_tokens),
            "seconds": (state.budget.elapsed_s, policy.deadline_s)}


def before_call(state: RunState, policy: Policy) -> str | None:
    """Raise LoopStop at 100% of any budget; return the warning once when one passes 70%."""
    spent = usage(state, policy)
    for name, (used, limit) in spent.items():
        if used >= limit:
            raise LoopStop(f"budget spent: {name} {used:g} of {limit:g} (policy.max_{name})"
                           if name != "seconds" else f"budget spent: {used:.0f} s of {limit} s (policy.deadline_s)")
    if state.budget.warned:
        return None
    high = [(name, used, limit) for name, (used, limit) in spent.items() if used >= WARN_AT * limit]
    if not high:
        return None
    state.budget.warned = True
    name, used, limit = high[0]
    return (f"{used:g} of {limit:g} {name} used (over {WARN_AT:.0%}); finish with the smallest change that "
            "makes the checks pass")


def after_call(state: RunState, request: str, answer: str | None, error: str | None) -> None:
    """Record the call and raise LoopStop when the loop detector sees a loop."""
    state.calls.append(request)
    if error is not None:
        state.errors_in_row += 1
        if state.errors_in_row >= 3:
            raise LoopStop(f"three errors in a row; the last: {error}")
        return
    state.errors_in_row = 0
    assert answer is not None
    state.answers.append(answer)
    if state.calls.count(request) >= 3:
        raise LoopStop("the same request went to the model three times")
    last = state.answers[-4:]
    if len(last) == 4 and last[0] == last[2] and last[1] == last[3] and last[0] != last[1]:
        raise LoopStop("the model's answers oscillate (A -> B -> A -> B)")
