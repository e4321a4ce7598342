"""The heading of an aidlc-docs audit entry as it speaks of approvals (`heading_of`): of a compound heading
(`Requirements Approved and User Stories Planning Started`), the parts the approval is about. What the whole entry says
for approvals: aidlc/rules/docs_entries.py."""

from __future__ import annotations

import re
from functools import lru_cache

from aidlc.aidlc_docs.model import AuditEntry
from aidlc.aidlc_docs.stages import stage_of, without_stage_names
from aidlc.aidlc_docs.units import unit_of
from aidlc.rules.docs_words import approval_at, names_approval

STARTS = re.compile(r"\bstart|\bbegin|시작|开始|開始|inici", re.IGNORECASE)  # a heading that starts a stage

# Where a heading joins two steps: `U6 Approved / U3 Functional Design Start`, `Requirements Approved and User Stories
# Planning Started` (Supplier-Onboarding), `Application Design — 승인 + Units Generation 진입` (DallYeo_FE), a
# semicolon or comma (MamaMoh/SimbaFlow's `Unit 6 NFR Requirements — Approved; NFR Design Generated`,
# MD-team-project's `Application Design Approved, Units Generation Complete (minimal)`), read outside stage names
# (`Build and Test`, `Build & Test`).
# Each blank run tried once, from its start (from every blank of a hostile run of them, it took seconds).
_PARTS = re.compile(r"(?<![ \t])(?:[ \t]++(?:/|\+|&|and)[ \t]+|[ \t]*+(?:→|->)[ \t]*|[ \t]*+[;,][ \t]++)",
                    re.IGNORECASE)
# A part that goes on to the next step: it starts, enters, makes or asks for it (`Workflow Planning Generated`,
# `ORDS Code Generation Request`, `Units Generation 진입`, "entered").
_GOES_ON = re.compile(STARTS.pattern + r"|진입|\benter|\bgenerated\b|\bcreated\b|\brequest", re.IGNORECASE)
_LAST_WORD = re.compile(r"\w*\W*")  # a word and what closes it (`Approval`, `승인)`): nothing after it


def heading_of(entry: AuditEntry) -> str:
    """The heading as it speaks of approvals: of a compound heading, where a part says approved, that part and the
    stages it names alone (`Requirements Approved and User Stories Planning Started` approves requirements analysis,
    nothing of User Stories; `Functional Design + NFR Requirements Approval` both), else the parts that start nothing
    (`U6 Approved / U3 Functional Design Start` is about unit U6's approval, and approves nothing of unit U3's
    functional design)."""
    return _spoken(entry.heading or "")


@lru_cache(maxsize=8192)
def _spoken(heading: str) -> str:
    """`heading_of` a heading: once per text (the history reads each of 603 versions of a log, 68,000 headings, and
    this took 3.5 s of a 17 s validation), at once where no separator stands (most headings)."""
    if _PARTS.search(heading) is None:
        return heading
    # the stage names' letters masked, their spaces kept, so that a separator's blanks end at a name
    masked = "".join("x" if blank == " " and was != " " else blank
                     for was, blank in zip(heading, without_stage_names(heading), strict=True))
    cuts = [0, *(at for found in _PARTS.finditer(masked) for at in found.span()), len(heading)]
    parts = [heading[start:end] for start, end in zip(cuts[::2], cuts[1::2], strict=True)]
    if len(parts) == 1:
        return heading
    approving = [index for index, part in enumerate(parts) if names_approval(part)]
    if approving:
        # A part after the last that says approved, where that one names its stage before the word, is the step
        # the approval opened (eunjilee's `Application Design - Approval & Functional Design`, whose go-ahead was
        # answered with the functional design made); one before it shares the word (`Functional Design + NFR
        # Requirements Approval`), as does every part after a word that leads (`Approved: Requirements & User Stories`).
        last = approving[-1]
        at = approval_at(parts[last])
        # its stage named before the word, or by a name holding it (MD-team-project's `Requirements Approved, User
        # Stories Included`: the requirements approved, the stories then made), or its unit, the word ending the part,
        # before a part about another unit (chat-cli's `Unit 7 - Approval, Unit 8 Functional Design + NFR Complete`:
        # unit 7's code approved, unit 8's design made after the words)
        unit = unit_of(parts[last])
        closes = stage_of(parts[last][:at]) is not None or approval_at(without_stage_names(parts[last])) != at or (
            unit is not None and _LAST_WORD.fullmatch(parts[last], at) is not None
            and any(unit_of(part) not in (None, unit) for part in parts[last + 1:]))
        kept = [part for index, part in enumerate(parts) if (names_approval(part) or not _GOES_ON.search(part))
                and not (closes and index > last)]
    else:
        kept = [part for part in parts if not STARTS.search(part)]
    return " / ".join(kept) if kept else heading
