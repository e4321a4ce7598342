"""The git merge driver for the ledger: keep ours, then append theirs that we lack.

No line is rewritten or reordered, so every event keeps its hash and its `prev`
still names an event that stands earlier; the merged file verifies.
"""

from __future__ import annotations

from pathlib import Path

from aidlc.events.verify import verify_lines


def merge_ledgers(ours: bytes, theirs: bytes) -> bytes:
    our_lines = ours.splitlines(keepends=True)
    if our_lines and not our_lines[-1].endswith(b"\n"):
        our_lines[-1] += b"\n"  # a torn tail cannot survive a merge: git would commit it mid-file
    present = set(our_lines)
    added = [line for line in theirs.splitlines(keepends=True) if line.endswith(b"\n") and line not in present]
    return b"".join(our_lines + added)


def merge_files(base: Path, ours: Path, theirs: Path) -> tuple[bool, str]:
    """Write the merge into `ours` (git's %A). Returns (ok, message); not ok leaves a conflict."""
    merged = merge_ledgers(ours.read_bytes(), theirs.read_bytes())
    result = verify_lines(lambda: iter(merged.splitlines(keepends=True)), against=base.read_bytes().splitlines(
        keepends=True), stop_at_first=True)
    if not result.ok:
        problem = result.problems[0]
        return False, f"merged ledger does not verify at line {problem.line}: {problem.message}"
    ours.write_bytes(merged)
    return True, f"merged ledger: {result.events} events"
