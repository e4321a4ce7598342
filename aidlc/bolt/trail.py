"""`aidlc bolt trace`: a run's spans as the decision trail a person reads."""

from __future__ import annotations

from aidlc.model.run import RunState, Span
from aidlc.names import shown


def span_line(span: Span) -> str:
    """One span as one line of the trail (also what a run prints as it goes)."""
    time = span.ts[11:19]
    data = span.data
    if span.kind == "state_transition":
        return f"{time}  state   {span.name}: {data.get('why', '')}"
    if span.kind == "llm_call":
        return f"{time}  model   {span.name}: {_call(span)}"
    if span.kind == "edit":
        detail = ", ".join(data.get("files") or data.get("problems") or [])
        return f"{time}  edit    {span.name} {span.status}: {detail}"
    if span.kind == "check":
        return f"{time}  check   {span.name} {span.status} (exit {data.get('exit_code')}, {span.duration_s or 0:.2f} s)"
    if span.kind in ("warning", "error", "degradation", "decision"):
        detail = data.get("reason") or data.get("message") or data.get("error") or ""
        return f"{time}  {span.kind:<7} {span.name}: {detail}".rstrip(": ")
    problems = data.get("problems")
    head = f"{time}  {span.kind:<7} {span.name} {span.status or ''}".rstrip()
    return head + (f": {'; '.join(problems)}" if problems else "")


def _call(span: Span) -> str:
    """A model call: its tokens, time and model, and what went wrong."""
    data = span.data
    what = f"{span.tokens or 0} tokens, {span.duration_s or 0:.2f} s, {data.get('model') or '?'}"
    error = f"; error: {data['error']}" if data.get("error") else ""
    rejected = f"; answers it could not use: {', '.join(data['rejected'])}" if data.get("rejected") else ""
    return f"{what}{error}{rejected}"


def render_trail(state: RunState, spans: list[Span]) -> str:
    head = [f"run {state.run_id} of bolt {state.bolt}: {state.status.value}",
            f"branch {state.branch} from {state.base_commit[:12]}; {state.budget.steps} model calls, "
            f"{state.budget.tokens} tokens, {state.budget.elapsed_s:.1f} s"]
    if state.pause:
        head.append(f"paused ({state.pause.kind}): {state.pause.reason}")
    if state.outcome:
        head.append(state.outcome)
    # Names and reasons come from aidlc.yaml, the bank and the model: escape sequences in them stay visible text.
    return "\n".join(shown(line) for line in [*head, "", *(span_line(span) for span in spans)])
