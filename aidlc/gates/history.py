"""The gate decisions recorded in the ledger, indexed for lookups."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.events.ledger import Ledger
from aidlc.gates.catalogue import GateTarget, fingerprint
from aidlc.model.events import EventType


@dataclass
class GateHistory:
    decisions: dict[tuple[str, str, str], list[dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def read(cls, ledger: Ledger) -> GateHistory:
        return cls.from_events(ledger.events())

    @classmethod
    def from_events(cls, events: Any) -> GateHistory:
        history = cls()
        for event in events:
            if event.get("type") == EventType.gate_decided and isinstance(event.get("subject"), dict):
                subject = event["subject"]
                key = (str(subject.get("kind")), str(subject.get("id")), str(event.get("stage")))
                history.decisions.setdefault(key, []).append(event)
        return history

    def latest(self, kind: str, subject_id: str, stage: str) -> dict[str, Any] | None:
        found = self.decisions.get((kind, subject_id, stage))
        return found[-1] if found else None

    def approved(self, kind: str, subject_id: str, stage: str) -> bool:
        last = self.latest(kind, subject_id, stage)
        return last is not None and last.get("decision") == "approve"

    def standing(self, bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str) -> str | None:
        """None when the stage's latest decision is an approval of the bytes as they are now; else why not.

        A stale approval judged other bytes: what comes after it waits, as for a missing one.
        """
        last = self.latest(target.kind, target.id, stage)
        if last is None:
            return "has no decision"
        if last.get("decision") != "approve":
            return f"was decided '{last.get('decision')}'"
        current = fingerprint(bank, index, target, stage)
        if current is None or current.sha256 != (last.get("fingerprint") or {}).get("sha256"):
            return f"is stale (approved at seq {last.get('seq')}; what it judged changed since)"
        return None
