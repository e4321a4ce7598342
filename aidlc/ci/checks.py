"""What `aidlc ci` checks beyond `aidlc validate`: the branch against its base, who committed each human
decision, and that every change to governed code traces to a bolt whose plan a person approved.

Git is the evidence: the ledger and the commits as `base..HEAD` holds them (aidlc/vcs.py asks). Every check
yields findings of the `ci` rules (aidlc/rules/ci.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from aidlc import vcs
from aidlc.bank import frontmatter
from aidlc.bank.items import BoltItem, MemoryBank
from aidlc.bank.walk import CONFIG_FILE
from aidlc.bolt.checks import check_event, run_checks
from aidlc.bolt.plan import RISK_ORDER
from aidlc.ci.rulebook import Rulebook
from aidlc.events.canonical import parse_event
from aidlc.events.decisions import DecisionIndex
from aidlc.events.ledger import Ledger
from aidlc.events.state import scan
from aidlc.events.verify import ProblemKind, split_lines, verify_lines
from aidlc.gates.actor import bot_identity, same_person
from aidlc.gates.signatures import about
from aidlc.globs import matcher
from aidlc.model.config import Config
from aidlc.model.events import ActorKind, CheckRecord, Decision, Event, EventType, Subject
from aidlc.model.findings import Finding
from aidlc.model.types import Risk
from aidlc.names import arg
from aidlc.rules import ci, shorten
from aidlc.rules.catalogue import Rule
from aidlc.workspace import open_bank


def finding(spec: Rule, path: str, line: int | None, message: str, fix: str | None = None) -> Finding:
    return Finding(code=spec.code, severity=spec.severity, path=path, line=line, message=shorten(message),
                   fix=shorten(fix or spec.fix))


@dataclass(kw_only=True)
class Branch:
    """The pull request's history on either layout: the base commit, the commits since it, and the ledger as the
    work tree and each commit hold it."""

    base: str  # a full commit sha
    history: vcs.History
    ledger: Ledger
    base_ledger: str  # the ledger's path as the base's rules name it
    commits: list[vcs.Commit] = field(default_factory=list)
    _ledgers: dict[tuple[str, str], bytes | None] = field(default_factory=dict)
    _decisions: dict[tuple[str, str], tuple[list[bytes], DecisionIndex] | None] = field(default_factory=dict)

    def ledger_at(self, commit: str, rel: str | None = None) -> bytes | None:
        """The ledger (or the file `rel`) as `commit` holds it."""
        key = (commit, rel or self.ledger.rel)
        if key not in self._ledgers:
            self._ledgers[key] = self.history.read(commit, [key[1]])[key[1]]
        return self._ledgers[key]

    def standing(self, commit: str, bolt_id: str, stage: str) -> Event | None:
        """The decision event that stands at a bolt's gate in the ledger `commit` holds (None: undecided, or
        branches that disagree)."""
        found = self._decided(commit)
        decided = found[1].standing(("bolt", bolt_id, stage)) if found is not None else None
        return None if found is None or decided is None else parse_event(found[0][decided.line - 1])

    def standing_decisions(self, commit: str, rel: str | None = None) -> Iterator[Event]:
        """The decision event that stands at each gate of the ledger (or of the file `rel`) `commit` holds: the
        gates undecided, or whose branches disagree, have none."""
        found = self._decided(commit, rel)
        if found is None:
            return
        lines, index = found
        for key in index.heads:
            decided = index.standing(key)
            if decided is not None and (event := parse_event(lines[decided.line - 1])) is not None:
                yield event

    def _decided(self, commit: str, rel: str | None = None) -> tuple[list[bytes], DecisionIndex] | None:
        """The ledger's lines as `commit` holds it, and its gate decisions as the ledger's tree orders them."""
        key = (commit, rel or self.ledger.rel)
        if key not in self._decisions:
            data = self.ledger_at(commit, rel)
            lines = split_lines(data) if data else []
            self._decisions[key] = (lines, scan(lambda: lines).decisions) if lines else None
        return self._decisions[key]


@dataclass(kw_only=True)
class PullRequest(Branch):
    """The branch on a memory bank: its bank at HEAD (read with the rules that judge it), and the rules' verdict on
    any change of them."""

    bank: MemoryBank
    rulebook: Rulebook

    @classmethod
    def open(cls, root: Path, history: vcs.History, base: str, commits: list[vcs.Commit],
             rulebook: Rulebook) -> PullRequest:
        """The pull request from `base` to the work tree; its bank is read with the rules that judge it (`rulebook`,
        aidlc/ci/rulebook.py: the base's, unless a change of them was approved)."""
        bank = open_bank(root, as_found=True, config=rulebook.rules.config)
        bank.pinned_signers = rulebook.signers
        bank.base = base
        return cls(bank=bank, base=base, history=history, ledger=Ledger.of_bank(Path(bank.repo_root), bank.rel_root),
                   rulebook=rulebook, base_ledger=rulebook.base_rules.ledger_rel, commits=commits)


def _decision(event: Event | None) -> str | None:
    return str(event.decision) if event is not None else None


def check(pr: PullRequest) -> list[Finding]:
    return [*pr.rulebook.findings, *scope(pr), *walkthrough_evidence(pr),
            *on_either_layout(pr, Path(pr.bank.repo_root), pr.bank.config)]


def on_either_layout(branch: Branch, root: Path, config: Config) -> Iterator[Finding]:
    """The checks of a pull request that need no memory bank, only git and the ledger (`config`: the judging
    rules'): the base's ledger kept whole, who committed each decision, signed commits, and approved files
    deleted."""
    yield from ledger_against_base(branch)
    yield from approval_authors(branch, config.governance.bot_emails)
    if config.governance.require_signed_commits:
        yield from unsigned_commits(branch, root)
    yield from approved_deleted(branch, root)


def approved_deleted(pr: Branch, project: Path) -> Iterator[Finding]:
    """Each file the base holds that a standing human approval in its ledger judged (one file, not a set), and that
    the work tree no longer holds. Deleting a whole intent or bolt leaves no approval stale (AIDLC-LEDGER-005 judges
    what still exists; on the aidlc-docs layout AIDLC-DOCS-040 judges a stage's files, a deleted one among them), so
    the reviewer is told here."""
    # The decisions that stand as the ledger's tree orders them, not the last line of each gate: a merge puts two
    # branches' forks one after the other in no meaningful order.
    judged = {event.fingerprint.path: event for event in pr.standing_decisions(pr.base, pr.base_ledger)
              if event.decision == Decision.approve and event.actor.kind == ActorKind.human
              and event.fingerprint is not None and "*" not in event.fingerprint.path
              and " (" not in event.fingerprint.path}  # a label of several files names no one file
    at_base = pr.history.listed(pr.base, [path for path in judged if not (project / path).exists()])
    for path, blob in sorted(at_base.items()):
        if blob is not None:
            yield finding(ci.APPROVED_DELETED, path, None, f"the pull request deletes {path}, which "
                          f"{about(judged[path])} approved",
                          f"git checkout {pr.base[:12]} -- {arg(path)}    # if not meant")


def ledger_against_base(pr: Branch) -> Iterator[Finding]:
    """`aidlc log verify --against BASE`: every event of the base's ledger (none: the base has no ledger) is still
    in the branch's, byte for byte."""
    old, ledger, base = pr.ledger_at(pr.base, pr.base_ledger), pr.ledger, pr.base
    if old is None:
        return
    rel = ledger.rel
    if not ledger.exists():
        yield finding(ci.LEDGER_DELETED, rel, None, f"the base {base[:12]} holds {rel} ({len(split_lines(old))} "
                      "events); this branch deleted it",
                      f"git restore --source={base} --staged --worktree -- {arg(rel)}    # never start a new ledger")
        return
    result = verify_lines(ledger.lines, against=split_lines(old))
    for problem in result.problems:
        if problem.kind == ProblemKind.missing:
            yield finding(ci.BASE_EVENT_MISSING, rel, None, f"{problem.message} (base {base[:12]})",
                          f"git show {arg(f'{base}:{rel}')}    # the base's ledger; restore its lines, then "
                          "append again")


def _introductions(pr: Branch) -> dict[bytes, vcs.Commit]:
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


def approval_authors(pr: Branch, bots: list[str]) -> Iterator[Finding]:
    """Each human decision the branch adds was committed by the person it names, and not by a bot (`bots`:
    governance.bot_emails)."""
    head = pr.ledger_at("HEAD")
    if head is None:
        return
    base = set(split_lines(pr.ledger_at(pr.base, pr.base_ledger) or b""))
    introduced = _introductions(pr)
    for number, line in enumerate(split_lines(head), start=1):
        if line in base:
            continue
        event = parse_event(line)  # a line that holds no event: AIDLC-LEDGER-001 reports it
        if event is None or event.type != EventType.gate_decided or event.actor.kind != ActorKind.human:
            continue
        commit = introduced.get(line)
        if commit is None:
            continue
        author = f"{commit.author} <{commit.email}>"
        email = event.actor.email or ""
        if (why := bot_identity(commit.author, commit.email, bots)) is not None:
            yield finding(ci.APPROVAL_BOT, pr.ledger.rel, number,
                          f"{about(event)} was committed by a bot: commit {commit.sha[:12]} by {author} ({why})")
        elif email.strip().lower() != commit.email.strip().lower():
            yield finding(ci.APPROVAL_AUTHOR, pr.ledger.rel, number,
                          f"{about(event)} was committed by someone else: commit {commit.sha[:12]} by {author}")


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
                          f"`aidlc gate approve {arg(bolt_id)} --stage walkthrough`")


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
                       f"a person approves the plan (`aidlc gate approve {arg(bolt_id)} --stage plan`), then the "
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
            observed = _run_checks(pr)
        evidence = evidence_of(pr.bank, bolts[bolt_id], observed)
        missing = list(evidence.missing)
        risk = _with_base_risk(pr, bolts[bolt_id], evidence.risk)
        if risk in (Risk.high, Risk.critical):
            missing += _second_person(event, by_hash, risk)
        if missing:
            yield finding(ci.WALKTHROUGH_EVIDENCE, pr.ledger.rel, number,
                          f"{about(event)} stands without the evidence bolt {bolt_id} needs: {'; '.join(missing)}")


def _run_checks(pr: PullRequest) -> list[CheckRecord]:
    """The judging rules' verify commands, run by CI at the head: the evidence a walkthrough approval rests on, in
    place of the `check.recorded` lines the pull request brings (which count as history only)."""

    project = Path(pr.bank.repo_root)
    head = vcs.head_commit(project) or "HEAD"
    observed = []
    for result in run_checks(project, pr.bank.config.verify):
        fields = check_event(result, head, None, Subject(kind="bolt", id=""))
        observed.append(CheckRecord.model_validate({**fields["data"], "commit": head}))
    return observed


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


def unsigned_commits(pr: Branch, root: Path) -> Iterator[Finding]:
    """Each commit the branch adds carries a signature (governance.require_signed_commits is on)."""
    commits = {commit.sha: commit for commit in pr.commits}
    for sha in vcs.unsigned(root, list(commits)):
        commit = commits[sha]
        yield finding(ci.UNSIGNED_COMMIT, CONFIG_FILE, None,
                      f"commit {sha[:12]} by {commit.author} <{commit.email}> ({commit.subject}) carries no signature, "
                      "and governance.require_signed_commits is on")
