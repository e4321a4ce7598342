"""Whether a gate's decision stands for the artifact as it is now (the history itself: `events.view`)."""

from __future__ import annotations

from typing import Any

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.events.view import GateHistory, describe_conflict
from aidlc.gates.catalogue import GateTarget, fingerprint

__all__ = ["GateHistory", "approvals_short", "standing"]


def standing(history: GateHistory, bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str) -> str | None:
    """None when the stage's decision is an approval of the bytes as they are now; else why not.

    A stale approval judged other bytes: what comes after it waits, as for a missing one. So does a gate
    that branches decided differently: a person decides it again.
    """
    conflict = history.conflict(target.kind, target.id, stage)
    if conflict is not None:
        return f"was {describe_conflict(conflict)}, and no one has decided it again since"
    last = history.latest(target.kind, target.id, stage)
    if last is None:
        return "has no decision"
    if last.get("decision") != "approve":
        return f"was decided '{last.get('decision')}'"
    current = fingerprint(bank, index, target, stage)
    if current is None or current.sha256 != (last.get("fingerprint") or {}).get("sha256"):
        return f"is stale (approved at seq {last.get('seq')}; what it judged changed since)"
    if short := approvals_short(last):
        who = (last.get("actor") or {}).get("name")
        return f"has {short[0]} of {short[1]} approvals (by {who}); a second person approves"  # the two-person rule
    return None


def approvals_short(decision: dict[str, Any]) -> tuple[Any, int] | None:
    """(given, required) when an approval under the two-person rule still waits for its second person, else None."""
    data = decision.get("data") if isinstance(decision.get("data"), dict) else {}
    given, required = data.get("approvals"), data.get("approvals_required")
    if isinstance(required, int) and (not isinstance(given, int) or given < required):
        return given, required
    return None
