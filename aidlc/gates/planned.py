"""What a bolt's plan says, as the evidence report reads it: the files it plans (with why, and the stories each
serves), the risks it names and the risk it estimates; the run's approved plan where there is one, else the
bolt's implementation-plan.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aidlc.bank.walk import read_inside
from aidlc.bolt.plan import ALL_STORIES, NO_RISKS, PLAN_FILE, RISK_ORDER, digest, render_plan
from aidlc.gates.facts import Facts, one_line
from aidlc.model.events import EventType
from aidlc.model.run import Plan, RunState
from aidlc.model.types import Risk

_PATH = re.compile(r"`([^`\s]+)`")


@dataclass(frozen=True)
class Planned:
    """What the plan says of one file: why, and the stories it serves as the plan names them (none: all)."""

    reason: str
    stories: tuple[str, ...] = ()


def plan_text(facts: Facts) -> str | None:
    """implementation-plan.md when it is a regular file inside the repository (not through a link leading out)."""
    rel = f"{Path(facts.bolt.rel).parent.as_posix()}/{PLAN_FILE}"
    try:
        return read_inside(facts.repo / rel, facts.repo).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        facts.notes.append(f"{rel} is not read ({exc.strerror or exc})")
        return None


def run_plan(facts: Facts) -> Plan | None:
    """The plan of the bolt's latest run that has one, when it is the plan that run proposed (`proposed`); else None
    (with a note): implementation-plan.md is read."""
    run = next((r for r in reversed(facts.runs) if r.plan is not None), None)
    if run is None or run.plan is None:
        return None
    if proposed(facts, run):
        return run.plan
    note = (f".aidlc/runs/{run.run_id}/state.json: its plan is not one the run proposed (edited outside aidlc): "
            f"{PLAN_FILE} is read instead")
    if note not in facts.notes:
        facts.notes.append(note)
    return None


def proposed(facts: Facts, run: RunState) -> bool:
    """The run's plan renders to the digest its plan.proposed event recorded: state.json is the run's notebook,
    which any process of the user's may rewrite, so its plan counts only as the ledger holds it."""
    return run.plan is not None and digest(render_plan(run)) in {
        e.datum("plan_sha256") for e in facts.events if e.type == EventType.plan_proposed and e.run == run.run_id}


def planned_files(facts: Facts) -> dict[str, Planned] | None:
    """Path -> what the plan says of it: the run's approved plan, else the Files section of implementation-plan.md
    (its stories from a table's Stories column, as the plan's template writes it). None when the bolt has no plan."""
    plan = run_plan(facts)
    if plan is not None:
        return {f.path.lstrip("./"): Planned(f.reason, tuple(f.stories)) for f in plan.files}
    text = plan_text(facts)
    if text is None:
        return None
    planned: dict[str, Planned] = {}
    in_files, stories_at = False, None
    for line in text.splitlines():
        if line.startswith("#"):
            in_files, stories_at = "file" in line.lower(), None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if in_files and "stories" in (lowered := [cell.lower() for cell in cells]):  # a table's header row
            stories_at = lowered.index("stories")
            continue
        match = _PATH.search(line) if in_files and line.lstrip().startswith(("-", "*", "|")) else None
        if match:
            rest = line[match.end():].strip(" |:-—")
            named = cells[stories_at] if stories_at is not None and stories_at < len(cells) else ALL_STORIES
            stories = () if named == ALL_STORIES else tuple(n.strip() for n in named.split(",") if n.strip())
            planned[match.group(1).lstrip("./")] = Planned(rest.split("|")[-1].strip() or rest, stories)
    return planned


_ESTIMATE = re.compile(r"estimated risk:\s*(\S+?)\.?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class PlanRisks:
    """The Risks section of a plan: the risk it estimates (`Estimated risk: high`) and the risks it names."""

    estimate: Risk | None
    named: list[str]


def plan_risks(facts: Facts) -> PlanRisks:
    """The run's approved plan's risks, else those of the Risks section of implementation-plan.md (a person's
    plan: `aidlc new plan BOLT` writes its template). Its bullets are the risks, `(none named)` none; an
    `Estimated risk:` that is no risk level is noted."""
    plan = run_plan(facts)
    if plan is not None:
        return PlanRisks(plan.risk_level, list(plan.risks))
    text = plan_text(facts)
    estimate, risks, inside = None, [], False
    for line in (text or "").splitlines():
        if line.startswith("#"):
            inside = "risk" in line.lower()
        elif inside and (said := _ESTIMATE.match(line.strip())):
            level = said.group(1).strip("*_`").lower()
            if level in {r.value for r in Risk}:
                estimate = Risk(level)
            elif level not in ("not", "none"):
                note = (f"{PLAN_FILE}: 'Estimated risk: {one_line(said.group(1))}' is no risk level (low, "
                        "medium, high or critical): the plan's estimate is not counted")
                if note not in facts.notes:  # the section is read for the risk and for the risks
                    facts.notes.append(note)
        elif inside and line.lstrip().startswith(("- ", "* ")) and line.strip()[2:].strip() != NO_RISKS:
            risks.append(line.strip()[2:].strip())
    return PlanRisks(estimate, risks)


def bolt_risk(facts: Facts) -> Risk | None:
    """The highest of the bolt's `risk`, the run plan's estimate and a high or critical risk its plan was approved
    under. Lowering a risk needs the approvals the higher one required: one person may lower medium to low (one
    person approves a medium bolt), but what high or critical required (two people) stays."""
    known = [facts.bolt.meta.risk] if facts.bolt.meta and facts.bolt.meta.risk else []
    known += [risk for risk in facts.approved_risks if risk in (Risk.high, Risk.critical)]
    known += [r.plan.risk_level for r in facts.runs if r.plan is not None and r.plan.risk_level is not None
              and proposed(facts, r)]
    # A person's plan, or a run's whose state.json no longer holds the plan it proposed: implementation-plan.md's.
    if run_plan(facts) is None and (estimate := plan_risks(facts).estimate) is not None:
        known.append(estimate)
    return max(known, key=RISK_ORDER.index) if known else None
