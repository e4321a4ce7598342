"""The implementation plan: what the model may propose, what aidlc refuses in it, and its Markdown."""

from __future__ import annotations

import hashlib
import posixpath
import re
import stat
import sys
from pathlib import Path, PurePosixPath

from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem
from aidlc.bolt.checks import command_argv
from aidlc.bolt.protected import protected
from aidlc.errors import UsageError
from aidlc.globs import matcher
from aidlc.model.config import VerifyCommand
from aidlc.model.run import Plan, RunState
from aidlc.model.types import Risk
from aidlc.templating import render

RISK_ORDER = [Risk.low, Risk.medium, Risk.high, Risk.critical]
PLAN_FILE = "implementation-plan.md"
WALKTHROUGH_FILE = "implementation-walkthrough.md"
ALL_STORIES = "all of the bolt's"  # a file's Stories cell in the plan's Markdown when it names none
NO_RISKS = "(none named)"  # the Risks section's one bullet when the plan names none


def normal(path: str) -> str | None:
    """The path in normal form, or None when it leaves the repository or names no file."""
    if not path or "\\" in path or "\0" in path or path.startswith("/"):
        return None
    rel = posixpath.normpath(path)
    return None if rel in (".", "..") or rel.startswith("../") else rel


def in_scope(rel: str, scope: list[str]) -> bool:
    """No scope: anywhere (the plan's other checks still hold). The globs mean what governance.paths' do."""

    return not scope or matcher(scope)(rel)


def check_plan(repo: Path, plan: Plan, scope: list[str], index: BankIndex, bolt: BoltItem) -> list[str]:
    """Each reason the plan cannot go to a person as it is, phrased for the model."""
    problems: list[str] = []
    seen: set[str] = set()
    ids = ", ".join(story.id for story in index.stories_of(bolt)) or "none"
    runners = runner_modules(index.bank.config.verify)
    created = {rel for entry in plan.files if entry.action == "create" and (rel := normal(entry.path))}
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
        problems.extend(_entry_problems(repo, rel, entry.action, scope, index.bank.rel_root, created, runners))
    return problems


def _entry_problems(repo: Path, rel: str, action: str, scope: list[str], bank_root: str, created: set[str],
                    runners: set[str]) -> list[str]:
    """Why the model may not touch the planned file `rel` as it says: protected, shadowing a test runner, outside
    the bolt's scope, or an action the file as it is does not allow."""
    why = protected(rel, bank_root)
    if why is None and action == "create":
        why = shadows(repo, rel, created, runners)
    if why:
        return [f"{rel}: {why}; leave it out of the plan"]
    if not in_scope(rel, scope):
        return [f"{rel}: outside the bolt's scope ({', '.join(scope)})"]
    return [f"{rel}: {p}" for p in _file_problems(repo, rel, action)]


_PYTHON = re.compile(r"(python|pypy)[\d.]*(\.exe)?")
_WRAPPERS = frozenset({"uv", "poetry", "pipenv", "hatch", "pdm", "rye"})  # `uv run pytest`: pytest runs the tests


def runner_modules(checks: list[VerifyCommand]) -> set[str]:
    """The top-level Python module names the verify commands run: `pytest -q` -> pytest, `python -m unittest`
    -> unittest, `uv run nose2` -> nose2. A file by one of these names would run in the runner's place."""

    names: set[str] = set()
    for check in checks:
        try:
            argv = command_argv(check)
        except UsageError:  # the verify step says so when it runs
            continue
        if len(argv) > 2 and PurePosixPath(argv[0]).name in _WRAPPERS and argv[1] == "run":
            argv = argv[2:]
        name = PurePosixPath(argv[0].replace("\\", "/")).name
        name = _module_flag(argv) if _PYTHON.fullmatch(name) else name
        if name:
            names.add(name.split(".")[0].replace("-", "_"))
    return names


def _module_flag(argv: list[str]) -> str:
    """The module of `python -m MODULE ...` ('' without -m)."""
    for n, word in enumerate(argv[1:], start=1):
        if word == "-m":
            return argv[n + 1] if n + 1 < len(argv) else ""
        if word.startswith("-m"):
            return word[2:]
    return ""


def shadows(repo: Path, rel: str, created: set[str], runners: set[str]) -> str | None:
    """Why creating `rel` would put a module in front of a standard-library module or the test runner (None: it
    would not). A module shadows another where its folder is a place Python imports top-level modules from: the
    repository's root (the working folder of every check) or a folder that is not a package (pytest puts such a
    test folder on the path). `conftest.py` is pytest's own plugin file: its hooks decide what is collected and
    how results are reported, so a run creates none while pytest runs the checks."""
    path = PurePosixPath(rel)
    if path.name == "conftest.py" and "pytest" in runners:
        return ("is a pytest plugin file (conftest.py): its hooks change which tests run and how their results are "
                "reported, so a person writes it; put fixtures in the test module that uses them")
    if path.name == "__init__.py" and len(path.parts) > 1:
        module, folder = path.parent.name, path.parent.parent
    elif path.suffix == ".py":
        module, folder = path.stem, path.parent
    else:
        return None
    if module not in runners and module not in sys.stdlib_module_names:
        return None
    package = folder / "__init__.py"
    if folder.parts and ((repo / package).is_file() or package.as_posix() in created):
        return None  # inside a package: imported as package.module, it shadows nothing
    what = "the test runner" if module in runners else "the Python standard-library module"
    return (f"would shadow {what} {module!r} for code run from {folder.as_posix() if folder.parts else 'the root'}/ "
            "(the checks would import this file instead); give it another name")


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
    return render(f"artifacts/{PLAN_FILE}.j2", bolt=state.bolt, plan=state.plan, model=state.model or "the model",
                  run_id=state.run_id, created=state.created, all_stories=ALL_STORIES,
                  no_risks=NO_RISKS)


def digest(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()
