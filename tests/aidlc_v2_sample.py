"""An aidlc-workflows v2 workspace in a real git repo, written as v2's tools write it, that follows every rule.

One intent record `aidlc/spaces/default/intents/261130-shop-orders/`: an aidlc-state.md of stage rows
(`- [x] <slug> — EXECUTE`) and two per-clone audit shards. Each shard starts `# AI-DLC Audit Log` and every event
is appended as `aidlc-audit.ts` renders a block (`block` below: a blank line, `## HEADING`, `**Timestamp**: ts`,
`**Event**: TYPE`, one `**Key**: value` line per field, a blank line, `---`), with second-precision UTC timestamps;
several blocks share one second where the engine writes them together. Every gate approval follows a human turn;
every completed stage has its STAGE_COMPLETED row. A test breaks one thing and asserts the finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from tests.aidlc_docs_sample import START, DocsRepo, iso
from tests.helpers import git_init

RECORD = "aidlc/spaces/default/intents/261130-shop-orders"
STATE = f"{RECORD}/aidlc-state.md"
SHARD_A = f"{RECORD}/audit/dev-laptop-3f9a1c2b7d4e.md"
SHARD_B = f"{RECORD}/audit/build-box-7a0c55e21b90.md"
INTENTS = "aidlc/spaces/default/intents/intents.json"
HEADER = "# AI-DLC Audit Log\n"

STATE_TEXT = """\
# AI-DLC State Tracking

## Project Information
- **Project**: shop-orders
- **Project Type**: Greenfield
- **Scope**: feature
- **Start Date**: 2026-11-30T08:03:17Z
- **State Version**: 8

## Phase Progress
- **Initialization**: Verified
- **Inception**: Verified
- **Construction**: Active

## Stage Progress

### INITIALIZATION PHASE
- [x] workspace-detection — EXECUTE
- [x] state-init — EXECUTE

### INCEPTION PHASE
- [x] requirements-analysis — EXECUTE
- [S] user-stories — SKIP
- [x] units-generation — EXECUTE

### CONSTRUCTION PHASE
Per unit: [TBD]
- [x] code-generation — EXECUTE
- [-] build-and-test — EXECUTE

## Current Status
- **Lifecycle Phase**: CONSTRUCTION
- **Current Stage**: build-and-test
- **Next Stage**: build-and-test
- **Status**: Running
"""

HEADINGS = {
    "WORKSPACE_INITIALISED": "Workspace Initialised", "STAGE_STARTED": "Stage Start",
    "STAGE_AWAITING_APPROVAL": "Stage Awaiting Approval", "STAGE_COMPLETED": "Stage Completion",
    "STAGE_SKIPPED": "Stage Skipped", "GATE_APPROVED": "Gate Approved", "HUMAN_TURN": "Human Turn",
    "GUARD_DISABLED": "Guard Disabled", "GUARD_STOOD_ASIDE": "Guard Stood Aside",
    "PLAN_APPROVAL_BLOCKED": "Plan Approval Blocked", "PLAN_APPROVAL_OVERRIDDEN": "Plan Approval Overridden",
    "AUTONOMY_MODE_SET": "Autonomy Mode Set", "GATE_REJECTED": "Gate Rejected",
    "PLAN_APPROVAL_RECORDED": "Plan Approval Recorded",
}

# (seconds after START, event, fields): the events of one shard, in the order the engine appended them.
Event = tuple[int, str, dict[str, str]]
SESSION_A, SESSION_B = "7f3e2a10-5c4b-4d8e-9a61-2b0c8d4e6f11", "0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d"
EVENTS_A: list[Event] = [
    (0, "WORKSPACE_INITIALISED", {"Request": "Build an order service for the shop", "Scope": "feature",
                                  "Details": "Created intent 261130-shop-orders"}),
    (1, "STAGE_STARTED", {"Stage": "workspace-detection", "Agent": "aidlc-orchestrator"}),
    (40, "STAGE_COMPLETED", {"Stage": "workspace-detection", "Details": "Greenfield workspace"}),
    (40, "STAGE_STARTED", {"Stage": "state-init", "Agent": "aidlc-orchestrator"}),
    (52, "STAGE_COMPLETED", {"Stage": "state-init", "Details": "State file created"}),
    (52, "STAGE_STARTED", {"Stage": "requirements-analysis", "Agent": "aidlc-analyst-agent"}),
    (610, "STAGE_AWAITING_APPROVAL", {"Stage": "requirements-analysis",
                                      "Artifacts": "inception/requirements-analysis/requirements.md"}),
    (795, "HUMAN_TURN", {"Session": SESSION_A}),
    (797, "GATE_APPROVED", {"Stage": "requirements-analysis", "User Input": "Approve & Continue"}),
    (797, "STAGE_COMPLETED", {"Stage": "requirements-analysis", "Details": "Requirements approved"}),
    (798, "STAGE_SKIPPED", {"Stage": "user-stories", "Reason": "Single persona; no stories needed"}),
    (798, "STAGE_STARTED", {"Stage": "units-generation", "Agent": "aidlc-architect-agent"}),
    (1400, "STAGE_AWAITING_APPROVAL", {"Stage": "units-generation",
                                       "Artifacts": "inception/units-generation/unit-of-work.md"}),
    (1532, "HUMAN_TURN", {"Session": SESSION_A}),
    (1534, "GATE_APPROVED", {"Stage": "units-generation", "User Input": "yes, one unit: orders-api"}),
    (1534, "STAGE_COMPLETED", {"Stage": "units-generation", "Details": "1 unit"}),
]
EVENTS_B: list[Event] = [
    (2000, "STAGE_STARTED", {"Stage": "code-generation", "Agent": "aidlc-developer-agent", }),
    (2900, "STAGE_AWAITING_APPROVAL", {"Stage": "code-generation",
                                       "Artifacts": "construction/orders-api/code-generation/code-summary.md"}),
    (3100, "HUMAN_TURN", {"Session": SESSION_B}),
    (3104, "GATE_APPROVED", {"Stage": "code-generation", "User Input": "Continue to Next Stage",
                             "Unit": "orders-api"}),
    (3104, "STAGE_COMPLETED", {"Stage": "code-generation", "Details": "orders-api generated"}),
    (3105, "STAGE_STARTED", {"Stage": "build-and-test", "Agent": "aidlc-developer-agent"}),
]


def at(seconds: int) -> datetime:
    return START + timedelta(seconds=seconds)


def block(seconds: int, event: str, fields: dict[str, str]) -> str:
    """One audit block, byte for byte as v2's renderAuditBlock writes it."""
    lines = "".join(f"**{key}**: {value}\n" for key, value in fields.items())
    return f"\n## {HEADINGS[event]}\n**Timestamp**: {iso(at(seconds))}\n**Event**: {event}\n{lines}\n---\n"


def shard(events: list[Event]) -> str:
    return HEADER + "".join(block(*event) for event in events)


def clean_files() -> dict[str, str]:
    unit = f"{RECORD}/construction/orders-api/code-generation"
    return {
        STATE: STATE_TEXT,
        SHARD_A: shard(EVENTS_A),
        SHARD_B: shard(EVENTS_B),
        INTENTS: '[\n  {\n    "uuid": "019a1f2e-3b4c-7d5e-8f60-718293a4b5c6",\n    "slug": "shop-orders",\n'
                 '    "dirName": "261130-shop-orders",\n    "status": "in-flight"\n  }\n]\n',
        f"{RECORD}/inception/requirements-analysis/requirements.md": "# Requirements\n\n## FR-1: Place an order\n",
        f"{RECORD}/inception/units-generation/unit-of-work.md": "# Units\n\n- orders-api\n",
        f"{unit}/code-generation-plan.md": "# Code Generation Plan\n\n## Steps\n- [x] Step 1: model\n"
                                           "- [x] Step 2: handlers\n\n## Testing Contract\n- pytest tests/\n",
        f"{unit}/code-summary.md": "# Code summary\n\nCode in src/orders/.\n",
        "src/orders/api.py": "def place_order():\n    return 'ok'\n",
    }


@dataclass
class V2Repo(DocsRepo):
    def append(self, rel: str, seconds: int, event: str, fields: dict[str, str]) -> int:
        """Append one block to a shard as v2's tools do; the line of its heading."""
        lines = self.read(rel).count("\n")
        with self.path(rel).open("a", encoding="utf-8") as out:
            out.write(block(seconds, event, fields))
        return lines + 2


def build_v2_repo(root: Path) -> V2Repo:
    """The clean workspace, committed in two steps: inception from the first clone, construction from the second,
    each as its last block was written."""
    root.mkdir(parents=True)
    git_init(root)
    repo = V2Repo(root)
    files = clean_files()
    for rel, text in files.items():
        if rel != SHARD_B:
            repo.write(rel, text)
    repo.write(STATE, STATE_TEXT.replace("- [x] code-generation", "- [ ] code-generation")
               .replace("- [-] build-and-test", "- [ ] build-and-test"))
    repo.commit("aidlc: shop-orders inception", at(EVENTS_A[-1][0] + 30))
    repo.write(SHARD_B, files[SHARD_B])
    repo.write(STATE, STATE_TEXT)
    repo.commit("aidlc: shop-orders construction", at(EVENTS_B[-1][0] + 30))
    return repo
