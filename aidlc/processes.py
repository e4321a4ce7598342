"""What keeps code a check runs from outliving its check or acting for a person.

* The reaper. Each check runs under this file run as a script (`reaper_argv`): a small process that starts the
  check, waits for it, then ends every process the check left behind and reaps it. On Linux it is a child
  subreaper (prctl PR_SET_CHILD_SUBREAPER): a process that escaped the check's process group (setsid, a double
  fork) is re-parented to the reaper, not to init, so it is still found among the reaper's descendants. Elsewhere
  there is no subreaper: the runner's kill of the check's process group is all there is, and a process that left
  the group outlives the check.
* The mark. The reaper starts with the run's id in its environment (RUN_VARIABLE). No descendant can change the
  environment another process started with (/proc/PID/environ), so `run_ancestor` tells a command started by
  code a check runs, however it was started, from one a person typed: a gate decision refuses the first.

Run as a script with `python -I -S`: the standard library only, nothing of aidlc, no site packages.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

RUN_VARIABLE = "AIDLC_RUN_ID"  # in the checks' environment: the run a check (or a leftover of one) belongs to
REAP_GRACE_S = 0.8  # between SIGTERM and SIGKILL to what a check left; under the runner's grace for the reaper
_PR_SET_CHILD_SUBREAPER = 36


def reaper_argv(status_fd: int, argv: list[str]) -> list[str]:
    """The command that runs `argv` under the reaper; a failure to start it is written to `status_fd` as
    "errno strerror" (the reaper then exits 127)."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), str(status_fd), *argv]


def run_ancestor() -> str | None:
    """Why this process descends from a check of a bolt run ("process 123 runs a check of run-..."), or None.
    Reads /proc: elsewhere None."""
    pid = os.getppid()
    seen = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/environ", "rb") as file:
                environ = file.read().split(b"\0")
        except OSError:
            environ = []
        for entry in environ:
            if entry.startswith(f"{RUN_VARIABLE}=".encode()):
                return f"process {pid} runs a check of {entry.partition(b'=')[2].decode(errors='replace')}"
        found = _stat(pid)
        if found is None:
            return None
        pid = found[1]
    return None


def descendants(root: int) -> list[int]:
    """The live (not zombie) processes below `root`, found through /proc (empty elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if entry.isdigit() and (found := _stat(int(entry))) is not None and found[0] not in ("Z", "X"):
            children.setdefault(found[1], []).append(int(entry))
    below, frontier = [], [root]
    while frontier:
        frontier = [child for parent in frontier for child in children.get(parent, [])]
        below += frontier
    return below


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            line = file.read()
        fields = line[line.rindex(b")") + 2:].split()
        return fields[0].decode(), int(fields[1])
    except (OSError, ValueError, IndexError):
        return None


# -- the reaper ---------------------------------------------------------------------------------------------------

def _become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _reap_children() -> None:
    """Collect every child of ours that has ended (re-parented orphans included)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_descendants(root: int) -> None:
    """SIGTERM to every process below `root`, SIGKILL to those left after REAP_GRACE_S, each reaped. Called by
    the reaper on itself: as a subreaper, a process whose parent died comes to it and is found too."""
    for number in (signal.SIGTERM, signal.SIGKILL):
        deadline = time.monotonic() + REAP_GRACE_S
        while True:
            _reap_children()
            left = descendants(root)
            if not left:
                return
            if time.monotonic() >= deadline:
                break
            for pid in left:
                with contextlib.suppress(OSError):  # gone meanwhile, or no longer ours to signal
                    os.kill(pid, number)
            time.sleep(0.02)


def _reap(status_fd: int, argv: list[str]) -> None:
    """Start `argv`, wait for it (or for SIGTERM/SIGHUP, the runner ending the check), end what it left behind,
    then end as it ended: its exit code, or the signal that killed it."""
    _become_subreaper()
    watched = {signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP}
    signal.pthread_sigmask(signal.SIG_BLOCK, watched)  # taken by sigwait below, never lost between two calls
    os.set_inheritable(status_fd, False)
    try:
        child = os.posix_spawnp(argv[0], argv, os.environ, setsigmask=set(),
                                setsigdef={signal.SIGPIPE, signal.SIGXFSZ})
    except OSError as exc:
        os.write(status_fd, f"{exc.errno} {exc.strerror or exc}".encode())
        os._exit(127)
    os.close(status_fd)
    stopped = None
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            break
        number = signal.sigwait(watched)
        if number != signal.SIGCHLD:
            stopped = number
            break
    end_descendants(os.getpid())
    if stopped is None:
        code = os.waitstatus_to_exitcode(status)
        if code >= 0:
            os._exit(code)
        stopped = -code
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # ending as the check ended writes no core file
    with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP keep their action
        signal.signal(stopped, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {stopped})
    os.kill(os.getpid(), stopped)
    os._exit(128 + stopped)


if __name__ == "__main__":
    _reap(int(sys.argv[1]), sys.argv[2:])
