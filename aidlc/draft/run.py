"""Drafting one level of an intent with an LLM: context, proposal, checks, files, ledger event.

AI proposes, a person validates: everything written is `status: draft` (or appended as a new
requirement), the run records a `draft.proposed` event by an *agent* actor (model, prompt
digest, files; never prompt text), and the result names the gate command a person runs to
accept the level. A proposal the bank would refuse is sent back to the model with the reasons,
at most `rounds` times, and is never written half-way.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc.bank.items import Intent, MemoryBank
from aidlc.draft.apply import Written, problems, write
from aidlc.draft.proposals import GATE_OF, PROPOSALS, Level
from aidlc.errors import AidlcError, UsageError
from aidlc.events.ledger import Ledger
from aidlc.llm.base import Message, Provider, Usage
from aidlc.llm.context import ContextPiece, fit_context
from aidlc.llm.errors import LLMBadOutput
from aidlc.llm.prompts import render_prompt, system_message
from aidlc.llm.structured import complete_structured
from aidlc.model.events import Actor, ActorKind, EventType, Subject
from aidlc.rules import validate
from aidlc.scaffold.new import Creator

# What must exist before a level can be drafted, and the command that makes it.
NEEDS = {
    "units": ("requirements", "aidlc draft requirements {intent}"),
    "stories": ("units", "aidlc draft units {intent}"),
    "bolts": ("stories", "aidlc draft stories {intent}"),
}


@dataclass
class Preview:
    path: str
    action: str  # created | updated
    text: str  # the new file, or a unified diff for an updated one


@dataclass
class DraftResult:
    level: str
    intent: str
    written: Written
    dry_run: bool
    model: str
    target: str
    mode: str
    rounds: int
    usage: Usage
    prompt_sha256: str
    gate_command: str
    previews: list[Preview] = field(default_factory=list)
    event: dict[str, Any] | None = None
    errors_after: int = 0


class DraftRejected(LLMBadOutput):
    """The model kept proposing what the bank would refuse; nothing was written."""


def draft(root: Path, level: Level, intent_ref: str, provider: Provider, *, dry_run: bool = False,
          budget_tokens: int = 12_000, max_tokens: int = 4096, rounds: int = 3) -> DraftResult:
    creator = Creator(root)
    intent = creator.intent(intent_ref)
    _require_previous_level(intent, level)
    schema = PROPOSALS[level]
    conversation = build_messages(creator.bank, intent, level, budget_tokens)
    digest = hashlib.sha256(json.dumps([m.to_dict() for m in conversation], sort_keys=True).encode()).hexdigest()
    usage, found, used = Usage(), [], 0
    for used in range(1, rounds + 1):  # noqa: B007 - `used` is read after the loop
        answer = complete_structured(provider, conversation, schema, max_tokens=max_tokens)
        usage = usage + answer.usage
        found = problems(creator, intent, answer.value)
        if not found:
            try:  # the whole write, into a copy of the bank first: the real one is written all or nothing
                preview = _preview(creator, intent, answer.value)
            except AidlcError as exc:  # e.g. a title that makes no file name: the model can fix that too
                found = [exc.message]
            else:
                break
        conversation = [*conversation, Message("assistant", answer.raw),
                        Message("user", render_prompt("draft_fix.md.j2", problems=found, level=level))]
    else:
        raise DraftRejected(f"after {rounds} rounds the model still proposed {level} the memory bank refuses: "
                            f"{found[0]}", raw=answer.raw, errors=found)
    result = DraftResult(level=level, intent=intent.id, written=Written(), dry_run=dry_run,
                         model=answer.completion.model, target=answer.completion.target, mode=answer.mode,
                         rounds=used, usage=usage, prompt_sha256=digest,
                         gate_command=f"aidlc gate approve {intent.id} --stage {GATE_OF[level]}")
    if dry_run:
        result.written, result.previews = preview
        return result
    result.written = write(creator, intent, answer.value)
    result.event = _record(creator.bank, result)
    written = set(result.written.created + result.written.updated)
    report = validate(creator.bank)
    result.errors_after = sum(1 for f in report.findings if f.severity == "error" and f.path in written)
    return result


def _require_previous_level(intent: Intent, level: str) -> None:
    if level not in NEEDS:
        if intent.requirements_doc is None:
            raise UsageError(f"intent {intent.id} has no requirements.md to add requirements to",
                             [f"aidlc new intent ...    # or restore {intent.rel}/requirements.md"])
        return
    needed, command = NEEDS[level]
    present = {"requirements": intent.requirements, "units": intent.units,
               "stories": [s for u in intent.units for s in u.stories]}[needed]
    if not present:
        raise UsageError(f"intent {intent.id} has no {needed} yet; {level} are drafted from them",
                         [command.format(intent=intent.id)])


def build_messages(bank: MemoryBank, intent: Intent, level: str, budget_tokens: int) -> list[Message]:
    """The system rules, then the task with the intent's files as untrusted data, fitted to the budget."""
    fitted = fit_context(context_pieces(bank, intent, level), budget_tokens)
    task = f"propose the {level} of intent {intent.id}"
    user = render_prompt("draft.md.j2", level=level, intent=intent.id, context=fitted.render(),
                         units=[u.id for u in intent.units],
                         requirements=sorted(intent.requirement_ids),
                         stories={u.id: [s.stem for s in u.stories] for u in intent.units})
    return [system_message(task), Message("user", user)]


def context_pieces(bank: MemoryBank, intent: Intent, level: str) -> list[ContextPiece]:
    repo = Path(bank.repo_root)

    def piece(rel: str, priority: int, required: bool = False) -> ContextPiece | None:
        path = repo / rel
        if not path.is_file():
            return None
        return ContextPiece(rel, path.read_text(encoding="utf-8", errors="replace"), priority, required)

    wanted: list[ContextPiece | None] = [
        piece(f"{intent.rel}/requirements.md", 100, required=True),
        piece(f"{intent.rel}/system-context.md", 60),
        piece(f"{intent.rel}/units.md", 70),
    ]
    if level in ("stories", "bolts"):
        wanted += [piece(unit.rel, 90) for unit in intent.units]
    if level == "bolts":
        wanted += [piece(story.rel, 80) for unit in intent.units for story in unit.stories]
    wanted += [piece(rel, 20) for rel in bank.standards]
    return [p for p in wanted if p is not None]


def _preview(creator: Creator, intent: Intent, proposal: Any) -> tuple[Written, list[Preview]]:
    """Write into a copy of the bank and show what would change: the real files stay untouched."""
    repo = Path(creator.bank.repo_root)
    with tempfile.TemporaryDirectory(prefix="aidlc-draft-") as scratch:
        copy = Path(scratch) / "repo"
        shutil.copytree(repo / creator.bank.rel_root, copy / creator.bank.rel_root)
        if (repo / "aidlc.yaml").is_file():
            shutil.copy2(repo / "aidlc.yaml", copy / "aidlc.yaml")
        written = write(Creator(copy), intent, proposal)
        previews = [Preview(rel, "created", (copy / rel).read_text(encoding="utf-8")) for rel in written.created]
        for rel in written.updated:
            before = (repo / rel).read_text(encoding="utf-8").splitlines(keepends=True)
            after = (copy / rel).read_text(encoding="utf-8").splitlines(keepends=True)
            previews.append(Preview(rel, "updated", "".join(difflib.unified_diff(before, after, rel, rel))))
    return written, previews


def _record(bank: MemoryBank, result: DraftResult) -> dict[str, Any]:
    ledger = Ledger.of_bank(bank.repo_root, bank.rel_root)
    if not ledger.exists():
        return {}
    actor = Actor(kind=ActorKind.agent, name=f"aidlc draft ({result.model or result.target or 'model'})")
    data = {"level": result.level, "model": result.model, "target": result.target, "mode": result.mode,
            "rounds": result.rounds, "prompt_sha256": result.prompt_sha256,
            "usage": result.usage.to_dict(),
            "created": result.written.created, "updated": result.written.updated}
    return ledger.append(EventType.draft_proposed, actor, subject=Subject(kind="intent", id=result.intent),
                         data=data).event
