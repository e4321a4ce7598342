"""The ledger's rules on an aidlc-docs project: its chain is intact, every line of it holds an event, a person
decided each gate (signed where aidlc.yaml requires it, as on a memory bank: aidlc/gates/signatures.py), its
approvals judged bytes that have not changed since, and once it holds decisions for the project, each stage
aidlc-state.md ticks has an approval in it. `ledger_findings` gives them to `aidlc validate` on that layout."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aidlc.aidlc_docs.model import DocsProject, Mark, StageLine
from aidlc.aidlc_docs.stages import BY_SLUG
from aidlc.aidlc_docs.units import unit_of
from aidlc.bank.config import load_config, records_folder
from aidlc.bank.items import PinnedFile
from aidlc.events.ledger import Ledger
from aidlc.events.view import GateHistory, LedgerView, NotAnEvent, readable_view
from aidlc.gates import signatures
from aidlc.gates.catalogue import (
    GateTarget,
    docs_judged_files,
    docs_targets,
    fingerprint,
    record_judged_files,
    record_rows,
    record_targets,
)
from aidlc.gates.history import what_changed
from aidlc.model.config import Config
from aidlc.model.events import Decision, Event
from aidlc.model.findings import Finding
from aidlc.model.types import Severity
from aidlc.names import gate_command, shown
from aidlc.rules.catalogue import Rule, docs_rule
from aidlc.rules.ledger import NOT_AN_EVENT

E = Severity.error


@dataclass(frozen=True)
class JudgedBy:
    """What the ledger is judged by: aidlc.yaml and allowed_signers as the work tree holds them, or with `aidlc ci
    --base` as the base does (`signers` pinned), and that base."""

    config: Config
    signers: PinnedFile | None = None
    base: str | None = None


STALE = docs_rule("AIDLC-DOCS-040", E, "a stage's approval in the ledger is stale: a file it judged changed after "
                  "it was approved (ticking plan boxes is no change)",
                  "a person reviews the change and decides again: `aidlc gate approve SUBJECT --stage STAGE`")
UNDECIDED = docs_rule("AIDLC-DOCS-041", E, "a stage is ticked in aidlc-state.md while the ledger holds gate "
                      "decisions for the project but no approval of that stage",
                      "a person approves it (`aidlc gate approve SUBJECT --stage STAGE`), or the tick is undone "
                      "until then")
CHAIN = docs_rule("AIDLC-DOCS-042", E, "the ledger beside the docs (aidlc-docs/events.jsonl) does not verify: its "
                  "hash chain is broken (edited, removed, reordered, duplicated or torn lines) or it cannot be read",
                  "restore aidlc-docs/events.jsonl from the last good commit; `aidlc log verify` names the first "
                  "bad line")
AGENT = docs_rule("AIDLC-DOCS-044", E, "a gate decision in the ledger beside the docs was made by an agent or CI "
                  "actor (as AIDLC-LEDGER-006 on a memory bank)",
                  "a person decides the gate again from their own shell: `aidlc gate approve SUBJECT --stage STAGE`")
BOT = docs_rule("AIDLC-DOCS-045", E, "a gate decision in the ledger beside the docs was made under a bot's identity "
                "(governance.bot_emails, a [bot] name or a bot's no-reply address; as AIDLC-LEDGER-014)",
                "a person decides the gate again under their own name and email")
UNSIGNED = docs_rule("AIDLC-DOCS-046", E, "a human decision in the ledger beside the docs carries no signature, though "
                     "it was recorded while governance.require_signed_approvals was on (as AIDLC-LEDGER-015)",
                     "a person decides the gate again with git's SSH signing key set up (aidlc docs/gates.md, "
                     "Signed approvals)")
INVALID = docs_rule("AIDLC-DOCS-047", E, "a decision's signature in the ledger beside the docs does not verify: a key "
                    "aidlc-docs/allowed_signers does not list for the decider's email, or an event changed after it "
                    "was signed (as AIDLC-LEDGER-016)",
                    "a person decides the gate again with a key listed for their email in aidlc-docs/allowed_signers")
SIGNERS = docs_rule("AIDLC-DOCS-048", E, "aidlc-docs/allowed_signers is missing, unreadable or malformed where "
                    "decisions are signed or signatures are required (as AIDLC-LEDGER-017)",
                    "write one `EMAIL namespaces=\"aidlc\" KEYTYPE KEY` line per person who may decide "
                    "(aidlc docs/gates.md, Signed approvals)")
NOT_EVENT = docs_rule("AIDLC-DOCS-043", E, NOT_AN_EVENT,
                      "restore aidlc-docs/events.jsonl from the last good commit (`git log -p -- "
                      "aidlc-docs/events.jsonl` shows who wrote the line); aidlc writes every event itself")


def ledger_findings(project: DocsProject, views: dict[Path, LedgerView] | None = None, judged: JudgedBy | None = None,
                    ) -> list[Finding]:
    """The findings of the ledger of an aidlc-docs project (none when it has no ledger); a v2 intent record's is the
    workspace's, in the records folder aidlc.yaml names (`aidlc_docs:`). `views`: the ledgers the run opened, by
    file; the records of a v2 workspace share it, so their one ledger is read, and each line parsed, once. `judged`:
    the rules a pull request is judged by (its base's aidlc.yaml and allowed_signers); else the work tree's."""
    root = Path(project.root)
    judged = judged or JudgedBy(config=load_config(root))
    folder = project.rel if project.record is None else records_folder(judged.config, "aidlc-docs")
    ledger = Ledger.of_bank(root, folder)
    if not ledger.exists():
        return []
    led = _view(ledger, {} if views is None else views)
    if led.error is not None:
        return [_finding(CHAIN, ledger.rel, None, led.error.message)]
    # a line the chain reports is not one of not_events: each bad line is named once
    unread = [_finding(NOT_EVENT, ledger.rel, found.line, found.message, NotAnEvent.next_step(ledger.rel))
              for found in led.not_events]
    if led.first_error is not None:
        problem = led.first_error
        return [_finding(CHAIN, ledger.rel, problem.line, f"seq {problem.seq}: {problem.kind}: {problem.message}"),
                *unread]
    unread += _deciders(root, folder, ledger.rel, led, judged)
    if project.record is not None:
        targets = record_targets(project)
        return [*unread, *_stale(led, targets), *_undecided_rows(project, led.history, targets)]
    targets = docs_targets(project)
    return [*unread, *_stale(led, targets), *_undecided(project, led.history, targets)]


def _deciders(root: Path, folder: str, ledger_rel: str, led: LedgerView, judged: JudgedBy) -> list[Finding]:
    """Who decided each gate, and with which key: the memory bank's checks, on the ledger beside the docs."""
    config = judged.config
    problems = [*signatures.deciders(led.events, ledger_rel, config.governance.bot_emails),
                *signatures.check(root, folder, config, ledger_rel, led.events, judged.signers, judged.base)]
    return [_finding(_BY_KIND[problem.kind], problem.path, problem.line, problem.message, problem.fix)
            for problem in problems]


def _view(ledger: Ledger, views: dict[Path, LedgerView]) -> LedgerView:
    """The run's view of `ledger`, opened on first use; one that cannot be read is a view with its `error`."""
    if ledger.path not in views:
        views[ledger.path] = readable_view(ledger)
    return views[ledger.path]


def _stale(led: LedgerView, targets: list[GateTarget]) -> list[Finding]:
    found = []
    for target in targets:
        for stage in target.stages:
            last = led.history.latest(target.kind, target.id, stage)
            if last is None or last.decision != Decision.approve or last.fingerprint is None:
                continue
            recorded = last.fingerprint.sha256
            current = fingerprint(None, None, target, stage, last)
            if current is None or current.sha256 != recorded:
                path, change = what_changed(None, None, target, stage, last, current)
                # one changed file: the finding is there; a set of files, or one removed: at the approval's line
                where = (path, None) if (led.ledger.repo_root / path).is_file() \
                    else (led.ledger.rel, _line(led.history, target, stage, last))
                found.append(_finding(STALE, *where, f"the {stage} approval of {target.kind} {shown(target.id)} (seq "
                                      f"{last.seq}) is stale: {path} {change} since",
                                      gate_command(target.id, stage)))
    return found


def _undecided(project: DocsProject, history: GateHistory, targets: list[GateTarget]) -> list[Finding]:
    """Once a person decides gates of the project in the ledger, a tick in aidlc-state.md claims an approval
    the ledger must hold: for a unit's stage, of the unit the line names, else of every unit with files for it."""
    if project.state is None or not any(kind in ("phase", "unit") for kind, _, _ in history.gates()):
        return []
    found = []
    for line in project.state.stages:
        if line.mark != Mark.done or line.skipped or line.stage is None or not BY_SLUG[line.stage].approval:
            continue
        for target in _claimed(line, targets):
            if not history.approved(target.kind, target.id, line.stage):
                found.append(_finding(UNDECIDED, project.state.path, line.line,
                                      f"{line.stage} is ticked for {target.kind} {shown(target.id)}, and the ledger "
                                      "holds no approval of it", gate_command(target.id, line.stage)))
    return found


def _undecided_rows(project: DocsProject, history: GateHistory, targets: list[GateTarget]) -> list[Finding]:
    """On a v2 record, once a person decides any of its gates in the ledger: each `[x]` row past initialization
    claims an approval of its stage, of the intent's or, for a per-unit row, of every unit with files for it."""
    ids = {target.id for target in targets}
    if project.state is None or project.record is None or \
            not any(subject in ids for _, subject, _ in history.gates()):
        return []
    found = []
    for row in record_rows(project):
        if row.mark != Mark.done:
            continue
        having = [t for t in targets if row.slug in t.stages]
        claimed = having if len(having) <= 1 else [t for t in having if record_judged_files(t, row.slug)[1]]
        for target in claimed:
            if not history.approved(target.kind, target.id, row.slug):
                found.append(_finding(UNDECIDED, project.state.path, row.line,
                                      f"{row.slug} is [x] for {target.kind} {shown(target.id)}, and the ledger "
                                      "holds no approval of it", gate_command(target.id, row.slug)))
    return found


def _claimed(line: StageLine, targets: list[GateTarget]) -> list[GateTarget]:
    """The subjects a ticked stage line is about."""
    stage = line.stage
    having = [t for t in targets if stage in t.stages]
    if not BY_SLUG[str(stage)].per_unit:
        return having
    named = [t for t in having if line.unit is not None and line.unit in (t.id, unit_of(t.id))]
    return named or [t for t in having if docs_judged_files(t, str(stage))[1]]


def _line(history: GateHistory, target: GateTarget, stage: str, event: Event) -> int | None:
    found = [d.line for d in history.heads(target.kind, target.id, stage) if d.hash == event.hash]
    return found[0] if found else None


_BY_KIND = {signatures.AGENT: AGENT, signatures.BOT: BOT, signatures.UNSIGNED: UNSIGNED, signatures.INVALID: INVALID,
            signatures.SIGNERS: SIGNERS}


def _finding(rule: Rule, path: str, line: int | None, message: str, fix: str | None = None) -> Finding:
    return Finding(code=rule.code, severity=rule.severity, path=path, line=line, message=message,
                   fix=fix or rule.fix)
