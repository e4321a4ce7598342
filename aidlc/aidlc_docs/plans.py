"""The plan files of the aidlc-docs layout: their checkboxes, and which plan a revised one beside it replaces."""

from __future__ import annotations

import re
from collections.abc import Iterator

from aidlc.aidlc_docs.markdown import BOX, shown_lines
from aidlc.aidlc_docs.model import DocsProject, PlanFile
from aidlc.aidlc_docs.stages import BY_SLUG, plan_stage
from aidlc.aidlc_docs.units import unit_of

_REVISION = re.compile(r"revised|revision|updated|v\d+|rev\d*|\d+", re.IGNORECASE)  # a plan's successor's suffix


def read_plan(text: str, rel: str, folder_unit: str | None = None) -> PlanFile | None:
    """A plan's checkboxes (outside code fences); None for a file that has none. A per-unit stage's plan whose name
    names no unit is the unit's whose folder holds it (`folder_unit`: kohwg/gowoopi's
    `construction/unit4-admin-app/code/tdd-code-generation-plan.md`)."""
    stage, unit = plan_stage(rel.rsplit("/", 1)[-1])
    if unit is None and stage is not None and BY_SLUG[stage].per_unit:
        unit = folder_unit
    plan = PlanFile(path=rel, stage=stage, unit=unit)
    heading = None
    for number, line in shown_lines(text):
        box = BOX.match(line)
        if box is None:
            heading = line.strip() if line.startswith("#") else heading
        elif box.group("box") in "xX":
            plan.done += 1
        elif box.group("box") in " /":  # a step begun (`[/]`) is not done
            plan.open.append(number)
            plan.open_under = heading if len(plan.open) == 1 else plan.open_under
    return plan if plan.done or plan.open else None


def names_unit(project: DocsProject, name: str, unit: str) -> bool:
    """Whether a unit folder's or a plan's unit `name` is the unit the state file names `unit`: the same name, a
    name with that number (`unit1-backend` is unit 1), or a folder a heading ties to that number."""
    return unit in (name, unit_of(name), project.unit_numbers.get(name))


def plan_of_unit(project: DocsProject, plan: PlanFile, unit: str) -> bool:
    """Whether `plan` is the plan of the unit the state file names `unit` (`unit1-backend-code-generation-plan.md`
    is unit 1's)."""
    return plan.unit is not None and names_unit(project, plan.unit, unit)


def unit_plan(project: DocsProject, rel: str, stage: str) -> str | None:
    """The unit whose plan of `stage` the file is: construction/plans/<unit>-<stage>-plan.md names the unit
    folder as written, or a part of it (`unit-1-...` for unit-1-api-server) or more (`admin-web-tdd-...` for
    admin-web) when only one folder fits; a plan naming no unit is the only unit's."""
    folder, _, name = rel.rpartition("/")
    if folder != f"{project.rel}/construction/plans":
        return None
    planned, unit = plan_stage(name)
    if planned != stage:
        return None
    if unit is None:
        return project.units[0] if len(project.units) == 1 else None
    if unit in project.units:
        return unit
    fitting = [u for u in project.units if u.startswith(f"{unit}-") or unit.startswith(f"{u}-")]
    return fitting[0] if len(fitting) == 1 else None


def stage_folders(project: DocsProject, unit: str, stage: str) -> tuple[str, ...]:
    """The folders (relative to the root, with a trailing '/') that hold a unit folder's work of `stage`:
    construction/<unit>/<stage>/, and its code/ for code generation."""
    base = f"{project.rel}/construction/{unit}/"
    return (f"{base}{stage}/", f"{base}code/") if stage == "code-generation" else (f"{base}{stage}/",)


def units_with_work(project: DocsProject, stage: str) -> list[str]:
    """The unit folders with files of `stage`: in the stage's folders, or the stage's plan of the unit."""
    having = {unit for rel in project.files if (unit := unit_plan(project, rel, stage)) is not None}
    return [unit for unit in project.units
            if unit in having or any(rel.startswith(stage_folders(project, unit, stage)) for rel in project.files)]


def mark_superseded(plans: list[PlanFile]) -> None:
    """Set `superseded_by` on each plan that a revised plan beside it replaces: `X.md` by `X-revised.md`
    (`-revision`, `-updated`, `-v2`, `-rev2`, `-2`), in the same folder. The name says which one governs; a plan
    that merely repeats another's stage under another name (`unit-2-...` beside `customer-spa-...`) says nothing
    of the kind, and both are judged."""
    stems = {plan.path.removesuffix(".md"): plan for plan in plans}
    for stem, plan in stems.items():
        plan.superseded_by = next((other.path for other_stem, other in sorted(stems.items())
                                   if other_stem.startswith(f"{stem}-")
                                   and _REVISION.fullmatch(other_stem[len(stem) + 1:])), None)
        # The rules' TDD variant writes its own plan, `<unit>-tdd-code-generation-plan.md`: where the plain plan
        # beside it has no step ticked, the TDD plan replaced it (eunjilee-wm's 26 open steps beside 101 ticked;
        # thetkim9's 43 beside 106); one with ticked steps was worked, and is judged.
        tdd = stem.removesuffix(_PLAIN_CODE_PLAN) + _TDD_CODE_PLAN if stem.endswith(_PLAIN_CODE_PLAN) else None
        if plan.superseded_by is None and tdd in stems and not plan.done:
            plan.superseded_by = stems[tdd].path


_PLAIN_CODE_PLAN, _TDD_CODE_PLAN = "code-generation-plan", "tdd-code-generation-plan"


def plan_boxes(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, box character, text after the box) of each checkbox line outside code fences and HTML comments."""
    for number, line in shown_lines(text):
        match = BOX.match(line)
        if match is not None:
            yield number, match.group("box"), match.group("text")
