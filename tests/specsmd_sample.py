"""A small memory bank in the shapes specs.md banks take in the wild, in a real git repo.

Every convention here is one specs.md's templates or its reader accept, seen in public banks:
status words (`completed`, `done`, `Completed`, `planned`, `Ready`), a story without `unit:` and
`intent:` (its folder names them) or with a `**Unit:**` line, a bolt's `bolt-id:` and `bolt_type:`,
a completed stage whose `artifact:` lists files at the repository root or is `none`, bullets under a
checkbox that are detail of that criterion, and NFRs without a priority. Its one warning is that no
ledger records the gates of its completed bolt (AIDLC-LEDGER-007); its notes name each variant.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import Bank, git_init

MB = "memory-bank"
INTENT = f"{MB}/intents/001-markdown-export"
REQUIREMENTS = f"{INTENT}/requirements.md"
UNIT = f"{INTENT}/units/001-markdown-generator"
SESSION = f"{UNIT}/stories/001-session-markdown.md"
INDEX = f"{UNIT}/stories/002-index-markdown.md"
MTIME = f"{UNIT}/stories/003-mtime-skip.md"
ORPHANS = f"{UNIT}/stories/004-orphan-preserve.md"
BOLT = f"{MB}/bolts/001-markdown-generator/bolt.md"
NEXT_BOLT = f"{MB}/bolts/002-markdown-upkeep/bolt.md"

FILES: dict[str, str] = {
    f"{MB}/project.yaml": "project_type: cli-tool\ninitialized_at: 2025-12-29T10:00:00Z\nname: session-logs\n",
    REQUIREMENTS: """\
---
intent: 001-markdown-export
phase: inception
status: approved
created: 2026-01-17T16:00:00Z
---

# Requirements: Markdown export

## Functional Requirements

### FR-1: Sessions as Markdown
- **Description**: each session is written as a Markdown file with front matter
- **Priority**: Must
- **Related Stories**: 001-session-markdown, 002-index-markdown

### FR-2: Skip unchanged sessions
- **Description**: a session whose source did not change is not written again
- **Priority**: Should

## Non-Functional Requirements

### NFR-1: Performance
| Requirement | Metric | Target |
|-------------|--------|--------|
| Generation | sessions per second | > 100 |
""",
    f"{UNIT}/unit-brief.md": """\
---
unit: 001-markdown-generator
intent: 001-markdown-export
phase: construction
status: in-progress
created: 2026-01-17T16:10:00Z
---

# Unit: Markdown generator
""",
    SESSION: """\
---
id: 001-session-markdown
unit: 001-markdown-generator
intent: 001-markdown-export
status: done
priority: must
created: 2026-01-17T16:30:00Z
assigned_bolt: 001-markdown-generator
implemented: true
requirements: [FR-1]
---

# Story: Generate session Markdown with front matter

## Acceptance Criteria

- [x] Each session generates a `{session-id}.md` file
- [x] Frontmatter contains:
  - `source`: original JSONL filename
  - `source_hash`: SHA256 of JSONL content
  - `title`: session summary
- [x] Messages are formatted as Markdown:
  - User messages with `## User` header
  - Code blocks with their language fence
""",
    INDEX: """\
---
status: Completed
priority: must
created: 2026-01-17T16:35:00Z
assigned_bolt: 001-markdown-generator
implemented: true
requirements: [FR-1]
---

# Story: Index files in Markdown

**Unit:** 001-markdown-generator

## Acceptance Criteria

- [x] Main `index.md` lists all projects with:
  - Project path
  - Session count
- [x] Per-project `index.md` lists all sessions
""",
    MTIME: """\
---
status: planned
priority: should
created: 2026-01-17T16:40:00Z
requirements: [FR-2]
---

# Story: Skip unchanged sessions

## Acceptance Criteria

- [ ] **Given** a session whose JSONL is older than its Markdown, **When** generating, **Then** it is not rewritten
""",
    ORPHANS: """\
---
id: 004-orphan-preserve
unit: 001-markdown-generator
intent: 001-markdown-export
status: Ready
priority: should
created: 2026-01-17T16:45:00Z
assigned_bolt: 002-markdown-upkeep
implemented: false
requirements: [FR-2]
---

# Story: Keep Markdown whose source is gone

## Acceptance Criteria

- [ ] **Given** a Markdown file whose JSONL was deleted, **When** generating, **Then** the file stays
""",
    BOLT: """\
---
bolt-id: "001-markdown-generator"
bolt_type: "simple-construction-bolt"
intent: "001-markdown-export"
unit: "001-markdown-generator"
status: completed
created: 2026-01-17T17:00:00Z
started: 2026-01-17T17:05:00Z
completed: 2026-01-17T18:00:00Z
current_stage: complete
stages_completed:
  - name: plan
    completed: 2026-01-17T17:15:00Z
    artifact: implementation-plan.md
  - name: implement
    completed: 2026-01-17T17:45:00Z
    artifact: markdown_generator.go, frontmatter.go
  - name: test
    completed: 2026-01-17T18:00:00Z
    artifact: none
stories:
  - "001-session-markdown"
  - "002-index-markdown"
---

# Bolt 001: Markdown generator
""",
    f"{MB}/bolts/001-markdown-generator/implementation-plan.md": "# Plan\n\nWrite the generator.\n",
    NEXT_BOLT: """\
---
id: 002-markdown-upkeep
unit: 001-markdown-generator
intent: 001-markdown-export
type: simple-construction-bolt
status: planned
stories: [003-mtime-skip, 004-orphan-preserve]
created: 2026-01-18T09:00:00Z
requires_bolts: [001-markdown-generator]
---

# Bolt 002: Markdown upkeep
""",
    "markdown_generator.go": "package main\n",
    "frontmatter.go": "package main\n",
}


def build_specsmd_bank(root: Path) -> Bank:
    """The bank, committed: a real repository as a team would push it."""
    git_init(root)
    bank = Bank(root)
    for rel, text in FILES.items():
        bank.write(rel, text)
    env = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@x.org", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@x.org", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, capture_output=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "a specs.md bank"], check=True, capture_output=True,
                   env=env)
    return bank
