"""How the console script ends: a normal interpreter exit, without a last collection of what the command built."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers import STORY1, Bank


def test_the_process_exits_normally_and_leaves_its_objects_frozen(bank: Bank) -> None:
    bank.set_key(STORY1, "status", "shipped")  # one error: exit code 1
    probe = ("import atexit, gc, sys\n"
             "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0, file=sys.stderr))\n"
             "from aidlc.cli import main\n"
             f"sys.argv = ['aidlc', 'validate', {str(bank.root)!r}, '--format', 'json']\n"
             "main()\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["summary"]["errors"] == 1  # the whole document, flushed
    assert done.stderr.strip().splitlines()[-1] == "frozen at exit: True"  # atexit handlers still run
