"""The run's model calls under loop control (docs/design.md, The bolt: Bounded, Degrades without losing work):
the budget is checked and warned about before each call, each call is counted and traced, a provider that is
down pauses the run, an answer that cannot be used fails it."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from aidlc.bolt.loop import LoopStop, after_call, before_call
from aidlc.bolt.plan import digest
from aidlc.bolt.session import Failed, Paused, RunSession
from aidlc.llm.base import Message
from aidlc.llm.errors import LLMBadOutput, LLMError, LLMTransient, LLMTruncated
from aidlc.llm.structured import complete_structured
from aidlc.model.events import EventType
from aidlc.model.run import Plan, Step
from aidlc.names import arg

ANSWER_TOKENS = 4096


def call(run: RunSession, messages: list[Message], stage: str, kind: str, schema: type[Plan] | None = None) -> Any:
    """One model call under loop control; returns the text (or the validated `schema` instance)."""
    run.tick()
    state = run.state
    warning = before_call(state, run.config.policy)
    if warning:
        state.warnings.append(warning)
        run.span("warning", "budget", data={"message": warning})
        messages = [*messages[:-1], Message("user", f"{messages[-1].content}\n\nBudget warning: {warning}")]
    request = digest(json.dumps([m.to_dict() for m in messages], sort_keys=True))
    step = Step(index=len(state.steps) + 1, stage=stage, kind=kind, request_sha256=request)  # type: ignore  # stage and kind are the Literal's words
    run.store.starting("model", f"{stage}: asking the model")
    began = time.monotonic()
    rejected: list[str] = []  # files holding the answers that did not validate, for `aidlc bolt trace`
    value: Plan | str
    seconds_left = run.config.policy.deadline_s - state.budget.elapsed_s  # the client holds the call to it
    try:
        if schema is not None:
            result = complete_structured(run.provider, messages, schema, max_tokens=ANSWER_TOKENS,
                                         timeout_s=seconds_left)
            value, text, usage, calls, answered = result.value, result.raw, result.usage, result.attempts, \
                result.completion
            rejected = keep_rejected(run, stage, result.rejected)
        else:
            answered = run.provider.complete(messages, max_tokens=ANSWER_TOKENS, timeout_s=seconds_left)
            value = text = answered.text
            usage, calls = answered.usage, 1
            if answered.finish_reason == "length":
                raise LLMTruncated(f"the answer stopped at max_tokens={ANSWER_TOKENS}", raw=text)
    except LLMError as exc:
        raise _refused(run, exc, step, began, seconds_left, request) from None
    if answered.degraded:  # a fallback target answered: the trail says which
        run.span("degradation", stage, data={"target": answered.target, "model": answered.model})
        run.event(EventType.degraded, f"degraded:{step.index}",
                  data={"stage": stage, "outcome": "fallback answered", "target": answered.target})
    state.model = state.model or answered.model
    step.model, step.answer_sha256 = answered.model, digest(text)
    _record(run, step, began, usage.total, answered.model, calls, rejected=rejected, usage_corrected=usage.corrected)
    after_call(state, request, step.answer_sha256, None)
    return value  # saved by the caller with what it made of the answer


def _refused(run: RunSession, exc: LLMError, step: Step, began: float, seconds_left: float,
             request: str) -> Exception:
    """What a failed call means for the run: a provider that is down pauses it (or, at the deadline, stops it);
    an answer that cannot be used, or any other model error, fails it."""
    stage = step.stage
    if isinstance(exc, LLMTransient):
        _record(run, step, began, 0, "", 1, error=exc.message)
        if time.monotonic() - began >= seconds_left:  # resuming cannot give the call more time
            return LoopStop(f"budget spent: the model call at {stage} was stopped at the run's deadline "
                            f"(policy.deadline_s: {run.config.policy.deadline_s} s): {exc.message}")
        run.span("degradation", "provider down", data={"error": exc.message})
        # The ledger holds the fact only: the provider's message stays in the trace (it may quote a request).
        run.event(EventType.degraded, f"degraded:{step.index}", data={"stage": stage, "outcome": "paused"})
        return Paused("provider", f"every configured model failed: {exc.message}",
                      ["aidlc llm check    # is the server up?",
                       f"aidlc bolt resume {arg(run.state.bolt)}    # continues where the run stopped"])
    if isinstance(exc, (LLMBadOutput, LLMTruncated)):
        rejected = keep_rejected(run, stage, exc.answers if isinstance(exc, LLMBadOutput) else [exc.raw])
        _record(run, step, began, 0, "", 3 if isinstance(exc, LLMBadOutput) else 1, error=exc.message,
                rejected=rejected)
        after_call(run.state, request, None, exc.message)
        return Failed(f"the model's answer could not be used at {stage}: {exc.message}")
    _record(run, step, began, 0, "", 1, error=exc.message)
    return Failed(f"the model call failed at {stage}: {exc.message}")


def _record(run: RunSession, step: Step, began: float, tokens: int, model: str, calls: int, error: str | None = None,
            rejected: list[str] | None = None, usage_corrected: str | None = None) -> None:
    step.elapsed_s, step.tokens, step.error = round(time.monotonic() - began, 4), tokens, error
    run.state.steps.append(step)
    run.state.budget.steps += calls
    run.state.budget.tokens += tokens
    run.span("llm_call", step.stage, status="error" if error else "ok", duration_s=step.elapsed_s,
             tokens=tokens, data={"model": model, "calls": calls, **({"error": error} if error else {}),
                                  **({"rejected": rejected} if rejected else {}),
                                  **({"usage_corrected": usage_corrected} if usage_corrected else {})})


def keep_rejected(run: RunSession, stage: str, answers: Sequence[str]) -> list[str]:
    """Each answer the model gave that could not be used, as it came (redacted), in the run's folder: the trace
    names the files, so a person sees what the model said, not only what was wrong with it."""
    return [run.store.write_text(f"{stage}.rejected-{n}.txt", answer).relative_to(run.repo).as_posix()
            for n, answer in enumerate(answers, start=1)]

