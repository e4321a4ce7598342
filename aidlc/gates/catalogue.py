"""The gate catalogue: which human checkpoints each subject has, in which order, on which bytes.

A decision binds to the sha256 of the artifact it judged (its fingerprint). When
a gate judges several files (all the stories of an intent), the fingerprint is a
digest of their paths and contents, so any change to any of them makes it stale.
Progress (status fields, checked boxes) is left out of the digest: moving a
story to complete must not make the approval of its definition stale. A bolt's
plan gate judges its plan under the bolt's risk and scope too (`bolt_terms`):
lowering the risk or widening the scope after the approval makes it stale.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc.bank.frontmatter import NotRegularFile
from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, Intent, MemoryBank
from aidlc.bank.walk import LinkOutside, read_inside
from aidlc.model.events import FileDigest
from aidlc.model.types import BoltType

INTENT_STAGES = ("requirements", "units", "stories", "bolt-plan")
BOLT_STAGES = ("plan", "walkthrough")
DDD_BOLT_STAGES = ("plan", "model", "design", "adr", "walkthrough")
RELEASE_STAGES = ("deploy",)
POLICY_STAGES = ("change",)  # a change of the rules a pull request is judged by (aidlc/bank/rulefiles.py)

# What each bolt stage judges, inside the bolt folder.
BOLT_ARTIFACTS = {
    "plan": ("implementation-plan.md",),
    "model": ("ddd-01-*.md",),
    "design": ("ddd-02-*.md",),
    "adr": ("adr-*.md",),
    "walkthrough": ("implementation-walkthrough.md",),
}


@dataclass(frozen=True)
class GateTarget:
    """A subject resolved in the bank, with its stages in order."""

    kind: str  # intent | bolt | release | policy
    id: str
    stages: tuple[str, ...]
    intent: Intent | None = None
    bolt: BoltItem | None = None
    release_file: Path | None = None


def stages_for(bolt: BoltItem) -> tuple[str, ...]:
    return DDD_BOLT_STAGES if bolt.meta is not None and bolt.meta.type == BoltType.ddd else BOLT_STAGES


# Progress fields change as work moves on; an approval judges the content, not the progress.
VOLATILE_KEYS = frozenset({"status", "phase", "updated", "implemented", "assigned_bolt", "started", "completed",
                           "current_stage", "stages_completed"})
_CHECKED = re.compile(rb"^(\s*[-*+]\s+)\[[xX]\]", re.MULTILINE)
_TOP_KEY = re.compile(rb"^([A-Za-z_][\w-]*)\s*:")


def content_digest(data: bytes) -> str:
    """sha256 of a file without its progress: volatile front-matter keys dropped, boxes unchecked."""
    lines = data.split(b"\n")
    if lines and lines[0].rstrip() == b"---":
        kept, dropping, closed = [lines[0]], False, False
        for index, line in enumerate(lines[1:], start=1):
            if line.rstrip() == b"---":
                kept.extend(lines[index:])
                closed = True
                break
            key = _TOP_KEY.match(line)
            if key:
                dropping = key.group(1).decode() in VOLATILE_KEYS
            elif not line.startswith((b" ", b"\t", b"-")) and line.strip():
                dropping = False
            if not dropping:
                kept.append(line)
        lines = kept if closed else lines
    return hashlib.sha256(_CHECKED.sub(rb"\1[ ]", b"\n".join(lines))).hexdigest()


def file_digests(repo: Path, files: list[Path]) -> list[FileDigest]:
    """The content digest of each judged file, sorted by path. Only regular files inside the repository are
    read: a link leading outside (AIDLC-FILE-008) or a FIFO is not what a person judged (`refused` names it)."""
    digests = []
    for path in sorted(files):
        try:
            data = read_inside(path, repo)
        except OSError:
            continue
        digests.append(FileDigest(path=path.relative_to(repo).as_posix(), sha256=content_digest(data)))
    return digests


def refused(repo: Path, files: list[Path]) -> list[str]:
    """Why judged files that exist are not read ("PATH: a symbolic link to ..., outside the repository")."""
    found = []
    for path in sorted(files):
        try:
            read_inside(path, repo)
        except (LinkOutside, NotRegularFile) as exc:
            found.append(f"{path.relative_to(repo).as_posix()}: {exc.strerror}")
        except OSError:
            continue  # missing or unreadable: the gate says there is nothing to judge, validate says why
    return found


def combine(label: str, digests: list[FileDigest]) -> FileDigest | None:
    """One file: its digest. Several: sha256 over "path NUL digest" lines (sorted by path), under `label`."""
    if len(digests) <= 1:
        return digests[0] if digests else None
    combined = hashlib.sha256()
    for digest in digests:
        combined.update(f"{digest.path}\0{digest.sha256}\n".encode())
    return FileDigest(path=label, sha256=combined.hexdigest())


def intent_bolts(bank: MemoryBank, index: BankIndex, intent: Intent) -> list[BoltItem]:
    """The bolts an intent's bolt-plan gate judges."""
    return [b for b in bank.bolts if b.meta and index.intent(b.meta.intent) is intent]


def judged_files(bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str) -> tuple[str, list[Path]]:
    """(label, files) a decision on this stage judges."""
    repo = Path(bank.repo_root)
    if target.kind == "bolt":
        assert target.bolt is not None
        folder = repo / Path(target.bolt.rel).parent
        files = [f for pattern in BOLT_ARTIFACTS[stage] for f in folder.glob(pattern)]
        return f"{folder.relative_to(repo).as_posix()}/{BOLT_ARTIFACTS[stage][0]}", files
    if target.kind == "intent":
        assert target.intent is not None
        intent = target.intent
        folder = repo / intent.rel
        if stage == "requirements":
            return f"{intent.rel}/requirements.md", [folder / "requirements.md"]
        if stage == "units":
            return f"{intent.rel}/units", [folder / "units.md", *(repo / u.rel for u in intent.units)]
        if stage == "stories":
            return f"{intent.rel}/units/*/stories", [repo / s.rel for u in intent.units for s in u.stories]
        return f"{bank.rel_root}/bolts (intent {intent.id})", [repo / b.rel for b in intent_bolts(bank, index, intent)]
    assert target.release_file is not None
    return target.release_file.relative_to(repo).as_posix(), [target.release_file]


def bolt_terms(bolt: BoltItem) -> FileDigest:
    """The bolt's risk and scope as its plan approval binds them: a digest under the name of bolt.md."""
    meta = bolt.meta
    terms = {"risk": str(meta.risk) if meta and meta.risk else None, "scope": sorted(set(meta.scope if meta else []))}
    return FileDigest(path=f"{bolt.rel} (risk and scope)",
                      sha256=hashlib.sha256(json.dumps(terms, sort_keys=True).encode()).hexdigest())


def binds_terms(decision: dict[str, Any] | None) -> bool:
    """Whether a plan decision binds the bolt's risk and scope (None: one about to be made does). One recorded
    before plan decisions did (no `data.bolt_risk`) judged the plan file alone, and is compared with it alone:
    upgrading aidlc does not make a bank's earlier approvals stale."""
    data = decision.get("data") if decision is not None else {"bolt_risk": None}
    return isinstance(data, dict) and "bolt_risk" in data


def fingerprint(bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str,
                decision: dict[str, Any] | None = None) -> FileDigest | None:
    """What a decision on the stage judges now; `decision`: the recorded decision it is compared with."""
    return combine(judged_files(bank, index, target, stage)[0], judged_digests(bank, index, target, stage, decision))


def judged_digests(bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str,
                   decision: dict[str, Any] | None = None) -> list[FileDigest]:
    """Each judged file's digest: recorded with a multi-file decision, so a stale finding can name the file. A
    bolt's plan, once written, is judged with the bolt's risk and scope (see `binds_terms`)."""
    digests = file_digests(Path(bank.repo_root), judged_files(bank, index, target, stage)[1])
    if digests and target.bolt is not None and stage == "plan" and binds_terms(decision):
        digests = sorted([*digests, bolt_terms(target.bolt)], key=lambda digest: digest.path)
    return digests
