"""The rule catalogue: every finding aidlc can report, with a stable code.

A rule is a small function that yields ``Hit``s over the parsed bank, or (a
story rule) returns those of one story, so that validation visits each story once
for all story rules. The catalogue entry gives the hit its code, severity and default
fix. Codes never change meaning once released.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import KW_ONLY, dataclass

from aidlc.bank.index import BankIndex
from aidlc.bank.items import StoryItem
from aidlc.model.types import Severity


@dataclass(frozen=True)
class Hit:
    """One violation found by a rule, before it becomes a Finding."""

    path: str
    line: int | None
    message: str
    fix: str | None = None  # overrides the catalogue's fix when the situation needs a precise one
    # The commit before the ledger that shows this completion already so (aidlc/rules/evidence.py): history from
    # before aidlc governed the bank, reported as a warning whatever the rule's severity.
    adopted: str | None = None


Check = Callable[[BankIndex], Iterator[Hit]]
# A story rule returns its hits rather than yielding them: called for every story of a bank, a generator each time
# cost more than most checks themselves.
StoryCheck = Callable[[BankIndex, StoryItem], Sequence[Hit]]


@dataclass(frozen=True)
class Rule:
    code: str
    severity: Severity
    family: str
    summary: str
    fix: str
    check: Check | None  # every hit in the bank; None for a rule `aidlc ci` checks against git history
    story_check: StoryCheck | None = None  # a story rule's check of one story (`check` runs it over all)
    _: KW_ONLY
    module: str  # the module that registers it: its place in the catalogue (MODULES)

    def described(self) -> dict[str, str]:
        """The rule as `aidlc rules --format json` lists it."""
        return {"code": self.code, "severity": str(self.severity), "family": self.family, "checks": self.summary,
                "fix": self.fix}


# The rules registered so far (a memory bank's validation imports its own rule modules only: aidlc/rules/__init__.py).
CATALOGUE: dict[str, Rule] = {}

# The modules that register rules, in the catalogue's order (`aidlc rules`, docs/rules.md, SARIF's rule list).
MODULES = ("docs_records", "docs_layout", "docs_stories", "docs_times", "ledger", "approvals", "ci", "claims",
           "coverage", "docs_gates", "docs_history", "files", "identity", "references", "state", "structure")


def every_rule() -> dict[str, Rule]:
    """Every rule by code, in the catalogue's order whichever rule modules were imported first."""
    for name in MODULES:
        importlib.import_module(f"aidlc.rules.{name}")  # registers its rules, once
    place = {f"aidlc.rules.{name}": number for number, name in enumerate(MODULES)}
    # Stable: one module's rules keep the order it registers them in.
    return {entry.code: entry for entry in sorted(CATALOGUE.values(), key=lambda entry: place[entry.module])}

FAMILIES = ("file", "schema", "identity", "references", "coverage", "structure", "state", "ledger", "ci",
            "aidlc-docs")


def rule(code: str, severity: Severity, family: str, summary: str, fix: str) -> Callable[[Check], Check]:
    """Register a check over the whole bank under a stable code."""

    def register(check: Check) -> Check:
        _add(Rule(code, severity, family, summary, fix, check, module=check.__module__))
        return check

    return register


def story_rule(code: str, severity: Severity, family: str, summary: str,
               fix: str) -> Callable[[StoryCheck], StoryCheck]:
    """Register a check of one story under a stable code (validation runs it as it visits each story)."""

    def register(check: StoryCheck) -> StoryCheck:
        def over_bank(index: BankIndex) -> Iterator[Hit]:
            for story in index.bank.stories:
                yield from check(index, story)

        _add(Rule(code, severity, family, summary, fix, over_bank, check, module=check.__module__))
        return check

    return register


def ci_rule(code: str, severity: Severity, summary: str, fix: str) -> Rule:
    """Register a rule `aidlc ci` checks (it needs a pull request's commits, not only the bank)."""
    entry = Rule(code, severity, "ci", summary, fix, None, module=_caller_module())
    _add(entry)
    return entry


def docs_rule(code: str, severity: Severity, summary: str, fix: str) -> Rule:
    """Register a rule of the aidlc-docs layout (AWS aidlc-workflows): its checks read that layout's records
    (aidlc/aidlc_docs/), not a memory bank, and `aidlc validate` runs them on a project in that layout."""
    entry = Rule(code, severity, "aidlc-docs", summary, fix, None, module=_caller_module())
    _add(entry)
    return entry


def _caller_module() -> str:
    """The module calling the registering function (as collections.namedtuple finds the module defining a type)."""
    return str(sys._getframe(2).f_globals["__name__"])


def _add(entry: Rule) -> None:
    if entry.family not in FAMILIES:
        raise ValueError(f"unknown rule family {entry.family}")
    if entry.code in CATALOGUE:
        raise ValueError(f"duplicate rule code {entry.code}")
    CATALOGUE[entry.code] = entry
