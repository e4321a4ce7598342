"""Branches and the ledger: a merge gives the same bytes whichever way it goes, and two branches that decided
the same gate differently, neither knowing of the other, leave the gate undecided until a person decides it
again; the order their lines happen to stand in never picks a winner.

Real `git merge` through the driver `aidlc init` registers (a real `aidlc` process); the other commands run
in-process.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_ledger_merge import LEDGER, _project, aidlc, append, lines, project, run

__all__ = ["_project", "project"]  # the fixtures, shared with test_ledger_merge.py

INTENT = "001-checkout"
BOB = "Bob Kahn <bob@example.org>"


def decide(root: Path, decision: str, stage: str = "requirements", *extra: str) -> None:
    aidlc(root, "gate", decision, INTENT, "--stage", stage, *extra)


def codes(root: Path) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for finding in json.loads(aidlc(root, "--format", "json", "validate", ok=False).stdout)["findings"]:
        found.setdefault(finding["code"], []).append(finding)
    return found


def diverge(root: Path, feature: str, main: str) -> None:
    """From the shared history, the feature branch decides the requirements gate one way, main another."""
    run(root, "git", "checkout", "-q", "-b", "feature")
    decide(root, feature, "requirements", "--reason", "feature side")
    append(root, 1)
    run(root, "git", "commit", "-qam", f"feature: {feature}")
    run(root, "git", "checkout", "-q", "main")
    decide(root, main, "requirements", "--as", BOB, "--reason", "main side")
    run(root, "git", "commit", "-qam", f"main: {main}")


def test_merging_either_way_gives_the_same_bytes_and_both_verify(project: Path) -> None:
    diverge(project, "approve", "approve")
    aidlc(project, "gate", "approve", "002-refunds", "--stage", "requirements")
    run(project, "git", "commit", "-qam", "main: refunds")
    run(project, "git", "tag", "main-before")
    run(project, "git", "merge", "--no-edit", "feature")  # feature into main
    into_main = (project / LEDGER).read_bytes()
    run(project, "git", "checkout", "-q", "-b", "other", "feature")
    run(project, "git", "merge", "--no-edit", "main-before")  # main into feature
    into_feature = (project / LEDGER).read_bytes()
    assert into_main == into_feature
    for ref in ("feature", "main-before", "main"):
        assert aidlc(project, "log", "verify", "--against", ref).returncode == 0
    assert "AIDLC-LEDGER-012" not in codes(project)  # both approved: they agree


def test_a_gate_branches_decided_differently_waits_for_a_person(project: Path) -> None:
    diverge(project, "approve", "reject")
    merge = run(project, "git", "merge", "--no-edit", "feature")
    assert "CONFLICT" not in merge.stdout  # the ledger merges: both decisions are history
    assert (f"aidlc: intent {INTENT} requirements was decided 'approve' (seq 2 by Ada) and 'reject' (seq 2 by "
            "Bob Kahn) on branches that did not know of each other; it counts as undecided until a person decides "
            f"again: aidlc gate approve|reject {INTENT} --stage requirements") in merge.stderr
    (found,) = codes(project)["AIDLC-LEDGER-012"]
    assert found["severity"] == "error" and found["path"] == LEDGER

    refused = aidlc(project, "gate", "approve", INTENT, "--stage", "units", ok=False)
    assert refused.returncode == 1
    assert (f"intent {INTENT}: the requirements gate was decided 'approve' (seq 2 by Ada) and 'reject' (seq 2 "
            "by Bob Kahn) on branches that did not know of each other, and no one has decided it again since"
            ) in refused.stderr
    status = json.loads(aidlc(project, "--format", "json", "status").stdout)
    gate = next(g for g in status["gates"] if g["id"] == INTENT)
    assert gate["pending"] == "requirements"

    decide(project, "approve", "requirements", "--reason", "looked at both")  # after both
    *merged, event = [json.loads(line) for line in lines(project)]
    by_hash, chain, at = {e["hash"]: e for e in merged}, set(), event["prev"]
    while at in by_hash:  # the events the new decision follows on its `prev` chain
        chain.add(at)
        at = by_hash[at]["prev"]
    sides = [e["hash"] for e in merged if e.get("stage") == "requirements"]
    assert len(sides) == 2 and event["data"]["supersedes"] == [h for h in sides if h not in chain]  # named
    assert "AIDLC-LEDGER-012" not in codes(project)
    decide(project, "approve", "units")  # the next gate may follow now


def test_line_order_never_decides_a_conflict(project: Path) -> None:
    """Whichever decision stands last in the merged file, the gate is undecided."""
    diverge(project, "reject", "approve")  # the other way round: the approval now stands last
    run(project, "git", "merge", "--no-edit", "feature")
    assert "AIDLC-LEDGER-012" in codes(project)
    assert aidlc(project, "gate", "approve", INTENT, "--stage", "units", ok=False).returncode == 1


def test_a_branch_that_knew_the_earlier_decision_supersedes_it(project: Path) -> None:
    decide(project, "approve")
    run(project, "git", "commit", "-qam", "main: approve")
    run(project, "git", "checkout", "-q", "-b", "feature")  # the feature branch starts from the approval
    decide(project, "reject", "requirements", "--as", BOB)
    run(project, "git", "commit", "-qam", "feature: reject, knowing of the approval")
    run(project, "git", "checkout", "-q", "main")
    append(project, 1)
    run(project, "git", "commit", "-qam", "main: a check")
    run(project, "git", "merge", "--no-edit", "feature")
    assert "AIDLC-LEDGER-012" not in codes(project)
    status = json.loads(aidlc(project, "--format", "json", "status").stdout)
    gate = next(g for g in status["gates"] if g["id"] == INTENT)
    assert gate["pending"] == "requirements" and gate["last"]["decision"] == "reject"


def test_ci_names_no_approval_of_a_deleted_record_where_the_base_s_branches_disagree(project: Path) -> None:
    """AIDLC-CI-016 warns of a deleted record a standing human approval in the base judged. The base's merge lays
    the branches' decisions one after the other: the approval standing last in the file is no standing decision,
    since the gate is undecided. A gate no branch contests still is one."""
    diverge(project, "reject", "approve")
    run(project, "git", "merge", "--no-edit", "feature")
    requirements = [json.loads(line) for line in lines(project) if b'"requirements"' in line]
    assert [event["decision"] for event in requirements][-1] == "approve"  # what the last line would have said
    aidlc(project, "gate", "approve", "002-refunds", "--stage", "requirements")
    run(project, "git", "commit", "-qam", "main: refunds")
    run(project, "git", "checkout", "-q", "-b", "pr")
    for intent in (INTENT, "002-refunds"):
        run(project, "git", "rm", "-q", f"memory-bank/intents/{intent}/requirements.md")
    run(project, "git", "commit", "-qm", "both requirements retired")
    report = json.loads(aidlc(project, "--format", "json", "ci", "--base", "main", ok=False).stdout)
    deleted = {f["path"]: f["message"] for f in report["findings"] if f["code"] == "AIDLC-CI-016"}
    assert list(deleted) == ["memory-bank/intents/002-refunds/requirements.md"], deleted
