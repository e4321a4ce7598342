"""A ledger the work tree lacks while git history holds it: restoring it keeps its history, where a new one
(`aidlc init`) would start it over."""

from __future__ import annotations

from pathlib import Path

from aidlc import vcs
from aidlc.errors import UsageError
from aidlc.names import arg


class LostLedger(UsageError):
    """The work tree lacks the ledger while git history holds it, or (`shallow`) may hold it."""

    def __init__(self, message: str, next_steps: list[str], shallow: bool) -> None:
        super().__init__(message, next_steps)
        self.shallow = shallow


def lost_ledger(repo_root: Path, rel: str) -> LostLedger | None:
    """The error for a ledger the work tree lacks while git history holds it (at HEAD, or before a commit that
    removed it), naming the commit to restore it from. A shallow clone cannot show that no earlier commit held
    one: then the error says to fetch the history. None when git shows no ledger ever stood there."""
    history = vcs.history(repo_root)
    if history is None or history.head is None:
        return None
    try:
        source = history.last_holding(rel)
    except ValueError:  # a ledger outside the repository has no history in it
        return None
    shallow = source is None and history.shallow
    if source is not None:
        held = "HEAD has it" if source == "HEAD" else f"commit {source[:12]} has it (a later commit removed it)"
        return LostLedger(f"the ledger {rel} is missing, but {held}; a new one would start its history over",
                          [f"git restore --source={source} --staged --worktree -- {arg(rel)}", "aidlc log verify"],
                          shallow=False)
    if shallow:
        return LostLedger(f"no ledger at {rel}, and this clone is shallow: a commit before it may hold one, "
                          "which a new one would start over",
                          ["git fetch --unshallow    # then rerun: the whole history shows whether a ledger existed"],
                          shallow=True)
    return None
