"""The README's first command: the demo on the built-in sample runs end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_demo_builds_a_chain_then_catches_every_break(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "CI": "true"}
    proc = subprocess.run(["bash", str(ROOT / "examples/demo.sh"), str(tmp_path / "shop")], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.split("== 5.")
    assert "validation passed: 5 files, 0 errors, 0 warnings" in first
    for code in ("AIDLC-REF-001", "AIDLC-STATE-001", "AIDLC-STATE-002", "AIDLC-STATE-005", "AIDLC-SCHEMA-004",
                 "AIDLC-LEDGER-003"):
        assert code in second, code
    assert "aidlc validate exited 1" in second
    assert "\"errors\": 6" in second
