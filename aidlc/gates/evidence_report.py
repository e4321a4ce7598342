"""The evidence report of a bolt, put together: `facts` gathers what it is built from, `evidence`, `planned` and
`recorded_checks` build its parts, `verification` decides what its risk requires; `digest` is what a walkthrough
approval binds to."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.bolt.plan import PLAN_FILE
from aidlc.events.view import LedgerView
from aidlc.gates.evidence import (
    changes,
    commits,
    decision,
    deviations,
    flagged_risks,
    rollback,
    silenced,
    timeline,
    traceability,
    verify_changes,
)
from aidlc.gates.facts import gather
from aidlc.gates.planned import bolt_risk, planned_files
from aidlc.gates.recorded_checks import CodeMatch, checks, run_checks_now, run_excerpts
from aidlc.gates.runs import cost, run_record
from aidlc.gates.verification import verification
from aidlc.model import evidence as ev
from aidlc.model.events import CheckRecord


def build(repo: Path, bank: MemoryBank, bolt_ref: str, *, run: bool = True,
          reviewer: Callable[[], Any] | None = None, note: Callable[[str], None] = lambda _: None,
          observed: list[CheckRecord] | None = None, index: BankIndex | None = None,
          view: LedgerView | None = None) -> ev.EvidenceReport:
    """The report of `bolt_ref`. With `run`, checks run (and are recorded) when none was recorded for the head's
    code, and a high-risk bolt's model review is asked of `reviewer()` (a provider) when none was recorded.
    `observed`: the checks the caller ran itself just now (aidlc ci): they replace the ledger's `check.recorded`
    events, which then count as history only. `index`, `view`: the bank's and the ledger's (`gather`), when the caller
    holds them."""
    facts = gather(repo, bank, bolt_ref, index, view)
    if observed is not None:
        facts.checks = list(observed)
    current = CodeMatch.of(facts)
    excerpts = run_excerpts(facts)
    if run and not any(current(check.commit) for check in facts.checks):
        excerpts.update(run_checks_now(facts, note))
    found_checks = checks(facts.checks, current, excerpts)
    planned = planned_files(facts)
    if planned is None:
        facts.notes.append(f"no implementation plan ({PLAN_FILE}): every changed file counts as unplanned")
    changed = changes(facts, planned)
    risk = bolt_risk(facts)
    verify_changed = verify_changes(facts)
    verified = verification(facts, risk, found_checks, current, verify_changed, run=run, reviewer=reviewer,
                            note=note)
    return ev.EvidenceReport(
        bolt=facts.bolt.id, risk=risk, base=facts.base, head=facts.head,
        traceability=traceability(facts, found_checks), changes=changed,
        deviations=[*deviations(changed, planned), *verify_changed, *silenced(facts)],
        checks=found_checks, commits=commits(facts.commits), verification=verified, risks=flagged_risks(facts),
        rollback=rollback(facts), timeline=timeline(facts), cost=cost(facts), run=run_record(facts),
        decision=decision(facts, risk), notes=list(dict.fromkeys(facts.notes)))


def digest(report: BaseModel) -> str:
    """sha256 of the report's canonical JSON (sorted keys, no spaces): what an approval binds to."""
    text = json.dumps(report.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
