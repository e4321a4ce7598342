"""What `aidlc ci` checks beyond `aidlc validate`: on either layout, the branch's ledger against its base, who
committed each human decision, signed commits and approved files deleted; on a memory bank, bolt scope and
walkthrough evidence too (aidlc/ci/bolt_checks.py).

Git is the evidence: the ledger and the commits as `base..HEAD` holds them (aidlc/ci/branch.py reads them). Every
check yields findings of the `ci` rules (aidlc/rules/ci.py)."""

from __future__ import annotations

import bisect
import os
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

from aidlc import vcs
from aidlc.bank.config import V2_SPACES
from aidlc.bank.walk import CONFIG_FILE
from aidlc.ci.bolt_checks import scope, walkthrough_evidence
from aidlc.ci.branch import Branch, PullRequest, finding
from aidlc.events.canonical import parse_event
from aidlc.events.verify import ProblemKind, split_lines, verify_lines
from aidlc.gates.actor import bot_identity
from aidlc.gates.signatures import about
from aidlc.model.ci import AddedDecision
from aidlc.model.config import Config
from aidlc.model.events import ActorKind, Decision, EventType
from aidlc.model.findings import Finding
from aidlc.names import arg
from aidlc.plural import plural
from aidlc.rules import ci


def check(pr: PullRequest) -> list[Finding]:
    # The judging rules' verify commands run the pull request's code (walkthrough_evidence): every other check reads
    # git and the work tree first, and what that run changes of them is a finding of its own.
    read_first = [*pr.rulebook.findings, *scope(pr), *on_either_layout(pr, Path(pr.bank.repo_root), pr.bank.config)]
    return [*read_first, *walkthrough_evidence(pr)]


def on_either_layout(branch: Branch, root: Path, config: Config) -> Iterator[Finding]:
    """The checks of a pull request that need no memory bank, only git and the ledger (`config`: the judging
    rules'): the records as git keeps them (the ledger as HEAD holds it, no records file converted), the base's
    ledger kept whole, who committed each decision, signed commits, and approved files deleted."""
    yield from ledger_as_committed(branch)
    yield from records_attributes(branch, root, config)
    yield from records_twinned(branch, root, config)
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


# The attributes by which git keeps other bytes than a checkout shows (`-text` and the like, unset, convert nothing);
# the first three change more than line ends, which every reader of the records takes either way.
CONVERTING = ("working-tree-encoding", "filter", "ident", "eol", "text", "crlf")
CHANGING = CONVERTING[:3]


def ledger_as_committed(pr: Branch) -> Iterator[Finding]:
    """The ledger the work tree holds is HEAD's, perhaps with lines appended since (a decision not committed yet).
    The checks read the work tree's and who committed each decision is read from the commits': a .gitattributes
    conversion making them two ledgers would let an approval stand in one that the other holds otherwise."""
    committed, ledger = pr.ledger_at("HEAD"), pr.ledger
    if committed is None or not ledger.exists():
        return
    with os.fdopen(ledger.open_fd(), "rb") as handle:  # a regular file, or a LedgerError saying what is there
        held = handle.read()
    if held.startswith(committed):
        return
    lines = committed.split(b"\n")  # the line where they part
    line = next((number for number, text in enumerate(held.split(b"\n"), start=1)
                 if number > len(lines) or text != lines[number - 1]), held.count(b"\n") + 1)
    tree = Path(os.path.relpath(ledger.path, pr.history.top)).as_posix()
    converting = [name for name in vcs.attributes(pr.history.top, [tree]).get(tree, ())
                  if name.partition("=")[0] in CONVERTING]
    why = (f"git converts it between the two: .gitattributes gives it {', '.join(converting)}" if converting else
           "the work tree holds a change not committed")
    rel = arg(ledger.rel)
    yield finding(ci.LEDGER_NOT_COMMITTED, ledger.rel, line, f"{ledger.rel} in the work tree differs from the ledger "
                  f"HEAD holds from line {line} ({why}); aidlc ci would judge two ledgers",
                  f"git check-attr -a -- {rel}    # remove the attribute that converts it from .gitattributes, then: "
                  f"git add -u -- '*.gitattributes' && git add --renormalize {rel} && git commit" if converting else
                  f"git diff HEAD -- {rel}    # commit the change, or restore it: git restore -- {rel}")


def records_folders(pr: Branch, root: Path, config: Config) -> list[str]:
    """The folders that hold records, relative to `root`: the ledger's, and those the judging rules name in either
    layout (a base without records judges as a memory bank, while the branch may bring an aidlc-docs folder)."""
    ledger = Path(os.path.relpath(pr.ledger.path.parent, root)).as_posix()
    return list(dict.fromkeys((ledger, config.memory_bank, config.aidlc_docs, V2_SPACES)))


def records_attributes(pr: Branch, root: Path, config: Config) -> Iterator[Finding]:
    """The attributes git gives the records files HEAD holds (`records_folders`; the ledger's are rules of their own,
    aidlc/ci/rulebook.py): none may convert a file between the commit and the checkout beyond its line ends, and none
    the pull request adds may hide a file's change from the reviewer (`-diff`: git and GitHub say only that a binary
    file changed; `linguist-generated`: GitHub folds its diff away). One process, and one more where a hiding
    attribute is found, for the base's."""
    folders = tuple(folder for folder in records_folders(pr, root, config) if (root / folder).is_dir())
    if not folders:  # no records folder: nothing to judge, and no folder would list every file of the project
        return
    top = pr.history.top
    trees = {Path(os.path.relpath(root / rel, top)).as_posix(): rel for rel in vcs.files_at(root, "HEAD", folders)
             if root / rel != pr.ledger.path}
    given = vcs.attributes(top, list(trees))
    for tree, names in sorted(given.items()):
        changing = [name for name in names if name.partition("=")[0] in CHANGING]
        if changing:
            rel = trees[tree]
            yield finding(ci.RECORD_CONVERTED, rel, None, f"git converts {rel} between the commit and the checkout: "
                          f".gitattributes gives it {', '.join(changing)}",
                          f"git check-attr -a -- {arg(rel)}    # remove the attribute, then: git add -u -- "
                          f"'*.gitattributes' && git add --renormalize {arg(rel)} && git commit")
    hiding = {tree: found for tree, names in given.items() if (found := [name for name in names if name in HIDING])}
    yield from _hidden(pr, trees, hiding)


# The attributes that hide a file's change from a reviewer: `binary` unsets diff, so it shows as `-diff`.
HIDING = ("-diff", "linguist-generated", "linguist-generated=true")


def _hidden(pr: Branch, trees: dict[str, str], hiding: dict[str, list[str]]) -> Iterator[Finding]:
    """One finding for the records files to which the pull request's .gitattributes gives a hiding attribute that the
    base's did not (a team's own choice, made before, is not the pull request's)."""
    before = vcs.attributes(pr.history.top, list(hiding), commit=pr.base) if hiding else {}
    hidden = {trees[tree]: new for tree, names in hiding.items()
              if (new := [name for name in names if name not in before.get(tree, ())])}
    if not hidden:
        return
    first, *rest = sorted(hidden)
    also = f" and {plural(len(rest), 'more records file')}" if rest else ""
    given = sorted({name for names in hidden.values() for name in names})
    yield finding(ci.RECORD_HIDDEN, first, None, f"the pull request's .gitattributes gives {first}{also} "
                  f"{', '.join(given)}: its change would not be shown to the reviewer who approves it",
                  f"git check-attr -a -- {arg(first)}    # remove the attribute from .gitattributes and commit")


def records_twinned(pr: Branch, root: Path, config: Config) -> Iterator[Finding]:
    """No two paths HEAD holds differ only in letter case or Unicode form where one is a records file or folder
    (`records_folders`, the config file). Git keeps both; a case-insensitive file system (macOS, Windows) checks out
    one file for both, or one folder holding both folders' files, and macOS one name for both Unicode forms: a
    reviewer or teammate there would read, and append to, another record than this check judges here. Each twin is
    named once, at its shortest path (twin folders, not every file in them)."""
    records = records_folders(pr, root, config)
    inside, settings = tuple("" if folder == "." else _folded(folder) + "/" for folder in records), _folded(CONFIG_FILE)
    twins = twin_spellings(rel for rel in vcs.files_at(root, "HEAD")
                           if (key := _folded(rel)) == settings or key.startswith(inside))
    if not twins:
        return
    base = vcs.files_at(root, pr.base)
    files, ordered = set(base), sorted(base)

    def at(path: str) -> bool:  # the base holds the file, or a folder of that name (its files follow `path/`)
        after = bisect.bisect_left(ordered, path + "/")
        return path in files or (after < len(ordered) and ordered[after].startswith(path + "/"))

    for spellings in twins:
        yield _twins(spellings, {path for path in spellings if at(path)})


def twin_spellings(paths: Iterable[str]) -> list[list[str]]:
    """The spellings of each file or folder that `paths` write more than one way (folded as a case-insensitive,
    normalising file system folds them), at the shortest path where they part."""
    tree = _Spellings()
    for path in paths:
        tree.add(path)
    return tree.twins()


class _Spellings:
    """Paths as a tree of their folded names, each name with the spellings the paths give it: one entry a name of a
    path, so a hostile tree of deep paths costs no more than its names."""

    def __init__(self) -> None:
        self.nodes: dict[tuple[int, str], int] = {}  # (parent node, folded name) -> node; the root is 0
        self.parent: list[int] = [0]  # each node's parent
        self.spellings: dict[tuple[int, str], int] = {}  # (parent spelling, name as written) -> spelling
        self.written: list[tuple[int, str]] = [(0, "")]  # each spelling's parent spelling and name
        self.of: dict[int, set[int]] = {}  # node -> its spellings

    def add(self, rel: str) -> None:
        node = spelling = 0
        for name in rel.split("/"):
            above, written = node, spelling
            node = self.nodes.setdefault((above, _folded(name)), len(self.parent))
            if node == len(self.parent):
                self.parent.append(above)
            spelling = self.spellings.setdefault((written, name), len(self.written))
            if spelling == len(self.written):
                self.written.append((written, name))
            self.of.setdefault(node, set()).add(spelling)

    def twins(self) -> list[list[str]]:
        """The spellings of each name written more than one way, at the shortest path where they part."""
        twinned = {node for node, spellings in self.of.items() if len(spellings) > 1}
        return [sorted(self.path(spelling) for spelling in self.of[node]) for node in sorted(twinned)
                if not self.above(node) & twinned]

    def above(self, node: int) -> set[int]:
        found = set()
        while node:
            node = self.parent[node]
            found.add(node)
        return found

    def path(self, spelling: int) -> str:
        names = []
        while spelling:
            spelling, name = self.written[spelling]
            names.append(name)
        return "/".join(reversed(names))


def _twins(listed: list[str], at_base: set[str]) -> Finding:
    """The finding of one path's spellings (`listed`), the step keeping the base's spelling (of those `at_base`), else
    the one written as aidlc names its files (`audit.md`, in NFC)."""
    kept = [path for path in listed if path in at_base]
    keep = kept[0] if len(kept) == 1 else next((path for path in listed if path == _folded(path)), listed[0])
    how = ("Unicode form" if len({unicodedata.normalize("NFC", path) for path in listed}) == 1 else "letter case"
           if len({path.lower() for path in listed}) == 1 else "letter case and Unicode form")
    where = "macOS" if how == "Unicode form" else "a case-insensitive file system (macOS, Windows)"
    said = " and ".join(ascii(path)[1:-1] if not path.isascii() else path for path in listed)
    others = " ".join(arg(path) for path in listed if path != keep)
    return finding(ci.RECORD_TWINS, keep, None, f"{said} differ only in {how}: a checkout on {where} keeps one of "
                   "them, and reviewers there read another record than aidlc ci judges",
                   f"git rm -r -q --cached -- {others} && git commit    # keep {keep}; or git mv each to a name of its "
                   "own")


def _folded(path: str) -> str:
    """A path as a case-insensitive, normalising file system compares it."""
    return unicodedata.normalize("NFC", path).lower()


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


def decisions_added(pr: Branch) -> list[AddedDecision]:
    """The gate decisions the ledger HEAD holds and the base's did not, each with the commit that added it."""
    head = pr.ledger_at("HEAD")
    if head is None:
        return []
    base = set(split_lines(pr.ledger_at(pr.base, pr.base_ledger) or b""))
    introduced = pr.introductions()
    added = []
    for number, line in enumerate(split_lines(head), start=1):
        event = parse_event(line) if line not in base else None
        if event is not None and event.type == EventType.gate_decided:
            commit = introduced.get(line)
            added.append(AddedDecision(path=pr.ledger.rel, line=number, decision=about(event),
                                       actor_kind=event.actor.kind.value, signed=event.signature is not None,
                                       commit=commit.sha[:12] if commit else None))
    return added


def approval_authors(pr: Branch, bots: list[str]) -> Iterator[Finding]:
    """Each human decision the branch adds was committed by the person it names, and not by a bot (`bots`:
    governance.bot_emails)."""
    head = pr.ledger_at("HEAD")
    if head is None:
        return
    base = set(split_lines(pr.ledger_at(pr.base, pr.base_ledger) or b""))
    introduced = pr.introductions()
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


def unsigned_commits(pr: Branch, root: Path) -> Iterator[Finding]:
    """Each commit the branch adds carries a signature (governance.require_signed_commits is on)."""
    commits = {commit.sha: commit for commit in pr.commits}
    for sha in vcs.unsigned(root, list(commits)):
        commit = commits[sha]
        yield finding(ci.UNSIGNED_COMMIT, CONFIG_FILE, None,
                      f"commit {sha[:12]} by {commit.author} <{commit.email}> ({commit.subject}) carries no signature, "
                      "and governance.require_signed_commits is on")
