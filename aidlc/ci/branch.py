"""A pull request's history as `aidlc ci` reads it: the base commit, the commits since it, and the ledger as the
work tree and each commit hold it (`Branch`); on a memory bank, its bank and the rules that judge it
(`PullRequest`). Git is the evidence: the ledger and the commits as `base..HEAD` holds them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from aidlc import vcs
from aidlc.bank.items import MemoryBank
from aidlc.ci.rulebook import Rulebook
from aidlc.events.canonical import parse_event
from aidlc.events.decisions import DecisionIndex
from aidlc.events.ledger import Ledger
from aidlc.events.state import scan
from aidlc.events.verify import split_lines
from aidlc.model.events import Event
from aidlc.model.findings import Finding
from aidlc.names import shorten
from aidlc.rules.catalogue import Rule
from aidlc.workspace import open_bank


def finding(spec: Rule, path: str, line: int | None, message: str, fix: str | None = None) -> Finding:
    return Finding(code=spec.code, severity=spec.severity, path=path, line=line, message=shorten(message),
                   fix=shorten(fix or spec.fix))


@dataclass(kw_only=True)
class Branch:
    """The pull request's history on either layout: the base commit, the commits since it, and the ledger as the
    work tree and each commit hold it."""

    base: str  # a full commit sha
    history: vcs.History
    ledger: Ledger
    base_ledger: str  # the ledger's path as the base's rules name it
    commits: list[vcs.Commit] = field(default_factory=list)
    _ledgers: dict[tuple[str, str], bytes | None] = field(default_factory=dict)
    _decisions: dict[tuple[str, str], tuple[list[bytes], DecisionIndex] | None] = field(default_factory=dict)
    _introduced: dict[bytes, vcs.Commit] | None = None

    def ledger_at(self, commit: str, rel: str | None = None) -> bytes | None:
        """The ledger (or the file `rel`) as `commit` holds it."""
        key = (commit, rel or self.ledger.rel)
        if key not in self._ledgers:
            self._ledgers[key] = self.history.read(commit, [key[1]])[key[1]]
        return self._ledgers[key]

    def introductions(self) -> dict[bytes, vcs.Commit]:
        """For each ledger line HEAD holds and the base did not: the commit that introduced it (that has it while
        none of its parents did: the commit on a side branch, not the merge that brought it in). Read once."""
        if self._introduced is None:
            self._introduced = {}
            for commit in self.commits:  # oldest first
                if len(commit.parents) < 2 and self.ledger.rel not in commit.paths:
                    continue
                now = set(split_lines(self.ledger_at(commit.sha) or b""))
                before: set[bytes] = set()
                for parent in commit.parents:
                    before.update(split_lines(self.ledger_at(parent) or b""))
                for line in now - before:
                    self._introduced.setdefault(line, commit)
        return self._introduced

    def standing(self, commit: str, bolt_id: str, stage: str) -> Event | None:
        """The decision event that stands at a bolt's gate in the ledger `commit` holds (None: undecided, or
        branches that disagree)."""
        found = self._decided(commit)
        decided = found[1].standing(("bolt", bolt_id, stage)) if found is not None else None
        return None if found is None or decided is None else parse_event(found[0][decided.line - 1])

    def standing_decisions(self, commit: str, rel: str | None = None) -> Iterator[Event]:
        """The decision event that stands at each gate of the ledger (or of the file `rel`) `commit` holds: the
        gates undecided, or whose branches disagree, have none."""
        found = self._decided(commit, rel)
        if found is None:
            return
        lines, index = found
        for key in index.heads:
            decided = index.standing(key)
            if decided is not None and (event := parse_event(lines[decided.line - 1])) is not None:
                yield event

    def _decided(self, commit: str, rel: str | None = None) -> tuple[list[bytes], DecisionIndex] | None:
        """The ledger's lines as `commit` holds it, and its gate decisions as the ledger's tree orders them."""
        key = (commit, rel or self.ledger.rel)
        if key not in self._decisions:
            data = self.ledger_at(commit, rel)
            lines = split_lines(data) if data else []
            self._decisions[key] = (lines, scan(lambda: lines).decisions) if lines else None
        return self._decisions[key]


@dataclass(kw_only=True)
class PullRequest(Branch):
    """The branch on a memory bank: its bank at HEAD (read with the rules that judge it), and the rules' verdict on
    any change of them."""

    bank: MemoryBank
    rulebook: Rulebook

    @classmethod
    def open(cls, root: Path, history: vcs.History, base: str, commits: list[vcs.Commit],
             rulebook: Rulebook) -> PullRequest:
        """The pull request from `base` to the work tree; its bank is read with the rules that judge it (`rulebook`,
        aidlc/ci/rulebook.py: the base's, unless a change of them was approved)."""
        bank = open_bank(root, as_found=True, config=rulebook.rules.config)
        bank.pinned_signers = rulebook.signers
        bank.base = base
        return cls(bank=bank, base=base, history=history, ledger=Ledger.of_bank(Path(bank.repo_root), bank.rel_root),
                   rulebook=rulebook, base_ledger=rulebook.base_rules.ledger_rel, commits=commits)

