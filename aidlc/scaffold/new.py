"""`aidlc new`: create one artifact from its template with the next free number and valid links."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc.bank.config import refuse_other_bank
from aidlc.bank.index import BankIndex, find_bolt
from aidlc.bank.items import STATEMENT_PLACEHOLDER, Intent, MemoryBank, StoryItem, Unit, strip_number
from aidlc.bank.write import read_text, set_front_matter
from aidlc.bolt.plan import ALL_STORIES, NO_RISKS, PLAN_FILE
from aidlc.errors import UsageError
from aidlc.events import journal
from aidlc.model.types import BoltType, Priority, Risk
from aidlc.names import arg, gate_command, id_number
from aidlc.scaffold import fields
from aidlc.scaffold.clock import now, now_utc
from aidlc.scaffold.storyindex import STORY_INDEX, render_story_index
from aidlc.templating import render
from aidlc.workspace import open_bank

_NUMBERED = re.compile(r"^(\d+)[-_]")


@dataclass
class Created:
    id: str
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    next_steps: list[str] = field(default_factory=list)


def slugify(title: str, limit: int = 48) -> str:
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    slug = slug[:limit].rstrip("-")
    if not slug:
        raise UsageError(f"the title {title!r} has no letters or digits to make a file name from",
                         ["give a title with letters or digits"])
    return slug


def _journalled(method: Callable[..., Created]) -> Callable[..., Created]:
    """A creator whose writes all happen, or none (see `Creator.writes`)."""
    @functools.wraps(method)
    def create(self: Creator, *args: Any, **kwargs: Any) -> Created:
        with self.writes():
            return method(self, *args, **kwargs)
    return create


def next_number(names: list[str]) -> str:
    numbers = [int(m.group(1)) for name in names if (m := _NUMBERED.match(name))]
    return f"{max(numbers, default=0) + 1:03d}"


class Creator:
    """Creates artifacts in one repo; every link is checked against the bank before writing."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bank: MemoryBank = open_bank(root)
        self.repo = Path(self.bank.repo_root)
        refuse_other_bank(self.repo, self.bank.rel_root)
        self.bank_dir = self.repo / self.bank.rel_root
        self.index = BankIndex(self.bank)
        self._journal: journal.Journal | None = None

    # -- lookups that refuse dangling links -------------------------------------------------
    def intent(self, ref: str | None) -> Intent:
        if not ref:
            if len(self.bank.intents) == 1:
                return self.bank.intents[0]
            raise UsageError("which intent? pass --intent", self._choices("intent", [i.id for i in self.bank.intents]))
        intent = self.index.intent_named(ref)  # `--intent 1`, `001`, `checkout` or `001-checkout`
        if intent is None:
            raise UsageError(f"no intent {ref!r}", self._choices("intent", [i.id for i in self.bank.intents]))
        return intent

    def unit(self, ref: str, intent_ref: str | None) -> Unit:
        intent = self.intent(intent_ref) if intent_ref else None
        unit = self.index.unit_named(ref, intent)  # `--unit 001` within the intent, as `--intent 001` is named
        if unit is None or (intent is not None and unit.intent is not intent):
            names = [u.id for u in (intent.units if intent else self.bank.units)]
            raise UsageError(f"no unit {ref!r}" + (f" in intent {intent.id}" if intent else ""),
                             self._choices("unit", names))
        return unit

    def requirements(self, intent: Intent, refs: list[str]) -> list[str]:
        missing = [ref for ref in refs if not intent.defines(ref)]
        if missing:
            raise UsageError(
                f"intent {intent.id} does not define {', '.join(missing)}",
                [f"aidlc new requirement \"TITLE\" --intent {arg(intent.id)}    # define it first",
                 f"defined: {', '.join(sorted(intent.requirement_ids)) or 'none yet'}"],
            )
        return refs

    def story(self, ref: str, unit: Unit) -> StoryItem:
        story = self.index.story(ref, unit)
        if story is None or story.unit is not unit:
            raise UsageError(f"unit {unit.id} has no story {ref!r}",
                             self._choices("story", [s.stem for s in unit.stories]))
        return story

    @staticmethod
    def _choices(kind: str, names: list[str]) -> list[str]:
        if not names:
            return [f"aidlc new {kind} \"TITLE\" ...    # there is none yet"]
        shown = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
        return [f"existing: {shown}", "aidlc status    # the whole chain"]

    # -- creators ------------------------------------------------------------------------------
    @_journalled
    def new_intent(self, title: str, statement: str | None) -> Created:
        title, statement = fields.line("title", title), fields.paragraphs("statement", statement)
        folder = f"{next_number([i.id for i in self.bank.intents])}-{slugify(title)}"
        base = self.bank_dir / "intents" / folder
        context = {"intent_id": folder, "title": title, "statement": statement, "now": now(),
                   "placeholder": STATEMENT_PLACEHOLDER}
        created = Created(id=folder)
        for name in ("requirements.md", "system-context.md", "units.md"):
            created.created.append(self._write(base / name, render(f"artifacts/{name}.j2", **context)))
        created.next_steps = [f"aidlc new requirement \"TITLE\" --intent {arg(folder)} --priority must"]
        return created

    @_journalled
    def new_requirement(self, title: str, intent_ref: str | None, kind: str, priority: Priority,
                        criteria: list[str], description: str | None) -> Created:
        title, description = fields.line("title", title), fields.paragraphs("description", description)
        criteria = [fields.line("criterion", criterion) for criterion in criteria]
        intent = self.intent(intent_ref)
        if intent.requirements_doc is None:
            raise UsageError(f"intent {intent.id} has no requirements.md",
                             [f"aidlc validate    # see what is wrong with {intent.rel}"])
        # `FR-3` and `FR-3.1` count as 3; a number `id_number` refuses (thousands of digits) counts as none
        numbers = [number for r in intent.requirements if r.id.startswith(f"{kind}-")
                   and (number := id_number(r.id[len(kind) + 1:].split(".")[0])) is not None]
        requirement_id = f"{kind}-{max(numbers, default=0) + 1}"
        block = render("artifacts/requirement.md.j2", requirement_id=requirement_id, title=title,
                       priority=priority.value, criteria=criteria, description=description)
        path = self.repo / intent.requirements_doc.rel
        text = _insert_requirement(read_text(path, self.repo), kind, block)
        if intent.requirements_meta is not None:
            text = set_front_matter(text, {"updated": now_utc()}, intent.requirements_doc.rel)
        self._put(path, text)  # one write: the block and the date land together or not at all
        result = Created(id=f"{intent.id}/{requirement_id}", updated=[intent.requirements_doc.rel])
        first_unit = intent.units[0].id if intent.units else None
        result.next_steps = [
            f"aidlc new story \"TITLE\" --intent {arg(intent.id)} --unit {arg(first_unit)} "
            f"--requirements {arg(requirement_id)}"
            if first_unit else
            f"aidlc new unit \"TITLE\" --intent {arg(intent.id)} --requirements {arg(requirement_id)}"
        ]
        return result

    @_journalled
    def new_unit(self, title: str, intent_ref: str | None, requirements: list[str], purpose: str | None) -> Created:
        title, purpose = fields.line("title", title), fields.paragraphs("purpose", purpose)
        intent = self.intent(intent_ref)
        self.requirements(intent, requirements)
        folder = f"{next_number([u.id for u in intent.units])}-{slugify(title)}"
        path = self.bank_dir / "intents" / intent.id / "units" / folder / "unit-brief.md"
        text = render("artifacts/unit-brief.md.j2", unit_id=folder, intent_id=intent.id, title=title,
                      requirements=requirements, purpose=purpose, now=now())
        units_md = self.bank_dir / "intents" / intent.id / "units.md"
        table = read_text(units_md, self.repo) if units_md.exists() else None  # read before anything is written
        result = Created(id=folder, created=[self._write(path, text)])
        if table is not None:
            row = f"| {folder} | {', '.join(requirements) or '—'} |\n"
            self._put(units_md, table + ("" if table.endswith("\n") else "\n") + row)
            result.updated.append(self._rel(units_md))
        result.next_steps = [f"aidlc new story \"TITLE\" --intent {arg(intent.id)} --unit {arg(folder)}"
                             + (f" --requirements {requirements[0]}" if requirements else "")]
        return result

    @_journalled
    def new_story(self, title: str, intent_ref: str | None, unit_ref: str, requirements: list[str],
                  priority: Priority, criteria: list[str], as_a: str | None, so_that: str | None,
                  i_want: str | None = None) -> Created:
        title, as_a, so_that = fields.line("title", title), fields.line("as-a", as_a), fields.line("so-that", so_that)
        i_want = fields.line("i-want", i_want)
        criteria = [fields.line("criterion", criterion) for criterion in criteria]
        unit = self.unit(unit_ref, intent_ref)
        assert unit.intent is not None
        self.requirements(unit.intent, requirements)
        stem = f"{next_number([s.stem for s in unit.stories])}-{slugify(title)}"
        path = self.bank_dir / "intents" / unit.intent.id / "units" / unit.id / "stories" / f"{stem}.md"
        text = render("artifacts/story.md.j2", story_id=stem, unit_id=unit.id, intent_id=unit.intent.id,
                      title=title, requirements=requirements, priority=priority.value, criteria=criteria,
                      as_a=as_a, i_want=i_want, so_that=so_that, now=now())
        result = Created(id=stem, created=[self._write(path, text)])
        result.updated.append(self.refresh_story_index())
        result.next_steps = [f"aidlc new bolt --intent {arg(unit.intent.id)} --unit {arg(unit.id)} "
                             f"--stories {arg(stem)}"]
        return result

    @_journalled
    def new_bolt(self, intent_ref: str | None, unit_ref: str, stories: list[str], bolt_type: BoltType, risk: Risk,
                 requires: list[str], scope: list[str], objective: str | None) -> Created:
        objective = fields.paragraphs("objective", objective)
        unit = self.unit(unit_ref, intent_ref)
        assert unit.intent is not None
        if not stories:
            raise UsageError("a bolt needs at least one story: pass --stories",
                             self._choices("story", [s.stem for s in unit.stories]))
        chosen = [self.story(ref, unit) for ref in stories]
        for ref in requires:
            if self.index.bolt(ref) is None:
                raise UsageError(f"no bolt {ref!r} to require", self._choices("bolt", [b.id for b in self.bank.bolts]))
        folder = f"{next_number([b.folder for b in self.bank.bolts])}-{strip_number(unit.id)}"
        path = self.bank_dir / "bolts" / folder / "bolt.md"
        text = render("artifacts/bolt.md.j2", bolt_id=folder, unit_id=unit.id, intent_id=unit.intent.id,
                      bolt_type=bolt_type.value, stories=[s.stem for s in chosen], requires=requires,
                      risk=risk.value, scope=scope, objective=objective, now=now())
        # Every story's new text first: one that cannot take `assigned_bolt` stops the command before any write.
        assigned = {story.rel: set_front_matter(read_text(self.repo / story.rel, self.repo),
                                                {"assigned_bolt": folder}, story.rel) for story in chosen}
        result = Created(id=folder, created=[self._write(path, text)])
        for rel, story_text in assigned.items():
            self._put(self.repo / rel, story_text)
            result.updated.append(rel)
        result.updated.append(self.refresh_story_index())
        result.next_steps = ["aidlc validate", "aidlc status"]
        return result

    @_journalled
    def new_plan(self, bolt_ref: str) -> Created:
        """The template of the bolt's implementation-plan.md, for a person who plans the bolt themselves."""

        bolt = find_bolt(self.bank, bolt_ref)
        meta = bolt.meta
        verify = self.bank.config.verify
        text = render("artifacts/implementation-plan-template.md.j2", bolt_id=bolt.id, all_stories=ALL_STORIES,
                      no_risks=NO_RISKS, scope=meta.scope if meta else [],
                      risk=meta.risk.value if meta and meta.risk else "low",
                      test_command=verify[-1].run if verify else "the command that runs the tests")
        path = self.repo / Path(bolt.rel).parent / PLAN_FILE
        if path.exists() or path.is_symlink():
            raise UsageError(f"{self._rel(path)} exists already; aidlc new never overwrites a file",
                             [f"edit {self._rel(path)}",
                              f"{gate_command(bolt.id, 'plan')}    # when done"])
        result = Created(id=bolt.id, created=[self._write(path, text)])
        result.next_steps = [f"edit {result.created[0]}", gate_command(bolt.id, 'plan')]
        return result

    # -- helpers -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the bank after a change, so the next creation numbers and links against it."""
        self.bank = open_bank(self.root, as_found=True)  # as it is: this very command is writing it
        self.index = BankIndex(self.bank)

    @contextmanager
    def writes(self, key: str | None = None) -> Iterator[journal.Journal]:
        """One journal for every write of a command, all or nothing (nested calls share it).
        `key`: the command records a ledger event with it last (events/journal.py)."""
        if self._journal is not None:
            yield self._journal
            return
        with journal.writing(self.repo, self.bank.rel_root, key) as self._journal:
            try:
                yield self._journal
            finally:
                self._journal = None

    def _put(self, path: Path, text: str) -> None:
        assert self._journal is not None, "every write of the creator goes through its journal"
        self._journal.write(path, text)

    def refresh_story_index(self) -> str:
        """Re-read the bank (it just changed) and rewrite the generated story index."""
        self.refresh()
        path = self.bank_dir / STORY_INDEX
        self._put(path, render_story_index(self.bank))
        return self._rel(path)

    def _write(self, path: Path, text: str) -> str:
        if path.exists():
            raise UsageError(f"{self._rel(path)} already exists; aidlc new never overwrites a file",
                             ["choose another title"])
        self._put(path, text)
        return self._rel(path)

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.repo).as_posix()


def _insert_requirement(text: str, kind: str, block: str) -> str:
    """Append the block at the end of its section (Functional / Non-Functional), else at the end."""
    heading = "## Non-Functional Requirements" if kind == "NFR" else "## Functional Requirements"
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip().lower() == heading.lower()), None)
    if start is None:
        return text.rstrip("\n") + "\n" + block
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    before, after = "\n".join(lines[:end]), "\n".join(lines[end:])
    return before + "\n" + block + ("\n" + after if after.strip() else "\n")
