"""Which rules judge a pull request: the base's, unless a person other than the change's authors approved the
change of the rules in the ledger (docs/ci.md, "Changing the rules"; the files are named in aidlc/bank/rulefiles.py).

An approval of a change counts when it is the standing human approval of the `policy` gate's `change` stage in the
head's ledger, binds the head's rule files exactly (their fingerprint), names a person who authored none of the
commits that change a rule file, is listed in the base's allowed_signers when the base has one, and carries a
signature that verifies against the base's allowed_signers when the base requires signed approvals. Who committed
the approval's line is checked with every other decision (AIDLC-CI-003/004).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aidlc import vcs
from aidlc.bank import rulefiles
from aidlc.bank.config import V2_SPACES, holds_bank, records_folder
from aidlc.bank.items import PinnedFile
from aidlc.bank.rulefiles import RuleFiles
from aidlc.bank.walk import CONFIG_FILE
from aidlc.events.canonical import parse_event
from aidlc.events.ledger import Ledger, LedgerError
from aidlc.events.state import scan
from aidlc.gates.actor import same_person
from aidlc.gates.signatures import about
from aidlc.model.config import RecordsLayout
from aidlc.model.events import ActorKind, Decision, Event
from aidlc.model.findings import Finding
from aidlc.names import shorten
from aidlc.rules import ci
from aidlc.rules.catalogue import Rule
from aidlc.workspace import layout_of

POLICY_GATE = ("policy", "rules", "change")  # (subject kind, subject id, stage) of `aidlc gate approve policy`


@dataclass
class Rulebook:
    base: str  # the base commit
    base_rules: RuleFiles  # the rules as the base holds them
    rules: RuleFiles  # the rules that judge the pull request
    from_base: bool  # True: the base's rules (the work tree's rule files are not read)
    findings: list[Finding] = field(default_factory=list)
    adopting: bool = False  # the base has no ledger: the pull request adopts aidlc, and brings its rules

    @property
    def signers(self) -> PinnedFile | None:
        """allowed_signers as the rules must read it (None: the work tree's, an approved change)."""
        if not self.from_base:
            return None
        rel = self.rules.signers_rel
        return PinnedFile(rel, self.rules.files.get(rel), f"at the base {self.base[:12]}")


def judge(project: Path, history: vcs.History, base: str, commits: list[vcs.Commit],
          baseline: str = rulefiles.BASELINE_FILE) -> Rulebook:
    """The rules that judge the pull request from `base` to the work tree, with the findings about a change of
    them. A base without a ledger has not adopted aidlc yet: the pull request that adopts it brings the rules, but
    not another place to read the records the base keeps (an audit log aidlc has not judged yet is evidence all the
    same: read elsewhere, a change to it would go unjudged)."""
    workflows = [f"{_workflows(project, history)}/{name}" for name in
                 history.names(base, _workflows(project, history)) if rulefiles.is_workflow(name)]
    old = rulefiles.read(f"the base {base[:12]}", lambda rels: history.read(base, rels), _holds(history, base),
                         _attributes(project, history, base), workflows, baseline)
    new = rulefiles.work_tree(project, history.top, baseline)
    changed = rulefiles.changes(old, new)
    if not changed:
        return Rulebook(base, old, old, from_base=True)
    if history.read(base, [old.ledger_rel])[old.ledger_rel] is None:
        moved = _moves_records(project, history, base, old, new)
        if moved is None:
            return Rulebook(base, old, new, from_base=False, adopting=True)
        return Rulebook(base, old, old, True, [_found(ci.RULES_CHANGED, CONFIG_FILE, *moved)])
    authors = [commit for commit in commits if set(commit.paths) & (set(old.files) | set(new.files))]
    approval, why_not = _approval(project, old, new, authors)
    if approval is not None:
        return Rulebook(base, old, new, False, [_found(ci.RULES_CHANGE_APPROVED, path, f"{what}; {about(approval)} "
                                                  "approved the change") for path, what in changed])
    reason = why_not or f"no person approved it (no `policy` change decision in {new.ledger_rel})"
    return Rulebook(base, old, old, True, [
        _found(ci.RULES_CHANGED, path, f"{what}, and {reason}: the base's rules judge this pull request")
        for path, what in changed])


def kept_layout(history: vcs.History, base: str, rules: RuleFiles) -> RecordsLayout | None:
    """The layout the base keeps its records in, as its rules decide it (as `aidlc.workspace.layout_of` decides for
    the work tree, aidlc-workflows v2 intent records in aidlc/spaces/ included); None when aidlc.yaml leaves the
    layout to the files (`auto`) and the base holds neither layout's records."""
    config = rules.config
    if config.layout != "auto" or rules.layout == "aidlc-docs" or holds_bank(config, _holds(history, base)):
        return rules.layout
    return "aidlc-docs" if history.is_folder(base, V2_SPACES) else None


def _moves_records(project: Path, history: vcs.History, base: str, old: RuleFiles,
                   new: RuleFiles) -> tuple[str, str] | None:
    """Why a pull request that adopts aidlc may not bring its rules, and the fix: it reads the records the base keeps
    in another layout or folder (None: it reads them where the base keeps them, or the base keeps none)."""
    kept = kept_layout(history, base, old)
    if kept is None:
        return None
    now = layout_of(project, new.config)
    was, to = records_folder(old.config, kept), records_folder(new.config, now)
    if (kept, posixpath.normpath(was)) == (now, posixpath.normpath(to)):  # `aidlc-docs/` is `aidlc-docs`
        return None
    keys = [key for key in ("layout", "memory_bank", "aidlc_docs")
            if getattr(old.config, key) != getattr(new.config, key)] or ["layout"]
    return (f"changes {CONFIG_FILE}'s `{'`, `'.join(keys)}`: it reads the records at {to}/ (the {now} layout), and "
            f"the base keeps them at {was}/ (the {kept} layout) with no ledger yet to hold a person's approval of "
            "reading them elsewhere: the base's rules judge this pull request",
            f"adopt aidlc where the base keeps the records ({was}/), then read them elsewhere in a later pull request "
            "that a person approves (`aidlc gate approve policy --stage change`; aidlc docs/ci.md, Changing the rules)")


def _holds(history: vcs.History, commit: str) -> Callable[[str], bool]:
    """Whether `commit` has a file (by its folder's listing) or a folder holding files."""
    def holds(rel: str) -> bool:
        folder, _, name = rel.rpartition("/")
        return bool(history.names(commit, rel)) or (bool(folder) and name in history.names(commit, folder))
    return holds


def _attributes(project: Path, history: vcs.History, commit: str) -> Callable[[str], tuple[str, ...]]:
    """What the .gitattributes `commit` holds give a path of the project."""
    def attributes(rel: str) -> tuple[str, ...]:
        tree = Path(os.path.relpath(project / rel, history.top)).as_posix()
        return vcs.attributes(history.top, [tree], commit).get(tree, ())
    return attributes


def _workflows(project: Path, history: vcs.History) -> str:
    return Path(os.path.relpath(history.top / rulefiles.WORKFLOWS, project)).as_posix()


def _found(rule: Rule, path: str, message: str, fix: str | None = None) -> Finding:
    return Finding(code=rule.code, severity=rule.severity, path=path, line=None,
                   message=shorten(f"this pull request {message}"), fix=shorten(fix or rule.fix))


def _approval(project: Path, old: RuleFiles, new: RuleFiles,
              authors: list[vcs.Commit]) -> tuple[Event | None, str | None]:
    """The standing approval of the change, or why none counts (None, reason)."""
    ledger = Ledger.of_bank(project, new.folder)
    try:
        lines = list(ledger.lines())  # a regular file only: a FIFO or a link in its place is refused, never waited on
    except LedgerError as exc:
        return None, f"its ledger cannot be read ({exc.message})"
    standing = scan(lambda: lines).decisions.standing(POLICY_GATE)
    if standing is None:
        return None, None
    event = parse_event(lines[standing.line - 1])
    if event is None or standing.decision != Decision.approve:
        return None, f"the `policy` change decision that stands is not an approval (seq {standing.seq})"
    said = about(event)
    if event.actor.kind != ActorKind.human:
        return None, f"{said} is not a person's"
    if event.fingerprint is None or event.fingerprint.sha256 != rulefiles.fingerprint(new):
        return None, f"{said} approved other rule files than these (they changed since)"
    for commit in authors:
        if same_person(event.actor, commit.author, commit.email):
            return None, (f"{said} is by an author of the change (commit {commit.sha[:12]}); another person "
                          "approves it")
    return _signed_by_base(project, old, event, said)


def _signed_by_base(project: Path, old: RuleFiles, event: Event, said: str) -> tuple[Event | None, str | None]:
    """The base's allowed_signers, when it has one, must list the approver; the base's signing rule applies."""
    data = old.files.get(old.signers_rel)
    if data is None:
        if old.config.governance.require_signed_approvals:
            return None, f"{said} cannot be checked: the base requires signed approvals and has no {old.signers_rel}"
        return event, None
    # ssh-keygen: only where a signature is checked
    from aidlc.gates.allowed_signers import lists, load_allowed
    from aidlc.gates.signing import verify

    allowed = load_allowed(project, old.folder, PinnedFile(old.signers_rel, data, old.source))
    email = event.actor.email or ""
    if not allowed.usable():
        return None, f"{said} cannot be checked: {allowed.problem}"
    if not lists(allowed, email):
        return None, f"{said} names {email or 'no email'}, whom the base's {old.signers_rel} does not list"
    if event.signature is not None:
        why = verify(allowed, [event])[0]
        if why is not None:
            return None, f"{said}: {why}"
    elif old.config.governance.require_signed_approvals:
        return None, f"{said} carries no signature, and the base requires signed approvals"
    return event, None
