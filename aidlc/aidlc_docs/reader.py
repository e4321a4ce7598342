"""A tolerant reader of the aidlc-docs layout that agents write following AWS aidlc-workflows.

It reads what repositories hold, not only the rules' templates: stage lines with or without a phase prefix
(`INCEPTION - `), with `— COMPLETE`, `(COMPLETED - <ts>)`, `(SKIPPED)`, `- SKIP`, with `[~]`, `[-]`, `[S]`, `[?]`,
stage names in other languages (aidlc/aidlc_docs/stages.py); audit entries with English, localised or older
(`AI Prompt`/`User Response`/`Status`) fields, with or without a heading or a `---`, oldest or newest first, in one
`audit.md` or several (`audit/*.md`, v2's shards); CRLF line ends; plan files named per unit or not. A state file
may write its stages as a table (`| Stage | Status |` rows, `| Code Generation | ✅ Complete |`) and stand at
`state/<branch>.md` (a per-branch fork of the rules keeps one state and one audit log per branch).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from pathlib import Path

from aidlc.aidlc_docs.audit import read_audit
from aidlc.aidlc_docs.markdown import HEADING, LIST_ITEM, conflict_lines, one_line_end, shown_lines
from aidlc.aidlc_docs.model import DocsProject, OutsideLog, Unreadable
from aidlc.aidlc_docs.plans import mark_superseded, read_plan
from aidlc.aidlc_docs.state import read_state
from aidlc.aidlc_docs.stories import story_assignments, story_headings
from aidlc.aidlc_docs.units import folders_named, numbered_folder, unit_of
from aidlc.bank.frontmatter import MAX_FILE_BYTES, decode, not_regular
from aidlc.bank.walk import read_inside
from aidlc.names import arg

STATE_FILE = "aidlc-state.md"
STORIES_FILE = "stories.md"
STORY_MAP_FILE = "unit-of-work-story-map.md"
UNITS_FILES = ("unit-of-work.md", "units.md")
AUDIT_FILE = "audit.md"
AUDIT_FOLDER = "audit"
STATE_FOLDER = "state"
AUDIT_INDEX = f"{AUDIT_FOLDER}/audit-index.md"  # the per-branch layout's list of its branches' logs
# An audit log only grows: 5,000 entries of a real log's size are 1-5 MiB, over the limit of other files.
MAX_AUDIT_BYTES = 64 << 20
# Folders of construction/ that are no unit: the plans, and a stage's folder (a system-wide infrastructure-design/,
# as units are `construction/<unit>/<stage>/`); shared parts too, or a system-wide stage's work (shared/nfr-design/),
# unless the folder holds a unit's own work, its functional design or code: then it is a unit named shared
# (kiro_project's and wc2026-predictor's Unit 1).
NOT_UNITS = frozenset({"plans", "build-and-test", "code", "functional-design", "nfr-requirements", "nfr-design",
                       "infrastructure-design", "code-generation"})
SHARED = frozenset({"shared", "shared-infrastructure"})
UNITS_OWN = ("functional-design", "code")


def read_project(root: Path, rel: str) -> DocsProject:
    """The docs folder `rel` of the repository at `root`: every file it holds, the state file, the audit logs, the
    plans and the unit folders. A file that cannot be read is listed in `unreadable`, never a crash."""
    folder = root / rel
    project = DocsProject(root=str(root), rel=rel)
    # Every entry but a folder: a FIFO or a device named audit.md is listed, and refused when read (`_text`).
    for path in sorted(p for p in folder.rglob("*") if p.is_symlink() or not p.is_dir()):
        project.files.append(path.relative_to(root).as_posix())
    for name in (STATE_FILE, AUDIT_FILE):  # a folder where the state file or the log should be hides them: say so
        if (folder / name).is_dir():
            project.unreadable.append(Unreadable(path=f"{rel}/{name}", message=not_regular(stat.S_IFDIR)))
    state = state_file([path_rel[len(rel) + 1:] for path_rel in project.files])
    construction = folder / "construction"
    if construction.is_dir():
        project.units = sorted(p.name for p in construction.iterdir() if p.is_dir() and p.name not in NOT_UNITS
                               and (p.name not in SHARED or any((p / own).is_dir() for own in UNITS_OWN)))
    for path_rel in project.files:
        if path_rel.endswith(".md"):
            _read_markdown(project, path_rel, path_rel[len(rel) + 1:], state)
    mark_superseded(project.plans)
    if not any(is_audit(path_rel[len(rel) + 1:]) for path_rel in project.files):
        project.logs_outside = _logs_outside(root, rel)
    return project


def _logs_outside(root: Path, rel: str) -> list[OutsideLog]:
    """The audit logs with entries aidlc reads at the repository root or in the folder above the docs folder
    (`table-order/audit.md` beside `table-order/aidlc-docs/`), for a docs folder that holds none: the agent kept the
    log where no rule reads it, and every ticked stage reads as unapproved (tyfoo1603/aidlc-workflows)."""
    found = []
    for path in dict.fromkeys([posixpath.join(posixpath.dirname(rel), AUDIT_FILE), AUDIT_FILE]):
        try:
            data = read_inside(root / path, root, MAX_AUDIT_BYTES)
        except OSError:
            continue  # none there, or none a reader may open: nothing to name
        text, problem = decode(data, path)
        entries = len(read_audit(one_line_end(text), path).entries) if text is not None and problem is None else 0
        if entries:
            found.append(OutsideLog(path=path, entries=entries))
    return found


def _read_markdown(project: DocsProject, path_rel: str, inside: str, state: str | None) -> None:
    """Read one Markdown file of the docs folder (`inside`: its path there) into `project`, as what it is: the
    state file, an audit log, or another document (stories, the story map, a plan)."""
    audit = is_audit(inside)
    if (audit or inside == state) and _linked_inside(project, path_rel):
        return
    text = _text(Path(project.root), path_rel, project, MAX_AUDIT_BYTES if audit else MAX_FILE_BYTES)
    if text is None:
        return
    if inside == state:
        project.state = read_state(text, path_rel, project.units)
        _number_units(project, text)
    elif audit:
        project.audits.append(read_audit(text, path_rel))
    else:
        _read_document(project, text, path_rel, inside)


def _linked_inside(project: DocsProject, path_rel: str) -> bool:
    """Whether an audit log or the state file is a symbolic link to a file inside the repository, listed unreadable
    then: the rules judge its history too, and git keeps the link, not the file it leads to (a link out of the
    repository is refused when read, as for every file)."""
    link = Path(project.root, path_rel)
    if not link.is_symlink() or not link.exists():  # a link to nothing is unreadable when read, with no file to move
        return False
    there = os.path.relpath(os.path.realpath(link), os.path.realpath(project.root))
    if there.startswith(".."):
        return False
    project.unreadable.append(Unreadable(
        path=path_rel, message=f"a symbolic link (to {os.readlink(link)}): git keeps the link, not the file, so its "
        "history, which the rules judge, cannot be read",
        fix=f"git rm -q {arg(path_rel)} && git mv {arg(there)} {arg(path_rel)}    # the file where the link was"))
    return True


def _read_document(project: DocsProject, text: str, path_rel: str, inside: str) -> None:
    name = path_rel.rsplit("/", 1)[-1]
    if name == STORIES_FILE and "user-stories/" in inside:
        project.stories.defined += story_headings(text, path_rel)
    elif name == STORY_MAP_FILE:
        project.stories.mapped += story_assignments(text, path_rel)
        project.stories.maps.append(path_rel)
    elif name in UNITS_FILES:  # the units' document: `## Unit 1: backend-api` (not its dependency or story maps)
        _number_units(project, text)
    if name.endswith("plan.md") or "-plan-" in name or "/plans/" in f"/{inside}":
        parts = inside.split("/")  # construction/<unit>/.../<plan>: a unit folder's own plan
        in_unit = parts[1] if len(parts) > 2 and parts[0] == "construction" and parts[1] in project.units else None
        plan = read_plan(text, path_rel, in_unit)
        if plan is not None:
            project.plans.append(plan)
    lines = conflict_lines(text)
    if lines:
        project.conflicts[path_rel] = lines


def _number_units(project: DocsProject, text: str) -> None:
    """The number each unit folder is given by a heading naming both (`#### Unit 1: Backend API` names unit 1 and
    the folder backend-api), by a list item naming both as one label (`- [x] **Cost Analytics Service** (Unit
    1)`), or by the name row of a table under a unit's heading (`## Unit 2: Customer Frontend`, then `| Name |
    customer-web |`): the first line that does counts."""
    named = [folder for folder in project.units if unit_of(folder) is None]
    section: str | None = None  # the unit the last heading naming one is about
    for _, line in shown_lines(text):
        heading = HEADING.match(line) if line.startswith("#") else None
        row = _NAME_ROW.match(line) if heading is None and section is not None else None
        if heading is not None:
            number = section = unit_of(heading.group(2))
            folders = folders_named(heading.group(2), named) if number is not None else []
            tie = (number, folders[0]) if number is not None and len(folders) == 1 else None
        elif row is not None and section is not None:
            folders = folders_named(row.group(1), named)
            tie = (section, folders[0]) if len(folders) == 1 else None
        else:
            item = LIST_ITEM.match(line)
            tie = numbered_folder(item.group("text"), named) if item else None
        if tie is not None:
            project.unit_numbers.setdefault(tie[1], tie[0])


# A table's row giving a unit's name or folder: `| Name | customer-web |`, `| **Folder** | \`admin-web\` |`.
_NAME_ROW = re.compile(r"^\|[ \t*]*(?:unit[ \t]+)?(?:name|folder|directory|이름|유닛[ \t]*(?:이름|명)|名前|名称|nome)"
                       r"[ \t*]*\|([^|]+)\|", re.IGNORECASE)


def is_audit(inside: str) -> bool:
    """Whether the file at `inside` (relative to the docs folder) is an audit log: audit.md, or a file of audit/
    (v2's per-clone shards, per-branch logs) other than the per-branch layout's index of its logs."""
    return inside == AUDIT_FILE or (inside.startswith(f"{AUDIT_FOLDER}/") and inside.count("/") == 1
                                    and inside.endswith(".md") and inside != AUDIT_INDEX)


def is_audit_of(rel: str, path: str) -> bool:
    """Whether the file at `path` (relative to the project) is an audit log of the docs folder `rel` (`is_audit`)."""
    return path.startswith(f"{rel}/") and is_audit(path[len(rel) + 1:])


def state_file(inside: list[str]) -> str | None:
    """Which file (relative to the docs folder, of those `inside` lists) is the state file: aidlc-state.md, else
    the one branch file of state/ (`state/main.md`; `state/state-index.md` lists the branches). Several branch
    files are several projects' states, and none is read as the project's: aidlc does not choose one."""
    if STATE_FILE in inside:
        return STATE_FILE
    branches = [name for name in inside if name.startswith(f"{STATE_FOLDER}/") and name.count("/") == 1
                and name.endswith(".md") and not name.endswith("-index.md")]
    return branches[0] if len(branches) == 1 else None


def _text(root: Path, rel: str, project: DocsProject, limit: int) -> str | None:
    """The file's text; None, with the reason in `project.unreadable`, for one that is not a regular file inside
    the repository (a FIFO would block, a link may lead to any file of the machine), is too large, or not UTF-8."""
    try:
        data = read_inside(root / rel, root, limit)
    except OSError as exc:
        project.unreadable.append(Unreadable(path=rel, message=exc.strerror or str(exc)))
        return None
    text, problem = decode(data, rel)
    if problem is not None:
        project.unreadable.append(Unreadable(path=rel, message=problem.message, line=problem.line))
        return None
    return one_line_end(text) if text is not None else None
