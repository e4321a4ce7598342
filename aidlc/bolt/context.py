"""What the model is shown at each step: the bolt, its stories and the standards, the planned files, a failing
check's output, each within the token budget (what had to be left out or cut is traced)."""

from __future__ import annotations

import re
from dataclasses import replace

from aidlc import vcs
from aidlc.bank.index import BankIndex
from aidlc.bank.walk import read_inside
from aidlc.bolt.edits import edit_format_prompt
from aidlc.bolt.session import RunSession
from aidlc.llm.base import Message
from aidlc.llm.context import ContextPiece, fit_context
from aidlc.llm.prompts import render_prompt, system_message

CONTEXT_TOKENS = 12_000
OUTPUT_CHARS = 3000  # of a failing check's output, sent back to the model


def plan_messages(run: RunSession, index: BankIndex) -> list[Message]:
    state = run.state
    scope = run.bolt.meta.scope if run.bolt.meta else []
    # After a rejected walkthrough the work so far stays on the branch: the new plan builds on it.
    pieces = file_pieces(run, state.touched, 90) if state.reworks else []
    context = fit(run, [*pieces, *bolt_pieces(run)], "plan")
    user = render_prompt("bolt_plan.md.j2", bolt=state.bolt, goal=state.goal, scope=scope,
                         stories=[story.id for story in index.stories_of(run.bolt)],
                         rejections=state.rejections, reworks=state.reworks,
                         touched=state.touched, tree=vcs.tracked_files(run.repo)[:300],  # the layout, not all of it
                         context=context)
    return [system_message(f"plan bolt {state.bolt}"), Message("user", user)]


def edit_messages(run: RunSession, stage: str, problems: list[str]) -> list[Message]:
    state = run.state
    assert state.plan is not None
    if stage == run.stage("execute"):
        pieces = file_pieces(run, [f.path for f in state.plan.files if f.action != "create"], 100)
        context = fit(run, [*pieces, *bolt_pieces(run)], stage)
        user = render_prompt("bolt_execute.md.j2", bolt=state.bolt, summary=state.plan.summary,
                             files=state.plan.files, tests=state.plan.tests, warning=None,
                             rework=state.reworks[-1] if state.reworks else None,
                             edit_format=edit_format(run), context=context)
    else:
        failing = state.checks[-1].failing()[0]
        pieces = [ContextPiece(f"output of {failing.name}", failing.excerpt()[-OUTPUT_CHARS:], 100, required=True),
                  *file_pieces(run, state.touched or [f.path for f in state.plan.files], 90)]
        context = fit(run, pieces, stage)
        user = render_prompt("bolt_repair.md.j2", check=failing, bolt=state.bolt, round=state.repairs,
                             max_repairs=run.config.policy.max_repairs, problems=problems, warning=None,
                             allowed=[f.path for f in state.plan.files], edit_format=edit_format(run),
                             context=context)
    return [system_message(f"implement bolt {state.bolt}"), Message("user", user)]


def edit_format(run: RunSession) -> str:
    return edit_format_prompt(whole_file=run.state.whole_file)


def fit(run: RunSession, pieces: list[ContextPiece], stage: str) -> str:
    """The context within the token budget; what had to be left out or cut is traced."""
    fitted = fit_context(pieces, CONTEXT_TOKENS)
    if (trimmed := fitted.trimmed()) is not None:
        run.span("warning", "context", data={"message": f"{stage}: the context exceeded {CONTEXT_TOKENS} "
                                                        f"tokens: {trimmed}"})
    return fitted.render()


def file_pieces(run: RunSession, paths: list[str], priority: int) -> list[ContextPiece]:
    found = []
    for rel in paths:
        path = run.repo / rel
        try:
            text = read_inside(path, run.repo).decode("utf-8", errors="replace")
        except OSError:
            continue
        found.append(ContextPiece(rel, text, priority))
    return found


def bolt_pieces(run: RunSession) -> list[ContextPiece]:
    index = run.workspace.index
    rels = [(run.bolt.rel, 80)] + [(s.rel, 70) for s in index.stories_of(run.bolt)] + \
           [(rel, 20) for rel in run.bank.standards]
    return [replace(p, text=_without_progress_dates(p.text))
            for rel, priority in rels for p in file_pieces(run, [rel], priority)]


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
