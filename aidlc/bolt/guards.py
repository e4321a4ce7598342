"""What must hold before a run starts or goes on, else nothing is touched (exit 2): a clean tree, no other
unfinished run, and on resume HEAD, the branch and the approved plan as the run left them (docs/design.md, The
bolt: State is a file)."""

from __future__ import annotations

from dataclasses import dataclass

from aidlc import vcs
from aidlc.bank.items import BoltItem
from aidlc.bank.walk import read_inside
from aidlc.bolt import plan as plans
from aidlc.bolt.checks import check_data
from aidlc.bolt.groups import GRACE_S, end_leftover_group
from aidlc.bolt.session import RunSession, S, leftover, own_files
from aidlc.bolt.standing import gate
from aidlc.bolt.store import RunStore, all_runs, unrecorded_end
from aidlc.errors import UsageError
from aidlc.events.ledger import utc_now
from aidlc.model.checks import CheckResult
from aidlc.model.events import CheckData, Event, most_spent
from aidlc.model.run import RunState, Span
from aidlc.names import arg, path_segment
from aidlc.processes import RUN_VARIABLE
from aidlc.workspace import Workspace


@dataclass(frozen=True)
class StartPoint:
    """Where a run of the bolt would start: what `preflight` found."""

    bolt: BoltItem
    branch: str  # the run's branch, aidlc/<bolt>
    base: str  # HEAD's commit, which the branch starts from
    start_branch: str | None  # what is checked out now


def preflight(workspace: Workspace, bolt_ref: str) -> StartPoint:
    """Everything `start` checks before it touches anything (what `--dry-run` reports)."""
    repo, bank = workspace.root, workspace.bank
    bolt = workspace.bolt(bolt_ref)
    workspace.verified_view("a bolt run records its milestones there and starts nothing")
    if not bank.config.verify:
        raise UsageError("aidlc.yaml has no verify commands: a run could not check its own work",
                         ["add one under verify: in aidlc.yaml, e.g. `- {name: tests, run: python -m pytest -q}`"])
    for earlier in all_runs(repo):
        if earlier.bolt == bolt.id and (not earlier.terminal or unrecorded_end(workspace.ledger, earlier)):
            raise UsageError(f"bolt {bolt.id} has an unfinished run {earlier.run_id} ({earlier.status.value}"
                             f"{'' if not earlier.terminal else ' in its state.json; the ledger records no end'})",
                             [f"aidlc bolt resume {arg(bolt.id)}",
                              f"aidlc bolt abort {arg(bolt.id)}    # then start again"])
    tree = vcs.work_tree(repo)
    head = tree.head
    if head is None:
        raise UsageError(f"{repo} has no commit yet; a run branches from HEAD",
                         ["git add -A && git commit -m 'initial commit'"])
    dirty = _dirty(tree.changed, workspace, bolt)
    if dirty:
        raise UsageError(f"uncommitted changes to {len(dirty)} file(s) the run did not make: "
                         f"{', '.join(dirty[:5])}{' ...' if len(dirty) > 5 else ''}; nothing was touched",
                         [set_aside(dirty, bank.rel_root), f"aidlc bolt start {arg(bolt.id)}"])
    branch = f"aidlc/{path_segment(bolt.id, f'{bolt.rel}: the bolt id')}"
    if vcs.branch_commit(repo, branch) is not None:
        raise UsageError(f"branch {branch} exists already (an earlier run?)",
                         [f"git branch -m {arg(branch)} {arg(branch + '-old')}    # keep it under another name",
                          f"git branch -D {arg(branch)}    # or drop it, then start again"])
    return StartPoint(bolt=bolt, branch=branch, base=head, start_branch=tree.branch)


def end_leftover_check(store: RunStore, state: RunState) -> None:
    """A check an aidlc killed with SIGKILL left running would overlap the next one: end its group first."""
    if state.check_group is None:
        return
    group, state.check_group = state.check_group, None
    if end_leftover_group(group, run_marker(state.run_id)):
        store.trace(Span(ts=utc_now(), kind="warning", name="leftover check", data={
            "message": f"a check (process group {group}) was still running, left by an aidlc that was killed: "
                       f"ended it (SIGTERM, then SIGKILL after {GRACE_S:g} s)"}))
    store.save(state)


def run_marker(run_id: str) -> str:
    """What the environment of the run's checks holds (see aidlc.bolt.verify.check_env)."""
    return f"{RUN_VARIABLE}={run_id}"


def check_unchanged(run: RunSession) -> None:
    """HEAD, the branch and the plan must be as the run left them; else nothing is touched (exit 2)."""
    state = run.state
    check_start(run)  # first: the branch and base the checks below compare with are the run's own
    tree = vcs.work_tree(run.repo)
    if tree.branch != state.branch and state.status != S.init:
        raise UsageError(f"run {state.run_id} works on branch {state.branch}, but "
                         f"{tree.branch or 'a detached HEAD'} is checked out",
                         [f"git checkout {arg(state.branch)}", f"aidlc bolt resume {arg(state.bolt)}"])
    if tree.head != state.last_commit and tree.head is not None:
        _adopt_or_refuse(run, tree.head)
    if state.status not in (S.init, S.planning):  # past the plan's proposal: the run follows that plan only
        check_plan(run)
    check_rounds(run)
    check_loop(run)
    check_pending(run)
    own = run.own_files
    allowed = own | (set(run.planned()) if state.pending else set())
    dirty = []
    for rel in tree.changed:
        if leftover(rel, own):
            (run.repo / rel).unlink(missing_ok=True)  # a kill mid-write of a file aidlc rewrites anyway
        elif rel not in allowed and not rel.startswith(".aidlc/"):
            dirty.append(rel)
    if dirty:
        raise UsageError(f"uncommitted changes to files the run did not make: {', '.join(dirty[:5])}",
                         [set_aside(dirty, run.bank.rel_root), f"aidlc bolt resume {arg(state.bolt)}"])


def _adopt_or_refuse(run: RunSession, head: str) -> None:
    """HEAD is not where the run left it. A kill between a step's commit and the state that names it: the commit
    is the run's own, and the run takes it. Anything else was not checked by the run: refused."""
    state = run.state
    adopted = vcs.commit_with_trailers(run.repo, state.last_commit, {"Aidlc-Run": state.run_id})
    if adopted == head and vcs.parents(run.repo, head) == [state.last_commit]:
        state.last_commit = head
        run.save()
        return
    back = [f"git checkout {arg(state.branch)} && git reset --keep {state.last_commit[:12]}"
            "    # back to where the run stopped (keeps your commits reachable by sha)"]
    if any(_aidlc_file(c.path, run.bank.rel_root)
           for c in vcs.changed_files_between(run.repo, state.last_commit, head)):
        back = []  # going back would take the ledger (its approvals) or the bank with it
    raise UsageError(f"HEAD moved under run {state.run_id}: it left HEAD at {state.last_commit[:12]}, "
                     f"HEAD is now {head[:12]}; resuming would build on work it did not check",
                     [*back, f"aidlc bolt abort {arg(state.bolt)} --reason 'HEAD moved'    # "
                      + ("or end it" if back else "end it; its branch and commits stay")])


def check_plan(run: RunSession) -> None:
    """The plan the run follows is the plan file a person (or the policy) approved. state.json is the run's
    notebook, and any process of the user's (code a check ran) may have written it: its plan must render to the
    plan file byte for byte, and past the plan gate that file must be the one the ledger's approval judged."""
    state = run.state
    if state.plan is None or state.plan_hash is None:
        raise _edited_outside(run, f"it holds no plan or no plan hash at {state.status.value}",
                              "a run follows only the plan that was approved")
    rel = f"{run.bolt_dir}/{plans.PLAN_FILE}"
    path = run.repo / rel
    now = plans.digest(path.read_bytes()) if path.is_file() else None
    start_again = [f"aidlc bolt abort {arg(state.bolt)}",
                   f"aidlc bolt start {arg(state.bolt)}    # a new run, a new plan"]
    if now != state.plan_hash:
        raise UsageError(f"{rel} changed under run {state.run_id}: the approved plan is no longer what the run "
                         "follows", [f"git checkout -- {arg(rel)}    # restore it", *start_again])
    if plans.digest(plans.render_plan(state)) != now:
        raise _edited_outside(run, f"its plan is not the plan in {rel}", "a run follows only the plan that was "
                              "approved")
    if state.status != S.await_plan_approval and gate(run, "plan")[0] != "approved":
        raise UsageError(f"{rel} is not the plan the ledger's plan approval judged; a run follows only the plan "
                         "that was approved, nothing was touched", start_again)


def check_start(run: RunSession) -> None:
    """The run's base commit and branch are the ones its run.started event recorded: the run judges its edits (the
    tests they weaken, the files they change) from that base and commits only on that branch. Only a run stopped
    before it recorded its start (at INIT) has no such event; its first step records it. And a run that committed
    its execute step is past its plan: a status moved back there would turn a person's --approve at the
    walkthrough into a plan approval."""
    state = run.state
    started = run.ledger.find_key(f"run:{state.run_id}:started")
    if started is None and state.status == S.init:
        return
    if started is None or (started.datum("base"), started.datum("branch")) != (state.base_commit, state.branch):
        held = "holds no start of this run" if started is None else f"recorded it started from " \
            f"{str(started.datum('base'))[:12]} on branch {started.datum('branch')} (seq {started.seq})"
        raise _edited_outside(run, "its base commit and branch are not those the run started from",
                              f"the ledger {held}")
    executed = run.ledger.find_key(f"run:{state.run_id}:commit:{run.stage('execute')}")
    if executed is not None and state.status in (S.init, S.planning, S.await_plan_approval):
        raise _edited_outside(run, f"it is at {state.status.value}, but the run committed its execute step already "
                              f"(ledger seq {executed.seq})", "a gate is decided only where the run waits")


def check_pending(run: RunSession) -> None:
    """Before anything is touched on resume: a saved answer there is must be the one the model gave."""
    if run.state.pending is not None:
        pending_answer(run)


def pending_answer(run: RunSession) -> str:
    """The saved answer's text, read once and held to its digest: the ledger's edits.proposed event for it recorded
    the digest before it was saved. Code a check runs can write state.json and the run's folder (and kill aidlc, or
    leave a process behind that changes the file later): an answer it planted, or one changed since, would be
    committed as the model's work. The text returned is the bytes checked, never a second read."""
    pending = run.state.pending
    assert pending is not None  # called for a run that saved an answer
    event = run.ledger.find_key(f"run:{run.state.run_id}:answer:{pending.stage}:{pending.answer}") \
        if pending.answer is not None else None
    if event is None:
        raise edited_outside(run.store, run.state, f"it holds a saved answer for {pending.stage} that the ledger "
                             "records no model giving", "a run applies only the edits the model gave",
                             other="or saved by an aidlc that recorded no answer" if pending.answer is None else "")
    path = run.store.folder / pending.answer_file
    rel = path.relative_to(run.repo).as_posix()
    try:
        data: bytes | None = read_inside(path, run.repo)
    except OSError:
        data = None
    found = plans.digest(data) if data is not None else None
    if data is None or found != event.datum("sha256"):
        what = "is missing or cannot be read" if found is None else \
            f"is not the answer the model gave (sha256 {found[:12]}, recorded {str(event.datum('sha256'))[:12]})"
        raise UsageError(f"{rel}: the saved answer for {pending.stage} {what}; the ledger's edits.proposed event "
                         f"(seq {event.seq}) holds its digest, and a run applies only the edits the model gave; "
                         "nothing was touched",
                         [f"aidlc bolt abort {arg(run.state.bolt)}",
                          f"aidlc bolt start {arg(run.state.bolt)}    # a new run"])
    return data.decode("utf-8")  # the model's text, saved as UTF-8: the digest matched, so it decodes


def check_rounds(run: RunSession) -> None:
    """The check results the run saved are the ones it recorded in the ledger. Code a check runs can write
    state.json (and kill aidlc before it records anything): saved results count only as the ledger holds them.
    Only the round a run in VERIFYING was recording may be held in part, or not at all (aidlc stopped between
    saving and recording it): the rest is recorded on resume, and a round held not at all runs again."""
    state = run.state
    for number, saved in enumerate(state.checks):
        recording = number == len(state.checks) - 1 and saved.commit == state.last_commit \
            and state.status == S.verifying
        recorded = [run.ledger.find_key(f"run:{state.run_id}:check:{saved.stage}:{position}")
                    for position in range(len(saved.results))]
        if recording and not any(recorded):
            state.checks.pop()  # saved with the round that replaces it
            return
        for result, event in zip(saved.results, recorded, strict=True):
            if (event is None and not recording) or (event is not None and not _same(result, event, saved.commit)):
                raise _edited_outside(run, f"its result of check {result.name!r} at {saved.stage} is not the one "
                                      "the ledger recorded", "a run reports only checks it ran")
    if state.status == S.repairing and not (state.checks and state.checks[-1].failing()):
        raise _edited_outside(run, "it is repairing, but its last round of checks failed none",
                              "a run repairs only what its checks found")


def check_loop(run: RunSession) -> None:
    """What the loop counts, and where it stands at its end, are as the ledger records the run. Code a check ran can
    write state.json (and kill aidlc): a count written lower would give the loop more model calls, repairs or rework
    rounds than the policy allows, a status moved on to the walkthrough would send failing work to a person. A count
    written higher harms nothing, but is not the run's either: refused alike. (Its loop detector's digests and the
    signatures of its failures are not in the ledger: they only stop a run early, within these bounds.)"""
    state = run.state
    reworks, walked = len(state.reworks), run.recorded(lambda number: run.stage("walkthrough", number - 1))
    # A rework round follows a walkthrough of the run's; the round's own walkthrough is written at its end.
    at_end = state.status in (S.walkthrough, S.await_acceptance)
    if walked - reworks not in ((0, 1) if at_end else (0,)):
        raise _edited_outside(run, f"it is at {state.status.value} of rework round {reworks}, but the ledger holds "
                              f"{walked} walkthrough(s) of the run", "a rework follows only a walkthrough")
    last = _check_repairs(run)
    _check_spent(run, last)
    if at_end and not (state.outcome or "").startswith("failed: "):
        _check_passed(run, last)


def _check_spent(run: RunSession, last: str) -> None:
    """Never fewer model calls or tokens than the run's ledger events recorded it had spent (the budget's). A run's
    events record ever more, so the latest of each kind (found by key: the ledger is not read whole) hold the most;
    `last`: the stage of the round's last step committed."""
    state, budget = run.state, run.state.budget
    keys = ["started", f"commit:{last}", run.stage("walkthrough"),
            *(f"{kind}:{count}" for kind in ("plan", "paused", "resumed") if (count := run.recorded(kind)))]
    most = most_spent([event for key in keys if (event := run.ledger.find_key(f"run:{state.run_id}:{key}"))],
                      state.run_id)
    if most is not None and (budget.steps < most[0].steps or budget.tokens < most[0].tokens):
        raise _edited_outside(run, f"it has spent {budget.steps} model call(s) and {budget.tokens} token(s), but the "
                              f"ledger recorded {most[0].steps} and {most[0].tokens} by seq {most[1]}",
                              "a run spends at most the budget its policy allows")


def _check_repairs(run: RunSession) -> str:
    """The repair count is the repair steps of this round the ledger holds committed, and at REPAIRING the one being
    made (once the checks before it are recorded). Returns the stage of the round's last step committed."""
    state = run.state
    repairs = run.recorded(lambda number: f"commit:{run.stage(f'repair-{number}')}")
    last = run.stage(f"repair-{repairs}" if repairs else "execute")
    if state.status in (S.walkthrough, S.await_acceptance):
        return last  # _check_passed: a walkthrough follows passing checks, whatever the count
    checked = run.ledger.find_key(f"run:{state.run_id}:check:{last}:0") is not None
    if state.repairs != (repairs + checked if state.status == S.repairing else repairs):
        raise _edited_outside(run, f"its repair count {state.repairs} is not the ledger's: {repairs} repair step(s) "
                              f"of this round committed at {state.status.value}",
                              "a run repairs at most policy.max_repairs times")
    return last


def _check_passed(run: RunSession, last: str) -> None:
    """A walkthrough follows the checks of the round's last step when every one of them passed (a run stopping on
    failing checks ends FAILED from it)."""
    state = run.state
    step = run.ledger.find_key(f"run:{state.run_id}:commit:{last}")
    recorded = [run.ledger.find_key(f"run:{state.run_id}:check:{last}:{position}")
                for position in range(len(run.config.verify))]
    if step is None or not recorded or not all(
            event is not None and event.commit == step.commit and event.datum("passed") is True for event in recorded):
        raise _edited_outside(run, f"it is at {state.status.value}, but the checks the ledger recorded for the run's "
                              f"last step ({last}) do not all pass", "a walkthrough follows only checks that passed")


def check_not_ended(workspace: Workspace, store: RunStore, state: RunState) -> None:
    """A run goes on only while it has not ended, as the ledger records its end (run.finished): state.json saying
    it ended, or going on after the ledger recorded its end, was written by something else (an abort records the end
    first, so one stopped before its save leaves a run going on too: `abort` finishes it)."""
    finished = workspace.ledger.find_key(f"run:{state.run_id}:finished")
    if state.terminal and finished is not None:
        raise UsageError(f"run {state.run_id} of bolt {state.bolt} has ended ({state.status.value}); "
                         "nothing to resume",
                         [f"aidlc bolt trace {arg(state.run_id)}", f"aidlc bolt start {arg(state.bolt)}"])
    problem = unrecorded_end(workspace.ledger, state)
    if problem:
        raise edited_outside(store, state, problem, "a run ends only as the ledger records it")
    if finished is not None:
        raise edited_outside(store, state, f"it is at {state.status.value}, but the ledger recorded the run's end "
                             f"({finished.datum('status')}, seq {finished.seq})", "a run that ended goes no further",
                             "or an abort stopped before it saved it")


def _edited_outside(run: RunSession, what: str, why: str) -> UsageError:
    return edited_outside(run.store, run.state, what, why)


def edited_outside(store: RunStore, state: RunState, what: str, why: str,
                   other: str = "") -> UsageError:
    """state.json says `what`, which the run did not write (`other`: unless that happened): refused, and the run
    ended by a person."""
    state_file = store.state_file.relative_to(store.repo).as_posix()
    return UsageError(f"{state_file}: {what} (edited outside aidlc{', ' + other if other else ''}); {why}, nothing "
                      "was touched",
                      [f"aidlc bolt abort {arg(state.bolt)}", f"aidlc bolt start {arg(state.bolt)}    # a new run"])


def _same(result: CheckResult, event: Event, commit: str) -> bool:
    """The ledger's check.recorded `event` is what recording `result` at `commit` writes (its command aside: the
    ledger redacts a secret in it)."""
    held = CheckData.model_validate(event.data or {})
    return event.commit == commit and \
        check_data(result).model_dump(exclude={"command"}) == held.model_dump(exclude={"command"})


def _dirty(changed: list[str], workspace: Workspace, bolt: BoltItem) -> list[str]:
    own = own_files(workspace, bolt)
    return [p for p in changed if p not in own and not p.startswith(".aidlc/") and not leftover(p, own)]


def set_aside(dirty: list[str], bank_root: str) -> str:
    """How to put a person's uncommitted changes aside without taking aidlc's own files (the ledger with its
    approvals, the bank, .aidlc/) along: a stash of exactly those files, else of everything outside aidlc's."""
    if len(dirty) <= 10:
        return f"git stash push --include-untracked -- {' '.join(arg(p) for p in dirty)}    # or commit them"
    return (f"git stash push --include-untracked -- . {arg(f':(exclude){bank_root}')} "
            "':(exclude).aidlc'    # or commit them; aidlc's own files stay")


def _aidlc_file(rel: str, bank_root: str) -> bool:
    return rel.startswith((f"{bank_root}/", ".aidlc/"))
