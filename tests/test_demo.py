"""The README's first command: the demo on the built-in sample runs end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_demo_builds_a_chain_passes_its_gates_then_catches_every_break(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "CI": "true"}
    proc = subprocess.run(["bash", str(ROOT / "examples/demo.sh"), str(tmp_path / "shop")], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    before, after = proc.stdout.split("== 4.")
    assert "validation passed: 6 files, 0 errors, 0 warnings" in before  # after the gates
    assert "ledger verified: memory-bank/events.jsonl, 7 events" in before
    assert "is agent. AI proposes, a human decides." in proc.stderr
    # The edited approvals no longer count (a line whose hash fails vouches for nothing): the intent is in
    # construction without them (LEDGER-004), besides the broken chain itself (LEDGER-001).
    for code in ("AIDLC-REF-001", "AIDLC-STATE-001", "AIDLC-STATE-002", "AIDLC-STATE-005", "AIDLC-SCHEMA-004",
                 "AIDLC-LEDGER-001", "AIDLC-LEDGER-002", "AIDLC-LEDGER-003", "AIDLC-LEDGER-004"):
        assert code in after, code
    assert "aidlc validate exited 1 and aidlc log verify exited 1" in after
    summary = json.loads(next(line for line in after.splitlines() if line.startswith('{"files"')))
    assert summary["errors"] == 9
    events = [json.loads(line) for line in (tmp_path / "shop/memory-bank/events.jsonl").read_text().splitlines()]
    decisions = [(e["subject"]["id"], e["stage"], e["actor"]["name"]) for e in events if e["type"] == "gate.decided"]
    assert decisions == [("001-checkout", s, "Ada Lovelace") for s in ("requirements", "units", "stories",
                                                                        "bolt-plan")] + [
        ("001-checkout-api", "plan", "Ada Lovelace"), ("001-checkout-api", "walkthrough", "Ada Lovelace")]
