"""The gate catalogue: which human checkpoints each subject has, in which order, on which bytes.

A decision binds to the sha256 of the artifact it judged (its fingerprint). When
a gate judges several files (all the stories of an intent), the fingerprint is a
digest of their paths and contents, so any change to any of them makes it stale.
Progress (status fields, checked boxes) is left out of the digest: moving a
story to complete must not make the approval of its definition stale. A bolt's
plan gate judges its plan under the bolt's risk and scope too (`bolt_terms`):
lowering the risk or widening the scope after the approval makes it stale.

A project in AWS aidlc-workflows' aidlc-docs layout has gates of its own (`docs_target`): the stages of its
inception, of each unit under construction/, and its build and test, each judging the files the rules have the
agent write for that stage (`docs_judged_files`). An aidlc-workflows v2 intent record (`aidlc/spaces/<space>/intents/
<dir>/`) has its own (`record_targets`): the intent, whose stages are the rows of its aidlc-state.md in their order, and
each unit folder under its construction/, whose stages are the per-unit ones; each judges its stage folder.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aidlc.aidlc_docs.plans import stage_folders, unit_plan
from aidlc.aidlc_docs.stages import BY_SLUG, STAGES
from aidlc.aidlc_docs.units import unit_of
from aidlc.bank.frontmatter import NotRegularFile
from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, Intent, MemoryBank
from aidlc.bank.walk import LinkOutside, read_inside
from aidlc.globs import matcher
from aidlc.model.events import Event, FileDigest
from aidlc.model.types import BoltType

if TYPE_CHECKING:
    from aidlc.aidlc_docs.model import DocsProject, StateRow

INTENT_STAGES = ("requirements", "units", "stories", "bolt-plan")
BOLT_STAGES = ("plan", "walkthrough")
DDD_BOLT_STAGES = ("plan", "model", "design", "adr", "walkthrough")
RELEASE_STAGES = ("deploy",)
POLICY_STAGES = ("change",)  # a change of the rules a pull request is judged by (aidlc/bank/rulefiles.py)

# What each bolt stage judges, inside the bolt folder.
BOLT_ARTIFACTS = {
    "plan": ("implementation-plan.md",),
    "model": ("ddd-01-*.md",),
    "design": ("ddd-02-*.md",),
    "adr": ("adr-*.md",),
    "walkthrough": ("implementation-walkthrough.md",),
}


# The aidlc-docs layout's subjects: its inception and its construction (build and test) are phases, each folder
# under construction/ a unit; their stages, in the documented order, are those the rules end with a person's approval.
DOCS_PHASE_STAGES = {phase: tuple(s.slug for s in STAGES if s.phase == phase and s.approval and not s.per_unit)
                     for phase in ("inception", "construction")}
DOCS_UNIT_STAGES = tuple(s.slug for s in STAGES if s.per_unit)
# Stages core-workflow.md runs ALWAYS: an earlier one is waited for even when it has written nothing yet. A
# conditional stage with no files ran not at all, and is not waited for.
DOCS_ALWAYS = frozenset({"requirements-analysis", "workflow-planning", "code-generation", "build-and-test"})
# What each stage judges inside the docs folder, beyond a unit's stage folder and plan (`docs_judged_files`).
DOCS_STAGE_FILES = {
    "reverse-engineering": ("inception/reverse-engineering/**",),
    "requirements-analysis": ("inception/requirements/*.md",),
    "user-stories": ("inception/user-stories/*.md", "inception/plans/story-generation-plan.md",
                     "inception/plans/user-stories-assessment.md"),
    "workflow-planning": ("inception/plans/execution-plan.md",),
    # unit-of-work*.md sit beside the design but are the units generation's: each judged at its own gate
    "application-design": ("inception/application-design/*.md", "inception/plans/application-design-plan.md"),
    "units-generation": ("inception/application-design/unit-of-work*.md", "inception/plans/unit-of-work-plan.md"),
    "build-and-test": ("construction/build-and-test/**",),
}


@dataclass(frozen=True)
class GateTarget:
    """A subject resolved in the bank (or the aidlc-docs folder), with its stages in order."""

    kind: str  # intent | bolt | release | policy; in the aidlc-docs layout: phase | unit (v2 records: intent | unit)
    id: str
    stages: tuple[str, ...]
    intent: Intent | None = None
    bolt: BoltItem | None = None
    release_file: Path | None = None
    docs: DocsProject | None = None


def docs_targets(project: DocsProject) -> list[GateTarget]:
    """Every subject of an aidlc-docs project: its inception, each unit, then its construction (build and test)."""
    units = [GateTarget("unit", unit, DOCS_UNIT_STAGES, docs=project) for unit in project.units]
    return [GateTarget("phase", "inception", DOCS_PHASE_STAGES["inception"], docs=project), *units,
            GateTarget("phase", "construction", DOCS_PHASE_STAGES["construction"], docs=project)]


def docs_judged_files(target: GateTarget, stage: str) -> tuple[str, list[Path]]:
    """(label, files) a decision on a stage of an aidlc-docs subject judges: the stage's files (a unit's: its
    folder construction/<unit>/<stage>/, its code/ for code generation, and its plan in construction/plans/)."""
    assert target.docs is not None
    project, root = target.docs, Path(target.docs.root)
    if project.record is not None:
        return record_judged_files(target, stage)
    if target.kind == "unit":
        base = f"{project.rel}/construction/{target.id}/"
        # The unit's walkthrough (aidlc walkthrough UNIT) reports on the gate, its decisions among the rest: judged,
        # writing it again would make the approval it reports stale.
        walkthrough = f"{base}code/walkthrough.md"
        files = [rel for rel in project.files if rel.startswith(stage_folders(project, target.id, stage))
                 and rel != walkthrough]
        files += [plan for plan in project.files if unit_plan(project, plan, stage) == target.id]
        return f"{base}{stage}", [root / rel for rel in sorted(set(files))]
    inside = matcher([f"{project.rel}/{glob}" for glob in DOCS_STAGE_FILES[stage]])
    files = [rel for rel in project.files if inside(rel)]
    if stage == "application-design":
        files = [rel for rel in files if not rel.rsplit("/", 1)[-1].startswith("unit-of-work")]
    label = DOCS_STAGE_FILES[stage][0].removesuffix("/**").removesuffix("/*.md")
    return f"{project.rel}/{label}", [root / rel for rel in files]


# -- v2 intent records ----------------------------------------------------------------------------------------------
def record_units(project: DocsProject) -> list[str]:
    """The unit folders of a v2 intent record: those under construction/ not named after a stage (v2's zero-unit
    code generation writes construction/code-generation/)."""
    assert project.record is not None
    slugs = {row.slug for row in project.record.rows} | set(BY_SLUG)
    return [unit for unit in project.units if unit not in slugs]


def record_targets(project: DocsProject) -> list[GateTarget]:
    """The subjects of a v2 intent record: the intent (`<space>/<dir>`), whose stages are its aidlc-state.md's rows
    past initialization (informational: no person approves it), in their order; then each unit
    (`<space>/<dir>/<unit>`), whose stages are the per-unit rows (v2's KNOWN_PER_UNIT_STAGES), which the intent
    keeps only when it has no unit (the zero-unit target)."""
    assert project.record is not None
    record = project.record
    units = record_units(project)
    rows = [row.slug for row in record_rows(project)]
    own = tuple(slug for slug in dict.fromkeys(rows) if not (units and slug in DOCS_UNIT_STAGES))
    per_unit = tuple(slug for slug in dict.fromkeys(rows) if slug in DOCS_UNIT_STAGES) or DOCS_UNIT_STAGES
    intent = f"{record.space}/{record.name}"
    return [GateTarget("intent", intent, own, docs=project),
            *(GateTarget("unit", f"{intent}/{unit}", per_unit, docs=project) for unit in units)]


def record_rows(project: DocsProject) -> list[StateRow]:
    """The rows of a v2 record's gates: every row but the initialization phase's."""
    assert project.record is not None
    return [row for row in project.record.rows if row.phase != "initialization"]


def record_judged_files(target: GateTarget, stage: str) -> tuple[str, list[Path]]:
    """(label, files) a decision on a stage of a v2 record judges: every file of the stage's folder, a unit's
    construction/<unit>/<stage>/, the intent's <phase>/<stage>/ (construction/code-generation/ for zero units)."""
    assert target.docs is not None
    project, root = target.docs, Path(target.docs.root)
    if target.kind == "unit":
        folder = f"{project.rel}/construction/{target.id.rsplit('/', 1)[1]}/{stage}/"
        files = [rel for rel in project.files if rel.startswith(folder)]
        return folder.rstrip("/"), [root / rel for rel in files]
    inside = matcher([f"{project.rel}/*/{stage}/**"])
    files = [rel for rel in project.files if inside(rel)]
    phase = next((row.phase for row in project.record.rows if row.slug == stage and row.phase), "*")  # type: ignore[union-attr]  # a v2 target always has its record
    return f"{project.rel}/{phase}/{stage}", [root / rel for rel in files]


def record_earlier(target: GateTarget, stage: str) -> list[tuple[GateTarget, str]]:
    """The gates a stage of a v2 record waits for: the rows before its own in aidlc-state.md (a per-unit row: the
    unit's own stage, or for the intent every unit's), none the state marks skipped ([S], SKIP). A unit's stage
    with no row of its own comes after the rows before construction."""
    assert target.docs is not None
    targets = record_targets(target.docs)
    intent, units = targets[0], targets[1:]
    rows = record_rows(target.docs)
    slugs = [row.slug for row in rows]
    upto = slugs.index(stage) if stage in slugs else next(
        (n for n, row in enumerate(rows) if row.phase in ("construction", "operation")), len(rows))
    from aidlc.aidlc_docs.model import Mark  # here: a memory bank's validation never builds the aidlc-docs models

    earlier: list[tuple[GateTarget, str]] = []
    for row in rows[:upto]:
        if row.mark == Mark.skipped or row.decision.upper().startswith("SKIP"):
            continue
        if units and row.slug in DOCS_UNIT_STAGES:
            earlier += [(target, row.slug)] if target.kind == "unit" else [(unit, row.slug) for unit in units]
        else:
            earlier.append((intent, row.slug))
    if target.kind == "unit" and stage not in slugs:
        earlier += [(target, before) for before in target.stages[:target.stages.index(stage)]]
    return earlier


def docs_skipped(target: GateTarget, stage: str) -> bool:
    """Whether aidlc-state.md marks the stage skipped (for a unit: on a line about that unit or about no unit),
    and no line about it says it was done."""
    state = target.docs.state if target.docs is not None else None
    if state is None:
        return False
    from aidlc.aidlc_docs.model import Mark  # here, as above: only an aidlc-docs project has a state file

    lines = [line for line in state.stages if line.stage == stage and (
        target.kind != "unit" or line.unit is None or line.unit in (target.id, unit_of(target.id)))]
    return any(line.skipped for line in lines) and \
        not any(line.mark == Mark.done and not line.skipped for line in lines)


def stages_for(bolt: BoltItem) -> tuple[str, ...]:
    return DDD_BOLT_STAGES if bolt.meta is not None and bolt.meta.type == BoltType.ddd else BOLT_STAGES


# Progress fields change as work moves on; an approval judges the content, not the progress.
VOLATILE_KEYS = frozenset({"status", "phase", "updated", "implemented", "assigned_bolt", "started", "completed",
                           "current_stage", "stages_completed"})
_CHECKED = re.compile(rb"^(\s*[-*+]\s+)\[[xX]\]", re.MULTILINE)
_TOP_KEY = re.compile(rb"^([A-Za-z_][\w-]*)\s*:")


def content_digest(data: bytes) -> str:
    """sha256 of a file without its progress: volatile front-matter keys dropped, boxes unchecked."""
    lines = data.split(b"\n")
    if lines and lines[0].rstrip() == b"---":
        kept, dropping, closed = [lines[0]], False, False
        for index, line in enumerate(lines[1:], start=1):
            if line.rstrip() == b"---":
                kept.extend(lines[index:])
                closed = True
                break
            key = _TOP_KEY.match(line)
            if key:
                dropping = key.group(1).decode() in VOLATILE_KEYS
            elif not line.startswith((b" ", b"\t", b"-")) and line.strip():
                dropping = False
            if not dropping:
                kept.append(line)
        lines = kept if closed else lines
    return hashlib.sha256(_CHECKED.sub(rb"\1[ ]", b"\n".join(lines))).hexdigest()


def file_digests(repo: Path, files: list[Path]) -> list[FileDigest]:
    """The content digest of each judged file, sorted by path. Only regular files inside the repository are
    read: a link leading outside (AIDLC-FILE-008) or a FIFO is not what a person judged (`refused` names it)."""
    digests = []
    for path in sorted(files):
        try:
            data = read_inside(path, repo)
        except OSError:
            continue
        digests.append(FileDigest(path=path.relative_to(repo).as_posix(), sha256=content_digest(data)))
    return digests


def refused(repo: Path, files: list[Path]) -> list[str]:
    """Why judged files that exist are not read ("PATH: a symbolic link to ..., outside the repository")."""
    found = []
    for path in sorted(files):
        try:
            read_inside(path, repo)
        except (LinkOutside, NotRegularFile) as exc:
            found.append(f"{path.relative_to(repo).as_posix()}: {exc.strerror}")
        except OSError:
            continue  # missing or unreadable: the gate says there is nothing to judge, validate says why
    return found


def combine(label: str, digests: list[FileDigest]) -> FileDigest | None:
    """One file: its digest. Several: sha256 over "path NUL digest" lines (sorted by path), under `label`."""
    if len(digests) <= 1:
        return digests[0] if digests else None
    combined = hashlib.sha256()
    for digest in digests:
        combined.update(f"{digest.path}\0{digest.sha256}\n".encode())
    return FileDigest(path=label, sha256=combined.hexdigest())


def intent_bolts(bank: MemoryBank, index: BankIndex, intent: Intent) -> list[BoltItem]:
    """The bolts an intent's bolt-plan gate judges."""
    return [b for b in bank.bolts if b.meta and index.intent(b.meta.intent) is intent]


def judged_files(bank: MemoryBank | None, index: BankIndex | None, target: GateTarget,
                 stage: str) -> tuple[str, list[Path]]:
    """(label, files) a decision on this stage judges (an aidlc-docs subject has no bank: None)."""
    if target.docs is not None:
        return docs_judged_files(target, stage)
    assert bank is not None and index is not None
    repo = Path(bank.repo_root)
    if target.kind == "bolt":
        assert target.bolt is not None
        folder = repo / Path(target.bolt.rel).parent
        files = [f for pattern in BOLT_ARTIFACTS[stage] for f in folder.glob(pattern)]
        return f"{folder.relative_to(repo).as_posix()}/{BOLT_ARTIFACTS[stage][0]}", files
    if target.kind == "intent":
        assert target.intent is not None
        intent = target.intent
        folder = repo / intent.rel
        if stage == "requirements":
            return f"{intent.rel}/requirements.md", [folder / "requirements.md"]
        if stage == "units":
            return f"{intent.rel}/units", [folder / "units.md", *(repo / u.rel for u in intent.units)]
        if stage == "stories":
            return f"{intent.rel}/units/*/stories", [repo / s.rel for u in intent.units for s in u.stories]
        return f"{bank.rel_root}/bolts (intent {intent.id})", [repo / b.rel for b in intent_bolts(bank, index, intent)]
    assert target.release_file is not None
    return target.release_file.relative_to(repo).as_posix(), [target.release_file]


TERMS = " (risk and scope)"  # the name of a plan approval's digest of its bolt's terms, after bolt.md's


def bolt_terms(bolt: BoltItem) -> FileDigest:
    """The bolt's risk and scope as its plan approval binds them: a digest under the name of bolt.md."""
    meta = bolt.meta
    terms = {"risk": str(meta.risk) if meta and meta.risk else None, "scope": sorted(set(meta.scope if meta else []))}
    return FileDigest(path=f"{bolt.rel}{TERMS}",
                      sha256=hashlib.sha256(json.dumps(terms, sort_keys=True).encode()).hexdigest())


def binds_terms(decision: Event | None) -> bool:
    """Whether a plan decision binds the bolt's risk and scope (None: one about to be made does). One recorded
    before plan decisions did (no `data.bolt_risk`) judged the plan file alone, and is compared with it alone:
    upgrading aidlc does not make a bank's earlier approvals stale."""
    return decision is None or (decision.data is not None and "bolt_risk" in decision.data)


def fingerprint(bank: MemoryBank | None, index: BankIndex | None, target: GateTarget, stage: str,
                decision: Event | None = None) -> FileDigest | None:
    """What a decision on the stage judges now; `decision`: the recorded decision it is compared with."""
    return combine(judged_files(bank, index, target, stage)[0], judged_digests(bank, index, target, stage, decision))


def judged_digests(bank: MemoryBank | None, index: BankIndex | None, target: GateTarget, stage: str,
                   decision: Event | None = None) -> list[FileDigest]:
    """Each judged file's digest: recorded with a multi-file decision, so a stale finding can name the file. A
    bolt's plan, once written, is judged with the bolt's risk and scope (see `binds_terms`)."""
    repo = Path(target.docs.root if target.docs is not None else bank.repo_root)  # type: ignore[union-attr]  # a bank target always has its bank
    digests = file_digests(repo, judged_files(bank, index, target, stage)[1])
    if digests and target.bolt is not None and stage == "plan" and binds_terms(decision):
        digests = sorted([*digests, bolt_terms(target.bolt)], key=lambda digest: digest.path)
    return digests
