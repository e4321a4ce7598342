"""What git shows of a bank when its ledger was created: the evidence that a completion is adopted history.

Dates written in a bank's own files prove nothing: anyone can backdate `completed:`. The commit that
created the ledger can: what was already complete in it is history from before the ledger, which no
gate decision could have recorded. Everything else needs its decisions.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bank import frontmatter


@dataclass
class Birth:
    """The bank's files as the commit that created the ledger holds them, or why git cannot show them."""

    commit: str | None = None
    files: dict[str, dict[str, Any] | None] = field(default_factory=dict)  # path now -> front matter then
    gap: str | None = None  # why no commit shows the bank as it was (when `commit` is None)
    fetch: str | None = None  # the command that gets that evidence

    def meta(self, rel: str) -> dict[str, Any] | None:
        """The front matter `rel` had in that commit; None when it did not exist then."""
        return self.files.get(rel)

    @property
    def short(self) -> str:
        return (self.commit or "")[:12]


def ledger_birth(repo_root: Path, bank_rel: str, ledger_rel: str, rels: Iterable[str]) -> Birth:
    """The front matter of each of `rels` (paths relative to `repo_root`) in the commit that first added the
    ledger. One `git log` finds that commit; `git cat-file` reads the files in one batch."""
    history = vcs.history(repo_root)
    if history is None:
        return Birth(gap="this bank is not in a git repository", fetch=f"git init && git add {bank_rel} && "
                     "git commit")
    if history.head is None:
        return Birth(gap="nothing is committed yet", fetch=f"git add {bank_rel} && git commit")
    if history.shallow:
        return Birth(gap="this clone is shallow", fetch="git fetch --unshallow")
    added = history.added(ledger_rel)
    if added is None:
        return Birth(gap="the ledger is not committed yet", fetch=f"git add {bank_rel} && git commit")
    commit, then = added
    moved = _mover(ledger_rel, then)
    wanted = {rel: moved(rel) for rel in rels}
    data = history.read(commit, set(wanted.values()))
    return Birth(commit=commit, files={rel: _front(data.get(old), rel) for rel, old in wanted.items()})


def _mover(ledger_now: str, ledger_then: str) -> Callable[[str], str]:
    """Paths now -> paths then, when the bank folder was moved since the ledger was created."""
    now, then = posixpath.dirname(ledger_now), posixpath.dirname(ledger_then)
    if now == then:
        return lambda rel: rel
    return lambda rel: then + rel[len(now):] if rel.startswith(now + "/") else rel


def _front(data: bytes | None, rel: str) -> dict[str, Any] | None:
    """None for a file that did not exist; {} for one whose front matter cannot be read (it showed nothing)."""
    if data is None:
        return None
    text, _problem = frontmatter.decode(data, rel)
    return (frontmatter.split(text, rel).meta if text is not None else None) or {}
