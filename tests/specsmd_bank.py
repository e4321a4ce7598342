"""A specs.md memory bank as teams have it when they adopt aidlc, built as a real git history in the shapes real banks
have (written here, not copied from any): project.yaml and standards, an intent with requirements.md (`phase:`,
`status:`), units.md and unit briefs, stories one file each with Given/When/Then boxes, bolts with their stage
walkthroughs. Two bolts were completed the way specsmd's `bolt-complete` script completes them: the bolt and its
stories `status: complete`, the stories `implemented: true`, every acceptance box left unchecked. Two true defects
are in it, as real banks have them: a story completed by hand without `implemented`, and a bolt whose `started` is
after its `completed`. A third bolt is planned, its story a draft."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

MB = "memory-bank"
INTENT = f"{MB}/intents/001-log-viewer"
REQUIREMENTS = f"{INTENT}/requirements.md"
GIT_ENV = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@example.org"}

# unit -> its stories (number, slug, criteria)
UNITS = {
    "001-parser": [("001", "discover-projects", 3), ("002", "parse-sessions", 4)],
    "002-server": [("001", "serve-pages", 3), ("002", "search", 2)],
    "003-watcher": [("001", "watch-changes", 2)],
}
BOLTS = {"001-parser": "001-parser", "002-server": "002-server", "003-watcher": "003-watcher"}  # bolt -> unit


def story_rel(unit: str, number: str, slug: str) -> str:
    return f"{INTENT}/units/{unit}/stories/{number}-{slug}.md"


def story_text(unit: str, number: str, slug: str, criteria: int, status: str, implemented: str | None) -> str:
    boxes = "".join(f"- [ ] **Given** case {n} of {slug}, **When** it runs, **Then** outcome {n} holds\n"
                    for n in range(1, criteria + 1))
    done = f"implemented: {implemented}\n" if implemented is not None else ""
    return (f"---\nid: {number}-{slug}\nunit: {unit}\nintent: 001-log-viewer\nstatus: {status}\npriority: must\n"
            f"created: 2025-12-29T12:00:00Z\nassigned_bolt: {unit}\n{done}---\n\n# Story: {number}-{slug}\n\n"
            f"## User Story\n\n**As a** developer\n**I want** {slug.replace('-', ' ')}\n"
            f"**So that** I can read my logs\n\n## Acceptance Criteria\n\n{boxes}\n"
            "## Technical Notes\n\n- Keep it small\n")


def bolt_text(bolt: str, status: str, started: str, completed: str) -> str:
    unit = BOLTS[bolt]
    stories = "".join(f"  - {number}-{slug}\n" for number, slug, _ in UNITS[unit])
    stages = "\n" + "".join(f"  - name: {name}\n    completed: {completed}\n    artifact: {artifact}\n"
                     for name, artifact in (("plan", "implementation-plan.md"),
                                            ("implement", "implementation-walkthrough.md"),
                                            ("test", "test-walkthrough.md"))) if status == "complete" else " []\n"
    return (f"---\nid: {bolt}\nunit: {unit}\nintent: 001-log-viewer\ntype: simple-construction-bolt\n"
            f"status: {status}\nstories:\n{stories}created: 2025-12-29T12:45:00Z\nstarted: {started}\n"
            f"completed: {completed}\ncurrent_stage: null\nstages_completed:{stages}requires_bolts: []\n"
            f"enables_bolts: []\nrequires_units: []\nblocks: false\n---\n\n# Bolt: {bolt}\n\n## Objective\n\n"
            f"Build unit {unit}.\n")


def requirements_text(phase: str) -> str:
    frs = "".join(f"### FR-{n}: {unit}\n- **Description**: the {unit[4:]} part\n"
                  "- **Acceptance Criteria**:\n  - it works as its stories say\n\n"
                  for n, unit in enumerate(UNITS, start=1))
    return (f"---\nintent: 001-log-viewer\nphase: {phase}\nstatus: {phase}\ncreated: 2025-12-29T10:00:00Z\n"
            "updated: 2025-12-29T10:00:00Z\n---\n\n# Requirements: Log viewer\n\n## Intent Overview\n\n"
            "Browse chat logs as HTML pages.\n\n## Functional Requirements\n\n" + frs)


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def commit(root: Path, message: str) -> str:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", message], check=True, env=env)
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True, env=env, capture_output=True,
                          text=True).stdout.strip()


def complete_bolt(root: Path, bolt: str, started: str, completed: str, implemented: str | None = "true") -> None:
    """What specsmd's bolt-complete does: the bolt and its stories complete, the boxes as they were."""
    write(root, f"{MB}/bolts/{bolt}/bolt.md", bolt_text(bolt, "complete", started, completed))
    for artifact in ("implementation-plan.md", "implementation-walkthrough.md", "test-walkthrough.md"):
        write(root, f"{MB}/bolts/{bolt}/{artifact}", f"---\nbolt: {bolt}\ncreated: {completed}\n---\n\n"
              f"## {artifact[:-3].replace('-', ' ').title()}: {bolt}\n\nDone.\n")
    unit = BOLTS[bolt]
    for number, slug, criteria in UNITS[unit]:
        write(root, story_rel(unit, number, slug), story_text(unit, number, slug, criteria, "complete", implemented))


def build_bank(root: Path) -> dict[str, str]:
    """The bank, committed in the order a team made it; returns the commits by what they did."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, f"{MB}/project.yaml", "# Project Configuration\nproject_type: cli-tool\n"
          "initialized_at: 2025-12-29T10:00:00Z\ndescription: Browse chat logs as HTML pages\n")
    write(root, f"{MB}/standards/tech-stack.md", "# Tech Stack\n\n- Go 1.22\n")
    write(root, f"{MB}/standards/coding-standards.md", "# Coding Standards\n\n- gofmt\n")
    write(root, REQUIREMENTS, requirements_text("inception"))
    write(root, f"{INTENT}/units.md", "---\nintent: 001-log-viewer\ntype: units-index\n---\n\n# Units\n\n"
          + "".join(f"- {unit}\n" for unit in UNITS))
    for unit, stories in UNITS.items():
        write(root, f"{INTENT}/units/{unit}/unit-brief.md",
              f"---\nunit: {unit}\nintent: 001-log-viewer\nphase: inception\nstatus: draft\n"
              f"created: 2025-12-29T11:00:00Z\n---\n\n# Unit Brief: {unit}\n\n## Purpose\n\nThe {unit[4:]}.\n")
        for number, slug, criteria in stories:
            write(root, story_rel(unit, number, slug), story_text(unit, number, slug, criteria, "draft", "false"))
    for bolt in BOLTS:
        write(root, f"{MB}/bolts/{bolt}/bolt.md", bolt_text(bolt, "planned", "null", "null"))
    write(root, "main.go", "package main\n\nfunc main() {}\n")
    commits = {"inception": commit(root, "inception: requirements, units, stories, bolts")}
    write(root, REQUIREMENTS, requirements_text("construction"))
    complete_bolt(root, "001-parser", "2025-12-29T13:00:00Z", "2025-12-29T13:48:30Z")
    commits["parser"] = commit(root, "bolt 001-parser complete")
    # Done by hand: no `implemented`, and `started` written after `completed` (two true defects).
    complete_bolt(root, "002-server", "2025-12-29T17:15:00Z", "2025-12-29T14:40:33Z", implemented=None)
    commits["server"] = commit(root, "bolt 002-server complete")
    return commits


# What the bank holds complete, by story file, with its number of unchecked boxes: adopted once aidlc governs it.
COMPLETE_STORIES = {story_rel(unit, number, slug): criteria for unit in ("001-parser", "002-server")
                    for number, slug, criteria in UNITS[unit]}
COMPLETE_BOLTS = [f"{MB}/bolts/001-parser/bolt.md", f"{MB}/bolts/002-server/bolt.md"]
