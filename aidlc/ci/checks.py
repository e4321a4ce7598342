"""What `aidlc ci` checks beyond `aidlc validate`: the branch against its base, who committed each human
decision, and that every change to governed code traces to a bolt whose plan a person approved.

Git is the evidence: the ledger and the commits as `base..HEAD` holds them (aidlc/vcs.py asks). Every check
yields findings of the `ci` rules (aidlc/rules/ci.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bank.items import BoltItem, MemoryBank
from aidlc.bank.walk import CONFIG_FILE
from aidlc.errors import UsageError
from aidlc.events.decisions import DecisionIndex
from aidlc.events.ledger import Ledger
from aidlc.events.state import scan
from aidlc.events.verify import ProblemKind, split_lines, verify_lines
from aidlc.gates.actor import bot_identity, same_person
from aidlc.gates.signatures import about
from aidlc.globs import matcher
from aidlc.model.events import ActorKind, EventType
from aidlc.model.findings import Finding
from aidlc.model.types import Risk
from aidlc.rules import ci, shorten
from aidlc.rules.catalogue import Rule


def finding(spec: Rule, path: str, line: int | None, message: str, fix: str | None = None) -> Finding:
    return Finding(code=spec.code, severity=spec.severity, path=path, line=line, message=shorten(message),
                   fix=shorten(fix or spec.fix))


@dataclass
class PullRequest:
    """The branch as git holds it: the bank at HEAD, its ledger, the base commit and the commits since it."""

    bank: MemoryBank
    base: str  # a full commit sha
    history: vcs.History
    ledger: Ledger
    commits: list[vcs.Commit] = field(default_factory=list)
    _ledgers: dict[str, bytes | None] = field(default_factory=dict)
    _decisions: dict[str, DecisionIndex | None] = field(default_factory=dict)

    @classmethod
    def open(cls, bank: MemoryBank, base_ref: str) -> PullRequest:
        project = Path(bank.repo_root)
        history = vcs.history(project)
        if history is None or history.head is None:
            raise UsageError(f"--base {base_ref}: {project} is not a Git repository with commits",
                             ["aidlc ci    # without --base: the checks that need no history"])
        base = vcs.resolve_commit(project, base_ref)
        return cls(bank, base, history, Ledger.of_bank(project, bank.rel_root),
                   vcs.commits_between(project, base, "HEAD"))

    def ledger_at(self, commit: str) -> bytes | None:
        if commit not in self._ledgers:
            self._ledgers[commit] = self.history.read(commit, [self.ledger.rel])[self.ledger.rel]
        return self._ledgers[commit]

    def standing(self, commit: str, bolt_id: str, stage: str) -> str | None:
        """The decision that stands at a bolt's gate in the ledger `commit` holds (None: undecided, or branches
        that disagree)."""
        if commit not in self._decisions:
            data = self.ledger_at(commit)
            lines = split_lines(data) if data else []
            self._decisions[commit] = scan(lambda: lines).decisions if lines else None
        index = self._decisions[commit]
        decided = index.standing(("bolt", bolt_id, stage)) if index is not None else None
        return None if decided is None else decided.decision


def check(pr: PullRequest) -> list[Finding]:
    return [*ledger_against_base(pr), *approval_authors(pr), *scope(pr), *walkthrough_evidence(pr),
            *unsigned_commits(pr)]


def ledger_against_base(pr: PullRequest) -> Iterator[Finding]:
    """`aidlc log verify --against BASE`: every event of the base's ledger is still there, byte for byte."""
    old = pr.ledger_at(pr.base)
    if old is None:
        return
    rel = pr.ledger.rel
    if not pr.ledger.exists():
        yield finding(ci.LEDGER_DELETED, rel, None, f"the base {pr.base[:12]} holds {rel} ({len(split_lines(old))} "
                      "events); this branch deleted it",
                      f"git restore --source={pr.base} --staged --worktree -- {rel}    # never start a new ledger")
        return
    result = verify_lines(pr.ledger.lines, against=split_lines(old))
    for problem in result.problems:
        if problem.kind == ProblemKind.missing:
            yield finding(ci.BASE_EVENT_MISSING, rel, None, f"{problem.message} (base {pr.base[:12]})",
                          f"git show {pr.base}:{rel}    # the base's ledger; restore its lines, then append again")


def _introductions(pr: PullRequest) -> dict[bytes, vcs.Commit]:
    """For each ledger line HEAD holds and the base did not: the commit that introduced it (that has it while
    none of its parents did: the commit on a side branch, not the merge that brought it in)."""
    introduced: dict[bytes, vcs.Commit] = {}
    for commit in pr.commits:  # oldest first
        if len(commit.parents) < 2 and pr.ledger.rel not in commit.paths:
            continue
        now = set(split_lines(pr.ledger_at(commit.sha) or b""))
        before: set[bytes] = set()
        for parent in commit.parents:
            before.update(split_lines(pr.ledger_at(parent) or b""))
        for line in now - before:
            introduced.setdefault(line, commit)
    return introduced


def approval_authors(pr: PullRequest) -> Iterator[Finding]:
    """Each human decision the branch adds was committed by the person it names, and not by a bot."""
    head = pr.ledger_at("HEAD")
    if head is None:
        return
    base = set(split_lines(pr.ledger_at(pr.base) or b""))
    introduced = _introductions(pr)
    bots = pr.bank.config.governance.bot_emails
    for number, line in enumerate(split_lines(head), start=1):
        if line in base:
            continue
        event = _event(line)
        if event is None or event.get("type") != EventType.gate_decided \
                or (event.get("actor") or {}).get("kind") != ActorKind.human:
            continue
        commit = introduced.get(line)
        if commit is None:
            continue
        author = f"{commit.author} <{commit.email}>"
        email = str((event.get("actor") or {}).get("email") or "")
        if (why := bot_identity(commit.author, commit.email, bots)) is not None:
            yield finding(ci.APPROVAL_BOT, pr.ledger.rel, number,
                          f"{about(event)} was committed by a bot: commit {commit.sha[:12]} by {author} ({why})")
        elif email.strip().lower() != commit.email.strip().lower():
            yield finding(ci.APPROVAL_AUTHOR, pr.ledger.rel, number,
                          f"{about(event)} was committed by someone else: commit {commit.sha[:12]} by {author}")


def _event(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except ValueError:  # a broken line: AIDLC-LEDGER-001 reports it
        return None
    return event if isinstance(event, dict) else None


def scope(pr: PullRequest) -> Iterator[Finding]:
    """Every commit that changes governed code names a bolt (`Aidlc-Bolt:`) whose plan the ledger of that commit
    holds as approved; a bolt so named and marked complete has its walkthrough approved."""
    governed = matcher(pr.bank.config.governance.paths)
    bolts = {bolt.id: bolt for bolt in pr.bank.bolts}
    named: set[str] = set()
    for commit in pr.commits:
        changed = [path for path in commit.paths if governed(path)]
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
            if bolt_id not in bolts:
                problems.append(finding(ci.UNKNOWN_BOLT, changed[0], None, f"{subject} names bolt {bolt_id!r}, "
                                        f"which the memory bank does not have (it changes {', '.join(changed)})"))
            elif pr.standing(commit.sha, bolt_id, "plan") != "approve":
                problems.append(finding(ci.PLAN_NOT_APPROVED, changed[0], None, f"{subject} changes "
                                        f"{', '.join(changed)} for bolt {bolt_id}, whose plan the ledger of that "
                                        "commit does not hold as approved",
                                        f"a person approves the plan (`aidlc gate approve {bolt_id} --stage plan`), "
                                        "then the code is committed after it"))
            else:
                named.add(bolt_id)
                approved.append(bolt_id)
        if len(problems) == len(commit.bolts):  # one bolt it names is approved: the change is traced
            yield from problems
            continue
        scopes = [bolts[b].meta.scope if bolts[b].meta else [] for b in approved]
        if all(scopes):  # a bolt without a scope may change any governed file
            globs = sorted({glob for scope in scopes for glob in scope})
            covered = matcher(globs)
            for path in changed:
                if not covered(path):
                    yield finding(ci.OUTSIDE_SCOPE, path, None, f"{subject} changes {path} for bolt(s) "
                                  f"{', '.join(approved)}, outside their scope ({', '.join(globs)})")
    for bolt_id in sorted(named):
        bolt = bolts[bolt_id]
        if bolt.meta is not None and bolt.meta.status == "complete" \
                and pr.standing("HEAD", bolt_id, "walkthrough") != "approve":
            yield finding(ci.WALKTHROUGH_MISSING, bolt.rel, None, f"bolt {bolt_id} is marked complete, and its "
                          "walkthrough is not approved in the ledger", f"a person reviews the walkthrough: "
                          f"`aidlc gate approve {bolt_id} --stage walkthrough`")



def walkthrough_evidence(pr: PullRequest) -> Iterator[Finding]:
    """Each walkthrough approval the branch adds, where it stands now, rests on the evidence the bolt's risk
    requires: re-derived from git and the ledger as `aidlc gate` does before recording one, so an approval
    written into the ledger around the gate is caught. High and critical risk: the approval that completes the
    gate names an earlier one (`data.with`) by a different person for the same walkthrough."""
    from aidlc.report.gate import walkthrough_evidence as evidence_of

    head = pr.ledger_at("HEAD")
    if head is None:
        return
    base = set(split_lines(pr.ledger_at(pr.base) or b""))
    bolts = {bolt.id: bolt for bolt in pr.bank.bolts}
    lines = split_lines(head)
    events = [_event(line) for line in lines]
    by_hash = {str(event.get("hash")): event for event in events if event is not None}
    judged: set[str] = set()
    numbered = list(enumerate(zip(lines, events, strict=True), start=1))
    for number, (line, event) in reversed(numbered):  # the newest approval of a bolt is the one that stands
        if line in base or event is None or event.get("type") != EventType.gate_decided \
                or event.get("stage") != "walkthrough" or event.get("decision") != "approve" \
                or (event.get("actor") or {}).get("kind") != ActorKind.human:
            continue
        bolt_id = str((event.get("subject") or {}).get("id") or "")
        if bolt_id not in bolts or bolt_id in judged or pr.standing("HEAD", bolt_id, "walkthrough") != "approve":
            continue
        judged.add(bolt_id)
        evidence = evidence_of(pr.bank, bolts[bolt_id])
        missing = list(evidence.missing)
        risk = _with_base_risk(pr, bolts[bolt_id], evidence.risk)
        if risk in (Risk.high, Risk.critical):
            missing += _second_person(event, by_hash, risk)
        if missing:
            yield finding(ci.WALKTHROUGH_EVIDENCE, pr.ledger.rel, number,
                          f"{about(event)} stands without the evidence bolt {bolt_id} needs: {'; '.join(missing)}")


def _with_base_risk(pr: PullRequest, bolt: BoltItem, risk: Risk | None) -> Risk | None:
    """The higher of `risk` and the bolt's risk in its bolt.md at the base: a branch that lowers a bolt's risk
    keeps the approvals the base's risk required."""
    from aidlc.bank import frontmatter
    from aidlc.exsecutio.plan import RISK_ORDER

    data = pr.history.read(pr.base, [bolt.rel])[bolt.rel]
    meta = frontmatter.split(data.decode("utf-8", errors="replace"), bolt.rel).meta if data else None
    named = (meta or {}).get("risk")
    known = [r for r in (risk, Risk(named) if named in Risk.__members__ else None) if r is not None]
    return max(known, key=RISK_ORDER.index) if known else None


def _second_person(event: dict[str, Any], by_hash: dict[str, dict[str, Any]], risk: Risk) -> list[str]:
    """Why the two-person rule is not met by `event` and the approval it names (empty: it is)."""
    data = event.get("data") if isinstance(event.get("data"), dict) else {}
    if data.get("approvals") == 1 and data.get("approvals_required") == 2:
        return []  # the first of two: the gate waits for a second person (not a failure; status lists it)
    first = by_hash.get(str(data.get("with") or ""))
    if data.get("approvals") != 2 or first is None:
        return [f"{risk} risk needs two people's approvals, and this one names no earlier approval"]
    same_walkthrough = (first.get("fingerprint") or {}).get("sha256") == (event.get("fingerprint") or {}).get("sha256")
    one, two = first.get("actor") or {}, event.get("actor") or {}
    if first.get("decision") != "approve" or one.get("kind") != ActorKind.human or not same_walkthrough \
            or same_person(one, two):
        return [f"{risk} risk needs two distinct people's approvals of the same walkthrough; the earlier approval "
                f"it names (seq {first.get('seq')}) is not one"]
    return []


def unsigned_commits(pr: PullRequest) -> Iterator[Finding]:
    """With governance.require_signed_commits: each commit the branch adds carries a signature."""
    if not pr.bank.config.governance.require_signed_commits:
        return
    commits = {commit.sha: commit for commit in pr.commits}
    for sha in vcs.unsigned(Path(pr.bank.repo_root), list(commits)):
        commit = commits[sha]
        yield finding(ci.UNSIGNED_COMMIT, CONFIG_FILE, None,
                      f"commit {sha[:12]} by {commit.author} <{commit.email}> ({commit.subject}) carries no signature, "
                      "and governance.require_signed_commits is on")
