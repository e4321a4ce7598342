"""The git merge driver for the ledger: keep ours, then append theirs that we lack.

No line is rewritten or reordered, so every event keeps its hash and its `prev`
still names an event that stands earlier; the merged file verifies. A side that does
not verify on its own (an old event edited or removed, a torn or foreign line) is not
merged: the driver fails, git leaves a conflict, and a person looks at it.
"""

from __future__ import annotations

from pathlib import Path

from aidlc.events.verify import Verification, split_lines, verify_lines


def merge_ledgers(ours: bytes, theirs: bytes) -> bytes:
    """Our lines as they are, then every complete line of theirs that we lack, in their order."""
    our_lines = split_lines(ours)
    present = set(our_lines)
    added = [line for line in split_lines(theirs) if line.endswith(b"\n") and line not in present]
    return b"".join(our_lines + added)


def _verify(data: bytes, against: bytes | None = None) -> Verification:
    lines = split_lines(data)
    return verify_lines(lambda: iter(lines), against=None if against is None else split_lines(against),
                        stop_at_first=True)


def merge_files(base: Path, ours: Path, theirs: Path) -> tuple[bool, str]:
    """Write the merge into `ours` (git's %A). Returns (ok, message); not ok leaves a conflict."""
    sides = {"ours": ours.read_bytes(), "theirs": theirs.read_bytes()}
    for name, data in sides.items():
        result = _verify(data)
        if not result.ok:  # merging would either keep the damage or hide it: a person decides
            problem = result.problems[0]
            return False, (f"{name} ledger does not verify at line {problem.line} (seq {problem.seq}): "
                           f"{problem.kind}: {problem.message}; not merged")
    merged = merge_ledgers(sides["ours"], sides["theirs"])
    result = _verify(merged, against=base.read_bytes())
    if not result.ok:
        problem = result.problems[0]
        where = "an event of the common ancestor" if problem.kind == "missing" else f"line {problem.line}"
        return False, f"merged ledger does not verify at {where} (seq {problem.seq}): {problem.kind}: {problem.message}"
    ours.write_bytes(merged)
    return True, f"merged ledger: {result.events} events"
