"""The implementation walkthrough: one renderer for the whole file, written by a run (partial or not) and by
`aidlc walkthrough`. What it holds is the evidence report (aidlc.gates.evidence), inside a generated block
between two markers; whatever a person writes outside the block survives a refresh.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.bank.walk import read_inside
from aidlc.bank.write import atomic_write
from aidlc.bolt.plan import WALKTHROUGH_FILE
from aidlc.bolt.store import runs_of
from aidlc.bolt.walkthrough_file import fence, generated_block, merge, person_text
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger
from aidlc.events.view import LedgerView, open_view
from aidlc.gates.evidence_report import build, digest
from aidlc.gates.history import approved_by_a_person
from aidlc.model.evidence import EvidenceReport, RunRecord
from aidlc.model.run import RunState
from aidlc.names import arg
from aidlc.templating import render


@dataclass(frozen=True)
class Written:
    report: EvidenceReport
    digest: str
    rel: str  # the walkthrough file, relative to the repository
    block: str  # the generated block, as it is (or would be) written
    kept: str | None = None  # why the file was not written: its walkthrough is approved


def render_walkthrough(report: EvidenceReport, digest: str, run: RunState | None = None,
                       partial: bool = False) -> str:
    """The generated block, markers included."""

    passing = bool(report.checks) and all(check.passed and check.current for check in report.checks)
    recorded = report.run or RunRecord(id="", branch=None, model=None, status=None, outcome=None)
    # A run has an outcome once the ledger records its end; as it stops (partial), the one this process gave it.
    said = run.outcome if run is not None and partial else recorded.outcome
    outcome = said or ("stopped" if partial else "checks passed; waiting for a person at the walkthrough gate"
                       if passing else "the checks at the head do not all pass (see Checks)")
    # The model the ledger recorded; else state.json's, told as the run's own record.
    model = recorded.model or (f"{run.model} (the run's own record)" if run is not None and run.model else "unknown")
    body = render("artifacts/implementation-walkthrough.md.j2", r=report, digest=digest, run=run, partial=partial,
                  outcome=outcome, model=model, reworks=_rejections(report) if run else [], fence=fence)
    return generated_block(report.head, digest, body)


def _rejections(report: EvidenceReport) -> list[str]:
    """The reasons of the walkthrough rejections the ledger holds since the latest run started (the run reworked
    each): a person's decision is told as the ledger recorded it, never as state.json says."""
    started = [n for n, entry in enumerate(report.timeline) if entry.type == "run.started"]
    return [entry.detail or "no reason given" for entry in report.timeline[(started[-1] if started else 0):]
            if entry.type == "gate.decided" and entry.stage == "walkthrough" and entry.decision == "reject"]


def write_walkthrough(repo: Path, bank: MemoryBank, bolt_ref: str, *, run_state: RunState | None = None,
                      partial: bool = False, run: bool = True, reviewer: Callable[[], Any] | None = None,
                      note: Callable[[str], None] = lambda _: None, write: bool = True,
                      index: BankIndex | None = None, view: LedgerView | None = None) -> Written:
    """Build the bolt's evidence report and write it into its implementation-walkthrough.md (not with `write`
    False). A walkthrough a person approved is never rewritten: the approval judged its bytes (`Written.kept`).
    `index`, `view`: the bank's and the ledger's as they are now, when the caller holds them."""

    report = build(repo, bank, bolt_ref, run=run, reviewer=reviewer, note=note, index=index, view=view)
    found = digest(report)
    bolt_folder = next(Path(b.rel).parent for b in bank.bolts if b.id == report.bolt)
    path = repo / bolt_folder / WALKTHROUGH_FILE
    try:
        data = read_inside(path, repo)
        # Only a rewrite needs the person's text, whole: a file that is not UTF-8 stops it, so none of it is lost.
        existing = person_text(data, path.relative_to(repo).as_posix(), f"aidlc walkthrough {arg(report.bolt)}") \
            if write else None
    except FileNotFoundError:
        existing = None
    except OSError as exc:  # a link out of the repository, a FIFO: not a file aidlc rewrites

        raise UsageError(f"{path.relative_to(repo).as_posix()}: not rewritten ({exc.strerror or exc})",
                         [f"replace it with a regular file, then run aidlc walkthrough {arg(report.bolt)}"]) from None
    run_state = run_state or next((r for r in reversed(_runs(repo, report.bolt))), None)
    block = render_walkthrough(report, found, run_state, partial)
    rel = path.relative_to(repo).as_posix()
    # The ledger read again only if someone wrote to it while the report was built (the checks may take minutes).
    kept = _approved(view.now() if view is not None else open_view(Ledger.of_bank(repo, bank.rel_root)),
                     report.bolt, rel, bank.config.governance.bot_emails)
    if write and kept is None:
        atomic_write(path, merge(existing, block), repo)
    return Written(report, found, rel, block, kept)


def _approved(view: LedgerView, bolt: str, rel: str, bots: Sequence[str]) -> str | None:
    """Why the walkthrough file must stay as it is (its gate's decision is a person's approval), else None."""

    last = view.history.latest("bolt", bolt, "walkthrough")
    if last is None or not approved_by_a_person(last, bots):
        return None
    return (f"{rel} is not rewritten: {last.actor.name or 'a person'} approved it (ledger seq {last.seq}), and "
            "that approval "
            "judged the file as it is")


def _runs(repo: Path, bolt: str) -> list[RunState]:
    return runs_of(repo, bolt)
