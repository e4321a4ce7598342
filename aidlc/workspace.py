"""Opening a repository's records with its configuration: the memory bank, or the aidlc-docs folder; and the
`Workspace` a command that works on the bank opens once and passes down."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from aidlc.bank.config import CONFIG_FILE, DOCS_MARKERS, V2_SPACES, docs_marker, layout, load_config
from aidlc.bank.config import records_folder as folder_for
from aidlc.bank.index import BankIndex, find_bolt
from aidlc.bank.items import BoltItem, MemoryBank
from aidlc.bank.loader import load_bank
from aidlc.bank.walk import is_bank, present
from aidlc.errors import UsageError
from aidlc.model.config import Config, RecordsLayout
from aidlc.names import arg, shown

if TYPE_CHECKING:
    from aidlc.aidlc_docs.model import DocsProject, RecordsWorkspace
    from aidlc.events.view import LedgerView


def open_bank(root: Path, as_found: bool = False, config: Config | None = None) -> MemoryBank:
    """Load the bank under `root`; no bank at all is a usage error with the command to create one,
    and so is a bank leading outside the repository.

    First, a multi-file write that was interrupted (kill -9) is finished or rolled back, so no
    command sees a half-written bank. `as_found` takes the bank as it is instead: for `aidlc
    validate`, which never writes (a bank leading outside is a finding there), and for a command
    re-reading the bank it is writing. `config`: read the bank with these settings instead of aidlc.yaml's
    (`aidlc ci --base`: the rules that judge a pull request)."""
    config = config or load_config(root)
    bank = load_bank(root, config, report_outside=as_found)
    if not as_found and bank.exists:
        from aidlc.events import journal  # not for validate, which loads as fast as it can

        if journal.recover(Path(bank.repo_root)):
            bank = load_bank(root, config)
    if not bank.exists:
        from aidlc import vcs  # only on this error path: it imports GitPython

        # `aidlc init` refuses a folder outside Git unless told to make it a repository.
        here = arg(str(root))
        init = (f"aidlc init {here}    # scaffold aidlc.yaml and memory-bank/" if vcs.repo_root(root) is not None
                else f"aidlc init --git {here}    # not a Git repository yet: git init, then scaffold")
        below = [f"aidlc validate {_typed(root / folder)}    # records found there (any command: --repo "
                 f"{_typed(root / folder)})" for folder in records_below(root, config)]
        if "aidlc_docs" not in config.model_fields_set:  # a docs folder under another name: say which setting reads it
            # The folder only inside the quoted argument: in the comment a name holding a line break would start a
            # second command when the step is pasted.
            below += [f"printf '%s\\n' {arg('aidlc_docs: ' + json.dumps(folder))} >> {_typed(root / CONFIG_FILE)}    "
                      "# that folder holds aidlc-state.md: the aidlc-docs folder, named otherwise"
                      for folder in docs_folders_below(root)]
        docs, steps = _docs_found(root, config)
        deleted = deleted_records(root, config)
        if deleted is not None:  # not a project to start afresh: its records were deleted, and git keeps them
            docs, steps = f"{docs}: {deleted[0]}", deleted[1]
        start = [init] if deleted is None or config.layout == "memory-bank" else []
        raise UsageError(f"no memory bank at {root / config.memory_bank}, and {docs}",
                         [*below, *start, *steps, "aidlc validate PATH    # or point at a repo that has one"])
    return bank


def deleted_records(root: Path, config: Config) -> tuple[str, list[str]] | None:
    """What became of the docs folder's state file and audit log where HEAD's history held them and HEAD holds
    neither, for the error of a project without records: the commits that deleted them (the newest that changed
    each), and whether git ignores them now; and the steps that restore them or judge their deletion (`aidlc ci
    --base`: AIDLC-DOCS-024, 029). None where the history never held them, or outside Git."""
    from aidlc import vcs  # only on this error path: it runs git

    history = vcs.history(root)
    if history is None or history.head is None:
        return None
    by_commit: dict[str, tuple[vcs.Commit, list[str]]] = {}
    for name in ("aidlc-state.md", "audit.md"):
        rel = f"{config.aidlc_docs}/{name}"
        commit = vcs.last_commit_of(root, rel)  # first: one git log where no commit ever held it
        # HEAD holding it: deleted from the work tree alone, which `git status` shows.
        if commit is not None and history.last_holding(rel) not in (None, "HEAD"):
            by_commit.setdefault(commit.sha, (commit, []))[1].append(rel)
    if not by_commit:
        return None
    here = _typed(root)
    said, steps, git = [], [], "git" if here == "." else f"git -C {here}"
    ignored = {(found.source, found.line): found for found in
               history.ignored([rel for _, rels in by_commit.values() for rel in rels])}.values()
    # The names shown escaped: the step is read, not pasted, but a line break would still split it.
    steps += [f"remove `{shown(found.pattern)}` from {shown(found.source)} (line {found.line}), or add "
              f"`!{shown(found.path)}` after it    # git ignores it: restored, it would not be committed"
              for found in ignored]
    for commit, rels in by_commit.values():
        subject = commit.subject if len(commit.subject) <= 50 else commit.subject[:47] + "..."
        said.append(f"commit {commit.sha[:12]} ({subject}) deleted {' and '.join(rels)}, which the commits before "
                    f"it tracked")
        # The commit before it holds them: it changed them, and HEAD holds none.
        steps.append(f"{git} checkout {arg(commit.sha[:12] + '^')} -- {' '.join(arg(rel) for rel in rels)}    "
                     "# restore them as they were before that commit, then commit them")
    if ignored:
        said.append("git ignores " + ", ".join(f"{shown(found.path)} ({shown(found.source)}:{found.line})"
                                               for found in ignored))
    commits = [commit for commit, _ in by_commit.values()]
    first = next((c for c in commits if all(history.is_ancestor(c.sha, other.sha) for other in commits)), commits[0])
    steps.append(f"aidlc ci {here} --base {arg(first.sha[:12] + '^')}    # judge the commits since: "
                 "the history rules (AIDLC-DOCS-020 to 029) report the deletion")
    return "; ".join(said), steps


def _docs_found(root: Path, config: Config) -> tuple[str, list[str]]:
    """What the aidlc-docs folder (aidlc.yaml's `aidlc_docs:`) is where no records were found, for the error of a
    project without them: absent, or there and holding neither of the files that make it the aidlc-docs layout (a
    README.md alone); and the next steps that folder calls for."""
    folder = root / config.aidlc_docs
    if not folder.is_dir():
        return f"no aidlc-docs folder at {folder}", []
    here = arg(str(root))
    # The folder's name only in the message: in a step's comment a name holding a line break would start a second
    # command when the step is pasted.
    named = " (aidlc.yaml's aidlc_docs)" if "aidlc_docs" in config.model_fields_set else ""
    steps = [f"aidlc validate {here}    # once the aidlc-docs folder holds aidlc-state.md or audit.md (the AI-DLC "
             "workflow writes them), it reads them"]
    if named:
        steps.append("set `aidlc_docs:` in aidlc.yaml to the folder that holds aidlc-state.md and audit.md")
    return f"the aidlc-docs folder at {folder}{named} holds neither aidlc-state.md nor audit.md", steps


def _typed(path: Path) -> str:
    """A path as the user types it into a shell from the working folder: relative below it, else absolute; quoted
    where it needs it (a folder named `x; rm -rf ~` in a cloned repository is one argument, not two commands)."""
    try:
        shown = path.relative_to(Path.cwd()).as_posix() or "."
    except (ValueError, OSError):  # not below it, or the working folder is gone
        shown = str(path)
    return arg(shown)


def _folders_below(root: Path) -> list[tuple[Path, str]]:
    """(folder, its path relative to `root`) of the sub-folders two levels down at most, hidden ones aside."""
    found = []
    for folder in sorted({*root.glob("*/"), *root.glob("*/*/")}):
        rel = folder.relative_to(root)
        if not any(part.startswith(".") for part in rel.parts):
            found.append((folder, rel.as_posix()))
    return found


def records_below(root: Path, config: Config) -> list[str]:
    """The sub-folders (two levels down at most, hidden ones aside) that hold a project's records: a monorepo keeps
    them beside its parts (`backend/aidlc-docs/`), and a command run at the top does not look there by itself."""
    return [rel for folder, rel in _folders_below(root)
            if is_bank(folder / config.memory_bank) or docs_marker(folder, config) is not None][:5]


def _exists_in(folder: Path) -> Callable[[str], bool]:
    """Whether `folder` has a file or folder at a relative path (the `holds` of `aidlc.bank.config.layout`)."""
    return lambda rel: present(folder / rel)


def docs_folders_below(root: Path) -> list[str]:
    """The sub-folders (as `records_below` looks) holding aidlc-state.md themselves: an aidlc-docs folder kept under
    another name (`docs/aidlc/`), which the `aidlc_docs:` setting reads."""
    return [rel for folder, rel in _folders_below(root) if (folder / "aidlc-state.md").is_file()][:5]


def layout_of(root: Path, config: Config) -> RecordsLayout:
    """The layout the project keeps its records in (`aidlc.bank.config.layout` over the work tree), or aidlc-docs
    when aidlc/ holds aidlc-workflows v2 intent records and no memory bank is there, or when no memory bank is there
    and the docs folder is, its state file and audit log gone though HEAD's history held them (`flat_records`: a
    commit deleted or git-ignored them). With `layout: auto`, a memory bank beside another layout's records is a
    usage error: reading the bank alone would pass records nobody checks (an empty memory-bank/ added beside
    aidlc-docs/ would otherwise make `aidlc ci` read 0 files and pass)."""
    found = layout(config, _exists_in(root))
    if config.layout != "auto" or found == "aidlc-docs":
        return found
    bank = is_bank(root / config.memory_bank)
    other = docs_marker(root, config)
    if other is None and (root / V2_SPACES).is_dir():
        # The aidlc-docs modules load only where the layout is in doubt: never for a memory bank alone.
        from aidlc.aidlc_docs.records import is_workspace, record_folders

        other = next(iter(record_folders(root)), None)
        if not bank and (other is not None or is_workspace(root)):
            return "aidlc-docs"  # a v2 workspace before its first intent is the project's layout too
    if not bank and other is None and (root / config.aidlc_docs).is_dir() and flat_records(root, config):
        # Its state file and audit log deleted or git-ignored by a commit, its stage documents kept: still the
        # project's records, and the history rules (AIDLC-DOCS-024, 029) say what became of them.
        return "aidlc-docs"
    if other is not None:
        raise UsageError(f"{root}: records in two layouts, {config.memory_bank}/ and {other}, and aidlc.yaml's "
                         "`layout: auto` does not choose between them",
                         [f"set `layout: aidlc-docs` in {root / CONFIG_FILE}    # judge {other}",
                          f"set `layout: memory-bank` in {root / CONFIG_FILE}    # judge {config.memory_bank}/",
                          f"git rm -r {arg(config.memory_bank)}    # or remove the layout the project does not keep"])
    return found


def records_folder(root: Path, config: Config) -> str:
    """The folder that holds the project's records and their ledger (events.jsonl): the memory bank, or on the
    aidlc-docs layout the docs folder."""
    return folder_for(config, layout_of(root, config))


def open_docs(root: Path, config: Config | None = None) -> DocsProject:
    """The aidlc-docs folder of the project at `root`, read (aidlc/aidlc_docs/reader.py); a folder that is not
    there is a usage error naming it and the command that adopts the layout."""
    # The aidlc-docs reader only for a project in that layout.
    from aidlc.aidlc_docs.reader import read_project
    from aidlc.aidlc_docs.records import record_folders

    config = config or load_config(root)
    folder = root / config.aidlc_docs
    if not folder.is_dir():
        here = arg(str(root))
        if record_folders(root):
            raise UsageError(f"no aidlc-docs folder at {folder}: aidlc/ holds aidlc-workflows v2 intent records, "
                             "which this command does not read yet", [f"aidlc validate {here}    # reads them",
                                                                            f"aidlc ci {here}    # and so does ci",
                                                                            f"aidlc status {here}    # and status"])
        if (deleted := deleted_records(root, config)) is not None:
            raise UsageError(f"no aidlc-docs folder at {folder}: {deleted[0]}", deleted[1])
        raise UsageError(f"no aidlc-docs folder at {folder}",
                         [f"aidlc init {here}    # adopt the project's records", "set `aidlc_docs:` in aidlc.yaml "
                          "to the folder that holds aidlc-state.md and audit.md"])
    return read_project(root.resolve(), config.aidlc_docs)


def open_records(root: Path) -> MemoryBank | DocsProject | RecordsWorkspace:
    """The project's records in the layout it keeps them (`layout_of`), for the commands that only read them
    (`aidlc validate`, `aidlc ci` without a base): the memory bank as found, the v2 intent records of aidlc/ where
    there are any (they supersede a flat aidlc-docs/ that the migration left in place), or the aidlc-docs folder."""
    config = load_config(root)
    if layout_of(root, config) == "aidlc-docs":
        # Here: validating a memory bank never imports the aidlc-docs modules (their models take long to build).
        from aidlc.aidlc_docs.records import read_workspace

        if reads_workspace(root, config):
            return read_workspace(root.resolve())
        return open_docs(root, config)
    return open_bank(root, as_found=True, config=config)


def reads_workspace(root: Path, config: Config) -> bool:
    """Whether the project's records are the v2 workspace's (on the aidlc-docs layout): it holds intent records (they
    supersede a flat aidlc-docs/ that the migration left in place). Else the flat folder's, where it holds records or
    HEAD's history held some (`flat_records`); else the workspace's, where HEAD's history touched it (a change that
    deleted every record is judged by their logs' history) or it is set up (`aidlc/spaces/default/memory/`, before
    the first intent)."""
    # Here: a memory bank's commands never import the aidlc-docs modules.
    from aidlc.aidlc_docs.records import is_workspace, record_folders

    if record_folders(root):
        return True
    if flat_records(root, config):
        return False
    from aidlc import vcs  # only here: it imports GitPython

    history = vcs.history(root)
    return (history is not None and history.head is not None and bool(history.touching(V2_SPACES))) or \
        is_workspace(root)


def flat_records(root: Path, config: Config) -> bool:
    """Whether the aidlc-docs folder holds records, or HEAD's history held some: a folder a change deleted is
    missing, not absent (deleting the records and setting up an empty workspace in their place, or adding an intent
    record beside them, must not leave what was done to them unjudged)."""
    if docs_marker(root, config) is not None:
        return True
    from aidlc import vcs  # only here: it imports GitPython

    history = vcs.history(root)
    return history is not None and history.head is not None and \
        any(history.last_holding(f"{config.aidlc_docs}/{marker}") is not None for marker in DOCS_MARKERS)


def folder_of(records: MemoryBank | DocsProject | RecordsWorkspace) -> str:
    """The folder opened records live in, relative to the repository root."""
    # The aidlc-docs modules load only where a command asks for the layout, never for open_bank.
    from aidlc.aidlc_docs.model import DocsProject, RecordsWorkspace

    return records.rel if isinstance(records, DocsProject | RecordsWorkspace) else records.rel_root


class Workspace:
    """What one command reads of the repository, read once and passed down: aidlc.yaml, the memory bank and its
    index, the ledger and its view. Where a person or the model may have changed files since (a model's answer, the
    checks, a question at a gate, a gate decision), the command takes `refreshed()`: the bank read again, and the
    ledger where someone wrote to it, under the same configuration (aidlc.yaml is read once a command: a run keeps
    the settings it began with)."""

    def __init__(self, config: Config, bank: MemoryBank, view: LedgerView | None = None) -> None:
        self.config = config
        self.bank = bank
        self.root = Path(bank.repo_root)
        # Here, not at the top, as below: `aidlc validate` imports this module, and a bank without a ledger never
        # imports the ledger's modules (aidlc/rules/ledger.py, view).
        from aidlc.events.ledger import Ledger

        self.ledger = view.ledger if view is not None else Ledger.of_bank(self.root, bank.rel_root)
        self._view = view

    @classmethod
    def open(cls, root: Path) -> Workspace:
        """The workspace of the repository at `root`; no memory bank is a usage error (`open_bank`)."""
        config = load_config(root)
        return cls(config, open_bank(root, config=config))

    def refreshed(self, view: LedgerView | None = None) -> Workspace:
        """The bank as it is on disk now, with this workspace's configuration, and the ledger's view: `view` (a gate
        decision's, its own line included) or this workspace's, while it still shows the file as it is
        (`LedgerView.current`), else opened again when first asked for."""
        bank = open_bank(self.root, config=self.config)
        kept = next((v for v in (view, self._view) if v is not None and v.ledger.path == self.ledger.path
                     and v.current()), None)
        return Workspace(self.config, bank, kept)

    @cached_property
    def index(self) -> BankIndex:
        return BankIndex(self.bank)

    @property
    def view(self) -> LedgerView:
        """The ledger's view, opened when first asked for. Appends through `ledger` keep it current (they add to
        the state it holds); a decision recorded through another `Ledger` (aidlc.gates) shows in `refreshed()`."""
        if self._view is None:
            from aidlc.events.view import open_view  # here, not at the top: see __init__

            self._view = open_view(self.ledger)
        return self._view

    def verified_view(self, records: str) -> LedgerView:
        """`view`, the ledger there and intact (`aidlc.events.view.verified_ledger`)."""
        from aidlc.events.view import verified  # here, not at the top: see __init__

        return verified(self.ledger, records, lambda _: self.view)

    def bolt(self, ref: str) -> BoltItem:
        """The bolt `ref` names, as every command resolves it (`find_bolt`)."""
        return find_bolt(self.bank, ref, self.index)
