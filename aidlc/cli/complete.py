"""Shell completion of the names commands take: intents, units, stories, bolts, gate stages and rule codes.

The shell runs `aidlc` with click's completion variables set (`_AIDLC_COMPLETE=bash_complete` ...); the
names come from the repository of --repo or of the current folder. Completion must answer and never fail:
a bank that cannot be read completes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.shell_completion import CompletionItem

if TYPE_CHECKING:
    from aidlc.bank.items import MemoryBank


Completer = Callable[[click.Context, click.Parameter, str], list[CompletionItem]]


def _bank(ctx: click.Context) -> MemoryBank:
    # Completion runs on every TAB: only what this completer needs loads.
    from aidlc.cli.app import discover_root
    from aidlc.workspace import open_bank

    repo = ctx.find_root().params.get("repo")
    return open_bank(Path(repo).resolve() if repo else discover_root(Path.cwd()))


def _from_bank(names: Callable[[MemoryBank], Iterable[str]]) -> Completer:
    def complete(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        try:
            found = sorted(set(names(_bank(ctx))))
        except Exception:  # completion never fails: an unreadable bank offers nothing
            return []
        return [CompletionItem(name) for name in found if name.startswith(incomplete)]
    return complete


intents = _from_bank(lambda bank: (intent.id for intent in bank.intents))
units = _from_bank(lambda bank: (unit.id for intent in bank.intents for unit in intent.units))
stories = _from_bank(lambda bank: (story.id for intent in bank.intents for unit in intent.units
                                   for story in unit.stories))
bolts = _from_bank(lambda bank: (bolt.id for bolt in bank.bolts))
subjects = _from_bank(lambda bank: [*(intent.id for intent in bank.intents), *(bolt.id for bolt in bank.bolts)])


def stages(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Every gate stage of either layout (the one the subject has is checked when the decision is made)."""
    # Completion runs on every TAB: only what this completer needs loads.
    from aidlc.gates import catalogue

    names = {*catalogue.INTENT_STAGES, *catalogue.DDD_BOLT_STAGES, *catalogue.RELEASE_STAGES,
             *catalogue.POLICY_STAGES, *catalogue.DOCS_UNIT_STAGES,
             *(stage for phase in catalogue.DOCS_PHASE_STAGES.values() for stage in phase)}
    return [CompletionItem(name) for name in sorted(names) if name.startswith(incomplete)]


def rule_codes(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Rule codes, also from their short form (REF completes AIDLC-REF-001 ...)."""
    # Completion runs on every TAB: only what this completer needs loads.
    from aidlc.rules import every_rule

    wanted = incomplete.upper()
    return [CompletionItem(code) for code in sorted(every_rule())
            if code.startswith(wanted) or code.removeprefix("AIDLC-").startswith(wanted)]
