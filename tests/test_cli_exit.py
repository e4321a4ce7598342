"""How the console script ends: a normal interpreter exit, without a last collection of what the command built."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.helpers import STORY1, Bank, in_one_process


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


def _piped(shell: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    """A shell pipeline with `aidlc` (this Python's) on the left; prints the left side's exit code last."""
    command = f"{sys.executable} -m aidlc"
    return subprocess.run(["bash", "-c", shell.replace("aidlc", command, 1) + '; echo "exit ${PIPESTATUS[0]}"'],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_a_reader_that_stops_reading_ends_nothing_badly() -> None:
    head = _piped("aidlc rules | head -1")
    assert head.stdout.startswith("AIDLC-") and head.stdout.splitlines()[-1] == "exit 0", head.stdout
    assert head.stderr == ""
    gone = _piped("aidlc rules -v | true")  # the reader is gone before the first line is written
    assert gone.stdout == "exit 0\n" and gone.stderr == ""


def test_after_the_reader_left_the_command_still_exits_with_its_own_code(bank: Bank) -> None:
    bank.set_key(STORY1, "status", "done")  # one error: exit code 1
    done = _piped(f"aidlc validate {bank.root} | true")
    assert done.stdout == "exit 1\n" and done.stderr == ""
    refused = _piped("aidlc --format json rules NOPE | true")
    assert refused.stdout == "exit 2\n" and "Traceback" not in refused.stderr


def test_a_rule_is_found_by_its_code_without_the_prefix() -> None:
    *found, unknown = in_one_process([["rules", code] for code in ("REF-001", "ref-001", "AIDLC-REF-001", "REF-999")],
                                     dict(os.environ))
    for done in found:
        assert done.returncode == 0 and done.stdout.startswith("AIDLC-REF-001 "), done.stderr
    assert unknown.returncode == 2 and "no rule REF-999" in unknown.stderr
