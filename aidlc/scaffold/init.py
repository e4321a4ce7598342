"""`aidlc init`: scaffold aidlc.yaml, the memory bank and the CI workflow, never clobbering edits.

Files a person owns (aidlc.yaml, project.yaml, standards) are created once and
then left alone forever. Files aidlc owns (the story index, the CI workflow)
are replaced only with --force, after a backup.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from aidlc import __version__, vcs
from aidlc.aidlc_docs.model import Mark
from aidlc.aidlc_docs.reader import read_project
from aidlc.aidlc_docs.records import read_workspace
from aidlc.bank.config import CONFIG_FILE, V2_SPACES, load_config, refuse_other_bank
from aidlc.bank.items import MemoryBank
from aidlc.bank.loader import load_bank
from aidlc.bank.walk import DEFAULT_BANK, find_bank, is_bank, read_inside, shown
from aidlc.bank.write import atomic_write, read_text
from aidlc.errors import UsageError
from aidlc.events.ledger import LEDGER_FILE, Ledger
from aidlc.events.lost import lost_ledger
from aidlc.gates.actor import recorder
from aidlc.model.config import CiSettings, Config
from aidlc.model.events import EventType
from aidlc.names import arg
from aidlc.rules import validate
from aidlc.scaffold.clock import now
from aidlc.scaffold.new import slugify
from aidlc.scaffold.storyindex import STORY_INDEX, render_story_index
from aidlc.templating import render
from aidlc.workspace import layout_of, reads_workspace, records_folder

STANDARDS = ("coding-standards.md", "tech-stack.md", "glossary.md", "definition-of-done.md")
BANK_FOLDERS = ("intents", "bolts", "operations", "decisions")
WORKFLOW = ".github/workflows/aidlc.yml"
GITIGNORE_LINE = ".aidlc/"
MERGE_DRIVER = "aidlc-ledger"


class Action(StrEnum):
    created = "created"
    unchanged = "unchanged"
    kept = "kept"
    replaced = "replaced"
    updated = "updated"


@dataclass
class Outcome:
    path: str
    action: Action
    detail: str = ""


@dataclass
class Adopted:
    """The records `aidlc init` took on as they are (an aidlc-docs folder, or a v2 workspace's intent records): their
    audit entries are history, never decisions."""

    folder: str
    audit_logs: list[str]
    audit_entries: int
    stages_done: int  # ticked stage lines of aidlc-state.md, or a v2 record's completed rows


@dataclass
class Found:
    """What validation finds in the existing bank `aidlc init` took on: history from before its ledger, apart
    from what needs fixing now."""

    adopted: int  # warnings of adopted history, each naming the last commit before the ledger
    errors: int  # live defects
    warnings: int  # other warnings


@dataclass
class InitResult:
    root: Path
    git_created: bool = False
    ci_unset: bool = False  # aidlc.yaml says neither how CI installs aidlc (ci.action) nor from where (ci.install)
    outcomes: list[Outcome] = field(default_factory=list)
    adopted: Adopted | None = None  # the project keeps aidlc-workflows' aidlc-docs records
    found: Found | None = None  # an existing memory bank's findings, once aidlc governs it

    def count(self, action: Action) -> int:
        return sum(outcome.action == action for outcome in self.outcomes)


@dataclass
class _Writer:
    root: Path
    force: bool
    result: InitResult
    stamp: str = field(default_factory=lambda: now().replace(":", "").replace("-", ""))

    def person_file(self, rel: str, text: str) -> None:
        """Created when missing; an existing file is the person's and is never touched."""
        path = self.root / rel
        if path.exists():
            self.result.outcomes.append(Outcome(rel, Action.kept, "exists; yours to edit"))
            return
        atomic_write(path, text, self.root)
        self.result.outcomes.append(Outcome(rel, Action.created))

    def owned_file(self, rel: str, text: str, kept: str = "differs from what aidlc would write; --force replaces "
                   "it after a backup") -> None:
        """aidlc's own file: replaced only with --force, and then after a backup."""
        path = self.root / rel
        if not path.exists():
            atomic_write(path, text, self.root)
            self.result.outcomes.append(Outcome(rel, Action.created))
            return
        try:
            current = read_inside(path, self.root)  # never through a link leading outside, never a FIFO
        except OSError as exc:
            raise UsageError(f"{rel}: cannot be read ({exc.strerror or exc})",
                             [f"replace {rel} with a regular file (or remove it), then rerun aidlc init"]) from None
        if current == text.encode("utf-8"):
            self.result.outcomes.append(Outcome(rel, Action.unchanged))
            return
        if not self.force:
            self.result.outcomes.append(Outcome(rel, Action.kept, kept))
            return
        backup = path.with_name(f"{path.name}.bak-{self.stamp}")
        shutil.copy2(path, backup)
        atomic_write(path, text, self.root)
        self.result.outcomes.append(Outcome(rel, Action.replaced, f"backup: {backup.relative_to(self.root)}"))

    def ensure_line(self, rel: str, line: str, replaces: str | None = None) -> None:
        """Add `line` unless present; with `replaces`, an older line starting so is updated in place."""
        path = self.root / rel
        text = read_text(path, self.root) if path.exists() else ""
        lines = text.splitlines()
        if line in (entry.strip() for entry in lines):
            self.result.outcomes.append(Outcome(rel, Action.unchanged))
            return
        older = next((i for i, entry in enumerate(lines) if replaces and entry.startswith(replaces)), None)
        if older is not None:
            lines[older] = line
            atomic_write(path, "\n".join(lines) + "\n", self.root)
            self.result.outcomes.append(Outcome(rel, Action.updated, f"now {line}"))
            return
        separator = "" if not text or text.endswith("\n") else "\n"
        atomic_write(path, f"{text}{separator}{line}\n", self.root)
        self.result.outcomes.append(Outcome(rel, Action.updated if text else Action.created, f"added {line}"))


def _enclosing_project(root: Path) -> tuple[Path, str] | None:
    """The nearest folder above `root` holding an aidlc.yaml or a memory bank, and which of them; None without."""
    for folder in root.parents:
        if (folder / CONFIG_FILE).is_file():
            return folder, CONFIG_FILE
        if is_bank(folder / DEFAULT_BANK):
            return folder, f"{DEFAULT_BANK}/"
    return None


def init_project(root: Path, name: str | None, project_type: str, force: bool, create_git: bool,
                 ci_action: str | None = None) -> InitResult:
    """`ci_action` (OWNER/aidlc@REF) goes into a new aidlc.yaml's `ci.action`; an existing aidlc.yaml is the
    person's and keeps what it says."""
    root = root.resolve()
    typed = arg(str(root))
    if ci_action is not None:
        _check_action(ci_action)
    if not force and (outer := _enclosing_project(root)) is not None:
        raise UsageError(f"{root} is inside the aidlc project at {outer[0]} ({outer[1]} there): a second bank here "
                         "would keep records apart from it; nothing was written",
                         [f"cd {arg(str(outer[0]))} && aidlc status    # work in that project",
                          f"aidlc init --force {typed}    # a project of its own here after all"])
    if not root.exists():
        if not create_git:
            raise UsageError(f"{root} does not exist", [f"aidlc init --git {typed}    # create it as a Git repo"])
        root.mkdir(parents=True)
    result = InitResult(root=root)
    if vcs.repo_root(root) is None:
        if not create_git:
            raise UsageError(
                f"{root} is not inside a Git repository; aidlc keeps its records in Git",
                [f"aidlc init --git {typed}    # runs git init first", f"git init {typed} && aidlc init {typed}"],
            )
        vcs.init_repo(root)
        result.git_created = True
    config = load_config(root)
    docs = layout_of(root, config) == "aidlc-docs"
    folder = records_folder(root, config)
    find_bank(root, folder)  # a folder leading outside the repository: refused before anything is written
    if not docs:
        refuse_other_bank(root, folder, f"aidlc init {typed}")
    ledger = Ledger.of_bank(root, folder)
    if not ledger.exists() and (lost := lost_ledger(ledger.repo_root, ledger.rel)) is not None:
        raise lost  # before anything is written: history holds a ledger, and a new genesis would start it over
    writer = _Writer(root=root, force=force, result=result)
    name = name or shown(root.name)  # a folder name that is not UTF-8 is written with \xNN
    context = {"name": name, "project_type": project_type, "now": now(), "version": __version__,
               "ci_action": ci_action, "layout": "aidlc-docs" if docs else "memory-bank",
               "aidlc_docs": config.aidlc_docs}

    writer.person_file(CONFIG_FILE, render("scaffold/aidlc.yaml.j2", **context))
    if ci_action is not None and writer.result.outcomes[-1].action == Action.kept and config.ci.action != ci_action:
        writer.result.outcomes[-1].detail = _action_kept(config.ci.action, ci_action)
    if docs:  # the project's records stay as they are: no memory bank beside them
        result.adopted = _adopted(root, folder, config)
        _workflow(root, writer)
        writer.ensure_line(".gitignore", GITIGNORE_LINE)
        _ledger(root, folder, writer, {"layout": "aidlc-docs", "adopted": asdict(result.adopted)})
        return result
    bank_rel = folder
    writer.person_file(f"{bank_rel}/project.yaml", render("scaffold/memory-bank/project.yaml.j2", **context))
    standards = root / bank_rel / "standards"
    if not (standards.is_dir() and any(standards.glob("*.md"))):
        for standard in STANDARDS:
            text = render(f"scaffold/memory-bank/standards/{standard}.j2", **context)
            writer.person_file(f"{bank_rel}/standards/{standard}", text)
    for folder in BANK_FOLDERS:
        path = root / bank_rel / folder
        if not (path.is_dir() and any(path.iterdir())):
            writer.person_file(f"{bank_rel}/{folder}/.gitkeep", "")
    bank = load_bank(root, config)
    writer.owned_file(f"{bank_rel}/{STORY_INDEX}", render_story_index(bank))
    _workflow(root, writer)
    writer.ensure_line(".gitignore", GITIGNORE_LINE)
    _ledger(root, bank_rel, writer)
    if bank.intents or bank.stories or bank.bolts:
        result.found = _found(load_bank(root, config))
    return result


def _action_kept(current: str | None, asked: str) -> str:
    """What --ci-action did not change: aidlc.yaml is the person's, and the workflow follows what it says."""
    runs = f"its ci.action {current} stays, and the workflow runs it" if current else \
        "it sets no ci.action, and the workflow follows its ci settings"
    return (f"exists; yours to edit: --ci-action {asked} was not written there ({runs}); to run {asked}, set "
            f"ci.action: {asked} in {CONFIG_FILE}, then aidlc init --force")


def _found(bank: MemoryBank) -> Found:
    """The bank's findings with its ledger in place (so what git shows from before it is adopted history)."""
    summary = validate(bank).summary
    return Found(adopted=summary.adopted, errors=summary.errors, warnings=summary.warnings - summary.adopted)


def _check_action(action: str) -> None:
    from pydantic import ValidationError


    try:
        CiSettings(action=action)
    except ValidationError:
        raise UsageError(f"--ci-action {action!r}: expected a GitHub Action reference pinned to a tag or commit, "
                         "OWNER/REPO@REF", ["aidlc init --ci-action OWNER/aidlc@v0.1.0"]) from None


def _workflow(root: Path, writer: _Writer) -> None:
    """GitHub reads workflows only at the top of the repository: a project in a sub-folder
    (a monorepo) gets its own workflow file there, validating its folder."""
    top = vcs.repo_root(root) or root
    folder = root.relative_to(top).as_posix() if root != top and root.is_relative_to(top) else "."
    title = "aidlc" if folder == "." else f"aidlc-{slugify(folder)}"  # each project's workflow its own name
    name = WORKFLOW.replace("aidlc.yml", f"{title}.yml")
    settings = load_config(root).ci
    writer.result.ci_unset = not (settings.action or settings.install)
    pinned = settings.action is None or re.fullmatch(r"[0-9a-f]{40}", settings.action.rpartition("@")[2]) is not None
    text = render("scaffold/github/aidlc.yml.j2", name=title, branch=_branch_pattern(vcs.default_branch(top)),
                  action=settings.action, action_pinned=pinned, install=settings.install, folder=folder)
    older = ("differs from the workflow this aidlc writes from aidlc.yaml's ci settings (an older one ran `aidlc "
             "validate`; this one runs `aidlc ci`): --force replaces it after a backup")
    _Writer(root=top, force=writer.force, result=writer.result, stamp=writer.stamp).owned_file(name, text, older)
    if not pinned:
        outcome = writer.result.outcomes[-1]
        outcome.detail = "; ".join(filter(None, [outcome.detail, f"ci.action {settings.action} names a tag, which "
                                                 "can be moved: pin its commit (OWNER/REPO@COMMIT-SHA)"]))


def _branch_pattern(branch: str | None) -> str:
    """The default branch as a GitHub branch filter: its pattern characters taken literally (git allows + and !
    in a branch name). A repository with no branch yet: main."""
    return re.sub(r"([*?+!\[\]\\])", r"\\\1", branch or "main")


def _adopted(root: Path, folder: str, config: Config) -> Adopted:
    """What the project's records hold already, counted once for the init output and the ledger's first event: the
    aidlc-docs folder, or a v2 workspace's intent records (aidlc/spaces/, perhaps none yet; the ledger still lives
    in `folder`)."""
    if reads_workspace(root, config):
        records = read_workspace(root).records
        return Adopted(folder=V2_SPACES, audit_logs=[log.path for record in records for log in record.audits],
                       audit_entries=sum(len(record.record.events) for record in records if record.record),
                       stages_done=sum(row.mark == Mark.done for record in records if record.record
                                       for row in record.record.rows))
    project = read_project(root, folder)
    return Adopted(folder=folder, audit_logs=[log.path for log in project.audits],
                   audit_entries=sum(len(log.entries) for log in project.audits),
                   stages_done=sum(line.mark == Mark.done for line in project.state.stages) if project.state else 0)


def _ledger(root: Path, bank_rel: str, writer: _Writer, data: dict[str, Any] | None = None) -> None:
    """The ledger with its first event (`data`: what it found, on an adopted layout), and the merge driver that
    keeps it branch-safe."""
    ledger = Ledger.of_bank(root, bank_rel)
    if ledger.exists():
        writer.result.outcomes.append(Outcome(ledger.rel, Action.unchanged))
    else:
        ledger.append(EventType.ledger_created, recorder(root), key="ledger.created", data=data)
        writer.result.outcomes.append(Outcome(ledger.rel, Action.created, "ledger.created"))
    # -text: no line-ending conversion, or a Windows checkout would make every line read as edited.
    writer.ensure_line(".gitattributes", f"{bank_rel}/{LEDGER_FILE} merge={MERGE_DRIVER} -text",
                       replaces=f"{bank_rel}/{LEDGER_FILE} ")
    section = f'merge "{MERGE_DRIVER}"'
    changed = vcs.set_config(root, section, "name", "aidlc ledger: shared lines, then each side's new ones")
    changed = vcs.set_config(root, section, "driver", "aidlc log merge %O %A %B") or changed
    writer.result.outcomes.append(Outcome(".git/config", Action.updated if changed else Action.unchanged,
                                          f"merge driver {MERGE_DRIVER}" if changed else ""))
