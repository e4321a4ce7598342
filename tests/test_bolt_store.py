"""A bolt run's state on disk (aidlc/bolt/store.py, aidlc/model/run.py) damaged or forged: by a kill, by a careless
hand, or by code a check ran (it runs in the repository, where `.aidlc/runs/` is). Every command that reads the run
names state.json and what is wrong in it, and none acts on it: no traceback, no git option, no run that vanishes."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bolt_sample import BOLT, events, git, plan_answer, run, run_process
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
    "bolt id a path": (_edit(bolt="../../etc/passwd"), "bolt"),
    "bolt id two lines": (_edit(bolt="001-checkout-api\nx"), "bolt"),
    "check group 1 (init)": (_edit(check_group=1), "check_group"),
    "a saved answer outside the run": (_edit(pending={"stage": "execute", "answer_file": "../../../etc/passwd"}),
                                       "pending.answer_file"),
    "a count as text": (_edit(repairs="3"), "repairs"),
    "a budget's count as text": (_budget("steps", '"3"'), "budget.steps"),
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
        # A FIFO waited on would hang the suite: a bounded process fails the test instead.
        proc = run_process(shop, *args, timeout=60) if damage == "a FIFO" else run(shop, *args)
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


def _aside(path: Path, kind: str, outside: Path) -> None:
    """`path` made a `kind` of thing that is no regular file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file():
        path.unlink()
    if kind == "folder":
        path.mkdir()
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "link outside":
        path.symlink_to(outside)
    else:  # a link loop
        path.symlink_to(path.name)


LOCKS = ".aidlc/locks"


@pytest.mark.parametrize("where,kind", [(f"{LOCKS}/bolt-{BOLT}.lock", "folder"), (f"{LOCKS}/bolt-{BOLT}.lock",
                                        "link outside"), (f"{LOCKS}/ledger.lock", "folder"),
                                        (f"{LOCKS}/ledger.lock", "link loop")])
def test_a_lock_file_that_is_no_file_is_named_and_nothing_is_touched(shop: Path, server: ScriptedServer,
                                                                      tmp_path: Path, where: str, kind: str) -> None:
    state_file = paused(shop, server)
    before = state_file.read_bytes()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    _aside(shop / where, kind, outside)
    proc = run(shop, "bolt", "abort", BOLT)
    shown = proc.stdout + proc.stderr
    assert proc.returncode == 2 and "Traceback" not in shown and "cannot be taken as aidlc's lock file" in shown, shown
    assert outside.read_text() == "keep me\n" and state_file.read_bytes() == before
    # Set aside as the message says, the abort is done whole: the run ended once in the ledger.
    (shop / where).rmdir() if kind == "folder" else (shop / where).unlink()
    assert run(shop, "bolt", "abort", BOLT).returncode == 0
    finished = [e for e in events(shop) if e["type"] == "run.finished"]
    assert len(finished) == 1 and json.loads(state_file.read_text())["status"] == "CANCELLED"
    assert run(shop, "log", "verify").returncode == 0


def test_a_locks_folder_that_is_a_file_is_named(shop: Path, server: ScriptedServer) -> None:
    paused(shop, server)
    for lock in (shop / LOCKS).iterdir():
        lock.unlink()
    (shop / LOCKS).rmdir()
    (shop / LOCKS).write_text("not a folder\n")
    proc = run(shop, "bolt", "abort", BOLT)
    assert proc.returncode == 2 and "cannot be taken as aidlc's lock file" in proc.stderr, proc.stderr + proc.stdout


@pytest.mark.parametrize("kind", ["FIFO", "link outside", "folder"])
def test_a_pid_file_that_is_no_file_never_stops_a_run_nor_is_written_through(shop: Path, server: ScriptedServer,
                                                                             tmp_path: Path, kind: str) -> None:
    paused(shop, server)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    _aside(shop / LOCKS / f"bolt-{BOLT}.pid", kind, outside)
    proc = run_process(shop, "bolt", "abort", BOLT, timeout=60)  # waited forever on a FIFO for a reader
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert outside.read_text() == "keep me\n"


@pytest.mark.parametrize("kind", ["FIFO", "folder", "link loop"])
def test_a_trace_that_is_no_file_is_named_never_waited_on(shop: Path, server: ScriptedServer, tmp_path: Path,
                                                         kind: str) -> None:
    state_file = paused(shop, server)
    _aside(state_file.parent / "trace.jsonl", kind, tmp_path)
    proc = run_process(shop, "bolt", "abort", BOLT, timeout=60)
    shown = proc.stdout + proc.stderr
    assert proc.returncode == 2 and "Traceback" not in shown, shown
    assert "trace.jsonl: cannot be appended to" in shown and "mv " in shown


def test_a_trace_line_nested_past_the_parser_is_left_out(shop: Path, server: ScriptedServer) -> None:
    state_file = paused(shop, server)
    with (state_file.parent / "trace.jsonl").open("a") as trace:
        trace.write("[" * 100_000 + "]" * 100_000 + "\n")
    proc = run(shop, "bolt", "trace", BOLT)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_a_run_state_planted_beside_a_bolts_run_denies_its_gate_loudly_never_passes_it(
        shop: Path, server: ScriptedServer) -> None:
    """Code a check ran can plant an unreadable run beside the bolt's own: aidlc cannot tell whose run it was, so
    every command that reads the runs stops at it, naming it (a denial a person sees and undoes, never a pass)."""
    from tests.bolt_sample import BUGGY, FIXED, STORY, edit_answer

    state_file = paused(shop, server)
    server.push(edit_answer(BUGGY, FIXED))
    assert run(shop, "bolt", "resume", BOLT, "--approve", "--base-url", server.url).returncode == 3
    story = shop / STORY
    story.write_text(story.read_text().replace("- [ ] **Given**", "- [x] **Given**"))  # a person checked it
    planted = shop / ".aidlc/runs/run-20260101T000000-abcdef"
    planted.mkdir()
    (planted / "state.json").write_text("{")
    before = events(shop)
    for args in (["walkthrough", BOLT, "--no-run"], ["bolt", "resume", BOLT, "--approve", "--base-url", server.url],
                 ["bolt", "status"]):
        proc = run(shop, *args)
        shown = proc.stdout + proc.stderr
        assert proc.returncode == 2 and "Traceback" not in shown, (args, shown)
        assert ".aidlc/runs/run-20260101T000000-abcdef/state.json: not a run state aidlc wrote" in shown, (args, shown)
        assert "mv .aidlc/runs/run-20260101T000000-abcdef /tmp/" in shown, (args, shown)
    assert events(shop) == before  # nothing decided, nothing recorded
    shutil.move(planted, shop.parent / "set-aside")  # the next step the message gives
    proc = run(shop, "bolt", "resume", BOLT, "--approve", "--base-url", server.url)
    assert proc.returncode == 0 and json.loads(state_file.read_text())["status"] == "COMPLETED", proc.stderr
