"""What each tool of `aidlc mcp` does, on the Python API the CLI commands use, returning the documents their
`--format json` prints (with `"version": 1`). Nothing here knows MCP: the server (aidlc/mcp/server.py) turns the
documents into tool results; an AidlcError raised here becomes the tool's error, with its next steps.

Every record a tool writes is the agent's (`actor`): an `Actor` of kind agent that the server names from its client.
No function here records a gate decision, and `audit_append` refuses an entry that would read as a person's
approval (aidlc.rules.docs_approvals.approves): that is for `aidlc gate approve`, run by the person.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aidlc.bank.config import load_config
from aidlc.errors import UsageError
from aidlc.model.config import Config
from aidlc.model.events import Actor, Subject
from aidlc.workspace import Workspace, layout_of, open_bank, open_docs, open_records

if TYPE_CHECKING:
    from aidlc.aidlc_docs.model import DocsProject
    from aidlc.bank.items import MemoryBank
    from aidlc.events.audit import Texts

VERSION = 1
GATE_COMMAND = "aidlc gate approve SUBJECT --stage STAGE --reason '...'"


def document(**fields: Any) -> dict[str, Any]:
    return {"version": VERSION, **fields}


def gate_refusal(what: str) -> UsageError:
    """The refusal of anything that would record a gate decision: only a person decides, at the command line."""
    return UsageError(f"{what}: a gate decision is a person's, and aidlc records it only from the person's own "
                      "command; nothing was recorded", [f"{GATE_COMMAND}    # run by the person deciding",
                                                        "aidlc status --pending    # what waits for a decision"])


# -- reading ---------------------------------------------------------------------------------------------------------
def status(root: Path) -> dict[str, Any]:
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.status.project import project_status

    return project_status(root).model_dump(mode="json")


def next_actions(root: Path) -> dict[str, Any]:
    """The next safe actions and what waits for a person, from the status report."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.status.project import project_status

    report = project_status(root)
    actions = getattr(report, "next_actions", None)
    if actions is None:  # v2 intent records: each record has its own
        actions = [action for record in getattr(report, "records", []) for action in record.next_actions]
    return document(root=report.root, next_actions=[a.model_dump(mode="json") for a in actions],
                    waiting=[a.model_dump(mode="json") for a in report.waiting])


def validate(root: Path, paths: list[str]) -> dict[str, Any]:
    """`aidlc validate --format json`; with `paths`, only the findings about those files or folders (each inside the
    repository, refused as the CLI refuses a path leading out of it)."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.rules import validate as run_rules

    report = run_rules(open_records(root))
    if not paths:
        return report.model_dump(mode="json")
    wanted = [inside(root, path) for path in paths]
    findings = [f for f in report.findings if any(f.path == rel or f.path.startswith(f"{rel}/") for rel in wanted)]
    summary = report.summary.model_copy(update={
        "files": len({f.path for f in findings}), "errors": sum(f.severity == "error" for f in findings),
        "warnings": sum(f.severity == "warning" for f in findings),
        "infos": sum(f.severity == "info" for f in findings)})
    return report.model_copy(update={"findings": findings, "summary": summary}).model_dump(mode="json")


def rules(code: str | None) -> dict[str, Any]:
    """`aidlc rules [CODE] --format json`: the catalogue, or one rule with its fix."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.rules import every_rule

    found = list(every_rule().values())
    if code:
        found = [rule for rule in found if rule.code == code.strip().upper()]
        if not found:
            raise UsageError(f"no rule {code}", ["the rules tool without a code    # the whole catalogue"])
    return document(rules=[rule.described() for rule in found])


def show(root: Path, kind: str, ref: str) -> dict[str, Any]:
    """One item with its links and state. Memory bank: an intent or a bolt (the part of the status report about it,
    as `aidlc status --intent/--bolt --format json`), a requirement, a unit or a story (its file and links). The
    aidlc-docs layout: a stage (its lines in aidlc-state.md, every unit's) or a unit (its stages)."""
    config = load_config(root)
    if layout_of(root, config) == "aidlc-docs":
        return _show_docs(root, config, kind, ref)
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.bank.index import BankIndex, find_bolt, find_intent
    from aidlc.status.build import build_status
    from aidlc.status.focus import on_bolt, on_intent

    bank = open_bank(root, config=config)
    if kind in ("intent", "bolt"):
        report = build_status(bank)
        narrowed = on_intent(report, find_intent(bank, ref).id) if kind == "intent" else on_bolt(report,
                                                                                               find_bolt(bank, ref).id)
        return narrowed.model_dump(mode="json")
    index = BankIndex(bank)
    if kind == "unit":
        unit = index.unit(ref)
        if unit is None:
            raise UsageError(f"no unit {ref!r}", ["the status tool    # the intents and their units"])
        return document(kind="unit", id=unit.id, path=unit.rel, intent=unit.intent.id if unit.intent else None,
                        brief=unit.meta.model_dump(mode="json") if unit.meta else None,
                        requirements=sorted(unit.mapped_requirements), stories=[s.id for s in unit.stories])
    if kind == "story":
        story = index.story(ref)
        if story is None:
            raise UsageError(f"no story {ref!r}", ["the status tool    # the units and their stories"])
        return document(kind="story", id=story.id, path=story.rel, unit=story.unit.id if story.unit else None,
                        story=story.meta.model_dump(mode="json") if story.meta else None,
                        requirements=story.requirement_links, criteria=[c.text for c in story.criteria])
    if kind == "requirement":
        return _show_requirement(bank, ref)
    raise UsageError(f"show: no kind {kind!r} in a memory bank", ["kind: intent, requirement, unit, story or bolt"])


def _show_requirement(bank: MemoryBank, ref: str) -> dict[str, Any]:
    """A requirement (`FR-1`, or `INTENT/FR-1` where intents share ids): its block, the units mapping it and the
    stories linking it."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.bank.index import find_intent

    intent_ref, _, wanted = ref.rpartition("/")
    intent_id = find_intent(bank, intent_ref).id if intent_ref else None
    found = [r for intent in bank.intents for r in intent.requirements
             if r.id == wanted and intent_id in (None, intent.id)]
    if len(found) != 1:
        named = ", ".join(r.qualified_id for intent in bank.intents for r in intent.requirements if r.id == wanted)
        raise UsageError(f"no requirement {ref!r}" if not found else f"{ref!r} names {named}: say which intent's",
                         ["show requirement INTENT/FR-n    # e.g. 001/FR-1"])
    requirement = found[0]
    units = requirement.intent.units
    return document(kind="requirement", id=requirement.qualified_id, title=requirement.block.title,
                    path=requirement.intent.requirements_doc.rel if requirement.intent.requirements_doc else None,
                    line=requirement.block.line, priority=requirement.block.priority,
                    criteria=[c.text for c in requirement.block.criteria],
                    units=[u.id for u in units if requirement.id in u.mapped_requirements],
                    stories=[s.id for u in units for s in u.stories if requirement.id in s.requirement_links])


def _show_docs(root: Path, config: Config, kind: str, ref: str) -> dict[str, Any]:
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.model.status import DocsStatusReport
    from aidlc.status.project import docs_status

    report = docs_status(root, config)
    if not isinstance(report, DocsStatusReport):
        raise UsageError("show: aidlc/ holds aidlc-workflows v2 intent records; the status tool shows them",
                         ["the status tool"])
    if kind == "stage":
        lines = [line for phase in report.phases for line in phase.stages if line.stage == ref] + \
                [line.model_copy(update={"unit": unit.unit}) for unit in report.units for line in unit.stages
                 if line.stage == ref]
        if not lines:
            raise UsageError(f"no stage {ref!r} in {report.state or config.aidlc_docs}",
                             ["the status tool    # every stage"])
        return document(kind="stage", id=ref, lines=[line.model_dump(mode="json") for line in lines],
                        waiting=[a.model_dump(mode="json") for a in report.waiting if ref in (a.command or "")])
    if kind == "unit":
        unit = next((u for u in report.units if u.unit == ref), None) or \
            next((u for u in report.units if ref in u.folders), None)  # by its folder, as gates name it
        if unit is None:
            named = ", ".join(u.unit + "".join(f" ({folder})" for folder in u.folders) for u in report.units)
            raise UsageError(f"no unit {ref!r}; there are: {named or 'none'}", ["the status tool    # every unit"])
        return document(kind="unit", **unit.model_dump(mode="json"))
    raise UsageError(f"show: no kind {kind!r} on the aidlc-docs layout", ["kind: stage or unit"])


def bolt_status(root: Path, bolt: str | None) -> dict[str, Any]:
    """`aidlc bolt status [BOLT] --format json`."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.bolt.store import run_summary, runs_of

    return document(runs=[run_summary(run) for run in runs_of(root, bolt)])


def bolt_trace(root: Path, ref: str) -> dict[str, Any]:
    """`aidlc bolt trace BOLT|RUN --format json`."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.bolt.store import find_run, run_summary

    run = find_run(Workspace.open(root), ref)
    return document(run=run_summary(run.load()), spans=[span.model_dump(exclude_none=True) for span in run.spans()])


def walkthrough(root: Path, ref: str) -> dict[str, Any]:
    """The evidence report `aidlc walkthrough REF --no-run --format json` prints, written nowhere; no check runs
    and no model is asked (the `check` tool runs the checks)."""
    config = load_config(root)
    if layout_of(root, config) == "aidlc-docs":
        # Each tool loads its part of aidlc when first called: the server starts without all of them.
        from aidlc.report.unit_evidence import write_unit_walkthrough

        return write_unit_walkthrough(open_docs(root, config), config, ref, run=False,
                                      write=False).report.model_dump(mode="json")
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.bolt.walkthrough import write_walkthrough

    bank = open_bank(root, config=config)
    return write_walkthrough(Path(bank.repo_root), bank, ref, run=False, write=False).report.model_dump(mode="json")


def log(root: Path, subject: str | None, event_type: str | None, limit: int) -> dict[str, Any]:
    """`aidlc log show --format json` (the `limit` latest of the matching events)."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.events.canonical import plain
    from aidlc.events.ledger import Ledger, no_ledger
    from aidlc.workspace import records_folder

    ledger = Ledger.of_bank(root.resolve(), records_folder(root, load_config(root)))
    if not ledger.exists():
        raise no_ledger(ledger)
    events = [e for e in ledger.events()
              if (subject is None or (e.subject is not None and e.subject.id == subject))
              and (event_type is None or e.type == event_type)]
    return document(events=[plain(e) for e in events[-limit:]])


# -- writing, as the agent ------------------------------------------------------------------------------------------
def new(root: Path, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """`aidlc new KIND --format json`: the same creator, the same checks of every link."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.model.types import BoltType, Priority, Risk
    from aidlc.scaffold.new import Creator

    creator = Creator(root)
    priority = Priority(fields.get("priority") or "must")
    criteria = list(fields.get("criteria") or [])
    if kind == "intent":
        created = creator.new_intent(fields["title"], fields.get("statement"))
    elif kind == "requirement":
        created = creator.new_requirement(fields["title"], fields.get("intent"), fields.get("requirement_kind") or "FR",
                                          priority, criteria, fields.get("description"))
    elif kind == "unit":
        created = creator.new_unit(fields["title"], fields.get("intent"), list(fields.get("requirements") or []),
                                   fields.get("purpose"))
    elif kind == "story":
        created = creator.new_story(fields["title"], fields.get("intent"), fields["unit"],
                                    list(fields.get("requirements") or []), priority, criteria, fields.get("as_a"),
                                    fields.get("so_that"))
    else:
        created = creator.new_bolt(fields.get("intent"), fields["unit"], list(fields["stories"]),
                                   BoltType(fields.get("bolt_type") or BoltType.simple.value),
                                   Risk(fields.get("risk") or "low"), list(fields.get("requires") or []),
                                   list(fields.get("scope") or []), fields.get("objective"))
    return document(kind=kind, id=created.id, created=created.created, updated=created.updated,
                    next_steps=created.next_steps)


def audit_append(root: Path, stage: str, user_input: str, ai_response: str, context: str | None,
                 actor: Actor) -> dict[str, Any]:
    """`aidlc audit append --format json`, by `actor`. An entry that would read as a person's approval of a stage
    is refused: the approval is the person's `aidlc gate approve`."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.events.audit import Texts, append_entry

    config = load_config(root)
    if layout_of(root, config) != "aidlc-docs":
        raise UsageError(f"{root} keeps its records in {config.memory_bank}/, not in an aidlc-docs folder: "
                         "audit_append writes aidlc-docs/audit.md", ["set `layout: aidlc-docs` (and `aidlc_docs:`) "
                                                                     "in aidlc.yaml if the project uses it"])
    texts = Texts(stage=stage, user_input=user_input, ai_response=ai_response, context=context)
    approved = _approval_in(open_docs(root, config), texts)
    if approved:
        raise gate_refusal(f"this audit entry reads as the approval of {approved}")
    appended = append_entry(root, config.aidlc_docs, texts, actor)
    return document(**appended.record.model_dump(mode="json", exclude_none=True), stage=appended.stage,
                    seq=appended.seq, settled=appended.settled)


def _approval_in(project: DocsProject, texts: Texts) -> str | None:
    """The stage the entry of `texts`, appended to the project's audit.md, would approve in aidlc's reading of the
    log (`approval_read`), if any."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.aidlc_docs.audit import audit_entries
    from aidlc.aidlc_docs.reader import AUDIT_FILE
    from aidlc.events.audit import entry_text, utc_now
    from aidlc.rules.docs_approvals import Units, approval_read

    [entry] = audit_entries(entry_text(texts, utc_now()).split("\n"))
    log = next((log for log in project.audits if log.path == f"{project.rel}/{AUDIT_FILE}"), None)
    return approval_read(Units(project), log.entries if log else [], entry)


def check(root: Path, ref: str, actor: Actor) -> dict[str, Any]:
    """Run the verify commands of aidlc.yaml at HEAD (the runner of `aidlc bolt` and `aidlc walkthrough`: their
    timeouts, their environment) and record each result in the ledger (under its lock) about the bolt (memory bank)
    or the unit (aidlc-docs), by `actor`."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc import vcs
    from aidlc.events.canonical import plain
    from aidlc.events.ledger import Ledger
    from aidlc.gates.recorded_checks import CodeMatch, record_checks

    config = load_config(root)
    if layout_of(root, config) == "aidlc-docs":
        project = open_docs(root, config)
        if ref not in project.units:
            raise UsageError(f"no unit {ref!r} in {project.rel}/construction/ (the units: "
                             f"{', '.join(project.units) or 'none'})", ["the status tool    # the units"])
        repo, folder, subject = Path(project.root), project.rel, Subject(kind="unit", id=ref)
    else:
        # Each tool loads its part of aidlc when first called: the server starts without all of them.
        from aidlc.bank.index import BankIndex

        bank = open_bank(root, config=config)
        bolt = BankIndex(bank).bolt_named(ref)
        if bolt is None:
            raise UsageError(f"no bolt {ref!r} in {bank.rel_root}/bolts/", ["the status tool    # the bolts"])
        repo, folder, subject = Path(bank.repo_root), bank.rel_root, Subject(kind="bolt", id=bolt.id)
    head = vcs.head_commit(repo)
    if head is None:
        raise UsageError(f"{repo}: no commit yet: there is nothing to check", ["git commit ..."])
    recorded = record_checks(repo, config.verify, Ledger.of_bank(repo, folder), subject,
                             CodeMatch(repo, head, (folder, ".aidlc")), lambda _: None, f"the check tool on {ref}",
                             actor)
    return document(subject=subject.model_dump(), commit=head, events=[plain(e) for e in recorded.events],
                    notes=recorded.notes, passed=bool(recorded.events) and all(c.passed for c in recorded.checks))


def record_folders(root: Path) -> list[str]:
    """The folders the project's records are read from: the memory bank, or the aidlc-docs folder and aidlc/ (where
    aidlc-workflows v2 keeps intent records)."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.workspace import records_folder

    config = load_config(root)
    folder = records_folder(root, config)
    return [folder, "aidlc"] if layout_of(root, config) == "aidlc-docs" else [folder]


# -- files -----------------------------------------------------------------------------------------------------------
def inside(root: Path, path: str) -> str:
    """`path` (relative to the repository, or absolute) as a path relative to the repository root, refused when it
    leads outside it (`..`, a symbolic link out) or names something that is neither a file nor a folder."""
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(real_root, path))
    if os.path.commonpath([real_root, target]) != real_root:
        raise UsageError(f"{path}: leads outside the repository ({target}); nothing was read",
                         ["a path inside the repository, e.g. memory-bank/intents"])
    try:
        mode = os.stat(target).st_mode
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}", ["a path that exists in the repository"]) from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise UsageError(f"{path}: not a regular file or folder; nothing was read", ["a file or folder of the bank"])
    return Path(os.path.relpath(target, real_root)).as_posix()


def read_file(root: Path, path: str) -> str:
    """A file of the records (`record_folders`) or aidlc.yaml, read as the bank reader reads one: a regular file
    inside the repository (a symbolic link out of it, a FIFO or a device is refused). Other files of the repository
    (the code, a .env) are not served."""
    # Each tool loads its part of aidlc when first called: the server starts without all of them.
    from aidlc.bank.config import CONFIG_FILE
    from aidlc.bank.walk import read_inside

    rel = inside(root, path)
    folders = record_folders(root)
    if rel != CONFIG_FILE and not any(rel.startswith(f"{folder}/") for folder in folders):
        raise UsageError(f"{path}: not a file of the records ({', '.join(f'{f}/' for f in folders)}) or "
                         f"{CONFIG_FILE}; nothing was read", [f"aidlc://file/{folders[0]}/..."])
    try:
        data = read_inside(os.path.join(os.path.realpath(root), rel), root)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc})", ["a regular file of the bank"]) from None
    return data.decode("utf-8", errors="replace")
