"""Structure rules: the shapes the method asks for (binary acceptance criteria, DDD stage
files, runbooks that answer their six questions, prioritised requirements)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from aidlc.bank.config import CONFIG_FILE, docs_marker, key_line
from aidlc.bank.criteria import Criterion
from aidlc.bank.index import BankIndex
from aidlc.bank.items import StoryItem
from aidlc.bank.walk import read_inside
from aidlc.bank.wording import opinion_word
from aidlc.model.artifacts import StageRecord
from aidlc.model.types import BoltStatus, BoltType, Severity
from aidlc.rules.catalogue import Hit, rule, story_rule

E, W, INFO = Severity.error, Severity.warning, Severity.info

def is_binary(criterion: Criterion) -> bool:
    """A checkbox with one observable outcome: some text, and no opinion words."""
    return criterion.checkbox and bool(criterion.text) and not opinion_word(criterion.text)


@story_rule("AIDLC-STRUCT-001", W, "structure", "a story has no acceptance criteria",
            "add an '## Acceptance Criteria' list: `- [ ] **Given** ..., **When** ..., **Then** ...`")
def story_has_criteria(_index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    if story.parts.count or story.doc.problem is not None:
        return ()
    where = story.criteria_line or story.doc.body_start
    return (Hit(story.rel, where, f"story {story.id} has no acceptance criteria"),)


@story_rule("AIDLC-STRUCT-002", W, "structure", "acceptance criteria are not binary checkboxes",
            "write each criterion as one checkbox with one observable outcome, "
            "`- [ ] **Given** ..., **When** ..., **Then** ...`, without words like 'fast' or 'appropriate'")
def criteria_are_binary(_index: BankIndex, story: StoryItem) -> Sequence[Hit]:
    # Most stories hold checkboxes with text and no hint of an opinion word at all: the reader noted both once per
    # story, without making their criteria.
    if story.parts.plain and not story.parts.opinion_hint:
        return ()
    loose = [c for c in story.criteria
             if not c.checkbox or not c.text or (story.opinion_hint and opinion_word(c.text))]
    if not loose:
        return ()
    first = loose[0]
    why = _why_not_binary(first)
    return (Hit(story.rel, first.line, f"{len(loose)} of {len(story.criteria)} acceptance criteria are not binary; "
                f"line {first.line} {why}: {first.text[:80]!r}"),)


def _why_not_binary(criterion: Criterion) -> str:
    if not criterion.checkbox:
        return "is not a checkbox"
    vague = opinion_word(criterion.text)
    return f"is vague ('{vague.group(0)}')" if vague else "is an empty checkbox"


# DDD bolts write a file per design stage before code (docs/design.md, Gates).
DDD_STAGE_FILES = (("ddd-01-", "domain model"), ("ddd-02-", "technical design"))


@rule("AIDLC-STRUCT-003", E, "structure", "a DDD bolt past design lacks its stage files",
      "write ddd-01-domain-model.md and ddd-02-technical-design.md in the bolt folder")
def ddd_stage_files(index: BankIndex) -> Iterator[Hit]:
    for bolt in index.bank.bolts:
        meta = bolt.meta
        if meta is None or meta.type != BoltType.ddd or meta.status != BoltStatus.complete:
            continue
        for prefix, stage in DDD_STAGE_FILES:
            if not any(name.startswith(prefix) and name.endswith(".md") for name in bolt.files):
                yield Hit(bolt.rel, bolt.doc.line_of("type"),
                          f"DDD bolt {bolt.id} is complete but has no {prefix}*.md ({stage}) file")


@rule("AIDLC-STRUCT-004", E, "structure", "a completed stage names an artifact file that does not exist",
      "write the artifact in the bolt folder (or name a file at the repository root), or correct "
      "`stages_completed[].artifact` (several files: `a.go, b.go`; no file: `none`)")
def stage_artifacts_exist(index: BankIndex) -> Iterator[Hit]:
    root_files = index.bank.root_files
    for bolt in index.bank.bolts:
        if bolt.meta is None or not isinstance(bolt.meta.stages_completed, list):
            continue
        for stage in bolt.meta.stages_completed:
            artifact = stage.artifact if isinstance(stage, StageRecord) else None
            if artifact is None and isinstance(stage, dict):
                artifact = stage.get("artifact")
            for name in _artifact_names(artifact):
                if "/" not in name and name not in bolt.files and name not in root_files:
                    yield Hit(bolt.rel, bolt.doc.line_of_item("stages_completed", name),
                              f"bolt {bolt.id} records a completed stage whose artifact {name} does not exist")


def _artifact_names(artifact: object) -> list[str]:
    """The files a stage's `artifact:` names, as specs.md banks write it: one name, a comma-separated
    list (`markdown_generator.go, frontmatter.go`), or `none` for a stage that writes no file."""
    if not isinstance(artifact, str) or artifact.strip().lower() == "none":
        return []
    return [name for part in artifact.split(",") if (name := part.strip())]


RUNBOOK_QUESTIONS = ("Trigger", "Owner", "Scope", "Steps", "Verification", "Communication")


@rule("AIDLC-STRUCT-005", W, "structure", "a runbook does not answer one of its six questions",
      "add the missing headings: Trigger, Owner, Scope, Steps, Verification, Communication")
def runbook_questions(index: BankIndex) -> Iterator[Hit]:
    for runbook in index.bank.runbooks:
        titles = " | ".join(title.lower() for _line, title in runbook.headings)
        missing = [q for q in RUNBOOK_QUESTIONS if q.lower() not in titles]
        if missing and runbook.doc.problem is None:
            yield Hit(runbook.rel, 1, f"runbook does not answer: {', '.join(missing)}")


@rule("AIDLC-STRUCT-006", INFO, "structure", "a functional requirement has no priority",
      "add `**Priority**: Must` (or Should / Could) under the requirement heading")
def requirement_priority(index: BankIndex) -> Iterator[Hit]:
    for requirement in index.bank.requirements:
        # specs.md's requirements template gives priorities to FRs only: an NFR is a target to meet.
        if requirement.block.priority is None and not requirement.id.startswith("NFR"):
            doc = requirement.intent.requirements_doc
            assert doc is not None
            yield Hit(doc.rel, requirement.block.line, f"requirement {requirement.qualified_id} has no priority")


@rule("AIDLC-STRUCT-007", INFO, "structure", "aidlc.yaml chooses the memory bank while the aidlc-docs folder holds "
      "AI-DLC records (aidlc-state.md, audit.md): no rule reads them",
      "if the project keeps its records in aidlc-docs/, set `layout: aidlc-docs` in aidlc.yaml; if that folder is "
      "left over, remove it")
def unread_docs_folder(index: BankIndex) -> Iterator[Hit]:
    # `layout: auto` refuses a tree with both (aidlc/workspace.py); a layout chosen by hand is the team's word, and
    # the reviewer is told what it leaves unread.
    bank = index.bank
    found = docs_marker(Path(bank.repo_root), bank.config) if bank.config.layout == "memory-bank" else None
    if found is not None:
        try:
            text = read_inside(Path(bank.repo_root) / CONFIG_FILE, bank.repo_root).decode("utf-8")
            line = key_line(text, ["layout"])
        except (OSError, UnicodeDecodeError):
            line = 1
        yield Hit(CONFIG_FILE, line, f"`layout: memory-bank`, and {found} holds "
                  "aidlc-workflows records that no rule reads")
