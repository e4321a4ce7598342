"""The gate catalogue: which human checkpoints each subject has, in which order, on which bytes.

A decision binds to the sha256 of the artifact it judged (its fingerprint). When
a gate judges several files (all the stories of an intent), the fingerprint is a
digest of their paths and contents, so any change to any of them makes it stale.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from aidlc.bank.index import BankIndex
from aidlc.bank.items import BoltItem, Intent, MemoryBank
from aidlc.model.events import FileDigest
from aidlc.model.types import BoltType

INTENT_STAGES = ("requirements", "units", "stories", "bolt-plan")
BOLT_STAGES = ("plan", "walkthrough")
DDD_BOLT_STAGES = ("plan", "model", "design", "adr", "walkthrough")
RELEASE_STAGES = ("deploy",)

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

    kind: str  # intent | bolt | release
    id: str
    stages: tuple[str, ...]
    intent: Intent | None = None
    bolt: BoltItem | None = None
    release_file: Path | None = None


def stages_for(bolt: BoltItem) -> tuple[str, ...]:
    return DDD_BOLT_STAGES if bolt.meta is not None and bolt.meta.type == BoltType.ddd else BOLT_STAGES


def digest_files(repo: Path, label: str, files: list[Path]) -> FileDigest | None:
    """One file: its sha256. Several: sha256 over "path NUL sha256" lines, sorted by path."""
    files = sorted(f for f in files if f.is_file())
    if not files:
        return None
    if len(files) == 1:
        path = files[0]
        return FileDigest(path=path.relative_to(repo).as_posix(), sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    combined = hashlib.sha256()
    for path in files:
        rel = path.relative_to(repo).as_posix()
        combined.update(f"{rel}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    return FileDigest(path=label, sha256=combined.hexdigest())


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
        bolts = [b for b in bank.bolts if b.meta and index.intent(b.meta.intent) is intent]
        return f"{bank.rel_root}/bolts (intent {intent.id})", [repo / b.rel for b in bolts]
    assert target.release_file is not None
    return target.release_file.relative_to(repo).as_posix(), [target.release_file]


def fingerprint(bank: MemoryBank, index: BankIndex, target: GateTarget, stage: str) -> FileDigest | None:
    label, files = judged_files(bank, index, target, stage)
    return digest_files(Path(bank.repo_root), label, files)
