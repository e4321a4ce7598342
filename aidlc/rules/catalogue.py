"""The rule catalogue: every finding aidlc can report, with a stable code.

A rule is a small function over the parsed bank that yields ``Hit``s; the
catalogue entry gives the hit its code, severity and default fix. Codes never
change meaning once released.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from aidlc.bank.index import BankIndex
from aidlc.model.types import Severity


@dataclass(frozen=True)
class Hit:
    """One violation found by a rule, before it becomes a Finding."""

    path: str
    line: int | None
    message: str
    fix: str | None = None  # overrides the catalogue's fix when the situation needs a precise one


Check = Callable[[BankIndex], Iterator[Hit]]


@dataclass(frozen=True)
class Rule:
    code: str
    severity: Severity
    family: str
    summary: str
    fix: str
    check: Check


CATALOGUE: dict[str, Rule] = {}

FAMILIES = ("file", "schema", "identity", "references", "coverage", "structure", "state", "ledger")


def rule(code: str, severity: Severity, family: str, summary: str, fix: str) -> Callable[[Check], Check]:
    """Register a check under a stable code."""
    if family not in FAMILIES:
        raise ValueError(f"unknown rule family {family}")

    def register(check: Check) -> Check:
        if code in CATALOGUE:
            raise ValueError(f"duplicate rule code {code}")
        CATALOGUE[code] = Rule(code, severity, family, summary, fix, check)
        return check

    return register
