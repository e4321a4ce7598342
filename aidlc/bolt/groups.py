"""Ending a check's process group: at its end or timeout (SIGTERM, then SIGKILL after GRACE_S), and what an
aidlc killed with SIGKILL left running, known by the run's marker in its environment."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

GRACE_S = 2.0  # between SIGTERM and SIGKILL


def end_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to every process of the check's group, SIGKILL to those still there after GRACE_S. The group's
    id is the check's pid (start_new_session); Linux gives no new process that id while the group exists."""
    group = proc.pid
    if not _signal_group(group, signal.SIGTERM):
        proc.wait()
        return
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline:
        proc.poll()  # reap the check itself: a zombie still counts as a member
        if not _signal_group(group, 0):
            proc.wait()
            return
        time.sleep(0.02)
    _signal_group(group, signal.SIGKILL)
    proc.wait()
    # SIGKILL is delivered, not done, when killpg returns: a grandchild may still run for a moment. The check
    # ends when its group does (bounded: a member killed but not yet reaped by init counts until it is).
    deadline = time.monotonic() + GRACE_S
    while _signal_group(group, 0) and time.monotonic() < deadline:
        time.sleep(0.02)


def end_leftover_group(group: int, marker: str) -> bool:
    """End what is left of a check's process group that an aidlc killed with SIGKILL left running: SIGTERM,
    then SIGKILL after GRACE_S, each wait bounded. True when there was something to end.

    The group counts as the check's only while a live member carries `marker` (NAME=value) in its environment:
    once the group is gone its id may be reused, and a process that is not the run's is never signalled. Where
    /proc cannot tell (not Linux), the group must still be led by its session leader, as a check's is."""
    if not _leftover_members(group, marker):
        return False
    for sig in (signal.SIGTERM, signal.SIGKILL):
        _signal_group(group, sig)
        deadline = time.monotonic() + GRACE_S
        while time.monotonic() < deadline:
            if not _leftover_members(group, marker):
                return True
            time.sleep(0.02)
    return True


def _leftover_members(group: int, marker: str) -> list[int]:
    """The live (not zombie) processes of `group` whose environment holds `marker`. Not our children, so they
    cannot be reaped here: a zombie waits for its new parent and counts as gone."""
    proc = Path("/proc")
    if not (proc / "self/stat").is_file():
        try:
            return [group] if os.getsid(group) == group and _signal_group(group, 0) else []
        except OSError:
            return []
    wanted, found = marker.encode(), []
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            line = (proc / entry.name / "stat").read_bytes()
            state, _parent, pgrp = line[line.rindex(b")") + 2:].split()[:3]
            if int(pgrp) != group or state in (b"Z", b"X"):
                continue
            environ = (proc / entry.name / "environ").read_bytes()
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to read
        if wanted in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def _signal_group(group: int, sig: int) -> bool:
    """Send `sig` to the group; False when no process of it is left."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member became another user (setuid): it is there, and not ours to end
        return True
    return True
