"""Ledger rules: the chain is intact, every line of it holds an event, every event is plausible beyond its
hash, gate decisions judged bytes that have not changed since, and branches did not decide a gate differently.
The view of the ledger the rules of one run share is built here, once per run. (Whether completions are backed
by decisions: `claims`; who decided, and with which key: `approvals`.)"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from types import ModuleType
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from aidlc.bank.index import BankIndex
from aidlc.errors import UsageError
from aidlc.events.place import ledger_path, something_at
from aidlc.model.types import Severity
from aidlc.names import gate_command
from aidlc.rules.catalogue import Hit, rule

if TYPE_CHECKING:
    from aidlc.events.view import LedgerView
    from aidlc.model.events import Event

__all__ = ["NOT_AN_EVENT", "view"]

E, W = Severity.error, Severity.warning

# What AIDLC-LEDGER-018 (a memory bank) and AIDLC-DOCS-043 (aidlc-docs) refuse, in the same words.
NOT_AN_EVENT = ("a line of the ledger is chained and hashed but holds no event (a missing field, an unknown type or "
                "field, a field of the wrong type), or is not in the one form aidlc writes (a key written twice, "
                "spaces): every reader leaves the first out, and the second's diff can show a reviewer what no reader "
                "takes")

# One view per run of the rules (a run has one BankIndex): the ledger is read and checked once.
_VIEWS: WeakKeyDictionary[BankIndex, LedgerView | None] = WeakKeyDictionary()


def view(index: BankIndex) -> LedgerView | None:
    """The bank's ledger as this run sees it; None when the bank has none. One that cannot be read (a folder,
    no permission) is a view with its `error` and nothing in it (AIDLC-FILE-004 reports it)."""
    if index not in _VIEWS:
        bank = index.bank
        if something_at(ledger_path(bank.repo_root, bank.rel_root)):
            # Here, not at the top, as in every ledger rule: a bank without a ledger never imports the modules that
            # read one, the gates' and the events' models (about 0.1 billion instructions of start-up).
            from aidlc.events.ledger import Ledger
            from aidlc.events.view import readable_view

            _VIEWS[index] = readable_view(Ledger.of_bank(bank.repo_root, bank.rel_root))
        else:
            _VIEWS[index] = None
    return _VIEWS[index]


def unreadable(index: BankIndex) -> Iterator[Hit]:
    """The ledger, when it exists but cannot be read as a file (for AIDLC-FILE-004)."""
    led = view(index)
    if led is not None and led.error is not None:
        yield Hit(led.ledger.rel, None, led.error.message, "; ".join(led.error.next_steps) or None)


@rule("AIDLC-LEDGER-001", E, "ledger", "the ledger's hash chain is broken (edited, removed, reordered, "
      "duplicated or torn lines)",
      "restore memory-bank/events.jsonl from the last good commit; `aidlc log verify` names the first bad line")
def chain_intact(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    problem = led.first_error if led is not None else None
    if led is not None and problem is not None:
        yield Hit(led.ledger.rel, problem.line, f"seq {problem.seq}: {problem.kind}: {problem.message}")


@rule("AIDLC-LEDGER-005", E, "ledger", "an approval is stale: the artifact changed after it was approved",
      "a person reviews the change and decides again: `aidlc gate approve SUBJECT --stage STAGE`")
def approvals_current(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is None:
        return
    # Here, not at the top: only with a ledger (see view).
    from aidlc.gates.catalogue import TERMS, fingerprint
    from aidlc.gates.history import UNREAD_CHANGE, what_changed
    from aidlc.gates.resolve import resolve
    from aidlc.model.events import Decision

    for kind, subject_id, stage in led.history.gates():
        last = led.history.latest(kind, subject_id, stage)  # a gate in conflict has none: AIDLC-LEDGER-012
        if last is None or last.decision != Decision.approve or last.fingerprint is None \
                or kind in ("release", "policy"):
            continue
        recorded = last.fingerprint.sha256
        try:
            target = resolve(index.bank, index, f"{kind}:{subject_id}")
        except UsageError:  # a subject that no longer exists has nothing to go stale
            continue
        if stage not in target.stages:
            continue
        current = fingerprint(index.bank, index, target, stage, last)
        if current is None or current.sha256 != recorded:
            path, change = what_changed(index.bank, index, target, stage, last, current)
            message = (f"the {stage} approval of {kind} {subject_id} (seq {last.seq}) is stale: "
                       f"{path} {change} since")
            approve = gate_command(subject_id, stage)
            if change.startswith(UNREAD_CHANGE):  # not a change to decide on: a file to mend
                approve = f"save {path.removesuffix(TERMS)} as UTF-8 text, then `aidlc validate`: the approval " \
                          f"stands again if it is what was approved (else: {approve})"
            if "*" in path or " (" in path:  # the label of a set of files: grouped under the approval's line
                yield Hit(led.ledger.rel, _line(led, last), message, approve)
            else:
                yield Hit(path, None, message, approve)


def _audited(index: BankIndex, kinds_of: Callable[[ModuleType], Collection[str]]) -> Iterator[Hit]:
    """The audit's problems of the kinds `kinds_of` picks from aidlc.events.verify."""
    led = view(index)
    if led is None or led.error is not None:
        return
    from aidlc.events import verify  # here, not at the top: only with a ledger (see view)

    kinds = kinds_of(verify)
    for problem in led.audit.problems:
        if problem.kind in kinds:
            yield Hit(led.ledger.rel, problem.line, f"seq {problem.seq}: {problem.kind}: {problem.message}")


@rule("AIDLC-LEDGER-009", E, "ledger", "an event's time is not an RFC 3339 time with a zone, or it lies before the "
      "event it follows or in the future by more than the clock skew allowed (5 minutes)",
      "an event's time is part of its hash: restore the ledger from the last good commit (`git log -p -- "
      "memory-bank/events.jsonl` shows who wrote the line); check the clock of the machine that wrote it")
def event_times(index: BankIndex) -> Iterator[Hit]:
    yield from _audited(index, lambda verify: verify.TIME_KINDS)


@rule("AIDLC-LEDGER-010", E, "ledger", "an event names a commit this repository does not have",
      "fetch the branch that has it (`git fetch --all`); a commit that exists nowhere means the event was made "
      "up or its history rewritten: restore the ledger from the last good commit")
def event_commits(index: BankIndex) -> Iterator[Hit]:
    yield from _audited(index, lambda verify: {verify.ProblemKind.unknown_commit})


@rule("AIDLC-LEDGER-011", W, "ledger", "an event names a commit a shallow clone does not have, so it cannot be "
      "checked", "fetch the history, then validate again: `git fetch --unshallow`")
def event_commits_unfetched(index: BankIndex) -> Iterator[Hit]:
    yield from _audited(index, lambda verify: {verify.ProblemKind.unfetched_commit})


@rule("AIDLC-LEDGER-012", E, "ledger", "two branches decided the same gate differently, neither aware of the "
      "other: the gate counts as undecided", "a person looks at both and decides the gate again: "
      "`aidlc gate approve|reject SUBJECT --stage STAGE`")
def fork_conflicts(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is None:
        return
    from aidlc.events.view import describe_conflict  # here, not at the top: only with a ledger (see view)

    for (kind, subject_id, stage), decided in led.history.conflicts():
        yield Hit(led.ledger.rel, _line(led, decided[-1]),
                  f"{kind} {subject_id} {stage}: {describe_conflict(decided)}; the gate counts as undecided",
                  f"a person decides again: {gate_command(subject_id, stage, 'approve|reject')}")


@rule("AIDLC-LEDGER-018", E, "ledger", NOT_AN_EVENT,
      "restore memory-bank/events.jsonl from the last good commit (`git log -p -- memory-bank/events.jsonl` shows "
      "who wrote the line); aidlc writes every event itself")
def events_readable(index: BankIndex) -> Iterator[Hit]:
    led = view(index)
    if led is not None:
        from aidlc.events.view import NotAnEvent  # here, not at the top: only with a ledger (see view)

        for found in led.not_events:
            yield Hit(led.ledger.rel, found.line, found.message, NotAnEvent.next_step(led.ledger.rel))


def _line(led: LedgerView, event: Event) -> int | None:
    """The line of a decision of the history (its gate: subject and stage)."""
    if event.subject is None:
        return None
    heads = led.history.heads(event.subject.kind, event.subject.id, str(event.stage))
    found = [d.line for d in heads if d.hash == event.hash]
    return found[0] if found else None
