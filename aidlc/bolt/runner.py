"""A bolt run: Plan -> Execute -> Verify -> Repair -> Walkthrough, driven by the state machine.

The model fills states; this code decides every transition (aidlc.bolt.machine). Each step is
idempotent, so `resume` after a pause, a crash or SIGKILL repeats nothing that already happened:
* a model answer is saved in the run's folder before it is used, and never asked for again;
* a step's commit is found again by its trailers (Aidlc-Run, Aidlc-Stage) before one is made;
* every ledger event carries an idempotency key (`run:<run-id>:<milestone>`), so it is appended once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bank.index import BankIndex, find_bolt
from aidlc.bank.items import BoltItem, MemoryBank
from aidlc.bank.walk import read_inside
from aidlc.bolt import plan as plans
from aidlc.bolt.loop import LoopStop, after_call, before_call
from aidlc.bolt.machine import transition
from aidlc.bolt.store import RunStore, all_runs, bolt_lock, new_run_id
from aidlc.bolt.walkthrough import write_walkthrough
from aidlc.errors import AidlcError, UsageError
from aidlc.events.ledger import Ledger, utc_now
from aidlc.events.view import open_view, verified_ledger
from aidlc.gates.decide import reconcile
from aidlc.llm.base import Message, Provider
from aidlc.llm.context import ContextPiece, fit_context
from aidlc.llm.errors import LLMBadOutput, LLMError, LLMTransient, LLMTruncated
from aidlc.llm.prompts import render_prompt, system_message
from aidlc.llm.structured import complete_structured
from aidlc.model.events import Actor, ActorKind, Decision, EventType, Subject
from aidlc.model.run import Pause, Pending, Plan, RunState, RunStatus, Span, Step
from aidlc.names import path_segment
from aidlc.processes import RUN_VARIABLE
from aidlc.workspace import open_bank

S = RunStatus
MAX_PLAN_ROUNDS = 3  # answers the plan checks refuse, fed back to the model, before the run fails
MAX_REJECTIONS = 3  # plans a person rejects before the run fails
MAX_REWORKS = 3  # walkthroughs a person rejects (each sends the work back to a new plan) before the run fails
MAX_EDIT_ATTEMPTS = 3  # answers per Execute/Repair step that cannot be applied
AFTER_WALKTHROUGH_REJECT = "the model plans the rework with your reason"
WEAK_AFTER = 2  # malformed edit answers before whole-file blocks are asked for
CONTEXT_TOKENS = 12_000
ANSWER_TOKENS = 4096
OUTPUT_CHARS = 3000  # of a failing check's output, sent back to the model


@dataclass
class Outcome:
    state: RunState
    exit_code: int  # 0 done, 1 failed, 3 waiting for a person
    message: str
    next_steps: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GateQuestion:
    """What a person at a terminal is shown at a gate: the file to judge and the gist of it."""

    stage: str  # plan | walkthrough
    bolt: str
    path: str  # the file the gate judges, relative to the repository
    summary: str
    files: list[str]
    risks: list[str]
    after_reject: str  # what a rejection does


@dataclass(frozen=True)
class GateAnswer:
    decision: Decision
    reason: str | None = None


# Asks a person at the gate (the CLI supplies it at a terminal); None: no decision now, the run pauses.
Ask = Callable[[GateQuestion], GateAnswer | None]


class Paused(Exception):
    def __init__(self, kind: str, reason: str, next_steps: list[str]) -> None:
        super().__init__(reason)
        self.kind, self.reason, self.next_steps = kind, reason, next_steps


class Failed(Exception):
    """The run cannot reach its goal: it ends FAILED with a partial walkthrough."""


# -- starting and resuming ---------------------------------------------------------------------------------------
def preflight(repo: Path, bolt_ref: str, bank: MemoryBank | None = None) -> dict[str, Any]:
    """Everything `start` checks before it touches anything (what `--dry-run` reports); `bank`: as the caller
    read it already."""
    bank = bank or open_bank(repo)
    repo = Path(bank.repo_root)
    bolt = find_bolt(bank, bolt_ref)
    verified_ledger(bank.repo_root, bank.rel_root, "a bolt run records its milestones there and starts nothing")
    if not bank.config.verify:
        raise UsageError("aidlc.yaml has no verify commands: a run could not check its own work",
                         ["add one under verify: in aidlc.yaml, e.g. `- {name: tests, run: python -m pytest -q}`"])
    for earlier in all_runs(repo):
        if earlier.bolt == bolt.id and not earlier.terminal:
            raise UsageError(f"bolt {bolt.id} has an unfinished run {earlier.run_id} ({earlier.status.value})",
                             [f"aidlc bolt resume {bolt.id}", f"aidlc bolt abort {bolt.id}    # then start again"])
    tree = vcs.work_tree(repo)
    head = tree.head
    if head is None:
        raise UsageError(f"{repo} has no commit yet; a run branches from HEAD",
                         ["git add -A && git commit -m 'initial commit'"])
    dirty = _dirty(tree.changed, bank, bolt)
    if dirty:
        raise UsageError(f"uncommitted changes to {len(dirty)} file(s) the run did not make: "
                         f"{', '.join(dirty[:5])}{' ...' if len(dirty) > 5 else ''}; nothing was touched",
                         [set_aside(dirty, bank.rel_root), f"aidlc bolt start {bolt.id}"])
    branch = f"aidlc/{path_segment(bolt.id, f'{bolt.rel}: the bolt id')}"
    if vcs.branch_commit(repo, branch) is not None:
        raise UsageError(f"branch {branch} exists already (an earlier run?)",
                         [f"git branch -m {branch} {branch}-old    # keep it under another name",
                          f"git branch -D {branch}    # or drop it, then start again"])
    return {"bolt": bolt.id, "branch": branch, "base": head, "verify": [v.name for v in bank.config.verify],
            "_bank": bank, "_bolt": bolt, "_start_branch": tree.branch}


def start(repo: Path, bolt_ref: str, provider: Callable[[], Provider], model: str = "",
          ask: Ask | None = None) -> Outcome:
    bank = open_bank(repo)
    # The lock first, the checks under it: two starts that both found no unfinished run would make two runs.
    with bolt_lock(Path(bank.repo_root), find_bolt(bank, bolt_ref).id):
        found = preflight(repo, bolt_ref, bank)
        # The run asks the model first: a provider that cannot be built (no key, bad settings) is refused here,
        # before the run, its branch or its ledger line exist, as `aidlc draft` refuses it.
        model_provider = provider()
        bank, bolt, branch, head = found["_bank"], found["_bolt"], found["branch"], found["base"]
        repo = Path(bank.repo_root)
        now = utc_now()
        run_id = new_run_id()
        goal = _goal(bolt)
        state = RunState(run_id=run_id, bolt=bolt.id, goal=goal, created=now, updated=now, branch=branch,
                         start_branch=found["_start_branch"], base_commit=head, last_commit=head, model=model)
        store = RunStore(repo, run_id)
        store.save(state)
        runner = Runner(repo, bank, bolt, store, state, lambda: model_provider, ask)
        runner.event(EventType.run_started, "started", data={"branch": branch, "base": head})
        vcs.create_branch(repo, branch, head)
        transition(state, S.planning, store, "the run started on a clean tree")
        return runner.drive()


def resume(repo: Path, run: RunStore, provider: Callable[[], Provider], decision: Decision | None = None,
           reason: str | None = None, ask: Ask | None = None) -> Outcome:
    with bolt_lock(run.repo, run.load().bolt):
        return _resume(repo, run, provider, decision, reason, ask)


def _resume(repo: Path, run: RunStore, provider: Callable[[], Provider], decision: Decision | None,
            reason: str | None, ask: Ask | None) -> Outcome:
    state = run.load()  # again, under the lock: the run another process drove until now may have moved on
    end_leftover_check(run, state)
    if state.terminal:
        raise UsageError(f"run {state.run_id} of bolt {state.bolt} has ended ({state.status.value}); "
                         "nothing to resume", [f"aidlc bolt trace {state.run_id}", f"aidlc bolt start {state.bolt}"])
    bank = open_bank(repo)
    if reconcile(bank):  # a gate decision a crash interrupted: finish it first, as `aidlc gate` would
        bank = open_bank(repo)
    bolt = find_bolt(bank, state.bolt)
    runner = Runner(Path(bank.repo_root), bank, bolt, run, state, provider, ask)
    runner.check_unchanged()
    if decision is not None:
        runner.decide(decision, reason)
    if state.pause is not None:
        if state.pause.kind == "risk":
            state.accepted_risks.extend(r for r in state.risks if r not in state.accepted_risks)
        runner.event(EventType.run_resumed, f"resumed:{state.pauses}", data={"after": state.pause.kind})
        state.pause = None
        run.save(state)
    return runner.drive()


def abort(repo: Path, run: RunStore, reason: str | None) -> RunState:
    with bolt_lock(run.repo, run.load().bolt):
        return _abort(repo, run, reason)


def _abort(repo: Path, run: RunStore, reason: str | None) -> RunState:
    state = run.load()
    end_leftover_check(run, state)
    if state.terminal:
        raise UsageError(f"run {state.run_id} has ended already ({state.status.value})",
                         [f"aidlc bolt trace {state.run_id}"])
    bank = open_bank(repo)
    runner = Runner(Path(bank.repo_root), bank, find_bolt(bank, state.bolt), run, state, lambda: None)  # type: ignore  # the bolt of a saved run exists
    state.outcome = f"cancelled: {reason or 'no reason given'}"
    state.pause = None
    transition(state, S.cancelled, run, state.outcome)
    runner.event(EventType.run_finished, "finished", data={"status": "CANCELLED", "outcome": state.outcome},
                 reason=reason)
    return state


def end_leftover_check(run: RunStore, state: RunState) -> None:
    """A check an aidlc killed with SIGKILL left running would overlap the next one: end its group first."""
    if state.check_group is None:
        return
    from aidlc.bolt.checks import GRACE_S, end_leftover_group

    group, state.check_group = state.check_group, None
    if end_leftover_group(group, _run_marker(state.run_id)):
        run.trace(Span(ts=utc_now(), kind="warning", name="leftover check", data={
            "message": f"a check (process group {group}) was still running, left by an aidlc that was killed: "
                       f"ended it (SIGTERM, then SIGKILL after {GRACE_S:g} s)"}))
    run.save(state)


# -- the run -----------------------------------------------------------------------------------------------------
class Runner:
    def __init__(self, repo: Path, bank: MemoryBank, bolt: BoltItem, store: RunStore, state: RunState,
                 provider: Callable[[], Provider], ask: Ask | None = None) -> None:
        self.repo, self.bank, self.bolt, self.store, self.state = repo, bank, bolt, store, state
        self.ask = ask
        self.config = bank.config
        self._provider_factory = provider
        self._provider: Provider | None = None
        self.ledger = Ledger.of_bank(repo, bank.rel_root)
        self.bolt_dir = Path(bolt.rel).parent.as_posix()
        self._tick = time.monotonic()
        self._own: set[str] | None = None
        # False once a person may have changed the bank since it was read: time passed (a model call, the checks,
        # a question) or a gate decision wrote its effects. `current_bank` reads it again then.
        self._bank_current = True
        # The step in progress when this process took the run over may be partly done (a kill, a pause): its
        # commit is looked for by its trailers. Each later step starts from a state this process saved.
        self.continuing = True

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = self._provider_factory()
        return self._provider

    # -- bookkeeping ---------------------------------------------------------------------------------------
    def save(self, durable: bool = False) -> None:
        self.tick()
        self.store.save(self.state, durable)

    def tick(self) -> None:
        """Count the seconds of work since the last tick (a pause between processes is not counted)."""
        now = time.monotonic()
        self.state.budget.elapsed_s += now - self._tick
        self._tick = now

    def span(self, kind: str, name: str, **fields: Any) -> None:
        self.store.trace(Span(ts=utc_now(), kind=kind, name=name, **fields))  # type: ignore[arg-type]  # span kinds are the Literal's words

    def move(self, to: RunStatus, why: str) -> None:
        self.tick()
        transition(self.state, to, self.store, why)

    def actor(self) -> Actor:
        return Actor(kind=ActorKind.agent, name=f"aidlc bolt ({self.state.model or 'model'})")

    def event(self, event_type: EventType, milestone: str, **fields: Any) -> dict[str, Any]:
        return self.ledger.append(event_type, self.actor(), key=f"run:{self.state.run_id}:{milestone}",
                                  subject=Subject(kind="bolt", id=self.state.bolt), run=self.state.run_id,
                                  **fields).event

    def stage(self, name: str) -> str:
        """A step's name in its commit's trailers, its ledger keys and its files: unique within the run, so a
        rework round (after a rejected walkthrough) carries its number: execute, rework-1.execute, ..."""
        reworks = len(self.state.reworks)
        return f"rework-{reworks}.{name}" if reworks else name

    def own_files(self) -> set[str]:
        if self._own is None:
            self._own = _own_files(self.bank, self.bolt)
        return self._own

    def own_existing(self) -> set[str]:
        """aidlc's own files a step commits with its edits: those that exist (git adds an unchanged one as a no-op;
        a person's removal of one is theirs to commit)."""
        return {rel for rel in self.own_files() if (self.repo / rel).exists() or (self.repo / rel).is_symlink()}

    # -- the loop ------------------------------------------------------------------------------------------
    def drive(self) -> Outcome:
        handlers = {S.init: self.init, S.planning: self.planning, S.await_plan_approval: self.await_plan,
                    S.executing: self.executing, S.verifying: self.verifying, S.repairing: self.repairing,
                    S.walkthrough: self.walkthrough, S.await_acceptance: self.await_acceptance}
        try:
            while not self.state.terminal:
                try:
                    handlers[self.state.status]()
                except Paused as pause:
                    waiting = self.ask_at_gate(pause)
                    if waiting is not None:
                        return self.pause(waiting)
                self.continuing = False
        except (Failed, LoopStop) as exc:
            return self.fail(exc.message if isinstance(exc, AidlcError) else str(exc))
        if self.state.status == S.completed:
            return Outcome(self.state, 0, f"bolt {self.state.bolt} is complete: the walkthrough was accepted")
        return Outcome(self.state, 1, f"run {self.state.run_id} ended {self.state.status.value}: "
                       f"{self.state.outcome}", [f"aidlc bolt trace {self.state.run_id}"])

    def pause(self, pause: Paused) -> Outcome:
        state = self.state
        state.pause = Pause(kind=pause.kind, reason=pause.reason)  # type: ignore[arg-type]  # pause kinds are the Literal's words
        state.pauses += 1
        self.save(durable=True)
        self.span("decision", "paused", status=pause.kind, data={"reason": pause.reason})
        self.event(EventType.run_paused, f"paused:{state.pauses}", reason=pause.reason,
                   data={"kind": pause.kind, "state": state.status.value})
        return Outcome(state, 3, pause.reason, pause.next_steps)

    def fail(self, reason: str) -> Outcome:
        state = self.state
        state.outcome = f"failed: {reason}"
        self.span("error", "stopped", data={"reason": reason})
        # At AWAIT_ACCEPTANCE (a rejected walkthrough) the walkthrough is written and committed already.
        if state.status not in (S.walkthrough, S.await_plan_approval, S.init, S.await_acceptance):
            self.move(S.walkthrough, reason)
        if state.status == S.walkthrough:
            self.write_walkthrough(partial=True)
        self.move(S.failed, reason)
        self.event(EventType.run_finished, "finished", data={"status": "FAILED", "outcome": state.outcome})
        walkthrough = f"{self.bolt_dir}/{plans.WALKTHROUGH_FILE}"
        return Outcome(state, 1, f"run {state.run_id} FAILED: {reason}",
                       [f"aidlc bolt trace {state.run_id}    # why the loop went where it went",
                        f"read {walkthrough} (partial); the work so far is on branch {state.branch}"])

    # -- model calls ---------------------------------------------------------------------------------------
    def call(self, messages: list[Message], stage: str, kind: str, schema: type[Plan] | None = None) -> Any:
        """One model call under loop control; returns the text (or the validated `schema` instance)."""
        self.tick()
        warning = before_call(self.state, self.config.policy)
        if warning:
            self.state.warnings.append(warning)
            self.span("warning", "budget", data={"message": warning})
            messages = [*messages[:-1], Message("user", f"{messages[-1].content}\n\nBudget warning: {warning}")]
        request = _digest(json.dumps([m.to_dict() for m in messages], sort_keys=True))
        self._bank_current = False  # a person may edit it while the model answers
        step = Step(index=len(self.state.steps) + 1, stage=stage, kind=kind, request_sha256=request)  # type: ignore  # stage and kind are the Literal's words
        began = time.monotonic()
        rejected: list[str] = []  # files holding the answers that did not validate, for `aidlc bolt trace`
        value: Plan | str
        seconds_left = self.config.policy.deadline_s - self.state.budget.elapsed_s  # the client holds the call to it
        try:
            if schema is not None:
                result = complete_structured(self.provider, messages, schema, max_tokens=ANSWER_TOKENS,
                                             timeout_s=seconds_left)
                value, text, usage, model = result.value, result.raw, result.usage, result.completion.model
                calls, degraded = result.attempts, result.completion
                rejected = self.keep_rejected(stage, result.rejected)
            else:
                answer = self.provider.complete(messages, max_tokens=ANSWER_TOKENS, timeout_s=seconds_left)
                value = text = answer.text
                usage, model, calls, degraded = answer.usage, answer.model, 1, answer
                if answer.finish_reason == "length":
                    raise LLMTruncated(f"the answer stopped at max_tokens={ANSWER_TOKENS}", raw=text)
        except LLMTransient as exc:
            self._record(step, began, 0, "", 1, error=exc.message)
            if time.monotonic() - began >= seconds_left:  # resuming cannot give the call more time
                raise LoopStop(f"budget spent: the model call at {stage} was stopped at the run's deadline "
                               f"(policy.deadline_s: {self.config.policy.deadline_s} s): {exc.message}") from None
            self.span("degradation", "provider down", data={"error": exc.message})
            # The ledger holds the fact only: the provider's message stays in the trace (it may quote a request).
            self.event(EventType.degraded, f"degraded:{step.index}", data={"stage": stage, "outcome": "paused"})
            raise Paused("provider", f"every configured model failed: {exc.message}",
                         ["aidlc llm check    # is the server up?",
                          f"aidlc bolt resume {self.state.bolt}    # continues where the run stopped"]) from None
        except (LLMBadOutput, LLMTruncated) as exc:
            rejected = self.keep_rejected(stage, exc.answers if isinstance(exc, LLMBadOutput) else [exc.raw])
            self._record(step, began, 0, "", 3 if isinstance(exc, LLMBadOutput) else 1, error=exc.message,
                         rejected=rejected)
            after_call(self.state, request, None, exc.message)
            raise Failed(f"the model's answer could not be used at {stage}: {exc.message}") from None
        except LLMError as exc:
            self._record(step, began, 0, "", 1, error=exc.message)
            raise Failed(f"the model call failed at {stage}: {exc.message}") from None
        if degraded.degraded:  # a fallback target answered: the trail says which
            self.span("degradation", stage, data={"target": degraded.target, "model": model})
            self.event(EventType.degraded, f"degraded:{step.index}",
                       data={"stage": stage, "outcome": "fallback answered", "target": degraded.target})
        self.state.model = self.state.model or model
        step.model, step.answer_sha256 = model, _digest(text)
        self._record(step, began, usage.total, model, calls, rejected=rejected, usage_corrected=usage.corrected)
        after_call(self.state, request, step.answer_sha256, None)
        return value  # saved by the caller with what it made of the answer

    def _record(self, step: Step, began: float, tokens: int, model: str, calls: int, error: str | None = None,
                rejected: list[str] | None = None, usage_corrected: str | None = None) -> None:
        step.elapsed_s, step.tokens, step.error = round(time.monotonic() - began, 4), tokens, error
        self.state.steps.append(step)
        self.state.budget.steps += calls
        self.state.budget.tokens += tokens
        self.span("llm_call", step.stage, status="error" if error else "ok", duration_s=step.elapsed_s,
                  tokens=tokens, data={"model": model, "calls": calls, **({"error": error} if error else {}),
                                       **({"rejected": rejected} if rejected else {}),
                                       **({"usage_corrected": usage_corrected} if usage_corrected else {})})

    def keep_rejected(self, stage: str, answers: Sequence[str]) -> list[str]:
        """Each answer the model gave that could not be used, as it came (redacted), in the run's folder: the
        trace names the files, so a person sees what the model said, not only what was wrong with it."""
        return [self.store.write_text(f"{stage}.rejected-{n}.txt", answer).relative_to(self.repo).as_posix()
                for n, answer in enumerate(answers, start=1)]

    # -- INIT (a crash before the branch existed) ----------------------------------------------------------
    def init(self) -> None:
        if vcs.branch_commit(self.repo, self.state.branch) is None:
            vcs.create_branch(self.repo, self.state.branch, self.state.base_commit)
        elif vcs.current_branch(self.repo) != self.state.branch:
            vcs.checkout(self.repo, self.state.branch)
        self.move(S.planning, "the run's branch is checked out")

    # -- PLANNING ------------------------------------------------------------------------------------------
    def planning(self) -> None:
        state = self.state
        if state.plan is None:
            state.plan = self.propose_plan()
            state.plan_rounds += 1
            self.save()
        text = plans.render_plan(state)
        path = self.repo / self.bolt_dir / plans.PLAN_FILE
        from aidlc.bank.write import atomic_write

        atomic_write(path, text, self.repo)
        state.plan_hash = plans.digest(text)
        risk = plans.plan_risk(state.plan, self.bolt.meta.risk if self.bolt.meta else None)
        self.event(EventType.plan_proposed, f"plan:{state.plan_rounds}",
                   data={"plan_sha256": state.plan_hash, "files": [f.path for f in state.plan.files],
                         "risk": str(risk) if risk else None, "model": state.model})
        self.move(S.await_plan_approval, f"plan {state.plan_rounds} written to {path.relative_to(self.repo)}")

    def propose_plan(self) -> Plan:
        scope = self.bolt.meta.scope if self.bolt.meta else []
        # After a rejected walkthrough the work so far stays on the branch: the new plan builds on it.
        pieces = self.file_pieces(self.state.touched, 90) if self.state.reworks else []
        context = self.fit([*pieces, *self.bolt_pieces()], "plan")
        index = BankIndex(self.bank)
        user = render_prompt("bolt_plan.md.j2", bolt=self.state.bolt, goal=self.state.goal, scope=scope,
                             stories=[story.id for story in index.stories_of(self.bolt)],
                             rejections=self.state.rejections, reworks=self.state.reworks,
                             touched=self.state.touched, tree=_tracked(self.repo), context=context)
        messages = [system_message(f"plan bolt {self.state.bolt}"), Message("user", user)]
        for round_ in range(1, MAX_PLAN_ROUNDS + 1):
            plan = self.call(messages, f"plan-{self.state.plan_rounds + 1}.{round_}", "plan", schema=Plan)
            problems = plans.check_plan(self.repo, plan, scope, index, self.bolt) + \
                self.rework_gaps(plan)
            self.span("tool_call", "plan checks", status="ok" if not problems else "refused",
                      data={"problems": problems})
            if not problems:
                return plan
            self.save()  # the refused answer's step and tokens
            messages = [*messages, Message("assistant", plan.model_dump_json()),
                        Message("user", render_prompt("bolt_plan_fix.md.j2", problems=problems))]
        raise Failed(f"the plan still had problems after {MAX_PLAN_ROUNDS} rounds: {problems[0]}")

    def rework_gaps(self, plan: Plan) -> list[str]:
        """A rework plan covers the whole bolt: each file the earlier rounds changed, and that still exists, is in
        it (else the walkthrough would call that change unplanned)."""
        if not self.state.reworks:
            return []
        planned = {plans.normal(f.path) for f in plan.files}
        return [f"{rel}: changed by an earlier round of this bolt; list it in the plan too (action modify, with why)"
                for rel in self.state.touched if rel not in planned and (self.repo / rel).exists()]

    # -- the gates -----------------------------------------------------------------------------------------
    def reload(self) -> MemoryBank:
        """The bank as it is on disk now."""
        self.bank = open_bank(self.repo)
        self.bolt = find_bolt(self.bank, self.state.bolt)
        self._bank_current = True
        return self.bank

    def current_bank(self) -> MemoryBank:
        """The bank as it is on disk: read again unless nothing could have changed it since it was read."""
        return self.bank if self._bank_current else self.reload()

    def decide(self, decision: Decision, reason: str | None) -> None:
        """Record a person's decision on the gate the run waits at, exactly as `aidlc gate` does."""
        from aidlc.gates.actor import actor_from
        from aidlc.gates.decide import decide

        stage = {S.await_plan_approval: "plan", S.await_acceptance: "walkthrough"}.get(self.state.status)
        if stage is None:
            raise UsageError(f"run {self.state.run_id} is at {self.state.status.value}, not waiting at a gate; "
                             "--approve/--reject decide a gate", [f"aidlc bolt resume {self.state.bolt}"])
        decide(self.current_bank(), self.state.bolt, stage, decision, reason, actor_from(self.repo, None),
               head=self.state.last_commit)
        self._bank_current = False  # the decision's effects changed it

    def gate(self, stage: str) -> tuple[str, str | None]:
        """("approved" | "rejected" | "waiting", reason) for the gate, as the ledger holds it for the file now."""
        from aidlc.gates.catalogue import fingerprint
        from aidlc.gates.decide import resolve
        from aidlc.gates.history import standing

        bank = self.current_bank()
        index = BankIndex(bank)
        target = resolve(bank, index, self.state.bolt, stage)
        history = open_view(self.ledger).history
        if standing(history, bank, index, target, stage) is None:
            return "approved", None
        latest = history.latest(target.kind, target.id, stage)
        now = fingerprint(bank, index, target, stage, latest)
        if latest and latest.get("decision") == "reject" and now is not None \
                and (latest.get("fingerprint") or {}).get("sha256") == now.sha256:
            return "rejected", latest.get("reason") or "no reason given"
        return "waiting", None

    def await_plan(self) -> None:
        verdict, reason = self.gate("plan")
        risk = self.policy_risk()
        if verdict == "waiting" and risk is not None:
            from aidlc.gates.decide import decide

            policy = Actor(kind=ActorKind.policy, name="policy.auto_approve_plan")
            decide(self.current_bank(), self.state.bolt, "plan", Decision.approve,
                   f"risk {risk} is in policy.auto_approve_plan", policy, policy_risk=risk, head=self.state.last_commit)
            self._bank_current = False  # the decision's effects changed it
            self.span("decision", "plan approved by policy", data={"reason": f"risk {risk}"})
            verdict = "approved"
        if verdict == "approved":
            self.move(S.executing, "the plan gate is approved")
            return
        if verdict == "rejected":
            self.state.rejections.append(reason or "")
            if len(self.state.rejections) > MAX_REJECTIONS:
                raise Failed(f"a person rejected {len(self.state.rejections)} plans; the last reason: {reason}")
            self.state.plan = None
            self.move(S.planning, f"the plan was rejected: {reason}")
            return
        raise self.waiting_at("plan", f"{self.bolt_dir}/{plans.PLAN_FILE}", "the model plans again")

    def waiting_at(self, stage: str, judged: str, after_reject: str) -> Paused:
        """The pause at a gate of the bolt, with the two ways on (and what a rejection does)."""
        bolt = self.state.bolt
        return Paused(f"{stage}_gate", f"the {stage} of bolt {bolt} waits for a person: {judged}",
                      [f"aidlc gate approve {bolt} --stage {stage} && aidlc bolt resume {bolt}",
                       f"or: aidlc bolt resume {bolt} --approve",
                       f"or: aidlc bolt resume {bolt} --reject --reason '...'    # {after_reject}"])

    def ask_at_gate(self, pause: Paused) -> Paused | None:
        """A person at the terminal decides the gate now (None: decided, the loop goes on); else the pause."""
        stage = {"plan_gate": "plan", "walkthrough_gate": "walkthrough"}.get(pause.kind)
        if self.ask is None or stage is None:
            return pause
        from aidlc.gates.actor import actor_from

        try:
            actor = actor_from(self.repo, None)
        except AidlcError as exc:
            return Paused(pause.kind, f"{pause.reason}; not asked: {exc.message}", [*exc.next_steps, *pause.next_steps])
        if actor.kind != ActorKind.human:  # as `aidlc gate` refuses it: AI proposes, a human decides
            return Paused(pause.kind, f"{pause.reason}; not asked: the {stage} gate is a human checkpoint and actor "
                          f"{actor.name} is {actor.kind.value}", pause.next_steps)
        self.tick()
        self._bank_current = False  # a person may edit it before answering
        answer = self.ask(self.question(stage))
        self._tick = time.monotonic()  # the time a person took to answer is not the run's work
        if answer is None:
            return pause
        try:
            self.decide(answer.decision, answer.reason)
        except AidlcError as exc:  # refused as `aidlc gate` would refuse it (a bot, no signature, unchecked boxes)
            return Paused(pause.kind, f"{pause.reason}; the decision was refused: {exc.message}",
                          [*exc.next_steps, *pause.next_steps])
        self.span("decision", f"{stage} gate {answer.decision.value}", status=answer.decision.value,
                  data={"reason": f"decided at the terminal: {answer.reason or 'no reason given'}"})
        return None

    def question(self, stage: str) -> GateQuestion:
        state = self.state
        plan = state.plan
        risks = [*(plan.risks if plan else []), *state.risks]
        if stage == "plan":
            assert plan is not None
            return GateQuestion("plan", state.bolt, f"{self.bolt_dir}/{plans.PLAN_FILE}", plan.summary,
                                [f"{f.action} {f.path}: {f.reason}" for f in plan.files], risks,
                                "the model plans again")
        rounds = [f"{c['stage']}: " + ", ".join(f"{r['name']} {'passed' if r['passed'] else 'FAILED'}"
                                              for r in c["results"]) for c in state.checks]
        summary = "; ".join([plan.summary if plan else state.goal, *rounds[-1:]])
        return GateQuestion("walkthrough", state.bolt, f"{self.bolt_dir}/{plans.WALKTHROUGH_FILE}", summary,
                            list(state.touched), risks, AFTER_WALKTHROUGH_REJECT)

    def policy_risk(self) -> plans.Risk | None:
        """The plan's risk when policy.auto_approve_plan lets it through (low or medium only), else None."""
        assert self.state.plan is not None
        risk = plans.plan_risk(self.state.plan, self.bolt.meta.risk if self.bolt.meta else None)
        allowed = self.config.policy.auto_approve_plan
        return risk if risk in allowed and risk in (plans.Risk.low, plans.Risk.medium) else None

    def await_acceptance(self) -> None:
        verdict, reason = self.gate("walkthrough")
        if verdict == "approved":
            self.state.outcome = "completed: the walkthrough was accepted"
            self.move(S.completed, self.state.outcome)
            self.event(EventType.run_finished, "finished", data={"status": "COMPLETED"})
            return
        if verdict == "rejected":
            self.rework(reason or "no reason given")
            return
        raise self.waiting_at("walkthrough", f"{self.bolt_dir}/{plans.WALKTHROUGH_FILE} (branch {self.state.branch})",
                              AFTER_WALKTHROUGH_REJECT)

    def rework(self, reason: str) -> None:
        """A rejected walkthrough sends the work back (docs/design.md, Gates): the model plans again with the reviewer's
        reason, on top of the work so far, and the new plan waits for a person like the first."""
        state = self.state
        if len(state.reworks) >= MAX_REWORKS:
            raise Failed(f"a person rejected {len(state.reworks) + 1} walkthroughs; the last reason: {reason}")
        state.reworks.append(reason)
        state.plan = None
        state.repairs = 0  # each plan gets policy.max_repairs rounds of its own
        state.failures = []
        self.move(S.planning, f"the walkthrough was rejected: {reason}; rework round {len(state.reworks)} of at "
                              f"most {MAX_REWORKS} plans again")

    # -- EXECUTING and REPAIRING ---------------------------------------------------------------------------
    def executing(self) -> None:
        self.edit_step(self.stage("execute"))
        self.move(S.verifying, "the execute step is committed")

    def repairing(self) -> None:
        stage = self.stage(f"repair-{self.state.repairs}")
        self.edit_step(stage)
        tree = self.state.trees[-1]
        if tree in self.state.trees[:-1]:
            raise Failed(f"{stage} brought the tree back to an earlier state; the repairs go in circles")
        self.move(S.verifying, f"{stage} is committed")

    def allowed(self, rel: str) -> bool:
        return self.state.plan is not None and any(plans.normal(f.path) == rel for f in self.state.plan.files)

    def edit_step(self, stage: str) -> None:
        """Ask for edits (unless an answer is saved), apply them all or none, commit; each part done once."""
        from aidlc.bolt import edits

        state = self.state
        trailers = {"Aidlc-Run": state.run_id, "Aidlc-Stage": stage}
        committed = vcs.commit_with_trailers(self.repo, state.base_commit, trailers) if self.continuing else None
        if committed is None:
            messages = self.edit_messages(stage, [])
            if state.pending is None or state.pending.stage != stage:
                answer = self.call(messages, stage, "edit")
                state.pending = Pending(stage=stage, answer_file=f"{stage}.answer.txt", whole_file=state.whole_file)
                self.store.write_text(state.pending.answer_file, answer)
                self.save()
            else:  # a saved answer an earlier process may have half applied: its files back as committed first
                answer = self.store.read_text(state.pending.answer_file)
                planned = [p for f in state.plan.files if (p := plans.normal(f.path))] if state.plan else []
                dirty = set(vcs.changed_paths(self.repo))
                changed = [p for p in planned if p in dirty]
                with edits.fresh_mtimes(self.repo, changed):  # git writes them: same second, maybe same size
                    vcs.restore_paths(self.repo, state.last_commit, changed)
            written = None
            for attempt in range(1, MAX_EDIT_ATTEMPTS + 1):
                try:
                    blocks = edits.parse_edit_blocks(answer, whole_file=state.pending.whole_file)
                    prepared = edits.prepare_edits(self.repo, blocks, self.allowed)
                    written = prepared.apply()
                    break
                except edits.EditFormatError as exc:
                    state.format_failures += 1
                    problems = [exc.message]
                except edits.EditRefused as exc:
                    problems = list(exc.problems)
                self.span("edit", stage, status="refused", data={"problems": problems})
                if attempt == MAX_EDIT_ATTEMPTS:
                    raise Failed(f"{stage}: no answer could be applied in {MAX_EDIT_ATTEMPTS} tries: {problems[0]}")
                if state.format_failures >= WEAK_AFTER:
                    state.whole_file = True
                retry = render_prompt("bolt_edit_retry.md.j2", problems=problems, whole_file=state.whole_file,
                                      edit_format=self.edit_format())
                messages = [*messages, Message("assistant", answer), Message("user", retry)]
                answer = self.call(messages, stage, "edit")
                state.pending = Pending(stage=stage, answer_file=state.pending.answer_file,
                                        whole_file=state.whole_file)
                self.store.write_text(state.pending.answer_file, answer)
                self.save()
            assert written is not None
            self.span("edit", stage, status="applied", data={"files": written})
            state.touched.extend(p for p in written if p not in state.touched)
            message = (f"aidlc {stage}: bolt {state.bolt}\n\n{(state.plan.summary if state.plan else '')[:500]}\n\n"
                       f"Aidlc-Bolt: {state.bolt}\nAidlc-Run: {state.run_id}\nAidlc-Stage: {stage}\n"
                       f"Aidlc-Model: {state.model or 'unknown'}\n")
            committed = vcs.commit_step(self.repo, sorted(set(written) | self.own_existing()), message,
                                        state.last_commit)
        state.last_commit = committed
        if not any(c["stage"] == stage for c in state.commits):
            state.commits.append({"stage": stage, "commit": committed})
            planned = [p for f in state.plan.files if (p := plans.normal(f.path))] if state.plan else []
            state.trees.append(_files_digest(self.repo, planned))  # the code, not aidlc's own files
        state.pending = None  # saved by the transition that follows (a kill before it: the commit is found again)
        self.event(EventType.edits_committed, f"commit:{stage}", commit=committed,
                   data={"stage": stage, "files": state.touched})

    def edit_format(self) -> str:
        from aidlc.bolt import edits

        return edits.edit_format_prompt(whole_file=self.state.whole_file)

    def edit_messages(self, stage: str, problems: list[str]) -> list[Message]:
        state = self.state
        assert state.plan is not None
        if stage == self.stage("execute"):
            pieces = self.file_pieces([f.path for f in state.plan.files if f.action != "create"], 100)
            context = self.fit([*pieces, *self.bolt_pieces()], stage)
            user = render_prompt("bolt_execute.md.j2", bolt=state.bolt, summary=state.plan.summary,
                                 files=state.plan.files, tests=state.plan.tests, warning=None,
                                 rework=state.reworks[-1] if state.reworks else None,
                                 edit_format=self.edit_format(), context=context)
        else:
            failing = next(r for r in state.checks[-1]["results"] if not r["passed"])
            output = _excerpt(failing)
            pieces = [ContextPiece(f"output of {failing['name']}", output[-OUTPUT_CHARS:], 100, required=True),
                      *self.file_pieces(state.touched or [f.path for f in state.plan.files], 90)]
            context = self.fit(pieces, stage)
            user = render_prompt("bolt_repair.md.j2", check=failing, bolt=state.bolt, round=state.repairs,
                                 max_repairs=self.config.policy.max_repairs, problems=problems, warning=None,
                                 allowed=[f.path for f in state.plan.files], edit_format=self.edit_format(),
                                 context=context)
        return [system_message(f"implement bolt {state.bolt}"), Message("user", user)]

    def fit(self, pieces: list[ContextPiece], stage: str) -> str:
        """The context within the token budget; what had to be left out or cut is traced."""
        fitted = fit_context(pieces, CONTEXT_TOKENS)
        if (trimmed := fitted.trimmed()) is not None:
            self.span("warning", "context", data={"message": f"{stage}: the context exceeded {CONTEXT_TOKENS} "
                                                             f"tokens: {trimmed}"})
        return fitted.render()

    def file_pieces(self, paths: list[str], priority: int) -> list[ContextPiece]:
        found = []
        for rel in paths:
            path = self.repo / rel
            try:
                text = read_inside(path, self.repo).decode("utf-8", errors="replace")
            except OSError:
                continue
            found.append(ContextPiece(rel, text, priority))
        return found

    def bolt_pieces(self) -> list[ContextPiece]:
        index = BankIndex(self.bank)
        rels = [(self.bolt.rel, 80)] + [(s.rel, 70) for s in index.stories_of(self.bolt)] + \
               [(rel, 20) for rel in self.bank.standards]
        return [replace(p, text=_without_progress_dates(p.text))
                for rel, priority in rels for p in self.file_pieces([rel], priority)]

    # -- VERIFYING -----------------------------------------------------------------------------------------
    def verifying(self) -> None:
        from aidlc.bolt.checks import run_checks
        from aidlc.bolt.weakening import weakened_tests

        state = self.state
        stage = state.commits[-1]["stage"]
        if state.checks and state.checks[-1]["commit"] == state.last_commit:
            results = state.checks[-1]["results"]  # recorded before a pause or a crash: not run again
        else:
            began = time.monotonic()
            self._bank_current = False  # a person may edit it while the checks run
            checked = run_checks(self.repo, self.config.verify, env=self.check_env(), on_start=self.check_started)
            results = [r.model_dump(mode="json") for r in checked]
            state.checks.append({"stage": stage, "commit": state.last_commit, "results": results})
            state.check_group = None
            self.save()
            for result in checked:
                self.span("check", result.name, status="passed" if result.passed else "failed",
                          duration_s=result.duration_s, data={"exit_code": result.exit_code})
            self.span("tool_call", "verify", duration_s=round(time.monotonic() - began, 4))
        self.record_checks(stage, results)
        before, baseline = self.test_baseline(results)
        # The run's aidlc.yaml is the base commit's (the tree was clean; a change to it shows in the diff).
        verify = [v.model_dump() for v in self.config.verify]
        flags = weakened_tests(self.repo, state.base_commit, state.last_commit, before, _counts(results), baseline,
                               verify)
        fresh = [f for f in flags if f not in state.accepted_risks]
        if fresh:
            state.risks.extend(f for f in fresh if f not in state.risks)
            self.save()
            raise Paused("risk", f"the edits of {stage} may weaken the tests: {'; '.join(fresh)}",
                         [f"git show {state.last_commit[:12]}    # look at the change",
                          f"aidlc bolt resume {state.bolt}    # accept the risk and go on (it is named in the "
                          "walkthrough)", f"aidlc bolt abort {state.bolt} --reason '...'"])
        failing = [r for r in results if not r["passed"]]
        if not failing:
            self.move(S.walkthrough, f"every check passed at {stage}")
            return
        signature = _signature(failing[0])
        if state.failures and state.failures[-1] == signature:
            raise Failed(f"the same failure twice in a row ({failing[0]['name']}): the repair did not help")
        state.failures.append(signature)
        if state.repairs >= self.config.policy.max_repairs:
            raise Failed(f"checks still fail after {state.repairs} repair round(s) (policy.max_repairs): "
                         f"{failing[0]['name']} exit {failing[0]['exit_code']}")
        state.repairs += 1
        self.move(S.repairing, f"{failing[0]['name']} failed; repair round {state.repairs}")

    def test_baseline(self, results: list[dict[str, Any]]) -> tuple[Any, str]:
        """The test counts "fewer tests than before" compares with, and where they come from: the latest
        check.recorded of the same check at the run's base commit in the ledger (a person's CI, an earlier run),
        else the run's first check round."""
        from aidlc.bolt.checks import TestCounts

        state = self.state
        name = next((r["name"] for r in results if r.get("tests")), None)
        if name is None:
            return None, ""
        recorded = None
        for event in self.ledger.events():
            data = event.get("data") or {}
            if event.get("type") == EventType.check_recorded.value and event.get("commit") == state.base_commit \
                    and data.get("name") == name and data.get("tests"):
                recorded = event
        if recorded is not None:
            counts, where = TestCounts.model_validate(recorded["data"]["tests"]), \
                f"at the base commit {state.base_commit[:12]} (check.recorded by {recorded['actor']['name']})"
        else:
            first = [r for r in state.checks[0]["results"] if r["name"] == name and r.get("tests")]
            if len(state.checks) < 2 or not first:
                return None, ""
            counts, where = TestCounts.model_validate(first[0]["tests"]), "in the run's first check round"
        self.span("decision", "test count baseline",
                  data={"reason": f"{name}: {counts.total} tests, {counts.skipped} skipped {where}"})
        return counts, where

    def check_env(self) -> dict[str, str]:
        """What the checks' environment is chosen from: this process's, and the run's id, by which a leftover check
        is known and a gate decision from below a check refused."""
        return {**os.environ, RUN_VARIABLE: self.state.run_id}

    def check_started(self, group: int) -> None:
        """Saved before aidlc waits on the check: if aidlc is killed, resume or abort ends the group."""
        self.state.check_group = group
        self.save()

    def record_checks(self, stage: str, results: list[dict[str, Any]]) -> None:
        from aidlc.bolt.checks import CheckResult, check_event

        for position, result in enumerate(results):
            fields = check_event(CheckResult.model_validate(result), self.state.last_commit, self.state.run_id,
                                 Subject(kind="bolt", id=self.state.bolt))
            fields.pop("type", None)
            fields.pop("key", None)
            fields.setdefault("subject", Subject(kind="bolt", id=self.state.bolt))
            fields.setdefault("run", self.state.run_id)
            self.ledger.append(EventType.check_recorded, self.actor(),
                               key=f"run:{self.state.run_id}:check:{stage}:{position}", **fields)

    # -- WALKTHROUGH ---------------------------------------------------------------------------------------
    def write_walkthrough(self, partial: bool) -> None:
        state = self.state
        rel = f"{self.bolt_dir}/{plans.WALKTHROUGH_FILE}"
        stage = self.stage("walkthrough")
        trailers = {"Aidlc-Run": state.run_id, "Aidlc-Stage": stage}
        done = vcs.commit_with_trailers(self.repo, state.base_commit, trailers) if self.continuing else None
        if done is None:  # once: the file a person judges is the one committed
            write_walkthrough(self.repo, self.current_bank(), state.bolt, run_state=state, partial=partial, run=False)
        sha256 = plans.digest((self.repo / rel).read_bytes())
        # A run that failed before its branch was checked out (resumed at INIT) has no branch to commit on.
        if done is None and (not self.continuing or vcs.current_branch(self.repo) == state.branch):
            message = (f"aidlc walkthrough: bolt {state.bolt}\n\n"
                       f"Aidlc-Bolt: {state.bolt}\nAidlc-Run: {state.run_id}\nAidlc-Stage: {stage}\n"
                       f"Aidlc-Model: {state.model or 'unknown'}\n")
            state.last_commit = vcs.commit_step(self.repo, sorted(self.own_existing() | {rel}), message,
                                                state.last_commit)  # saved by the move
        self.event(EventType.walkthrough_proposed, stage, commit=state.last_commit,
                   data={"partial": partial, "path": rel, "sha256": sha256})

    def walkthrough(self) -> None:
        self.write_walkthrough(partial=False)
        self.move(S.await_acceptance, "the walkthrough is written")

    # -- guards on resume ----------------------------------------------------------------------------------
    def check_unchanged(self) -> None:
        """HEAD, the branch and the plan must be as the run left them; else nothing is touched (exit 2)."""
        state = self.state
        tree = vcs.work_tree(self.repo)
        branch, head = tree.branch, tree.head
        if branch != state.branch and state.status != S.init:
            raise UsageError(f"run {state.run_id} works on branch {state.branch}, but "
                             f"{branch or 'a detached HEAD'} is checked out",
                             [f"git checkout {state.branch}", f"aidlc bolt resume {state.bolt}"])
        if head != state.last_commit and head is not None:
            # A kill between a step's commit and the state that names it: the commit is the run's own.
            adopted = vcs.commit_with_trailers(self.repo, state.last_commit, {"Aidlc-Run": state.run_id})
            if adopted == head and vcs.parents(self.repo, head) == [state.last_commit]:
                state.last_commit = head
                self.save()
            else:
                back = [f"git checkout {state.branch} && git reset --keep {state.last_commit[:12]}"
                        "    # back to where the run stopped (keeps your commits reachable by sha)"]
                if any(_aidlc_file(c.path, self.bank.rel_root)
                       for c in vcs.changed_files_between(self.repo, state.last_commit, head)):
                    back = []  # going back would take the ledger (its approvals) or the bank with it
                raise UsageError(f"HEAD moved under run {state.run_id}: it left HEAD at {state.last_commit[:12]}, "
                                 f"HEAD is now {(head or 'nothing')[:12]}; resuming would build on work it did not "
                                 "check", [*back, f"aidlc bolt abort {state.bolt} --reason 'HEAD moved'    # "
                                           + ("or end it" if back else "end it; its branch and commits stay")])
        if state.plan_hash and state.status != S.planning:
            self.check_plan()
        own = self.own_files()
        allowed = own | ({p for f in state.plan.files if (p := plans.normal(f.path))}
                         if state.pending and state.plan else set())
        dirty = []
        for rel in tree.changed:
            if _leftover(rel, own):
                (self.repo / rel).unlink(missing_ok=True)  # a kill mid-write of a file aidlc rewrites anyway
            elif rel not in allowed and not rel.startswith(".aidlc/"):
                dirty.append(rel)
        if dirty:
            raise UsageError(f"uncommitted changes to files the run did not make: {', '.join(dirty[:5])}",
                             [set_aside(dirty, self.bank.rel_root), f"aidlc bolt resume {state.bolt}"])

    def check_plan(self) -> None:
        """The plan the run follows is the plan file a person (or the policy) approved. state.json is the run's
        notebook, and any process of the user's (code a check ran) may have written it: its plan must render to
        the plan file byte for byte, and past the plan gate that file must be the one the ledger's approval judged."""
        state = self.state
        rel = f"{self.bolt_dir}/{plans.PLAN_FILE}"
        path = self.repo / rel
        now = plans.digest(path.read_bytes()) if path.is_file() else None
        start_again = [f"aidlc bolt abort {state.bolt}", f"aidlc bolt start {state.bolt}    # a new run, a new plan"]
        if now != state.plan_hash:
            raise UsageError(f"{rel} changed under run {state.run_id}: the approved plan is no longer what the run "
                             "follows", [f"git checkout -- {rel}    # restore it", *start_again])
        state_file = self.store.state_file.relative_to(self.repo).as_posix()
        if state.plan is None or plans.digest(plans.render_plan(state)) != now:
            raise UsageError(f"{state_file}: its plan is not the plan in {rel} (edited outside aidlc); a run follows "
                             "only the plan that was approved, nothing was touched", start_again)
        if state.status != S.await_plan_approval and self.gate("plan")[0] != "approved":
            raise UsageError(f"{rel} is not the plan the ledger's plan approval judged; a run follows only the plan "
                             "that was approved, nothing was touched", start_again)


# -- helpers -----------------------------------------------------------------------------------------------------
def _goal(bolt: BoltItem) -> str:
    body = bolt.doc.body.split("## Objective", 1)[-1] if "## Objective" in bolt.doc.body else ""
    lines = [line.strip() for line in body.strip().splitlines()]
    paragraph = []
    for line in lines:
        if line.startswith("#"):
            break
        if line:
            paragraph.append(line)
    return " ".join(paragraph)[:500] or f"deliver the stories of bolt {bolt.id}"


def _own_files(bank: MemoryBank, bolt: BoltItem) -> set[str]:
    """What aidlc itself changes during a run (and a person's gate decision while it waits): never dirty."""
    folder = Path(bolt.rel).parent.as_posix()
    stories = [s.rel for s in BankIndex(bank).stories_of(bolt)]
    return {Ledger.of_bank(bank.repo_root, bank.rel_root).rel, bolt.rel, f"{folder}/{plans.PLAN_FILE}",
            f"{folder}/{plans.WALKTHROUGH_FILE}", *stories}


def _dirty(changed: list[str], bank: MemoryBank, bolt: BoltItem) -> list[str]:
    own = _own_files(bank, bolt)
    return [p for p in changed if p not in own and not p.startswith(".aidlc/")
            and not _leftover(p, own)]


def set_aside(dirty: list[str], bank_root: str) -> str:
    """How to put a person's uncommitted changes aside without taking aidlc's own files (the ledger with its
    approvals, the bank, .aidlc/) along: a stash of exactly those files, else of everything outside aidlc's."""
    if len(dirty) <= 10:
        return f"git stash push --include-untracked -- {' '.join(shlex.quote(p) for p in dirty)}    # or commit them"
    return (f"git stash push --include-untracked -- . {shlex.quote(f':(exclude){bank_root}')} "
            "':(exclude).aidlc'    # or commit them; aidlc's own files stay")


def _aidlc_file(rel: str, bank_root: str) -> bool:
    return rel.startswith((f"{bank_root}/", ".aidlc/"))


def _leftover(rel: str, own: set[str]) -> bool:
    """The temporary file of an atomic write of one of aidlc's own files that a kill left behind."""
    folder, _, name = rel.rpartition("/")
    return name.startswith(".") and name.endswith(".tmp") and any(
        o.rpartition("/")[0] == folder and name.startswith(f".{o.rpartition('/')[2]}.") for o in own)


def _tracked(repo: Path) -> list[str]:
    return vcs.tracked_files(repo)[:300]  # the layout, not the whole of a large repository


def _files_digest(repo: Path, paths: list[str]) -> str:
    """The planned files as the step's commit holds them, read from the work tree it was made from (a missing
    file counts as missing): the same code twice, the same digest."""
    listing = []
    for rel in sorted(paths):
        try:
            listing.append(f"{rel}\0{hashlib.sha256(read_inside(repo / rel, repo)).hexdigest()}")
        except OSError:
            listing.append(f"{rel}\0missing")
    return _digest("\n".join(listing))


def _run_marker(run_id: str) -> str:
    """What the environment of the run's checks holds (see Runner.check_env)."""
    return f"{RUN_VARIABLE}={run_id}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _counts(results: list[dict[str, Any]]) -> Any:
    from aidlc.bolt.checks import TestCounts

    for result in results:
        if result.get("tests"):
            return TestCounts.model_validate(result["tests"])
    return None


def _excerpt(result: dict[str, Any]) -> str:
    from aidlc.bolt.checks import CheckResult

    return CheckResult.model_validate(result).excerpt()


# What differs between two runs of the same failure: durations, object addresses.
_NOISE = re.compile(r"\b\d+(\.\d+)?\s*(s|ms|sec|secs|seconds)\b|0x[0-9a-f]+")


def _signature(result: dict[str, Any]) -> str:
    """A failure without its timings: the same failure twice has the same signature."""
    text = _NOISE.sub("#", f"{result['name']}|{result.get('exit_code')}|{_excerpt(result)}")
    return _digest(text)


# When a gate was passed says nothing about the work; left in, it would make each prompt differ from run to run
# (a recorded cassette could never be replayed).
_PROGRESS_DATE = re.compile(r"^(started|completed|updated):[^\n]*\n", re.M)


def _without_progress_dates(text: str) -> str:
    """The file with the progress dates of its front matter left out (the rest as written)."""
    if not text.startswith("---"):
        return text
    end = text.find("\n---", 3)
    if end < 0:
        return text
    return _PROGRESS_DATE.sub("", text[:end + 1]) + text[end + 1:]

