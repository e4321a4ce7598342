"""The verify runner: the `verify` commands of aidlc.yaml, run one after another in the repository root
(docs/design.md, The bolt), each result a `check.recorded` ledger event.

How a command runs:
* Without a shell. `run` is split like a shell would split words (shlex) and executed directly: the string
  comes from a repository file, and a run executes it after a model edited the repository. Pipes,
  redirections, `&&`, globs and `$VARIABLES` are therefore not interpreted; a check that needs them is a
  script in the repository (`run: ./scripts/check.sh`). A command that looks as if it expected a shell gets
  a note saying so.
* In its own session and process group, stdin from /dev/null, stdout and stderr merged into one pipe that
  is read as it comes (a check printing gigabytes neither deadlocks nor fills memory): the first and last
  4 KiB (at most 60 lines each) are kept, the whole output is hashed (sha256).
* Under a reaper (aidlc.processes): when the check exits, the reaper ends every process it left behind and reaps
  it, on Linux also those that left the group (setsid, a double fork), as a child subreaper gets them back.
* At its timeout, or when aidlc is interrupted, the whole group gets SIGTERM, then SIGKILL after a short
  grace: grandchildren die with it, and the reaper ends those outside the group.
* With a few variables of the environment aidlc runs in (`check_environment`): CHECK_VARIABLES (where programs,
  the home folder, the language and temporary files are; what says CI) and those the check's `env:` names, never
  aidlc's own model settings and API keys. Code a model wrote runs inside the check: a token, a cloud key or an
  agent's socket in the user's environment would be its to use or print. This is no sandbox: the check runs as
  the user, with the user's files, as it does in the user's terminal.
* A command that cannot start (not found, not executable, unbalanced quotes) is a failed check whose note
  says why, never an exception.
* Its process group id goes to `on_start` before aidlc waits on it: a run saves it, so that when aidlc itself
  is killed (SIGKILL ends no child), the next `resume` or `abort` ends what is left (`end_leftover_group`)
  before it runs the checks again.

What is kept: `head`/`tail` (control characters dropped, secrets redacted as in prompts) go into the run's
state and, trimmed, back to the model; the ledger gets digests only (`check_event`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bolt.counts import junit_identity, read_junit, runner_counts
from aidlc.bolt.groups import end_group
from aidlc.errors import UsageError
from aidlc.model.checks import CheckResult, TestCounts
from aidlc.model.config import VerifyCommand
from aidlc.model.events import CheckData, Subject
from aidlc.processes import RUN_VARIABLE, reaper_argv
from aidlc.redaction import Redactor

HEAD_BYTES = TAIL_BYTES = 4096
HEAD_LINES = TAIL_LINES = 60
DRAIN_S = 2.0  # after the check exited, how long output still held open by an escaped process is read
_POLL_S = 0.05  # how often a quiet check is looked at while its output stays open
_READ = 65536

# What every check gets of aidlc's environment (besides LC_*); a check's `env:` adds names.
CHECK_VARIABLES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "FORCE_COLOR",
    "TMPDIR", "TMP", "TEMP", "CI", RUN_VARIABLE,
    "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
    "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONWARNINGS",
    "JAVA_HOME", "GOPATH", "GOROOT", "GOCACHE", "CARGO_HOME", "RUSTUP_HOME",
})
# Variables aidlc itself reads to reach a model: never a check's, even when its `env:` names them.
LLM_KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
_LLM_SETTINGS_PREFIX = "AIDLC_LLM_"
_SHELL_WORDS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>&1", "2>", "|&"}


def check_environment(check: VerifyCommand, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment `check` runs with: of `base` (default: this process's), the variables CHECK_VARIABLES lists,
    LC_* and those the check's `env:` names; never the AIDLC_LLM_* settings or the well-known model API keys."""
    source = os.environ if base is None else base
    named = set(check.env)
    return {name: value for name, value in source.items()
            if (name in CHECK_VARIABLES or name.startswith("LC_") or name in named)
            and name not in LLM_KEY_VARIABLES and not name.startswith(_LLM_SETTINGS_PREFIX)}


def command_argv(check: VerifyCommand) -> list[str]:
    """The argument list of a check's `run`, split as a shell splits words; UsageError when it cannot be."""
    try:
        argv = shlex.split(check.run)
    except ValueError as exc:
        raise UsageError(f"aidlc.yaml: verify '{check.name}': cannot split {check.run!r} into words: {exc}",
                         ["fix the quoting of `run` in aidlc.yaml"]) from None
    if not argv:
        raise UsageError(f"aidlc.yaml: verify '{check.name}': `run` is empty",
                         ["give the check a command in aidlc.yaml, or remove it"])
    return argv


def run_checks(repo_root: Path, checks: list[VerifyCommand], stop_on_failure: bool = False,
               env: Mapping[str, str] | None = None,
               on_start: Callable[[int], None] | None = None) -> list[CheckResult]:
    """Each check in order (the cheapest first, as aidlc.yaml lists them); after the first failure, none more
    when `stop_on_failure`. `env`: what each check's environment is chosen from (`check_environment`)."""
    results: list[CheckResult] = []
    for check in checks:
        results.append(run_check(repo_root, check, env, on_start))
        if stop_on_failure and not results[-1].passed:
            break
    return results


def run_checks_watched(repo_root: Path, checks: list[VerifyCommand], env: Mapping[str, str] | None = None,
                       on_start: Callable[[int], None] | None = None) -> tuple[list[CheckResult], list[str]]:
    """`run_checks`, and what of git's reading the run changed (`vcs.reading_changes`): the code a check runs is the
    change's own, and could rewrite the history judged after it (move HEAD to commits it wrote)."""
    before = vcs.reading_state(repo_root)
    results = run_checks(repo_root, checks, env=env, on_start=on_start)
    return results, vcs.reading_changes(before, vcs.reading_state(repo_root))


def run_check(repo_root: Path, check: VerifyCommand, env: Mapping[str, str] | None = None,
              on_start: Callable[[int], None] | None = None) -> CheckResult:
    """Run one check in `repo_root` (see the module's docstring) with `check_environment(check, env)`; `on_start`
    gets the check's process group id before it is waited on."""
    env = check_environment(check, env)
    started = time.perf_counter()
    output = _Output()
    try:
        argv = command_argv(check)
    except UsageError as exc:
        return _result(check, None, False, started, output, None, [exc.message], env)
    notes: list[str] = []
    if any(word in _SHELL_WORDS for word in argv) or any(word.startswith("$") for word in argv):
        notes.append(f"`{check.run}` runs without a shell: `|`, `&&`, `>`, `$VAR` reach {argv[0]} as plain "
                     "arguments; put the pipeline in a script and run that")
    junit_before = junit_identity(repo_root, check.junit) if check.junit else None
    status_read, status_write = os.pipe()  # the reaper writes there why the check could not start
    with _interrupt_held() as held:
        try:
            proc = subprocess.Popen(reaper_argv(status_write, argv), cwd=repo_root, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                                    close_fds=True, pass_fds=(status_write,))
        except OSError as exc:
            os.close(status_read)
            return _result(check, None, False, started, output, None, [*notes, _not_started(argv[0], exc)], env)
        finally:
            os.close(status_write)
        # Still held: `_wait` lets Ctrl-C through only once it can end the check's group.
        timed_out, not_started = _wait(proc, output, check.timeout_s, held, on_start, status_read)
    if not_started is not None:
        return _result(check, None, False, started, output, None, [*notes, _not_started(argv[0], not_started)], env)
    code = None if timed_out else proc.returncode
    if timed_out:
        notes.append(f"timed out after {check.timeout_s} s: its process group was killed")
    elif code is not None and code < 0:
        notes.append(f"killed by signal {_signal_name(-code)}")
    passed, tests = _verdict(repo_root, check, code, junit_before, notes)
    return _result(check, code, passed, started, output, tests, notes, env, timed_out)


def _wait(proc: subprocess.Popen[bytes], output: _Output, timeout_s: float, held: _HeldInterrupt,
          on_start: Callable[[int], None] | None, status_read: int) -> tuple[bool, OSError | None]:
    """Wait for the started check (to its timeout), end its group and read what is left of its output: whether it
    timed out, and why the reaper could not start it (None: it started)."""
    assert proc.stdout is not None
    try:
        if held.release():  # a Ctrl-C came while the check started: raised now that its group gets ended below
            signal.raise_signal(signal.SIGINT)
        if on_start is not None:
            on_start(proc.pid)
        timed_out = _collect(proc, output, time.monotonic() + timeout_s)
        end_group(proc)
        _drain(proc.stdout.fileno(), output)
    except BaseException:  # interrupted (Ctrl-C): nothing of the check outlives us
        end_group(proc)
        raise
    finally:
        proc.stdout.close()
        not_started = _start_failure(status_read)
    return timed_out, not_started


def _verdict(repo_root: Path, check: VerifyCommand, code: int | None,
             junit_before: tuple[int, int, int, int] | None, notes: list[str]) -> tuple[bool, TestCounts | None]:
    """Whether the check passed, and its JUnit counts: exit code 0 and, when it sets `junit`, a report written by
    this run that counts at least one test and no failure or error. Why not goes to `notes`."""
    tests, problem = None, None
    if check.junit:
        tests, problem = read_junit(repo_root, check.junit, junit_before)
        if problem is None and tests is not None and tests.total == 0:
            problem = f"JUnit report {check.junit}: counts no test"
        if problem:  # a report the check promised and did not give is no evidence that anything ran
            notes.append(f"{problem}; aidlc.yaml's verify '{check.name}' sets `junit: {check.junit}`, so a report "
                         "written by this run counting at least one test was expected: the check fails")
    passed = code == 0 and problem is None
    if passed and tests is not None and tests.failures + tests.errors:
        passed = False
        notes.append(f"exit code 0, but its JUnit report counts {tests.failures} failures and {tests.errors} errors")
    return passed, tests


def check_event(result: CheckResult, commit: str, run_id: str | None, subject: Subject) -> dict[str, Any]:
    """The fields of the `check.recorded` event for `result` (`Ledger.append(EventType.check_recorded, actor,
    key=..., **check_event(...))`): digests and counts, no output text (docs/design.md, The ledger); the
    ledger redacts a secret in the command. The duration is in whole milliseconds: the ledger's canonical JSON
    holds integers, not floats."""
    return {"subject": subject, "commit": commit, "run": run_id, "data": check_data(result).model_dump()}


def check_data(result: CheckResult) -> CheckData:
    """What a `check.recorded` event holds of `result`."""
    return CheckData(name=result.name, command=result.command, exit_code=result.exit_code, passed=result.passed,
                     timed_out=result.timed_out, duration_ms=round(result.duration_s * 1000), tests=result.tests,
                     output_sha256=result.output_sha256, output_bytes=result.output_bytes)


# -- running ------------------------------------------------------------------------------------------------------

class _HeldInterrupt:
    """SIGINT (Ctrl-C) held back while a check starts: raised inside Popen, or before the wait that ends the
    check's group on an interrupt, it would lose the child's pid and leave the group running in its own session."""

    def __init__(self) -> None:
        self.caught: list[int] = []
        self.previous: Any = None
        # Signal handlers belong to the main thread; a handler installed outside Python (None) is left alone.
        self.holding = threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGINT) is not None
        if self.holding:
            self.previous = signal.signal(signal.SIGINT, lambda number, _frame: self.caught.append(number))

    def release(self) -> bool:
        """Let Ctrl-C through again; whether one came while it was held."""
        if self.holding:
            self.holding = False
            signal.signal(signal.SIGINT, self.previous)
        return bool(self.caught)


@contextlib.contextmanager
def _interrupt_held() -> Iterator[_HeldInterrupt]:
    held = _HeldInterrupt()
    try:
        yield held
    finally:
        held.release()


class _Output:
    """The first HEAD_BYTES and the last TAIL_BYTES of a stream, its size and its sha256."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.size = 0
        self.head = bytearray()
        self.tail = bytearray()

    def add(self, chunk: bytes) -> None:
        self.digest.update(chunk)
        self.size += len(chunk)
        room = HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[:-TAIL_BYTES]


def _collect(proc: subprocess.Popen[bytes], output: _Output, deadline: float) -> bool:
    """Read the check's output until it exits; True when the deadline came first."""
    import selectors

    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while proc.poll() is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            if not selector.select(min(remaining, _POLL_S)):
                continue
            chunk = _read(fd)
            if chunk:
                output.add(chunk)
            elif chunk is not None:  # end of output: the check closed it and may still run
                try:
                    proc.wait(max(deadline - time.monotonic(), 0))
                except subprocess.TimeoutExpired:
                    return True
    return False


def _read(fd: int) -> bytes | None:
    """A chunk, b"" at the end of the stream, None when nothing is there yet."""
    try:
        return os.read(fd, _READ)
    except BlockingIOError:
        return None


def _drain(fd: int, output: _Output) -> None:
    """What is still in the pipe once the group is gone; a process that escaped the group (its own session)
    may hold the pipe open: it is read for DRAIN_S at most."""
    import selectors

    deadline = time.monotonic() + DRAIN_S
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while (remaining := deadline - time.monotonic()) > 0:
            if not selector.select(remaining):
                return
            chunk = _read(fd)
            if chunk == b"":
                return
            if chunk:
                output.add(chunk)


def _start_failure(status_read: int) -> OSError | None:
    """Why the reaper could not start the check ("errno strerror" in its status pipe), once the reaper is gone."""
    with os.fdopen(status_read, "rb") as status:
        written = status.read().decode(errors="replace")
    if not written:
        return None
    number, _, message = written.partition(" ")
    return OSError(int(number), message) if number.isdigit() else OSError(message)


def _not_started(program: str, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return (f"{program}: command not found (neither on PATH nor a file relative to the repository root); "
                "install it, or fix `run` in aidlc.yaml")
    if isinstance(exc, PermissionError):
        return f"{program}: not executable (chmod +x {program}, or run it through its interpreter)"
    return f"{program}: cannot start: {exc.strerror or exc}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _result(check: VerifyCommand, code: int | None, passed: bool, started: float, output: _Output,
            tests: TestCounts | None, notes: list[str], env: Mapping[str, str], timed_out: bool = False) -> CheckResult:

    head, tail = _excerpts(output)
    if tests is None and not check.junit:  # no report configured: the runner's own closing line, if it printed one
        tests = runner_counts(_printable(tail or head))
    redact = Redactor({**os.environ, **env})
    return CheckResult(name=check.name, command=check.run, exit_code=code, passed=passed, timed_out=timed_out,
                       duration_s=round(time.perf_counter() - started, 3), head=redact(_printable(head)),
                       tail=redact(_printable(tail)), output_sha256=output.digest.hexdigest(),
                       output_bytes=output.size, omitted_bytes=output.size - len(head) - len(tail), tests=tests,
                       notes=notes)


def _excerpts(output: _Output) -> tuple[bytes, bytes]:
    """The head (at most HEAD_LINES whole lines where it can) and the tail (at most TAIL_LINES, starting at a
    line when it was cut); when all the output fits in the head's bytes, the tail is its last lines."""
    head = b"".join(bytes(output.head).splitlines(keepends=True)[:HEAD_LINES])
    if output.size <= HEAD_BYTES:
        tail = bytes(output.head[len(head):])
    else:
        tail = bytes(output.tail)
        newline = tail.find(b"\n")
        if output.size > HEAD_BYTES + len(tail) and 0 <= newline < len(tail) - 1:
            tail = tail[newline + 1:]
    return head, b"".join(tail.splitlines(keepends=True)[-TAIL_LINES:])


_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _printable(data: bytes) -> str:
    """Text a terminal and a model can take: UTF-8 (bad bytes replaced), no escape sequences or controls."""
    text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", _ESCAPES.sub("", text))
