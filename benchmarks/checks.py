"""Benchmark the verify runner: what `run_check` costs beyond running the command itself.

Usage::

    python benchmarks/checks.py [--runs 15] [--command "true"] [--json]

Runs the same trivial command (default ``true``) ``--runs`` times each way, interleaved so that the load of
a shared machine falls on both alike:

* bare: ``subprocess.run(argv, capture_output=True)``, the least a runner can do;
* run_check: ``aidlc.bolt.checks.run_check`` (shlex split, own process group, streamed output with
  head, tail and sha256, the group's end checked, secrets redacted, a CheckResult built).

Prints the median, min and max wall time of each, the median overhead in milliseconds and the ratio of the
medians. Nothing is asserted: the numbers depend on the machine. ``--json`` prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aidlc.bolt.checks import run_check
from aidlc.model.config import VerifyCommand


def stats(samples: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "runs": len(samples)}


def measure(command: str, runs: int) -> dict[str, Any]:
    argv = shlex.split(command)
    check = VerifyCommand(name="bench", run=command)
    bare: list[float] = []
    ours: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        run_check(root, check)  # warm: imports and the redaction patterns are compiled once per process
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(argv, cwd=root, capture_output=True, check=False)
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            result = run_check(root, check)
            ours.append(time.perf_counter() - started)
            if result.exit_code != 0:
                raise SystemExit(f"{command!r} failed: {result.summary()} {result.notes}")
    report = {"command": command, "runs": runs, "bare": stats(bare), "run_check": stats(ours)}
    report["ratio"] = report["run_check"]["median"] / report["bare"]["median"]
    report["overhead_ms"] = (report["run_check"]["median"] - report["bare"]["median"]) * 1000
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--command", default="true")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    report = measure(options.command, options.runs)
    if options.json:
        print(json.dumps(report, indent=2))
        return
    print(f"command: {report['command']}   runs: {report['runs']} each, interleaved")
    for row in ("bare", "run_check"):
        s = report[row]
        print(f"  {row:<10} median {s['median'] * 1000:8.2f} ms   min {s['min'] * 1000:8.2f}   "
              f"max {s['max'] * 1000:8.2f}")
    print(f"  overhead   {report['overhead_ms']:+.2f} ms per check (median), ratio {report['ratio']:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
