"""One run of `aidlc ci`: every validate rule, then (with a base) the checks against git history, then the
baseline."""

from __future__ import annotations

from pathlib import Path

from aidlc import vcs
from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.ci import baseline as baselines
from aidlc.ci.checks import PullRequest, check
from aidlc.model.ci import Baseline, CiReport, CiSummary
from aidlc.model.types import Severity
from aidlc.rules import run_rules
from aidlc.status.gates import gate_statuses

VALIDATE, AGAINST_BASE, AUTHORSHIP, SCOPE = "validate", "ledger-against-base", "approval-authorship", \
    "pull-request-scope"


def run_ci(bank: MemoryBank, base_ref: str | None, baseline: Baseline | None = None,
           baseline_rel: str | None = None, strict: bool = False) -> CiReport:
    index = BankIndex(bank)
    findings = run_rules(bank, index)
    waiting = [gate for gate in gate_statuses(bank, index) if gate.pending is not None]
    checks, base = [VALIDATE], None
    if base_ref is not None:
        pr = PullRequest.open(bank, base_ref)
        base = pr.base
        findings.extend(check(pr))
        findings.sort(key=lambda f: f.sort_key())
        checks += [AGAINST_BASE, AUTHORSHIP, SCOPE]
    marked = [baselines.with_fingerprint(f) for f in findings]
    fixed = []
    if baseline is not None:
        marked, fixed = baselines.apply(marked, baseline)
    new = [f for f in marked if f.baseline == "new"]
    count = {severity: sum(f.severity == severity for f in new) for severity in Severity}
    passed = count[Severity.error] == 0 and not (strict and count[Severity.warning])
    root = Path(bank.repo_root)
    return CiReport(root=str(root), prefix=vcs.project_prefix(root), base=base, checks=checks, baseline=baseline_rel,
                    passed=passed, findings=marked, fixed=fixed, waiting=waiting,
                    summary=CiSummary(files=bank.files_read, errors=count[Severity.error],
                                      warnings=count[Severity.warning], infos=count[Severity.info],
                                      known=len(marked) - len(new), fixed=len(fixed)))
