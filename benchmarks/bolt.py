"""Benchmark `aidlc bolt`: the harness's own time per step, with a zero-latency scripted model, against a bare
loop doing the same edits, commits and checks in the same run.

Usage::

    python benchmarks/bolt.py [--runs 5] [--json] [--workdir DIR]

What it does
------------
1. Builds a sample once (``aidlc init --git``, an intent -> unit -> story -> bolt chain, the inception gates
   approved by a person, ``src/pay/calc.py`` with a bug and a unittest that fails on it,
   ``policy.auto_approve_plan: [low, medium]`` so the whole loop runs in one call). Each run works on a copy.
2. The harness: ``aidlc.exsecutio.runner.start`` in-process, from a clean tree to the walkthrough gate, with a
   provider that answers at once (a plan; a wrong first edit; the fixing repair): 3 model calls, 2 check
   rounds. Its overhead is the wall time minus the model's time and the check commands' time (both read
   from the run's own trace), divided by the model calls (steps).
3. The bare loop, the same work without the harness: write each edit, ``git commit -a``, run the check with
   ``subprocess.run``. Its overhead is its wall time minus its check time, per step.
4. Median over ``--runs``; the goals: harness overhead per step <= 50 ms, and the whole bolt
   <= 2 s beyond the check commands' own time. Tokens per bolt are the scripted usage (11 + 7 per call).
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

    def __init__(self) -> None:
        self.edits = [(BUGGY, WRONG), (WRONG, FIXED)]

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


def harness(root: Path) -> dict[str, float]:
    from aidlc.exsecutio import runner
    from aidlc.exsecutio.store import find_run

    began = time.perf_counter()
    outcome = runner.start(root, BOLT, ZeroLatencyModel)
    wall = time.perf_counter() - began
    if outcome.state.status.value != "AWAIT_ACCEPTANCE":
        raise SystemExit(f"the harness ended {outcome.state.status.value}: {outcome.message}")
    spans = find_run(root, BOLT).spans()
    model = sum(s.duration_s or 0 for s in spans if s.kind == "llm_call")
    checks = sum(s.duration_s or 0 for s in spans if s.kind == "check")
    steps = outcome.state.budget.steps
    return {"wall_s": wall, "model_s": model, "checks_s": checks, "steps": steps,
            "tokens": outcome.state.budget.tokens, "overhead_s": wall - model - checks,
            "per_step_ms": (wall - model - checks) / steps * 1000}


def bare(root: Path) -> dict[str, float]:
    began, checks = time.perf_counter(), 0.0
    for text in (WRONG, FIXED):
        (root / CALC).write_text(text)
        git(root, "commit", "-qam", "step")
        check = time.perf_counter()
        subprocess.run(CHECK, cwd=root, capture_output=True, check=False)
        checks += time.perf_counter() - check
    wall = time.perf_counter() - began
    return {"wall_s": wall, "checks_s": checks, "overhead_s": wall - checks, "per_step_ms": (wall - checks) / 3 * 1000}


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
        rows: dict[str, list[dict[str, float]]] = {"harness": [], "bare": []}
        for number in range(args.runs):
            for name, measure in (("harness", harness), ("bare", bare)):
                copy = work / f"{name}-{number}"
                shutil.copytree(sample, copy, symlinks=True)
                rows[name].append(measure(copy))
        report = summarise(rows, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    h, b = report["harness"], report["bare"]
    print(f"harness: {h['per_step_ms']:.1f} ms overhead per step (median of {args.runs}), "
          f"{h['overhead_s']:.2f} s beyond model and checks per bolt, {h['tokens']} tokens per bolt")
    print(f"bare loop: {b['per_step_ms']:.1f} ms per step; ratio harness/bare per step: {report['ratio']:.1f}x")
    for goal in report["goals"]:
        print(f"  {'PASS' if goal['passed'] else 'FAIL'}  {goal['name']}: {goal['value']}")


def summarise(rows: dict[str, list[dict[str, float]]], runs: int) -> dict[str, Any]:
    def median(name: str, key: str) -> float:
        return statistics.median(row[key] for row in rows[name])

    harness_row = {key: median("harness", key) for key in rows["harness"][0]}
    bare_row = {key: median("bare", key) for key in rows["bare"][0]}
    ratio = harness_row["per_step_ms"] / bare_row["per_step_ms"] if bare_row["per_step_ms"] else float("inf")
    return {"runs": runs, "harness": harness_row, "bare": bare_row, "ratio": ratio,
            "goals": [{"name": "harness overhead per step <= 50 ms", "value": f"{harness_row['per_step_ms']:.1f} ms",
                       "passed": harness_row["per_step_ms"] <= 50},
                      {"name": "bolt start to the walkthrough gate <= 2 s beyond the checks",
                       "value": f"{harness_row['wall_s'] - harness_row['checks_s']:.2f} s",
                       "passed": harness_row["wall_s"] - harness_row["checks_s"] <= 2}]}


if __name__ == "__main__":
    main()
