"""One run as this process drives it: the run's state and store, the bank it reads, and the bookkeeping every
step shares (save, trace, move, ledger events). The loop (aidlc.bolt.run) and the modules it calls take it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc.bank.items import BoltItem, MemoryBank
from aidlc.bolt import plan as plans
from aidlc.bolt.machine import transition
from aidlc.bolt.store import RunStore
from aidlc.events.ledger import Ledger, utc_now
from aidlc.events.view import LedgerView
from aidlc.llm.base import Provider
from aidlc.model.events import Actor, ActorKind, Decision, Event, EventType, Subject
from aidlc.model.run import RunState, RunStatus, Span
from aidlc.workspace import Workspace

S = RunStatus


@dataclass
class Outcome:
    state: RunState
    exit_code: int  # 0 done, 1 failed, 3 waiting for a person
    message: str
    next_steps: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GateQuestion:
    """What a person at a terminal is shown at a gate: the file to judge and the gist of it."""

    stage: str  # plan | walkthrough
    bolt: str
    path: str  # the file the gate judges, relative to the repository
    summary: str
    files: list[str]
    risks: list[str]
    after_reject: str  # what a rejection does


@dataclass(frozen=True)
class GateAnswer:
    decision: Decision
    reason: str | None = None


# Asks a person at the gate (the CLI supplies it at a terminal); None: no decision now, the run pauses.
Ask = Callable[[GateQuestion], GateAnswer | None]


class Paused(Exception):
    def __init__(self, kind: str, reason: str, next_steps: list[str]) -> None:
        super().__init__(reason)
        self.kind, self.reason, self.next_steps = kind, reason, next_steps


class Failed(Exception):
    """The run cannot reach its goal: it ends FAILED with a partial walkthrough."""


class RunSession:
    def __init__(self, workspace: Workspace, store: RunStore, state: RunState, provider: Callable[[], Provider],
                 ask: Ask | None = None) -> None:
        self.workspace, self.store, self.state = workspace, store, state
        self.bolt = workspace.bolt(state.bolt)
        self.repo, self.config = workspace.root, workspace.config
        self.ask = ask
        self._provider_factory = provider
        self._provider: Provider | None = None
        self.bolt_dir = Path(self.bolt.rel).parent.as_posix()
        self._tick = time.monotonic()
        # aidlc's own files (the bolt's stories among them) as this process found them when it took the run over.
        self.own_files = own_files(workspace, self.bolt)
        # The step in progress when this process took the run over may be partly done (a kill, a pause): its
        # commit is looked for by its trailers. Each later step starts from a state this process saved.
        self.continuing = True

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = self._provider_factory()
        return self._provider

    @property
    def bank(self) -> MemoryBank:
        return self.workspace.bank

    @property
    def ledger(self) -> Ledger:
        return self.workspace.ledger

    def refresh(self, view: LedgerView | None = None) -> Workspace:
        """The bank and the ledger as they are on disk now: called where a person (while the model answered, the
        checks ran or a question waited) or a gate decision may have changed them since they were read. `view`: the
        ledger as a gate decision left it (`Workspace.refreshed`)."""
        self.workspace = self.workspace.refreshed(view)
        self.bolt = self.workspace.bolt(self.state.bolt)
        return self.workspace

    def save(self, durable: bool = False) -> None:
        self.tick()
        self.store.save(self.state, durable)

    def tick(self) -> None:
        """Count the seconds of work since the last tick (a pause between processes is not counted)."""
        now = time.monotonic()
        self.state.budget.elapsed_s += now - self._tick
        self._tick = now

    def restart_clock(self) -> None:
        """The time since the last tick (a person answering a question) is not the run's work."""
        self._tick = time.monotonic()

    def span(self, kind: str, name: str, **fields: Any) -> None:
        self.store.trace(Span(ts=utc_now(), kind=kind, name=name, **fields))  # type: ignore[arg-type]  # span kinds are the Literal's words

    def move(self, to: RunStatus, why: str) -> None:
        self.tick()
        transition(self.state, to, self.store, why)

    def actor(self) -> Actor:
        return Actor(kind=ActorKind.agent, name=f"aidlc bolt ({self.state.model or 'model'})")

    def event(self, event_type: EventType, milestone: str, data: dict[str, Any] | None = None,
              **fields: Any) -> Event:
        """Each milestone records what the run had spent by then, as its state.json holds it for good (RunStore.spent):
        a state.json counting less later, which code a check ran can write, is refused (aidlc.bolt.guards)."""
        return self.ledger.append(event_type, self.actor(), key=f"run:{self.state.run_id}:{milestone}",
                                  subject=Subject(kind="bolt", id=self.state.bolt), run=self.state.run_id,
                                  data={**(data or {}), "spent": self.store.spent.model_dump()}, **fields).event

    def recorded(self, milestone: str | Callable[[int], str]) -> int:
        """How many numbered milestones (`paused:1`, `paused:2`, ..., or those `milestone(1)`, `milestone(2)`, ...
        name) the ledger holds for this run in a row: a count in state.json is the run's notebook, and numbering
        from a count written lower would reuse a key, and the idempotent append would drop the event."""
        key = milestone if callable(milestone) else lambda number: f"{milestone}:{number}"
        count = 0
        while self.ledger.find_key(f"run:{self.state.run_id}:{key(count + 1)}") is not None:
            count += 1
        return count

    def stage(self, name: str, rework: int | None = None) -> str:
        """A step's name in its commit's trailers, its ledger keys and its files: unique within the run, so a
        rework round (after a rejected walkthrough) carries its number: execute, rework-1.execute, ... `rework`:
        the name in that round, not the run's current one."""
        reworks = len(self.state.reworks) if rework is None else rework
        return f"rework-{reworks}.{name}" if reworks else name

    def own_existing(self) -> set[str]:
        """aidlc's own files a step commits with its edits: those that exist (git adds an unchanged one as a no-op;
        a person's removal of one is theirs to commit)."""
        return {rel for rel in self.own_files if (self.repo / rel).exists() or (self.repo / rel).is_symlink()}

    def planned(self) -> list[str]:
        """The files of the plan, as paths relative to the repository."""
        plan = self.state.plan
        return [p for f in plan.files if (p := plans.normal(f.path))] if plan else []


def own_files(workspace: Workspace, bolt: BoltItem) -> set[str]:
    """What aidlc itself changes during a run (and a person's gate decision while it waits): never dirty."""
    folder = Path(bolt.rel).parent.as_posix()
    stories = [s.rel for s in workspace.index.stories_of(bolt)]
    return {workspace.ledger.rel, bolt.rel, f"{folder}/{plans.PLAN_FILE}", f"{folder}/{plans.WALKTHROUGH_FILE}",
            *stories}


def leftover(rel: str, own: set[str]) -> bool:
    """The temporary file of an atomic write of one of aidlc's own files that a kill left behind."""
    folder, _, name = rel.rpartition("/")
    return name.startswith(".") and name.endswith(".tmp") and any(
        o.rpartition("/")[0] == folder and name.startswith(f".{o.rpartition('/')[2]}.") for o in own)
