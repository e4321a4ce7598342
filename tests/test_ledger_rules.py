"""The ledger rules of `aidlc validate` (AIDLC-LEDGER-001..012 and 018): each with a broken and a clean fixture.
(Completion evidence and a lost ledger are in test_claims.py.)

The ledgers are real: started by `aidlc init`, filled by `aidlc gate`, or appended through
aidlc.events.ledger.Ledger where a test needs an event no command would write.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import aidlc.events.view as view_module
from aidlc.events import canonical
from aidlc.events.ledger import Ledger
from aidlc.events.verify import line_hash
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from aidlc.model.findings import Finding
from aidlc.model.types import Severity
from aidlc.rules.catalogue import CATALOGUE
from tests import forge
from tests.helpers import Bank, complete_first_bolt, run_cli
from tests.test_gate import (
    BOLT,
    BOLT_ID,
    INTENT_ID,
    LEDGER,
    MB,
    PLAN,
    REQUIREMENTS,
    STORY,
    approve,
    check_boxes,
    edit,
    findings,
    front,
    git,
    read,
    run,
    through_inception,
    through_plan,
    through_walkthrough,
    write,
)
from tests.test_status_gates import gates_of, status_json


def hits(root: Path, code: str) -> list[Finding]:
    return [f for f in findings(root) if f.code == code]


def where(found: list[Finding]) -> list[tuple[str, int | None]]:
    return [(f.path, f.line) for f in found]


def line_of(root: Path, rel: str, prefix: str) -> int:
    return next(n for n, line in enumerate(read(root, rel).splitlines(), start=1) if line.startswith(prefix))



# -- AIDLC-LEDGER-001: the chain ---------------------------------------------------------------------------------
def test_001_an_edited_byte_breaks_the_chain(chain: Path) -> None:
    through_inception(chain)
    assert hits(chain, "AIDLC-LEDGER-001") == []
    path = chain / LEDGER
    stat = path.stat()
    lines = path.read_bytes().splitlines(keepends=True)
    digest = json.loads(lines[2])["fingerprint"]["sha256"]
    flipped = digest[:10] + ("0" if digest[10] != "0" else "1") + digest[11:]
    lines[2] = lines[2].replace(digest.encode(), flipped.encode())  # one byte, same size
    path.write_bytes(b"".join(lines))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as if within the same clock tick
    found = hits(chain, "AIDLC-LEDGER-001")
    assert where(found) == [(LEDGER, 3)]
    assert "edited" in found[0].message and found[0].severity == Severity.error and found[0].fix


def test_001_a_removed_event_breaks_the_chain(chain: Path) -> None:
    through_inception(chain)
    lines = read(chain, LEDGER).splitlines(keepends=True)
    write(chain, LEDGER, "".join(lines[:2] + lines[3:]))
    assert where(hits(chain, "AIDLC-LEDGER-001")) == [(LEDGER, 3)]


def test_001_a_seq_written_as_text_is_no_link_of_the_chain(chain: Path) -> None:
    """`"seq":"3"` would pass a lax reading as 3; the chain takes a number only, whatever the line's hash says."""
    approve(chain, INTENT_ID, "requirements")
    last = json.loads(read(chain, LEDGER).splitlines()[-1])
    forged = forge.event(last["seq"] + 1, ts=forge.stamp(datetime.now(UTC))) | {"seq": str(last["seq"] + 1),
                                                                                  "prev": last["hash"]}
    forged["hash"] = canonical.event_hash(forged)
    write(chain, LEDGER, read(chain, LEDGER) + canonical.line_of(forged).decode())
    line = len(read(chain, LEDGER).splitlines())

    found = [f for f in findings(chain) if f.code.startswith("AIDLC-LEDGER")]

    assert [(f.code, f.line) for f in found] == [("AIDLC-LEDGER-001", line)]  # 018 does not say it again
    verified = run_cli("log", "verify", "--format", "json", cwd=chain)
    assert verified.returncode == 1 and json.loads(verified.stdout)["problem"]["line"] == line
    assert json.loads(verified.stdout)["problem"]["kind"] == "invalid"


# -- AIDLC-LEDGER-002: a complete bolt needs its gates ------------------------------------------------------------
def _complete_bolt_by_hand(root: Path) -> int:
    edit(root, BOLT, "status: planned", "status: complete")
    edit(root, BOLT, "completed: null", "completed: 2030-01-01T00:00:00Z")
    return line_of(root, BOLT, "status:")


def test_002_a_bolt_marked_complete_by_hand(chain: Path) -> None:
    line = _complete_bolt_by_hand(chain)
    found = hits(chain, "AIDLC-LEDGER-002")
    assert where(found) == [(BOLT, line)]
    assert "has no approved plan, walkthrough gate" in found[0].message
    assert found[0].fix == f"aidlc gate approve {BOLT_ID} --stage plan"


def test_002_a_bolt_complete_with_only_its_plan_approved(chain: Path) -> None:
    through_plan(chain)
    edit(chain, BOLT, "status: in-progress", "status: complete")
    found = hits(chain, "AIDLC-LEDGER-002")
    assert where(found) == [(BOLT, line_of(chain, BOLT, "status:"))]
    assert "no approved walkthrough gate" in found[0].message


def test_002_clean_after_the_gates(chain: Path) -> None:
    through_walkthrough(chain)
    assert front(chain, BOLT)["status"] == "complete"
    assert hits(chain, "AIDLC-LEDGER-002") == []


# -- AIDLC-LEDGER-003: a complete story needs its bolt's approved walkthrough -------------------------------------
def test_003_a_story_marked_complete_without_an_approved_walkthrough(chain: Path) -> None:
    through_plan(chain)
    check_boxes(chain)
    edit(chain, STORY, "status: draft", "status: complete")
    edit(chain, STORY, "implemented: false", "implemented: true")
    found = hits(chain, "AIDLC-LEDGER-003")
    assert where(found) == [(STORY, line_of(chain, STORY, "status:"))]
    assert f"no approved walkthrough covers its bolt {BOLT_ID}" in found[0].message
    assert found[0].fix == f"aidlc gate approve {BOLT_ID} --stage walkthrough"


def test_003_a_rejected_walkthrough_does_not_count(chain: Path) -> None:
    through_plan(chain)
    write(chain, f"{MB}/bolts/{BOLT_ID}/implementation-walkthrough.md", "# Walkthrough\n")
    assert run(chain, "gate", "reject", BOLT_ID, "--stage", "walkthrough").exit_code == 0
    edit(chain, STORY, "status: draft", "status: complete")
    assert where(hits(chain, "AIDLC-LEDGER-003")) == [(STORY, line_of(chain, STORY, "status:"))]


def test_003_clean_after_the_walkthrough(chain: Path) -> None:
    through_walkthrough(chain)
    assert front(chain, STORY)["status"] == "complete"
    assert hits(chain, "AIDLC-LEDGER-003") == []


# -- AIDLC-LEDGER-004: construction needs the inception gates -----------------------------------------------------
def test_004_an_intent_moved_to_construction_by_hand(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    edit(chain, REQUIREMENTS, "phase: inception", "phase: construction")
    found = hits(chain, "AIDLC-LEDGER-004")
    assert where(found) == [(REQUIREMENTS, line_of(chain, REQUIREMENTS, "phase:"))]
    assert "has no approved units, stories, bolt-plan gate" in found[0].message
    assert found[0].fix == f"aidlc gate approve {INTENT_ID} --stage units"


def test_004_a_bolt_started_by_hand(chain: Path) -> None:
    edit(chain, BOLT, "status: planned", "status: in-progress")
    edit(chain, BOLT, "started: null", "started: 2030-01-01T00:00:00Z")
    found = hits(chain, "AIDLC-LEDGER-004")
    assert where(found) == [(REQUIREMENTS, line_of(chain, REQUIREMENTS, "phase:"))]
    assert "has no approved requirements, units, stories, bolt-plan gate" in found[0].message


def test_004_clean_after_the_inception_gates(chain: Path) -> None:
    through_plan(chain)
    assert front(chain, REQUIREMENTS)["phase"] == "construction" and front(chain, BOLT)["status"] == "in-progress"
    assert hits(chain, "AIDLC-LEDGER-004") == []


# -- AIDLC-LEDGER-005: approvals go stale when the judged content changes ----------------------------------------
def test_005_editing_an_approved_requirement_makes_the_approval_stale(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    assert hits(chain, "AIDLC-LEDGER-005") == []
    edit(chain, REQUIREMENTS, "an order is created", "an order is created and mailed")
    found = hits(chain, "AIDLC-LEDGER-005")
    assert where(found) == [(REQUIREMENTS, None)]
    assert f"the requirements approval of intent {INTENT_ID} (seq 2) is stale" in found[0].message
    assert found[0].fix == f"aidlc gate approve {INTENT_ID} --stage requirements"
    approve(chain, INTENT_ID, "requirements")  # a person decides again: current once more
    assert hits(chain, "AIDLC-LEDGER-005") == []


def test_005_progress_alone_does_not_make_an_approval_stale(chain: Path) -> None:
    for stage in ("requirements", "units", "stories"):
        approve(chain, INTENT_ID, stage)
    edit(chain, REQUIREMENTS, "status: draft", "status: approved")
    check_boxes(chain, REQUIREMENTS)
    check_boxes(chain, STORY)
    edit(chain, STORY, "status: draft", "status: ready")
    assert hits(chain, "AIDLC-LEDGER-005") == []
    edit(chain, STORY, "**Then** an order exists", "**Then** an order exists and is paid")  # content
    assert where(hits(chain, "AIDLC-LEDGER-005")) == [(STORY, None)]


def test_005_a_multi_file_approval_names_the_file_that_changed(chain: Path) -> None:
    assert run(chain, "new", "story", "Refund", "--unit", "checkout-api").exit_code == 0
    second = STORY.replace("001-pay-by-card", "002-refund")
    for stage in ("requirements", "units", "stories"):
        approve(chain, INTENT_ID, stage)
    assert hits(chain, "AIDLC-LEDGER-005") == []
    edit(chain, second, "# Story: Refund", "# Story: Refund an order")
    found = hits(chain, "AIDLC-LEDGER-005")
    assert where(found) == [(second, None)] and f"{second} changed since" in found[0].message
    (chain / second).unlink()
    assert "was removed since" in hits(chain, "AIDLC-LEDGER-005")[0].message


def test_005_a_removed_artifact_is_stale(chain: Path) -> None:
    through_plan(chain)
    (chain / PLAN).unlink()
    found = hits(chain, "AIDLC-LEDGER-005")
    assert where(found) == [(PLAN, None)] and "was removed since" in found[0].message


# -- AIDLC-LEDGER-006: only people decide human checkpoints ------------------------------------------------------
def _append_agent_decision(root: Path) -> int:
    ledger = Ledger(root / LEDGER, root)
    ledger.append(EventType.gate_decided, Actor(kind=ActorKind.agent, name="coder-bot"),
                  subject=Subject(kind="intent", id=INTENT_ID), stage="requirements", decision=Decision.approve,
                  fingerprint=FileDigest(path=REQUIREMENTS, sha256="0" * 64))
    return len(read(root, LEDGER).splitlines())


def test_006_an_agent_decision_written_into_the_ledger_is_flagged(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    assert hits(chain, "AIDLC-LEDGER-006") == []
    line = _append_agent_decision(chain)
    found = hits(chain, "AIDLC-LEDGER-006")
    assert where(found) == [(LEDGER, line)]
    assert f"intent {INTENT_ID} requirements was decided by agent coder-bot" in found[0].message
    assert hits(chain, "AIDLC-LEDGER-001") == []  # the chain itself is intact: the actor is the problem


def test_006_names_the_file_line_even_after_a_damaged_line(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    line = _append_agent_decision(chain)
    lines = read(chain, LEDGER).splitlines(keepends=True)
    write(chain, LEDGER, "".join([lines[0], "not an event\n", *lines[1:]]))
    assert where(hits(chain, "AIDLC-LEDGER-006")) == [(LEDGER, line + 1)]


# -- AIDLC-LEDGER-007: no ledger ----------------------------------------------------------------------------------
def test_007_completions_without_a_ledger_give_one_warning(bank: Bank) -> None:
    assert hits(bank.root, "AIDLC-LEDGER-007") == []  # nothing complete yet: nothing unattested
    complete_first_bolt(bank)
    found = hits(bank.root, "AIDLC-LEDGER-007")
    assert where(found) == [(f"{MB}/events.jsonl", None)]
    assert found[0].severity == Severity.warning
    assert "1 complete bolts and 1 complete stories" in found[0].message
    assert [f for f in findings(bank.root) if f.severity == Severity.error] == []


def test_007_clean_with_a_ledger(bank: Bank) -> None:
    complete_first_bolt(bank)
    Ledger(bank.root / LEDGER, bank.root).append(EventType.ledger_created, Actor(kind=ActorKind.human, name="Ada"))
    assert hits(bank.root, "AIDLC-LEDGER-007") == []


# -- AIDLC-LEDGER-009..012: beyond the hash (the details: test_ledger_trust.py, test_ledger_forks.py) ---------------
def test_009_an_event_dated_before_the_one_it_follows(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    assert hits(chain, "AIDLC-LEDGER-009") == []
    line = len(read(chain, LEDGER).splitlines()) + 1
    forge.append_events(chain / LEDGER, [forge.event(line, ts="2020-01-01T00:00:00Z")])
    found = hits(chain, "AIDLC-LEDGER-009")
    assert where(found) == [(LEDGER, line)] and "before the event it follows" in found[0].message
    assert found[0].severity == Severity.error and hits(chain, "AIDLC-LEDGER-001") == []


def test_010_an_event_naming_a_commit_that_does_not_exist(chain: Path) -> None:
    git(chain, "add", "-A")
    git(chain, "commit", "-qm", "chain")
    approve(chain, INTENT_ID, "requirements")  # names HEAD, which exists
    assert hits(chain, "AIDLC-LEDGER-010") == []
    line = len(read(chain, LEDGER).splitlines()) + 1
    forge.append_events(chain / LEDGER, [forge.event(line, commit="0123456789" * 4, ts=forge.stamp(datetime.now(UTC)))])
    found = hits(chain, "AIDLC-LEDGER-010")
    assert where(found) == [(LEDGER, line)] and "does not exist in this repository" in found[0].message


def test_011_in_a_shallow_clone_an_unknown_commit_is_a_warning(chain: Path, tmp_path: Path) -> None:
    git(chain, "add", "-A")
    git(chain, "commit", "-qm", "chain")
    approve(chain, INTENT_ID, "requirements")
    git(chain, "add", "-A")
    git(chain, "commit", "-qm", "decided")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{chain}", str(clone)], check=True)
    found = hits(clone, "AIDLC-LEDGER-011")
    assert where(found) == [(LEDGER, 2)] and found[0].severity == Severity.warning
    assert "git fetch --unshallow" in found[0].message and hits(clone, "AIDLC-LEDGER-010") == []
    assert hits(chain, "AIDLC-LEDGER-011") == []


def test_012_two_branches_that_decided_a_gate_differently(chain: Path) -> None:
    lines = read(chain, LEDGER).encode().splitlines(keepends=True)
    tip = json.loads(lines[-1])
    approved = forge.decision(2, f"intent:{INTENT_ID}", "requirements", "approve")
    rejected = forge.decision(3, f"intent:{INTENT_ID}", "requirements", "reject")
    sides = [forge.chain([e], tip["hash"], tip["seq"])[0] for e in (approved, rejected)]
    write(chain, LEDGER, b"".join([*lines, *sides]).decode())  # two forks of the same line, as a merge leaves them
    found = hits(chain, "AIDLC-LEDGER-012")
    assert where(found) == [(LEDGER, 3)] and found[0].severity == Severity.error
    assert f"intent {INTENT_ID} requirements: decided 'approve' (seq 2 by Ada) and 'reject' (seq 2 by Ada)" \
        in found[0].message
    assert hits(chain, "AIDLC-LEDGER-001") == []
    approve(chain, INTENT_ID, "requirements")  # a person decides again, after both
    assert hits(chain, "AIDLC-LEDGER-012") == []


# -- AIDLC-LEDGER-018: every line the chain holds is an event -----------------------------------------------------
def _forge_next(root: Path, **fields: object) -> int:
    """Append a chained, hashed line with `fields` over an ordinary event's; its line number."""
    line = len(read(root, LEDGER).splitlines()) + 1
    forge.append_events(root / LEDGER, [forge.event(line, ts=forge.stamp(datetime.now(UTC)), **fields)])
    return line


@pytest.mark.parametrize(("fields", "why"), forge.NOT_EVENTS)
def test_018_a_chained_line_that_holds_no_event_is_refused(chain: Path, fields: dict, why: str) -> None:
    approve(chain, INTENT_ID, "requirements")
    git(chain, "add", "-A")
    git(chain, "commit", "-qm", "decided")
    assert hits(chain, "AIDLC-LEDGER-018") == []
    line = _forge_next(chain, **fields)
    assert [f.code for f in findings(chain) if f.code.startswith("AIDLC-LEDGER")] == ["AIDLC-LEDGER-018"]
    found = hits(chain, "AIDLC-LEDGER-018")
    assert where(found) == [(LEDGER, line)] and found[0].severity == Severity.error
    assert f"the line holds no ledger event ({why}" in found[0].message, found[0].message
    assert found[0].fix == f"git log -p -- {LEDGER}    # who wrote the line; restore the file from the last good commit"
    validated = run_cli("validate", cwd=chain)
    assert validated.returncode == 1 and f"{LEDGER}:{line} AIDLC-LEDGER-018 " in validated.stdout, validated.stdout
    refused = run_cli("ci", cwd=chain)
    assert refused.returncode == 1 and f"{LEDGER}:{line} AIDLC-LEDGER-018 " in refused.stdout, refused.stdout
    report = json.loads(run_cli("--format", "json", "ci", cwd=chain).stdout)
    assert [(f["code"], f["line"]) for f in report["findings"] if f["severity"] == "error"] == \
        [("AIDLC-LEDGER-018", line)]


def test_018_only_lines_the_chain_does_not_report(chain: Path) -> None:
    approve(chain, INTENT_ID, "requirements")
    good = _forge_next(chain)  # an ordinary event, forged or not, is no finding
    assert hits(chain, "AIDLC-LEDGER-018") == [] and hits(chain, "AIDLC-LEDGER-001") == []
    lines = read(chain, LEDGER).encode().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"kind":"human"', b'"kind":"robot"')  # an edit that leaves no event behind
    tip = json.loads(lines[-1])
    text_seq = {**forge.event(good + 1), "seq": str(good + 1), "prev": tip["hash"]}  # no seq the chain can read
    text_seq["hash"] = canonical.event_hash(text_seq)
    write(chain, LEDGER, b"".join([*lines, canonical.line_of(text_seq)]).decode())
    assert where(hits(chain, "AIDLC-LEDGER-001")) == [(LEDGER, 2)]
    assert hits(chain, "AIDLC-LEDGER-018") == []  # both lines are the chain's to report (the first, by 001)


@pytest.mark.parametrize("hand", ["key-twice", "spaces"])
def test_018_a_line_in_a_form_aidlc_never_writes_is_refused(chain: Path, hand: str) -> None:
    """A pull request's diff shows `"decision":"reject"`, and JSON (so every reader) takes the second key; or a line
    hand-formatted. Both chained and hashed over their own bytes, so the chain holds them."""
    approve(chain, INTENT_ID, "requirements")
    lines = read(chain, LEDGER).encode().splitlines(keepends=True)
    decided = json.loads(lines[-1])
    decided.update(seq=decided["seq"] + 1, prev=decided["hash"], id=f"{decided['id']}x", hash="0" * 64)
    line = canonical.line_of(decided)
    line = line.replace(b'"decision":"approve"', b'"decision":"reject","decision":"approve"') if hand == "key-twice" \
        else line.replace(b'","', b'", "')
    line = line.replace(b"0" * 64, line_hash(line), 1)
    write(chain, LEDGER, b"".join([*lines, line]).decode())
    assert hits(chain, "AIDLC-LEDGER-001") == []  # the chain holds it

    found = hits(chain, "AIDLC-LEDGER-018")

    assert where(found) == [(LEDGER, len(lines) + 1)], found
    assert "is not in the one form aidlc writes an event in" in found[0].message
    refused = run_cli("ci", cwd=chain)
    assert refused.returncode == 1 and f"{LEDGER}:{len(lines) + 1} AIDLC-LEDGER-018 " in refused.stdout, refused.stdout
    verified = run_cli("log", "verify", cwd=chain)
    assert verified.returncode == 1 and "is not in the one form aidlc writes" in verified.stdout, verified.stdout
    shown = run_cli("log", "show", "--format", "json", cwd=chain)  # not shown as the approval it reads as
    assert [event["seq"] for event in json.loads(shown.stdout)["events"]] == [json.loads(x)["seq"] for x in lines]
    assert f"line {len(lines) + 1} holds no readable event" in shown.stderr, shown.stderr


def test_018_a_decision_in_a_form_aidlc_never_writes_decides_no_gate(chain: Path) -> None:
    """The gate standing is a reader too: a units approval rewritten as `"decision":"reject","decision":"approve"`
    (a reviewer of the diff reads a rejection) and hashed again over its bytes approves nothing."""
    approve(chain, INTENT_ID, "requirements")
    approve(chain, INTENT_ID, "units")
    assert gates_of(status_json(chain))[("intent", INTENT_ID)]["pending"] == "stories"
    lines = read(chain, LEDGER).encode().splitlines(keepends=True)
    forged = lines[-1].replace(b'"decision":"approve"', b'"decision":"reject","decision":"approve"')
    forged = forged.replace(json.loads(lines[-1])["hash"].encode(), line_hash(forged), 1)
    write(chain, LEDGER, b"".join([*lines[:-1], forged]).decode())
    assert hits(chain, "AIDLC-LEDGER-001") == []  # the chain holds it

    assert gates_of(status_json(chain))[("intent", INTENT_ID)]["pending"] == "units"
    assert where(hits(chain, "AIDLC-LEDGER-018")) == [(LEDGER, len(lines))]


def test_018_shares_the_one_reading_of_every_event(chain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    approve(chain, INTENT_ID, "requirements")
    _forge_next(chain, actor=None)
    parsed: list[bytes] = []

    def counting(lines: Iterable[bytes]) -> Iterator[tuple[bytes, object]]:
        for line, event in canonical.canonical_events(lines):
            parsed.append(line)
            yield line, event

    monkeypatch.setattr(view_module, "canonical_events", counting)
    assert len(hits(chain, "AIDLC-LEDGER-018")) == 1
    assert len(parsed) == len(read(chain, LEDGER).splitlines())  # once per line for 014-016 and 018 together


def test_every_ledger_rule_has_tests_here() -> None:
    from tests import test_approvals, test_claims  # evidence and a lost ledger (008, 013); deciders, keys (014-017)

    ledger_rules = {code for code, rule in CATALOGUE.items() if rule.family == "ledger"}
    names = [*globals(), *vars(test_claims), *vars(test_approvals)]
    tested = {f"AIDLC-LEDGER-{match[1]}" for name in names if (match := re.match(r"test_(\d{3})_", name))}
    assert ledger_rules == tested
