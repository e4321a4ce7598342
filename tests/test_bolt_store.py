"""A bolt run's state on disk (aidlc/bolt/store.py, aidlc/model/run.py) damaged or forged: by a kill, by a careless
hand, or by code a check ran (it runs in the repository, where `.aidlc/runs/` is). Every command that reads the run
names state.json and what is wrong in it, and none acts on it: no traceback, no git option, no run that vanishes."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bolt_sample import BOLT, git, plan_answer, run
from tests.openai_server import ScriptedServer


def paused(shop: Path, server: ScriptedServer) -> Path:
    """A run paused at its plan gate; its state.json."""
    server.push(plan_answer())
    assert run(shop, "bolt", "start", BOLT, "--base-url", server.url, "--model", "test-model").returncode == 3
    (folder,) = (shop / ".aidlc/runs").iterdir()
    return folder / "state.json"


def _edit(**changes: object) -> Callable[[Path, Path], None]:
    def apply(state_file: Path, _outside: Path) -> None:
        state = json.loads(state_file.read_text())
        state.update({key: str(value).replace("OUTSIDE", str(_outside)) if isinstance(value, str) else value
                      for key, value in changes.items()})
        state_file.write_text(json.dumps(state))
    return apply


def _budget(key: str, literal: str) -> Callable[[Path, Path], None]:
    """The budget's `key` written as `literal`, JSON Python would not write."""
    def apply(state_file: Path, _outside: Path) -> None:
        state = json.loads(state_file.read_text())
        state["budget"][key] = "PLACE"
        state_file.write_text(json.dumps(state).replace('"PLACE"', literal))
    return apply


def _truncated(state_file: Path, _outside: Path) -> None:
    data = state_file.read_bytes()
    state_file.write_bytes(data[: len(data) // 2])


def _fifo(state_file: Path, _outside: Path) -> None:
    state_file.unlink()
    os.mkfifo(state_file)


DAMAGES = {
    # what reaches git as a revision or a branch: never an option (it would write a file anywhere: `--output=`)
    "last commit an option": (_edit(last_commit="--output=OUTSIDE/INJECTED"), "last_commit"),
    "base commit an option": (_edit(base_commit="--output=OUTSIDE/INJECTED"), "base_commit"),
    "branch an option": (_edit(branch="--output=OUTSIDE/INJECTED"), "branch"),
    "run id a path": (_edit(run_id="OUTSIDE/run"), "run_id"),
    "run id of another run": (_edit(run_id="run-20260101T000000-abcdef"), "names run"),
    "verifying with no commit": (_edit(status="VERIFYING", commits=[], trees=[]), "no commit or tree"),
    "repairing with no tree": (_edit(status="REPAIRING", commits=[], trees=[]), "no commit or tree"),
    "a commit without its stage": (_edit(status="VERIFYING", commits=[{"commit": "a" * 40}], trees=["t"]),
                                   "commits.0.stage"),
    "a count as text": (_edit(repairs="3"), "repairs"),
    "a negative count": (_edit(pauses=-1), "pauses"),
    "a count past any float": (_budget("tokens", "1" + "0" * 400), "budget.tokens"),
    "seconds not a number": (_budget("elapsed_s", "NaN"), "budget.elapsed_s"),
    "seconds infinite": (_budget("elapsed_s", "Infinity"), "budget.elapsed_s"),
    "cut in half by a kill": (_truncated, "state.json"),
    "a FIFO": (_fifo, "not a regular file"),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_or_forged_run_state_is_named_and_never_acted_on(shop: Path, server: ScriptedServer,
                                                                   tmp_path: Path, damage: str) -> None:
    state_file = paused(shop, server)
    outside = tmp_path / "outside"
    outside.mkdir()
    head = git(shop, "rev-parse", "HEAD")
    apply, said = DAMAGES[damage]
    apply(state_file, outside)
    for args in (["bolt", "status", BOLT], ["bolt", "status", BOLT, "--format", "json"],
                 ["bolt", "resume", BOLT, "--approve", "--base-url", server.url], ["bolt", "abort", BOLT],
                 ["bolt", "start", BOLT, "--base-url", server.url], ["bolt", "trace", BOLT]):
        proc = run(shop, *args)
        shown = proc.stdout + proc.stderr
        assert proc.returncode == 2, (args, shown)
        assert "Traceback" not in shown and "state.json" in shown and said in shown, (args, shown)
    assert list(outside.iterdir()) == []
    assert git(shop, "rev-parse", "HEAD") == head and not server.requests[1:]


def test_a_run_state_aidlc_wrote_reads_back(shop: Path, server: ScriptedServer) -> None:
    state_file = paused(shop, server)
    proc = run(shop, "bolt", "status", BOLT, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    (summary,) = json.loads(proc.stdout)["runs"]
    assert summary["run_id"] == state_file.parent.name and summary["status"] == "AWAIT_PLAN_APPROVAL"
