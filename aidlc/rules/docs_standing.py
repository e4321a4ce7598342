"""The approval each ticked stage line of aidlc-state.md stands on: for each unit the line claims the stage of, the
audit entry where a person approved it, or none. AIDLC-DOCS-003 (aidlc/rules/docs_layout.py) reports the claims with
none; `aidlc status` shows each line's. An approval is an audit entry as aidlc/rules/docs_approvals.py reads one."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from aidlc.aidlc_docs.model import AuditEntry, DocsProject, Mark, StageLine
from aidlc.aidlc_docs.plans import units_with_work
from aidlc.aidlc_docs.reader import is_audit
from aidlc.aidlc_docs.stages import BY_SLUG, Stage
from aidlc.aidlc_docs.units import listed_units, unit_of
from aidlc.rules.docs_approvals import Units, approvals
from aidlc.rules.docs_entries import says_approved
from aidlc.rules.docs_words import goes_ahead


@dataclass(frozen=True)
class Claim:
    """A ticked line's claim that a stage (of one unit) is done, with the approval it stands on."""

    path: str  # aidlc-state.md's
    line: StageLine
    unit: str | None  # the unit claimed, as approvals are keyed; None for a stage not per unit, or a line naming none
    approval: AuditEntry | None
    log: str | None  # the audit log holding the approval


def ticked(project: DocsProject) -> Iterator[tuple[str, StageLine]]:
    """(aidlc-state.md's path, line) of each stage line that claims a stage done: ticked, a stage aidlc knows, not
    skipped."""
    if project.state is None:
        return
    for line in project.state.stages:
        if line.mark == Mark.done and line.stage is not None and not line.skipped:
            yield project.state.path, line


def logs_unreadable(project: DocsProject) -> bool:
    """Whether an audit log cannot be read: an approval may stand in it, so no claim can be called unapproved."""
    return any(is_audit(item.path[len(project.rel) + 1:]) for item in project.unreadable)


def approval_claims(project: DocsProject, units: Units | None = None) -> list[Claim]:
    """Each ticked line's claim of a stage that needs a person's approval, of each unit it claims, in line order."""
    units = units or Units(project)
    given = approvals(project, units)
    where = {id(entry): log.path for log in project.audits for entry in log.entries}
    once = unnamed_stages(project)
    lines = list(ticked(project))
    # The per-unit stages some ticked line names a unit of: there, a line naming none is of no unit of theirs,
    # unless it is their parent (`Code Generation - EXECUTE (per-unit)` over `  - [x] Unit 1: Backend`)
    with_units = {line.stage for _, line in lines if line.unit is not None} if len(project.units) > 1 else set()
    parents = {line.parent for _, line in lines if line.parent is not None and line.unit is not None}
    found = []
    for path, line in lines:
        stage = BY_SLUG[line.stage or ""]
        if not stage.approval:
            continue
        for unit in claimed_units(project, units, line, given):
            # lyhlg's `#### Customer App (FE)` Code Generation line, beside `#### Unit 1: Core (BE)`'s, stands on an
            # approval naming no unit, not on unit 1's
            apart = unit is None and stage.per_unit and line.stage in with_units and not line.every_unit and \
                line.line not in parents
            entry = approval_of(given, stage, unit, unnamed=stage.slug in once, unit_less=apart)
            found.append(Claim(path, line, unit if stage.per_unit else None, entry,
                               where.get(id(entry)) if entry else None))
    return found


def unapproved(project: DocsProject, claims: list[Claim]) -> frozenset[tuple[str, str | None]]:
    """The (stage, unit) of each of the project's `claims` AIDLC-DOCS-003 reports: ticked in the work tree with no
    approval in its logs (none while a log cannot be read: 003 then reports none)."""
    if logs_unreadable(project):
        return frozenset()
    return frozenset((claim.line.stage or "", claim.unit) for claim in claims if claim.approval is None)


def claimed_units(project: DocsProject, units: Units, line: StageLine,
                  given: dict[tuple[str, str | None], list[AuditEntry]]) -> list[str | None]:
    """The units (as approvals are keyed) whose stage a ticked line claims: the one it names, or none; a per-unit
    stage ticked for every unit at once (`Code Generation (all units)`), with no approval naming no unit, claims it
    of each unit folder with work for it (the units' approvals must then each be there, not any one of them), or of
    each unit it lists (`(Unit 1~2 전체)`: all of units 1 and 2, not a unit 3)."""
    stage = BY_SLUG[line.stage or ""]
    if not (line.every_unit and stage.per_unit and len(project.units) > 1) or given.get((stage.slug, None)):
        return [units.key(line.unit)]
    listed = listed_units(line.text)
    claimed = listed if len(listed) > 1 else [unit_of(folder) or units.key(folder)
                                               for folder in units_with_work(project, stage.slug)]
    return list(dict.fromkeys(claimed)) or [None]


def unnamed_stages(project: DocsProject) -> set[str | None]:
    """The stages where an approval naming no unit can only be of every unit: each in a project of one unit, else a
    stage run once for all units, its plan naming none (`functional-design-plan.md`)."""
    return {plan.stage for plan in project.plans if plan.unit is None} if len(project.units) > 1 else set(BY_SLUG)


def approval_of(given: dict[tuple[str, str | None], list[AuditEntry]], stage: Stage, unit: str | None,
                unnamed: bool = False, unit_less: bool = False) -> AuditEntry | None:
    """The entry of `given` that approves the stage: of the unit, for a per-unit stage's line naming one; with
    `unnamed`, an approval that names no unit approves the stage of every unit; with `unit_less`, for a line naming
    no unit, only one naming none. The first that says approved, else the first that goes ahead, else the first (a
    reader shown `## Functional Design - User Approval` rather than the answers logged before it, and "진행" rather
    than a request logged before it)."""
    if stage.per_unit and unit is not None:
        entries = given.get((stage.slug, unit)) or (given.get((stage.slug, None)) if unnamed else None)
    elif unit_less:
        entries = given.get((stage.slug, None))
    else:
        entries = next((entries for (slug, _), entries in given.items() if slug == stage.slug and entries), None)
    if not entries:
        return None
    return next((entry for entry in entries if says_approved(entry)), None) \
        or next((entry for entry in entries if goes_ahead(entry)), entries[0])
