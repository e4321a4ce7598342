"""The verify runner against real processes: output kept bounded and hashed, timeouts that end the whole
process group, commands that cannot start, hostile JUnit reports, and the ledger event it yields."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aidlc.bolt import checks, counts
from aidlc.bolt.checks import check_environment, check_event, command_argv, run_check, run_checks
from aidlc.bolt.counts import read_junit
from aidlc.bolt.store import RunStore
from aidlc.errors import UsageError
from aidlc.events.ledger import Ledger
from aidlc.model.checks import CheckResult, TestCounts
from aidlc.model.config import VerifyCommand
from aidlc.model.events import Actor, ActorKind, EventType, Subject
from tests.helpers import run_cli

PY = shlex.quote(sys.executable)


def python(code: str) -> str:
    """A `run` string executing `code` with this interpreter."""
    return f"{PY} -c {shlex.quote(textwrap.dedent(code))}"


def check(run: str, name: str = "tests", **fields: object) -> VerifyCommand:
    return VerifyCommand(name=name, run=run, **fields)  # type: ignore[arg-type]


def alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


# -- running -------------------------------------------------------------------------------------------------------

def test_a_passing_check_keeps_its_output_and_digest(tmp_path: Path) -> None:
    result = run_check(tmp_path, check(python("import os; print('hello from', os.getcwd())")))
    assert result.passed and result.exit_code == 0 and not result.timed_out
    expected = f"hello from {tmp_path.resolve()}\n".encode()
    assert result.head == expected.decode() and result.tail == "" and result.omitted_bytes == 0
    assert result.output_sha256 == hashlib.sha256(expected).hexdigest() and result.output_bytes == len(expected)
    assert result.duration_s > 0 and result.notes == []


def test_a_failing_check_merges_stderr_and_keeps_its_exit_code(tmp_path: Path) -> None:
    result = run_check(tmp_path, check(python("""
        import sys
        print('out', flush=True)
        print('E   assert 1 == 2', file=sys.stderr, flush=True)
        sys.exit(3)
    """)))
    assert not result.passed and result.exit_code == 3
    assert result.head == "out\nE   assert 1 == 2\n"
    assert result.summary() == f"tests: failed (exit 3) in {result.duration_s:.2f} s"


def test_huge_output_is_read_to_the_end_kept_bounded_and_hashed(tmp_path: Path) -> None:
    # 20 MB through the pipe: a runner that waited before reading would deadlock at 64 KiB.
    result = run_check(tmp_path, check(python("""
        import sys
        out = sys.stdout.buffer
        for n in range(400_000):
            out.write(b'line %07d of the output, padded to be long enough ......\\n' % n)
    """)))
    lines = [b"line %07d of the output, padded to be long enough ......\n" % n for n in range(400_000)]
    whole = b"".join(lines)
    assert result.passed and result.output_bytes == len(whole)
    assert result.output_sha256 == hashlib.sha256(whole).hexdigest()
    assert result.head.startswith("line 0000000 ") and result.tail.endswith("line 0399999 of the output, "
                                                                           "padded to be long enough ......\n")
    assert len(result.head.encode()) <= checks.HEAD_BYTES and len(result.tail.encode()) <= checks.TAIL_BYTES
    assert result.head.count("\n") <= checks.HEAD_LINES and result.tail.count("\n") <= checks.TAIL_LINES
    assert result.tail.startswith("line ")  # a cut tail starts at a line
    assert result.omitted_bytes == result.output_bytes - len(result.head.encode()) - len(result.tail.encode())
    assert "bytes of output omitted" in result.excerpt()


def test_many_short_lines_keep_the_first_and_last_lines(tmp_path: Path) -> None:
    result = run_check(tmp_path, check(python("for n in range(200): print(n)")))
    assert result.head.splitlines() == [str(n) for n in range(60)]
    assert result.tail.splitlines() == [str(n) for n in range(140, 200)]
    assert result.excerpt().count("\n") == 121 + 1


def test_escape_sequences_and_controls_are_dropped_from_the_excerpt(tmp_path: Path) -> None:
    result = run_check(tmp_path, check(python(r"""
        import sys
        sys.stdout.write('\x1b[31mFAILED\x1b[0m test_x\r\n\x1b]0;title\x07bell\x07 nul\x00 \xff\n')
    """)))
    assert result.head == "FAILED test_x\nbell nul \xff\n"


def test_a_timeout_kills_the_whole_group_even_a_grandchild_that_ignores_sigterm(tmp_path: Path) -> None:
    # sh ignores SIGTERM and so does the sleep it starts (an ignored signal stays ignored across exec):
    # only the SIGKILL that follows the grace period ends them.
    run = "sh -c " + shlex.quote("trap '' TERM; sleep 600 & echo $$ $! $(cut -d' ' -f5 /proc/$$/stat) > pids; wait")
    result = run_check(tmp_path, check(run, timeout_s=1))
    assert result.timed_out and not result.passed and result.exit_code is None
    assert "timed out after 1 s" in result.notes[0]
    shell, grandchild, group = (int(pid) for pid in (tmp_path / "pids").read_text().split())
    assert not alive(shell) and not alive(grandchild)
    assert group != shell and live_members(group) == []  # the group the check ran in (the reaper's) is gone
    assert result.summary().startswith("tests: timed out in ")


def live_members(group: int) -> list[int]:
    """The processes of `group` that are not zombies (a zombie is dead; its reaping is init's business)."""
    members = []
    for proc in Path("/proc").iterdir():
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, ValueError):
            continue
        if proc.name.isdigit() and int(fields[2]) == group and fields[0] != "Z":
            members.append(int(proc.name))
    return members


def test_processes_a_check_leaves_behind_are_ended_and_do_not_hold_the_run(tmp_path: Path) -> None:
    run = "sh -c " + shlex.quote("sleep 600 & echo $! > pid; echo done")
    result = run_check(tmp_path, check(run))
    assert result.passed and result.head == "done\n"
    assert not alive(int((tmp_path / "pid").read_text()))


def test_a_process_that_escaped_the_group_and_holds_the_output_is_ended_with_the_check(tmp_path: Path) -> None:
    run = python("""
        import subprocess
        escaped = subprocess.Popen(['sleep', '600'], start_new_session=True)
        open('pid', 'w').write(str(escaped.pid))
        print('started', flush=True)
    """)
    result = run_check(tmp_path, check(run))
    escaped = int((tmp_path / "pid").read_text())
    try:
        assert result.passed and result.head == "started\n"
        assert not Path(f"/proc/{escaped}").exists()  # killed and reaped
    finally:
        if alive(escaped):
            os.kill(escaped, signal.SIGKILL)  # ours: the test started it


DETACHED = """
    import os, sys, time
    if os.fork() == 0:  # the classic daemon: a child in a new session forks again and leaves
        os.setsid()
        grandchild = os.fork()
        if grandchild == 0:
            sys.stdout.close()
            os.close(1)
            time.sleep(600)
        open('pid', 'w').write(str(grandchild))
        os._exit(0)
    os.wait()
    print('detached', flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux's")
def test_a_double_forked_process_in_its_own_session_is_ended_and_reaped_when_its_check_ends(tmp_path: Path) -> None:
    result = run_check(tmp_path, check(python(DETACHED)))
    detached = int((tmp_path / "pid").read_text())
    try:
        assert result.passed and result.head == "detached\n"
        assert not Path(f"/proc/{detached}").exists()  # neither running nor a zombie left for init
    finally:
        if alive(detached):
            os.kill(detached, signal.SIGKILL)


def test_an_interrupted_run_ends_the_check_group(tmp_path: Path) -> None:
    script = tmp_path / "runner.py"
    script.write_text(textwrap.dedent(f"""
        import signal, sys
        from pathlib import Path
        from aidlc.bolt.checks import run_check
        from aidlc.model.config import VerifyCommand
        # A test run started in the background (`&`, nohup) ignores SIGINT, and so would this child: Ctrl-C's way.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        run = "sh -c " + {shlex.quote("sleep 600 & echo $! > pid; echo ready; wait")!r}
        try:
            run_check(Path(sys.argv[1]), VerifyCommand(name='slow', run=run, timeout_s=600))
        except KeyboardInterrupt:
            print('interrupted', flush=True)
            sys.exit(130)
    """))
    runner = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE, text=True)
    pid_file = tmp_path / "pid"
    try:
        for _ in range(6000):  # bounded: at most 60 s
            if pid_file.exists() and pid_file.read_text().strip():
                break
            subprocess.run(["sleep", "0.01"], check=True)
        runner.send_signal(signal.SIGINT)
        out, _ = runner.communicate(timeout=60)
    finally:
        runner.kill()
    assert runner.returncode == 130 and out == "interrupted\n"
    assert not alive(int(pid_file.read_text()))


def test_a_missing_command_is_a_failed_check_that_says_why(tmp_path: Path) -> None:
    result = run_check(tmp_path, check("no-such-tool-here --all"))
    assert not result.passed and result.exit_code is None and not result.timed_out
    assert result.notes == ["no-such-tool-here: command not found (neither on PATH nor a file relative to the "
                            "repository root); install it, or fix `run` in aidlc.yaml"]
    assert result.summary().startswith("tests: did not start")


def test_a_file_that_is_not_executable_is_a_failed_check(tmp_path: Path) -> None:
    (tmp_path / "check.sh").write_text("#!/bin/sh\nexit 0\n")
    result = run_check(tmp_path, check("./check.sh"))
    assert not result.passed and "./check.sh: not executable" in result.notes[0]


def test_a_script_relative_to_the_repository_runs_there(tmp_path: Path) -> None:
    script = tmp_path / "scripts" / "check.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho piped | tr a-z A-Z\n")
    script.chmod(0o755)
    assert run_check(tmp_path, check("./scripts/check.sh")).head == "PIPED\n"


def test_shell_syntax_is_not_interpreted_and_the_note_says_so(tmp_path: Path) -> None:
    result = run_check(tmp_path, check(python("import sys; print(sys.argv[1:])") + " | cat > out.txt"))
    assert result.passed and result.head == "['|', 'cat', '>', 'out.txt']\n"
    assert not (tmp_path / "out.txt").exists()
    assert "runs without a shell" in result.notes[0]


def test_unsplittable_or_empty_commands(tmp_path: Path) -> None:
    result = run_check(tmp_path, check("pytest 'unclosed"))
    assert not result.passed and "cannot split" in result.notes[0] and "No closing quotation" in result.notes[0]
    with pytest.raises(Exception, match="`run` is empty"):
        command_argv(check("   "))


def test_the_check_gets_the_listed_variables_only_and_never_a_model_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-000000000000000000000000")
    monkeypatch.setenv("AIDLC_LLM_MODEL", "some-model")
    monkeypatch.setenv("DEPLOY_TOKEN", "d" * 20)
    monkeypatch.setenv("SSH_AUTH_SOCK", "/run/user/1000/agent.sock")
    monkeypatch.setenv("ORDINARY_SETTING", "not listed")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    show = python("import os; print(sorted(k for k in os.environ if k not in ('LC_CTYPE', 'PWD')))")
    allowed = sorted(name for name in os.environ if name in checks.CHECK_VARIABLES or name.startswith("LC_"))
    assert run_check(tmp_path, check(show)).head == f"{allowed}\n"
    named = check(show, env=["DEPLOY_TOKEN", "ORDINARY_SETTING", "OPENAI_API_KEY", "AIDLC_LLM_MODEL"])
    assert run_check(tmp_path, named).head == f"{sorted([*allowed, 'DEPLOY_TOKEN', 'ORDINARY_SETTING'])}\n"
    assert "PATH" in allowed and "SSH_AUTH_SOCK" not in allowed


def test_a_check_named_in_aidlc_yaml_gets_its_env(tmp_path: Path) -> None:
    from aidlc.model.config import Config

    config = Config.model_validate({"verify": [{"name": "db", "run": "pytest", "env": ["DATABASE_URL"]}]})
    assert check_environment(config.verify[0], {"DATABASE_URL": "postgres://x", "AWS_SECRET_ACCESS_KEY": "y" * 40,
                                                "PATH": "/bin"}) == {"DATABASE_URL": "postgres://x", "PATH": "/bin"}


def test_secrets_the_check_prints_are_redacted_but_the_digest_covers_the_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_PASSWORD", "hunter2-but-longer")
    result = run_check(tmp_path, check(python("import os; print('pw', os.environ['DATABASE_PASSWORD'])"),
                                       env=["DATABASE_PASSWORD"]))
    assert result.head == "pw [REDACTED:DATABASE_PASSWORD]\n"
    assert result.output_sha256 == hashlib.sha256(b"pw hunter2-but-longer\n").hexdigest()


def test_checks_run_in_order_and_stop_at_the_first_failure_when_asked(tmp_path: Path) -> None:
    def step(name: str, code: int) -> VerifyCommand:
        return check(python(f"open('log', 'a').write('{name} '); raise SystemExit({code})"), name=name)

    listed = [step("lint", 0), step("types", 1), step("tests", 0)]
    assert [r.passed for r in run_checks(tmp_path, listed)] == [True, False, True]
    assert (tmp_path / "log").read_text() == "lint types tests "
    assert [r.name for r in run_checks(tmp_path, listed, stop_on_failure=True)] == ["lint", "types"]


# -- JUnit ---------------------------------------------------------------------------------------------------------

def junit_check(tmp_path: Path, xml: str | bytes, rel: str = "reports/junit.xml") -> CheckResult:
    """A check that writes `xml` to `rel` and exits 0."""
    data = xml.encode() if isinstance(xml, str) else xml
    (tmp_path / "content.bin").write_bytes(data)
    run = python(f"import os, shutil; os.makedirs(os.path.dirname({rel!r}) or '.', exist_ok=True); "
                 f"shutil.copyfile('content.bin', {rel!r})")
    return run_check(tmp_path, check(run, junit=rel))


EXPECTED = "a report written by this run counting at least one test was expected: the check fails"


def expected(rel: str) -> str:
    return f"; aidlc.yaml's verify 'tests' sets `junit: {rel}`, so {EXPECTED}"


@pytest.mark.parametrize("xml", ['<testsuites tests="0"/>', "<testsuites/>", "<testsuite></testsuite>",
                                 '<testsuite tests="0" failures="0"><testcase name="x"/></testsuite>'])
def test_a_junit_report_that_counts_no_test_fails_the_check(tmp_path: Path, xml: str) -> None:
    result = junit_check(tmp_path, xml)
    assert result.exit_code == 0 and not result.passed and result.tests is not None and result.tests.total == 0
    assert result.notes == [f"JUnit report reports/junit.xml: counts no test{expected('reports/junit.xml')}"]


def test_junit_counts_from_a_real_pytest_run(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent("""
        import pytest

        def test_ok(): assert True
        def test_also_ok(): assert 1 + 1 == 2
        def test_broken(): assert 1 == 2
        @pytest.mark.skip(reason="later")
        def test_later(): pass
    """))
    run = f"{PY} -m pytest -q -p no:cacheprovider --junitxml=out/junit.xml test_sample.py"
    result = run_check(tmp_path, check(run, junit="out/junit.xml"))
    assert result.exit_code == 1 and not result.passed
    assert result.tests == TestCounts(total=4, failures=1, errors=0, skipped=1)
    assert result.summary().endswith("; 4 tests, 1 failures, 0 errors, 1 skipped")


def test_junit_root_attributes_win_over_suites(tmp_path: Path) -> None:
    result = junit_check(tmp_path, '<testsuites tests="7" failures="0" errors="0" skipped="2">'
                                   '<testsuite tests="1"/></testsuites>')
    assert result.tests == TestCounts(total=7, failures=0, errors=0, skipped=2) and result.passed


def test_junit_suites_are_summed_and_cases_counted_where_a_suite_has_no_counts(tmp_path: Path) -> None:
    xml = """<?xml version="1.0" encoding="utf-8"?>
    <testsuites>
      <testsuite name="a" tests="3" failures="1" errors="0" skips="1"><testcase name="x"/></testsuite>
      <testsuite name="b">
        <testcase name="1"/>
        <testcase name="2"><failure message="no">trace &amp; more</failure></testcase>
        <testcase name="3"><skipped/></testcase>
        <testcase name="4"><error/><system-out>x</system-out></testcase>
        <testsuite name="nested"><testcase name="5"/></testsuite>
      </testsuite>
    </testsuites>"""
    result = junit_check(tmp_path, xml)
    assert result.tests == TestCounts(total=3 + 5, failures=2, errors=1, skipped=2)
    assert not result.passed and result.exit_code == 0
    assert "exit code 0, but its JUnit report counts 2 failures and 1 errors" in result.notes


def test_a_testsuite_root_counts(tmp_path: Path) -> None:
    result = junit_check(tmp_path, '<testsuite><testcase/><testcase><skipped/></testcase></testsuite>')
    assert result.tests == TestCounts(total=2, failures=0, errors=0, skipped=1) and result.passed


@pytest.mark.parametrize(("xml", "problem"), [
    ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
     '<testsuites tests="&lol2;"/>', "declares a DTD or entities"),
    ('<?xml version="1.0"?><!DOCTYPE t [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><testsuite>&xxe;</testsuite>',
     "declares a DTD or entities"),
    ('<!DOCTYPE testsuites SYSTEM "http://127.0.0.1:9/junit.dtd"><testsuites/>', "declares a DTD or entities"),
    ('<testsuite tests="3"><testcase></testsuite>', ":1: not well-formed XML (mismatched tag)"),
    ('<testsuite tests="&undefined;"/>', "not well-formed XML (undefined entity)"),
    ('<html><body>not a report</body></html>', "its root element is <html>"),
    ('<testsuite tests="three"/>', "tests='three' is not a count"),
    ('<testsuites tests="1" failures="-1"/>', "failures='-1' is not a count"),
    ('<testsuite tests="\u00b2"/>', "tests='\u00b2' is not a count"),  # a digit to str.isdigit, none to int()
    (b'\xff\xfe<\x00', "not well-formed XML"),
    ("", "not well-formed XML (no element found)"),
])
def test_hostile_or_broken_junit_fails_the_check_and_says_why(tmp_path: Path, xml: str | bytes, problem: str) -> None:
    result = junit_check(tmp_path, xml)
    assert result.exit_code == 0 and result.tests is None and not result.passed  # exit 0 proves nothing here
    assert any(problem in note and note.startswith("JUnit report reports/junit.xml") and EXPECTED in note
               for note in result.notes), result.notes
    assert "[aidlc] JUnit report reports/junit.xml" in result.excerpt()  # what the model and the report show


def test_a_junit_report_larger_than_the_limit_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(counts, "MAX_JUNIT_BYTES", 10_000)
    xml = "<testsuite>" + "<testcase/>" * 2_000 + "</testsuite>"
    result = junit_check(tmp_path, xml)
    assert result.tests is None and "22,023 bytes, more than 10,000; not read" in result.notes[0]


def test_a_large_junit_report_within_the_limit_is_counted(tmp_path: Path) -> None:
    xml = "<testsuites><testsuite>" + "<testcase><skipped/></testcase>" * 100_000 + "</testsuite></testsuites>"
    assert junit_check(tmp_path, xml).tests == TestCounts(total=100_000, failures=0, errors=0, skipped=100_000)


def test_a_junit_path_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "junit.xml").write_text('<testsuite tests="5"/>')
    (repo / "link.xml").symlink_to(tmp_path / "junit.xml")
    for rel in ("../junit.xml", "link.xml", str(tmp_path / "junit.xml")):
        result = run_check(repo, check(python("pass"), junit=rel))
        assert result.tests is None and not result.passed
        assert result.notes == [f"JUnit report {rel}: outside the repository; not read{expected(rel)}"]


def test_a_fifo_at_the_junit_path_is_not_opened_for_reading(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "junit.xml")
    result = run_check(tmp_path, check(python("pass"), junit="junit.xml"))
    assert result.tests is None and not result.passed
    assert result.notes == [f"JUnit report junit.xml: not a regular file; not read{expected('junit.xml')}"]


def test_a_stale_or_missing_junit_report_fails_the_check(tmp_path: Path) -> None:
    (tmp_path / "junit.xml").write_text('<testsuite tests="5"/>')
    result = run_check(tmp_path, check(python("pass"), junit="junit.xml"))
    assert result.tests is None and "unchanged since before the check ran (a stale report)" in result.notes[0]
    assert not result.passed and result.exit_code == 0
    result = run_check(tmp_path, check(python("pass"), junit="none.xml"))
    assert not result.passed and result.notes == [f"JUnit report none.xml: the check wrote none{expected('none.xml')}"]
    assert read_junit(tmp_path, "junit.xml") == (TestCounts(total=5, failures=0, errors=0, skipped=0), None)


# -- the ledger ----------------------------------------------------------------------------------------------------

def test_a_check_result_appends_as_a_verifiable_event_without_output_text(repo: Path) -> None:
    printing = python("print(' '.join(['SECRET', 'OUTPUT', 'TEXT'])); raise SystemExit(1)")
    result = run_check(repo, check(printing, name="unit"))
    git = ["git", "-C", str(repo), "-c", "user.name=Ada", "-c", "user.email=ada@example.org"]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True, capture_output=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    ledger = Ledger.of_bank(repo, "memory-bank")
    appended = ledger.append(EventType.check_recorded, Actor(kind=ActorKind.agent, name="aidlc"),
                             key="run_1:verify-1:unit",
                             **check_event(result, commit, "run_1", Subject(kind="bolt", id="001-sample")))
    assert appended.recorded
    line = (repo / "memory-bank" / "events.jsonl").read_text().splitlines()[-1]
    assert "SECRET OUTPUT TEXT" not in line
    event = json.loads(line)
    assert event["subject"] == {"kind": "bolt", "id": "001-sample"} and event["commit"] == commit
    assert event["run"] == "run_1" and event["type"] == "check.recorded"
    assert event["data"] == {"name": "unit", "command": result.command, "exit_code": 1, "passed": False,
                             "timed_out": False, "duration_ms": round(result.duration_s * 1000), "tests": None,
                             "output_sha256": result.output_sha256, "output_bytes": 19}
    verified = run_cli("log", "verify", cwd=repo)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_secret_in_the_command_is_redacted_in_the_event(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "tok-1234567890abcdef")
    result = CheckResult(name="smoke", command="smoke --token tok-1234567890abcdef", exit_code=0, passed=True,
                         timed_out=False, duration_s=0.5, head="", tail="", output_sha256="0" * 64, output_bytes=0,
                         omitted_bytes=0, tests=TestCounts(total=1, failures=0, errors=0, skipped=0))
    ledger = Ledger.of_bank(repo, "memory-bank")
    event = ledger.append(EventType.check_recorded, Actor(kind=ActorKind.agent, name="aidlc"),
                          **check_event(result, "a" * 40, None, Subject(kind="bolt", id="001-x"))).event
    assert event.datum("command") == "smoke --token [REDACTED:DEPLOY_TOKEN]" and event.datum("duration_ms") == 500
    assert event.datum("tests") == {"total": 1, "failures": 0, "errors": 0, "skipped": 0}
    assert "tok-1234567890abcdef" not in (repo / "memory-bank" / "events.jsonl").read_text()


def test_the_benchmark_runs_and_reports_a_ratio() -> None:
    bench = Path(__file__).resolve().parent.parent / "benchmarks" / "checks.py"
    done = subprocess.run([sys.executable, str(bench), "--runs", "3", "--json"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["runs"] == 3 and report["bare"]["median"] > 0 and report["run_check"]["median"] > 0
    assert report["ratio"] == pytest.approx(report["run_check"]["median"] / report["bare"]["median"])


def test_a_check_printing_a_closing_line_with_no_count_in_it_ends_as_a_result(tmp_path: Path) -> None:
    """`FAILED (failures=abc)` after unittest's `Ran 3 tests` once stopped the command running the check (a
    ValueError from int()); the check's result is now read without counts."""
    printed = "print('Ran 3 tests in 0.01s', '', 'FAILED (failures=abc)', sep=chr(10))"
    result = run_check(tmp_path, check(python(printed)))
    assert result.passed and result.exit_code == 0 and result.tests is None


@pytest.mark.parametrize(("output", "counts"), [
    ("....\n4 passed in 0.12s\n", (4, 0, 0, 0)),
    ("== 1 failed, 2 passed, 1 skipped, 1 error in 0.30s ==\n", (5, 1, 1, 1)),
    ("-" * 70 + "\nRan 4 tests in 0.001s\n\nOK (skipped=1)\n", (4, 0, 0, 1)),
    ("Ran 3 tests in 0.01s\n\nFAILED (failures=1, errors=1)\n", (3, 1, 1, 0)),
    ("ok   total([]) == 0\n3 passed, 0 failed\n", (3, 0, 0, 0)),
    ("no runner here\nall good\n", None),
    # the checked code prints what it likes: numbers that are no counts make no closing line
    ("Ran 3 tests in 0.01s\n\nFAILED (failures=abc)\n", None),
    ("Ran 3 tests in 0.01s\n\nOK (skipped=-5)\n", None),
    ("9999999999999 passed in 0.10s\n", None),
    ("\u0663 passed in 0.10s\n", None),  # an Arabic-Indic three: a digit to `\\d` and to int(), no runner's
])
def test_the_runners_closing_line_gives_the_test_counts(output: str, counts: tuple[int, ...] | None) -> None:
    from aidlc.bolt.counts import runner_counts

    found = runner_counts(output)
    assert (None if found is None else (found.total, found.failures, found.errors, found.skipped)) == counts


# A run's state.json as aidlc wrote it before its verify rounds were typed: each round a plain object of stage,
# commit and results (each result CheckResult's JSON).
STATE_BEFORE_TYPED_ROUNDS = {
    "v": 1, "run_id": "run-20261201T120000-abcdef", "bolt": "001-checkout-api", "goal": "fix total()",
    "status": "AWAIT_ACCEPTANCE", "created": "2026-12-01T12:00:00Z", "updated": "2026-12-01T12:01:00Z",
    "branch": "aidlc/001-checkout-api", "base_commit": "a" * 40, "last_commit": "c" * 40, "repairs": 1,
    "checks": [
        {"stage": "execute", "commit": "b" * 40, "results": [
            {"name": "tests", "command": "python -m unittest", "exit_code": 1, "passed": False, "timed_out": False,
             "duration_s": 0.41, "head": "F\nFAIL: test_adds_prices\n", "tail": "", "output_sha256": "d" * 64,
             "output_bytes": 23, "omitted_bytes": 0,
             "tests": {"total": 1, "failures": 1, "errors": 0, "skipped": 0}, "notes": []}]},
        {"stage": "repair-1", "commit": "c" * 40, "results": [
            {"name": "tests", "command": "python -m unittest", "exit_code": 0, "passed": True, "timed_out": False,
             "duration_s": 0.38, "head": "OK\n", "tail": "", "output_sha256": "e" * 64, "output_bytes": 3,
             "omitted_bytes": 0, "tests": None, "notes": []}]},
    ],
}


def test_a_state_written_before_the_rounds_were_typed_loads_and_saves_again(tmp_path: Path) -> None:
    store = RunStore(tmp_path, "run-20261201T120000-abcdef")
    store.folder.mkdir(parents=True)
    store.state_file.write_text(json.dumps(STATE_BEFORE_TYPED_ROUNDS, indent=2))

    state = store.load()

    failed, passed = state.checks
    assert (failed.stage, failed.commit, passed.stage) == ("execute", "b" * 40, "repair-1")
    assert failed.failing()[0].tests == TestCounts(total=1, failures=1, errors=0, skipped=0)
    assert failed.failing()[0].excerpt() == "F\nFAIL: test_adds_prices\n" and passed.failing() == []
    store.save(state)
    assert store.load().checks == state.checks  # saved as it was read (a result without counts or exit code too)


def test_a_verify_round_with_a_result_that_is_not_a_check_result_is_refused(tmp_path: Path) -> None:
    broken = {**STATE_BEFORE_TYPED_ROUNDS, "checks": [{"stage": "execute", "commit": "b" * 40,
                                                       "results": [{"name": "tests", "passed": "maybe"}]}]}
    store = RunStore(tmp_path, "run-20261201T120000-abcdef")
    store.folder.mkdir(parents=True)
    store.state_file.write_text(json.dumps(broken))

    with pytest.raises(UsageError, match=r"state\.json: not a run state aidlc wrote"):
        store.load()
