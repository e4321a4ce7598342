"""A run reads the memory bank again when a person may have changed it (a model call, the checks, a question, a
gate decision in between), and not at every gate: a whole bolt to the walkthrough gate reads it three times."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aidlc import workspace
from aidlc.bolt import start
from aidlc.llm.base import Completion, Usage
from tests.bolt_sample import BOLT, BOLT_DIR, BUGGY, CALC, FIXED, git, set_config

PLAN = {"summary": "Make total() add the prices.", "risk_level": "low", "risks": [], "rollback": "git revert",
        "files": [{"path": CALC, "action": "modify", "reason": "total() subtracts"}],
        "tests": [{"command": "python -m unittest", "purpose": "the total test"}]}


class Model:
    """Answers at once: the plan (after `while_planning` ran, as a person's edit during the call), then the fix."""

    key = "scripted:in-process@local"

    def __init__(self, while_planning: Callable[[], None] = lambda: None) -> None:
        self.while_planning = while_planning

    def complete(self, messages: Any, *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: Any = None, tools: Any = None, timeout_s: float | None = None) -> Completion:
        if response_format is not None:
            self.while_planning()
            text = json.dumps(PLAN)
        else:
            text = f"{CALC}\n<<<<<<< SEARCH\n{BUGGY}=======\n{FIXED}>>>>>>> REPLACE\n"
        return Completion(text=text, usage=Usage(11, 7), model="in-process", target=self.key)


@pytest.fixture
def auto_shop(shop: Path) -> Path:
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")  # the whole loop in one call
    git(shop, "commit", "-qam", "low-risk plans approve themselves")
    return shop


def test_a_whole_bolt_reads_the_bank_three_times(auto_shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[Path] = []
    open_bank = workspace.open_bank

    def counted(root: Path, **kwargs: Any) -> Any:
        reads.append(root)
        return open_bank(root, **kwargs)

    monkeypatch.setattr(workspace, "open_bank", counted)  # the command's read, and each read again

    outcome = start.start(workspace.Workspace.open(auto_shop), BOLT, Model)

    assert outcome.state.status.value == "AWAIT_ACCEPTANCE", outcome.message
    assert len(reads) == 3  # the start; the plan gate after the model's call; the walkthrough after the checks


def test_a_risk_raised_while_the_model_plans_is_seen_by_the_policy(auto_shop: Path) -> None:
    bolt = auto_shop / BOLT_DIR / "bolt.md"

    def raise_the_risk() -> None:
        bolt.write_text(bolt.read_text().replace("risk: medium", "risk: high"))

    outcome = start.start(workspace.Workspace.open(auto_shop), BOLT, lambda: Model(raise_the_risk))

    assert outcome.exit_code == 3 and outcome.state.status.value == "AWAIT_PLAN_APPROVAL", outcome.message
