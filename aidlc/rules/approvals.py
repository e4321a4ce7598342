"""Who decided, and with which key: a human checkpoint is decided by a person (not an agent, CI or a bot),
and its signature, where there is one or one is required, verifies against memory-bank/allowed_signers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from aidlc.bank.index import BankIndex
from aidlc.model.types import Risk, Severity
from aidlc.rules.catalogue import Hit, rule
from aidlc.rules.ledger import view

if TYPE_CHECKING:
    from aidlc.events.view import LedgerView
    from aidlc.gates import signatures
    from aidlc.model.events import Event

E = Severity.error


@rule("AIDLC-LEDGER-006", E, "ledger", "a human checkpoint was decided by an agent or CI actor",
      "a person decides the gate again from their own shell; agent decisions do not count")
def human_deciders(index: BankIndex) -> Iterator[Hit]:
    yield from _problems(index, lambda signatures: signatures.AGENT)


@rule("AIDLC-LEDGER-014", E, "ledger", "a human checkpoint was decided under a bot's identity (governance.bot_emails, "
      "a [bot] name or a bot's no-reply address)",
      "a person decides the gate again under their own name and email; a bot's decision does not count")
def no_bot_deciders(index: BankIndex) -> Iterator[Hit]:
    yield from _problems(index, lambda signatures: signatures.BOT)


def _by_policy(event: Event, allowed: list[Risk]) -> bool:
    """A plan approval aidlc.yaml's policy.auto_approve_plan allows (low or medium risk only), recorded as such."""
    from aidlc.model.events import ActorKind, Decision  # here, not at the top: only with a ledger (_problems)

    risk = event.datum("risk")
    return (event.actor.kind == ActorKind.policy and event.stage == "plan" and event.subject is not None
            and event.subject.kind == "bolt" and event.decision == Decision.approve
            and risk in (Risk.low, Risk.medium) and risk in allowed)


# The five rules of one run share one check: one ssh-keygen per signature, not one per rule.
_CHECKED: WeakKeyDictionary[BankIndex, tuple[LedgerView, list[signatures.Problem]]] = WeakKeyDictionary()


def _problems(index: BankIndex, kind_of: Callable[[ModuleType], str]) -> Iterator[Hit]:
    """The problems with who decided, and with which key, of the kind `kind_of` picks from aidlc.gates.signatures."""
    led = view(index)
    if led is None:
        return
    # Here, not at the top: only with a ledger (aidlc/rules/ledger.py, view).
    from aidlc.gates import signatures

    kind = kind_of(signatures)
    cached = _CHECKED.get(index)
    if cached is None or cached[0] is not led:
        bank = index.bank
        policy = bank.config.policy.auto_approve_plan
        cached = led, [*signatures.deciders(led.events, led.ledger.rel, bank.config.governance.bot_emails,
                                            lambda event: _by_policy(event, policy)),
                       *signatures.check(Path(bank.repo_root), bank.rel_root, bank.config, led.ledger.rel,
                                         led.events, bank.pinned_signers, bank.base)]
        _CHECKED[index] = cached
    for problem in cached[1]:
        if problem.kind == kind:
            yield Hit(problem.path, problem.line, problem.message, problem.fix)


@rule("AIDLC-LEDGER-015", E, "ledger", "a human decision carries no signature, though it was recorded while "
      "governance.require_signed_approvals was on",
      "a person decides the gate again with git's SSH signing key set up (aidlc docs/gates.md, Signed approvals)")
def signed_when_required(index: BankIndex) -> Iterator[Hit]:
    yield from _problems(index, lambda signatures: signatures.UNSIGNED)


@rule("AIDLC-LEDGER-016", E, "ledger", "a decision's signature does not verify: a key memory-bank/allowed_signers "
      "does not list for the decider's email, or an event changed after it was signed",
      "a person decides the gate again with a key listed for their email in memory-bank/allowed_signers")
def signatures_verify(index: BankIndex) -> Iterator[Hit]:
    yield from _problems(index, lambda signatures: signatures.INVALID)


@rule("AIDLC-LEDGER-017", E, "ledger", "memory-bank/allowed_signers is missing, unreadable or malformed where "
      "decisions are signed or signatures are required",
      "write one `EMAIL namespaces=\"aidlc\" KEYTYPE KEY` line per person who may decide "
      "(aidlc docs/gates.md, Signed approvals)")
def allowed_signers_usable(index: BankIndex) -> Iterator[Hit]:
    yield from _problems(index, lambda signatures: signatures.SIGNERS)
