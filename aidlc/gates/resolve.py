"""Which gate a subject and a stage name: an intent, a bolt, a release or the rules in a memory bank; a phase or
a unit of an aidlc-docs project; an intent record or one of its units in a v2 workspace."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from aidlc.bank.index import BankIndex
from aidlc.bank.items import MemoryBank
from aidlc.errors import UsageError
from aidlc.gates.catalogue import (
    DOCS_PHASE_STAGES,
    DOCS_UNIT_STAGES,
    INTENT_STAGES,
    POLICY_STAGES,
    RELEASE_STAGES,
    GateTarget,
    docs_targets,
    record_targets,
    stages_for,
)
from aidlc.names import gate_command

if TYPE_CHECKING:
    from aidlc.aidlc_docs.model import DocsProject, RecordsWorkspace


def resolve(bank: MemoryBank, index: BankIndex, subject: str, stage: str | None = None) -> GateTarget:
    """The subject a name means; when an intent and a bolt share it, the stage tells them apart."""
    kind, _, name = subject.partition(":") if ":" in subject else ("", "", subject)
    if kind == "release":
        return _release(bank, name)
    if subject in ("policy", "policy:rules"):
        return GateTarget("policy", "rules", POLICY_STAGES)
    candidates = []
    # Named as `aidlc new` names them: `001`, the slug or the full name.
    if kind in ("", "bolt") and (bolt := index.bolt_named(name)) is not None:
        candidates.append(GateTarget("bolt", bolt.id, stages_for(bolt), bolt=bolt))
    if kind in ("", "intent") and (intent := index.intent_named(name)) is not None:
        candidates.append(GateTarget("intent", intent.id, INTENT_STAGES, intent=intent))
    if not candidates:
        kinds = {"bolt": "bolt", "intent": "intent"}.get(kind, "intent or bolt")
        existing = [f"intent {i.id}" for i in bank.intents if kind in ("", "intent")] + \
                   [f"bolt {b.id}" for b in bank.bolts if kind in ("", "bolt")]
        raise UsageError(f"no {kinds} named {subject!r}; there are: {', '.join(existing[:12]) or 'none'}"
                         + (f" and {len(existing) - 12} more" if len(existing) > 12 else ""),
                         ["aidlc status    # the intents and bolts that exist",
                          "name one by its number (001), its name (checkout) or its folder (001-checkout); "
                          "prefix the kind when a name is both: bolt:ID, intent:ID, release:ID"])
    fitting = [t for t in candidates if stage is None or stage in t.stages]
    if len(candidates) > 1 and not fitting:
        gates = "; ".join(f"{t.kind} {t.id}: {', '.join(t.stages)}" for t in candidates)
        raise UsageError(f"{subject!r} names an intent and a bolt, and neither has a {stage!r} gate ({gates})",
                         [f"aidlc gate ... intent:{name} --stage STAGE    # or bolt:{name}"])
    return (fitting or candidates)[0]


def _release(bank: MemoryBank, name: str) -> GateTarget:
    path = Path(bank.repo_root) / bank.rel_root / "operations" / "releases" / f"{name}.md"
    if not name or name.startswith(".") or "/" in name or "\\" in name:  # a name, not a path out of releases/
        raise UsageError(f"release:{name}: a release is named by its file in "
                         f"{bank.rel_root}/operations/releases/, without folders")
    if path.is_file():
        return GateTarget("release", name, RELEASE_STAGES, release_file=path)
    raise UsageError(f"no release {name!r}: expected {path.relative_to(bank.repo_root).as_posix()}",
                     ["write the release note there, then decide its deploy gate"])


def resolve_docs(project: DocsProject, subject: str, stage: str) -> GateTarget:
    """The subject of an aidlc-docs project a name means: `inception`, `construction` (build and test) or a unit's
    folder under construction/; refused with the subjects and stages there are when it has no such gate."""
    targets = {target.id: target for target in reversed(docs_targets(project))}  # a phase wins over a unit
    target = targets.get(subject)
    if target is None:
        raise UsageError(f"no subject {subject!r} in {project.rel}: the subjects are inception, "
                         f"{''.join(f'{unit}, ' for unit in project.units)}construction (build and test); a unit is "
                         f"a folder under {project.rel}/construction/",
                         [f"aidlc gate approve inception --stage {DOCS_PHASE_STAGES['inception'][1]}",
                          f"aidlc gate approve UNIT --stage {DOCS_UNIT_STAGES[0]}"])
    if stage not in target.stages:
        owner = ("a unit's (SUBJECT: its folder under construction/)" if stage in DOCS_UNIT_STAGES else
                 next((f"the {phase}'s" for phase, stages in DOCS_PHASE_STAGES.items() if stage in stages), None))
        known = f"; {stage} is {owner} gate" if owner else ""
        raise UsageError(f"{target.kind} {target.id} has no {stage!r} gate; its gates are "
                         f"{', '.join(target.stages)}{known}",
                         [gate_command(target.id, target.stages[0])])
    return target


def resolve_record(workspace: RecordsWorkspace, subject: str, stage: str) -> GateTarget:
    """The subject of a v2 workspace a name means: `[SPACE/]INTENT` (an intent record's folder name) or
    `[SPACE/]INTENT/UNIT` (a unit folder under its construction/); refused with the subjects there are when it names
    none, or more than one, or has no such gate."""
    targets = [target for record in workspace.records if record.record is not None
               for target in record_targets(record)]
    found = [t for t in targets if t.id == subject or t.id.split("/", 1)[1] == subject]
    listed = ", ".join(t.id for t in targets) or "none"
    if len(found) != 1:
        problem = f"{subject!r} names {len(found)} of them" if found else f"no subject {subject!r}"
        raise UsageError(f"{problem} in {workspace.rel}/: the subjects are an intent record, [SPACE/]INTENT, or one "
                         f"of its units, [SPACE/]INTENT/UNIT: {listed}",
                         [gate_command(targets[0].id, targets[0].stages[0]) if targets and
                          targets[0].stages else "aidlc status    # the records, their stages and units"])
    target = found[0]
    if stage not in target.stages:
        raise UsageError(f"{target.kind} {target.id} has no {stage!r} gate; its gates are "
                         f"{', '.join(target.stages) or 'none (no stage row past initialization)'}",
                         [gate_command(target.id, target.stages[0]) if target.stages else
                          "aidlc status    # the record's stage rows"])
    return target
