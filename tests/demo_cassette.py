"""The answers of the demo's cassette (examples/demo/cassette.jsonl), and how it is recorded.

They are written for the demo, in the exact format a model must answer in (a JSON plan, then SEARCH/REPLACE
edit blocks); they are not a model's output. The cassette is recorded through aidlc's real record path
(AIDLC_LLM_RECORD, as `--record`): the demo runs against the scripted OpenAI-protocol server of the tests,
which plays the model with these answers. Re-record after a change to the demo or to a prompt:

    python -m tests.demo_cassette
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.openai_server import ScriptedServer, chat

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples/demo.sh"
CASSETTE = ROOT / "examples/demo/cassette.jsonl"
MODEL = "written-for-the-demo"

PLAN = json.dumps({
    "summary": "Make total() add each price instead of subtracting it, so the shopper is charged the cart's total.",
    "files": [{"path": "src/checkout/cart.py", "action": "modify",
               "reason": "total() subtracts each price: a cart of 250 cents totals -250"}],
    "tests": [{"command": "python3 -m tests.check_cart",
               "purpose": "the total of an empty cart, of one item and of three items"}],
    "risks": ["a caller that made up for the negative total would now get it wrong the other way"],
    "rollback": "git revert the run's commits on branch aidlc/001-checkout-api",
    "risk_level": "low"})


def _edit(search: str, replace: str) -> str:
    return f"src/checkout/cart.py\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


# The first edit slips (`prices` for `price`): the check fails with a TypeError, and one repair round fixes it.
EXECUTE = _edit("        result -= price\n", "        result += prices\n")
REPAIR = _edit("        result += prices\n", "        result += price\n")
ANSWERS = [PLAN, EXECUTE, REPAIR]


def record(cassette: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Run the demo in `workdir` against the scripted server playing the model with ANSWERS; record every answer
    into `cassette` (replaced)."""
    cassette.unlink(missing_ok=True)
    with ScriptedServer() as server:
        # No usage in the answers: no model counted their tokens, so aidlc estimates them (and says so).
        server.push(*(chat(answer, model=MODEL, prompt_tokens=None) for answer in ANSWERS))
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
               "AIDLC_LLM_BASE_URL": server.url, "AIDLC_LLM_MODEL": MODEL, "AIDLC_LLM_RECORD": str(cassette)}
        proc = subprocess.run(["bash", str(DEMO), str(workdir / "shop")], env=env, capture_output=True, text=True)
        if len(server.bodies()) != len(ANSWERS):
            raise SystemExit(f"the demo asked {len(server.bodies())} questions for {len(ANSWERS)} answers\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        done = record(CASSETTE, Path(tmp))
    print(done.stdout[-1500:])
    print(f"recorded {CASSETTE.relative_to(ROOT)} (demo exit {done.returncode})")
