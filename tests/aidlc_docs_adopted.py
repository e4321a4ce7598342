"""A project in AWS aidlc-workflows' aidlc-docs layout as teams adopt it, built as a real git history in the shapes
real repositories have (written here, not copied from any): the rules' stage template with a unit named in the stage
lines, an audit log oldest first with `---` separators whose last line lacks its newline, an execution plan and a unit's
code-generation plan with open boxes, application code at the root."""

from __future__ import annotations

import subprocess
from pathlib import Path

DOCS = "aidlc-docs"
STATE = f"{DOCS}/aidlc-state.md"
AUDIT = f"{DOCS}/audit.md"
LEDGER = f"{DOCS}/events.jsonl"
CODE_PLAN = f"{DOCS}/construction/plans/unit1-backend-code-generation-plan.md"

STATE_TEXT = """\
# AI-DLC State Tracking

## Project Information
- **Project Type**: Greenfield
- **Start Date**: 2026-02-09T13:12:50+09:00
- **Current Stage**: CONSTRUCTION - Code Generation

## Stage Progress

### 🔵 INCEPTION PHASE
- [x] Workspace Detection
- [x] Requirements Analysis
- [ ] User Stories - SKIP
- [x] Workflow Planning
- [x] Application Design - EXECUTE
- [x] Units Generation - EXECUTE

### 🟢 CONSTRUCTION PHASE
- [x] Unit 1 Functional Design - COMPLETE
- [ ] Unit 1 Code Generation - EXECUTE
- [ ] Build and Test - EXECUTE

### 🟡 OPERATIONS PHASE
- [ ] Operations - PLACEHOLDER

## Current Status
- **Lifecycle Phase**: CONSTRUCTION
- **Status**: Ready to proceed
"""

ENTRIES = (
    ("Workspace Detection", "2026-02-09T13:12:50+09:00", "Build a small shop with a cart",
     "Greenfield project detected; starting Requirements Analysis", "INCEPTION - Workspace Detection"),
    ("Requirements Analysis - Approval", "2026-02-09T13:59:42+09:00", "Approve & Continue",
     "Requirements approved; moving to Workflow Planning", "INCEPTION - Requirements Analysis"),
    ("Workflow Planning - Approval", "2026-02-09T14:10:05+09:00", "y", "Execution plan approved",
     "INCEPTION - Workflow Planning"),
    ("Application Design - Approval", "2026-02-09T14:50:26+09:00", "A",
     "Application design approved", "INCEPTION - Application Design"),
    ("Units Generation - Approval", "2026-02-09T15:02:11+09:00", "다음", "One unit: backend",
     "INCEPTION - Units Generation"),
    ("Unit 1 Functional Design - Approval", "2026-02-09T15:46:46+09:00", "Continue to Next Stage",
     "Functional design of unit 1 approved", "CONSTRUCTION - Functional Design"),
)


def audit_text(entries: tuple[tuple[str, str, str, str, str], ...] = ENTRIES) -> str:
    """The log as agents write it: each entry closed by `---`, the file's last line without its newline."""
    blocks = [f'## {heading}\n**Timestamp**: {stamp}\n**User Input**: "{said}"\n**AI Response**: {answer}\n'
              f"**Context**: {context}\n\n---" for heading, stamp, said, answer, context in entries]
    return "# AI-DLC Audit Log\n\n" + "\n\n".join(blocks)


FILES = {
    STATE: STATE_TEXT,
    AUDIT: audit_text(),
    f"{DOCS}/inception/requirements/requirements.md": "# Requirements\n\n## FR-1 Cart\nA buyer adds items.\n",
    f"{DOCS}/inception/plans/execution-plan.md": "# Execution Plan\n\n- [x] Requirements Analysis\n"
                                                 "- [x] Application Design - EXECUTE\n",
    CODE_PLAN: "# Unit 1 Code Generation Plan\n\n- [x] Step 1: project layout\n- [ ] Step 2: cart service\n"
               "- [ ] Step 3: tests\n",
    "src/cart.py": "def total(prices):\n    return sum(prices)\n",
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def build_docs_repo(root: Path) -> Path:
    """The project in a git repository: the docs and code in one commit, by a person with a git identity."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Ada Lovelace")
    git(root, "config", "user.email", "ada@example.org")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Inception and unit 1 design")
    return root
