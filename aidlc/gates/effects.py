"""The status changes a gate decision implies (a bolt in progress, then complete; its stories complete; an intent
in construction), and finishing them after a crash.

Order of writes: a pending note in .aidlc/ naming the decision's idempotency key, then the event (the ledger is
the record), then the artifact files, then the note is removed. The event carries the changes it implies
(`data.effects`); if a crash falls anywhere in between, the next gate command finds the note and applies the
recorded event's changes (`reconcile`). Without a note nothing is re-applied, so a fresh clone never overwrites a
person's later edits with an old decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from aidlc.bank import frontmatter
from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, MemoryBank
from aidlc.bank.write import set_front_matter, update_front_matter, yaml_scalar
from aidlc.errors import AidlcError
from aidlc.events.ledger import Ledger, utc_now
from aidlc.gates.catalogue import INTENT_STAGES, GateTarget
from aidlc.gates.refusals import GateRefused
from aidlc.model.events import Decision, Event
from aidlc.model.types import StoryStatus
from aidlc.names import gate_command

PENDING_NOTE = Path(".aidlc") / "gate-pending"


class StatusChange(BaseModel):
    """The front-matter keys a decision sets in one file: an item of its event's `data.effects`, `{path, set}`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    path: str = Field(description="relative to the repo root")
    keys: dict[str, Any] = Field(validation_alias="set", serialization_alias="set")

    def recorded(self) -> dict[str, Any]:
        """As the event records it."""
        return self.model_dump(by_alias=True)


def status_changes(bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str,
                   decision: Decision) -> list[StatusChange]:
    """The status changes a decision implies."""
    if decision != Decision.approve:
        return []
    if target.kind == "bolt" and target.bolt is not None:
        return _bolt_changes(index, target.bolt, stage)
    if target.kind == "intent" and stage == INTENT_STAGES[-1] and target.intent is not None:
        doc = target.intent.requirements_doc
        return [StatusChange(path=doc.rel, keys={"phase": "construction"})] if doc is not None else []
    return []


def _bolt_changes(index: BankIndex, bolt: BoltItem, stage: str) -> list[StatusChange]:
    if stage not in ("plan", "walkthrough"):
        return []
    if bolt.meta is None:
        raise GateRefused(f"cannot read the front matter of {bolt.rel}, and approving the {stage} changes its status",
                          [f"aidlc validate    # shows what is wrong with {bolt.rel}"])
    now = utc_now().split(".")[0] + "Z"
    if stage == "plan":
        return [StatusChange(path=bolt.rel, keys={"status": "in-progress", "started": now})] \
            if bolt.meta.status == "planned" else []
    unit = index.unit(bolt.meta.unit)
    stories = [s for name in bolt.meta.stories or [] if (s := index.story(name, unit)) is not None]
    for story in stories:
        open_boxes = [c for c in story.criteria if c.checkbox and not c.checked]
        if open_boxes:
            raise GateRefused(
                f"story {story.id} has {len(open_boxes)} unchecked acceptance boxes "
                f"(first at {story.rel}:{open_boxes[0].line}); approving the walkthrough completes it",
                [f"check each box the evidence supports in {story.rel}, then approve",
                 "or: " + gate_command(bolt.id, "walkthrough", "reject", options="--reason '...'")])
    return [StatusChange(path=bolt.rel, keys={"status": "complete", "completed": now}),
            *(StatusChange(path=s.rel, keys={"status": StoryStatus.complete.value, "implemented": True})
              for s in stories)]


def check_writable(repo: Path, changes: list[StatusChange]) -> None:
    """Dry-run every file change before the event is appended: the record must not claim what cannot be written."""
    for change in changes:
        path = repo / change.path
        try:
            set_front_matter(path.read_bytes().decode("utf-8"), change.keys, path.name)
        except (OSError, UnicodeDecodeError, AidlcError) as exc:
            reason = exc.message if isinstance(exc, AidlcError) else str(exc)
            raise GateRefused(f"{change.path} cannot take the status change this decision implies: {reason}",
                              [f"aidlc validate    # shows what is wrong with {change.path}", "fix it, then decide"]
                              ) from None


def apply_effects(repo: Path, event: Event) -> list[str]:
    """Set the keys an event implies where the file differs; mark the event applied. Returns the changed files."""
    changed = []
    for change in (StatusChange.model_validate(item) for item in event.datum("effects") or []):
        path = repo / change.path
        if not path.is_file():
            continue
        pending = _differing(path, change.keys)
        if pending:
            update_front_matter(path, pending, repo)
            changed.append(change.path)
    (repo / PENDING_NOTE).unlink(missing_ok=True)
    return changed


def _differing(path: Path, wanted: dict[str, Any]) -> dict[str, Any]:
    """The keys whose value in the file is not yet the one wanted (compared as written YAML)."""
    meta = frontmatter.split(path.read_bytes().decode("utf-8", errors="replace"), path.name).meta or {}
    return {k: v for k, v in wanted.items() if k not in meta or yaml_scalar(meta[k]) != yaml_scalar(v)}


def reconcile(bank: MemoryBank) -> list[str]:
    """Finish a decision a crash interrupted (see the module docstring); returns the files changed."""
    repo = Path(bank.repo_root)
    note = repo / PENDING_NOTE
    if not note.is_file():
        return []
    key = note.read_text(encoding="utf-8").strip()
    event = Ledger.of_bank(repo, bank.rel_root).find_key(key) if key else None
    if event is None:  # the crash came before the append: nothing was decided
        note.unlink(missing_ok=True)
        return []
    return apply_effects(repo, event)
