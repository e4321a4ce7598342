"""One run of `aidlc ci`: every validate rule, then (with a base) the checks against git history, then the
baseline."""

from __future__ import annotations

from pathlib import Path

from aidlc import vcs
from aidlc.aidlc_docs.model import DocsProject
from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.bank.rulefiles import BASELINE_FILE
from aidlc.ci import baseline as baselines
from aidlc.ci.checks import PullRequest, check
from aidlc.model.ci import Baseline, CiReport, CiSummary
from aidlc.model.types import Severity
from aidlc.rules import run_docs_rules, run_rules
from aidlc.status.gates import gate_statuses
from aidlc.workspace import open_records

VALIDATE, RULES, AGAINST_BASE, AUTHORSHIP, SCOPE = "validate", "rules-from-base", "ledger-against-base", \
    "approval-authorship", "pull-request-scope"


def open_ci(root: Path, base_ref: str | None,
            baseline: str = BASELINE_FILE) -> tuple[MemoryBank | DocsProject, PullRequest | None]:
    """The records `aidlc ci` judges (a memory bank, or without a base an aidlc-docs folder), and with a base the
    pull request: its bank is then read with the rules that judge it (the base's, unless a change of them was
    approved; `baseline` is the baseline's path)."""
    if base_ref is None:
        return open_records(root), None
    pr = PullRequest.open(root, base_ref, baseline)
    return pr.bank, pr


def run_ci(records: MemoryBank | DocsProject, pr: PullRequest | None, baseline: Baseline | None = None,
           baseline_rel: str | None = None, strict: bool = False) -> CiReport:
    if isinstance(records, DocsProject):  # this layout's gates are not in the ledger: none waits here
        findings, waiting = run_docs_rules(records), []
        root, files = Path(records.root), len(records.files)
    else:
        index = BankIndex(records)
        findings = run_rules(records, index)
        waiting = [gate for gate in gate_statuses(records, index) if gate.pending is not None]
        root, files = Path(records.repo_root), records.files_read
    checks, base = [VALIDATE], None
    if pr is not None:
        base = pr.base
        findings.extend(check(pr))
        findings.sort(key=lambda f: f.sort_key())
        checks += [RULES, AGAINST_BASE, AUTHORSHIP, SCOPE]
    marked = [baselines.with_fingerprint(f) for f in findings]
    fixed = []
    if baseline is not None:
        marked, fixed = baselines.apply(marked, baseline)
    new = [f for f in marked if f.baseline == "new"]
    count = {severity: sum(f.severity == severity for f in new) for severity in Severity}
    passed = count[Severity.error] == 0 and not (strict and count[Severity.warning])
    return CiReport(root=str(root), prefix=vcs.project_prefix(root), base=base, checks=checks, baseline=baseline_rel,
                    passed=passed, findings=marked, fixed=fixed, waiting=waiting,
                    summary=CiSummary(files=files, errors=count[Severity.error],
                                      warnings=count[Severity.warning], infos=count[Severity.info],
                                      known=len(marked) - len(new), fixed=len(fixed)))
