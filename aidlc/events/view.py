"""The one view of the ledger a command works with, built once: the chain's state (from the checkpoint
when it vouches for the file, see `checkpoint`), the gate history it implies, and, only for the
commands that look at every event, the events themselves and the checks beyond the hash.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from aidlc import vcs
from aidlc.errors import AidlcError
from aidlc.events.canonical import canonical_events, parse_event, why_not_event
from aidlc.events.decisions import Decided, DecisionIndex, GateKey
from aidlc.events.ledger import LEDGER_FILE, Ledger, LedgerError, no_ledger
from aidlc.events.state import LedgerState, scan
from aidlc.events.verify import CHAIN_KINDS, EventChecks, Problem, Verification, split_lines, verify_lines
from aidlc.model.events import Decision, Event
from aidlc.model.types import instant
from aidlc.names import arg


class GateHistory:
    """The standing decisions of every gate, read from the ledger as they are asked for."""

    def __init__(self, index: DecisionIndex, read: Callable[[Decided], Event],
                 created_ts: str | None = None) -> None:
        self.index = index
        self.created_ts = created_ts  # when the ledger was created (for banks adopted from elsewhere)
        self._read = read
        self._events: dict[int, Event] = {}

    def event(self, decided: Decided) -> Event:
        if decided.line not in self._events:
            self._events[decided.line] = self._read(decided)
        return self._events[decided.line]

    def gates(self) -> Iterator[GateKey]:
        return iter(list(self.index.heads))

    def heads(self, kind: str, subject_id: str, stage: str) -> list[Decided]:
        return list(self.index.heads.get((kind, subject_id, stage), []))

    def latest(self, kind: str, subject_id: str, stage: str) -> Event | None:
        """The gate's decision; None when it has none, or when branches decided it differently."""
        standing = self.index.standing((kind, subject_id, stage))
        return self.event(standing) if standing is not None else None

    def conflict(self, kind: str, subject_id: str, stage: str) -> list[Event] | None:
        """The disagreeing decisions of branches that did not know of each other, or None."""
        found = self.index.conflict((kind, subject_id, stage))
        return [self.event(d) for d in found] if found is not None else None

    def conflicts(self) -> Iterator[tuple[GateKey, list[Event]]]:
        for key, found in self.index.conflicts():
            yield key, [self.event(d) for d in found]

    def approved(self, kind: str, subject_id: str, stage: str) -> bool:
        last = self.latest(kind, subject_id, stage)
        return last is not None and last.decision == Decision.approve

    def last_of(self, kind: str, subject_id: str) -> Event | None:
        """The decision of the subject (any stage) that stands last in the file."""
        heads = [d for (k, s, _), found in self.index.heads.items() if (k, s) == (kind, subject_id) for d in found]
        return self.event(max(heads, key=lambda d: d.line)) if heads else None


def describe_conflict(decided: list[Event]) -> str:
    """How branches decided a gate: "decided 'approve' (seq 7 by Ada) and 'reject' (seq 7 by Bob) on ..."."""
    sides = " and ".join(f"'{e.decision}' (seq {e.seq} by {e.actor.name})" for e in decided)
    return f"decided {sides} on branches that did not know of each other"


class LedgerView:
    """A ledger as one command sees it. `error` says why it cannot be read (then nothing is in it)."""

    def __init__(self, ledger: Ledger, state: LedgerState | None = None, error: LedgerError | None = None,
                 data: bytes | None = None) -> None:
        self.ledger = ledger
        self.state = state or LedgerState()
        self.error = error
        self._data = data  # a ledger held in memory (the merge driver's sides), read from there
        # (the state's size when read, the events, the lines without one)
        self._events: tuple[int, list[tuple[int, Event]], list[NotAnEvent]] | None = None

    @property
    def problems(self) -> list[Problem]:
        """What the check of the chain found (errors, and a note for a last line without its newline)."""
        return self.state.problems

    @property
    def first_error(self) -> Problem | None:
        return next((problem for problem in self.state.problems if problem.is_error), None)

    @cached_property
    def history(self) -> GateHistory:
        return GateHistory(self.state.decisions, self._read, self.state.created)

    @property
    def created(self) -> datetime | None:
        return instant(self.state.created)

    def tip_line(self) -> int:
        return self.state.tip_line

    def _read(self, decided: Decided) -> Event:
        if self._data is None:
            return self.ledger.read_event(decided)
        event = parse_event(self._data[decided.offset:decided.offset + decided.length])
        assert event is not None, "a decision the scan read from these bytes"
        return event

    def _lines(self) -> Iterator[bytes]:
        if self._data is not None:
            return iter(split_lines(self._data))
        return self.ledger.lines() if self.error is None else iter(())

    @property
    def events(self) -> list[tuple[int, Event]]:
        """Every well-formed event with its line (damaged lines are left out): for rules about each event, and the
        evidence."""
        return self._parsed()[0]

    @property
    def not_events(self) -> list[NotAnEvent]:
        """The lines that joined the chain but hold no event (a line the chain reports is not one of them)."""
        return self._parsed()[1]

    def _parsed(self) -> tuple[list[tuple[int, Event]], list[NotAnEvent]]:
        """Every line parsed once, when a command first asks for its events (most commands never do); read again
        when appends through the ledger have added to the state since."""
        if self._events is None or self._events[0] != self.state.size:
            reported = {problem.line for problem in self.state.problems if problem.kind in CHAIN_KINDS}
            not_events: list[NotAnEvent] = []
            self._events = (self.state.size, list(read_events(self._lines(), not_events, reported)), not_events)
        return self._events[1], self._events[2]

    def current(self) -> bool:
        """Whether the view still shows the ledger file as it is: nobody wrote to it since it was read, but through
        this view's `ledger` (whose appends add to the state the view holds)."""
        return self._data is None and self.error is None and self.ledger.held_state() is self.state

    def now(self) -> LedgerView:
        """This view if it is `current`, else the ledger's view opened again."""
        return self if self.current() else open_view(self.ledger)

    @cached_property
    def audit(self) -> Verification:
        """Every problem of every line, the checks beyond the hash included (time and commit)."""
        if self.error is not None:
            return Verification()
        return verify_lines(self._lines, checks=event_checks(self.ledger.repo_root))


def event_checks(repo_root: Path, now: datetime | None = None) -> EventChecks:
    """The checks beyond the hash, with the repository's commits to look `commit` up in."""
    return EventChecks(now or datetime.now(UTC), lambda commits: vcs.missing_commits(repo_root, commits))


def open_view(ledger: Ledger, keep: bool = False) -> LedgerView:
    """The view of a ledger that exists; a LedgerError if it cannot be read. `keep`: see `Ledger.state`."""
    return LedgerView(ledger, ledger.state(keep))


def view_of_bytes(data: bytes) -> LedgerView:
    """The view of a ledger held in memory (the merge driver's)."""
    lines = split_lines(data)
    return LedgerView(Ledger(Path(LEDGER_FILE), Path()), scan(lambda: iter(lines)), data=data)


def verified_ledger(repo_root: str, bank_root: str, records: str) -> Ledger:
    """The bank's ledger, for a command about to record in it (`records`: what it records and what it holds
    back, as the error says it): it must be there and its chain intact, else nothing is started."""
    return verified(Ledger.of_bank(repo_root, bank_root), records, open_view).ledger


def verified(ledger: Ledger, records: str, view: Callable[[Ledger], LedgerView]) -> LedgerView:
    """`verified_ledger`'s check, of the view `view` gives (opens, or one the command holds already); that view."""
    if not ledger.exists():
        raise no_ledger(ledger)
    found = view(ledger)
    problem = found.first_error
    if problem is not None:
        raise AidlcError(f"{ledger.rel}:{problem.line}: {problem.kind}: {problem.message}; {records} while the "
                         "ledger does not verify",
                         ["aidlc log verify    # the first problem, in full", f"git log -p -- {arg(ledger.rel)}"])
    return found


@dataclass(frozen=True)
class NotAnEvent:
    """A line that is chained and hashed but holds no event, or one in a form aidlc never writes: every reader
    leaves the first out, and the second shows a reviewer of its diff other bytes than the event readers take."""

    line: int
    message: str

    @staticmethod
    def next_step(rel: str) -> str:
        return f"git log -p -- {arg(rel)}    # who wrote the line; restore the file from the last good commit"


def read_events(lines: Iterable[bytes], not_events: list[NotAnEvent],
                reported: Container[int] = frozenset()) -> Iterator[tuple[int, Event]]:
    """Every event of `lines` with its line number, as it is read; each line that holds none, or is not the
    canonical form of its JSON, is added to `not_events` with what is wrong with it, unless `reported` holds its
    number (the chain's problems)."""
    for number, (line, event) in enumerate(canonical_events(lines), start=1):
        if event is not None:
            yield number, event
        elif number not in reported:
            why = f"holds no ledger event ({why_not_event(line)})" if parse_event(line) is None else (
                "is not in the one form aidlc writes an event in (canonical JSON: keys sorted and each once, no "
                "spaces): it was written by hand, and what a reader of its diff sees may not be what aidlc reads")
            not_events.append(NotAnEvent(number, f"the line {why}"))


def readable_view(ledger: Ledger) -> LedgerView:
    """The view of a ledger that exists; one that cannot be read (a folder, no permission) is a view with its
    `error` and nothing in it, for a rule to report."""
    try:
        return open_view(ledger)
    except LedgerError as exc:
        return LedgerView(ledger, error=exc)
