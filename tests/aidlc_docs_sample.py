"""A small project in the aidlc-docs layout (AWS aidlc-workflows v1), in a real git repo, that follows every rule.

Its files take the shapes of the rules' templates: aidlc-state.md's Stage Progress with phase headings, audit.md
entries `## <Stage>` / Timestamp / User Input / AI Response / Context separated by `---`, the AI's approval prompt
logged before the person's answer, plans ticked step by step, a story map assigning every story. It validates with
no finding of any severity; a test breaks one thing in it and asserts the finding.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aidlc.model.findings import Finding, ValidationReport
from aidlc.rules import validate
from aidlc.workspace import open_records
from tests.helpers import git_init

DOCS = "aidlc-docs"
STATE = f"{DOCS}/aidlc-state.md"
AUDIT = f"{DOCS}/audit.md"
STORIES = f"{DOCS}/inception/user-stories/stories.md"
STORY_MAP = f"{DOCS}/inception/application-design/unit-of-work-story-map.md"
EXECUTION_PLAN = f"{DOCS}/inception/plans/execution-plan.md"
STORY_PLAN = f"{DOCS}/inception/plans/story-generation-plan.md"
UNITS = ("unit-1-orders-api", "unit-2-shop-web")
CODE_PLAN = f"{DOCS}/construction/plans/unit-1-orders-api-code-generation-plan.md"
DESIGN_PLAN = f"{DOCS}/construction/plans/unit-2-shop-web-functional-design-plan.md"
START = datetime(2026, 11, 30, 8, 3, 17, tzinfo=UTC)

STATE_TEXT = """\
# AI-DLC State Tracking

## Project Information
- **Project Type**: Greenfield
- **Start Date**: 2026-11-30T08:03:17Z
- **Current Stage**: CONSTRUCTION - Build and Test

## Code Location Rules
- **Application Code**: Workspace root (NEVER in aidlc-docs/)
- **Documentation**: aidlc-docs/ only

## Execution Plan Summary
- **Total Stages**: 12
- **Stages to Skip**: Reverse Engineering (greenfield), NFR Design, Infrastructure Design

## Stage Progress

### 🔵 INCEPTION PHASE
- [x] Workspace Detection
- [ ] Reverse Engineering - SKIP
- [x] Requirements Analysis
- [x] User Stories
- [x] Workflow Planning
- [x] Application Design - EXECUTE
- [x] Units Generation - EXECUTE

### 🟢 CONSTRUCTION PHASE
- [x] Functional Design - EXECUTE (Unit 1: orders-api)
- [x] Functional Design - EXECUTE (Unit 2: shop-web)
- [x] NFR Requirements - EXECUTE (Unit 1: orders-api)
- [ ] NFR Design - SKIP
- [ ] Infrastructure Design - SKIP
- [x] Code Generation - EXECUTE (Unit 1: orders-api)
- [x] Code Generation - EXECUTE (Unit 2: shop-web)
- [x] Build and Test - EXECUTE

### 🟡 OPERATIONS PHASE
- [ ] Operations - PLACEHOLDER

## Current Status
- **Lifecycle Phase**: CONSTRUCTION
- **Current Stage**: Build and Test Complete
- **Status**: Ready to proceed
"""

# (heading, user input or None for the AI's own prompt, AI response, context)
ENTRIES: list[tuple[str, str | None, str, str]] = [
    ("Workspace Detection", "Build a small shop: customers order, staff see orders.",
     "Greenfield project detected; starting Requirements Analysis.", "INCEPTION - Workspace Detection"),
    ("Requirements Analysis - Approval Prompt", None, "Requirements are ready. Approve & Continue?",
     "INCEPTION - Requirements Analysis"),
    ("Requirements Analysis - Approval", "Approve & Continue", "Requirements approved.",
     "INCEPTION - Requirements Analysis approved"),
    ("User Stories - Approval", "looks good, continue", "Stories approved.", "INCEPTION - User Stories approved"),
    ("Workflow Planning - Approval", "Approve & Continue", "Execution plan approved.",
     "INCEPTION - Workflow Planning approved"),
    ("Application Design - Approval", "ok", "Application design approved.",
     "INCEPTION - Application Design approved"),
    ("Units Generation - Approval", "yes, two units", "Units approved.", "INCEPTION - Units Generation approved"),
    ("Functional Design - Unit 1 Approval", "Continue to Next Stage", "Unit 1 functional design approved.",
     "CONSTRUCTION - Unit 1 orders-api"),
    ("NFR Requirements - Unit 1 Approval", "Continue to Next Stage", "Unit 1 NFR requirements approved.",
     "CONSTRUCTION - Unit 1 orders-api"),
    ("Code Generation - Unit 1 Approval", "Continue to Next Stage", "Unit 1 code approved.",
     "CONSTRUCTION - Unit 1 orders-api"),
    ("Functional Design - Unit 2 Approval", "B", "Unit 2 functional design approved.",
     "CONSTRUCTION - Unit 2 shop-web"),
    ("Code Generation - Unit 2 Approval", "Continue to Next Stage", "Unit 2 code approved.",
     "CONSTRUCTION - Unit 2 shop-web"),
    ("Build and Test - Approval", "approved", "Build and test instructions approved.",
     "CONSTRUCTION - Build and Test"),
]


def entry_text(heading: str, at: datetime, user: str | None, response: str, context: str) -> str:
    said = f'**User Input**: "{user}"\n' if user is not None else ""
    return (f"## {heading}\n**Timestamp**: {iso(at)}\n{said}"
            f'**AI Response**: "{response}"\n**Context**: {context}\n\n---\n\n')


def audit_text(entries: list[tuple[str, str | None, str, str]] = ENTRIES) -> str:
    """audit.md with `entries`, oldest first, a few minutes apart."""
    return "# AI-DLC Audit Log\n\n" + "".join(
        entry_text(heading, stamp(n), user, response, context)
        for n, (heading, user, response, context) in enumerate(entries))


def stamp(n: int) -> datetime:
    """The time of the n-th entry of the clean audit log."""
    return START + timedelta(minutes=7 * n, seconds=13 * n)


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def plan(title: str, steps: int, done: int) -> str:
    boxes = "".join(f"- [{'x' if n < done else ' '}] Step {n + 1}: do part {n + 1}\n" for n in range(steps))
    return f"# {title}\n\n## Steps\n{boxes}"


def clean_files() -> dict[str, str]:
    files = {
        STATE: STATE_TEXT,
        AUDIT: audit_text(),
        f"{DOCS}/inception/requirements/requirements.md": "# Requirements\n\n## FR-1: Place an order\n",
        STORIES: "# User Stories\n\n### US-1: Place an order\n\n### US-2: Pay for an order\n\n"
                 "### US-3: See incoming orders\n",
        STORY_MAP: "# Unit of Work Story Map\n\n| Story | Unit |\n|---|---|\n| US-1, US-2 | Unit 1: orders-api |\n"
                   "| US-3 | Unit 2: shop-web |\n",
        f"{DOCS}/inception/application-design/unit-of-work.md": "# Units\n\n- Unit 1: orders-api\n"
                                                                "- Unit 2: shop-web\n",
        # Workflow Planning's boxes choose stages; open ones are stages not run, never open steps.
        EXECUTION_PLAN: "# Execution Plan\n\n## Phases to Execute\n- [x] Requirements Analysis (COMPLETED)\n"
                        "- [ ] Reverse Engineering - SKIP\n- [ ] NFR Design - SKIP\n",
        STORY_PLAN: plan("Story Generation Plan", 3, 3),
        f"{DOCS}/inception/plans/application-design-plan.md": plan("Application Design Plan", 2, 2),
        f"{DOCS}/inception/plans/unit-of-work-plan.md": plan("Unit of Work Plan", 2, 2),
        f"{DOCS}/construction/plans/unit-1-orders-api-functional-design-plan.md": plan("Functional Design", 2, 2),
        f"{DOCS}/construction/plans/unit-1-orders-api-nfr-requirements-plan.md": plan("NFR Requirements", 2, 2),
        CODE_PLAN: plan("Code Generation Plan", 4, 4),
        DESIGN_PLAN: plan("Functional Design", 2, 2),
        f"{DOCS}/construction/plans/unit-2-shop-web-code-generation-plan.md": plan("Code Generation Plan", 3, 3),
        f"{DOCS}/construction/build-and-test/build-and-test-summary.md": "# Build and Test\n\nAll green.\n",
        "src/shop/orders.py": "def place_order():\n    return 'ok'\n",
    }
    for unit in UNITS:
        files[f"{DOCS}/construction/{unit}/functional-design/business-logic-model.md"] = "# Business logic\n"
        files[f"{DOCS}/construction/{unit}/code/code-summary.md"] = "# Code summary\n\nCode in src/.\n"
    return files


@dataclass
class DocsRepo:
    root: Path

    def path(self, rel: str) -> Path:
        return self.root / rel

    def read(self, rel: str) -> str:
        return self.path(rel).read_text(encoding="utf-8")

    def write(self, rel: str, text: str) -> None:
        self.path(rel).parent.mkdir(parents=True, exist_ok=True)
        self.path(rel).write_text(text, encoding="utf-8")

    def replace(self, rel: str, old: str, new: str) -> None:
        text = self.read(rel)
        assert old in text, f"{old!r} not in {rel}"
        self.write(rel, text.replace(old, new, 1))

    def line(self, rel: str, needle: str) -> int:
        return next(n for n, text in enumerate(self.read(rel).split("\n"), start=1) if needle in text)

    def report(self) -> ValidationReport:
        return validate(open_records(self.root))

    def findings(self, code: str | None = None) -> list[Finding]:
        return [f for f in self.report().findings if code is None or f.code == code]

    def commit(self, message: str, at: datetime | None = None) -> None:
        """Commit everything; `at`: the commit's date (default: now)."""
        dated = {"GIT_AUTHOR_DATE": iso(at), "GIT_COMMITTER_DATE": iso(at)} if at is not None else {}
        subprocess.run(["git", "add", "-A"], cwd=self.root, check=True, capture_output=True)
        subprocess.run(["git", "commit", "-qm", message], cwd=self.root, check=True, capture_output=True,
                       env={**os.environ, **dated})


def build_docs_repo(root: Path) -> DocsRepo:
    """The clean project, committed in a fresh git repository."""
    root.mkdir(parents=True)
    git_init(root)
    repo = DocsRepo(root)
    for rel, text in clean_files().items():
        repo.write(rel, text)
    # Committed as the last entry was written: the history rules hold the log's times against the commit's.
    repo.commit("aidlc-docs: inception and construction of the shop", stamp(len(ENTRIES)))
    return repo
