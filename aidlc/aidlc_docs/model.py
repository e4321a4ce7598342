"""What the aidlc-docs layout's files say, as aidlc reads them (aidlc/aidlc_docs/reader.py): the stage lines of
aidlc-state.md, the entries of audit.md, the checkboxes of each plan. Every item keeps its file and line."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field


class Mark(StrEnum):
    done = "done"  # [x]
    pending = "pending"  # [ ]
    in_progress = "in-progress"  # [~], [/], [-] (partly done; in v2 too), [R] revising
    skipped = "skipped"  # [S]
    awaiting = "awaiting"  # [?] (v2: the gate is open)


class StageLine(BaseModel):
    """A checkbox line of aidlc-state.md; a line of a per-unit stage that lists units (`Code Generation - Unit 1 +
    Unit 2`) is one StageLine per unit, each at that line."""

    line: int
    text: str = Field(description="the line after its checkbox, as written")
    mark: Mark
    stage: str | None = Field(description="the stage's slug (aidlc/aidlc_docs/stages.py); None: no known label")
    unit: str | None = Field(default=None, description="the unit the line is about, as written ('1', 'u2', "
                             "'api-server'); from the line, its parent line or the heading above it")
    every_unit: bool = Field(default=False, description="the line speaks of every unit at once (`Code Generation "
                             "(all units)`, `all 4 units`): its unit is None, and it claims the stage of each unit")
    skipped: bool = Field(default=False, description="the line says the stage was or will be skipped")
    awaiting: bool = Field(default=False, description="the line says the stage still waits for approval")
    depth: int = 0  # indentation level (a sub-item of another line: > 0)
    parent: int | None = Field(default=None, description="the line of the checkbox line this one is a sub-item of")
    archived: bool = Field(default=False, description="under a heading that keeps an earlier feature's lines (`## "
                           "Completed features (archive)`): the plans beside the file are the current feature's")


class CurrentStage(BaseModel):
    """The stage the state file's Current Status section names as current (`- **Current Stage**: ...`)."""

    line: int
    text: str = Field(description="the field's value, as written")
    stage: str | None = Field(description="the stage's slug, when the value starts with a stage's name")
    unit: str | None = None
    awaiting: int | None = Field(default=None, description="the line of the section that says the stage still "
                                 "waits for approval (`- **Status**: Awaiting user approval`)")


class StateFile(BaseModel):
    path: str
    stages: list[StageLine] = Field(default_factory=list)
    current: CurrentStage | None = None
    conflict_lines: list[int] = Field(default_factory=list, description="lines of git merge-conflict markers")

    def earlier_feature(self, line: StageLine) -> bool:
        """Whether a line is an earlier feature's: under an archive heading, its stage listed by the current feature
        too. An archive that alone holds a stage is the current feature's lines moved out of sight: judged as any."""
        return line.archived and line.stage is not None and any(other.stage == line.stage and not other.archived
                                                                for other in self.stages)


class AuditEntry(BaseModel):
    """One entry of audit.md: a heading (or a `---` separator) and `**Field**: value` lines."""

    line: int
    end: int = Field(description="the entry's last line")
    heading: str | None = None
    fields: dict[str, str] = Field(default_factory=dict, description="canonical field name -> value: timestamp, "
                                   "user_input, ai_response, ai_prompt, context, status, event, stage, ...; other "
                                   "fields under their own name, lower case")
    timestamp: str | None = Field(default=None, description="the timestamp as written")
    at: datetime | None = Field(default=None, description="the timestamp read as ISO 8601 (None: not one; a value "
                                "without a zone is read as UTC and `zoned` is false)")
    zoned: bool = False
    text: str = Field(description="the entry's lines, line ends normalised, trailing blank lines dropped: what must "
                      "never change once committed")


class AuditLog(BaseModel):
    path: str
    entries: list[AuditEntry] = Field(default_factory=list)
    conflict_lines: list[int] = Field(default_factory=list)
    text_lines: int = Field(default=0, description="lines that are not blank, entries or not")


class OutsideLog(BaseModel):
    """An audit log aidlc reads outside a docs folder that holds none: at the repository root, or in the folder above
    the docs folder (tyfoo1603/aidlc-workflows keeps audit.md at its root). The rules keep the log in the folder: none
    of its approvals counts there."""

    path: str = Field(description="relative to the root")
    entries: int = Field(description="the entries aidlc reads in it")


class PlanFile(BaseModel):
    path: str
    stage: str | None
    unit: str | None
    open: list[int] = Field(default_factory=list, description="lines of unchecked boxes")
    open_under: str | None = Field(default=None, description="the heading above the first unchecked box, as written "
                                   "(`## Acceptance Criteria Checklist`: boxes that are no steps)")
    done: int = 0
    superseded_by: str | None = Field(default=None, description="the revised plan beside it that replaces it "
                                      "(`<name>-revised.md`, `-v2`, `-updated`), relative to the root")


class StoryRef(BaseModel):
    id: str = Field(description="as written: US-1.1, US-A1, Story 1.3")
    path: str
    line: int
    within: bool = Field(default=False, description="named only by a range around it (US-3.2 of `US-3.1~3.7`): the "
                         "map names what stories.md holds between the ends it writes")


class StoryIndex(BaseModel):
    """The story ids a project uses: where user-stories/stories.md defines each (a heading naming it), and where
    unit-of-work-story-map.md assigns each to a unit (a table row, or a list item led by a unit; a range such as
    `US-A1..A7`, `US-EV1~9` or `US-3.1~3.7` names every id in it)."""

    defined: list[StoryRef] = Field(default_factory=list)
    mapped: list[StoryRef] = Field(default_factory=list)
    maps: list[str] = Field(default_factory=list, description="the story maps read")


class Unreadable(BaseModel):
    path: str
    message: str
    line: int | None = None  # where the text stops being UTF-8
    fix: str | None = None  # where the rule's own fix does not fit (a link to put back as the file)


class StateRow(BaseModel):
    """A stage row of a v2 intent record's aidlc-state.md: `- [x] requirements-analysis — EXECUTE`."""

    line: int
    box: str = Field(description="the marker as written: ' ' pending, '-' in progress, '?' awaiting approval, 'R' "
                     "revising, 'x' completed, 'S' skipped")
    mark: Mark = Field(description="what the box says; skipped too for an empty box whose decision is SKIP (a "
                       "stage the scope leaves out)")
    slug: str = Field(description="the stage's slug as written; v2 and its plugins add stages aidlc need not know")
    decision: str = Field(description="what follows the em dash: EXECUTE, SKIP, ...")
    phase: str | None = Field(default=None, description="the `### <PHASE> PHASE` heading the row stands under, "
                              "lower case (initialization, ideation, inception, construction, operation); None "
                              "above every such heading")


class RecordEvent(BaseModel):
    """An audit block of a v2 record's shards, in the record's merged order (timestamp, then place in its shard)."""

    path: str = Field(description="the shard that holds it")
    entry: AuditEntry
    event: str = Field(description="the `**Event**:` type, e.g. GATE_APPROVED; '' for a block without one (v1 "
                       "entries a migration carried over)")
    tied: bool = Field(default=False, description="a block of another shard carries the same second: the two are "
                       "causally unordered")


class IntentRecord(BaseModel):
    """What makes a folder a v2 intent record (`aidlc/spaces/<space>/intents/<dir>/aidlc-state.md`)."""

    space: str
    name: str = Field(description="the record's folder name: <YYMMDD>-<label>")
    rows: list[StateRow] = Field(default_factory=list)
    events: list[RecordEvent] = Field(default_factory=list, description="every timestamped block of its shards, "
                                      "merged; a block whose timestamp cannot be read is left out (AIDLC-DOCS-008 "
                                      "reports it)")


class DocsProject(BaseModel):
    """The aidlc-docs folder of a repository, as its work tree holds it; or one v2 intent record's folder."""

    root: str = Field(description="the repository root, absolute")
    rel: str = Field(description="the docs folder relative to the root, e.g. aidlc-docs")
    state: StateFile | None = None
    audits: list[AuditLog] = Field(default_factory=list)
    plans: list[PlanFile] = Field(default_factory=list)
    units: list[str] = Field(default_factory=list, description="the folders under construction/ that are units")
    unit_numbers: dict[str, str] = Field(default_factory=dict, description="unit folder -> the number a heading of the "
                                         "state file or of the units' document gives it (`#### Unit 1: Backend API`, "
                                         "`## Unit 1: backend-api`)")
    files: list[str] = Field(default_factory=list, description="every file under the folder, relative to the root")
    conflicts: dict[str, list[int]] = Field(default_factory=dict, description="other Markdown files with git "
                                            "merge-conflict markers: path -> lines")
    stories: StoryIndex = Field(default_factory=StoryIndex)
    unreadable: list[Unreadable] = Field(default_factory=list)
    logs_outside: list[OutsideLog] = Field(default_factory=list, description="audit logs with entries at the root or "
                                           "beside the folder, where the folder holds none")
    record: IntentRecord | None = Field(default=None, description="set when the folder is a v2 intent record")


class RecordsWorkspace(BaseModel):
    """A v2 workspace (`aidlc/`): its intent records, each read as a docs folder, and the migration marker."""

    root: str = Field(description="the repository root, absolute")
    rel: str = Field(default="aidlc", description="the workspace folder relative to the root")
    records: list[DocsProject] = Field(default_factory=list)
    migrated: str | None = Field(default=None, description="aidlc/.migrated's text, when the flat aidlc-docs/ "
                                 "was migrated")

    @property
    def files(self) -> int:
        return sum(len(record.files) for record in self.records)
