"""Benchmark `aidlc bolt`: the harness's own time per step, with a zero-latency scripted model, against a bare
loop doing the same edits, commits and checks in the same run.

Usage::

    python benchmarks/bolt.py [--runs 5] [--json] [--workdir DIR]

What it does
------------
1. Builds a sample once (``aidlc init --git``, an intent -> unit -> story -> bolt chain, the inception gates
   approved by a person, ``src/pay/calc.py`` with a bug and a unittest that fails on it,
   ``policy.auto_approve_plan: [low, medium]`` so the whole loop runs in one call). Each run works on a copy.
2. The harness: ``aidlc.bolt.start.start`` in-process, from a clean tree to the walkthrough gate, with a
   provider that answers at once (a plan; a wrong first edit; the fixing repair): 3 model calls, 2 check
   rounds. Its overhead is the wall time minus the model's time and the check commands' time (both read
   from the run's own trace), shown with two denominators:
   * per model call (the "per step" goal, as it was first measured): the overhead / 3;
   * per loop step: the overhead / the state machine's handler runs from planning to the walkthrough gate,
     counted from the run's ``state_transition`` spans (every transition but the one out of INIT, which
     ``start`` makes): planning, plan gate, execute, verify, repair, verify, walkthrough = 7.
   The git processes and fsync calls of the bolt are counted (``subprocess.Popen`` and ``os.fsync`` wrapped in
   this benchmark only).
3. The same harness on a bolt with one more repair round (a second wrong edit): 4 model calls, 3 check
   rounds. The difference of the two overheads is what one Execute/Repair round with its Verify costs; the
   fixed part (start, planning, the plan gate, the walkthrough) is the first overhead minus two rounds.
4. The bare loop, the same work without the harness: write each edit, ``git commit -a``, run the check with
   ``subprocess.run``. Its overhead is its wall time minus its check time, per step.
5. Median over ``--runs``, after one run of each that is not counted (a process's first bolt also pays the
   imports, start-up time every aidlc command pays, not the harness's work). The goals: harness overhead per
   step <= 50 ms (per model call, and per loop step), and the whole bolt <= 2 s beyond the check commands' own
   time. Tokens per bolt are the scripted usage (11 + 7 per call).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BOLT = "001-checkout-api"
CALC = "src/pay/calc.py"
BUGGY = "def total(prices):\n    result = 0\n    for price in prices:\n        result -= price\n    return result\n"
WRONG = BUGGY.replace("result -= price", "result = price")
WRONGER = BUGGY.replace("result -= price", "result += 2 * price")  # another failure: the loop goes on
FIXED = BUGGY.replace("result -= price", "result += price")
TEST = ("import unittest\n\nfrom src.pay.calc import total\n\n\nclass TotalTest(unittest.TestCase):\n"
        "    def test_adds_prices(self):\n        self.assertEqual(total([1, 2, 3]), 6)\n")
CHECK = [sys.executable, "-m", "unittest", "discover", "-s", "tests", "-t", ".", "-q"]
PLAN = {"summary": "Make total() add the prices.", "risk_level": "low", "risks": [], "rollback": "git revert",
        "files": [{"path": CALC, "action": "modify", "reason": "total() subtracts"}],
        "tests": [{"command": "python -m unittest", "purpose": "the total test"}]}


def aidlc(root: Path, *args: str) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    env.pop("CI", None)
    done = subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(root), *args], capture_output=True,
                          text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"aidlc {' '.join(args)}: {done.stderr}")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def build_sample(root: Path) -> None:
    aidlc(root.parent, "init", "--git", str(root), "--name", "Shop", "--type", "web-app")
    git(root, "config", "user.name", "Bench Mark")
    git(root, "config", "user.email", "bench@example.org")
    aidlc(root, "new", "intent", "Checkout")
    aidlc(root, "new", "requirement", "Pay by card", "--intent", "1",
          "--criterion", "**Given** a cart, **When** I pay by card, **Then** an order is created")
    aidlc(root, "new", "unit", "Checkout API", "--requirements", "FR-1")
    aidlc(root, "new", "story", "Pay by card", "--unit", "checkout-api", "--requirements", "FR-1",
          "--criterion", "**Given** a cart, **When** I pay, **Then** an order exists")
    aidlc(root, "new", "bolt", "--unit", "001-checkout-api", "--stories", "001-pay-by-card", "--risk", "low",
          "--scope", "src/pay/**")
    for folder in ("src", "src/pay", "tests"):
        (root / folder).mkdir(exist_ok=True)
        (root / folder / "__init__.py").write_text("")
    (root / CALC).write_text(BUGGY)
    (root / "tests/test_calc.py").write_text(TEST)
    config = root / "aidlc.yaml"
    text = config.read_text().replace("verify: []", "verify:\n  - {name: tests, run: "
                                      "\"python -m unittest discover -s tests -t . -q\"}")
    config.write_text(text.replace("auto_approve_plan: []", "auto_approve_plan: [low, medium]"))
    (root / ".gitignore").write_text("__pycache__/\n.aidlc/\n")
    for stage in ("requirements", "units", "stories", "bolt-plan"):
        aidlc(root, "gate", "approve", "001-checkout", "--stage", stage)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "sample")


class ZeroLatencyModel:
    """A provider that answers at once: the plan when JSON is asked for, then a wrong edit, then the fix."""

    key = "scripted:zero-latency@local"

    def __init__(self, rounds: int = 2) -> None:
        self.edits = [(BUGGY, WRONG), (WRONG, FIXED)] if rounds == 2 else \
            [(BUGGY, WRONG), (WRONG, WRONGER), (WRONGER, FIXED)]

    def complete(self, messages: Any, *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: Any = None, tools: Any = None, timeout_s: float | None = None) -> Any:
        from aidlc.llm.base import Completion, Usage

        if response_format is not None:
            text = json.dumps(PLAN)
        else:
            old, new = self.edits.pop(0)
            before = "".join(line for line in old.splitlines(True) if line not in new.splitlines(True))
            after = "".join(line for line in new.splitlines(True) if line not in old.splitlines(True))
            text = f"{CALC}\n```python\n<<<<<<< SEARCH\n{before}=======\n{after}>>>>>>> REPLACE\n```\n"
        return Completion(text=text, usage=Usage(11, 7), model="zero-latency", target=self.key)


class Counted:
    """The git processes and fsync calls made while it is entered (wrapped here, never in aidlc)."""

    def __enter__(self) -> Counted:
        self.git = self.fsync = 0
        self._popen, self._fsync = subprocess.Popen.__init__, os.fsync
        counted = self

        def popen(process: Any, args: Any, *rest: Any, **options: Any) -> None:
            if isinstance(args, list | tuple) and args and args[0] == "git":
                counted.git += 1
            counted._popen(process, args, *rest, **options)

        def fsync(fd: int) -> None:
            counted.fsync += 1
            counted._fsync(fd)

        subprocess.Popen.__init__ = popen  # type: ignore[method-assign]
        os.fsync = fsync
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.Popen.__init__ = self._popen  # type: ignore[method-assign]
        os.fsync = self._fsync


def harness(root: Path, rounds: int = 2) -> dict[str, float]:
    from aidlc.bolt.start import start
    from aidlc.bolt.store import find_run
    from aidlc.workspace import Workspace

    with Counted() as counted:
        began = time.perf_counter()
        outcome = start(Workspace.open(root), BOLT, lambda: ZeroLatencyModel(rounds))
        wall = time.perf_counter() - began
    if outcome.state.status.value != "AWAIT_ACCEPTANCE":
        raise SystemExit(f"the harness ended {outcome.state.status.value}: {outcome.message}")
    spans = find_run(Workspace.open(root), BOLT).spans()
    model = sum(s.duration_s or 0 for s in spans if s.kind == "llm_call")
    checks = sum(s.duration_s or 0 for s in spans if s.kind == "check")
    loop_steps = sum(1 for s in spans if s.kind == "state_transition" and not s.name.startswith("INIT "))
    steps = outcome.state.budget.steps
    overhead = wall - model - checks
    return {"wall_s": wall, "model_s": model, "checks_s": checks, "steps": steps, "loop_steps": loop_steps,
            "tokens": outcome.state.budget.tokens, "overhead_s": overhead, "per_step_ms": overhead / steps * 1000,
            "per_loop_step_ms": overhead / loop_steps * 1000, "git_processes": counted.git,
            "fsyncs": counted.fsync}


def longer(root: Path) -> dict[str, float]:
    """The harness on a bolt with one more repair round."""
    return harness(root, rounds=3)


def bare(root: Path) -> dict[str, float]:
    with Counted() as counted:
        began, checks = time.perf_counter(), 0.0
        for text in (WRONG, FIXED):
            (root / CALC).write_text(text)
            git(root, "commit", "-qam", "step")
            check = time.perf_counter()
            subprocess.run(CHECK, cwd=root, capture_output=True, check=False)
            checks += time.perf_counter() - check
        wall = time.perf_counter() - began
    return {"wall_s": wall, "checks_s": checks, "overhead_s": wall - checks, "per_step_ms": (wall - checks) / 3 * 1000,
            "git_processes": counted.git}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(dir=args.workdir))
    try:
        sample = work / "sample" / "shop"
        sample.parent.mkdir(parents=True)
        build_sample(sample)
        rows: dict[str, list[dict[str, float]]] = {"harness": [], "longer": [], "bare": []}
        for number in range(-1, args.runs):  # run -1 warms up (imports, caches) and is not counted
            for name, measure in (("harness", harness), ("longer", longer), ("bare", bare)):
                copy = work / f"{name}-{number}"
                shutil.copytree(sample, copy, symlinks=True)
                row = measure(copy)
                if number >= 0:
                    rows[name].append(row)
        report = summarise(rows, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    h, b, parts = report["harness"], report["bare"], report["parts"]
    print(f"harness: {h['per_step_ms']:.1f} ms overhead per model call ({h['steps']} per bolt; median of {args.runs}), "
          f"{h['per_loop_step_ms']:.1f} ms per loop step ({h['loop_steps']} handler runs from planning to the "
          f"walkthrough gate)")
    print(f"  {h['overhead_s']:.2f} s beyond model and checks per bolt: fixed part (start, planning, plan gate, "
          f"walkthrough) {parts['fixed_ms']:.0f} ms + {parts['per_round_ms']:.0f} ms per Execute/Repair round with "
          f"its Verify (a bolt with one more round: {report['longer']['overhead_s']:.2f} s)")
    print(f"  per bolt: {h['git_processes']} git processes, {h['fsyncs']} fsync calls, {h['tokens']} tokens")
    print(f"bare loop: {b['per_step_ms']:.1f} ms per step ({b['git_processes']} git processes); "
          f"ratio harness/bare per step: {report['ratio']:.1f}x")
    for goal in report["goals"]:
        print(f"  {'PASS' if goal['passed'] else 'FAIL'}  {goal['name']}: {goal['value']}")


def summarise(rows: dict[str, list[dict[str, float]]], runs: int) -> dict[str, Any]:
    def median(name: str, key: str) -> float:
        return statistics.median(row[key] for row in rows[name])

    harness_row, longer_row, bare_row = ({key: median(name, key) for key in rows[name][0]}
                                         for name in ("harness", "longer", "bare"))
    ratio = harness_row["per_step_ms"] / bare_row["per_step_ms"] if bare_row["per_step_ms"] else float("inf")
    rounds = statistics.median(longer["overhead_s"] - harness["overhead_s"]
                               for harness, longer in zip(rows["harness"], rows["longer"], strict=True))
    parts = {"per_round_ms": rounds * 1000, "fixed_ms": (harness_row["overhead_s"] - 2 * rounds) * 1000}
    beyond = harness_row["wall_s"] - harness_row["checks_s"]
    return {"runs": runs, "harness": harness_row, "longer": longer_row, "bare": bare_row, "ratio": ratio,
            "parts": parts,
            "goals": [{"name": "harness overhead per step <= 50 ms",
                       "value": f"{harness_row['per_step_ms']:.1f} ms per model call",
                       "passed": harness_row["per_step_ms"] <= 50},
                      {"name": "harness overhead per loop step <= 50 ms",
                       "value": f"{harness_row['per_loop_step_ms']:.1f} ms per handler run",
                       "passed": harness_row["per_loop_step_ms"] <= 50},
                      {"name": "bolt start to the walkthrough gate <= 2 s beyond the checks",
                       "value": f"{beyond:.2f} s", "passed": beyond <= 2}]}


if __name__ == "__main__":
    main()
