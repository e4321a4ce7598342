"""The checks of a pull request that only a memory bank has: every change to governed code traces to a bolt whose
plan a person approved and whose scope holds it, and a bolt's walkthrough approval stands on the evidence its risk
needs (`aidlc ci`'s checks on either layout are in aidlc/ci/checks.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from aidlc import vcs
from aidlc.bank import frontmatter
from aidlc.bank.items import BoltItem
from aidlc.bolt.checks import check_event, run_checks_watched
from aidlc.bolt.plan import RISK_ORDER
from aidlc.ci.branch import PullRequest, finding
from aidlc.events.canonical import parse_event
from aidlc.events.verify import split_lines
from aidlc.gates.actor import same_person
from aidlc.gates.signatures import about
from aidlc.globs import matcher
from aidlc.model.events import ActorKind, CheckRecord, Decision, Event, EventType, Subject
from aidlc.model.findings import Finding
from aidlc.model.types import Risk
from aidlc.names import gate_command
from aidlc.rules import ci


def _decision(event: Event | None) -> str | None:
    return str(event.decision) if event is not None else None


def scope(pr: PullRequest) -> Iterator[Finding]:
    """Every commit that changes governed code (a merge: what it changed against every parent) names a bolt
    (`Aidlc-Bolt:`) whose plan the ledger of that commit holds as approved by a person, or by the judging policy
    for the bolt's risk, and whose walkthrough that ledger does not hold as approved yet (a closed bolt covers
    no new change); a bolt so named and marked complete has its walkthrough approved. A governed file that
    differs between the base and the head and that no commit changed is untraced too."""
    governed = matcher(pr.bank.config.governance.paths)
    bolts = {bolt.id: bolt for bolt in pr.bank.bolts}
    named: set[str] = set()
    explained: set[str] = set()
    for commit in pr.commits:
        changed = [path for path in commit.paths if governed(path)]
        explained.update(changed)
        if not changed:
            continue
        subject = f"commit {commit.sha[:12]} by {commit.author} <{commit.email}>"
        if not commit.bolts:
            for path in changed:
                yield finding(ci.UNTRACED, path, None, f"{subject} changes governed code ({path}) and names no "
                              "bolt (no `Aidlc-Bolt:` trailer)")
            continue
        problems: list[Finding] = []
        approved: list[str] = []
        for bolt_id in commit.bolts:
            problem = _bolt_problem(pr, commit, bolts.get(bolt_id), bolt_id, subject, changed)
            if problem is not None:
                problems.append(problem)
            else:
                named.add(bolt_id)
                approved.append(bolt_id)
        if len(problems) == len(commit.bolts):  # one bolt it names is approved: the change is traced
            yield from problems
            continue
        scopes = [meta.scope if (meta := bolts[b].meta) else [] for b in approved]
        if all(scopes):  # a bolt without a scope may change any governed file
            globs = sorted({glob for scope in scopes for glob in scope})
            covered = matcher(globs)
            for path in changed:
                if not covered(path):
                    yield finding(ci.OUTSIDE_SCOPE, path, None, f"{subject} changes {path} for bolt(s) "
                                  f"{', '.join(approved)}, outside their scope ({', '.join(globs)})")
    for path in vcs.changed_since_fork(Path(pr.bank.repo_root), pr.base):
        if governed(path) and path not in explained:
            yield finding(ci.UNTRACED, path, None, f"{path} differs between the base {pr.base[:12]} and the head, "
                          "and no commit of the pull request shows the change")
    for bolt_id in sorted(named):
        bolt = bolts[bolt_id]
        if bolt.meta is not None and bolt.meta.status == "complete" \
                and _decision(pr.standing("HEAD", bolt_id, "walkthrough")) != "approve":
            yield finding(ci.WALKTHROUGH_MISSING, bolt.rel, None, f"bolt {bolt_id} is marked complete, and its "
                          "walkthrough is not approved in the ledger", f"a person reviews the walkthrough: "
                          f"`{gate_command(bolt_id, 'walkthrough')}`")


def _bolt_problem(pr: PullRequest, commit: vcs.Commit, bolt: BoltItem | None, bolt_id: str, subject: str,
                  changed: list[str]) -> Finding | None:
    """Why `commit` cannot change `changed` for the bolt it names (None: it can)."""
    files = ", ".join(changed)
    if bolt is None:
        return finding(ci.UNKNOWN_BOLT, changed[0], None, f"{subject} names bolt {bolt_id!r}, which the memory bank "
                       f"does not have (it changes {files})")
    plan = pr.standing(commit.sha, bolt_id, "plan")
    if _decision(plan) != "approve":
        return finding(ci.PLAN_NOT_APPROVED, changed[0], None, f"{subject} changes {files} for bolt {bolt_id}, whose "
                       "plan the ledger of that commit does not hold as approved",
                       f"a person approves the plan (`{gate_command(bolt_id, 'plan')}`), then the "
                       "code is committed after it")
    if plan is not None and plan.actor.kind == ActorKind.policy \
            and (why := _policy_refuses(pr, bolt, plan)) is not None:
        return finding(ci.POLICY_NOT_ALLOWED, changed[0], None, f"{subject} changes {files} for bolt {bolt_id}, whose "
                       f"plan approval (seq {plan.seq}) was recorded by policy: {why}")
    closed = pr.standing(commit.sha, bolt_id, "walkthrough")
    if _decision(closed) == "approve" and closed is not None:
        return finding(ci.BOLT_CLOSED, changed[0], None, f"{subject} changes {files} for bolt {bolt_id}, whose "
                       f"walkthrough was approved already (seq {closed.seq})")
    return None


def _policy_refuses(pr: PullRequest, bolt: BoltItem, plan: Event) -> str | None:
    """Why the judging policy would not approve this plan (None: it would). The risk is the higher of the one
    the decision recorded and the bolt's own: lowering it afterwards does not widen what policy may approve."""
    allowed = pr.bank.config.policy.auto_approve_plan
    order = list(Risk)  # lowest first
    risks = [r for r in (plan.datum("risk"), bolt.meta.risk if bolt.meta else None) if r in order]
    if not risks:
        return "the bolt's risk is unknown"
    risk = max(risks, key=order.index)
    if risk not in (Risk.low, Risk.medium) or risk not in allowed:
        return (f"policy.auto_approve_plan, as the rules that judge this pull request say "
                f"({', '.join(allowed) or 'empty'}), does not allow {risk} risk")
    return None


def walkthrough_evidence(pr: PullRequest) -> Iterator[Finding]:
    """Each walkthrough approval the branch adds, where it stands now, rests on the evidence the bolt's risk
    requires: re-derived from git and the ledger as `aidlc gate` does before recording one, so an approval
    written into the ledger around the gate is caught. The checks are CI's own: the judging rules' verify
    commands run at the head (the pull request's `check.recorded` lines are history). High and critical risk:
    the approval that completes the gate names an earlier one (`data.with`) by a different person for the same
    walkthrough."""
    # The evidence builder loads only where CI judges a walkthrough approval.
    from aidlc.gates.walkthrough import walkthrough_evidence as evidence_of

    head = pr.ledger_at("HEAD")
    if head is None:
        return
    base = set(split_lines(pr.ledger_at(pr.base, pr.base_ledger) or b""))
    bolts = {bolt.id: bolt for bolt in pr.bank.bolts}
    lines = split_lines(head)
    events = [parse_event(line) for line in lines]
    by_hash = {event.hash: event for event in events if event is not None}
    judged: set[str] = set()
    observed: list[CheckRecord] | None = None  # the checks as CI ran them: only when there is an approval to judge
    written: list[str] = []  # the records files, and what git reads the history by, that run changed
    numbered = list(enumerate(zip(lines, events, strict=True), start=1))
    for number, (line, event) in reversed(numbered):  # the newest approval of a bolt is the one that stands
        if line in base or event is None or event.type != EventType.gate_decided or event.stage != "walkthrough" \
                or event.decision != Decision.approve or event.actor.kind != ActorKind.human:
            continue
        bolt_id = event.subject.id if event.subject is not None else ""
        if bolt_id not in bolts or bolt_id in judged \
                or _decision(pr.standing("HEAD", bolt_id, "walkthrough")) != "approve":
            continue
        judged.add(bolt_id)
        if observed is None:
            observed, written = _run_checks(pr)
        evidence = evidence_of(pr.bank, bolts[bolt_id], observed)
        missing = list(evidence.missing)
        if written:
            missing.append(f"CI's run of the checks changed {', '.join(written[:5])}"
                           f"{' ...' if len(written) > 5 else ''}: code a check runs wrote the records or the history "
                           "it is judged by")
        risk = _with_base_risk(pr, bolts[bolt_id], evidence.risk)
        if risk in (Risk.high, Risk.critical):
            missing += _second_person(event, by_hash, risk)
        if missing:
            yield finding(ci.WALKTHROUGH_EVIDENCE, pr.ledger.rel, number,
                          f"{about(event)} stands without the evidence bolt {bolt_id} needs: {'; '.join(missing)}")


def _run_checks(pr: PullRequest) -> tuple[list[CheckRecord], list[str]]:
    """The judging rules' verify commands, run by CI at the head: the evidence a walkthrough approval rests on, in
    place of the `check.recorded` lines the pull request brings (which count as history only); and the files of the
    memory bank and the runs' folder (.aidlc) the run changed, with what git reads the history by (the code a check
    runs is the pull request's: it may write the walkthrough report, the ledger or a run's state that CI reads next,
    or move HEAD)."""

    project = Path(pr.bank.repo_root)
    head = vcs.head_commit(project) or "HEAD"
    records = (pr.bank.rel_root, ".aidlc")  # the memory bank, and the runs' folders the evidence reads
    before = {rel: digest for folder in records for rel, digest in _digests(project, folder).items()}
    observed = []
    results, moved = run_checks_watched(project, pr.bank.config.verify)
    for result in results:
        fields = check_event(result, head, None, Subject(kind="bolt", id=""))
        observed.append(CheckRecord.model_validate({**fields["data"], "commit": head}))
    after = {rel: digest for folder in records for rel, digest in _digests(project, folder).items()}
    return observed, sorted(rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)) + moved


def _digests(project: Path, folder: str) -> dict[str, str]:
    """The sha256 of each file under `folder` (links are not followed), by its path from the project."""
    found = {}
    for top, _, names in os.walk(project / folder):
        for name in names:
            path = Path(top, name)
            if path.is_file() and not path.is_symlink():
                found[path.relative_to(project).as_posix()] = vcs.file_digest(path)
    return found


def _with_base_risk(pr: PullRequest, bolt: BoltItem, risk: Risk | None) -> Risk | None:
    """The higher of `risk` and the bolt's risk in its bolt.md at the base: a branch that lowers a bolt's risk
    keeps the approvals the base's risk required."""

    data = pr.history.read(pr.base, [bolt.rel])[bolt.rel]
    meta = frontmatter.split(data.decode("utf-8", errors="replace"), bolt.rel).meta if data else None
    named = (meta or {}).get("risk")
    known = [r for r in (risk, Risk(named) if isinstance(named, str) and named in Risk.__members__ else None)
             if r is not None]
    return max(known, key=RISK_ORDER.index) if known else None


def _second_person(event: Event, by_hash: dict[str, Event], risk: Risk) -> list[str]:
    """Why the two-person rule is not met by `event` and the approval it names (empty: it is)."""
    if event.datum("approvals") == 1 and event.datum("approvals_required") == 2:
        return []  # the first of two: the gate waits for a second person (not a failure; status lists it)
    first = by_hash.get(str(event.datum("with") or ""))
    if event.datum("approvals") != 2 or first is None:
        return [f"{risk} risk needs two people's approvals, and this one names no earlier approval"]
    same_walkthrough = _judged(first) == _judged(event)
    if first.decision != Decision.approve or first.actor.kind != ActorKind.human or not same_walkthrough \
            or same_person(first.actor, event.actor.name, event.actor.email):
        return [f"{risk} risk needs two distinct people's approvals of the same walkthrough; the earlier approval "
                f"it names (seq {first.seq}) is not one"]
    return []


def _judged(event: Event) -> str | None:
    return event.fingerprint.sha256 if event.fingerprint is not None else None

