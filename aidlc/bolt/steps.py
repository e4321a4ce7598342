"""The steps that commit: an Execute or Repair step (ask for edits, apply them all or none, commit) and the
walkthrough. Each part is done once: a saved answer is not asked for again, and a step's commit is found again by
its trailers (Aidlc-Run, Aidlc-Stage) before one is made (docs/design.md, The bolt: Edits are contained)."""

from __future__ import annotations

from aidlc import vcs
from aidlc.bank.walk import read_inside
from aidlc.bolt import edits
from aidlc.bolt import plan as plans
from aidlc.bolt.calls import call
from aidlc.bolt.context import edit_format, edit_messages
from aidlc.bolt.guards import pending_answer
from aidlc.bolt.session import Failed, RunSession
from aidlc.bolt.walkthrough import write_walkthrough
from aidlc.llm.base import Message
from aidlc.llm.prompts import render_prompt
from aidlc.model.events import EventType
from aidlc.model.run import Pending

MAX_EDIT_ATTEMPTS = 3  # answers per Execute/Repair step that cannot be applied
WEAK_AFTER = 2  # malformed edit answers before whole-file blocks are asked for


def edit_step(run: RunSession, stage: str) -> None:
    """Ask for edits (unless an answer is saved), apply them all or none, commit; each part done once."""
    state = run.state
    trailers = {"Aidlc-Run": state.run_id, "Aidlc-Stage": stage}
    committed = vcs.commit_with_trailers(run.repo, state.base_commit, trailers) if run.continuing else None
    if committed is None:
        messages = edit_messages(run, stage, [])
        written = _apply(run, stage, messages, _answer(run, stage, messages))
        run.span("edit", stage, status="applied", data={"files": written})
        state.touched.extend(p for p in written if p not in state.touched)
        message = (f"aidlc {stage}: bolt {state.bolt}\n\n{(state.plan.summary if state.plan else '')[:500]}\n\n"
                   f"Aidlc-Bolt: {state.bolt}\nAidlc-Run: {state.run_id}\nAidlc-Stage: {stage}\n"
                   f"Aidlc-Model: {state.model or 'unknown'}\n")
        committed = vcs.commit_step(run.repo, sorted(set(written) | run.own_existing()), message, state.last_commit)
    state.last_commit = committed
    if not any(c["stage"] == stage for c in state.commits):
        state.commits.append({"stage": stage, "commit": committed})
        state.trees.append(_files_digest(run, run.planned()))  # the code, not aidlc's own files
    state.pending = None  # saved by the transition that follows (a kill before it: the commit is found again)
    run.event(EventType.edits_committed, f"commit:{stage}", commit=committed,
              data={"stage": stage, "files": state.touched})


def _answer(run: RunSession, stage: str, messages: list[Message]) -> str:
    """The model's edits for the step: asked for and saved, or the answer an earlier process saved (it may have
    half applied it: the planned files go back to the last commit first)."""
    state = run.state
    if state.pending is None or state.pending.stage != stage:
        answer: str = call(run, messages, stage, "edit")
        _save_answer(run, stage, answer)
        return answer
    dirty = set(vcs.changed_paths(run.repo))
    changed = [p for p in run.planned() if p in dirty]
    with edits.fresh_mtimes(run.repo, changed):  # git writes them: same second, maybe same size
        vcs.restore_paths(run.repo, state.last_commit, changed)
    return pending_answer(run)  # checked again here: the file may have changed since the resume began


def _save_answer(run: RunSession, stage: str, answer: str) -> None:
    """The model's answer: its digest recorded in the ledger (edits.proposed), the answer saved in the run's folder
    under its own number, then the state that names it. A resume applies a saved answer only as the ledger recorded
    it (aidlc.bolt.guards.check_pending); a kill between these steps leaves the earlier state, whose answer (if any)
    is still the one its event recorded, and the model is asked again."""
    state = run.state
    number = run.recorded(f"answer:{stage}") + 1
    run.event(EventType.edits_proposed, f"answer:{stage}:{number}",
              data={"stage": stage, "answer": number, "sha256": plans.digest(answer), "model": state.model})
    state.pending = Pending(stage=stage, answer_file=f"{stage}.answer-{number}.txt", whole_file=state.whole_file,
                            answer=number)
    run.store.write_text(state.pending.answer_file, answer)
    run.save(durable=True)  # flushed after each model answer: the calls it counts are what the ledger records


def _apply(run: RunSession, stage: str, messages: list[Message], answer: str) -> list[str]:
    """Apply the answer's edits, all or none; an answer that cannot be applied goes back to the model with what
    was wrong, up to MAX_EDIT_ATTEMPTS answers. Returns the files written."""
    state = run.state
    assert state.pending is not None
    attempt = 0
    while True:
        attempt += 1
        try:
            blocks = edits.parse_edit_blocks(answer, whole_file=state.pending.whole_file)
            return edits.prepare_edits(run.repo, blocks, lambda rel: _allowed(run, rel),
                                       run.config.memory_bank).apply()
        except edits.EditFormatError as exc:
            state.format_failures += 1
            problems = [exc.message]
        except edits.EditRefused as exc:
            problems = list(exc.problems)
        run.span("edit", stage, status="refused", data={"problems": problems})
        if attempt == MAX_EDIT_ATTEMPTS:
            raise Failed(f"{stage}: no answer could be applied in {MAX_EDIT_ATTEMPTS} tries: {problems[0]}")
        if state.format_failures >= WEAK_AFTER:
            state.whole_file = True
        retry = render_prompt("bolt_edit_retry.md.j2", problems=problems, whole_file=state.whole_file,
                              edit_format=edit_format(run))
        messages = [*messages, Message("assistant", answer), Message("user", retry)]
        answer = call(run, messages, stage, "edit")
        _save_answer(run, stage, answer)


def _allowed(run: RunSession, rel: str) -> bool:
    return run.state.plan is not None and any(plans.normal(f.path) == rel for f in run.state.plan.files)


def _files_digest(run: RunSession, paths: list[str]) -> str:
    """The planned files as the step's commit holds them, read from the work tree it was made from (a missing
    file counts as missing): the same code twice, the same digest."""
    listing = []
    for rel in sorted(paths):
        try:
            listing.append(f"{rel}\0{plans.digest(read_inside(run.repo / rel, run.repo))}")
        except OSError:
            listing.append(f"{rel}\0missing")
    return plans.digest("\n".join(listing))


def commit_walkthrough(run: RunSession, partial: bool) -> None:
    """Write the walkthrough from the bank as it is now (the checks ran, a person may have changed it) and commit
    it: once, so the file a person judges is the one committed."""
    state = run.state
    rel = f"{run.bolt_dir}/{plans.WALKTHROUGH_FILE}"
    stage = run.stage("walkthrough")
    trailers = {"Aidlc-Run": state.run_id, "Aidlc-Stage": stage}
    done = vcs.commit_with_trailers(run.repo, state.base_commit, trailers) if run.continuing else None
    if done is None:
        workspace = run.refresh()
        write_walkthrough(run.repo, workspace.bank, state.bolt, run_state=state, partial=partial, run=False,
                          index=workspace.index, view=workspace.view)
    sha256 = plans.digest((run.repo / rel).read_bytes())
    # A run that failed before its branch was checked out (resumed at INIT) has no branch to commit on.
    if done is None and (not run.continuing or vcs.current_branch(run.repo) == state.branch):
        message = (f"aidlc walkthrough: bolt {state.bolt}\n\n"
                   f"Aidlc-Bolt: {state.bolt}\nAidlc-Run: {state.run_id}\nAidlc-Stage: {stage}\n"
                   f"Aidlc-Model: {state.model or 'unknown'}\n")
        state.last_commit = vcs.commit_step(run.repo, sorted(run.own_existing() | {rel}), message,
                                            state.last_commit)  # saved by the move
    run.event(EventType.walkthrough_proposed, stage, commit=state.last_commit,
              data={"partial": partial, "path": rel, "sha256": sha256})
