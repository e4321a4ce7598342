"""The git merge driver for the ledger: the lines both sides share, then each side's new lines.

No line is rewritten, so every event keeps its hash, and its `prev` still names an event that stands
earlier; the merged file verifies. The result does not depend on the direction of the merge: after the
lines the two sides have in common, the side whose first new event is older (by `ts`, then by its bytes)
goes first, then the other side's lines that the first lacks, each side in its own order. Merging A
into B and B into A therefore give the same bytes.

A side that does not verify on its own (an old event edited or removed, a torn or foreign line) is not
merged: the driver fails, git leaves a conflict, and a person looks at it. Two branches that decided
the same gate differently merge (both decisions are history), and the driver says so: the gate counts
as undecided until a person decides it again (AIDLC-LEDGER-012).
"""

from __future__ import annotations

from pathlib import Path

from aidlc.bank.frontmatter import read_regular
from aidlc.events.verify import Verification, instant_of, split_lines, ts_of, verify_lines
from aidlc.events.view import describe_conflict, view_of_bytes
from aidlc.names import gate_command


def _order(new_lines: list[bytes]) -> tuple[int, float, bytes]:
    """Which side's new lines go first: none first, then the older first event, then the smaller bytes."""
    if not new_lines:
        return 0, 0.0, b""
    ts = ts_of(new_lines[0])
    when = instant_of(ts) if ts is not None else None
    return 1, when if when is not None else float("inf"), new_lines[0]


def merge_ledgers(ours: bytes, theirs: bytes) -> bytes:
    """The shared lines, then the new lines of each side (see the module docstring). A side's last line
    without its newline is taken as complete (the driver verified it first)."""
    sides = [split_lines(ours), split_lines(theirs)]
    for lines in sides:
        if lines and not lines[-1].endswith(b"\n"):
            lines[-1] += b"\n"
    a, b = sides
    common = 0
    while common < len(a) and common < len(b) and a[common] == b[common]:
        common += 1
    first, second = sorted((a[common:], b[common:]), key=_order)
    present = set(first)
    return b"".join(a[:common] + first + [line for line in second if line not in present])


def _verify(data: bytes, against: bytes | None = None) -> Verification:
    lines = split_lines(data)
    return verify_lines(lambda: iter(lines), against=None if against is None else split_lines(against),
                        stop_at_first=True)


def merge_files(base: Path, ours: Path, theirs: Path) -> tuple[bool, str]:
    """Write the merge into `ours` (git's %A). Returns (ok, message); not ok leaves a conflict.

    Regular files only: a FIFO would block the driver, and git with it, forever (read_regular opens without
    blocking and checks the file's type before it reads)."""
    try:
        sides = {"ours": read_regular(ours), "theirs": read_regular(theirs)}
        ancestor = read_regular(base)
    except OSError as exc:
        return False, f"{exc.filename}: {exc.strerror or exc}; the ledger driver merges regular files only, not merged"
    for name, data in sides.items():
        problem = _verify(data).first_error
        if problem is not None:  # merging would either keep the damage or hide it: a person decides
            return False, (f"{name} ledger does not verify at line {problem.line} (seq {problem.seq}): "
                           f"{problem.kind}: {problem.message}; not merged")
    merged = merge_ledgers(sides["ours"], sides["theirs"])
    result = _verify(merged, against=ancestor)
    problem = result.first_error
    if problem is not None:
        where = "an event of the common ancestor" if problem.kind == "missing" else f"line {problem.line}"
        return False, f"merged ledger does not verify at {where} (seq {problem.seq}): {problem.kind}: {problem.message}"
    ours.write_bytes(merged)
    message = f"merged ledger: {result.events} events"
    for (kind, subject_id, stage), decided in view_of_bytes(merged).history.conflicts():
        message += (f"\naidlc: {kind} {subject_id} {stage} was {describe_conflict(decided)}; it counts as "
                    "undecided until a person decides again: " + gate_command(subject_id, stage, "approve|reject"))
    return True, message
