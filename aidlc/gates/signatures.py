"""Who decided each gate of a ledger, and which human decisions are signed as they must be: shared by `aidlc
validate` on either layout and `aidlc log verify`.

* A gate is decided by a person: not by an agent or CI actor (a policy's plan approval aside, where the rules allow
  it), and not under a bot's identity.

* A signature, wherever there is one, verifies against memory-bank/allowed_signers for the decider's email.
* With governance.require_signed_approvals, a human decision recorded while signing was required carries one.
  Git says when that was: decisions already in the ledger before the commit that turned the setting on (the
  oldest of the newest run of aidlc.yaml versions that require it; the work tree when it is not committed)
  were recorded without the requirement. Where git cannot show that (no repository, a shallow clone), every
  unsigned human decision counts as recorded while required.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aidlc import vcs
from aidlc.bank import frontmatter
from aidlc.bank.config import load_config
from aidlc.bank.items import PinnedFile
from aidlc.bank.walk import CONFIG_FILE
from aidlc.events.canonical import parse_event
from aidlc.events.ledger import Ledger
from aidlc.gates.actor import bot_identity
from aidlc.model.config import Config
from aidlc.model.events import ActorKind, Event, EventType
from aidlc.names import arg

AGENT, BOT, INVALID, UNSIGNED, SIGNERS = "agent", "bot", "invalid", "unsigned", "signers"


@dataclass(frozen=True)
class Problem:
    # AGENT: decided by an agent or CI actor; BOT: under a bot's identity; INVALID: a signature fails; UNSIGNED: none
    # where one is required; SIGNERS: allowed_signers unusable
    kind: str
    line: int | None  # the ledger line (for SIGNERS: the allowed_signers line, if one is to blame)
    path: str
    message: str
    fix: str | None  # None: the rule's own


def deciders(events: list[tuple[int, Event]], ledger_rel: str, bot_emails: list[str],
             by_policy: Callable[[Event], bool] = lambda event: False) -> list[Problem]:
    """The gate decisions among `events` that no person made: an agent's or CI's (unless `by_policy` allows it), or
    a human decision under a bot's identity (governance.bot_emails, a [bot] name, a bot's no-reply address)."""
    problems = [Problem(AGENT, line, ledger_rel, f"seq {event.seq}: {gate_of(event)} was decided by "
                        f"{event.actor.kind} {event.actor.name}", None)
                for line, event in events if event.type == EventType.gate_decided
                and event.actor.kind != ActorKind.human and not by_policy(event)]
    for line, event in human_decisions(events):
        why = bot_identity(event.actor.name, event.actor.email, bot_emails)
        if why is not None:
            problems.append(Problem(BOT, line, ledger_rel, f"{about(event)}: a bot, not a person ({why})", None))
    return sorted(problems, key=lambda problem: problem.line or 0)


def human_decisions(events: list[tuple[int, Event]]) -> list[tuple[int, Event]]:
    return [(line, event) for line, event in events
            if event.type == EventType.gate_decided and event.actor.kind == ActorKind.human]


def gate_of(event: Event) -> str:
    """`bolt 001-x walkthrough`: the gate a decision is about, for messages."""
    subject = event.subject
    return f"{subject.kind if subject else None} {subject.id if subject else None} {event.stage}"


def about(event: Event) -> str:
    """`seq 7: bolt 001-x walkthrough (approve) by Ada <ada@x.org>`, for messages."""
    return (f"seq {event.seq}: {gate_of(event)} ({event.decision}) by {event.actor.name} "
            f"<{event.actor.email or ''}>")


def check(project: Path, bank_rel: str, config: Config, ledger_rel: str,
          events: list[tuple[int, Event]], pinned: PinnedFile | None = None, base: str | None = None) -> list[Problem]:
    """Every problem with the signatures of the human decisions among `events` ((line, event) pairs), checked
    against allowed_signers as the work tree holds it, or as `pinned` gives it; `base`, a pull request's."""
    # subprocess: only where there is work
    from aidlc.gates.allowed_signers import load_allowed
    from aidlc.gates.signing import setup_steps, verify

    decisions = human_decisions(events)
    signed = [(line, event) for line, event in decisions if event.signature is not None]
    required = config.governance.require_signed_approvals
    if not signed and not required:
        return []
    problems: list[Problem] = []
    allowed = load_allowed(project, bank_rel, pinned)
    if not allowed.usable():
        problems.append(Problem(SIGNERS, allowed.line, allowed.rel, f"{allowed.problem}; the signatures of "
                                f"{len(signed)} decisions cannot be checked",
                                "list who may decide, one line per key: " + setup_steps(None)[2]))
    else:
        for (line, event), why in zip(signed, verify(allowed, [event for _, event in signed]), strict=True):
            if why is not None:
                problems.append(Problem(INVALID, line, ledger_rel, f"{about(event)}: {why}",
                                        _decide_again(event)))
    unsigned = [(line, event) for line, event in decisions if event.signature is None]
    if required and unsigned:
        since = signing_since(project, ledger_rel, base)
        for line, event in unsigned:
            if event.hash not in since.before:
                problems.append(Problem(UNSIGNED, line, ledger_rel, f"{about(event)} carries no signature, "
                                        f"and {since.why}", _decide_again(event)))
    return problems


def _decide_again(event: Event) -> str:
    subject = arg(event.subject.id) if event.subject else "SUBJECT"
    return (f"a person decides again, signing with their own key: aidlc gate {event.decision} "
            f"{subject} --stage {arg(event.stage) if event.stage else 'STAGE'}")


@dataclass
class Since:
    """The events recorded before signing was required, and how git shows it (or why it cannot)."""

    before: set[str] = field(default_factory=set)  # their hashes
    why: str = ""  # why an unsigned decision outside `before` counts as recorded while required


def signing_since(project: Path, ledger_rel: str, base: str | None = None) -> Since:
    """When signing began, from the history of aidlc.yaml: HEAD's, or a pull request's base's where the base already
    requires it, so that the pull request cannot turn it off in one of its own commits, record an unsigned decision
    there and turn it on again."""
    history = vcs.history(project)
    if history is None or history.head is None:
        where = "this bank is not in a git repository" if history is None else "nothing is committed yet"
        return Since(why=f"signing is required, and no commit shows it was recorded before that ({where})")
    anchor = base if base is not None and _requires(history.read(base, [CONFIG_FILE])[CONFIG_FILE]) else "HEAD"
    versions = history.touching(CONFIG_FILE, anchor)
    off = next((n for n, commit in enumerate(versions) if not _requires(history.read(commit, [CONFIG_FILE])
                                                                        [CONFIG_FILE])), None)
    if off == 0 or not versions:  # the committed aidlc.yaml does not require it yet: the work tree turned it on
        return Since(_hashes(history, ["HEAD"], ledger_rel),
                     f"signing is required since {CONFIG_FILE} turned it on in the work tree (not committed yet)")
    if off is None and history.shallow:
        return Since(why="signing is required, and this shallow clone cannot show when that began "
                     "(`git fetch --unshallow` gives git that evidence)")
    turned_on = versions[-1] if off is None else versions[off - 1]
    return Since(_hashes(history, history.parents(turned_on), ledger_rel),
                 f"it was recorded after commit {turned_on[:12]} made {CONFIG_FILE} require signed approvals")


def _requires(data: bytes | None) -> bool:
    """Whether one version of aidlc.yaml requires signed approvals (a missing or unreadable one does not)."""
    if data is None:
        return False
    text, _problem = frontmatter.decode(data, CONFIG_FILE)
    meta = frontmatter.parse_mapping(text)[0] if text is not None else None
    governance = (meta or {}).get("governance")
    return isinstance(governance, dict) and governance.get("require_signed_approvals") is True


def _hashes(history: vcs.History, commits: list[str], ledger_rel: str) -> set[str]:
    """The event hashes of the ledger at each commit: a canonical line's top-level `hash` is its last one."""
    found: set[str] = set()
    for commit in commits:
        data = history.read(commit, [ledger_rel])[ledger_rel] or b""
        for line in data.splitlines():
            at = line.rfind(b'"hash":"')
            if at != -1:
                found.add(line[at + 8:at + 72].decode("ascii", "replace"))
    return found


def ledger_problems(ledger: Ledger) -> list[Problem]:
    """`check` for a ledger file on its own (`aidlc log verify`): only its gate decisions are parsed."""

    config = load_config(ledger.repo_root)
    if not config.governance.require_signed_approvals and not _holds(ledger.path, b'"signature":{'):
        return []  # nothing to check: no pass over the lines in Python
    decisions = [(number, event) for number, line in enumerate(ledger.lines(), start=1)
                 if b'"type":"gate.decided"' in line and (event := parse_event(line)) is not None]
    bank_rel = ledger.path.parent.relative_to(ledger.repo_root).as_posix()
    return check(ledger.repo_root, bank_rel, config, ledger.rel, decisions)


def _holds(path: Path, needle: bytes, chunk: int = 1 << 20) -> bool:
    """A byte search over the file in C, a chunk at a time: constant memory, where a mapped file would count
    every page searched in the process's resident memory (a 1M-event ledger: 650 MiB)."""
    keep = len(needle) - 1  # a needle across two chunks: the end of one is searched again with the next
    with open(path, "rb") as handle:
        tail = b""
        while block := handle.read(chunk):
            window = tail + block
            if needle in window:
                return True
            tail = window[-keep:] if keep else b""
    return False
