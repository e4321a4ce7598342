"""Every rule of the catalogue, one broken fixture each: exact code, path, line; the clean bank never has it."""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from aidlc.bank.config import load_config
from aidlc.bank.index import BankIndex
from aidlc.bank.loader import load_bank
from aidlc.model.types import Severity
from aidlc.rules import every_rule
from tests.helpers import (
    BOLT1,
    BOLT1_DIR,
    BOLT2,
    BOLT2_DIR,
    INTENT,
    MB,
    PROJECT,
    REQUIREMENTS,
    RUNBOOK,
    STORY1,
    STORY2,
    UNIT_BRIEF,
    UNIT_DIR,
    Bank,
    complete_first_bolt,
)

Mutate = Callable[[Bank, pytest.MonkeyPatch], "int | None"]


@dataclass(frozen=True)
class Case:
    """Break the clean bank with `mutate` (it returns the line the finding must name)."""

    name: str
    code: str
    path: str
    mutate: Mutate
    message: str  # a fragment the message must contain
    count: int = 1  # findings of `code` expected
    others: frozenset[str] = field(default_factory=frozenset)  # codes that may legitimately come along


def case(name: str, code: str, path: str, message: str, count: int = 1, others: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    def register(mutate: Mutate) -> Mutate:
        CASES.append(Case(name, code, path, mutate, message, count, frozenset(others)))
        return mutate

    return register


CASES: list[Case] = []


def body_line(bank: Bank, rel: str, needle: str, new: str) -> int:
    bank.replace(rel, needle, new)
    return bank.line(rel, new)


# --- file ----------------------------------------------------------------------------------------


@case("non-utf8", "AIDLC-FILE-001", STORY2, "byte 0xff at offset")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    data = b.path(STORY2).read_bytes().replace(b"# Story: Refund an order", b"# Story: Refund \xff order")
    b.write_bytes(STORY2, data)
    return b.line(STORY2, "# Story: Refund")


@case("latin1-front-matter", "AIDLC-FILE-001", BOLT2, "byte 0xe9")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write_bytes(BOLT2, b.path(BOLT2).read_bytes().replace(b"# Bolt: refunds", b"# Bolt: r\xe9funds"))
    return b.line(BOLT2, "# Bolt: r")


@case("malformed-yaml", "AIDLC-FILE-002", STORY2, "invalid YAML: mapping values are not allowed")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "unit", "checkout-api: oops")


@case("unclosed-quote", "AIDLC-FILE-002", BOLT2, "invalid YAML")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "risk", '"medium')


@case("duplicate-key", "AIDLC-FILE-002", STORY2, "duplicate mapping key: 'status'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.add_key(STORY2, "status", "draft")


@case("project-yaml", "AIDLC-FILE-002", PROJECT, "invalid YAML")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(PROJECT, "project_type: web-app\ninitialized_at: [2026-11-30T08:00:00Z\n")
    return 2


@case("front-matter-list", "AIDLC-FILE-003", STORY2, "expected a mapping of keys, found list")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(STORY2, "---\n- id: 002-refund-order\n- status: ready\n---\n\n## Acceptance Criteria\n- [ ] x\n")
    return 2


@case("front-matter-scalar", "AIDLC-FILE-003", STORY2, "found str")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(STORY2, "---\nrefund order story\n---\n")
    return 2


@case("front-matter-unclosed", "AIDLC-FILE-003", STORY2, "never closed")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(STORY2, b.read(STORY2).replace("---\n\n# Story", "\n# Story"))
    return 1


@case("story-without-front-matter", "AIDLC-FILE-003", STORY2, "a story needs YAML front matter")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(STORY2, "# Story: Refund an order\n\n## Acceptance Criteria\n- [ ] x\n")
    return 1


@case("empty-bolt", "AIDLC-FILE-003", BOLT2, "bolt.md needs YAML front matter")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(BOLT2, "")
    return 1


@case("project-yaml-list", "AIDLC-FILE-003", PROJECT, "found list")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(PROJECT, "- project_type: web-app\n")
    return 1


@case("unreadable", "AIDLC-FILE-004", STORY2, "Permission denied")
def _(b: Bank, m: pytest.MonkeyPatch) -> None:
    # Tests run as root, where chmod 000 does not stop a read: refuse it at the one place files are read.
    from aidlc.bank import frontmatter

    locked = str(b.path(STORY2))

    real = frontmatter.read_bytes

    def refuse(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    m.setattr(frontmatter, "read_bytes", refuse)


@case("unit-without-brief", "AIDLC-FILE-005", UNIT_BRIEF, "unit-brief.md is missing")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    b.remove(UNIT_BRIEF)


@case("bolt-without-bolt-md", "AIDLC-FILE-005", BOLT2, "bolt.md is missing")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    b.remove(BOLT2)


@case("intent-without-requirements", "AIDLC-FILE-006", REQUIREMENTS, "intent 001-checkout has no requirements.md")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    b.remove(REQUIREMENTS)


@case("fifo-story", "AIDLC-FILE-007", f"{UNIT_DIR}/stories/003-fifo.md", "a FIFO (named pipe)")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    os.mkfifo(b.path(f"{UNIT_DIR}/stories/003-fifo.md"))  # opened for reading, it would wait for ever


@case("name-not-utf8", "AIDLC-FILE-007", f"{UNIT_DIR}/stories/caf\\xe9.md", "the name is not UTF-8")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    folder = os.fsencode(b.path(f"{UNIT_DIR}/stories"))
    with open(os.path.join(folder, b"caf\xe9.md"), "wb") as handle:
        handle.write(b.path(STORY2).read_bytes())


@case("link-outside", "AIDLC-FILE-008", f"{UNIT_DIR}/stories/003-elsewhere.md", "outside the repository")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    outside = b.root.parent / "elsewhere.md"
    outside.write_text(b.read(STORY2).replace("002-refund-order", "003-elsewhere"))
    b.path(f"{UNIT_DIR}/stories/003-elsewhere.md").symlink_to(outside)


@case("story-too-large", "AIDLC-FILE-010", STORY2, "over the 1,048,576-byte limit")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    with open(b.path(STORY2), "r+b") as handle:
        handle.truncate(2 * 1024 * 1024)


@case("folder-unlisted", "AIDLC-FILE-009", f"{MB}/standards", "the folder cannot be listed")
def _(b: Bank, m: pytest.MonkeyPatch) -> None:
    locked = b.path(f"{MB}/standards")
    if os.geteuid() != 0:
        locked.chmod(0)
        return
    # Root lists a chmod 000 folder anyway: refuse it where folders are listed (the CLI test of
    # tests/test_hostile_files.py drops root's capabilities to show the real thing).
    real = os.scandir

    def refuse(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    m.setattr(os, "scandir", refuse)


# --- schema --------------------------------------------------------------------------------------


@case("story-status-missing", "AIDLC-SCHEMA-001", STORY2, "required field 'status' is missing")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(STORY2, "status", None)
    return 1


@case("bolt-type-missing", "AIDLC-SCHEMA-001", BOLT2, "required field 'type' is missing")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(BOLT2, "type", None)
    return 1


@case("unit-name-missing", "AIDLC-SCHEMA-001", UNIT_BRIEF, "required field 'unit' is missing")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(UNIT_BRIEF, "unit", None)
    return 1


@case("story-key-for-id", "AIDLC-SCHEMA-006", STORY2, "`story:` is read as `id:`, the canonical key")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(STORY2, "id: 002-refund-order", "story: 002-refund-order")
    return b.line(STORY2, "story: 002-refund-order")


@case("unit-brief-id-for-unit", "AIDLC-SCHEMA-006", UNIT_BRIEF, "`id:` is read as `unit:`, the canonical key")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(UNIT_BRIEF, "unit: 001-checkout-api", "id: 001-checkout-api")
    return b.line(UNIT_BRIEF, "id: 001-checkout-api")


@case("project-type-missing", "AIDLC-SCHEMA-001", PROJECT, "required field 'project_type' is missing")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(PROJECT, "project_type", None)
    return 1


@case("story-status-enum", "AIDLC-SCHEMA-002", STORY2,
      "'status' is 'shipped', expected one of 'draft', 'ready', 'in-progress', 'complete' or 'blocked'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "status", "shipped")


@case("story-priority-enum", "AIDLC-SCHEMA-002", STORY2, "'priority' is 'urgent'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "priority", "urgent")


@case("bolt-type-enum", "AIDLC-SCHEMA-002", BOLT2, "'type' is 'big-bolt', expected one of 'simple-construction-bolt'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "type", "big-bolt")


@case("bolt-status-enum", "AIDLC-SCHEMA-002", BOLT2, "'status' is 'shipped'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "status", "shipped")


@case("bolt-risk-enum", "AIDLC-SCHEMA-002", BOLT2, "'risk' is 'extreme', expected one of 'low', 'medium'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "risk", "extreme")


@case("implemented-not-bool", "AIDLC-SCHEMA-003", STORY2, "'implemented': Input should be a valid boolean")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "implemented", "partial")


@case("stories-not-a-list", "AIDLC-SCHEMA-003", BOLT2, "'stories': Input should be a valid list")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "stories", "5")


@case("timestamp-garbage", "AIDLC-SCHEMA-003", STORY2, "'created': 'last tuesday' is not an ISO 8601 timestamp")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "created", "last tuesday")


@case("key-not-text", "AIDLC-SCHEMA-003", STORY2, "front-matter key 1 is not a name")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.add_key(STORY2, "1", "one")


@case("story-created-no-tz", "AIDLC-SCHEMA-004", STORY2, "'created': timestamp '2026-11-30T08:00:00' has no time zone")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "created", "2026-11-30T08:00:00")


@case("quoted-no-tz", "AIDLC-SCHEMA-004", BOLT1, "'started': timestamp '2026-11-30T09:00:00' has no time zone")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT1, "started", '"2026-11-30 09:00:00"')


@case("project-no-tz", "AIDLC-SCHEMA-004", PROJECT, "'initialized_at'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(PROJECT, "initialized_at", "2026-11-30T08:00:00")


@case("requirements-updated-no-tz", "AIDLC-SCHEMA-004", REQUIREMENTS, "'updated'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(REQUIREMENTS, "updated", "2026-11-30T09:00:00")


@case("stage-completed-no-tz", "AIDLC-SCHEMA-004", BOLT1, "'stages_completed.1.completed'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(BOLT1, "- design: 2026-11-30T11:00:00+01:00", "- design: 2026-11-30T11:00:00")
    return b.line(BOLT1, "stages_completed:")


@case("bare-date", "AIDLC-SCHEMA-005", UNIT_BRIEF, "'updated' is the bare date 2026-12-01")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(UNIT_BRIEF, "updated", "2026-12-01")


@case("quoted-bare-date", "AIDLC-SCHEMA-005", UNIT_BRIEF, "'updated' is the bare date 2026-12-01")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    # Text, not a YAML date: the rule passes over text only where it holds a time ('T'), never text like this.
    return b.set_key(UNIT_BRIEF, "updated", '"2026-12-01"')


@case("stage-bare-date", "AIDLC-SCHEMA-005", BOLT1, "'stages_completed.0.completed' is the bare date 2026-11-30")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(BOLT1, "    completed: 2026-11-30T10:00:00Z", "    completed: 2026-11-30")
    return b.line(BOLT1, "    completed: 2026-11-30")


# --- identity ------------------------------------------------------------------------------------


@case("duplicate-story-id", "AIDLC-ID-001", STORY2, f"story id '001-pay-by-card' is also used by {STORY1}",
      others=("AIDLC-ID-002",))
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "id", "001-pay-by-card")


@case("duplicate-bolt-id", "AIDLC-ID-001", BOLT2, f"bolt id '001-checkout-api' is also used by {BOLT1}",
      others=("AIDLC-ID-002",))
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "id", "001-checkout-api")


@case("title-right-to-left-override", "AIDLC-ID-004", STORY2,
      "# Story: Refund \\u202eexe.txt holds the bidirectional control U+202E (RIGHT-TO-LEFT OVERRIDE)")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return body_line(b, STORY2, "# Story: Refund an order", "# Story: Refund \u202eexe.txt")


@case("id-with-escape-sequence", "AIDLC-ID-004", BOLT2, "the control character U+001B",
      others=("AIDLC-ID-002",))
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "id", '"002-checkout-refunds\\e[2J"')


@case("front-matter-title-right-to-left-override", "AIDLC-ID-004", STORY2,
      "Refund \\u202eexe.txt holds the bidirectional control U+202E (RIGHT-TO-LEFT OVERRIDE)")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    # Written as is, no escape: no front matter of the bank holds a backslash, so the first scan reads the text alone.
    b.replace(STORY2, "status: ready", "title: Refund \u202eexe.txt\nstatus: ready")
    return b.line(STORY2, "title:")


@case("zero-width-folder", "AIDLC-ID-004", f"{MB}/bolts/003-check\u200bout/bolt.md",
      "the name '003-check\\u200bout' holds the zero-width character U+200B", others=("AIDLC-ID-002",))
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    b.write(f"{MB}/bolts/003-check\u200bout/bolt.md", b.read(BOLT2).replace("id: 002-checkout-refunds",
                                                                          "id: 003-checkout"))


@case("story-file-name-right-to-left-override", "AIDLC-ID-004", f"{UNIT_DIR}/stories/003-refund\u202edm.exe.md",
      "the name '003-refund\\u202edm.exe.md' holds the bidirectional control U+202E",
      others=("AIDLC-ID-002", "AIDLC-REF-009"))
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    # Only the file's name hides text: its front matter, title and every other name are plain.
    b.write(f"{UNIT_DIR}/stories/003-refund\u202edm.exe.md", b.read(STORY2).replace("id: 002-refund-order",
                                                                                  "id: 003-refund"))


@case("intent-title-zero-width", "AIDLC-ID-004", REQUIREMENTS, "the zero-width character U+200B")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    # One heading of a long file hides a character: found however many other files come before it.
    return body_line(b, REQUIREMENTS, "# Intent: Checkout", "# Intent: Check\u200bout")


@case("bolt-id-a-path", "AIDLC-ID-005", BOLT2, "the id '../../src/evil' holds a path separator",
      others=("AIDLC-ID-002",))
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "id", "../../src/evil")


@case("bolt-id-an-option", "AIDLC-ID-005", BOLT2, "the id '--approve' starts with '-' (a command would read it as "
      "an option)", others=("AIDLC-ID-002",))
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    # In a command printed for a person to paste (`aidlc bolt start --dry-run`) it is an option, not the bolt.
    return b.set_key(BOLT2, "id", "'--approve'")


@case("duplicate-requirement", "AIDLC-ID-001", REQUIREMENTS, "requirement FR-1 is defined twice in intent 001-checkout")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(REQUIREMENTS, b.read(REQUIREMENTS) + "\n### FR-1: Pay by card, again\n\n**Priority**: Could\n")
    return b.line(REQUIREMENTS, "### FR-1: Pay by card, again")


@case("story-id-is-another-story-file", "AIDLC-ID-002", STORY1,
      f"story id '002-refund-order' is the file name of another story of the unit, {STORY2}",
      others=("AIDLC-REF-009",))  # the broken link it causes: bolt 002 now lists the wrong story
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(STORY2, "id", "vscode-extension-story-ap-002")  # an id of its own scheme: not a finding
    return b.set_key(STORY1, "id", "002-refund-order")


@case("bolt-id-vs-folder", "AIDLC-ID-002", BOLT2,
      "bolt id 'refunds' does not match its folder name '002-checkout-refunds'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "id", "refunds")


@case("unit-name-vs-folder", "AIDLC-ID-002", UNIT_BRIEF,
      "names unit '002-payments' but lives in folder '001-checkout-api'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(UNIT_BRIEF, "unit", "002-payments")


@case("intent-name-vs-folder", "AIDLC-ID-002", REQUIREMENTS,
      "names intent '002-other' but lives in folder '001-checkout'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(REQUIREMENTS, "intent", "002-other")


@case("intent-number-twice", "AIDLC-ID-003", f"{MB}/intents/001-returns", "intent 001-returns has the number 001")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    b.write(f"{MB}/intents/001-returns/requirements.md", "# Intent: returns\n")


@case("unit-number-twice", "AIDLC-ID-003", f"{INTENT}/units/001-checkout-web",
      "unit 001-checkout-web has the number 001")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    b.write(f"{INTENT}/units/001-checkout-web/unit-brief.md",
            "---\nunit: 001-checkout-web\nintent: 001-checkout\n---\n# Unit\n")


@case("bolt-number-twice", "AIDLC-ID-003", f"{MB}/bolts/002-checkout-web/bolt.md",
      "bolt 002-checkout-web has the number 002")
def _(b: Bank, _m: pytest.MonkeyPatch) -> None:
    b.write(f"{MB}/bolts/002-checkout-web/bolt.md",
            b.read(BOLT2).replace("id: 002-checkout-refunds", "id: 002-checkout-web"))


# --- references ----------------------------------------------------------------------------------


@case("story-links-unknown-requirement", "AIDLC-REF-001", STORY1,
      "story 001-pay-by-card links requirement FR-9, which intent 001-checkout does not define")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(STORY1, "requirements", "\n  - FR-1\n  - FR-9\n  - NFR-1".lstrip(" "))
    return b.line(STORY1, "- FR-9")


@case("related-line-unknown-requirement", "AIDLC-REF-001", STORY2,
      "story 002-refund-order links requirement NFR-8, which intent 001-checkout does not define")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return body_line(b, STORY2, "**Related Requirements**: FR-2 / NFR-1", "**Related Requirements**: FR-2 / NFR-8")


@case("qualified-link-unknown-requirement", "AIDLC-REF-001", STORY1, "links requirement 001-checkout/FR-7")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY1, "requirements", "[FR-1, NFR-1, 001-checkout/FR-7]")


@case("qualified-link-unknown-intent", "AIDLC-REF-001", STORY1, "links requirement 404-nowhere/FR-1, whose intent")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY1, "requirements", "[FR-1, NFR-1, 404-nowhere/FR-1]")


@case("story-unit-unknown", "AIDLC-REF-002", STORY2,
      "story 002-refund-order names unit '009-ledger', which does not exist (its folder is 001-checkout-api)")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "unit", "009-ledger")


@case("story-intent-unknown", "AIDLC-REF-003", STORY2,
      "story 002-refund-order names intent '009-nope', which does not exist")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "intent", "009-nope")


@case("unit-intent-unknown", "AIDLC-REF-003", UNIT_BRIEF, "unit 001-checkout-api names intent '009-nope'")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(UNIT_BRIEF, "intent", "009-nope")


@case("bolt-story-unknown", "AIDLC-REF-004", BOLT1,
      "bolt 001-checkout-api lists story '003-split-payment', which does not exist")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(BOLT1, "  - 001-pay-by-card\n", "  - 001-pay-by-card\n  - 003-split-payment\n")
    return b.line(BOLT1, "- 003-split-payment")


@case("bolt-unit-unknown", "AIDLC-REF-005", BOLT2, "names unit 'ledger' in `unit`, which does not exist")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "unit", "ledger")


@case("bolt-requires-unit-unknown", "AIDLC-REF-005", BOLT2, "names unit '007-ledger' in `requires_units`")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "requires_units", "[001-checkout-api, 007-ledger]")


@case("bolt-requires-bolt-unknown", "AIDLC-REF-006", BOLT2,
      "bolt 002-checkout-refunds names bolt '000-setup' in `requires_bolts`, which does not exist")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(BOLT2, "  - 001-checkout-api\n", "  - 001-checkout-api\n  - 000-setup\n")
    return b.line(BOLT2, "- 000-setup")


@case("bolt-enables-bolt-unknown", "AIDLC-REF-006", BOLT1, "names bolt '003-receipts' in `enables_bolts`")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(BOLT1, "  - 002-checkout-refunds\n", "  - 002-checkout-refunds\n  - 003-receipts\n")
    return b.line(BOLT1, "- 003-receipts")


@case("bolt-intent-unknown", "AIDLC-REF-007", BOLT2,
      "bolt 002-checkout-refunds names intent '404-gone', which does not exist")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(BOLT2, "intent", "404-gone")


@case("bolt-intent-not-its-units", "AIDLC-REF-007", BOLT2, "but its unit 001-checkout-api belongs to 001-checkout")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(f"{MB}/intents/002-returns/requirements.md", "# Intent: returns\n")
    return b.set_key(BOLT2, "intent", "002-returns")


@case("story-assigned-bolt-unknown", "AIDLC-REF-008", STORY2,
      "story 002-refund-order is assigned to bolt '009-nope', which does not exist")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "assigned_bolt", "009-nope")


@case("story-assigned-bolt-disagrees", "AIDLC-REF-009", STORY2,
      "story 002-refund-order names bolt 001-checkout-api in `assigned_bolt`, but that bolt does not list it")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return b.set_key(STORY2, "assigned_bolt", "001-checkout-api")


# --- state ---------------------------------------------------------------------------------------
# A completion without a ledger is also AIDLC-LEDGER-007 (a warning): the ledger's tests own that rule.
DONE = ("AIDLC-LEDGER-007",)


@case("complete-story-unchecked-box", "AIDLC-STATE-001", STORY1,
      "story 001-pay-by-card is complete but 1 of 2 acceptance boxes is unchecked", others=DONE)
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    complete_first_bolt(b)
    return body_line(b, STORY1, "- [x] **Given** a declined card", "- [ ] **Given** a declined card")


@case("complete-story-not-implemented", "AIDLC-STATE-002", STORY1,
      "story 001-pay-by-card is complete but `implemented` is false", others=DONE)
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    complete_first_bolt(b)
    return b.set_key(STORY1, "implemented", "false")


@case("complete-story-implemented-missing", "AIDLC-STATE-002", STORY1, "`implemented` is missing", others=DONE)
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    complete_first_bolt(b)
    b.set_key(STORY1, "implemented", None)
    return b.line(STORY1, "status:")


@case("complete-bolt-open-story", "AIDLC-STATE-003", BOLT1,
      "bolt 001-checkout-api is complete but its story 001-pay-by-card is in-progress", others=DONE)
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    complete_first_bolt(b)
    b.set_key(STORY1, "status", "in-progress")
    return b.line(BOLT1, "  - 001-pay-by-card")


@case("started-after-completed", "AIDLC-STATE-004", BOLT1,
      "bolt 001-checkout-api started 2026-12-02T09:00:00+00:00 after it completed 2026-12-01T17:00:00+00:00",
      others=DONE)
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    complete_first_bolt(b)
    b.set_key(BOLT1, "started", "2026-12-02T09:00:00Z")
    return b.line(BOLT1, "completed: 2026-12-01")


@case("started-after-completed-across-zones", "AIDLC-STATE-004", BOLT1, "after it completed", others=DONE)
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    complete_first_bolt(b)
    b.set_key(BOLT1, "started", "2026-12-01T10:00:00-08:00")  # 18:00Z, an hour after 17:00Z
    return b.line(BOLT1, "completed: 2026-12-01")


@case("requires-itself", "AIDLC-STATE-005", BOLT2, "dependency cycle: 002-checkout-refunds -> 002-checkout-refunds")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(BOLT2, "  - 001-checkout-api\n", "  - 001-checkout-api\n  - 002-checkout-refunds\n")
    return b.line(BOLT2, "  - 002-checkout-refunds")


@case("complete-bolt-without-completed", "AIDLC-STATE-006", BOLT1,
      "bolt 001-checkout-api is complete but has no `completed`", others=DONE)
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    complete_first_bolt(b)
    b.set_key(BOLT1, "completed", "null")
    return b.line(BOLT1, "status:")


@case("started-bolt-without-started", "AIDLC-STATE-006", BOLT1, "is in-progress but has no `started`")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(BOLT1, "started", None)
    return b.line(BOLT1, "status:")


@case("started-before-dependency-done", "AIDLC-STATE-007", BOLT2,
      "bolt 002-checkout-refunds is in-progress but the bolt it requires, 001-checkout-api, is in-progress")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(BOLT2, "status", "in-progress")
    b.set_key(BOLT2, "started", "2026-12-02T08:00:00Z")
    return b.line(BOLT2, "  - 001-checkout-api")


# --- structure -----------------------------------------------------------------------------------


@case("story-without-criteria", "AIDLC-STRUCT-001", STORY2, "story 002-refund-order has no acceptance criteria")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(STORY2, "## Acceptance Criteria\n", "## Notes\n")
    return b.line(STORY2, "---", nth=2) + 1  # the first body line


@case("criteria-only-in-a-fence", "AIDLC-STRUCT-001", STORY2, "has no acceptance criteria")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(STORY2, "## Acceptance Criteria\n", "```markdown\n## Acceptance Criteria\n")
    b.write(STORY2, b.read(STORY2) + "```\n")
    return b.line(STORY2, "---", nth=2) + 1


@case("vague-criterion", "AIDLC-STRUCT-002", STORY2,
      "1 of 1 acceptance criteria are not binary; line 18 is vague ('quickly')")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return body_line(b, STORY2, "with the full amount", "quickly")


@case("vague-criterion-spelled-with-a-long-s", "AIDLC-STRUCT-002", STORY2,
      "1 of 1 acceptance criteria are not binary; line 18 is vague ('eaſily')")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    # 'ſ' is an s to the rule, which ignores case as Unicode does: a hidden opinion word is found like any other.
    return body_line(b, STORY2, "with the full amount", "eaſily")


def test_vague_words_quoted_as_code_are_data_not_opinion(bank: Bank) -> None:
    bank.replace(STORY2, "with the full amount", "with the message `the page loads fast`")
    assert bank.findings() == []


@case("criterion-not-a-checkbox", "AIDLC-STRUCT-002", STORY2, "is not a checkbox")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    return body_line(b, STORY2, "- [ ] **Given** a paid order", "- **Given** a paid order")


@case("empty-checkbox", "AIDLC-STRUCT-002", STORY2,
      "2 acceptance criteria are not binary; line 19 is an empty checkbox")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write(STORY2, b.read(STORY2) + "- [ ]\n")
    return 19


@case("ddd-bolt-without-stage-files", "AIDLC-STRUCT-003", BOLT1,
      "DDD bolt 001-checkout-api is complete but has no ddd-0", count=2, others=DONE)
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    complete_first_bolt(b)
    return b.set_key(BOLT1, "type", "ddd-construction-bolt")


@case("stage-artifact-missing", "AIDLC-STRUCT-004", BOLT1,
      "bolt 001-checkout-api records a completed stage whose artifact implementation-plan.md does not exist")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.remove(f"{BOLT1_DIR}/implementation-plan.md")
    return b.line(BOLT1, "artifact: implementation-plan.md")


@case("runbook-question-missing", "AIDLC-STRUCT-005", RUNBOOK, "runbook does not answer: Owner, Communication")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(RUNBOOK, "## Owner\n", "## Who\n")
    b.replace(RUNBOOK, "## Communication\n", "## Afterwards\n")
    return 1


@case("requirement-without-priority", "AIDLC-STRUCT-006", REQUIREMENTS, "requirement 001-checkout/FR-2 has no priority")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.replace(REQUIREMENTS, "**Priority**: Should\n", "")
    return b.line(REQUIREMENTS, "### FR-2:")


@case("memory-bank-chosen-beside-aidlc-docs", "AIDLC-STRUCT-007", "aidlc.yaml",
      "`layout: memory-bank`, and aidlc-docs/audit.md holds aidlc-workflows records that no rule reads")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.write("aidlc.yaml", "version: 1\nlayout: memory-bank\n")
    b.write("aidlc-docs/audit.md", "# AI-DLC Audit Log\n")
    return 2


# --- coverage ------------------------------------------------------------------------------------


@case("must-requirement-without-story", "AIDLC-COV-001", REQUIREMENTS,
      "Must requirement 001-checkout/FR-1 has no story")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(STORY1, "requirements", "[NFR-1]")
    return b.line(REQUIREMENTS, "### FR-1:")


@case("ready-story-without-bolt", "AIDLC-COV-002", STORY2, "story 002-refund-order is ready but no bolt includes it")
def _(b: Bank, _m: pytest.MonkeyPatch) -> int:
    b.set_key(STORY2, "assigned_bolt", "null")
    b.set_key(BOLT2, "stories", "[]")
    return b.set_key(STORY2, "status", "ready")


# --- the tests -----------------------------------------------------------------------------------


def test_clean_bank_has_zero_findings(bank: Bank) -> None:
    report = bank.report()
    assert report.findings == []
    assert report.summary.model_dump() == {"files": 8, "errors": 0, "warnings": 0, "infos": 0, "adopted": 0}


# The ledger family checks events.jsonl and is tested with the ledger (tests of aidlc gate / aidlc log); the ci
# family needs a pull request's history and is tested in test_ci.py.
# The memory-bank layout's rules (the aidlc-docs layout's have their fixtures in tests/test_aidlc_docs_*.py).
VALIDATOR_RULES = {code: rule for code, rule in every_rule().items()
                   if rule.family not in ("ledger", "ci", "aidlc-docs")}


def test_every_rule_in_the_catalogue_has_a_broken_fixture() -> None:
    assert {c.code for c in CASES} == set(VALIDATOR_RULES)


@pytest.mark.parametrize("broken", CASES, ids=[f"{c.code}:{c.name}" for c in CASES])
def test_broken_fixture(bank: Bank, monkeypatch: pytest.MonkeyPatch, broken: Case) -> None:
    assert bank.findings(broken.code) == []  # the clean counterpart
    line = broken.mutate(bank, monkeypatch)
    findings = bank.findings()
    hits = [f for f in findings if f.code == broken.code]
    assert [(f.path, f.line) for f in hits] == [(broken.path, line)] * broken.count, findings
    assert all(broken.message in f.message for f in hits), hits[0].message
    assert all(f.severity == every_rule()[broken.code].severity for f in hits)
    assert all(f.fix for f in hits)
    unexpected = {f.code for f in findings} - {broken.code} - broken.others
    assert not unexpected, [f for f in findings if f.code in unexpected]



def test_a_folder_starting_with_a_dash_is_named_with_a_rename(bank: Bank) -> None:
    """A unit folder or a bolt folder named like an option (`--force`): quoting cannot keep a command that names it
    from reading it as one, so AIDLC-ID-005 asks for a new name, not for an id to match it."""
    (bank.root / UNIT_DIR).rename(bank.root / UNIT_DIR.replace("001-checkout-api", "--force"))
    (bank.root / BOLT2_DIR).rename(bank.root / f"{MB}/bolts/-002-refunds")
    bank.set_key(f"{MB}/bolts/-002-refunds/bolt.md", "id", "'-002-refunds'")
    found = {(f.path, f.message, f.fix) for f in bank.findings("AIDLC-ID-005")}
    assert found == {
        (f"{INTENT}/units/--force", "the folder name '--force' starts with '-' (a command would read it as an option)",
         "rename the folder, and the ids that name it"),
        (f"{MB}/bolts/-002-refunds/bolt.md", "the id '-002-refunds' starts with '-' (a command would read it as an "
         "option)", "rename memory-bank/bolts/-002-refunds/bolt.md: its name starts with '-' (a command would read it "
         "as an option)")}

# --- links the parser must read the way real banks write them ------------------------------------


def index_of(bank: Bank) -> BankIndex:
    return BankIndex(load_bank(bank.root, load_config(bank.root)))


def test_body_line_related_requirements_are_links(bank: Bank) -> None:
    (story,) = [s for s in index_of(bank).bank.stories if s.stem == "002-refund-order"]
    assert story.requirement_links == ["FR-2", "NFR-1"]
    assert story.related_line == bank.line(STORY2, "**Related Requirements**")


def test_front_matter_and_body_links_are_read_together(bank: Bank) -> None:
    bank.add_key(STORY2, "requirements", "[FR-2]")
    (story,) = [s for s in index_of(bank).bank.stories if s.stem == "002-refund-order"]
    assert story.requirement_links == ["FR-2", "NFR-1"]
    assert bank.findings() == []


def test_a_related_link_covers_a_must_requirement(bank: Bank) -> None:
    bank.set_key(STORY1, "requirements", "[FR-1]")  # NFR-1 (Must) now only in story 2's body line
    assert bank.findings() == []
    bank.replace(STORY2, "FR-2 / NFR-1", "FR-2")
    assert [(f.code, f.line) for f in bank.findings()] == [("AIDLC-COV-001", bank.line(REQUIREMENTS, "### NFR-1"))]


def test_sub_requirement_links_resolve_to_their_parent(bank: Bank) -> None:
    bank.set_key(STORY1, "requirements", "[FR-1.2, NFR-1]")
    assert bank.findings() == []


def test_qualified_requirement_links_resolve(bank: Bank) -> None:
    bank.set_key(STORY1, "requirements", "[001-checkout/FR-1, checkout/NFR-1]")
    assert bank.findings() == []


def test_units_named_without_numeric_prefix_resolve(bank: Bank) -> None:
    index = index_of(bank)
    unit = index.unit("checkout-api")
    assert unit is not None and unit.id == "001-checkout-api"
    assert index.unit("001-checkout-api") is unit
    assert bank.read(STORY2).count("unit: checkout-api") == 1  # the clean bank relies on it
    assert bank.findings() == []


def test_unit_folders_without_numbers_resolve(bank: Bank) -> None:
    folder = f"{INTENT}/units/payments"
    bank.write(f"{folder}/unit-brief.md", "---\nunit: payments\nintent: checkout\n---\n# Unit\n")
    bank.write(f"{folder}/stories/001-capture.md", bank.read(STORY2).replace("id: 002-refund-order", "id: 001-capture")
               .replace("unit: checkout-api", "unit: payments").replace("assigned_bolt: 002-checkout-refunds",
                                                                      "assigned_bolt: 003-payments"))
    bank.write(f"{MB}/bolts/003-payments/bolt.md", bank.read(BOLT2).replace("002-checkout-refunds", "003-payments")
               .replace("unit: checkout-api", "unit: payments").replace("[002-refund-order]", "[001-capture]")
               .replace("requires_units: [001-checkout-api]", "requires_units: [payments, checkout-api]"))
    assert bank.findings() == []


def test_bolts_are_referenced_by_folder_or_by_id(bank: Bank) -> None:
    bank.set_key(BOLT2, "id", "refunds-bolt")  # the id no longer equals the folder
    bank.set_key(STORY2, "assigned_bolt", "refunds-bolt")  # by id
    bank.set_key(BOLT1, "enables_bolts", "[002-checkout-refunds]")  # by folder
    index = index_of(bank)
    assert index.bolt("refunds-bolt") is index.bolt("002-checkout-refunds") is not None
    assert [f.code for f in bank.findings()] == ["AIDLC-ID-002"]


def test_stories_are_referenced_by_id_or_file_name(bank: Bank) -> None:
    bank.set_key(STORY1, "id", "checkout-story-1")
    bank.set_key(BOLT1, "stories", "[checkout-story-1]")
    assert [f.code for f in bank.findings()] == []  # an id of the bank's own scheme, unique: no finding
    bank.set_key(BOLT1, "stories", "[001-pay-by-card]")
    assert [f.code for f in bank.findings()] == []  # by file name, too


def test_same_story_file_name_in_two_units_is_not_a_duplicate(bank: Bank) -> None:
    folder = f"{INTENT}/units/002-checkout-web"
    bank.write(f"{folder}/unit-brief.md", "---\nunit: 002-checkout-web\nintent: 001-checkout\n---\n# Unit\n")
    bank.write(f"{folder}/stories/002-refund-order.md",
               bank.read(STORY2).replace("unit: checkout-api", "unit: 002-checkout-web")
               .replace("status: ready", "status: draft").replace("assigned_bolt: 002-checkout-refunds",
                                                                        "assigned_bolt: null"))
    assert bank.findings() == []


def test_cycle_of_three_prints_the_whole_cycle(bank: Bank) -> None:
    bank.write(f"{MB}/bolts/003-checkout-receipts/bolt.md",
               bank.read(BOLT2).replace("002-checkout-refunds", "003-checkout-receipts")
               .replace("[002-refund-order]", "[]").replace("  - 001-checkout-api\n", "  - 002-checkout-refunds\n"))
    bank.set_key(BOLT1, "requires_bolts", "[003-checkout-receipts]")
    receipts = f"{MB}/bolts/003-checkout-receipts/bolt.md"
    # On every bolt of the cycle, at the link each could remove, starting from itself.
    assert [(f.path, f.line, f.message) for f in bank.findings("AIDLC-STATE-005")] == [
        (BOLT1, bank.line(BOLT1, "requires_bolts:"), "dependency cycle: 001-checkout-api -> 003-checkout-receipts "
         "-> 002-checkout-refunds -> 001-checkout-api"),
        (BOLT2, bank.line(BOLT2, "  - 001-checkout-api"), "dependency cycle: 002-checkout-refunds -> "
         "001-checkout-api -> 003-checkout-receipts -> 002-checkout-refunds"),
        (receipts, bank.line(receipts, "  - 002-checkout-refunds"), "dependency cycle: 003-checkout-receipts -> "
         "002-checkout-refunds -> 001-checkout-api -> 003-checkout-receipts")]


def test_a_cycle_of_two_is_reported_on_both_bolts(bank: Bank) -> None:
    bank.set_key(BOLT1, "requires_bolts", "[002-checkout-refunds]")
    assert [(f.path, f.line, f.message) for f in bank.findings("AIDLC-STATE-005")] == [
        (BOLT1, bank.line(BOLT1, "requires_bolts:"),
         "dependency cycle: 001-checkout-api -> 002-checkout-refunds -> 001-checkout-api"),
        (BOLT2, bank.line(BOLT2, "  - 001-checkout-api"),
         "dependency cycle: 002-checkout-refunds -> 001-checkout-api -> 002-checkout-refunds")]


def test_unreadable_requirements_give_one_finding_not_one_per_link(bank: Bank) -> None:
    bank.write_bytes(REQUIREMENTS, bank.path(REQUIREMENTS).read_bytes().replace(b"Pay by card", b"Pay \xff card"))
    assert [(f.code, f.path, f.line) for f in bank.findings()] == [
        ("AIDLC-FILE-001", REQUIREMENTS, bank.line(REQUIREMENTS, "### FR-1:"))]


def test_an_unreadable_story_does_not_make_requirements_uncovered(bank: Bank) -> None:
    bank.write(STORY1, "---\nid: [\n---\n")  # the only story linking FR-1 (Must)
    assert [(f.code, f.path) for f in bank.findings()] == [("AIDLC-FILE-002", STORY1)]


def test_story_with_invalid_status_gives_only_the_schema_finding(bank: Bank) -> None:
    bank.set_key(STORY1, "status", "shipped")
    assert [f.code for f in bank.findings()] == ["AIDLC-SCHEMA-002"]


def test_complete_story_checks_every_box_in_scenarios(bank: Bank) -> None:
    complete_first_bolt(bank)
    bank.write(STORY1, bank.read(STORY1) + "\n### Scenario: refunds\n- [ ] **Given** x, **When** y, **Then** z\n")
    (finding,) = bank.findings("AIDLC-STATE-001")
    assert finding.line == bank.line(STORY1, "**Given** x, **When** y")
    assert "1 of 3 acceptance boxes is unchecked" in finding.message


def test_complete_bolt_checks_each_story(bank: Bank) -> None:
    bank.set_key(BOLT2, "status", "complete")
    bank.set_key(BOLT2, "started", "2026-12-02T08:00:00Z")
    bank.set_key(BOLT2, "completed", "2026-12-03T08:00:00Z")
    (finding,) = bank.findings("AIDLC-STATE-003")
    assert finding.path == BOLT2
    assert finding.message == "bolt 002-checkout-refunds is complete but its story 002-refund-order is ready"


def test_a_completed_bolt_passes_every_state_rule(bank: Bank) -> None:
    complete_first_bolt(bank)
    assert [f.code for f in bank.findings()] == list(DONE)  # only: there is no ledger to attest it


def test_started_equal_to_completed_is_fine(bank: Bank) -> None:
    complete_first_bolt(bank)
    bank.set_key(BOLT1, "started", "2026-12-01T18:00:00+01:00")  # the same instant as 17:00Z
    assert [f.code for f in bank.findings()] == list(DONE)


# --- robustness: none of these may raise ---------------------------------------------------------


ROBUST: dict[str, Callable[[Bank], None]] = {
    "front-matter-list": lambda b: b.write(STORY1, "---\n- a\n- b\n---\n"),
    "front-matter-scalar": lambda b: b.write(BOLT1, "---\n42\n---\n"),
    "unclosed": lambda b: b.write(STORY1, "---\nid: 001-pay-by-card\nstatus: complete\n"),
    "empty-story": lambda b: b.write(STORY1, ""),
    "empty-everything": lambda b: [b.write(rel, "") for rel in (STORY1, STORY2, BOLT1, BOLT2, UNIT_BRIEF,
                                                                  REQUIREMENTS, PROJECT, RUNBOOK)],
    "bom": lambda b: b.write_bytes(STORY1, b"\xef\xbb\xbf" + b.path(STORY1).read_bytes()),
    "utf16": lambda b: b.write_bytes(STORY1, b.read(STORY1).encode("utf-16")),
    "nul-bytes": lambda b: b.write_bytes(STORY1, b"---\nid: \x00\x00\n---\n\x00"),
    "only-dashes": lambda b: b.write(BOLT1, "---"),
    "tabs": lambda b: b.set_key(STORY1, "status", "complete\n\tunit: x"),
    "huge-value": lambda b: b.set_key(STORY1, "assigned_bolt", "x" * 2_000_000),
    "huge-list": lambda b: b.set_key(BOLT1, "stories", "[" + ", ".join(f"s{i}" for i in range(20_000)) + "]"),
    "huge-int": lambda b: b.set_key(STORY1, "priority", "9" * 5000),
    "deep-nesting": lambda b: b.set_key(BOLT1, "complexity", "[" * 3000 + "]" * 3000),
    "deep-mapping": lambda b: b.add_key(BOLT1, "extra",
                                        "\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(600))),
    "key-not-text": lambda b: b.add_key(BOLT1, "null", "x"),
    "stages-garbage": lambda b: b.set_key(BOLT1, "stages_completed", "[[1, 2], {a: 1, b: 2}, 3, null]"),
    "links-of-every-type": lambda b: b.set_key(BOLT1, "requires_bolts", "[1, null, {a: b}, [x], true, 2.5]"),
    "status-mapping": lambda b: b.set_key(STORY1, "status", "{a: 1}"),
    "fenced-headings": lambda b: b.replace(STORY2, "## Acceptance Criteria",
                                           "```\n# Heading\n## Acceptance Criteria\n- [ ] fake\n```\n\n"
                                           "## Acceptance Criteria"),
    "requirements-in-fence": lambda b: b.write(REQUIREMENTS, b.read(REQUIREMENTS)
                                                + "\n```\n### FR-1: again\n### FR-99: fake\n```\n"),
    "directory-named-md": lambda b: b.path(f"{UNIT_DIR}/stories/003-folder.md").mkdir(),
    "broken-symlink": lambda b: os.symlink("nowhere.md", b.path(f"{UNIT_DIR}/stories/003-link.md")),
    "bolt-folder-empty": lambda b: b.path(f"{MB}/bolts/009-empty").mkdir(),
    "intents-is-a-file": lambda b: [b.write(f"{MB}/intents/README.md", "# intents\n")],
    "mixed-line-endings": lambda b: b.write_bytes(STORY1, b.path(STORY1).read_bytes().replace(b"\n", b"\r\n", 5)),
    "cr-only": lambda b: b.write_bytes(STORY1, b.path(STORY1).read_bytes().replace(b"\n", b"\r")),
    "self-and-mutual-cycles": lambda b: [b.set_key(rel, "requires_bolts", "[001-checkout-api, 002-checkout-refunds]")
                                         for rel in (BOLT1, BOLT2)],
}


@pytest.mark.parametrize("name", list(ROBUST))
def test_robust_input_never_raises(bank: Bank, name: str) -> None:
    ROBUST[name](bank)
    report = bank.report()
    for finding in report.findings:
        assert finding.path and not finding.path.startswith("/") and "\\" not in finding.path
        assert finding.line is None or finding.line >= 1
        assert len(finding.message) <= 400
        assert finding.code in every_rule()


def test_huge_value_message_is_shortened_but_keeps_both_ends(bank: Bank) -> None:
    bank.set_key(STORY2, "assigned_bolt", "x" * 1_000_000)  # just under the 1 MiB a bank file may hold
    (finding,) = bank.findings()
    assert finding.code == "AIDLC-REF-008"
    assert finding.message.startswith("story 002-refund-order is assigned to bolt 'xxx")
    assert finding.message.endswith("xxx', which does not exist")
    assert " ... " in finding.message and len(finding.message) <= 400


def test_bom_and_crlf_change_no_finding_and_no_line(bank: Bank) -> None:
    bank.set_key(STORY1, "status", "shipped")
    before = [(f.code, f.path, f.line) for f in bank.findings()]
    for rel in (STORY1, STORY2, BOLT1, BOLT2, REQUIREMENTS, UNIT_BRIEF, PROJECT, RUNBOOK):
        bank.write_bytes(rel, b"\xef\xbb\xbf" + bank.path(rel).read_bytes().replace(b"\n", b"\r\n"))
    assert [(f.code, f.path, f.line) for f in bank.findings()] == before == [("AIDLC-SCHEMA-002", STORY1, 5)]


def test_errors_and_warnings_are_counted(bank: Bank) -> None:
    bank.set_key(STORY2, "status", "shipped")  # error
    bank.set_key(UNIT_BRIEF, "updated", "2026-12-01")  # warning
    bank.replace(REQUIREMENTS, "**Priority**: Should\n", "")  # note
    summary = bank.report().summary
    assert (summary.errors, summary.warnings, summary.infos) == (1, 1, 1)
    assert summary.files == 8


def test_findings_are_sorted_by_path_line_code(bank: Bank) -> None:
    bank.set_key(STORY2, "status", "shipped")
    bank.set_key(STORY2, "created", "2026-11-30T08:00:00")
    bank.set_key(BOLT2, "risk", "extreme")
    keys = [f.sort_key() for f in bank.findings()]
    assert keys == sorted(keys) and len(keys) == 3


FAMILY_OF_PREFIX = {"FILE": "file", "SCHEMA": "schema", "ID": "identity", "REF": "references", "COV": "coverage",
                    "STRUCT": "structure", "STATE": "state"}


def test_every_code_names_its_family() -> None:
    for code, rule in VALIDATOR_RULES.items():
        prefix, number = code.removeprefix("AIDLC-").rsplit("-", 1)
        assert FAMILY_OF_PREFIX[prefix] == rule.family, code
        assert len(number) == 3 and number.isdigit(), code
        assert rule.summary and rule.fix and rule.severity in set(Severity)


CLEAN_STORY_META = {"id": "001-x", "unit": "001-u", "intent": "001-i", "status": "draft", "requirements": ["FR-1"]}


CLEAN_BOLT_META = {"id": "001-b", "unit": "001-u", "intent": "001-i", "type": "simple-construction-bolt",
                   "status": "in-progress", "stories": ["001-x"], "created": "2026-11-30T08:00:00Z",
                   "stages_completed": [{"name": "plan", "completed": "2026-11-30T10:00:00Z"}]}


@pytest.mark.parametrize(("model_name", "metas"), [
    ("Story", []), ("Story", [CLEAN_STORY_META]),
    ("Story", [CLEAN_STORY_META, {**CLEAN_STORY_META, 1: "a key that is not text"}]),
    ("Story", [CLEAN_STORY_META, {"id": "no-unit"}]),
    ("Story", [{**CLEAN_STORY_META, None: 1}, {"status": "bogus"}, CLEAN_STORY_META]),
    # Bolts are validated in one batch too (aidlc/bank/loader.py): the same models and problems as one by one.
    ("Bolt", [CLEAN_BOLT_META, {**CLEAN_BOLT_META, "stages_completed": 7}, CLEAN_BOLT_META]),
    ("Bolt", [{**CLEAN_BOLT_META, "created": "2026-11-30T08:00:00"}, {**CLEAN_BOLT_META, "status": "bogus"}]),
    ("Bolt", [{**CLEAN_BOLT_META, "created": datetime.date(2026, 11, 30)}, {**CLEAN_BOLT_META, 2: "x"},
              {"id": "only-an-id"}, CLEAN_BOLT_META]),
])
def test_validating_many_front_matters_at_once_equals_one_by_one(model_name: str, metas: list[dict]) -> None:
    from aidlc.bank.items import validate_front_matter, validate_many
    from aidlc.model import artifacts

    model = getattr(artifacts, model_name)
    assert validate_many(model, metas) == [validate_front_matter(model, meta) for meta in metas]
