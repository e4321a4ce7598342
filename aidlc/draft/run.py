"""Drafting one level of an intent with an LLM: context, proposal, checks, files, ledger event.

AI proposes, a person validates: everything written is `status: draft` (or appended as a new
requirement), the run records a `draft.proposed` event by an *agent* actor (model, prompt
digest, files; never prompt text), and the result names the gate command a person runs to
accept the level. A proposal the bank would refuse is sent back to the model with the reasons,
at most `rounds` times, and is never written half-way.

The draft is first written whole into a copy of the bank (`Plan`): what it shows (a dry run's
preview, the files it reports) is exactly what it then writes, byte for byte, through a journal
(events/journal.py) whose commit is the ledger event: kill -9 at any point leaves the bank as it
was or as drafted, never between. The ledger must exist and verify before any of it starts.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc.bank.items import Intent, MemoryBank
from aidlc.bank.walk import CONFIG_FILE, read_inside
from aidlc.draft.apply import Written, problems, write
from aidlc.draft.proposals import GATE_OF, PROPOSALS, Level
from aidlc.errors import AidlcError, UsageError
from aidlc.events import journal
from aidlc.events.ledger import Ledger
from aidlc.events.view import verified_ledger
from aidlc.llm.base import Message, Provider, Usage
from aidlc.llm.context import ContextPiece, Fitted, fit_context
from aidlc.llm.errors import LLMBadOutput
from aidlc.llm.prompts import render_prompt, system_message
from aidlc.llm.structured import complete_structured
from aidlc.model.events import Actor, ActorKind, Event, EventType, Subject
from aidlc.names import arg, gate_command
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
class Plan:
    """A draft written whole into a copy of the bank: each file it creates or changes, as it will be."""

    written: Written
    texts: dict[str, str]  # path relative to the repo -> the whole new text
    before: dict[str, bytes | None]  # the file as the draft was computed from (None: it did not exist)

    def previews(self) -> list[Preview]:
        shown = [Preview(rel, "created", self.texts[rel]) for rel in self.written.created]
        for rel in self.written.updated:
            old = (self.before[rel] or b"").decode("utf-8").splitlines(keepends=True)
            new = self.texts[rel].splitlines(keepends=True)
            shown.append(Preview(rel, "updated", "".join(difflib.unified_diff(old, new, rel, rel))))
        return shown


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
    event: Event | None = None
    errors_after: int = 0
    context_trimmed: str | None = None  # what the model did not see of the context (None: it saw all of it)


class DraftRejected(LLMBadOutput):
    """The model kept proposing what the bank would refuse; nothing was written."""


def draft(root: Path, level: Level, intent_ref: str, provider: Provider, *, dry_run: bool = False,
          budget_tokens: int = 12_000, max_tokens: int = 4096, rounds: int = 3) -> DraftResult:
    creator = Creator(root)
    intent = creator.intent(intent_ref)
    _require_previous_level(intent, level)
    # Before a token is spent or a byte written.
    ledger = None if dry_run else verified_ledger(
        creator.bank.repo_root, creator.bank.rel_root, "aidlc draft records its proposal there and writes nothing")
    schema = PROPOSALS[level]
    conversation, fitted = build_messages(creator.bank, intent, level, budget_tokens)
    digest = hashlib.sha256(json.dumps([m.to_dict() for m in conversation], sort_keys=True).encode()).hexdigest()
    usage, found, used = Usage(), [], 0
    for used in range(1, rounds + 1):  # noqa: B007 - `used` is read after the loop
        answer = complete_structured(provider, conversation, schema, max_tokens=max_tokens)
        usage = usage + answer.usage
        found = problems(creator, intent, answer.value)
        if not found:
            try:  # the whole write, into a copy of the bank first: the real one is written all or nothing
                plan = _plan(creator, intent, answer.value)
            except AidlcError as exc:  # e.g. a title that makes no file name: the model can fix that too
                found = [exc.message]
            else:
                break
        conversation = [*conversation, Message("assistant", answer.raw),
                        Message("user", render_prompt("draft_fix.md.j2", problems=found, level=level))]
    else:
        raise DraftRejected(f"after {rounds} rounds the model still proposed {level} the memory bank refuses: "
                            f"{found[0]}", raw=answer.raw, errors=found)
    result = DraftResult(level=level, intent=intent.id, written=plan.written, dry_run=dry_run,
                         model=answer.completion.model, target=answer.completion.target, mode=answer.mode,
                         rounds=used, usage=usage, prompt_sha256=digest,
                         gate_command=gate_command(intent.id, GATE_OF[level]),
                         previews=plan.previews(), context_trimmed=fitted.trimmed())
    if ledger is None:
        return result
    result.event = _apply(creator.bank, plan, ledger, result)
    creator.refresh()
    written = set(plan.texts)
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
                         [command.format(intent=arg(intent.id))])


def build_messages(bank: MemoryBank, intent: Intent, level: str, budget_tokens: int) -> tuple[list[Message], Fitted]:
    """The system rules, then the task with the intent's files as untrusted data, fitted to the budget (and
    what the fitting left out or cut)."""
    fitted = fit_context(context_pieces(bank, intent, level), budget_tokens)
    task = f"propose the {level} of intent {intent.id}"
    user = render_prompt("draft.md.j2", level=level, intent=intent.id, context=fitted.render(),
                         units=[u.id for u in intent.units],
                         requirements=sorted(intent.requirement_ids),
                         stories={u.id: [s.stem for s in u.stories] for u in intent.units})
    return [system_message(task), Message("user", user)], fitted


def context_pieces(bank: MemoryBank, intent: Intent, level: str) -> list[ContextPiece]:
    repo = Path(bank.repo_root)

    def piece(rel: str, priority: int, required: bool = False) -> ContextPiece | None:
        path = repo / rel
        if not path.exists() and not path.is_symlink():
            return None
        try:  # never a file through a link leading outside the repository, never a FIFO
            text = read_inside(path, repo).decode("utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"{rel}: cannot be read ({exc.strerror or exc}); aidlc sends a model only the "
                             "repository's own regular files", [f"aidlc validate    # what is wrong with {rel}"]) \
                from None
        return ContextPiece(rel, text, priority, required)

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


def _plan(creator: Creator, intent: Intent, proposal: Any) -> Plan:
    """Write the proposal into a copy of the bank, and keep what it wrote: the real files stay untouched."""
    repo = Path(creator.bank.repo_root)
    with tempfile.TemporaryDirectory(prefix="aidlc-draft-") as scratch:
        copy = Path(scratch) / "repo"
        _copy_regular_files(repo, creator.bank.rel_root, copy)
        written = write(Creator(copy), intent, proposal)
        texts = {rel: (copy / rel).read_text(encoding="utf-8") for rel in written.created + written.updated}
    before = {rel: None if rel in written.created else read_inside(repo / rel, repo) for rel in texts}
    return Plan(written, texts, before)


def _copy_regular_files(repo: Path, bank: str, copy: Path) -> None:
    """aidlc.yaml and the bank's regular files and folders, as the loader reads them: a link is copied
    as what it leads to inside the repository; a link leading outside, a FIFO or a device is left out."""
    for rel in (CONFIG_FILE, *_bank_files(repo, bank)):
        try:
            data = read_inside(repo / rel, repo)
        except OSError:
            continue
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes(data)
    (copy / bank).mkdir(parents=True, exist_ok=True)


def _bank_files(repo: Path, bank: str) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(repo / bank):  # does not follow linked folders
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = Path(folder) / name
            if stat.S_ISREG(path.lstat().st_mode) or path.is_symlink():
                found.append(path.relative_to(repo).as_posix())
    return found


def _apply(bank: MemoryBank, plan: Plan, ledger: Ledger, result: DraftResult) -> Event:
    """Write the plan, all or nothing; the ledger event that records it is the journal's commit."""
    repo = Path(bank.repo_root)
    key = journal.new_key()
    with journal.writing(repo, bank.rel_root, key) as writes:
        for rel, text in plan.texts.items():
            path = repo / rel
            now = read_inside(path, repo) if path.exists() or path.is_symlink() else None
            if now != plan.before[rel]:
                raise AidlcError(f"{rel} changed while the draft was being made; nothing was written",
                                 ["rerun the aidlc draft command"])
            writes.write(path, text)
        actor = Actor(kind=ActorKind.agent, name=f"aidlc draft ({result.model or result.target or 'model'})")
        data = {"level": result.level, "model": result.model, "target": result.target, "mode": result.mode,
                "rounds": result.rounds, "prompt_sha256": result.prompt_sha256, "usage": result.usage.to_dict(),
                "created": plan.written.created, "updated": plan.written.updated, "kept": sorted(plan.written.kept)}
        return ledger.append(EventType.draft_proposed, actor, subject=Subject(kind="intent", id=result.intent),
                             data=data, key=key).event
