"""One Workspace per command: `aidlc bolt start` and `aidlc bolt resume` read aidlc.yaml once, build the bank's
index once per read of the bank, open a view of the ledger once per state of it nobody else wrote (`aidlc gate
approve` too), and save the run's state.json only when the state changed. The counts are of the real calls the
commands make, run in process against a real OpenAI-protocol server (the model)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import aidlc.bolt.start
import aidlc.cli.bolt
import aidlc.cli.gate
from aidlc.bank import config, index, loader
from aidlc.bolt.store import RunStore, find_run
from aidlc.cli import cli
from aidlc.events import view
from aidlc.events.ledger import Ledger
from aidlc.model.events import Actor, ActorKind, EventType
from aidlc.model.run import RunState
from aidlc.workspace import Workspace
from tests.bolt_sample import BOLT, BOLT_DIR, STORY, edit_answer, plan_answer
from tests.openai_server import ScriptedServer

# Loaded before the functions they import are counted.
COMMAND_MODULES = (aidlc.bolt.start, aidlc.cli.bolt, aidlc.cli.gate)


def _counted(calls: Counter[str], name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return function(*args, **kwargs)

    return counted


def _count_everywhere(monkeypatch: pytest.MonkeyPatch, calls: Counter[str], name: str,
                      function: Callable[..., Any]) -> None:
    """Count `function` in its module and wherever a module of aidlc imported it by name."""
    counted = _counted(calls, name, function)
    for module in [m for key, m in sys.modules.items() if key == "aidlc" or key.startswith("aidlc.")]:
        for attribute, value in list(vars(module).items()):
            if value is function:
                monkeypatch.setattr(module, attribute, counted)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    found: Counter[str] = Counter()
    _count_everywhere(monkeypatch, found, "aidlc.yaml parsed", config.parse_config)
    _count_everywhere(monkeypatch, found, "bank read", loader.load_bank)
    _count_everywhere(monkeypatch, found, "ledger view opened", view.open_view)
    monkeypatch.setattr(index.BankIndex, "__init__", _counted(found, "index built", index.BankIndex.__init__))
    save, saved = RunStore.save, [""]

    def counted_save(store: RunStore, state: RunState, durable: bool = True) -> None:
        found["state.json saved"] += 1
        # What the save records besides when it was made and the seconds of work, which change every time.
        now = state.model_dump_json(exclude={"updated": True, "budget": {"elapsed_s"}})
        if now == saved[0]:
            found["state.json saved unchanged"] += 1
        saved[0] = now
        save(store, state, durable)

    monkeypatch.setattr(RunStore, "save", counted_save)
    yield found


def _bolt(root: Path, server: ScriptedServer, *args: str) -> None:
    result = CliRunner().invoke(cli, ["--repo", str(root), "bolt", *args, "--base-url", server.url,
                                      "--model", "test-model"], env={"CI": None, "NO_COLOR": "1"})
    assert result.exit_code in (0, 3), result.output  # done, or at a gate waiting for a person


def _gate(root: Path, *args: str) -> None:
    result = CliRunner().invoke(cli, ["--repo", str(root), "gate", *args], env={"CI": None, "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output


def test_each_bolt_command_reads_aidlc_yaml_once_and_indexes_each_read_of_the_bank_once(
        shop: Path, server: ScriptedServer, calls: Counter[str]) -> None:
    server.push(plan_answer())
    _bolt(shop, server, "start", BOLT)  # plans, then waits at the plan gate

    assert (shop / BOLT_DIR / "implementation-plan.md").is_file()
    # The start's read, and one after the model answered (a person may have changed the bank meanwhile).
    assert calls["aidlc.yaml parsed"] == 1 and calls["bank read"] == 2 and calls["index built"] == 2, calls
    assert calls["state.json saved"] == 5 and calls["state.json saved unchanged"] == 0, calls
    # The start's view, kept current by the run's own appends and kept over the read after the model answered.
    assert calls["ledger view opened"] == 1, calls

    calls.clear()
    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    _bolt(shop, server, "resume", BOLT, "--approve", "--reason", "looks right")  # to the walkthrough gate

    assert (shop / BOLT_DIR / "implementation-walkthrough.md").is_file()
    # The command's read, one after the plan's approval changed the bank, one after the checks for the walkthrough.
    assert calls["aidlc.yaml parsed"] == 1 and calls["bank read"] == 3 and calls["index built"] == 3, calls
    assert calls["state.json saved"] == 8 and calls["state.json saved unchanged"] == 0, calls
    # The plan decision's own read, which the workspace takes over with the decision's line; the run's appends keep
    # it current through the checks, the walkthrough's evidence and the walkthrough gate.
    assert calls["ledger view opened"] == 1, calls

    calls.clear()
    story = shop / STORY
    story.write_text(story.read_text().replace("- [ ]", "- [x]"))  # the reviewer checks what the evidence shows
    _bolt(shop, server, "resume", BOLT, "--approve", "--reason", "the total adds up")  # the run completes

    # The command's read, and one after the approval (its evidence check reads the workspace's index too).
    assert calls["aidlc.yaml parsed"] == 1 and calls["bank read"] == 2 and calls["index built"] == 2, calls
    assert calls["state.json saved"] == 1 and calls["state.json saved unchanged"] == 0, calls
    # The workspace's (the plan gate checked before anything), and the walkthrough decision's, which its evidence
    # is read from too and the workspace takes over.
    assert calls["ledger view opened"] == 2, calls
    assert find_run(Workspace.open(shop), BOLT).load().status.value == "COMPLETED"


def test_a_refreshed_workspace_sees_the_bank_as_it_is_now_under_the_same_configuration(shop: Path) -> None:
    workspace = Workspace.open(shop)
    bolt = shop / BOLT_DIR / "bolt.md"
    bolt.write_text(bolt.read_text().replace("risk: medium", "risk: high"))
    (shop / "aidlc.yaml").write_text("memory_bank: elsewhere\n")  # a run keeps the settings it began with

    refreshed = workspace.refreshed()

    assert workspace.bolt(BOLT).meta.risk == "medium" and refreshed.bolt(BOLT).meta.risk == "high"  # type: ignore[union-attr]
    assert refreshed.config is workspace.config and refreshed.bank.rel_root == "memory-bank"
    assert refreshed.index is not workspace.index and refreshed.index.bank is refreshed.bank


def test_gate_approve_reads_aidlc_yaml_once_and_opens_the_ledger_view_once_for_its_decision_and_evidence(
        shop: Path, server: ScriptedServer, calls: Counter[str]) -> None:
    server.push(plan_answer())
    _bolt(shop, server, "start", BOLT)
    calls.clear()
    _gate(shop, "approve", BOLT, "--stage", "plan")

    assert calls["ledger view opened"] == 1, calls  # the decision's own read
    assert calls["aidlc.yaml parsed"] == 1, calls  # the command's, handed to the bank it opens

    server.push(edit_answer("        result -= price\n", "        result += price\n"))
    _bolt(shop, server, "resume", BOLT)  # to the walkthrough gate
    story = shop / STORY
    story.write_text(story.read_text().replace("- [ ]", "- [x]"))
    calls.clear()
    _gate(shop, "approve", BOLT, "--stage", "walkthrough", "--reason", "the total adds up")

    assert calls["ledger view opened"] == 1, calls  # the decision's: the walkthrough's evidence is read from it too
    assert calls["aidlc.yaml parsed"] == 1, calls
    assert Workspace.open(shop).view.history.approved("bolt", BOLT, "walkthrough")


AGENT = Actor(kind=ActorKind.agent, name="aidlc bolt (test-model)")


def test_a_refreshed_workspace_keeps_the_ledger_view_until_someone_else_writes_to_the_ledger(shop: Path) -> None:
    workspace = Workspace.open(shop)
    seen = workspace.view
    events = len(seen.events)
    mine = workspace.ledger.append(EventType.check_recorded, AGENT, data={"by": "this command"}).event

    kept = workspace.refreshed()

    assert kept.view is seen and kept.ledger is workspace.ledger  # the append added to the state the view holds
    assert seen.current() and seen.now() is seen
    assert seen.state.tip == (mine.hash, mine.seq)
    assert len(seen.events) == events + 1 and seen.events[-1][1] == mine  # read again: the state moved on
    theirs = Ledger.of_bank(shop, "memory-bank").append(EventType.check_recorded, AGENT, data={"by": "a person"}).event

    again = kept.refreshed()

    assert not seen.current() and again.view is not seen and seen.now() is not seen
    assert again.view.state.tip == (theirs.hash, theirs.seq) and again.view.events[-1][1] == theirs


def test_a_workspace_refreshed_after_a_decision_takes_the_decisions_view_while_it_is_current(shop: Path) -> None:
    workspace = Workspace.open(shop)
    decision = Ledger.of_bank(shop, "memory-bank")
    decided = view.open_view(decision)
    decision.append(EventType.check_recorded, AGENT, data={"by": "the decision"})

    assert workspace.refreshed(decided).view is decided and decided.current()

    Ledger.of_bank(shop, "memory-bank").append(EventType.check_recorded, AGENT, data={"by": "a person"})

    assert not decided.current() and workspace.refreshed(decided).view is not decided
