"""Whether a gate's decision stands for the artifact as it is now (the history itself: `events.view`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeGuard

from aidlc.bank.index import BankIndex
from aidlc.bank.items import UNREAD, MemoryBank
from aidlc.events.view import GateHistory, describe_conflict
from aidlc.gates.actor import no_person
from aidlc.gates.catalogue import TERMS, GateTarget, fingerprint, judged_digests
from aidlc.model.events import Decision, Event, EventType, FileDigest
from aidlc.model.types import Risk

__all__ = ["GateHistory", "approvals_short", "approved_by_a_person", "approved_risks", "standing", "what_changed"]


def standing(history: GateHistory, bank: MemoryBank | None, index: BankIndex | None, target: GateTarget,
             stage: str, bots: Sequence[str] = ()) -> str | None:
    """None when the stage's decision is a person's approval of the bytes as they are now; else why not.

    A stale approval judged other bytes: what comes after it waits, as for a missing one. So does a gate
    that branches decided differently: a person decides it again; and one approved by an agent, CI or a bot (a line
    written past the gate, which refuses them): a person decides it. (An aidlc-docs subject has no bank: None;
    `bots`, its governance.bot_emails; a bank's are its config's.)
    """
    conflict = history.conflict(target.kind, target.id, stage)
    if conflict is not None:
        return f"was {describe_conflict(conflict)}, and no one has decided it again since"
    last = history.latest(target.kind, target.id, stage)
    if last is None:
        return "has no decision"
    if last.decision != Decision.approve:
        return f"was decided '{last.decision}'"
    who = no_person(last.actor, bank.config.governance.bot_emails if bank is not None else bots)
    if who is not None:
        return f"was approved by {who}, not by a person (ledger seq {last.seq})"
    current = fingerprint(bank, index, target, stage, last)
    if current is None or last.fingerprint is None or current.sha256 != last.fingerprint.sha256:
        path, change = what_changed(bank, index, target, stage, last, current)
        return f"is stale (approved at seq {last.seq}; {path} {change} since)"
    if short := approvals_short(last):  # the two-person rule
        return f"has {short[0]} of {short[1]} approvals (by {last.actor.name}); a second person approves"
    return None


def approved_by_a_person(decision: Event | None, bots: Sequence[str]) -> TypeGuard[Event]:
    """Whether a gate's latest decision is an approval a person made (`bots`: governance.bot_emails), whatever it
    judged."""
    return decision is not None and decision.decision == Decision.approve and no_person(decision.actor, bots) is None


def approvals_short(decision: Event) -> tuple[Any, int] | None:
    """(given, required) when an approval under the two-person rule still waits for its second person, else None."""
    given, required = decision.datum("approvals"), decision.datum("approvals_required")
    if isinstance(required, int) and (not isinstance(given, int) or given < required):
        return given, required
    return None


def what_changed(bank: MemoryBank | None, index: BankIndex | None, target: GateTarget, stage: str, last: Event,
                 current: FileDigest | None) -> tuple[str, str]:
    """(path, how) of the first judged file that differs from what was approved (the files before the bolt's
    risk and scope, which go with its plan).

    A decision on several files records each file's digest (`data.judged`); without it, the
    finding names the whole set (its label) or the one file.
    """
    judged = last.datum("judged")
    recorded = {d["path"]: d.get("sha256") for d in judged if isinstance(d, dict) and isinstance(d.get("path"), str)
                } if isinstance(judged, list) else {}
    if recorded:
        now = {d.path: d.sha256 for d in judged_digests(bank, index, target, stage, last)}
        for path in sorted(set(recorded) | set(now), key=lambda path: (path.endswith(")"), path)):
            if path not in now:
                return path, _unreadable(bank, path) or "was removed"
            if path not in recorded:
                return path, "was added"
            if now[path] != recorded[path]:
                return path, _unreadable(bank, path) or "changed"
    if current is None:
        path = str(last.fingerprint.path if last.fingerprint is not None else None)
        return path, _unreadable(bank, path) or "was removed"
    return current.path, _unreadable(bank, current.path) or "changed"


def _unreadable(bank: MemoryBank | None, path: str) -> str | None:
    """Why a judged file cannot be compared now: unread (not UTF-8, too large), it gives no digest and no terms,
    which says nothing of a change; the file is to be mended, not approved again."""
    rel = path.removesuffix(TERMS)
    doc = next((doc for doc in bank.unreadable if doc.rel == rel), None) if bank is not None else None
    if doc is None or doc.problem is None or doc.problem.kind not in UNREAD:
        return None
    return f"{UNREAD_CHANGE} ({doc.problem.message}: save it as UTF-8), so it counts as changed"


UNREAD_CHANGE = "cannot be read now"


def approved_risks(events: Iterable[Event], bolt_id: str) -> list[Risk]:
    """Each risk the ledger records a plan of the bolt approved under: at its own plan gate (`data.bolt_risk`) or
    its intent's bolt-plan gate (`data.bolt_risks`). Lowering a bolt's risk later keeps what these required."""
    found = []
    for event in events:
        data, subject = event.data, event.subject
        if event.type != EventType.gate_decided or event.decision != Decision.approve or data is None \
                or subject is None:
            continue
        if subject.kind == "bolt" and subject.id == bolt_id and event.stage == "plan":
            named = data.get("bolt_risk")
        elif subject.kind == "intent" and isinstance(data.get("bolt_risks"), dict):
            named = data["bolt_risks"].get(bolt_id)
        else:
            continue
        if isinstance(named, str) and named in Risk.__members__:
            found.append(Risk(named))
    return found
