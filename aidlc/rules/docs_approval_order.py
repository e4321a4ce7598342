"""The order in which the aidlc-docs layout's stages were first approved (AIDLC-DOCS-007): the first entry of each
stage, within each run of the workflow and each unit, that says a person approved it (`approves` in
aidlc/rules/docs_approvals.py: stricter than the approvals a tick stands on, as answers or a request order nothing)."""

from __future__ import annotations

from bisect import bisect_right

from aidlc.aidlc_docs.model import AuditEntry, DocsProject
from aidlc.aidlc_docs.stages import BY_SLUG, ORDER, stage_of, stages_named
from aidlc.rules.docs_approvals import Units
from aidlc.rules.docs_entries import approved_stages, approves
from aidlc.rules.docs_headings import heading_of
from aidlc.rules.docs_words import has_words, words_of

Scope = tuple[int, str]  # a run of the workflow (see `first_approvals`), and `inception` or a unit


def first_approvals(project: DocsProject) -> dict[tuple[Scope, str], tuple[AuditEntry, str]]:
    """The first approval of each stage (of each unit, for the per-unit ones), with its log's path, by scope (the
    run of the workflow, and `inception`, else the unit) and stage: stages are compared within inception, and within
    each unit, of one run; a per-unit stage's approval naming no unit is compared with nothing, but in a project of
    one unit, where it is that unit's (agwlvssainokuni/rust-neatnik's `## Functional Design - Approved`, "承認します。",
    once left out, and the design taken as first approved a day later, after the code). Each Workspace Detection
    logged starts a run, as the workflow starts with it (aidlc-demo-showcase's `## Workspace Detection
    (Brownfield)`, after a first run through code generation, runs every stage again from reverse engineering)."""
    first: dict[tuple[Scope, str], tuple[AuditEntry, str]] = {}
    units = Units(project)
    only = units.every[0] if len(units.every) == 1 else None
    starts = sorted(entry.at for log in project.audits for entry in log.entries
                    if entry.at is not None and stage_of(heading_of(entry)) == "workspace-detection")
    for log in project.audits:
        for entry in log.entries:
            stage = _approved_stage(entry)
            if stage is None or entry.at is None:
                continue
            unit = (units.of(entry) or only) if BY_SLUG[stage].per_unit else "inception"
            if unit is None:
                continue
            scope = (bisect_right(starts, entry.at), unit)
            known = first.get((scope, stage))
            if known is None or entry.at < (known[0].at or entry.at):
                first[(scope, stage)] = (entry, log.path)
    return first


def _approved_stage(entry: AuditEntry) -> str | None:
    """The stage an entry approves, as the order is judged: the stage its heading names (else its Context), of an
    entry that says it approves (a person's words alone may be answers or a request); Build and Test aside."""
    if entry.at is None or not has_words(entry):
        return None
    stages = approved_stages(entry)
    stage = stages[0] if stages else None
    if stage is None or not BY_SLUG[stage].approval or stage == "build-and-test" or not approves(entry, stage):
        return None
    return stage


def asked_for_out_of_order(project: DocsProject, scope: Scope, stage: str, approval: AuditEntry) -> bool:
    """Whether the person changed the order on purpose: before `approval` (the stage's first), their own words name
    the stage in an entry of a stage the order puts after it, in the same scope (aws-ai-dlc's `## INCEPTION - Workflow
    Planning (User Override)` with "User Stories 단계를 건너뛰지마": don't skip User Stories). Words naming the stage
    under an earlier stage's heading, or in its own approval, decide no order."""
    units = Units(project)
    per_unit = BY_SLUG[stage].per_unit
    for log in project.audits:
        for entry in log.entries:
            if entry is approval or entry.at is None or approval.at is None or entry.at > approval.at:
                continue
            of = stage_of(heading_of(entry)) or stage_of(entry.fields.get("context", ""))
            if of is None or ORDER[of] <= ORDER[stage] or BY_SLUG[of].per_unit != per_unit or not has_words(entry):
                continue
            said = words_of(entry)
            if stage in stages_named(said) and (not per_unit or units.of(entry) == scope[1]):
                return True
    return False


def later_approved_before(first: dict[tuple[Scope, str], tuple[AuditEntry, str]], scope: Scope,
                           stage: str, entry: AuditEntry, log: str) -> tuple[AuditEntry, str] | None:
    """(its approval, the stage) of the earliest approval in `scope`, before `entry` (of `log`), of a stage the
    documented order puts after `stage`; None when there is none. Before in time, and in one log above it too: where
    the log's order and its times disagree (a time written by hand, AIDLC-DOCS-009; entries put above older ones,
    AIDLC-DOCS-023), which came first is not known."""
    before = [(other.at, other, later) for (other_scope, later), (other, other_log) in first.items()
              if other_scope == scope and ORDER[later] > ORDER[stage] and other.at and entry.at
              and other.at < entry.at and (other_log != log or other.line < entry.line)]
    if not before:
        return None
    _, other, later = min(before, key=lambda found: found[0])
    return other, later
