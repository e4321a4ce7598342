"""The gate decisions recorded in the ledger, indexed for lookups."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aidlc.events.ledger import Ledger
from aidlc.model.events import EventType


@dataclass
class GateHistory:
    decisions: dict[tuple[str, str, str], list[dict[str, Any]]] = field(default_factory=dict)
    created_ts: str | None = None  # when the ledger was created (for banks adopted from elsewhere)

    @classmethod
    def read(cls, ledger: Ledger) -> GateHistory:
        return cls.from_events(ledger.events())

    @classmethod
    def from_events(cls, events: Any) -> GateHistory:
        history = cls()
        for event in events:
            kind = event.get("type")
            if kind == EventType.ledger_created and history.created_ts is None:
                history.created_ts = event.get("ts")
            elif kind == EventType.gate_decided and isinstance(event.get("subject"), dict):
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
