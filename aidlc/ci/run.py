"""One run of `aidlc ci`: every validate rule, then (with a base) the checks against git history, then the
baseline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aidlc import vcs
from aidlc.aidlc_docs.model import DocsProject
from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.bank.rulefiles import BASELINE_FILE
from aidlc.ci import baseline as baselines
from aidlc.ci.checks import PullRequest, check
from aidlc.ci.rulebook import Rulebook, judge
from aidlc.errors import UsageError
from aidlc.model.ci import Baseline, CiReport, CiSummary
from aidlc.model.findings import Finding
from aidlc.model.status import GateStatus
from aidlc.model.types import Severity
from aidlc.rules import run_rules
from aidlc.status.gates import gate_statuses
from aidlc.workspace import open_bank, open_docs

VALIDATE, RULES, AGAINST_BASE, AUTHORSHIP, SCOPE = "validate", "rules-from-base", "ledger-against-base", \
    "approval-authorship", "pull-request-scope"
DOCS_HISTORY = "aidlc-docs-history"  # the audit log and stage ticks of the pull request's commits


def open_ci(root: Path, base_ref: str | None, baseline: str = BASELINE_FILE) -> tuple[MemoryBank, PullRequest | None]:
    """The bank `aidlc ci` judges, and with a base the pull request: its bank is then read with the rules that
    judge it (the base's, unless a change of them was approved; `baseline` is the baseline's path)."""
    if base_ref is None:
        return open_bank(root, as_found=True), None
    pr = PullRequest.open(root, base_ref, baseline)
    return pr.bank, pr


@dataclass
class DocsRun:
    """A project in the aidlc-docs layout as `aidlc ci` judges it: its docs folder as the judging rules name it
    (with a base, the base's aidlc.yaml unless a person approved its change: a pull request cannot move the folder
    out of sight), and with a base the pull request's base commit and those rules."""

    root: Path
    project: DocsProject
    base: str | None
    rulebook: Rulebook | None


def open_docs_ci(root: Path, base_ref: str | None, baseline: str = BASELINE_FILE) -> DocsRun:
    if base_ref is None:
        return DocsRun(root, open_docs(root), None, None)
    history = vcs.history(root)
    if history is None or history.head is None:
        raise UsageError(f"--base {base_ref}: {root} is not a Git repository with commits",
                         ["aidlc ci    # without --base: the checks that need no history"])
    base = vcs.resolve_commit(root, base_ref)
    rulebook = judge(root, history, base, vcs.commits_between(root, base, "HEAD"), baseline)
    return DocsRun(root, open_docs(root, rulebook.rules.config), base, rulebook)


def run_docs_ci(docs: DocsRun, baseline: Baseline | None = None, baseline_rel: str | None = None,
                strict: bool = False) -> CiReport:
    """The history rules over HEAD's history, or with a base over the pull request's commits only."""
    from aidlc.aidlc_docs.history import history_findings

    findings = [*(docs.rulebook.findings if docs.rulebook else []),
                *history_findings(docs.root, docs.project.rel, since=docs.base)]
    findings.sort(key=lambda f: f.sort_key())
    checks = [VALIDATE] if docs.base is None else [VALIDATE, RULES, DOCS_HISTORY]
    return _report(docs.root, docs.base, checks, findings, len(docs.project.files), [], baseline, baseline_rel,
                   strict)


def run_ci(bank: MemoryBank, pr: PullRequest | None, baseline: Baseline | None = None,
           baseline_rel: str | None = None, strict: bool = False) -> CiReport:
    index = BankIndex(bank)
    findings = run_rules(bank, index)
    waiting = [gate for gate in gate_statuses(bank, index) if gate.pending is not None]
    checks, base = [VALIDATE], None
    if pr is not None:
        base = pr.base
        findings.extend(check(pr))
        findings.sort(key=lambda f: f.sort_key())
        checks += [RULES, AGAINST_BASE, AUTHORSHIP, SCOPE]
    return _report(Path(bank.repo_root), base, checks, findings, bank.files_read, waiting, baseline, baseline_rel,
                   strict)


def _report(root: Path, base: str | None, checks: list[str], findings: list[Finding], files: int,
            waiting: list[GateStatus], baseline: Baseline | None, baseline_rel: str | None, strict: bool) -> CiReport:
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
