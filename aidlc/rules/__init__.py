"""Validation: run every rule of the catalogue over a project's records, in the layout it keeps them (a parsed
memory bank, or the aidlc-docs folder read by aidlc/aidlc_docs/reader.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.model.findings import Finding, Summary, ValidationReport
from aidlc.model.types import Severity
from aidlc.names import shorten
from aidlc.perf import gc_paused

# A memory bank's rules; the aidlc-docs layout's load where its records are validated (run_docs_rules), and every
# rule where the whole catalogue is listed (every_rule keeps its order whichever loaded first).
from aidlc.rules import (  # noqa: F401 - registers
    approvals,
    ci,
    claims,
    coverage,
    files,
    identity,
    ledger,
    references,
    state,
    structure,
)
from aidlc.rules.catalogue import CATALOGUE, Hit, Rule, every_rule

if TYPE_CHECKING:
    from aidlc.aidlc_docs.model import DocsProject, RecordsWorkspace
    from aidlc.events.view import LedgerView
    from aidlc.rules.docs_approvals import Units
    from aidlc.rules.docs_gates import JudgedBy

__all__ = ["Rule", "every_rule", "run_docs_rules", "run_records_rules", "run_rules", "validate"]


def run_rules(bank: MemoryBank, index: BankIndex | None = None) -> list[Finding]:
    index = index or BankIndex(bank)
    found: list[tuple[Rule, Hit]] = []
    with gc_paused():
        story_rules = [(spec, spec.story_check) for spec in CATALOGUE.values() if spec.story_check]
        for story in bank.stories:  # one pass: each story is visited once, by every story rule
            for spec, check in story_rules:
                for hit in check(index, story):
                    found.append((spec, hit))
        for spec in CATALOGUE.values():
            if spec.story_check is None and spec.check is not None:
                found.extend((spec, hit) for hit in spec.check(index))
        return _findings(found)


def run_docs_rules(project: DocsProject, since: str | None = None, ledgers: dict[Path, LedgerView] | None = None,
                   judged: JudgedBy | None = None, units: Units | None = None) -> list[Finding]:
    """Every aidlc-docs rule: over the project's docs folder (aidlc/rules/docs_layout.py), over its ledger
    (aidlc/rules/docs_gates.py; its view taken from `ledgers` when the run opened it already; judged by `judged`,
    else the work tree's aidlc.yaml and allowed_signers), and over the git history of its audit logs and state file
    since commit `since` (None: all of HEAD's history; aidlc/rules/docs_history_scan.py). `units` reads the audit
    entries for approvals, keeping each reading (the caller's, when it reads them too; else one made here)."""
    # Here, not at the top: a memory bank's validation never imports the aidlc-docs rules.
    import aidlc.rules.docs_stories  # noqa: F401 - its checks register in docs_layout.CHECKS
    from aidlc.rules import docs_gates, docs_layout, docs_records, docs_times
    from aidlc.rules.docs_approvals import Units
    from aidlc.rules.docs_history_scan import history_findings
    from aidlc.rules.docs_standing import approval_claims, unapproved

    # A v2 record's rows replace v1's stage lines; a record the migration made keeps v1's until v2 rewrites it.
    v2 = project.record is not None and bool(project.record.rows)
    v1_only = (*docs_layout.V1_STATE_RULES, *docs_times.V1_TIME_RULES)
    checks = [(spec, finder) for spec, finder in docs_layout.CHECKS if not (v2 and spec in v1_only)]
    # AIDLC-DOCS-003 and the ticks' history rule (028) judge the same claims, read once with one reading of the logs
    # (read twice, they were half of a validation of a 5,774-line log).
    units = units or Units(project)
    ticked = [] if v2 else approval_claims(project, units)
    found = _findings([(spec, hit) for spec, finder in checks for hit in finder(project)]
                      + [(docs_layout.NO_APPROVAL, hit) for hit in docs_layout.no_approval(project, units, ticked)]
                      + docs_records.record_findings(project))
    found += docs_gates.ledger_findings(project, ledgers, judged)
    # A stage 003 reports unapproved is left to it by the ticks' history rule (028), which would say it again.
    history = history_findings(project, since=since, ticks=not v2, units=units, reported=unapproved(project, ticked))
    return sorted([*found, *history], key=Finding.sort_key)


def run_records_rules(workspace: RecordsWorkspace, since: str | None = None,
                      judged: JudgedBy | None = None) -> list[Finding]:
    """Every aidlc-docs rule on each intent record of a v2 workspace (the history ones since commit `since`; the
    ledger's judged by `judged`), and the checks over the workspace: each space's intents registry, the migration."""
    ledgers: dict[Path, LedgerView] = {}  # the records' one ledger, read once
    found = [finding for record in workspace.records for finding in run_docs_rules(record, since, ledgers, judged)]
    found = list({(f.code, f.path, f.line, f.message): f for f in found}.values())  # the one ledger's, once
    from aidlc.aidlc_docs.reader import read_project  # here: as above
    from aidlc.rules import docs_records  # here, not at the top: as in run_docs_rules
    from aidlc.rules.docs_history import LOG_REMOVED
    from aidlc.rules.docs_history_scan import history_findings

    root = Path(workspace.root)
    if (flat := docs_records.flat_folder(workspace)) is not None:
        project = read_project(root, flat)
        if workspace.migrated is None:  # records beside it supersede nothing of it
            found += run_docs_rules(project, since, ledgers, judged)
        else:  # a migration carried its log on (migration_findings judges that), and its history still holds
            found += [f for f in history_findings(project, since=since, ticks=False) if f.code != LOG_REMOVED.code]
    for rel in docs_records.deleted_records(workspace, since):  # a record deleted whole: its logs' history holds
        found += history_findings(read_project(root, rel), since=since, ticks=False)
    found += _findings(docs_records.registry_findings(workspace))
    return sorted([*found, *docs_records.migration_findings(workspace)], key=Finding.sort_key)


def _findings(found: list[tuple[Rule, Hit]]) -> list[Finding]:
    findings = [Finding(code=spec.code, severity=Severity.warning if hit.adopted else spec.severity, path=hit.path,
                        line=hit.line, message=shorten(hit.message), fix=shorten(hit.fix or spec.fix),
                        adopted=hit.adopted) for spec, hit in found]
    # Stable: the hits of one rule at one place keep the order the rule gave them.
    findings.sort(key=Finding.sort_key)
    return findings


def validate(records: MemoryBank | DocsProject | RecordsWorkspace) -> ValidationReport:
    """The validation report of a project's records, whichever layout holds them (aidlc.workspace.open_records)."""
    if isinstance(records, MemoryBank):
        root, files, findings = records.repo_root, records.files_read, run_rules(records)
    else:
        # Here: a memory bank's validation never imports the aidlc-docs models (13 pydantic classes to build).
        from aidlc.aidlc_docs.model import RecordsWorkspace

        if isinstance(records, RecordsWorkspace):
            root, files, findings = records.root, records.files, run_records_rules(records)
        else:
            root, files, findings = records.root, len(records.files), run_docs_rules(records)
    count = {severity: 0 for severity in Severity}
    for finding in findings:
        count[finding.severity] += 1
    return ValidationReport(
        root=root,
        findings=findings,
        summary=Summary(files=files, errors=count[Severity.error], adopted=sum(bool(f.adopted) for f in findings),
                        warnings=count[Severity.warning], infos=count[Severity.info]),
    )
