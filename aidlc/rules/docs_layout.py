"""The rules of the aidlc-docs layout that the work tree proves or suggests (AWS aidlc-workflows,
`aidlc-rules/aws-aidlc-rules/core-workflow.md` and its rule details): what `aidlc validate` checks on a project in
that layout. Errors where a file proves the rule broken; warnings where only a pattern suggests it; a note where
aidlc cannot tell (a stage it does not know), never a guess.

An approval is an audit entry as aidlc/rules/docs_approvals.py reads one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from aidlc.aidlc_docs.model import AuditLog, DocsProject, Mark, PlanFile, StageLine
from aidlc.aidlc_docs.plans import plan_of_unit
from aidlc.aidlc_docs.stages import BY_SLUG, stages_named
from aidlc.model.types import Severity
from aidlc.names import arg
from aidlc.plural import plural
from aidlc.rules.catalogue import Hit, Rule, docs_rule
from aidlc.rules.docs_approval_order import asked_for_out_of_order, first_approvals, later_approved_before
from aidlc.rules.docs_approvals import Units, approvals, logged_approval, plan_approvals, refusals, whole_unit_approvals
from aidlc.rules.docs_standing import Claim, logs_unreadable, ticked, unnamed_stages
from aidlc.rules.docs_words import words_of

DocsCheck = Callable[[DocsProject], Iterator[Hit]]
CHECKS: list[tuple[Rule, DocsCheck]] = []

E, W, I = Severity.error, Severity.warning, Severity.info  # noqa: E741 - the severities, as in the catalogue

# What counts as application code inside aidlc-docs/: source files by extension (and build files by name).
# Markdown, text, images, diagrams (.d2, .mmd, .puml, .drawio), documents (.docx, .pdf), data (.json, .yaml,
# .csv) and generated reports (.html) are documentation, not code.
CODE_SUFFIXES = frozenset({
    ".py", ".pyi", ".ipynb", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte", ".java", ".kt",
    ".kts", ".scala", ".groovy", ".go", ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".fs", ".swift", ".m",
    ".mm", ".rb", ".php", ".pl", ".lua", ".dart", ".ex", ".exs", ".erl", ".hs", ".clj", ".r", ".sql", ".sh",
    ".bash", ".zsh", ".fish", ".ps1", ".bat", ".cmd", ".tf", ".hcl",
})
CODE_NAMES = frozenset({"dockerfile", "makefile", "jenkinsfile", "package.json", "pyproject.toml", "go.mod",
                        "cargo.toml", "pom.xml", "build.gradle"})


def check(entry: Rule) -> Callable[[DocsCheck], DocsCheck]:
    """Register the finder of an aidlc-docs rule."""

    def register(finder: DocsCheck) -> DocsCheck:
        CHECKS.append((entry, finder))
        return finder

    return register


# How to resolve a conflict, in an audit log and in another file (a design document's two sides are two versions of
# one text, not two sets of entries to keep: suhyup-bank).
LOG_CONFLICT_FIX = ("resolve the merge: keep every entry of both sides (the log is append-only: both sides' entries "
                    "stay, in time order), delete the marker lines, and commit")
FILE_CONFLICT_FIX = ("resolve the merge: choose or combine what the two sides of each conflict say, delete the marker "
                     "lines, and commit")
CONFLICT = docs_rule(
    "AIDLC-DOCS-001", E, "a file of aidlc-docs/ holds git merge-conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`)",
    f"in an audit log: {LOG_CONFLICT_FIX}; in another file: {FILE_CONFLICT_FIX}")
CODE = docs_rule(
    "AIDLC-DOCS-002", E, "application code inside aidlc-docs/ (a source file: .py, .ts, .js, .java, .go, .rs, .sql, "
    ".sh, .tf, ...; the rules: \"Application code: Workspace root (NEVER in aidlc-docs/)\")",
    "move the file to the workspace root (where the application's code lives) and describe it in a Markdown "
    "summary under aidlc-docs/construction/<unit>/code/")
NO_APPROVAL = docs_rule(
    "AIDLC-DOCS-003", E, "a stage is ticked in aidlc-state.md and audit.md holds no approval of it: no entry naming "
    "the stage (and its unit) with the person's words in User Input or User Response",
    "untick the stage until a person approves it, then log their answer verbatim in audit.md under a heading that "
    "names the stage: `**User Input**: \"<their exact words>\"`")
AWAITING = docs_rule(
    "AIDLC-DOCS-004", E, "a stage is ticked in aidlc-state.md while the same line says it awaits approval",
    "untick the line (`- [ ]`) until the person approves; then tick it and log the approval in audit.md")
STATUS_AWAITING = docs_rule(
    "AIDLC-DOCS-018", W, "aidlc-state.md's Current Status says the current stage awaits approval while that stage's "
    "line is ticked (the rules: log the approval, then mark the stage complete)",
    "if the person has not approved it, untick the stage until they do; if they have, log their answer in audit.md "
    "and update Current Status")
PLAN_OPEN = docs_rule(
    "AIDLC-DOCS-005", E, "a stage is ticked in aidlc-state.md while its plan file still has open boxes (the rules: "
    "all steps in the plan marked [x] before the stage completes)",
    "tick each step of the plan that is done (the rules tick each as it finishes), finish the others, or untick the "
    "stage in aidlc-state.md")
BUILD_BEFORE_CODE = docs_rule(
    "AIDLC-DOCS-006", E, "Build and Test is ticked while a unit's code-generation plan still has open boxes (the "
    "rules: Build and Test runs after all units complete)",
    "tick the unit's code-generation steps that are done, finish the others, or untick Build and Test")
ORDER_BROKEN = docs_rule(
    "AIDLC-DOCS-007", W, "a stage was approved after a stage the documented order puts after it (inception: "
    "reverse engineering, requirements, user stories, workflow planning, application design, units; per unit: "
    "functional design, NFR requirements, NFR design, infrastructure, code generation), and no words of the person "
    "logged before its approval under a later stage's heading asked for it",
    "approve stages in the documented order; when the order was changed on purpose, log the person's decision to "
    "change it in audit.md: their words naming the stage, under the heading of the stage it is done after")
UNKNOWN_STAGE = docs_rule(
    "AIDLC-DOCS-012", I, "a checkbox line of aidlc-state.md names no stage aidlc knows, or several: its approvals "
    "and plans are not checked",
    "name the stage as the rules do, one a line (`- [x] Requirements Analysis`, `- [ ] Code Generation - unit-1`), "
    "or leave the line if it is not a stage")
UNREADABLE = docs_rule(
    "AIDLC-DOCS-015", E, "a Markdown file of aidlc-docs/ cannot be read (not UTF-8, too large, unreadable, or an "
    "audit log or state file kept as a symbolic link, whose history git does not keep): its rules were not checked",
    "save the file as UTF-8 text (a file over the size limit, 64 MiB for an audit log and 1 MiB for another, is not "
    "read); never remove or trim an audit log to mend this (AIDLC-DOCS-024)")
UNREAD_LOG = docs_rule(
    "AIDLC-DOCS-017", I, "an audit log holds text but no entry aidlc reads (a heading or `---`, then `**Timestamp**:` "
    "and the other fields, one per line): no approval in it counts, and its times are not checked",
    "write each entry as the rules do (`## <stage>`, `**Timestamp**: <ISO 8601>`, `**User Input**: \"...\"`, ...), "
    "or append them with `aidlc audit append`; a log kept as a table is not read")
LOG_OUTSIDE = docs_rule(
    "AIDLC-DOCS-030", I, "the docs folder holds no audit log, and an audit.md with entries aidlc reads stands outside "
    "it, at the repository root or in the folder above the docs folder: no approval in it counts, so every ticked "
    "stage reads as unapproved (AIDLC-DOCS-003)",
    "move the log into the docs folder (`git mv audit.md aidlc-docs/audit.md`) and commit: the rules keep it at "
    "aidlc-docs/audit.md")
SUPERSEDED = docs_rule(
    "AIDLC-DOCS-016", I, "a plan file is replaced by a revised one beside it (`<plan>-revised.md`, `-v2`, "
    "`-updated`; a code-generation plan with no step ticked, by the TDD plan beside it): its boxes are not judged, "
    "the revised plan's are",
    "nothing to fix when the revision replaced it; to say so in the tree, delete the old plan or note at its top "
    "which file replaces it")

# The rules that read aidlc-state.md's v1 stage lines or audit.md's v1 approvals: a v2 intent record states stages as
# rows and events as typed blocks (aidlc/rules/docs_records.py checks those). The timestamps' rules:
# aidlc/rules/docs_times.py.
V1_STATE_RULES = (NO_APPROVAL, AWAITING, STATUS_AWAITING, PLAN_OPEN, BUILD_BEFORE_CODE, ORDER_BROKEN, UNKNOWN_STAGE,
                  UNREAD_LOG)


# -- the files ---------------------------------------------------------------------------------------------------
def conflict_markers(project: DocsProject) -> dict[str, list[int]]:
    """The lines of merge-conflict markers, by file: the state file, the audit logs and the other Markdown files."""
    marked: dict[str, list[int]] = dict(project.conflicts)
    if project.state is not None and project.state.conflict_lines:
        marked[project.state.path] = project.state.conflict_lines
    for log in project.audits:
        if log.conflict_lines:
            marked[log.path] = log.conflict_lines
    return marked


@check(CONFLICT)
def _conflicts(project: DocsProject) -> Iterator[Hit]:
    """One finding a file, at its first marker, naming them all: the markers of one region are one conflict
    (jykim9-pixel/aidlc-workshop-nexon's `<<<<<<< HEAD` and `>>>>>>> e7ea12c`, its `=======` deleted), and a file's
    regions are resolved in one merge."""
    logs = {log.path for log in project.audits}
    for path, lines in sorted(conflict_markers(project).items()):
        fix = LOG_CONFLICT_FIX if path in logs else FILE_CONFLICT_FIX
        what = f"merge-conflict markers at lines {some_lines(lines)}" if len(lines) > 1 else \
            f"a merge-conflict marker at line {lines[0]}"
        yield Hit(path, lines[0], f"{what}: the merge was committed unresolved", fix)


@check(CODE)
def _code(project: DocsProject) -> Iterator[Hit]:
    for path in project.files:
        name = PurePosixPath(path).name.lower()
        if PurePosixPath(name).suffix in CODE_SUFFIXES or name in CODE_NAMES:
            yield Hit(path, None, f"{name} is application code inside {project.rel}/, which holds documentation "
                      "only")


def unread_logs(project: DocsProject) -> list[AuditLog]:
    """The audit logs holding text and no entry aidlc reads (AIDLC-DOCS-017): more than a title and a line about
    the log."""
    return [log for log in project.audits if not log.entries and log.text_lines > 3]


@check(UNREAD_LOG)
def _unread_logs(project: DocsProject) -> Iterator[Hit]:
    for log in unread_logs(project):
        yield Hit(log.path, 1, f"{log.path} holds {log.text_lines} lines of text and no entry aidlc reads")


@check(LOG_OUTSIDE)
def _log_outside(project: DocsProject) -> Iterator[Hit]:
    """Once, not in each AIDLC-DOCS-003 it explains (tyfoo1603/aidlc-workflows: ten of them)."""
    if project.record is not None:  # a v2 record's log is its shards
        return
    for log in project.logs_outside:
        yield Hit(log.path, 1, f"{log.path} holds {plural(log.entries, 'entry')} aidlc reads, outside {project.rel}/, "
                  "which holds no audit log: no approval in it counts", f"git mv {arg(log.path)} "
                  f"{arg(f'{project.rel}/audit.md')}    # then commit: the rules keep the log in {project.rel}/")


@check(UNREADABLE)
def _unreadable(project: DocsProject) -> Iterator[Hit]:
    for item in project.unreadable:
        yield Hit(item.path, item.line, f"cannot be read: {item.message}", item.fix)


# -- aidlc-state.md against audit.md and the plans ----------------------------------------------------------------
def no_approval(project: DocsProject, units: Units, claims: list[Claim]) -> Iterator[Hit]:
    """AIDLC-DOCS-003 on the project's approval claims (`approval_claims`, read with `units`): run by
    aidlc/rules/__init__.py beside the other checks, which hands the same claims to the ticks' history rule."""
    if logs_unreadable(project):
        return  # the approval may stand in the log that cannot be read: AIDLC-DOCS-015 says its rules went unchecked
    unapproved: dict[tuple[str, str | None], list[tuple[str, StageLine]]] = {}  # (stage, unit) -> its ticked lines
    for claim in claims:
        if claim.approval is None:
            unapproved.setdefault((claim.line.stage or "", claim.unit), []).append((claim.path, claim.line))
    logs = ", ".join(log.path for log in project.audits) or f"{project.rel}/audit.md (missing)"
    whole = whole_unit_approvals(project, units)
    plans = plan_approvals(project, units) if any(slug == "code-generation" for slug, _ in unapproved) else {}
    refused = refusals(project, units) if unapproved else {}
    once = unnamed_stages(project)  # where words naming no unit are every unit's, an objection naming none is too
    for (slug, unit), lines in unapproved.items():  # one error per stage (of a unit), at its first line
        (path, line), *others = lines
        # The unit as the approvals key it (028 and status name it so), with the line's own name for it beside.
        named = line.unit if unit is None else unit if line.unit in (None, unit) else f"{unit} ({line.unit})"
        whose = f" of unit {named}" if named and BY_SLUG[slug].per_unit else ""
        also = f" ({_too([other.line for _, other in others])})" if others else ""
        entry, log = whole.get(unit or "", (None, ""))
        plan, plan_log = plans.get(unit, plans.get(None, (None, ""))) if slug == "code-generation" else (None, "")
        objection, objection_log = refused.get((slug, unit), refused.get((slug, None), (None, "")) if unit is None
                                               or slug in once else (None, ""))
        yield Hit(path, line.line, f"{BY_SLUG[slug].name}{whose} is ticked{also}, and {logs} holds no approval of it "
                  "by a person" + (f"; {log}:{entry.line} logs the person's approval of unit {unit} as a whole, "
                                   "naming no stage: the rules ask for each stage's own" if entry else "") +
                  (f"; {plan_log}:{plan.line} logs the approval of its plan (Part 1) alone: the rules ask a second "
                   "one, of the code generated" if plan else "") +
                  (f"; {objection_log}:{objection.line} logs the person's words on it refusing or asking for changes, "
                   f"with no approval after them: {cut(' '.join(words_of(objection).split()))}" if objection else ""))


def _too(lines: list[int]) -> str:
    """`line 48 ticks it too`, `lines 48, 64 tick it too`: the other lines of one finding's cause."""
    numbers = ", ".join(map(str, lines))
    return f"line {numbers} ticks it too" if len(lines) == 1 else f"lines {numbers} tick it too"


@check(AWAITING)
def _awaiting(project: DocsProject) -> Iterator[Hit]:
    if project.state is None:
        return
    lines = [line for line in {line.line: line for line in project.state.stages}.values()  # a line listing units, once
             if line.mark == Mark.done and line.awaiting]
    units = Units(project) if lines else None
    given = approvals(project, units) if units else {}
    for line in lines:
        logged = logged_approval(project, given, units, line) if units and line.stage else None
        yield _awaits(project.state.path, line.line, f"ticked, and the line says it awaits approval: "
                      f"\"{cut(line.text)}\"", logged, "the line")


@check(STATUS_AWAITING)
def _status_awaiting(project: DocsProject) -> Iterator[Hit]:
    current = project.state.current if project.state is not None else None
    if project.state is None or current is None or current.stage is None or current.awaiting is None:
        return
    lines = [line for line in project.state.stages if line.stage == current.stage
             and (current.unit is None or project.unit_numbers.get(line.unit or "", line.unit) == current.unit)]
    if not lines or any(line.mark != Mark.done for line in lines):
        return
    said = (f"Current Status says the current stage, `{cut(current.text)}` (line {current.line}), awaits approval, "
            f"and its line {lines[0].line} is ticked")
    units = Units(project)
    yield _awaits(project.state.path, current.awaiting, said,
                  logged_approval(project, approvals(project, units), units, lines[0]), "Current Status")


def _awaits(path: str, at: int, said: str, logged: str | None, words: str) -> Hit:
    """A ticked stage the state file's `words` say awaits approval: where the log holds the approval (`logged`), the
    words were never brought up to date, perhaps, and not the tick."""
    if logged is None:
        return Hit(path, at, said)
    return Hit(path, at, f"{said}; {logged} logs a person's approval of the stage: if it is this work's, {words} "
               "is out of date", f"if the logged approval is this work's, edit {words} to say it was approved and "
               "keep the tick; else untick the stage until the person approves")


def _plans_of(project: DocsProject, stage: str, unit: str | None) -> list[PlanFile]:
    return [plan for plan in project.plans if plan.stage == stage and plan.superseded_by is None
            and (unit is None or not BY_SLUG[stage].per_unit or plan_of_unit(project, plan, unit))]


def _plans_named(project: DocsProject, line: StageLine) -> list[PlanFile]:
    """The plans of the line's stage that the line names by file name (`계획서 construction/plans/u1-corpus-
    functional-design-plan.md`): a re-entry's line saying which of a unit's plans is its own."""
    # The plain `in` first: most lines name no plan, and a pattern per plan outgrows re's cache of compiled ones.
    return [plan for plan in project.plans if plan.stage == line.stage and plan.superseded_by is None
            and (name := PurePosixPath(plan.path).name) in line.text
            and re.search(rf"(?<![\w-]){re.escape(name)}", line.text)]


@check(PLAN_OPEN)
def _plan_open(project: DocsProject) -> Iterator[Hit]:
    claims: dict[str, list[tuple[bool, str, StageLine]]] = {}  # an open plan -> (by name, path, line) claiming it
    # execution-plan.md's boxes choose stages; they are not steps. The plans are the current feature's, not an
    # archived one's.
    lines = [(path, line) for path, line in ticked(project)
             if line.stage != "workflow-planning" and not _earlier_feature(project, line)]
    for path, line in lines:
        named = _plans_named(project, line)
        for plan in named or _unclaimed(project, line, [other for _, other in lines if other.stage == line.stage]):
            if plan.open:
                claims.setdefault(plan.path, []).append((bool(named), path, line))
    yield from _once(project, claims, "ticked while ")


def _unclaimed(project: DocsProject, line: StageLine, ticked_lines: list[StageLine]) -> list[PlanFile]:
    """The plans of the line's stage it claims: its unit's; of a per-unit stage, for a line naming no unit, those of
    the units no ticked line of the stage names (kohwg/gowoopi's `### Shared Package (공통)` line claims the shared
    package's plan, not the database unit's, which the `### Unit 1: Database` line claims); a line about every unit
    (`all units`) claims every unit's."""
    plans = _plans_of(project, line.stage or "", line.unit)
    if line.unit is not None or line.every_unit or not BY_SLUG[line.stage or ""].per_unit:
        return plans
    named = {other.unit for other in ticked_lines if other.unit is not None}
    return [plan for plan in plans if not any(plan_of_unit(project, plan, unit) for unit in named)]


def _earlier_feature(project: DocsProject, line: StageLine) -> bool:
    return project.state is not None and project.state.earlier_feature(line)


def _once(project: DocsProject, claims: dict[str, list[tuple[bool, str, StageLine]]], lead: str) -> Iterator[Hit]:
    """One finding per open plan, at the first line that claims it done (one naming the plan, else the first in the
    file), naming the others (an increment's line `User Stories — Complete (v9)` claims the first increment's plan
    again): one cause, one error."""
    plans = {plan.path: plan for plan in project.plans}
    for rel, found in claims.items():
        (_, path, first), *rest = sorted(found, key=lambda claim: (not claim[0], claim[2].line))
        others = sorted((line for _, _, line in rest), key=lambda line: line.line)
        also = f"; {_too([line.line for line in others])}" if others else ""
        yield Hit(path, first.line, f"{lead}{_open(plans[rel])}{also}")


@check(SUPERSEDED)
def _superseded(project: DocsProject) -> Iterator[Hit]:
    for plan in project.plans:
        if plan.superseded_by is not None:
            yield Hit(plan.path, None, f"replaced by {plan.superseded_by}: its {len(plan.open)} open of "
                      f"{len(plan.open) + plan.done} boxes are not judged, the revised plan's are")


@check(BUILD_BEFORE_CODE)
def _build_before_code(project: DocsProject) -> Iterator[Hit]:
    claims: dict[str, list[tuple[bool, str, StageLine]]] = {}
    for path, line in ticked(project):
        if line.stage != "build-and-test" or _earlier_feature(project, line):
            continue
        for plan in _plans_of(project, "code-generation", line.unit):
            if plan.open:
                claims.setdefault(plan.path, []).append((False, path, line))
    yield from _once(project, claims, "Build and Test is ticked while ")


@check(ORDER_BROKEN)
def _order(project: DocsProject) -> Iterator[Hit]:
    first = first_approvals(project)
    for (scope, stage), (entry, path) in sorted(first.items(), key=lambda item: item[1][0].line):
        found = later_approved_before(first, scope, stage, entry, path)
        if found is not None and not asked_for_out_of_order(project, scope, stage, entry):
            other, later = found
            whose = f" of unit {scope[1]}" if scope[1] != "inception" else ""  # DocSuri's log holds twelve units
            yield Hit(path, entry.line, f"{BY_SLUG[stage].name}{whose} was first approved at "
                      f"{entry.timestamp}, after {BY_SLUG[later].name} (line {other.line}, "
                      f"{other.timestamp}): the documented order puts it first")


@check(UNKNOWN_STAGE)
def _unknown(project: DocsProject) -> Iterator[Hit]:
    if project.state is None:
        return
    for line in project.state.stages:
        if line.stage is None and line.parent is None:  # a sub-item of a stage line is a step, not a stage
            several = stages_named(line.text)
            what = (f"names {len(several)} stages ({', '.join(BY_SLUG[slug].name for slug in several)}), and aidlc "
                    f"reads one a line" if len(several) > 1 else "names no stage aidlc knows")
            yield Hit(project.state.path, line.line, f"{what}: \"{cut(line.text)}\"")


def _open(plan: PlanFile) -> str:
    under = f", under `{cut(plan.open_under, 60)}`" if plan.open_under else ""  # steps, or a checklist after them
    return (f"{plan.path} has {len(plan.open)} of {len(plan.open) + plan.done} boxes open (first at line "
            f"{plan.open[0]}{under})")


def some_lines(numbers: list[int], limit: int = 100) -> str:
    """`3, 11, 19 and 63 more`: the line numbers that fit in about `limit` characters, each whole, and how many
    more."""
    shown: list[str] = []
    length = 0
    for number in map(str, numbers):
        if shown and length + len(number) + 2 > limit:
            break
        shown.append(number)
        length += len(number) + 2
    rest = len(numbers) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
