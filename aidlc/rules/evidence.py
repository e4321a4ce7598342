"""What git shows of a bank before its ledger: the evidence that a completion is adopted history.

Dates written in a bank's own files prove nothing: anyone can backdate `completed:`. Git's order can: what a
commit made before the ledger's first event already held complete is history from before aidlc governed the
bank, which no gate decision could have recorded, so it is judged as history (a warning) for as long as its file
stays as that commit holds it. Everything else needs its decisions: a completion committed with the ledger or
after it, and one whose file changed since (edited, or left uncommitted).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from aidlc import vcs
from aidlc.bank import frontmatter
from aidlc.bank.index import BankIndex
from aidlc.model.types import BoltStatus, StoryStatus
from aidlc.names import arg
from aidlc.rules.ledger import view


@dataclass
class Birth:
    """The bank's files as the last commit before the ledger holds them, or why git cannot show them."""

    before: str | None = None  # the last commit before the ledger's first event (None: git cannot show one)
    ledger_commit: str | None = None  # the commit that added the ledger; None while the ledger is not committed
    role: str = "the last before the ledger"  # what `before` is, for messages
    existed: set[str] = field(default_factory=set)  # paths now whose file `before` holds
    kept: set[str] = field(default_factory=set)  # of those, the ones whose bytes are still as `before` holds them
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # path now -> front matter then, where not kept
    gap: str | None = None  # why no commit shows the bank as it was (when `before` is None)
    fetch: str | None = None  # the command that gets that evidence, where there is one

    def meta(self, rel: str, now: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The front matter `rel` had before the ledger: `now`, what it says now, for a file kept as it was; None
        for one that did not exist then."""
        return now if rel in self.kept else self.files.get(rel)

    @property
    def short(self) -> str:
        return (self.before or "")[:12]


@dataclass(frozen=True)
class Verdict:
    """Whether a finding about a completion is adopted history, and if not, what git shows instead."""

    adopted: str | None  # the commit before the ledger that shows it so, unchanged since
    why_not: str = ""  # for the message when it is not


def ledger_birth(repo_root: Path, bank_rel: str, ledger_rel: str, rels: Iterable[str],
                 base: str | None = None) -> Birth:
    """The front matter of each of `rels` (paths relative to `repo_root`) in the last commit before the ledger:
    the first parent of the commit that first added it, or HEAD while the ledger is not committed (every commit
    then is older than it). With a pull request's `base`, the commit is found in the base's history; a ledger the
    base does not hold yet is the pull request's, and the base is that commit: the pull request's own commits before
    its ledger are not history. One `git log` finds that commit (with a base, one more when the base lacks the
    ledger); `git ls-tree` and `git cat-file` read the files."""
    history = vcs.history(repo_root)
    if history is None:
        return Birth(gap="this bank is not in a git repository", fetch=f"git init && git add {arg(bank_rel)} && "
                     "git commit")
    if history.head is None:
        return Birth(gap="nothing is committed yet", fetch=f"git add {arg(bank_rel)} && git commit")
    if history.shallow:
        return Birth(gap="this clone is shallow", fetch="git fetch --unshallow")
    # With a base that holds the ledger, its birth is in the base's history: a pull request's own commits (another
    # history merged in, dated before the ledger's first commit) cannot move it.
    at_base = history.added(ledger_rel, base) if base is not None else None
    added = at_base or history.added(ledger_rel)
    role = "the last before the ledger"
    moved: Callable[[str], str]
    if added is None:
        before, ledger_commit, moved = base or history.head, None, _same
    else:
        ledger_commit, then, parents = added
        moved = _mover(ledger_rel, then)
        if base is not None and at_base is None and not history.is_ancestor(ledger_commit, base):
            before, role = base, "the base of this pull request, which starts the ledger"
        elif parents:
            before = parents[0]
        else:
            return Birth(ledger_commit=ledger_commit, gap=f"the ledger came with the repository's first commit "
                         f"{ledger_commit[:12]}, so no commit is older than it")
    wanted = {rel: moved(rel) for rel in rels}
    listed = history.listed(before, set(wanted.values()))
    existed = {rel for rel, old in wanted.items() if listed.get(old) is not None}
    differ = history.differ(before, {posixpath.dirname(ledger_rel), posixpath.dirname(moved(ledger_rel))})
    kept = existed - differ
    changed = {rel: listed[wanted[rel]] for rel in existed - kept}
    data = history.contents(changed)
    return Birth(before=before, ledger_commit=ledger_commit, role=role, existed=existed, kept=kept,
                 files={rel: _front(data[rel], rel) for rel in changed})


def verdict(birth: Birth, rel: str, held_then: bool, was: str) -> Verdict:
    """Adopted when the last commit before the ledger held the claim (`held_then`) and `rel`, the claim's own file,
    is as that commit holds it; otherwise why not (`was`: what it claims, "complete", "in construction")."""
    if birth.before is None:
        fetch = f" (`{birth.fetch}` gives git that evidence)" if birth.fetch else ""
        return Verdict(None, f"no commit shows it was so before the ledger: {birth.gap}{fetch}")
    if not held_then:
        then = f"was not {was}" if rel in birth.existed else "did not exist"
        return Verdict(None, f"it {then} in commit {birth.short}, {birth.role}")
    if rel not in birth.kept:
        return Verdict(None, f"it was {was} in commit {birth.short}, {birth.role}, but its file changed after aidlc "
                       "governed this bank")
    return Verdict(birth.before)


def adopted_note(birth: Birth, was: str) -> str:
    """The start of an adopted finding's message, naming the commit that shows it."""
    return f"{was} before aidlc governed this bank (so in commit {birth.short}, {birth.role}, and unchanged since)"


# Every rule of one run judges against one reading of git: one git walk per validate run, not one per rule.
_BIRTHS: WeakKeyDictionary[BankIndex, Birth | None] = WeakKeyDictionary()


def birth_of(index: BankIndex) -> Birth | None:
    """The bank before its ledger, for every file a completion claim may be judged by (complete stories, bolts,
    intents' requirements); None when the bank has no ledger (nothing governs it yet)."""
    if index in _BIRTHS:
        return _BIRTHS[index]
    led = view(index)
    birth = None
    if led is not None:
        bank = index.bank
        rels = [s.rel for s in bank.stories if s.meta is not None and s.meta.status == StoryStatus.complete]
        rels += [b.rel for b in bank.bolts if b.meta is not None and b.meta.status in _STARTED]
        rels += [i.requirements_doc.rel if i.requirements_doc else i.rel for i in bank.intents]
        birth = ledger_birth(Path(bank.repo_root), bank.rel_root, led.ledger.rel, rels, bank.base)
    _BIRTHS[index] = birth
    return birth


_STARTED = (BoltStatus.in_progress, BoltStatus.complete)


def _same(rel: str) -> str:
    return rel


def _mover(ledger_now: str, ledger_then: str) -> Callable[[str], str]:
    """Paths now -> paths then, when the bank folder was moved since the ledger was created."""
    now, then = posixpath.dirname(ledger_now), posixpath.dirname(ledger_then)
    if now == then:
        return _same
    return lambda rel: then + rel[len(now):] if rel.startswith(now + "/") else rel


def _front(data: bytes | None, rel: str) -> dict[str, Any]:
    """{} for a file whose front matter cannot be read (it showed nothing)."""
    if data is None:
        return {}
    text, _problem = frontmatter.decode(data, rel)
    return (frontmatter.split(text, rel).meta if text is not None else None) or {}
