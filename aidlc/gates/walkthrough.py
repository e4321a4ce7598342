"""What the walkthrough gate checks before a person's approval is recorded: a current evidence report, and the
verification its bolt's risk requires, re-derived from the facts (never read from the report's own claims)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aidlc import vcs
from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, MemoryBank
from aidlc.bank.walk import read_inside
from aidlc.bolt.plan import WALKTHROUGH_FILE
from aidlc.bolt.walkthrough_file import marker
from aidlc.errors import AidlcError, UsageError
from aidlc.events.view import LedgerView
from aidlc.gates.evidence_report import build
from aidlc.model.events import CheckRecord
from aidlc.model.types import Risk
from aidlc.names import arg


@dataclass
class Evidence:
    missing: list[str] = field(default_factory=list)
    head: str | None = None  # what the report in the file describes
    digest: str | None = None
    risk: Risk | None = None


def walkthrough_evidence(bank: MemoryBank, bolt: BoltItem, observed: list[CheckRecord] | None = None,
                         index: BankIndex | None = None, view: LedgerView | None = None) -> Evidence:
    """What a walkthrough approval of `bolt` rests on, and what is missing; `observed`: the checks as the caller ran
    them itself (aidlc ci), instead of the ledger's claims. `index`, `view`: the bank's and the ledger's, when the
    caller holds them."""
    repo = Path(bank.repo_root)
    rel = f"{Path(bolt.rel).parent.as_posix()}/{WALKTHROUGH_FILE}"
    try:
        text = read_inside(repo / rel, repo).decode("utf-8", errors="replace")
    except OSError:
        text = ""  # missing or not a file aidlc reads: the gate's own check names it first
    found = marker(text)
    if found is None:
        return Evidence([f"{rel} holds no evidence report (aidlc walkthrough {arg(bolt.id)} writes one)"])
    evidence = Evidence(head=found[0], digest=found[1])
    try:
        report = build(repo, bank, bolt.id, run=False, observed=observed, index=index, view=view)
    except AidlcError as exc:  # no commit of the bolt, a ledger that does not verify
        evidence.missing.append(exc.message)
        return evidence
    evidence.risk = report.risk
    try:
        current = vcs.same_code(repo, found[0], report.head, (bank.rel_root, ".aidlc"))
    except UsageError:
        current = False
    if not current:
        evidence.missing.append(f"the report describes the code at {found[0][:12]}, older than the bolt's head "
                                f"{report.head[:12]}")
    evidence.missing += [f"{item.requirement}: {item.detail}" for item in report.verification.items
                         if not item.satisfied and not item.at_gate]
    return evidence
