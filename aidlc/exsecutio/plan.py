"""The implementation plan: what the model may propose, what aidlc refuses in it, and its Markdown."""

from __future__ import annotations

import hashlib
import posixpath
import stat
from pathlib import Path

from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem
from aidlc.model.run import Plan, RunState
from aidlc.model.types import Risk

RISK_ORDER = [Risk.low, Risk.medium, Risk.high, Risk.critical]
PLAN_FILE = "implementation-plan.md"
WALKTHROUGH_FILE = "implementation-walkthrough.md"
ALL_STORIES = "all of the bolt's"  # a file's Stories cell in the plan's Markdown when it names none


def forbidden(rel: str, ledger: str) -> str | None:
    """Why a path may never be planned or edited by a run (None: it may). `ledger`: the ledger's path."""
    parts = rel.split("/")
    if ".git" in parts:
        return "is inside .git/"
    if rel.startswith(".github/workflows/"):
        return "is a CI workflow (.github/workflows/): a person changes those"
    if parts[0] == ".aidlc":
        return "is aidlc's own state (.aidlc/)"
    if rel == ledger:
        return "is the ledger: only aidlc appends to it"
    return None


def normal(path: str) -> str | None:
    """The path in normal form, or None when it leaves the repository or names no file."""
    if not path or "\\" in path or "\0" in path or path.startswith("/"):
        return None
    rel = posixpath.normpath(path)
    return None if rel in (".", "..") or rel.startswith("../") else rel


def in_scope(rel: str, scope: list[str]) -> bool:
    """No scope: anywhere (the plan's other checks still hold). The globs mean what governance.paths' do."""
    from aidlc.globs import matcher

    return not scope or matcher(scope)(rel)


def check_plan(repo: Path, plan: Plan, scope: list[str], ledger: str, index: BankIndex, bolt: BoltItem
               ) -> list[str]:
    """Each reason the plan cannot go to a person as it is, phrased for the model."""
    problems = []
    seen: set[str] = set()
    ids = ", ".join(story.id for story in index.stories_of(bolt)) or "none"
    for entry in plan.files:
        problems.extend(f"{entry.path}: story {ref!r} is not one of the bolt's stories ({ids}); name only those, or "
                        "leave `stories` empty when the file serves all of them"
                        for ref in entry.stories if index.story_of(bolt, ref) is None)
        rel = normal(entry.path)
        if rel is None:
            problems.append(f"{entry.path}: not a path inside the repository (relative, '/' separators, no '..')")
            continue
        if rel in seen:
            problems.append(f"{rel}: listed twice")
        seen.add(rel)
        why = forbidden(rel, ledger)
        if why:
            problems.append(f"{rel}: {why}; leave it out of the plan")
            continue
        if not in_scope(rel, scope):
            problems.append(f"{rel}: outside the bolt's scope ({', '.join(scope)})")
            continue
        problems.extend(f"{rel}: {p}" for p in _file_problems(repo, rel, entry.action))
    return problems


def _file_problems(repo: Path, rel: str, action: str) -> list[str]:
    path = repo
    for part in rel.split("/")[:-1]:
        path = path / part
        if path.is_symlink():
            return [f"{path.relative_to(repo).as_posix()} is a symbolic link; aidlc does not write through links"]
    target = repo / rel
    exists = target.exists() or target.is_symlink()
    if action == "create" and exists:
        return ["exists already: plan to modify it instead"]
    if action in ("modify", "delete"):
        if not exists:
            return [f"does not exist, so it cannot be {action}d (plan to create it?)"]
        if not stat.S_ISREG(target.lstat().st_mode):
            return ["is not a regular file"]
    return []


def plan_risk(plan: Plan, bolt_risk: Risk | None) -> Risk | None:
    """The higher of the model's estimate and the bolt's own risk; None when neither is known."""
    known = [r for r in (plan.risk_level, bolt_risk) if r is not None]
    return max(known, key=RISK_ORDER.index) if known else None


def render_plan(state: RunState) -> str:
    from aidlc.templating import render

    return render(f"artifacts/{PLAN_FILE}.j2", bolt=state.bolt, plan=state.plan, model=state.model or "the model",
                  run_id=state.run_id, created=state.created, all_stories=ALL_STORIES)


def digest(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()
