"""Ledger rules: the chain is intact, and gate decisions judged bytes that have not changed since. The view
of the ledger the rules of one run share is built here. (Whether completions are backed by decisions:
`claims`; who decided, and with which key: `approvals`.)"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc.bank.index import BankIndex
from aidlc.errors import UsageError
from aidlc.events.ledger import LEDGER_FILE, Ledger, event_of
from aidlc.events.verify import Verification, verify_lines
from aidlc.gates.catalogue import GateTarget, fingerprint, judged_digests
from aidlc.gates.decide import resolve
from aidlc.gates.history import GateHistory
from aidlc.model.events import FileDigest
from aidlc.model.types import Severity
from aidlc.rules.catalogue import Hit, rule

E = Severity.error


@dataclass
class LedgerView:
    ledger: Ledger
    verification: Verification
    history: GateHistory
    events: list[tuple[int, dict[str, Any]]]  # (line in the file, event): damaged lines are left out


# The rules of one run share one view. Keyed by the file's bytes, not its mtime: an edit within the
# file system's clock tick that keeps the size would otherwise be served the old view.
_VIEWS: dict[tuple[str, str, str], LedgerView] = {}


def view(index: BankIndex) -> LedgerView | None:
    bank = index.bank
    path = Path(bank.repo_root) / bank.rel_root / LEDGER_FILE
    if not path.is_file():
        return None
    data = path.read_bytes()
    key = (str(path), bank.repo_root, hashlib.sha256(data).hexdigest())
    if key not in _VIEWS:
        _VIEWS.clear()
        _VIEWS[key] = _build_view(Ledger(path, Path(bank.repo_root)), data)
    return _VIEWS[key]


def _build_view(ledger: Ledger, data: bytes) -> LedgerView:
    lines = [line + b"\n" for line in data.split(b"\n")]  # split as the file reads: at b"\n" only
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    events = [(number, event) for number, line in enumerate(lines, start=1) if (event := event_of(line)) is not None]
    return LedgerView(ledger, verify_lines(lambda: iter(lines), stop_at_first=True),
                      GateHistory.from_events(e for _, e in events), events)


@rule("AIDLC-LEDGER-001", E, "ledger", "the ledger's hash chain is broken (edited, removed, reordered, "
      "duplicated or torn lines)",
      "restore memory-bank/events.jsonl from the last good commit; `aidlc log verify` names the first bad line")
def chain_intact(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is not None and led.verification.problems:
        problem = led.verification.problems[0]
        yield Hit(led.ledger.rel, problem.line, f"seq {problem.seq}: {problem.kind}: {problem.message}")


@rule("AIDLC-LEDGER-005", E, "ledger", "an approval is stale: the artifact changed after it was approved",
      "a person reviews the change and decides again: `aidlc gate approve SUBJECT --stage STAGE`")
def approvals_current(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is None:
        return
    for (kind, subject_id, stage), decisions in led.history.decisions.items():
        last = decisions[-1]
        recorded = (last.get("fingerprint") or {}).get("sha256")
        if last.get("decision") != "approve" or not recorded or kind == "release":
            continue
        try:
            target = resolve(index.bank, index, f"{kind}:{subject_id}")
        except UsageError:  # a subject that no longer exists has nothing to go stale
            continue
        if stage not in target.stages:
            continue
        current = fingerprint(index.bank, index, target, stage)
        if current is None or current.sha256 != recorded:
            path, change = _what_changed(index, target, stage, last, current)
            yield Hit(path, None, f"the {stage} approval of {kind} {subject_id} (seq {last.get('seq')}) is stale: "
                      f"{path} {change} since", f"aidlc gate approve {subject_id} --stage {stage}")


def _what_changed(index: BankIndex, target: GateTarget, stage: str, last: dict[str, Any],
                  current: FileDigest | None) -> tuple[str, str]:
    """(path, how) of the first judged file that differs from what was approved.

    A decision on several files records each file's digest (`data.judged`); without it, the
    finding names the whole set (its label) or the one file.
    """
    judged = (last.get("data") or {}).get("judged")
    recorded = {d["path"]: d.get("sha256") for d in judged if isinstance(d, dict) and isinstance(d.get("path"), str)
                } if isinstance(judged, list) else {}
    if recorded:
        now = {d.path: d.sha256 for d in judged_digests(index.bank, index, target, stage)}
        for path in sorted(set(recorded) | set(now)):
            if path not in now:
                return path, "was removed"
            if path not in recorded:
                return path, "was added"
            if now[path] != recorded[path]:
                return path, "changed"
    if current is None:
        return str((last.get("fingerprint") or {}).get("path")), "was removed"
    return current.path, "changed"
