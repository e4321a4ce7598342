"""Benchmark the ledger (memory-bank/events.jsonl): verification, appends and gate decisions, against baselines
measured in the same run.

Usage::

    python benchmarks/ledger.py [--sizes 100000,1000000] [--runs 3] [--appends 2000] [--gate N] [--gate-runs 7]
                                [--json] [--profile] [--workdir DIR]

What it does
------------
1. Generates one ledger of the largest size in a temporary folder (deterministic: a counter, no clock, no
   randomness), with the mix a busy repository records: ``check.recorded`` events from agents and CI with a
   check result in ``data`` (some with an idempotency key), ``gate.decided`` events from people with a
   fingerprint, evidence digests and a commit, ``run.started``/``run.finished``. Event n happened n seconds
   after 2025-01-01 (in order, in the past), and the decisions name 101 real commits of a git repository
   every measured folder is a copy of, so the checks beyond the hash meet real times and real objects.
   Lines are built directly with ``aidlc.events.canonical`` (canonical JSON, sha256 of the event without
   ``hash``), not through ``Ledger.append``: worker processes serialise the events, this process chains
   them in order; the first lines are checked against ``line_of``/``event_hash`` so the shortcut cannot
   drift. Each smaller size is a prefix of it, which is itself a valid ledger.
2. For each size, median / min / max over ``--runs`` runs (every run reads the file from the page cache):

   * verify in-process: what ``aidlc log verify`` does without start-up (the chain, each event's time, and
     its commit looked up with git).
   * verify as ``aidlc log verify`` in a subprocess of the installed console script (start-up included).
   * the baseline: ``json.loads`` of every line, read the same way, and nothing else.
   * the floor: every line read the same way and its sha256 taken (hex, as the ledger writes it), and nothing
     else: the work no verification of a hash chain can skip. Its ratio says how far verification is from it.
   * the bare chain: the least a verifier written in Python does per line, and nothing else: the verifier's own
     expression reads the hash, prev and seq from the line's tail, the hash is recomputed over the line without
     it, and prev and seq are compared with the line above (no time, no commit, no id, no problem reported: it
     stops at the first line that is not so). It bounds what a Python verifier reading lines this way reaches on
     the machine of the run (reading blocks of lines with one expression was measured slower: CPython's `re`
     finds a literal at about 1.5 ns a byte), so a goal in events/s above it is out of reach there.

   Peak RSS is a child's VmHWM, written at exit by a ``sitecustomize`` probe on its PYTHONPATH (``ru_maxrss``
   of a child starts at its parent's peak on Linux); for in-process verification, of a fresh interpreter
   doing that work once (this process keeps freed memory, so its own high-water mark would say little).
3. Appends, on a copy of the smallest ledger restored before every run: ``--appends`` events through
   ``Ledger.append`` (lock, state, one write, fsync, checkpoint) without a key and with a unique idempotency
   key each, by a fresh ``Ledger`` (its first append reads the whole file, having no checkpoint: its latency
   and the rate of the appends after it are reported too). The baseline writes the same lines with
   ``os.write`` + ``os.fsync`` on an O_APPEND descriptor, without lock, hash or check.
4. Gate decisions end to end: ``aidlc gate approve`` (a subprocess of the console script) in a repository
   made by ``aidlc init`` with one intent, whose ledger is the first 10, or the first ``--gate`` (default
   100,000) events of the generated one; ``--gate-runs`` decisions on each, interleaved, each appending one
   more event. The first decision after the ledger was put in place (which reads it whole) is reported
   apart: the timed ones find the ledger as the previous decision left it.
5. Prints a table with events/s and the ratio to the baseline, and the goals, each PASS or MISS: verify
   >= 200,000 events/s (in-process, every size), log verify's peak memory at the largest size within 1.25x
   of the smallest (constant memory), a gate decision on the large ledger within 1.5x of one on 10 events,
   and append >= 500 events/s with fsync. The goals are informational: exit code 0. ``--json`` prints one
   JSON document instead. ``--profile`` adds a cProfile of the in-process verification of the largest ledger.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import itertools
import json
import multiprocessing
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from measure import Stat, aidlc_executable, probed_env  # sibling module: benchmarks run as scripts

from aidlc.events.canonical import canonical, event_hash, line_of
from aidlc.events.ledger import LEDGER_FILE, Ledger
from aidlc.events.verify import verify_lines
from aidlc.events.verify.lines import FAST_LINE, HASH_KEY
from aidlc.events.view import event_checks
from aidlc.model.events import GENESIS, Actor, ActorKind, EventType

GOAL_VERIFY_EPS = 200_000
GOAL_APPEND_EPS = 500
GOAL_GATE_RATIO = 1.5  # a decision on 100,000 events costs at most this much more than on 10
GOAL_PEAK_RATIO = 1.25  # log verify's peak memory at the largest size, relative to the smallest
BANK = "memory-bank"
DIGESTS = [hashlib.sha256(str(n).encode()).hexdigest() for n in range(997)]  # a prime: no lock-step patterns
COMMIT_COUNT = 101  # distinct commits the decisions name: real commits of each generated repository
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)  # event n happened n seconds after this: in the past, in order
PEOPLE = [("Ada Lovelace", "ada@example.org"), ("Grace Hopper", "grace@example.org"),
          ("Edsger Dijkstra", "edsger@example.org")]
CHECKS = [("pytest", "pytest -q"), ("ruff", "ruff check ."), ("mypy", "mypy aidlc"), ("build", "python -m build")]
STAGES = ["plan", "design", "walkthrough"]

# --------------------------------------------------------------------------------------------------
# Synthetic ledger
# --------------------------------------------------------------------------------------------------


def synthetic_event(n: int, commits: list[str]) -> dict[str, Any]:
    """Event n (1-based) without seq, prev and hash: 1 run.started, 14 checks, 4 gate decisions, 1 run.finished
    in every 20, so about three quarters are checks. Decisions name one of `commits` (real ones)."""
    bolt = f"{(n // 200) % 400:03d}-checkout-api"
    run = f"run_{n // 20:08x}"
    when = EPOCH + timedelta(seconds=n, microseconds=n % 1_000_000)
    base: dict[str, Any] = {"v": 1, "id": f"evt_{0x18e000000000000 + n * 7919:x}{n % 65536:04x}",
                            "ts": when.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                            "subject": {"kind": "bolt", "id": bolt}}
    phase = n % 20
    if phase == 0:
        return {**base, "type": "run.started", "actor": {"kind": "agent", "name": "aidlc-runner"}, "run": run,
                "key": f"{run}:started"}
    if phase == 19:
        return {**base, "type": "run.finished", "actor": {"kind": "agent", "name": "aidlc-runner"}, "run": run,
                "key": f"{run}:finished", "data": {"outcome": "passed", "checks": 14}}
    if phase >= 15:
        name, email = PEOPLE[n % len(PEOPLE)]
        stage = STAGES[n % len(STAGES)]
        return {**base, "type": "gate.decided", "actor": {"kind": "human", "name": name, "email": email},
                "stage": stage, "decision": "approve" if n % 7 else "reject",
                "reason": f"{stage} reviewed against the acceptance criteria; checks green",
                "fingerprint": {"path": f"{BANK}/bolts/{bolt}/{stage}.md", "sha256": DIGESTS[n % 997]},
                "evidence": [{"path": f".aidlc/runs/{run}/pytest.log", "sha256": DIGESTS[(n + 1) % 997]},
                             {"path": f".aidlc/runs/{run}/coverage.xml", "sha256": DIGESTS[(n + 2) % 997]}],
                "commit": commits[n % len(commits)]}
    check, command = CHECKS[n % len(CHECKS)]
    failed = 0 if n % 11 else 1
    event = {**base, "type": "check.recorded", "actor": {"kind": "ci" if n % 3 else "agent", "name": "ci"},
             "run": run, "data": {"name": check, "command": command, "exit_code": failed, "passed": not failed,
                                  "timed_out": False, "duration_ms": 800 + n % 5000,
                                  "tests": {"total": 120 + n % 40, "failures": failed, "errors": 0, "skipped": n % 3},
                                  "output_sha256": DIGESTS[n % 997], "output_bytes": 2000 + n % 9000}}
    if n % 2:
        event["key"] = f"{run}:{check}:{n}"
    return event


PREV_MARK = "f" * 64  # stands for `prev` while bodies are built in parallel; the chain pass puts the real one
_PREV_FIELD = b'"prev":"' + PREV_MARK.encode()
CHUNK = 20_000


def bodies(span: tuple[int, int, list[str]]) -> list[bytes]:
    """Canonical events [start, end) with the placeholder prev: the costly part, run in worker processes."""
    start, end, commits = span
    out = []
    for n in range(start, end):
        event = synthetic_event(n, commits)
        event["seq"], event["prev"] = n, PREV_MARK
        out.append(canonical(event))
    return out


def chain_lines(count: int, commits: list[str]) -> Iterator[bytes]:
    """Canonical lines of a valid chain. The chain pass (one process, in order) puts each `prev` in place,
    takes the sha256 of the canonical event without `hash` and inserts `hash` where it sorts (right before
    `id`): exactly `line_of` of the event with its `event_hash`, which the first lines are checked against."""
    spans = [(start, min(start + CHUNK, count + 1), commits) for start in range(1, count + 1, CHUNK)]
    prev = GENESIS.encode()
    n = 0
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        for chunk in pool.imap(bodies, spans):
            for body in chunk:
                n += 1
                at = body.index(_PREV_FIELD) + 8
                body = body[:at] + prev + body[at + 64:]
                digest = hashlib.sha256(body).hexdigest().encode()
                cut = body.index(b'"id":"evt_')
                line = body[:cut] + b'"hash":"' + digest + b'",' + body[cut:] + b"\n"
                if n <= 200:  # the shortcut must equal the real thing
                    event = {**synthetic_event(n, commits), "seq": n, "prev": prev.decode()}
                    assert digest.decode() == event_hash(event), n
                    assert line == line_of({**event, "hash": digest.decode()}), n
                prev = digest
                yield line


def git(root: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@example.org", "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z"}
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"benchmark: git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def history(workdir: Path) -> tuple[Path, list[str]]:
    """A git repository with COMMIT_COUNT commits, for the decisions to name: every repository the benchmark
    measures starts as a copy of it, so `commit` checks meet real objects."""
    origin = workdir / "history"
    origin.mkdir()
    git(origin, "init", "-q")
    for n in range(COMMIT_COUNT):
        git(origin, "commit", "-q", "--allow-empty", "-m", f"commit {n}")
    return origin, git(origin, "rev-list", "--reverse", "HEAD").split()


def generate(workdir: Path, sizes: list[int]) -> dict[int, Path]:
    """One ledger per size (each a prefix of the largest), written in one pass, each in a git repository whose
    commits the decisions name. Returns size -> repo root."""
    origin, commits = history(workdir)
    roots = {size: workdir / f"ledger-{size}" for size in sizes}
    handles = {}
    for size, root in roots.items():
        shutil.copytree(origin, root, symlinks=True)
        (root / BANK).mkdir(parents=True)
        (root / "aidlc.yaml").write_text(f"version: 1\nmemory_bank: {BANK}\n", encoding="utf-8")
        handles[size] = open(root / BANK / LEDGER_FILE, "wb", buffering=1 << 20)  # noqa: SIM115
    try:
        for n, line in enumerate(chain_lines(max(sizes), commits), start=1):
            for size, handle in handles.items():
                if n <= size:
                    handle.write(line)
    finally:
        for handle in handles.values():
            handle.close()
    return roots


# --------------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------------



@dataclass
class Throughput(Stat):
    """A `Stat` of runs that each handled `events` events: events per second at the median."""

    events: int = 0

    @property
    def eps(self) -> float:
        return self.events / self.median if self.median else float("inf")


class PeakProbe:
    """VmHWM of this process around a call (reset first), or of a child through the sitecustomize probe."""

    def __init__(self, workdir: Path) -> None:
        self.env, self.peak_file, self.child_probe = probed_env(workdir)

    def run(self, argv: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, int | None, str]:
        self.peak_file.unlink(missing_ok=True)
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, env=self.env, stdin=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        if proc.returncode not in ok:
            raise SystemExit(f"benchmark: {' '.join(argv)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
        peak = int(self.peak_file.read_text(encoding="ascii")) if self.peak_file.exists() else None
        return seconds, peak, proc.stdout


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


# The in-process verification alone in a fresh interpreter, for its peak RSS (this process keeps freed memory).
PEAK_CODE = """
import sys
from pathlib import Path
from aidlc.events.ledger import Ledger
from aidlc.events.verify import verify_lines
from aidlc.events.view import event_checks
root = Path(sys.argv[1])
ledger = Ledger(root / "memory-bank" / "events.jsonl", root)
assert verify_lines(ledger.lines, stop_at_first=True, checks=event_checks(root)).ok
"""


def baseline_loads(ledger: Ledger) -> None:
    loads = json.loads
    for line in ledger.lines():
        loads(line)


def floor_sha256(ledger: Ledger) -> None:
    sha256 = hashlib.sha256
    for line in ledger.lines():
        sha256(line).hexdigest()


def bare_chain(ledger: Ledger) -> None:
    """The least a Python verifier does per line (see the module docstring): the fields by one match, the hash
    recomputed over the line without its member, prev and seq against the line above."""
    match, sha256 = FAST_LINE.match, hashlib.sha256
    tip, tip_seq = GENESIS.encode(), 0
    for line in ledger.lines():
        start = line.rfind(HASH_KEY)
        found = match(line, start)
        if found is None:
            raise SystemExit(f"benchmark: the bare chain cannot read the line after seq {tip_seq}")
        digest, _, prev, seq, _ = found.groups()
        if sha256(line[:start] + line[start + 74:-1]).hexdigest().encode() != digest or prev != tip \
                or int(seq) != tip_seq + 1:
            raise SystemExit(f"benchmark: the bare chain breaks after seq {tip_seq}")
        tip, tip_seq = digest, tip_seq + 1


def verify_in_process(ledger: Ledger) -> None:
    """What `aidlc log verify` does, without start-up: the chain, and each event's time and commit."""
    result = verify_lines(ledger.lines, stop_at_first=True, checks=event_checks(ledger.repo_root))
    if not result.ok:
        raise SystemExit(f"benchmark: the generated ledger does not verify: {result.problems[0]}")


@dataclass
class SizeResult:
    events: int
    bytes: int
    verify: Throughput
    verify_cli: Throughput
    baseline: Throughput
    floor: Throughput
    bare: Throughput


def measure_size(probe: PeakProbe, root: Path, size: int, runs: int, warm_up: bool) -> SizeResult:
    """Interleaved runs (verify, CLI, baseline, floor, bare chain), so drift hits all alike. The page cache is warm
    (the file was just written, then read by the peak-memory child); `warm_up` runs the CLI once first, to fill its
    bytecode cache: later sizes skip that (a warm-up of a large ledger costs as much as a run)."""
    ledger = Ledger(root / BANK / LEDGER_FILE, root)
    argv = [aidlc_executable(), "--repo", str(root), "log", "verify", "--format", "json"]
    _, verify_peak, _ = probe.run([sys.executable, "-c", PEAK_CODE, str(root)])
    if warm_up:
        probe.run(argv)
    samples: dict[str, list[float]] = {"verify": [], "cli": [], "baseline": [], "floor": [], "bare": []}
    cli_peaks: list[int] = []
    for _ in range(runs):
        samples["verify"].append(timed(lambda: verify_in_process(ledger)))
        cli_seconds, cli_peak, out = probe.run(argv)
        if json.loads(out)["events"] != size:
            raise SystemExit(f"benchmark: aidlc log verify counted {json.loads(out)['events']} events, not {size}")
        samples["cli"].append(cli_seconds)
        cli_peaks += [cli_peak] if cli_peak else []
        samples["baseline"].append(timed(lambda: baseline_loads(ledger)))
        samples["floor"].append(timed(lambda: floor_sha256(ledger)))
        samples["bare"].append(timed(lambda: bare_chain(ledger)))
    peaks = {"verify": [verify_peak] if verify_peak else None, "cli": cli_peaks or None, "baseline": None,
             "floor": None, "bare": None}
    stats = {name: Throughput.of(seconds, peaks[name], events=size) for name, seconds in samples.items()}
    return SizeResult(size, ledger.path.stat().st_size, stats["verify"], stats["cli"], stats["baseline"],
                      stats["floor"], stats["bare"])


@dataclass
class AppendResult:
    ledger_events: int
    appends: int
    plain: Throughput  # all appends of a fresh Ledger, the first one (a check of the whole file) included
    keyed: Throughput
    plain_steady: Throughput  # the appends after the first: what a long-running appender pays per event
    keyed_steady: Throughput
    baseline: Throughput
    first_append_s: float  # median latency of the first append


def measure_appends(workdir: Path, source: Path, size: int, appends: int, runs: int) -> AppendResult:
    """Each run restores the ledger first, so every run appends to the same `size` events."""
    root = workdir / "append"
    ledger_path = root / BANK / LEDGER_FILE
    ledger_path.parent.mkdir(parents=True, exist_ok=True)
    pristine = source / BANK / LEDGER_FILE
    totals: dict[str, list[float]] = {"plain": [], "keyed": []}
    firsts: dict[str, list[float]] = {"plain": [], "keyed": []}
    raw: list[float] = []
    for run in range(runs):
        for mode in ("plain", "keyed"):
            shutil.copyfile(pristine, ledger_path)
            first, total = _append_run(Ledger(ledger_path, root), appends, f"bench-{run}" if mode == "keyed" else None)
            firsts[mode].append(first)
            totals[mode].append(total)
            if mode == "plain":
                with open(ledger_path, "rb") as handle:
                    handle.seek(pristine.stat().st_size)
                    written = handle.readlines()
        shutil.copyfile(pristine, ledger_path)
        raw.append(_raw_appends(ledger_path, written))
    steady = {mode: [t - f for t, f in zip(totals[mode], firsts[mode], strict=True)] for mode in totals}
    return AppendResult(size, appends, Throughput.of(totals["plain"], events=appends),
                        Throughput.of(totals["keyed"], events=appends),
                        Throughput.of(steady["plain"], events=appends - 1),
                        Throughput.of(steady["keyed"], events=appends - 1),
                        Throughput.of(raw, events=appends), statistics.median(firsts["plain"] + firsts["keyed"]))


def _append_run(ledger: Ledger, appends: int, key_prefix: str | None) -> tuple[float, float]:
    """(seconds of the first append, seconds of all) for `appends` realistic check results."""
    actor = Actor(kind=ActorKind.agent, name="bench")
    first = 0.0
    start = time.perf_counter()
    for n in range(appends):
        ledger.append(EventType.check_recorded, actor, key=f"{key_prefix}-{n}" if key_prefix else None,
                      run="run_bench", data={"name": "pytest", "exit_code": 0, "passed": True,
                            "tests": {"total": 120 + n % 40, "failures": 0, "errors": 0, "skipped": 0}, "n": n})
        if n == 0:
            first = time.perf_counter() - start
    return first, time.perf_counter() - start


def _raw_appends(path: Path, lines: list[bytes]) -> float:
    """The floor: the same bytes, one write + fsync each, no lock, no hash, no check."""
    start = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        for line in lines:
            os.write(fd, line)
            os.fsync(fd)
    finally:
        os.close(fd)
    return time.perf_counter() - start


@dataclass
class GateResult:
    """`aidlc gate approve` end to end (a subprocess of the console script) on a small and a large ledger."""

    small_events: int
    large_events: int
    small: Stat  # decisions when the ledger is as the previous command left it
    large: Stat
    small_first_s: float  # the first decision after the ledger was replaced (nothing known about it yet)
    large_first_s: float

    @property
    def ratio(self) -> float:
        return self.large.median / self.small.median


def gate_repo(workdir: Path, origin: Path, ledger: Path, events: int) -> Path:
    """`aidlc init` in a copy of the history repository, one intent (with a requirement) committed, and the
    first `events` events of the generated ledger as its ledger (their commits exist here)."""
    root = workdir / f"gate-{events}"
    shutil.copytree(origin, root, symlinks=True)
    cli = [aidlc_executable(), "--repo", str(root)]
    # One requirement: the requirements gate is refused while there is nothing to judge.
    for argv in (["init", str(root)], ["new", "intent", "Checkout"], ["new", "requirement", "Pay", "--intent", "001"]):
        done = subprocess.run(cli + argv if argv[0] != "init" else [aidlc_executable(), *argv], capture_output=True,
                              text=True, env=human_env(os.environ))
        if done.returncode != 0:
            raise SystemExit(f"benchmark: aidlc {' '.join(argv)} failed: {done.stderr}")
    git(root, "config", "user.name", "Ada")
    git(root, "config", "user.email", "ada@example.org")
    with open(ledger, "rb") as source, open(root / BANK / LEDGER_FILE, "wb") as target:
        for line in itertools.islice(source, events):
            target.write(line)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a bank with a ledger")
    return root


def human_env(env: dict[str, str]) -> dict[str, str]:
    """The environment of a person deciding (a CI runner's CI=true would make the actor `ci`)."""
    return {name: value for name, value in env.items() if name not in ("CI", "AIDLC_ACTOR_KIND")}


GATE_SMALL = 10


def measure_gate(probe: PeakProbe, workdir: Path, source: Path, large: int, runs: int) -> GateResult:
    """Interleaved decisions on a 10-event and a `large`-event ledger; each appends one more event."""
    origin = workdir / "history"
    ledger = source / BANK / LEDGER_FILE
    roots = {size: gate_repo(workdir, origin, ledger, size) for size in (GATE_SMALL, large)}
    env = human_env(probe.env)

    def decide(root: Path) -> float:
        argv = [aidlc_executable(), "--repo", str(root), "gate", "approve", "001-checkout", "--stage",
                "requirements", "--reason", "benchmark"]
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"benchmark: {' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
        return seconds

    firsts = {size: decide(root) for size, root in roots.items()}
    samples: dict[int, list[float]] = {size: [] for size in roots}
    for _ in range(runs):
        for size, root in roots.items():
            samples[size].append(decide(root))
    return GateResult(GATE_SMALL, large, Stat.of(samples[GATE_SMALL]), Stat.of(samples[large]),
                      firsts[GATE_SMALL], firsts[large])


# --------------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------------


@dataclass
class Goal:
    name: str
    target: str
    measured: str
    met: bool


def goals(sizes: list[SizeResult], appends: AppendResult | None, gate: GateResult | None = None) -> list[Goal]:
    slowest = min(sizes, key=lambda r: r.verify.eps)
    found = [Goal("verify in-process, every size", f">= {GOAL_VERIFY_EPS:,} events/s",
                  f"{slowest.verify.eps:,.0f} events/s (slowest, {slowest.events:,} events; the bare chain "
                  f"{slowest.bare.eps:,.0f} at that size)",
                  slowest.verify.eps >= GOAL_VERIFY_EPS)]
    peaks = [(r.events, r.verify_cli.peak_mib) for r in sizes if r.verify_cli.peak_mib is not None]
    if len(peaks) > 1:
        (small, small_mib), (large, large_mib) = peaks[0], peaks[-1]
        found.append(Goal("aidlc log verify in constant memory", f"peak at {large:,} <= {GOAL_PEAK_RATIO}x "
                          f"peak at {small:,} events", f"{large_mib:.0f} MiB vs {small_mib:.0f} MiB "
                          f"({large_mib / small_mib:.2f}x)", large_mib <= GOAL_PEAK_RATIO * small_mib))
    if gate is not None:
        found.append(Goal(f"gate decision, {gate.large_events:,} vs {gate.small_events} events",
                          f"<= {GOAL_GATE_RATIO}x", f"{gate.large.median:.3f} s vs {gate.small.median:.3f} s "
                          f"({gate.ratio:.2f}x)", gate.ratio <= GOAL_GATE_RATIO))
    if appends is not None:
        worst = min(appends.plain.eps, appends.keyed.eps)
        found.append(Goal("append with fsync (with and without key)", f">= {GOAL_APPEND_EPS} events/s",
                          f"{worst:,.0f} events/s (slower of the two)", worst >= GOAL_APPEND_EPS))
    return found


def render_table(sizes: list[SizeResult], appends: AppendResult | None, goal_list: list[Goal],
                 gate: GateResult | None = None) -> str:
    head = f"{'ledger':>10}  {'measure':<34}{'median s':>9}{'min s':>8}{'max s':>8}{'events/s':>12}" \
           f"{'x base':>8}{'peak MiB':>10}"
    rows = [head, "-" * len(head)]
    for result in sizes:
        label = f"{result.events:,}"
        base = result.baseline.eps
        rows.append(_row(label, "verify_lines (in-process)", result.verify, base))
        rows.append(_row(label, "aidlc log verify (subprocess)", result.verify_cli, base))
        rows.append(_row(label, "baseline: json.loads per line", result.baseline, base))
        rows.append(_row(label, "floor: read + sha256 per line", result.floor, base))
        rows.append(_row(label, "bare chain: hash + link per line", result.bare, base))
    if appends is not None:
        label = f"{appends.ledger_events:,}"
        base = appends.baseline.eps
        rows.append(_row(label, f"Ledger.append x{appends.appends:,}", appends.plain, base))
        rows.append(_row(label, f"Ledger.append x{appends.appends:,}, key", appends.keyed, base))
        rows.append(_row(label, "  the same, after the 1st append", appends.plain_steady, base))
        rows.append(_row(label, "  the same with key, after the 1st", appends.keyed_steady, base))
        rows.append(_row(label, "baseline: write + fsync", appends.baseline, base))
        rows.append(f"{'':>10}  first append of a fresh Ledger (checks the whole file): "
                    f"{appends.first_append_s * 1000:,.0f} ms (median)")
    if gate is not None:
        for events, stat, first in ((gate.small_events, gate.small, gate.small_first_s),
                                    (gate.large_events, gate.large, gate.large_first_s)):
            rows.append(f"{events:>10,}  {'aidlc gate approve (subprocess)':<34}{stat.median:9.3f}{stat.min:8.3f}"
                        f"{stat.max:8.3f}{'':>12}{stat.median / gate.small.median:8.2f}{'-':>10}")
            rows.append(f"{'':>10}  the first decision after the ledger was replaced: {first * 1000:,.0f} ms")
    rows.append("")
    rows.append("x base: events/s divided by the baseline's events/s (higher is faster); for the gate decisions,\n"
                "seconds divided by the seconds of the decision on the small ledger. peak MiB: peak RSS of a\n"
                "fresh process doing that work alone (interpreter and imports included). The floor is the work\n"
                "no verification of a hash chain can skip: verify_lines at x floor = its events/s over the floor's.\n"
                "The bare chain is the least a Python verifier reading lines this way does (hash and link, nothing\n"
                "reported): the most events/s such a verifier reaches on this machine.")
    rows += [f"{r.events:>10,}  verify_lines at {r.verify.eps / r.floor.eps:.2f}x the floor, "
             f"{r.verify.eps / r.bare.eps:.2f}x the bare chain (which is at {r.bare.eps / r.floor.eps:.2f}x the floor)"
             for r in sizes]
    for goal in goal_list:
        rows.append(f"{'PASS' if goal.met else 'MISS'}  {goal.name}: {goal.target}; measured {goal.measured}")
    return "\n".join(rows)


def _row(label: str, name: str, stat: Throughput, base_eps: float) -> str:
    peak = f"{stat.peak_mib:10.0f}" if stat.peak_mib is not None else f"{'-':>10}"
    return (f"{label:>10}  {name:<34}{stat.median:9.3f}{stat.min:8.3f}{stat.max:8.3f}{stat.eps:12,.0f}"
            f"{stat.eps / base_eps:8.2f}{peak}")


def profile_verify(root: Path, top: int = 15) -> str:
    ledger = Ledger(root / BANK / LEDGER_FILE, root)
    profiler = cProfile.Profile()
    profiler.runcall(verify_in_process, ledger)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="100000,1000000", help="ledger sizes in events, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per measurement (median reported)")
    parser.add_argument("--appends", type=int, default=2000, help="events appended per append run (0: skip)")
    parser.add_argument("--gate", type=int, default=None, help="events of the large ledger a gate decision is "
                        f"timed on, against {GATE_SMALL} events (default: 100,000 or the largest size if smaller; "
                        "0: skip)")
    parser.add_argument("--gate-runs", type=int, default=7, help="timed decisions per ledger (median reported)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--profile", action="store_true", help="cProfile the verification of the largest ledger")
    parser.add_argument("--workdir", type=Path, help="where to write the ledgers (default: a temporary folder)")
    args = parser.parse_args(argv)
    args.size_list = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})
    if not args.size_list or min(args.size_list) < 1 or args.runs < 1 or args.appends < 0:
        parser.error("--sizes needs positive integers; --runs >= 1; --appends >= 0")
    if args.gate is None:
        args.gate = min(100_000, max(args.size_list)) if max(args.size_list) > GATE_SMALL else 0
    if (args.gate and not GATE_SMALL < args.gate <= max(args.size_list)) or args.gate_runs < 1:
        parser.error(f"--gate needs {GATE_SMALL} < N <= the largest --sizes, or 0; --gate-runs >= 1")
    return args


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    started = time.perf_counter()
    note(f"generating {max(args.size_list):,} events in {workdir} ...")
    roots = generate(workdir, args.size_list)
    generated = time.perf_counter() - started
    note(f"  {generated:.1f} s")
    probe = PeakProbe(workdir)
    sizes = []
    for size in args.size_list:
        note(f"verifying {size:,} events, {args.runs} runs ...")
        sizes.append(measure_size(probe, roots[size], size, args.runs, warm_up=size == args.size_list[0]))
    appends = None
    if args.appends:
        smallest = args.size_list[0]
        note(f"appending {args.appends:,} events to {smallest:,}, {args.runs} runs per mode ...")
        appends = measure_appends(workdir, roots[smallest], smallest, args.appends, args.runs)
    gate = None
    if args.gate:
        note(f"deciding a gate on {GATE_SMALL} and {args.gate:,} events ...")
        gate = measure_gate(probe, workdir, roots[max(args.size_list)], args.gate, args.gate_runs)
    goal_list = goals(sizes, appends, gate)
    return {
        "sizes": [asdict(r) | {"verify_eps": r.verify.eps, "verify_cli_eps": r.verify_cli.eps,
                               "baseline_eps": r.baseline.eps, "floor_eps": r.floor.eps, "bare_eps": r.bare.eps}
                  for r in sizes],
        "appends": None if appends is None else asdict(appends) | {
            "plain_eps": appends.plain.eps, "keyed_eps": appends.keyed.eps,
            "plain_steady_eps": appends.plain_steady.eps, "keyed_steady_eps": appends.keyed_steady.eps,
            "baseline_eps": appends.baseline.eps},
        "gate": None if gate is None else asdict(gate) | {"ratio": gate.ratio},
        "goals": [asdict(g) for g in goal_list],
        "profile": profile_verify(roots[args.size_list[-1]]) if args.profile else None,
        "environment": {"python": platform.python_version(), "machine": platform.machine(),
                        "cpus": os.cpu_count(), "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg")
                        else None, "generate_s": generated, "total_s": time.perf_counter() - started},
        "_objects": (sizes, appends, goal_list, gate),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix="aidlc-ledger-bench-", dir=args.workdir))
    else:
        workdir = Path(tempfile.mkdtemp(prefix="aidlc-ledger-bench-"))
    try:
        report = run(args, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    sizes, appends, goal_list, gate = report.pop("_objects")
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    env = report["environment"]
    print(f"aidlc ledger benchmark: Python {env['python']}, {env['cpus']} CPUs, load {env['load_average']:.2f}, "
          f"median of {args.runs} runs; generated in {env['generate_s']:.1f} s, total {env['total_s']:.0f} s\n")
    print(render_table(sizes, appends, goal_list, gate))
    if report["profile"]:
        print("\ncProfile of verify_lines on the largest ledger (by own time):\n" + report["profile"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
