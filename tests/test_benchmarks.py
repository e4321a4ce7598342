"""Both benchmarks run end to end at a tiny size: they stay runnable, and what they report is coherent.

No timing is asserted (numbers depend on the machine); the structure and the validator's verdict are.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def run(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--runs", "1", "--json", *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_validate_benchmark_measures_a_clean_generated_bank(tmp_path: Path) -> None:
    report = run("validate.py", "--sizes", "200", "--workdir", str(tmp_path))
    (size,) = report["sizes"]
    assert size["stories"] == 200 and size["summary"]["errors"] == 0
    shape = size["shape"]  # every story, unit brief and bolt is read, and nothing the floor does not read
    assert shape["stories"] + shape["units"] + shape["bolts"] <= size["summary"]["files"] <= size["floor_files"]
    for row in ("cli", "in_process", "floor_yaml_rs", "floor_pyyaml"):
        assert size[row]["runs"] == 1 and size[row]["median"] > 0
    assert {goal["passed"] for goal in report["goals"][:3]} == {None}  # neither 10,000 nor 1,000 stories measured
    assert set(report["startup"]) == {"aidlc --version", "aidlc --help", "python -c pass"}
    assert "aidlc --help under 2x aidlc --version" in [goal["name"] for goal in report["goals"]]


def test_the_ledger_benchmark_verifies_appends_and_decides(tmp_path: Path) -> None:
    report = run("ledger.py", "--sizes", "50,200", "--appends", "20", "--gate", "200", "--gate-runs", "1",
                 "--workdir", str(tmp_path))
    _, size = report["sizes"]
    assert size["events"] == 200 and size["verify"]["events"] == 200 and size["verify_eps"] > 0
    assert report["appends"]
    gate = report["gate"]
    assert (gate["small_events"], gate["large_events"]) == (10, 200) and gate["ratio"] > 0
    assert {goal["name"] for goal in report["goals"]} >= {"aidlc log verify in constant memory",
                                                          "gate decision, 200 vs 10 events"}


def test_the_aidlc_docs_benchmark_measures_a_clean_generated_history(tmp_path: Path) -> None:
    report = run("aidlc_docs_validate.py", "--units", "10", "--entries", "250", "--commits", "100",
                 "--workdir", str(tmp_path))
    result = report["result"]
    shape = result["shape"]
    assert (shape["units"], shape["commits"], shape["merges"]) == (10, 100, 1) and shape["entries"] >= 250
    summary = result["summary"]  # the generated repository follows every rule, and aidlc read what the floor read
    assert (summary["errors"], summary["warnings"], summary["infos"]) == (0, 0, 0)
    assert summary["files"] == result["floor_files"] == shape["files"] and result["log_bytes"] > 0
    for row in ("cli", "floor"):
        assert result[row]["runs"] == 1 and result[row]["median"] > 0
    assert report["goal"]["passed"] is None  # not the goal's size


def test_the_mcp_benchmark_compares_a_warm_status_with_a_fresh_process(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "mcp_status.py"), "--stories", "60", "--runs", "1",
                           "--json", "--workdir", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["stories"] == 60 and report["same_document"] is True
    assert report["fresh"]["runs"] == report["warm"]["runs"] == report["warm_validated"]["runs"] == 1
    changed = report["after_change"]
    assert changed["reflected"] is True and changed["stories_after"] != changed["stories_before"]
    assert report["ratio"] == report["warm"]["median"] / report["fresh"]["median"]
