"""benchmarks/bolt.py runs end to end at one run: it stays runnable and reports what it promises.
No timing is asserted (numbers depend on the machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole-program runs: .ci/run runs them with -m slow

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "bolt.py"


def test_the_bolt_benchmark_runs_a_whole_bolt_and_a_bare_loop(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCHMARK), "--runs", "1", "--json", "--workdir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    harness, longer = report["harness"], report["longer"]
    assert harness["steps"] == 3 and harness["tokens"] == 54 and (longer["steps"], longer["tokens"]) == (4, 72)
    # planning, plan gate, execute, verify, repair, verify, walkthrough; one more repair and verify
    assert (harness["loop_steps"], longer["loop_steps"]) == (7, 9)
    assert harness["checks_s"] > 0 and report["bare"]["per_step_ms"] > 0 and report["ratio"] > 0
    assert set(report["parts"]) == {"fixed_ms", "per_round_ms"}
    # Counts, not times: a bolt's git processes and fsyncs do not depend on the machine.
    # The plan and gate guards read git; state.json is flushed after each model answer (3), so that what the run's
    # ledger events record it spent is never more than state.json holds after a crash; each edit answer's digest is
    # appended to the ledger (edits.proposed, 2) before the answer is saved, so that a resume applies it only as given.
    # Each round of checks reads what git reads the history by before and after it (1 process each time, 4 a bolt),
    # so that code a check runs cannot move HEAD under the run unseen; the walkthrough reads the bolt's diff once for
    # the lines that silence a check (1).
    assert harness["git_processes"] <= 27 and harness["fsyncs"] <= 55
    assert [goal["name"] for goal in report["goals"]] == ["harness overhead per step <= 50 ms",
                                                          "harness overhead per loop step <= 50 ms",
                                                          "bolt start to the walkthrough gate <= 2 s beyond the checks"]
    assert report["goals"][0]["value"].endswith("ms per model call")
