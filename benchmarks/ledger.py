"""Benchmark the ledger (memory-bank/events.jsonl): verification and appends, against raw baselines.

Usage::

    python benchmarks/ledger.py [--sizes 100000,1000000] [--runs 3] [--appends 2000] [--json] [--profile]
                                [--workdir DIR]

What it does
------------
1. Generates one ledger of the largest size in a temporary folder (deterministic: a counter, no clock, no
   randomness), with the mix a busy repository records: ``check.recorded`` events from agents and CI with a
   check result in ``data`` (some with an idempotency key), ``gate.decided`` events from people with a
   fingerprint, evidence digests and a commit, ``run.started``/``run.finished``. Lines are built directly
   with ``aidlc.events.canonical`` (canonical JSON, sha256 of the event without ``hash``), not through
   ``Ledger.append``: worker processes serialise the events, this process chains them in order; the first
   lines are checked against ``line_of``/``event_hash`` so the shortcut cannot drift. Each smaller size is a
   prefix of it, which is itself a valid ledger.
2. For each size, median / min / max over ``--runs`` runs (every run reads the file from the page cache):

   * verify in-process: ``verify_lines(ledger.lines)``, the work of ``aidlc log verify`` without start-up.
   * verify as ``aidlc log verify`` in a subprocess of the installed console script (start-up included).
   * the baseline: ``json.loads`` of every line, read the same way, and nothing else.

   Peak RSS is a child's VmHWM, written at exit by a ``sitecustomize`` probe on its PYTHONPATH (``ru_maxrss``
   of a child starts at its parent's peak on Linux); for in-process verification, of a fresh interpreter
   doing that work once (this process keeps freed memory, so its own high-water mark would say little).
3. Appends, on a copy of the smallest ledger restored before every run: ``--appends`` events through
   ``Ledger.append`` (lock, check of what was added, one write, fsync) without a key and with a unique
   idempotency key each, by a fresh ``Ledger`` (so the first append checks the whole file: its latency and
   the rate of the appends after it are reported too). The baseline writes the same lines with ``os.write`` +
   ``os.fsync`` on an O_APPEND descriptor, without lock, hash or check.
4. Prints a table with events/s and the ratio to the baseline, and the goals: verify >= 200,000 events/s
   (in-process, every size) and append >= 500 events/s with fsync, each PASS or MISS. The goals are
   informational: exit code 0. ``--json`` prints one JSON document instead. ``--profile`` adds a cProfile of
   the in-process verification of the largest ledger.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
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
from pathlib import Path
from typing import Any

from measure import Stat, aidlc_executable, probed_env  # sibling module: benchmarks run as scripts

from aidlc.events.canonical import canonical, event_hash, line_of
from aidlc.events.ledger import LEDGER_FILE, Ledger
from aidlc.events.verify import verify_lines
from aidlc.model.events import GENESIS, Actor, ActorKind, EventType

GOAL_VERIFY_EPS = 200_000
GOAL_APPEND_EPS = 500
BANK = "memory-bank"
DIGESTS = [hashlib.sha256(str(n).encode()).hexdigest() for n in range(997)]  # a prime: no lock-step patterns
COMMITS = [hashlib.sha1(str(n).encode()).hexdigest() for n in range(101)]  # fake git commit shas
PEOPLE = [("Ada Lovelace", "ada@example.org"), ("Grace Hopper", "grace@example.org"),
          ("Edsger Dijkstra", "edsger@example.org")]
CHECKS = [("pytest", "pytest -q"), ("ruff", "ruff check ."), ("mypy", "mypy aidlc"), ("build", "python -m build")]
STAGES = ["plan", "design", "walkthrough"]

# --------------------------------------------------------------------------------------------------
# Synthetic ledger
# --------------------------------------------------------------------------------------------------


def synthetic_event(n: int) -> dict[str, Any]:
    """Event n (1-based) without seq, prev and hash: 1 run.started, 14 checks, 4 gate decisions, 1 run.finished
    in every 20, so about three quarters are checks."""
    bolt = f"{(n // 200) % 400:03d}-checkout-api"
    run = f"run_{n // 20:08x}"
    base: dict[str, Any] = {"v": 1, "id": f"evt_{0x18e000000000000 + n * 7919:x}{n % 65536:04x}",
                            "ts": f"2026-{1 + n // 2_600_000 % 12:02d}-{1 + n // 100_000 % 28:02d}T"
                                  f"{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.{n % 1_000_000:06d}Z",
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
                "commit": COMMITS[n % 101]}
    check, command = CHECKS[n % len(CHECKS)]
    event = {**base, "type": "check.recorded", "actor": {"kind": "ci" if n % 3 else "agent", "name": "ci"},
             "run": run, "data": {"check": check, "command": command, "exit": 0 if n % 11 else 1,
                                  "passed": 120 + n % 40, "failed": 0 if n % 11 else 1, "duration_ms": 800 + n % 5000,
                                  "output": {"path": f".aidlc/runs/{run}/{check}.log", "sha256": DIGESTS[n % 997]}}}
    if n % 2:
        event["key"] = f"{run}:{check}:{n}"
    return event


PREV_MARK = "f" * 64  # stands for `prev` while bodies are built in parallel; the chain pass puts the real one
_PREV_FIELD = b'"prev":"' + PREV_MARK.encode()
CHUNK = 20_000


def bodies(span: tuple[int, int]) -> list[bytes]:
    """Canonical events [start, end) with the placeholder prev: the costly part, run in worker processes."""
    out = []
    for n in range(*span):
        event = synthetic_event(n)
        event["seq"], event["prev"] = n, PREV_MARK
        out.append(canonical(event))
    return out


def chain_lines(count: int) -> Iterator[bytes]:
    """Canonical lines of a valid chain. The chain pass (one process, in order) puts each `prev` in place,
    takes the sha256 of the canonical event without `hash` and inserts `hash` where it sorts (right before
    `id`): exactly `line_of` of the event with its `event_hash`, which the first lines are checked against."""
    spans = [(start, min(start + CHUNK, count + 1)) for start in range(1, count + 1, CHUNK)]
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
                    event = {**synthetic_event(n), "seq": n, "prev": prev.decode()}
                    assert digest.decode() == event_hash(event), n
                    assert line == line_of({**event, "hash": digest.decode()}), n
                prev = digest
                yield line


def generate(workdir: Path, sizes: list[int]) -> dict[int, Path]:
    """One ledger per size (each a prefix of the largest), written in one pass. Returns size -> repo root."""
    roots = {size: workdir / f"ledger-{size}" for size in sizes}
    handles = {}
    for size, root in roots.items():
        (root / BANK).mkdir(parents=True)
        (root / "aidlc.yaml").write_text(f"version: 1\nmemory_bank: {BANK}\n", encoding="utf-8")
        handles[size] = open(root / BANK / LEDGER_FILE, "wb", buffering=1 << 20)  # noqa: SIM115
    try:
        for n, line in enumerate(chain_lines(max(sizes)), start=1):
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
root = Path(sys.argv[1])
assert verify_lines(Ledger(root / "memory-bank" / "events.jsonl", root).lines).ok
"""


def baseline_loads(ledger: Ledger) -> None:
    loads = json.loads
    for line in ledger.lines():
        loads(line)


def verify_in_process(ledger: Ledger) -> None:
    result = verify_lines(ledger.lines)
    if not result.ok:
        raise SystemExit(f"benchmark: the generated ledger does not verify: {result.problems[0]}")


@dataclass
class SizeResult:
    events: int
    bytes: int
    verify: Throughput
    verify_cli: Throughput
    baseline: Throughput


def measure_size(probe: PeakProbe, root: Path, size: int, runs: int, warm_up: bool) -> SizeResult:
    """Interleaved runs (verify, CLI, baseline), so drift hits all alike. The page cache is warm (the file was
    just written, then read by the peak-memory child); `warm_up` runs the CLI once first, to fill its bytecode
    cache: later sizes skip that (a warm-up of a large ledger costs as much as a run)."""
    ledger = Ledger(root / BANK / LEDGER_FILE, root)
    argv = [aidlc_executable(), "--repo", str(root), "log", "verify", "--format", "json"]
    _, verify_peak, _ = probe.run([sys.executable, "-c", PEAK_CODE, str(root)])
    if warm_up:
        probe.run(argv)
    samples: dict[str, list[float]] = {"verify": [], "cli": [], "baseline": []}
    cli_peaks: list[int] = []
    for _ in range(runs):
        samples["verify"].append(timed(lambda: verify_in_process(ledger)))
        cli_seconds, cli_peak, out = probe.run(argv)
        if json.loads(out)["events"] != size:
            raise SystemExit(f"benchmark: aidlc log verify counted {json.loads(out)['events']} events, not {size}")
        samples["cli"].append(cli_seconds)
        cli_peaks += [cli_peak] if cli_peak else []
        samples["baseline"].append(timed(lambda: baseline_loads(ledger)))
    peaks = {"verify": [verify_peak] if verify_peak else None, "cli": cli_peaks or None, "baseline": None}
    stats = {name: Throughput.of(seconds, peaks[name], events=size) for name, seconds in samples.items()}
    return SizeResult(size, ledger.path.stat().st_size, stats["verify"], stats["cli"], stats["baseline"])


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
                      run="run_bench", data={"check": "pytest", "exit": 0, "passed": 120 + n % 40, "n": n})
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


# --------------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------------


@dataclass
class Goal:
    name: str
    target: str
    measured: str
    met: bool


def goals(sizes: list[SizeResult], appends: AppendResult | None) -> list[Goal]:
    slowest = min(sizes, key=lambda r: r.verify.eps)
    found = [Goal("verify in-process, every size", f">= {GOAL_VERIFY_EPS:,} events/s",
                  f"{slowest.verify.eps:,.0f} events/s (slowest, {slowest.events:,} events)",
                  slowest.verify.eps >= GOAL_VERIFY_EPS)]
    if appends is not None:
        worst = min(appends.plain.eps, appends.keyed.eps)
        found.append(Goal("append with fsync (with and without key)", f">= {GOAL_APPEND_EPS} events/s",
                          f"{worst:,.0f} events/s (slower of the two)", worst >= GOAL_APPEND_EPS))
    return found


def render_table(sizes: list[SizeResult], appends: AppendResult | None, goal_list: list[Goal]) -> str:
    head = f"{'ledger':>10}  {'measure':<34}{'median s':>9}{'min s':>8}{'max s':>8}{'events/s':>12}" \
           f"{'x base':>8}{'peak MiB':>10}"
    rows = [head, "-" * len(head)]
    for result in sizes:
        label = f"{result.events:,}"
        base = result.baseline.eps
        rows.append(_row(label, "verify_lines (in-process)", result.verify, base))
        rows.append(_row(label, "aidlc log verify (subprocess)", result.verify_cli, base))
        rows.append(_row(label, "baseline: json.loads per line", result.baseline, base))
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
    rows.append("")
    rows.append("x base: events/s divided by the baseline's events/s (higher is faster). peak MiB: peak RSS of a\n"
                "fresh process doing that work alone (interpreter and imports included).")
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
    profiler.runcall(verify_lines, ledger.lines)
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
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--profile", action="store_true", help="cProfile the verification of the largest ledger")
    parser.add_argument("--workdir", type=Path, help="where to write the ledgers (default: a temporary folder)")
    args = parser.parse_args(argv)
    args.size_list = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})
    if not args.size_list or min(args.size_list) < 1 or args.runs < 1 or args.appends < 0:
        parser.error("--sizes needs positive integers; --runs >= 1; --appends >= 0")
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
    goal_list = goals(sizes, appends)
    return {
        "sizes": [asdict(r) | {"verify_eps": r.verify.eps, "verify_cli_eps": r.verify_cli.eps,
                               "baseline_eps": r.baseline.eps} for r in sizes],
        "appends": None if appends is None else asdict(appends) | {
            "plain_eps": appends.plain.eps, "keyed_eps": appends.keyed.eps,
            "plain_steady_eps": appends.plain_steady.eps, "keyed_steady_eps": appends.keyed_steady.eps,
            "baseline_eps": appends.baseline.eps},
        "goals": [asdict(g) for g in goal_list],
        "profile": profile_verify(roots[args.size_list[-1]]) if args.profile else None,
        "environment": {"python": platform.python_version(), "machine": platform.machine(),
                        "cpus": os.cpu_count(), "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg")
                        else None, "generate_s": generated, "total_s": time.perf_counter() - started},
        "_objects": (sizes, appends, goal_list),
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
    sizes, appends, goal_list = report.pop("_objects")
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    env = report["environment"]
    print(f"aidlc ledger benchmark: Python {env['python']}, {env['cpus']} CPUs, load {env['load_average']:.2f}, "
          f"median of {args.runs} runs; generated in {env['generate_s']:.1f} s, total {env['total_s']:.0f} s\n")
    print(render_table(sizes, appends, goal_list))
    if report["profile"]:
        print("\ncProfile of verify_lines on the largest ledger (by own time):\n" + report["profile"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
