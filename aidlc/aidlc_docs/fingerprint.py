"""aidlc-workflows v2's plan approval fingerprint, recomputed outside the agent's harness.

v2 writes `sha256:v3:<hex>` into a PLAN_APPROVAL_RECORDED row: the SHA-256 of
`JSON.stringify(canonicalize({plan, instructions, testing_contract, target, intent, run_floor}))`, where `plan` is
the code-generation plan projected onto what a person approves (a ticked box is a claim about execution, not a change
to the plan), `instructions` the unit test instructions, and the last three come from the row itself.

Written from the published description of v2's formula, not from its code; where that description is silent the
choice made here is named in a comment (the Testing Contract's extraction, the fences, the last line's newline).
"""

from __future__ import annotations

import hashlib
import json
import re

V3 = "sha256:v3:"
# The formats v2 itself reads as "approve again": `sha256:v2:<hex>` and a bare `sha256:<hex>`.
OLDER = re.compile(r"^sha256:(?:v2:)?[0-9a-f]{64}$")

# A list item's task marker ticked or in progress, as v2 resets it: `- [x] `, `1. [X] `, `* [-]` -> `[ ]`.
_TASK = re.compile(r"^([ \t]*(?:[-*+]|\d+[.)])[ \t]+)\[[xX-]\](?=[ \t]|$)")
# A code fence's opening or closing line (CommonMark: up to three spaces, then ``` or ~~~ three or more times).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_REVIEW = re.compile(r"^## Review[ \t]*$")
_HEADING = re.compile(r"^#{1,2}[ \t]")
_CONTRACT = re.compile(r"^## Testing Contract[ \t]*$")


def to_lf(text: str) -> str:
    """CRLF and lone CR to LF: v2's projectInstructionsContent, and the first step of the plan's projection."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _fenced(lines: list[str]) -> list[bool]:
    """Whether each line lies in a fenced block (its fence lines included). A fence closes on a line of the same
    character at least as long; an unclosed fence runs to the end."""
    inside: list[bool] = []
    opener: str | None = None
    for line in lines:
        match = _FENCE.match(line)
        if opener is None:
            if match:
                opener = match.group(1)
            inside.append(opener is not None)
            continue
        inside.append(True)
        if match and match.group(1)[0] == opener[0] and len(match.group(1)) >= len(opener) \
                and not line[match.end():].strip():
            opener = None
    return inside


def plan_approval_content(text: str) -> str:
    """v2's projectPlanApprovalContent: what of a code-generation plan its approval covers."""
    lines = to_lf(text.removeprefix("\ufeff")).split("\n")
    fenced = _fenced(lines)
    # A terminal `## Review` appendix (the last level-2 heading outside fences, to the end) is the reviewer's,
    # not the plan's.
    headings = [n for n, line in enumerate(lines) if not fenced[n] and line.startswith("## ")]
    if headings and _REVIEW.match(lines[headings[-1]]):
        lines, fenced = lines[:headings[-1]], fenced[:headings[-1]]
    kept: list[str] = []
    for line, inside in zip(lines, fenced, strict=True):
        if inside:
            kept.append(line)
            continue
        line = _TASK.sub(r"\1[ ]", line.rstrip(" \t"))
        if line == "" and kept and kept[-1] == "":
            continue  # one blank line stands for a run of them (a fence's closing line is never blank)
        kept.append(line)
    while kept and kept[-1] == "":
        kept.pop()
    # Joined with LF and no final newline: the description does not say whether one is kept (an assumption).
    return "\n".join(kept)


def contract_hash(plan: str) -> str:
    """`sha256:<hex>` of the plan's `## Testing Contract` section.

    Assumed, as v2's extraction was not read: the section's lines after its heading, up to the next level-1 or
    level-2 heading outside fences (or the end), taken from the projected plan (so a ticked box in the contract
    changes nothing, as for the rest of the plan), with leading and trailing blank lines dropped, joined by LF,
    hashed as UTF-8. A plan with no such section hashes the empty text."""
    lines = plan_approval_content(plan).split("\n")
    fenced = _fenced(lines)
    body: list[str] = []
    start = next((n for n, line in enumerate(lines) if not fenced[n] and _CONTRACT.match(line)), None)
    if start is not None:
        for n in range(start + 1, len(lines)):
            if not fenced[n] and _HEADING.match(lines[n]):
                break
            body.append(lines[n])
    section = "\n".join(body).strip("\n")
    return "sha256:" + hashlib.sha256(section.encode("utf-8")).hexdigest()


def js_stringify(value: object) -> str:
    """JSON.stringify of canonicalize(value): keys sorted recursively, no spaces. json.dumps with ensure_ascii off
    writes strings as JavaScript does: `"` and `\\` escaped, \\b \\f \\n \\r \\t by name, other controls as
    lowercase \\u00xx, and everything else (non-ASCII, U+2028/U+2029, DEL) as itself. The one difference, a lone
    surrogate, cannot come from a file decoded as UTF-8. Keys sort by UTF-16 code units in JavaScript and by code
    points here; the keys are the six fixed ASCII names."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def approval_fingerprint(plan: str, instructions: str, target: str, intent: str, run_floor: str) -> str:
    """`sha256:v3:<hex>` of a plan and its unit test instructions, approved for `target` (`unit:<u>` or
    `stage:code-generation`) of intent `intent` at `run_floor`, as the PLAN_APPROVAL_RECORDED row names them."""
    content = {"plan": plan_approval_content(plan), "instructions": to_lf(instructions),
               "testing_contract": contract_hash(plan), "target": target, "intent": intent, "run_floor": run_floor}
    return V3 + hashlib.sha256(js_stringify(content).encode("utf-8")).hexdigest()
