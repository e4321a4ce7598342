"""The document `aidlc status --format json` prints: where the chain stands and what to do next."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Action(BaseModel):
    reason: str
    command: str | None = None


DERIVED = ("the status to show: the file's, or, where the file says nothing or draft, the one its stories "
           "imply (complete when all are, in-progress when any is started)")


class UnitStatus(BaseModel):
    id: str
    status: str | None
    stories: dict[str, int]
    derived_status: str | None = Field(default=None, description=DERIVED)


class IntentStatus(BaseModel):
    id: str
    status: str | None
    phase: str | None = Field(default=None, description="the intent's phase (inception, construction, operation), "
                              "from its requirements.md front matter")
    requirements: int
    units: list[UnitStatus]
    stories: dict[str, int]
    derived_status: str | None = Field(default=None, description=DERIVED)


class BoltLine(BaseModel):
    id: str
    status: str | None
    unit: str | None
    stories: int
    risk: str | None
    current_stage: str | None
    intent: str | None = None
    story_ids: list[str] = Field(default_factory=list, description="the stories the bolt lists, as written")
    requires_bolts: list[str] = Field(default_factory=list)


class LastDecision(BaseModel):
    stage: str
    decision: str
    by: str
    at: str


class WalkthroughEvidence(BaseModel):
    """For a bolt waiting at its walkthrough gate: whether the gate would take an approval now."""

    complete: bool = Field(description="the evidence report is current and its verification met")
    missing: list[str] = Field(description="what the gate would name when refusing an approval")
    waiting: str | None = Field(default=None, description="why the gate still waits, e.g. one of two approvals")


class GateStatus(BaseModel):
    kind: str
    id: str
    pending: str | None = Field(description="the first gate, in order, without a current (non-stale) approval; "
                                "None when all passed")
    last: LastDecision | None = None
    evidence: WalkthroughEvidence | None = Field(default=None, description="bolts waiting at the walkthrough gate")


class StatusReport(BaseModel):
    version: int = 1
    root: str
    counts: dict[str, int]
    stories: dict[str, int] = Field(description="stories by status")
    bolts_by_status: dict[str, int]
    intents: list[IntentStatus]
    bolts: list[BoltLine]
    gates: list[GateStatus]
    ledger: bool = Field(description="whether the bank has a ledger")
    no_ledger: Action | None = Field(default=None, description="without a ledger: why, and the command that "
                                     "brings one back from git history or, where it never had one, creates it")
    errors: int
    warnings: int
    next_actions: list[Action]
    waiting: list[Action] = Field(default_factory=list, description="the gates waiting for a person's decision, "
                                  "with something to judge (also among next_actions)")


# -- the aidlc-docs layout (AWS aidlc-workflows): its own document, since it has stages, not intents and bolts ---
class DocsStageLine(BaseModel):
    """A stage line of aidlc-state.md, as the reader reads it (aidlc/aidlc_docs/reader.py)."""

    line: int
    text: str = Field(description="the line after its checkbox, as written")
    stage: str | None = Field(description="the stage's slug; None: a label aidlc does not know (never guessed)")
    mark: str = Field(description="done, pending, in-progress, skipped or awaiting")
    skipped: bool
    awaiting: bool = Field(description="the line says the stage waits for approval")
    unit: str | None = None
    approved: bool | None = Field(default=None, description="for a ticked stage that needs a person's approval: "
                                  "whether the audit log holds one, of each unit the line claims (as AIDLC-DOCS-003 "
                                  "reads approvals); None: not ticked, needs none, or an audit log cannot be read")
    approvals: list[str] = Field(default_factory=list, description="where the audit log holds those approvals "
                                 "(`aidlc-docs/audit.md:51`), first for each unit claimed")


class DocsPlan(BaseModel):
    path: str
    stage: str | None
    done: int = Field(description="boxes ticked")
    open: int = Field(description="boxes open")


class DocsPhase(BaseModel):
    phase: str = Field(description="inception, construction or operations")
    done: int = Field(description="stage lines ticked")
    total: int = Field(description="stage lines, skipped ones included")
    stages: list[DocsStageLine] = Field(description="the phase's lines about no unit in particular")
    plans: list[DocsPlan] = Field(default_factory=list, description="the plans of its stages about no unit")


class DocsUnit(BaseModel):
    unit: str = Field(description="the unit as the state file names it (a stage line's `Unit 1` gives '1'), else as "
                      "a plan file's name does (its prefix, 'payments')")
    folders: list[str] = Field(default_factory=list, description="its folders under construction/, the subject of "
                               "its gates: the same name, its number ('unit1-backend' is unit 1's) or the number a "
                               "heading ties the folder to")
    done: int
    total: int
    stages: list[DocsStageLine]
    plans: list[DocsPlan] = Field(description="its plans, matched as its folders are")


class UnreadLog(BaseModel):
    """An audit log holding text in no entry form aidlc reads (AIDLC-DOCS-017): no approval in it counts."""

    path: str = Field(description="relative to the root")
    text_lines: int = Field(description="its lines that are not blank")


class DocsStatusReport(BaseModel):
    """`aidlc status --format json` on a project in the aidlc-docs layout."""

    version: int = 1
    layout: str = "aidlc-docs"
    root: str
    folder: str = Field(description="the docs folder, relative to the root")
    state: str | None = Field(description="aidlc-state.md, relative to the root; None when there is none")
    phases: list[DocsPhase]
    units: list[DocsUnit]
    audit_entries: int = Field(description="entries in the audit logs (history and new alike)")
    unread_logs: list[UnreadLog] = Field(default_factory=list, description="audit logs holding text in no entry "
                                         "form aidlc reads (AIDLC-DOCS-017): why their entries count 0")
    recorded_entries: int = Field(description="entries `aidlc audit append` wrote and the ledger records")
    audit_notes: list[str] = Field(default_factory=list, description="why the audit logs hold fewer entries than the "
                                   "project's log: the findings that say so (a log kept outside the docs folder, "
                                   "AIDLC-DOCS-030; deleted, emptied or git-ignored by a commit, AIDLC-DOCS-024), "
                                   "whose steps come first among the next actions")
    ledger: bool = Field(description="whether the docs folder has a ledger")
    gates: list[GateStatus] = Field(default_factory=list, description="each subject's gates in the ledger beside the "
                                    "docs (inception, each unit, construction), once a person has decided one of "
                                    "the project's; empty before, or while the ledger does not verify")
    errors: int = Field(default=0, description="error findings of `aidlc validate` on the project")
    warnings: int = Field(default=0, description="warning findings of `aidlc validate` on the project")
    ticked: int = Field(default=0, description="ticked stages that need a person's approval, one per unit a line names")
    unapproved: int | None = Field(default=None, description="those of them with no approval in the audit log "
                                   "(approved: false); None: an audit log cannot be read")
    notes: list[str] = Field(description="what the reader could not place: unknown stage labels, merge-conflict "
                             "markers, unreadable files")
    waiting: list[Action] = Field(description="what waits for a person: a gate of the ledger the gate would take a "
                                  "decision of now (`gates`), a stage awaiting approval, or ticked while it says so")
    next_actions: list[Action]


# -- aidlc-workflows v2 intent records (aidlc/spaces/<space>/intents/<dir>/): one part per record ---------------
class RecordRow(BaseModel):
    """A stage row of a record's aidlc-state.md (`- [?] units-generation — EXECUTE`)."""

    line: int
    slug: str = Field(description="the stage's slug as written (v2 and its plugins add stages aidlc need not know)")
    box: str = Field(description="the marker as written: ' ', '-', '?', 'R', 'x' or 'S'")
    mark: str = Field(description="done, pending, in-progress, skipped or awaiting; skipped too for an empty box "
                      "whose decision is SKIP")
    decision: str = Field(description="what follows the em dash: EXECUTE, SKIP, ...")


class RecordPhase(BaseModel):
    phase: str = Field(description="the `### <PHASE> PHASE` heading the rows stand under, lower case; '' for rows "
                       "above every such heading")
    done: int = Field(description="rows completed ([x])")
    skipped: int = Field(description="rows skipped: [S], or not started with the decision SKIP")
    total: int = Field(description="rows, skipped ones included")
    rows: list[RecordRow]


class RecordStatus(BaseModel):
    """One intent record: its stage rows per phase, what waits for a person, the next safe actions."""

    folder: str = Field(description="the record's folder, relative to the root")
    space: str
    name: str = Field(description="the record's folder name: <YYMMDD>-<label>")
    state: str | None = Field(description="its aidlc-state.md, relative to the root")
    phases: list[RecordPhase]
    audit_events: int = Field(description="timestamped blocks across the record's audit shards")
    shards: int = Field(description="the record's audit shards (audit/<host>-<clone>.md)")
    errors: int = Field(default=0, description="error findings of `aidlc validate` on the record's own files")
    warnings: int = Field(default=0, description="warning findings of `aidlc validate` on the record's own files")
    notes: list[str] = Field(description="what the reader could not read or place")
    waiting: list[Action] = Field(description="the open gates: rows marked [?]")
    next_actions: list[Action]


class RecordsStatusReport(BaseModel):
    """`aidlc status --format json` on a repository whose aidlc/ folder holds aidlc-workflows v2 intent records."""

    version: int = 1
    layout: str = "aidlc-workflows-v2"
    root: str
    folder: str = Field(default="aidlc", description="the workspace folder, relative to the root")
    migrated: str | None = Field(default=None, description="aidlc/.migrated's text, when the flat aidlc-docs/ was "
                                 "migrated into a record")
    records: list[RecordStatus]
    errors: int = Field(default=0, description="error findings of `aidlc validate` on the workspace, the records' and "
                        "its own (the spaces' registries, the migration)")
    warnings: int = Field(default=0, description="warning findings of `aidlc validate` on the workspace")
    waiting: list[Action] = Field(description="every record's open gates, in record order")
