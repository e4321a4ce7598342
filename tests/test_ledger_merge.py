"""The ledger merge driver: real `git merge` of two branches that both recorded events, in a repo
scaffolded by `aidlc init` (which registers `aidlc log merge %O %A %B` for the ledger).
(Direction and branches that decided a gate differently: test_ledger_forks.py.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc.events.canonical import event_hash, line_of
from aidlc.events.ledger import Ledger
from aidlc.events.merge import merge_files, merge_ledgers
from aidlc.events.verify import verify_lines
from aidlc.model.events import Actor, ActorKind, Event, EventType
from tests.helpers import in_process

LEDGER = "memory-bank/events.jsonl"
CI = Actor(kind=ActorKind.ci, name="ci")
BIN = str(Path(sys.executable).parent)  # the venv's bin: git runs `aidlc log merge` from PATH


def env(root: Path) -> dict[str, str]:
    return {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1"}


def run(root: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(args), cwd=root, capture_output=True, text=True, env=env(root))
    assert not ok or proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def aidlc(root: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    proc = in_process(list(args), env(root), cwd=root)  # git's own `aidlc log merge` runs are processes still
    assert not ok or proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def lines(root: Path) -> list[bytes]:
    return (root / LEDGER).read_bytes().splitlines(keepends=True)


def append(root: Path, n: int) -> Event:
    return Ledger(root / LEDGER, root).append(EventType.check_recorded, CI, data={"n": n}).event


@pytest.fixture
def project(tmp_path: Path, _project: Path) -> Path:
    """`aidlc init --git`, two intents, committed on main; a person (not CI) is at the keyboard. A copy of the
    session's (its .git copied whole)."""
    return Path(shutil.copytree(_project, tmp_path / "shop", symlinks=True))


@pytest.fixture(scope="session")
def _project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("merge")
    root = tmp_path / "shop"
    proc = subprocess.run([sys.executable, "-m", "aidlc", "init", "--git", str(root)], capture_output=True, text=True,
                          env=env(tmp_path / "x"))
    assert proc.returncode == 0, proc.stderr
    assert os.access(Path(BIN) / "aidlc", os.X_OK)
    run(root, "git", "config", "user.name", "Ada")
    run(root, "git", "config", "user.email", "ada@example.org")
    run(root, "git", "checkout", "-q", "-b", "main")
    aidlc(root, "new", "intent", "Checkout")
    aidlc(root, "new", "intent", "Refunds")
    for intent in ("001", "002"):  # a requirements gate needs a requirement to judge
        aidlc(root, "new", "requirement", "Pay", "--intent", intent)
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-qm", "two intents")
    return root


def test_two_branches_that_decided_gates_merge_without_conflict(project: Path) -> None:
    base = lines(project)
    run(project, "git", "checkout", "-q", "-b", "feature")
    aidlc(project, "gate", "approve", "001-checkout", "--stage", "requirements", "--reason", "feature side")
    append(project, 1)
    run(project, "git", "commit", "-qam", "feature: approve checkout requirements")
    theirs = lines(project)
    run(project, "git", "checkout", "-q", "main")
    aidlc(project, "gate", "approve", "002-refunds", "--stage", "requirements", "--reason", "main side")
    append(project, 2)
    append(project, 3)
    run(project, "git", "commit", "-qam", "main: approve refunds requirements")
    ours = lines(project)

    merge = run(project, "git", "merge", "--no-edit", "feature", ok=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "CONFLICT" not in merge.stdout and "aidlc: merged ledger: 6 events" in merge.stderr
    assert run(project, "git", "ls-files", "-u").stdout == ""  # nothing left unmerged
    merged = lines(project)
    # The lines both had, then the side whose first new event is older (the feature decided first), then ours.
    assert merged == base + theirs[len(base):] + ours[len(base):]
    assert aidlc(project, "log", "verify", "--against", "feature").returncode == 0
    assert aidlc(project, "log", "verify", "--against", "main~1").returncode == 0
    decided = [e for e in map(json.loads, merged) if e["type"] == "gate.decided"]
    assert {e["subject"]["id"] for e in decided} == {"001-checkout", "002-refunds"}

    after = append(project, 4)  # the chain goes on from the last line, a fork's tip
    assert after.prev == json.loads(merged[-1])["hash"] and after.seq == json.loads(merged[-1])["seq"] + 1
    assert aidlc(project, "log", "verify").returncode == 0
    run(project, "git", "commit", "-qam", "after the merge")
    assert aidlc(project, "log", "verify", "--against", "feature").returncode == 0


def test_merging_back_and_forth_converges(project: Path) -> None:
    """Merge main into feature, then feature into main: both end with the same events, each verifies."""
    run(project, "git", "checkout", "-q", "-b", "feature")
    append(project, 1)
    run(project, "git", "commit", "-qam", "f1")
    run(project, "git", "checkout", "-q", "main")
    append(project, 2)
    run(project, "git", "commit", "-qam", "m1")
    run(project, "git", "checkout", "-q", "feature")
    run(project, "git", "merge", "--no-edit", "main")
    append(project, 3)
    run(project, "git", "commit", "-qam", "f2")
    feature = lines(project)
    run(project, "git", "checkout", "-q", "main")
    run(project, "git", "merge", "--no-edit", "feature")
    assert set(lines(project)) == set(feature)
    assert aidlc(project, "log", "verify", "--against", "feature").returncode == 0


def _tamper_old_event(root: Path) -> None:
    """Edit the first event's actor and re-hash it (so that line verifies on its own)."""
    old = lines(root)
    event = json.loads(old[0])
    event["actor"] = {"kind": "human", "name": "Mallory"}
    event["hash"] = event_hash(event)
    (root / LEDGER).write_bytes(b"".join([line_of(event), *old[1:]]))


@pytest.mark.parametrize("side", ["theirs", "ours"])
def test_the_driver_refuses_a_tampered_side_and_leaves_a_conflict(project: Path, side: str) -> None:
    run(project, "git", "checkout", "-q", "-b", "feature")
    append(project, 1)
    if side == "theirs":
        _tamper_old_event(project)
    run(project, "git", "commit", "-qam", "feature")
    run(project, "git", "checkout", "-q", "main")
    append(project, 2)
    if side == "ours":
        _tamper_old_event(project)
    run(project, "git", "commit", "-qam", "main")
    ours = (project / LEDGER).read_bytes()

    merge = run(project, "git", "merge", "--no-edit", "feature", ok=False)
    assert merge.returncode != 0
    assert f"CONFLICT (content): Merge conflict in {LEDGER}" in merge.stdout
    assert f"aidlc: {side} ledger does not verify at line 2 (seq 2): unknown_prev" in merge.stderr
    assert LEDGER in run(project, "git", "ls-files", "-u").stdout  # left unmerged for a person
    assert (project / LEDGER).read_bytes() == ours  # the driver wrote nothing


# -- the driver itself, on files --------------------------------------------------------------------------------
def _files(tmp_path: Path, base: bytes, ours: bytes, theirs: bytes) -> tuple[Path, Path, Path]:
    paths = tuple(tmp_path / name for name in ("base", "ours", "theirs"))
    for path, data in zip(paths, (base, ours, theirs), strict=True):
        path.write_bytes(data)
    return paths  # type: ignore[return-value]


def _forks(tmp_path: Path) -> tuple[bytes, bytes, bytes]:
    root = tmp_path / "r"
    ledger = Ledger(root / "events.jsonl", root)
    for n in range(3):
        ledger.append(EventType.check_recorded, CI, data={"n": n})
    base = ledger.path.read_bytes()
    ledger.append(EventType.check_recorded, CI, data={"side": "ours"})
    ours = ledger.path.read_bytes()
    ledger.path.write_bytes(base)
    fork = Ledger(ledger.path, root)
    fork.append(EventType.check_recorded, CI, data={"side": "theirs"})
    fork.append(EventType.check_recorded, CI, data={"side": "theirs", "n": 2})
    return base, ours, ledger.path.read_bytes()


def test_merging_forks_keeps_the_shared_lines_then_each_sides_new_ones(tmp_path: Path) -> None:
    base, ours, theirs = _forks(tmp_path)
    merged = merge_ledgers(ours, theirs)
    assert merged == ours + theirs[len(base):]  # ours appended first: its new event is the older
    assert merge_ledgers(theirs, ours) == merged  # the same bytes whichever side merges
    assert merge_ledgers(merged, theirs) == merged  # nothing twice
    assert merge_ledgers(ours, ours) == ours
    result = verify_lines(lambda: iter(merged.splitlines(keepends=True)))
    assert result.ok and result.events == 6
    assert sorted(json.loads(line)["seq"] for line in merged.splitlines()) == [1, 2, 3, 4, 4, 5]  # forks share 4


def test_the_driver_writes_the_merge_into_ours(tmp_path: Path) -> None:
    base, ours, theirs = _forks(tmp_path)
    b, o, t = _files(tmp_path, base, ours, theirs)
    assert merge_files(b, o, t) == (True, "merged ledger: 6 events")
    assert o.read_bytes() == ours + theirs[len(base):]


@pytest.mark.parametrize("damage", ["theirs torn", "theirs lost an old event", "ours lost an old event"])
def test_the_driver_refuses_damage_and_leaves_ours_alone(tmp_path: Path, damage: str) -> None:
    base, ours, theirs = _forks(tmp_path)
    if damage == "theirs torn":
        theirs = theirs[:-20]
    elif damage == "theirs lost an old event":
        theirs = b"".join(line for n, line in enumerate(theirs.splitlines(keepends=True)) if n != 1)
    else:
        ours = b"".join(line for n, line in enumerate(ours.splitlines(keepends=True)) if n != 1)
    b, o, t = _files(tmp_path, base, ours, theirs)
    ok, message = merge_files(b, o, t)
    assert not ok and "does not verify" in message
    assert o.read_bytes() == ours


def test_the_driver_refuses_when_both_sides_lost_an_event_of_the_base(tmp_path: Path) -> None:
    base, _, _ = _forks(tmp_path)
    cut = len(base.splitlines(keepends=True)[-1])
    b, o, t = _files(tmp_path, base, base[:-cut], base[:-cut])  # both dropped the base's last event
    ok, message = merge_files(b, o, t)
    assert not ok and "missing" in message and "common ancestor" in message


def test_the_driver_exits_non_zero_from_the_command_line(tmp_path: Path) -> None:
    base, ours, _ = _forks(tmp_path)
    b, o, t = _files(tmp_path, base, ours, b"not a ledger\n")
    proc = subprocess.run([sys.executable, "-m", "aidlc", "log", "merge", str(b), str(o), str(t)], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1 and "theirs ledger does not verify at line 1" in proc.stderr
    assert o.read_bytes() == ours


@pytest.mark.parametrize("side", ["base", "ours", "theirs"])
def test_the_driver_refuses_a_fifo_at_once_instead_of_hanging(tmp_path: Path, side: str) -> None:
    base, ours, theirs = _forks(tmp_path)
    paths = dict(zip(("base", "ours", "theirs"), _files(tmp_path, base, ours, theirs), strict=True))
    paths[side].unlink()
    os.mkfifo(paths[side])  # nobody ever writes to it: a blocking open or read would wait forever
    proc = subprocess.run([sys.executable, "-m", "aidlc", "log", "merge", *map(str, paths.values())],
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert f"aidlc: {paths[side]}: a FIFO (named pipe), not a regular file; aidlc does not open it" in proc.stderr
    assert "Traceback" not in proc.stderr
    if side != "ours":
        assert paths["ours"].read_bytes() == ours
