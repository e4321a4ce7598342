"""One run of `aidlc ci`: every validate rule, then (with a base) the checks against git history, then the
baseline; on either layout (a memory bank, or an aidlc-docs folder)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aidlc import vcs
from aidlc.aidlc_docs.reader import read_project
from aidlc.aidlc_docs.records import read_workspace
from aidlc.bank.config import load_config, refuse_linked_records
from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.bank.rulefiles import BASELINE_FILE
from aidlc.ci import baseline as baselines
from aidlc.ci.adopting import known_at_base
from aidlc.ci.branch import Branch, PullRequest
from aidlc.ci.checks import check, decisions_added, on_either_layout
from aidlc.ci.rulebook import Rulebook, judge, kept_layout
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger
from aidlc.model.ci import AddedDecision, Baseline, BaselineEntry, CiReport, CiSummary, LoggedApproval
from aidlc.model.config import RecordsLayout
from aidlc.model.findings import Finding
from aidlc.model.status import GateStatus
from aidlc.model.types import Severity
from aidlc.rules import run_docs_rules, run_records_rules, run_rules
from aidlc.status.gates import gate_statuses
from aidlc.workspace import layout_of, open_bank, open_docs, reads_workspace

VALIDATE, RULES, AGAINST_BASE, AUTHORSHIP, SCOPE = "validate", "rules-from-base", "ledger-against-base", \
    "approval-authorship", "pull-request-scope"
DOCS_HISTORY = "aidlc-docs-history"  # the audit log and stage ticks of the pull request's commits


@dataclass
class Judged:
    """What `aidlc ci` judges, opened: `report(baseline, baseline_rel, strict)` runs the checks; `rulebook` (with a
    base) says which rules judge, and so which baseline counts."""

    report: Callable[[Baseline | None, str | None, bool], CiReport]
    rulebook: Rulebook | None
    base: str | None
    layout: RecordsLayout = "memory-bank"  # aidlc-docs: aidlc-workflows' records, v1 or v2; what the report says


def open_ci(root: Path, base_ref: str | None, baseline: str = BASELINE_FILE) -> Judged:
    """The project's records as `aidlc ci` judges them: with a base, read with the rules that judge the pull
    request (the base's, unless a change of them was approved; `baseline` is the baseline's path), so a pull request
    cannot move its records out of sight."""
    docs = layout_of(root, load_config(root)) == "aidlc-docs"
    if base_ref is None:
        if docs:
            return _open_docs(root, None, None)
        bank = open_bank(root, as_found=True)
        return Judged(lambda known, rel, strict: run_ci(bank, None, known, rel, strict), None, None)
    history = vcs.history(root)
    if history is None or history.head is None:
        raise UsageError(f"--base {base_ref}: {root} is not a Git repository with commits",
                         ["aidlc ci    # without --base: the checks that need no history"])
    base = vcs.resolve_commit(root, base_ref)
    if history.merge_base((base, "HEAD")) is None:  # the pull request's commits and what it changed are unknown
        if vcs.is_shallow(root):
            raise UsageError(f"--base {base_ref}: this shallow clone holds no commit that it and HEAD share",
                             ["git fetch --unshallow    # the history between them (checkout: fetch-depth: 0)"])
        raise UsageError(f"--base {base_ref}: it and HEAD share no commit (unrelated histories)",
                         ["git log --oneline --graph --all    # the histories; name the branch the pull request "
                          "targets"])
    commits = vcs.commits_between(root, base, "HEAD")
    rulebook = judge(root, history, base, commits, baseline)
    refuse_linked_records(root, rulebook.rules.config)  # the folders the judging rules name, as aidlc.yaml's were
    # The layout the judging rules read: the base's, decided by its own files, unless a change of the rules was
    # approved. A pull request that adds an empty memory-bank/ (which `layout: auto` prefers) or deletes aidlc-docs/
    # moves no aidlc-docs record out of sight, and one that swaps memory-bank/ for aidlc-docs/ keeps its bank judged.
    # A base that keeps no records in either layout hides none: the pull request that adds them is judged in its own.
    kept = kept_layout(history, base, rulebook.rules) if rulebook.from_base else None
    if (kept == "aidlc-docs") if kept is not None else docs:
        return _open_docs(root, base, rulebook, history, commits)
    pr = PullRequest.open(root, history, base, commits, rulebook)
    return Judged(lambda known, rel, strict: run_ci(pr.bank, pr, known, rel, strict), pr.rulebook, pr.base)


def judging_baseline(root: Path, judged: Judged, path: Path, shown: str, explicit: bool) -> Baseline | None:
    """The baseline that counts (`path`, named `shown` in messages): with a base, the judging rules' copy of it, when
    it is inside the repository (a pull request does not choose its own baseline); the one the pull request that
    adopts aidlc brings, for what the base had only (aidlc/ci/adopting.py); without a base, the file, when it exists
    or was named (`explicit`)."""
    rulebook = judged.rulebook
    if rulebook is not None and path.is_relative_to(root.absolute()):
        data = rulebook.rules.files.get(shown)
        if data is None:
            return None
        baseline = baselines.parse(data, shown + (f" (at the base {rulebook.base[:12]})" if rulebook.from_base else ""))
        return known_at_base(root, rulebook, baseline) if rulebook.adopting else baseline
    return baselines.load(path, shown) if explicit or path.exists() else None


def not_at_base(root: Path, judged: Judged, written: Baseline, path: Path) -> int:
    """How many entries of a baseline the pull request that adopts aidlc writes for itself the base did not have
    (they stay new: `judging_baseline`); 0 for any other run."""
    rulebook = judged.rulebook
    if rulebook is None or not rulebook.adopting or not path.is_relative_to(root.absolute()):
        return 0
    return len(written.findings) - len(known_at_base(root, rulebook, written).findings)


def run_ci(bank: MemoryBank, pr: PullRequest | None, baseline: Baseline | None = None,
           baseline_rel: str | None = None, strict: bool = False) -> CiReport:
    index = BankIndex(bank)
    findings = run_rules(bank, index)
    waiting = [gate for gate in gate_statuses(bank, index) if gate.pending is not None]
    checks, base, decisions = [VALIDATE], None, []
    if pr is not None:
        base = pr.base
        findings.extend(check(pr))
        findings.sort(key=lambda f: f.sort_key())
        checks += [RULES, AGAINST_BASE, AUTHORSHIP, SCOPE]
        decisions = decisions_added(pr)
    return _report(Path(bank.repo_root), base, checks, findings, bank.files_read, waiting, baseline, baseline_rel,
                   strict, decisions)


def _open_docs(root: Path, base: str | None, rulebook: Rulebook | None, history: vcs.History | None = None,
               commits: list[vcs.Commit] | None = None) -> Judged:
    """An aidlc-docs project: every aidlc-docs rule, the history ones over HEAD's history, or with a base over the
    pull request's commits only, its docs folder as the judging rules name it."""
    checks = [VALIDATE] if base is None else [VALIDATE, RULES, AGAINST_BASE, AUTHORSHIP, DOCS_HISTORY]
    from aidlc.rules.docs_gates import JudgedBy  # here: a memory bank's run never imports the aidlc-docs rules

    judged = JudgedBy(rulebook.rules.config, rulebook.signers, base) if rulebook is not None else None
    against_base: list[Finding] = []  # the ledger beside the docs and the commits, as on a memory bank
    decisions: list[AddedDecision] = []
    logged: list[LoggedApproval] = []
    if base is not None and rulebook is not None and history is not None:
        branch = Branch(base=base, history=history, ledger=Ledger.of_bank(root, rulebook.rules.folder),
                        base_ledger=rulebook.base_rules.ledger_rel, commits=commits or [])
        against_base = list(on_either_layout(branch, root, rulebook.rules.config))
        decisions = decisions_added(branch)
    # aidlc-workflows v2: the intent records under aidlc/spaces/, or a workspace before its first intent (the docs
    # folder as the judging rules name it: one the history held is read from there, deleted or not).
    if reads_workspace(root, rulebook.rules.config if rulebook is not None else load_config(root)):
        workspace = read_workspace(root.resolve())
        files: int = workspace.files

        def found() -> list[Finding]:
            return run_records_rules(workspace, since=base, judged=judged)
    else:
        config = rulebook.rules.config if rulebook else None
        folder = rulebook.rules.config.aidlc_docs if rulebook is not None else None
        if folder is not None and not (root / folder).is_dir():  # deleted: the history rules say what it held
            project = read_project(root.resolve(), folder)
        else:
            project = open_docs(root, config)
        files = len(project.files)
        if base is not None and history is not None:
            from aidlc.ci.logged import approvals_logged  # the aidlc-docs rules: for this layout only

            logged = approvals_logged(project, history, base)

        def found() -> list[Finding]:
            return run_docs_rules(project, since=base, judged=judged)

    def report(known: Baseline | None, rel: str | None, strict: bool) -> CiReport:
        findings = [*(rulebook.findings if rulebook else []), *against_base, *found()]
        findings.sort(key=lambda f: f.sort_key())
        return _report(root, base, checks, findings, files, [], known, rel, strict, decisions, logged)

    return Judged(report, rulebook, base, "aidlc-docs")


def _report(root: Path, base: str | None, checks: list[str], findings: list[Finding], files: int,
            waiting: list[GateStatus], baseline: Baseline | None, baseline_rel: str | None, strict: bool,
            decisions: list[AddedDecision], logged: list[LoggedApproval] | None = None) -> CiReport:
    marked = [baselines.with_fingerprint(f) for f in findings]
    fixed: list[BaselineEntry] = []
    if baseline is not None:
        marked, fixed = baselines.apply(marked, baseline)
    new = [f for f in marked if f.baseline == "new"]
    count = {severity: sum(f.severity == severity for f in new) for severity in Severity}
    passed = count[Severity.error] == 0 and not (strict and count[Severity.warning])
    return CiReport(root=str(root), prefix=vcs.project_prefix(root), base=base, checks=checks, baseline=baseline_rel,
                    passed=passed, findings=marked, fixed=fixed, waiting=waiting, decisions=decisions,
                    logged_approvals=logged or [],
                    summary=CiSummary(files=files, errors=count[Severity.error],
                                      adopted=sum(bool(f.adopted) for f in new),
                                      warnings=count[Severity.warning], infos=count[Severity.info],
                                      known=len(marked) - len(new), fixed=len(fixed)))
