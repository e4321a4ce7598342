"""Where a run lives: `.aidlc/runs/<run-id>/` with state.json (rewritten atomically) and trace.jsonl (appended);
`.aidlc/locks/bolt-<bolt>.lock` is held by the one process that drives a run of that bolt."""

from __future__ import annotations

import json
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from aidlc.bank.frontmatter import NotRegularFile, read_regular
from aidlc.bank.write import atomic_write
from aidlc.bolt.trail import span_line
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger, utc_now
from aidlc.model.events import Spent
from aidlc.model.run import RunState, Span
from aidlc.names import arg, path_segment
from aidlc.workspace import Workspace

RUNS = Path(".aidlc") / "runs"
LOCKS = Path(".aidlc") / "locks"


def new_run_id() -> str:
    return time.strftime("run-%Y%m%dT%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


# Told each line of the trail as the run writes it, and what the run starts that takes a while (a model call, the
# checks): the CLI prints them as the run goes.
Progress = Callable[[str], None]


class RunStore:
    def __init__(self, repo: Path, run_id: str, progress: Progress | None = None) -> None:
        self.repo = repo
        self.run_id = run_id
        self.folder = repo / RUNS / run_id
        self.progress = progress
        # What the run had spent as state.json holds it for good (loaded, or saved and flushed): what the run's ledger
        # events record, so that no kill and no crash leaves a state.json counting less than the ledger.
        self.spent = Spent(steps=0, tokens=0)

    @property
    def state_file(self) -> Path:
        return self.folder / "state.json"

    @property
    def trace_file(self) -> Path:
        return self.folder / "trace.jsonl"

    def save(self, state: RunState, durable: bool = True) -> None:
        """Atomically. `durable` (a transition, a pause): flushed to disk, folder too. Between transitions the
        rename is not flushed: a kill (SIGKILL keeps the page cache) loses nothing, an OS crash at worst the
        saves since the last transition, from which every step is redone idempotently."""
        state.updated = utc_now()
        atomic_write(self.state_file, state.model_dump_json(indent=2, exclude_none=True) + "\n", self.repo,
                     durable=durable)
        if durable:
            self.spent = Spent(steps=state.budget.steps, tokens=state.budget.tokens)

    def load(self) -> RunState:
        shown = self.state_file.relative_to(self.repo).as_posix()
        try:
            state = RunState.model_validate_json(read_regular(self.state_file))
        except OSError as exc:
            raise UsageError(f"{shown}: cannot be read ({exc.strerror or exc})", self._set_aside()) from None
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise UsageError(f"{shown}: not a run state aidlc wrote ({where + ': ' if where else ''}{error['msg']})",
                             self._set_aside()) from None
        if state.run_id != self.run_id:  # the id names the run's folder, and its branch's trailers: never another
            raise UsageError(f"{shown}: names run {state.run_id!r}, not {self.run_id!r}, the folder it is in",
                             self._set_aside())
        self.spent = Spent(steps=state.budget.steps, tokens=state.budget.tokens)
        return state

    def _set_aside(self) -> list[str]:
        """The next steps for a run whose state cannot be read: moved, not removed (a person may want to look)."""
        return [f"mv {self.folder.relative_to(self.repo).as_posix()} /tmp/    # set the damaged run aside (its "
                "branch stays)", "aidlc bolt start BOLT    # a new run"]

    def trace(self, span: Span) -> None:
        """Append one span; a torn last line (a kill mid-write) is skipped by `spans`."""
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            # Never through a link, never waiting on a FIFO for a reader, never into anything but a file.
            fd = os.open(self.trace_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise NotRegularFile(self.trace_file)
                os.write(fd, (span.model_dump_json(exclude_none=True) + "\n").encode())
            finally:
                os.close(fd)
        except OSError as exc:
            shown = self.trace_file.relative_to(self.repo).as_posix()
            raise UsageError(f"{shown}: cannot be appended to ({exc.strerror or exc}): it must be a regular file",
                             [f"mv {shown} /tmp/    # set it aside; the run writes a new one",
                              "aidlc bolt resume BOLT"]) from None
        if self.progress is not None:
            self.progress(span_line(span))

    def starting(self, kind: str, what: str) -> None:
        """Tell `progress` (if any) of a step that takes a while as it starts; the trail records it once done."""
        if self.progress is not None:
            self.progress(f"{utc_now()[11:19]}  {kind:<7} {what} ...")

    def spans(self) -> list[Span]:
        if not self.trace_file.is_file():
            return []
        found = []
        for line in self.trace_file.read_bytes().splitlines():
            try:
                found.append(Span.model_validate(json.loads(line)))
            except (ValueError, ValidationError, RecursionError):  # RecursionError: a line nested 10,000 deep
                continue
        return found

    def write_text(self, name: str, text: str) -> Path:
        """Atomically, not flushed: as a save between transitions (the next transition flushes the folder)."""
        path = self.folder / name
        atomic_write(path, text, self.repo, durable=False)
        return path


def all_runs(repo: Path) -> list[RunState]:
    """Every run of the repository, oldest first. A run whose state.json cannot be read as aidlc wrote it is a
    UsageError naming the file: left out, a damaged run would vanish from `bolt status` and let `bolt start` begin
    another over its branch."""
    folder = repo / RUNS
    runs = []
    if folder.is_dir():
        for entry in sorted(folder.iterdir()):
            if os.path.lexists(entry / "state.json"):
                runs.append(RunStore(repo, entry.name).load())
    return sorted(runs, key=lambda r: r.created)


def unrecorded_end(ledger: Ledger, state: RunState) -> str | None:
    """What is wrong with a run state.json says ended when the ledger holds no end of it (a run ends only as its
    run.finished event records it; code a check ran can write the file), else None."""
    if not state.terminal or ledger.find_key(f"run:{state.run_id}:finished") is not None:
        return None
    return f"it says the run ended {state.status.value}, but the ledger records no end of it"


def run_problem(ledger: Ledger, state: RunState) -> str | None:
    """What `aidlc bolt status` says of a run whose state.json claims an end the ledger does not record, with the
    command that ends it for good; None for a run whose state.json it bears out."""
    problem = unrecorded_end(ledger, state)
    if problem is None:
        return None
    return (f"{(RUNS / state.run_id / 'state.json').as_posix()}: {problem} (edited outside aidlc); end the run: "
            f"aidlc bolt abort {arg(state.bolt)}")


def run_summary(state: RunState) -> dict[str, Any]:
    """A run as `aidlc bolt status --format json` shows it."""
    return {"run_id": state.run_id, "bolt": state.bolt, "status": state.status.value, "branch": state.branch,
            "base_commit": state.base_commit, "last_commit": state.last_commit, "model": state.model,
            "pause": state.pause.model_dump() if state.pause else None, "outcome": state.outcome,
            "repairs": state.repairs, "reworks": state.reworks, "budget": state.budget.model_dump(),
            "commits": state.commits, "updated": state.updated}


def runs_of(repo: Path, bolt: str | None) -> list[RunState]:
    """The runs of the bolt whose id is `bolt` (bolt_id names it as a person does), oldest first; every run
    when `bolt` is None."""
    return [r for r in all_runs(repo) if bolt is None or r.bolt == bolt]


def bolt_id(workspace: Workspace, ref: str) -> str:
    """The id of the bolt `ref` names, as every command resolves it (aidlc.bank.index.find_bolt); `ref` itself
    when the bank names no such bolt (a run of a bolt since removed is still found by its id)."""

    try:
        return workspace.bolt(ref).id
    except UsageError:
        return ref


def _write_pid(path: Path) -> None:
    """This process's id, for the message a second run gets (written in place: nothing depends on it whole)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
    except OSError:  # a link, a folder, a FIFO without a reader: the message says "unknown" instead
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.write(fd, f"{os.getpid()}\n".encode())
    finally:
        os.close(fd)


def find_run(workspace: Workspace, ref: str) -> RunStore:
    """A run by its id, or the newest run of a bolt."""
    repo = workspace.root
    if ref.startswith("run-") and (repo / RUNS / ref / "state.json").is_file() and "/" not in ref:
        return RunStore(repo, ref)
    matching = runs_of(repo, bolt_id(workspace, ref))
    if not matching:
        raise UsageError(f"no run of bolt {ref!r} (and no run with that id) in {RUNS.as_posix()}/",
                         [f"aidlc bolt start {arg(ref)}", "aidlc bolt status    # the runs that exist"])
    return RunStore(repo, matching[-1].run_id)


@contextmanager
def bolt_lock(repo: Path, bolt: str) -> Iterator[None]:
    """Hold the bolt's lock while this process drives a run of it: a second `bolt start`/`resume` is refused.

    A lock the operating system holds (aidlc.locking), not a pid file: it is let go when the process ends, however
    it ends (kill -9 too), so a crashed run never leaves a lock someone must remove by hand. The pid is written
    beside it, for the message.
    """
    from aidlc.locking import Busy, exclusive  # only a run takes the lock: reading runs needs no locking module

    name = f"bolt-{path_segment(bolt, 'the bolt id')}"
    holder_file = repo / LOCKS / f"{name}.pid"
    try:
        with exclusive(repo / LOCKS / f"{name}.lock", wait=False):
            _write_pid(holder_file)
            yield
    except Busy:
        try:
            holder = read_regular(holder_file)[:32].decode("ascii", errors="replace").strip() or "unknown"
        except OSError:
            holder = "unknown"
        raise UsageError(f"bolt {bolt} is being run by another aidlc (process {holder}); one run of a bolt "
                         "at a time, so nothing was touched",
                         [f"wait until it pauses or ends, then: aidlc bolt status {arg(bolt)}",
                          f"or stop it (kill {holder}), then: aidlc bolt resume {arg(bolt)}"]) from None
