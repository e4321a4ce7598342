"""The ledger beyond its hash chain: times and commits that must be real, a last line that only lacks its
newline, files that are not a ledger at all, and the checkpoint that lets a decision skip re-reading a
large ledger without ever letting an edited one pass.

Real files, real git repositories (a shallow clone included), real `aidlc` subprocesses where the process
boundary matters; validate runs in-process on the clean bank of tests/helpers.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

import aidlc.events.state as state_module
from aidlc.cli import cli
from aidlc.events import checkpoint
from aidlc.events.ledger import Ledger, LedgerError
from aidlc.events.verify import CLOCK_SKEW, MAX_LINE, verify_lines
from aidlc.model.events import Actor, ActorKind, EventType
from aidlc.model.findings import Finding
from aidlc.model.types import Severity
from tests import forge
from tests.forge import T0, decision, event, stamp
from tests.helpers import Bank, complete_first_bolt, in_process

LEDGER = "memory-bank/events.jsonl"
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.org"}
CI = Actor(kind=ActorKind.ci, name="ci")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV, "HOME": str(root)})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def aidlc(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {"PATH": os.environ["PATH"], "HOME": str(root), **GIT_ENV, **(env or {})}
    done = in_process(["--repo", str(root), *args], full)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def write_ledger(bank: Bank, events: list[dict]) -> list[bytes]:
    lines = forge.chain(events)
    bank.write_bytes(LEDGER, b"".join(lines))
    return lines


def ledger_hits(bank: Bank, code: str) -> list[Finding]:
    return bank.findings(code)


# -- item 4: times --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("ts", "kind", "words"), [
    ("2026-01-05T09:03:00", "bad_ts", "is not an RFC 3339 time with a zone"),  # no zone
    ("2026-01-05", "bad_ts", "is not an RFC 3339 time with a zone"),
    ("yesterday", "bad_ts", "is not an RFC 3339 time with a zone"),
    ("2026-13-05T09:03:00Z", "bad_ts", "is not an RFC 3339 time with a zone"),
    (stamp(T0 - timedelta(hours=3)), "ts_before_prev", "3:02:00 before the event it follows (line 2)"),
    ("2999-01-01T00:00:00Z", "ts_in_future", "in the future, more than the 0:05:00 clock skew allowed"),
])
def test_a_bad_time_is_an_error_with_its_line(bank: Bank, ts: str, kind: str, words: str) -> None:
    write_ledger(bank, [event(1), event(2), event(3, ts=ts), event(4)])
    found = ledger_hits(bank, "AIDLC-LEDGER-009")
    assert [(f.path, f.line, f.severity) for f in found] == [(LEDGER, 3, Severity.error)]
    assert found[0].message.startswith(f"seq 3: {kind}: ") and words in found[0].message
    assert found[0].fix and "restore the ledger" in found[0].fix
    assert ledger_hits(bank, "AIDLC-LEDGER-001") == []  # the chain itself holds: only the time is wrong


def test_times_within_the_clock_skew_and_in_any_zone_are_fine(bank: Bank) -> None:
    slack = CLOCK_SKEW - timedelta(seconds=1)
    write_ledger(bank, [event(1), event(2), event(3, ts=stamp(T0 + timedelta(minutes=2) - slack)),
                        event(4, ts="2026-01-05T10:04:00+01:00"), event(5, ts="2026-01-05t09:05:00.5z"),
                        event(6, ts=stamp(datetime.now(UTC) + slack))])
    assert ledger_hits(bank, "AIDLC-LEDGER-009") == []


def test_log_verify_reports_a_bad_time_in_the_same_words(bank: Bank) -> None:
    write_ledger(bank, [event(1), event(2, ts=stamp(T0 - timedelta(days=2)))])
    (finding,) = ledger_hits(bank, "AIDLC-LEDGER-009")
    proc = aidlc(bank.root, "log", "verify")
    assert proc.returncode == 1
    assert f"✗ {LEDGER}:2 {finding.message}" in proc.stdout
    document = json.loads(aidlc(bank.root, "log", "verify", "--format", "json").stdout)
    assert document["ok"] is False and document["problem"]["kind"] == "ts_before_prev"
    assert finding.message.endswith(document["problem"]["message"])


def test_a_fork_is_timed_against_the_event_it_names_not_the_line_above(bank: Bank) -> None:
    """After a merge, a line follows an event further up: its time is compared with that event's."""
    base = forge.chain([event(1), event(2)])
    prev = json.loads(base[-1])
    ours = forge.chain([event(3, ts=stamp(T0 + timedelta(days=1)))], prev["hash"], 2)
    theirs = forge.chain([event(4, ts=stamp(T0 + timedelta(hours=1)))], prev["hash"], 2)  # earlier than ours: fine
    bank.write_bytes(LEDGER, b"".join(base + ours + theirs))
    assert ledger_hits(bank, "AIDLC-LEDGER-001") == [] and ledger_hits(bank, "AIDLC-LEDGER-009") == []
    late = forge.chain([event(5, ts=stamp(T0 - timedelta(days=1)))], prev["hash"], 2)
    bank.write_bytes(LEDGER, b"".join(base + ours + late))
    (found,) = ledger_hits(bank, "AIDLC-LEDGER-009")
    assert found.line == 4 and "before the event it follows (line 2)" in found.message


# -- item 4: commits ------------------------------------------------------------------------------------------
@pytest.fixture
def committed_bank(bank: Bank) -> Bank:
    git(bank.root, "add", "-A")
    git(bank.root, "commit", "-q", "-m", "a bank")
    return bank


def test_an_unknown_commit_is_an_error_and_a_real_one_is_fine(committed_bank: Bank) -> None:
    head = git(committed_bank.root, "rev-parse", "HEAD")
    write_ledger(committed_bank, [event(1), decision(2, "intent:001-checkout", "requirements", commit=head),
                                  decision(3, "intent:001-checkout", "units", commit="f" * 40),
                                  decision(4, "intent:001-checkout", "stories", commit="HEAD~1"),
                                  decision(5, "intent:001-checkout", "bolt-plan", commit="f" * 40)])
    found = ledger_hits(committed_bank, "AIDLC-LEDGER-010")
    assert [(f.line, f.severity) for f in found] == [(3, Severity.error), (4, Severity.error)]  # one per commit
    assert f"commit {'f' * 40} does not exist in this repository" in found[0].message
    assert "commit 'HEAD~1' is not a full commit id" in found[1].message  # never handed to git as a revision
    proc = aidlc(committed_bank.root, "log", "verify")
    assert proc.returncode == 1 and f"✗ {LEDGER}:3 {found[0].message}" in proc.stdout
    assert "git fetch --all" in proc.stdout


def test_commits_are_looked_up_in_one_git_call(committed_bank: Bank, tmp_path: Path) -> None:
    """Two hundred events naming two hundred commits: one `git cat-file --batch-check`, not one per event."""
    head = git(committed_bank.root, "rev-parse", "HEAD")
    fakes = [f"{n:040x}" for n in range(1, 200)]
    write_ledger(committed_bank, [event(1), *(event(n + 2, commit=c) for n, c in enumerate([head, *fakes]))])
    calls = tmp_path / "calls"
    shim = tmp_path / "bin" / "git"
    shim.parent.mkdir()
    real = shutil.which("git")
    shim.write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexec {real} "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {"PATH": f"{shim.parent}:{os.environ['PATH']}"}
    proc = aidlc(committed_bank.root, "--format", "json", "validate", env=env)
    unknown = [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "AIDLC-LEDGER-010"]
    assert len(unknown) == 199
    lookups = [line for line in calls.read_text(encoding="utf-8").splitlines() if "cat-file" in line]
    assert len(lookups) == 1, lookups


def test_in_a_shallow_clone_an_unknown_commit_is_a_warning_to_fetch(committed_bank: Bank, tmp_path: Path) -> None:
    root = committed_bank.root
    old = git(root, "rev-parse", "HEAD")
    write_ledger(committed_bank, [event(1), decision(2, "intent:001-checkout", "requirements", commit=old)])
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the ledger")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{root}", str(clone))
    shallow = Bank(clone)
    (found,) = ledger_hits(shallow, "AIDLC-LEDGER-011")
    assert (found.line, found.severity) == (2, Severity.warning)
    assert "not in this shallow clone" in found.message and "git fetch --unshallow" in found.message
    assert ledger_hits(shallow, "AIDLC-LEDGER-010") == []
    proc = aidlc(clone, "log", "verify")
    assert proc.returncode == 0, proc.stdout  # a warning: the ledger itself verified
    assert f"warning: {LEDGER}:2 seq 2: unfetched_commit:" in proc.stdout and "ledger verified" in proc.stdout
    git(clone, "fetch", "-q", "--unshallow")
    assert ledger_hits(shallow, "AIDLC-LEDGER-011") == []


def test_gate_decisions_name_commits_that_validate(chain: Path) -> None:
    git(chain, "add", "-A")
    git(chain, "commit", "-q", "-m", "the chain")
    runner = CliRunner()
    result = runner.invoke(cli, ["--repo", str(chain), "gate", "approve", "001-checkout-payments", "--stage",
                                 "requirements"], env={"CI": None, "AIDLC_ACTOR_KIND": None})
    assert result.exit_code == 0, result.stderr
    proc = aidlc(chain, "--format", "json", "validate")
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert not codes & {"AIDLC-LEDGER-009", "AIDLC-LEDGER-010", "AIDLC-LEDGER-011"}


# -- item 6: a complete last line without its newline ------------------------------------------------------------
def test_a_last_line_without_its_newline_is_completed_not_moved_aside(repo: Path) -> None:
    ledger = Ledger.of_bank(repo, "memory-bank")
    ledger.append(EventType.check_recorded, CI, data={"n": 1})
    path = repo / LEDGER
    intact = path.read_bytes()
    path.write_bytes(intact[:-1])  # a write cut just before its last byte
    proc = aidlc(repo, "log", "verify")
    assert proc.returncode == 0, proc.stdout
    assert f"note: {LEDGER}:2 seq 2: unterminated: the last line lacks its newline" in proc.stdout
    assert "torn" not in proc.stdout and "ledger verified" in proc.stdout
    assert json.loads(aidlc(repo, "log", "verify", "--format", "json").stdout)["ok"] is True
    assert [f.code for f in Bank(repo).findings() if f.code.startswith("AIDLC-LEDGER")] == []
    appended = Ledger.of_bank(repo, "memory-bank").append(EventType.check_recorded, CI, data={"n": 2})
    assert appended.completed and appended.recovered is None
    after = path.read_bytes()
    assert after.startswith(intact) and after.count(b"\n") == 3 and after.endswith(b"\n")
    assert not list(path.parent.glob("events.jsonl.torn-*"))
    assert [json.loads(line)["type"] for line in after.splitlines()] == ["ledger.created", "check.recorded",
                                                                         "check.recorded"]
    assert appended.event.seq == 3 and verify_lines(ledger.lines).ok


def test_an_older_version_whose_last_line_lacked_its_newline_keeps_that_event() -> None:
    lines = forge.chain([event(1), event(2)])
    older = [lines[0], lines[1][:-1]]  # committed while its last line lacked the newline
    assert verify_lines(lambda: iter(lines), against=older).ok
    (problem,) = verify_lines(lambda: iter(lines[:1]), against=older).problems
    assert (problem.kind, problem.line) == ("missing", 2)


def test_an_incomplete_last_line_is_still_torn(repo: Path) -> None:
    path = repo / LEDGER
    last = json.loads(path.read_bytes())
    fragment = forge.chain([event(2)], last["hash"], 1)[0][:-30]  # a real line whose end is missing
    with open(path, "ab") as handle:
        handle.write(fragment)
    problem = json.loads(aidlc(repo, "log", "verify", "--format", "json").stdout)["problem"]
    assert problem["kind"] == "torn" and problem["line"] == 2


# -- item 9: files that are not a ledger --------------------------------------------------------------------------
def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "x").write_text("not a ledger\n", encoding="utf-8")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _outside_link(path: Path) -> None:
    outside = path.parent.parent.parent / "elsewhere.jsonl"
    outside.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(outside)


@pytest.mark.parametrize(("make", "words"), [(_folder, "is a folder"), (_fifo, "is a FIFO"),
                                             (_outside_link, "is a symbolic link")])
def test_a_ledger_that_is_not_a_file_is_a_clear_error_everywhere(chain: Path, make, words: str) -> None:
    make(chain / LEDGER)
    found = [f for f in Bank(chain).findings() if f.code == "AIDLC-FILE-004"]
    assert [(f.path, f.severity) for f in found] == [(LEDGER, Severity.error)] and words in found[0].message
    for command in (("validate",), ("status",), ("log", "show"), ("log", "verify"),
                    ("gate", "approve", "001-checkout-payments", "--stage", "requirements", "--as", "Ada <a@x.org>")):
        proc = aidlc(chain, *command)  # asserts: no traceback (and a FIFO must not hang: the timeout would fail)
        assert proc.returncode == (0 if command == ("status",) else 1), (command, proc.stdout, proc.stderr)
        assert words in proc.stdout + proc.stderr or command == ("status",), command


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_an_unreadable_ledger_is_a_clear_error(chain: Path) -> None:
    (chain / LEDGER).chmod(0)
    try:
        proc = aidlc(chain, "log", "verify")
        assert proc.returncode == 1 and "cannot be read" in proc.stderr
        assert any(f.code == "AIDLC-FILE-004" for f in Bank(chain).findings())
    finally:
        (chain / LEDGER).chmod(stat.S_IRUSR | stat.S_IWUSR)


def _nested(depth: int) -> bytes:
    return b'{"data":' + b"[" * depth + b"]" * depth + b"}\n"


@pytest.mark.parametrize("line", [_nested(200_000), b'{"data":"' + b"x" * (MAX_LINE + 10) + b'"}\n',
                                  b"[" * (MAX_LINE * 2) + b"\n"], ids=["nested", "huge", "huge-nested"])
def test_a_deep_or_huge_line_is_an_invalid_line_never_a_crash(chain: Path, line: bytes) -> None:
    path = chain / LEDGER
    path.write_bytes(path.read_bytes() + line)
    problem = json.loads(aidlc(chain, "log", "verify", "--format", "json").stdout)["problem"]
    assert (problem["line"], problem["kind"]) == (2, "invalid")
    if len(line) > MAX_LINE:
        assert f"{len(line):,} bytes long" in problem["message"]
    shown = aidlc(chain, "log", "show")
    assert shown.returncode == 0 and "line 2 holds no readable event" in shown.stderr
    assert [f.line for f in Bank(chain).findings("AIDLC-LEDGER-001")] == [2]
    refused = aidlc(chain, "gate", "approve", "001-checkout-payments", "--stage", "requirements", "--as",
                    "Ada <a@x.org>")
    assert refused.returncode == 1 and f"{LEDGER}:2" in refused.stderr and path.read_bytes().endswith(line)


def test_a_huge_torn_tail_is_moved_aside_whole(repo: Path) -> None:
    path = repo / LEDGER
    fragment = b'{"data":"' + b"y" * (3 * MAX_LINE)
    path.write_bytes(path.read_bytes() + fragment)
    appended = Ledger.of_bank(repo, "memory-bank").append(EventType.check_recorded, CI, data={"after": "crash"})
    assert appended.recovered is not None and appended.recovered.read_bytes() == fragment
    assert verify_lines(Ledger.of_bank(repo, "memory-bank").lines).ok


# -- item 15: one view, an incremental check that an edit cannot fool ------------------------------------------
@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the full reads of a ledger (`state.scan`) in this process."""
    counted: list[int] = []
    real = state_module.scan

    def counting(open_lines):  # type: ignore[no-untyped-def]
        counted.append(1)
        return real(open_lines)

    monkeypatch.setattr(state_module, "scan", counting)
    monkeypatch.setattr("aidlc.events.ledger.scan", counting)
    return counted


def gate(root: Path, *args: str) -> None:
    result = CliRunner().invoke(cli, ["--repo", str(root), "gate", "approve", *args],
                                env={"CI": None, "AIDLC_ACTOR_KIND": None})
    assert result.exit_code == 0, result.stderr


def test_a_decision_reads_the_ledger_at_most_once_and_then_not_at_all(chain: Path, scans: list[int]) -> None:
    gate(chain, "001-checkout-payments", "--stage", "requirements")
    assert len(scans) <= 1  # the view the decision checks and appends with is built once
    scans.clear()
    gate(chain, "001-checkout-payments", "--stage", "units")
    assert scans == []  # the ledger is as the last decision left it: its checkpoint vouches for it


def test_a_gate_decision_uses_no_other_reader_of_the_ledger(chain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a decision verifies through the ledger's view, not on its own")

    monkeypatch.setattr("aidlc.events.verify.verify_lines", forbidden)
    monkeypatch.setattr(Ledger, "events", forbidden)
    gate(chain, "001-checkout-payments", "--stage", "requirements")


def _edit_in_place(path: Path, old: bytes, new: bytes) -> None:
    """Change bytes keeping the size and the modification time, as a careful forger would."""
    assert len(old) == len(new)
    info = path.stat()
    data = path.read_bytes()
    assert data.count(old) == 1
    with open(path, "r+b") as handle:
        handle.seek(data.index(old))
        handle.write(new)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def test_an_edit_after_the_checkpoint_is_caught(chain: Path, scans: list[int]) -> None:
    gate(chain, "001-checkout-payments", "--stage", "requirements")
    path = chain / LEDGER
    assert (chain / checkpoint.CHECKPOINT).is_file()
    _edit_in_place(path, b'"decision":"approve"', b'"decision":"approvE"')
    result = CliRunner().invoke(cli, ["--repo", str(chain), "gate", "approve", "001-checkout-payments", "--stage",
                                      "units"], env={"CI": None, "AIDLC_ACTOR_KIND": None})
    assert result.exit_code == 1 and "edited" in result.stderr
    assert [f.line for f in Bank(chain).findings("AIDLC-LEDGER-001")] == [2]


def test_an_edit_far_from_the_end_is_caught_by_the_change_time(chain: Path) -> None:
    """Beyond the last 4 KiB (which are checked by content) only the file's identity tells: an edit that keeps
    the size and restores the modification time still moves the change time on."""
    ledger = Ledger.of_bank(chain, "memory-bank")
    for n in range(40):
        ledger.append(EventType.check_recorded, CI, data={"n": n, "output": "x" * 100})
    path = chain / LEDGER
    assert path.stat().st_size > 2 * checkpoint.TAIL
    probe = chain / ".aidlc" / "tick"
    for _ in range(100_000):  # until the file system's clock has moved past the ledger's last change
        probe.write_bytes(b"")
        if probe.stat().st_ctime_ns > path.stat().st_ctime_ns:
            break
    _edit_in_place(path, b'"n":3,', b'"n":4,')
    assert [f.line for f in Bank(chain).findings("AIDLC-LEDGER-001")] == [5]


def test_a_checkpoint_from_another_clone_is_never_trusted(chain: Path, tmp_path: Path) -> None:
    gate(chain, "001-checkout-payments", "--stage", "requirements")
    git(chain, "add", "-A")
    git(chain, "commit", "-q", "-m", "decided")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(chain), str(clone))
    (clone / ".aidlc" / "ledger").mkdir(parents=True)
    shutil.copy(chain / checkpoint.CHECKPOINT, clone / checkpoint.CHECKPOINT)
    _edit_in_place(clone / LEDGER, b'"decision":"approve"', b'"decision":"approvE"')
    assert [f.line for f in Bank(clone).findings("AIDLC-LEDGER-001")] == [2]


@pytest.mark.parametrize("content", [b"garbage", b"{}", b'{"format": 1, "state": []}', b"[" * 100_000, None])
def test_a_broken_checkpoint_is_ignored(chain: Path, content: bytes | None, scans: list[int]) -> None:
    gate(chain, "001-checkout-payments", "--stage", "requirements")
    path = chain / checkpoint.CHECKPOINT
    path.unlink()
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    scans.clear()
    gate(chain, "001-checkout-payments", "--stage", "units")
    assert len(scans) == 1  # checked in full, and decided


def test_a_checkpoint_cut_or_read_half_written_is_ignored(chain: Path, scans: list[int]) -> None:
    """A checkpoint is written in place; whatever a crash or a concurrent write leaves fails its digest."""
    gate(chain, "001-checkout-payments", "--stage", "requirements")
    path = chain / checkpoint.CHECKPOINT
    genuine = path.read_bytes()
    for changed in (genuine[:-1] + bytes([genuine[-1] ^ 1]), genuine[: len(genuine) // 2]):
        path.write_bytes(changed)
        fd = os.open(chain / LEDGER, os.O_RDONLY)
        try:
            assert checkpoint.load(chain, LEDGER, fd) is None
        finally:
            os.close(fd)
    path.write_bytes(genuine)
    scans.clear()
    gate(chain, "001-checkout-payments", "--stage", "units")
    assert scans == []  # the genuine one is used


def test_a_forged_checkpoint_never_fools_log_verify(chain: Path) -> None:
    """Whoever can write .aidlc/ can make this clone's own commands trust a file (the checkpoint is a cache of
    this clone's checks); `aidlc log verify` never reads it, so the edit is caught there, as in CI."""
    gate(chain, "001-checkout-payments", "--stage", "requirements")
    path, saved = chain / LEDGER, chain / checkpoint.CHECKPOINT
    _, header, rest = saved.read_bytes().split(b"\n", 2)
    document = json.loads(header)
    _edit_in_place(path, b'"decision":"approve"', b'"decision":"approvE"')
    with open(path, "rb") as handle:
        document["identity"] = checkpoint.identity(os.fstat(handle.fileno()))
        document["tail"] = checkpoint.tail(handle.fileno(), path.stat().st_size)
    forged = json.dumps(document).encode() + b"\n" + rest
    saved.write_bytes(hashlib.sha256(forged).hexdigest().encode() + b"\n" + forged)
    # Even here the edit does not pass: a decision read back from the file must have the hash it was checked with.
    validated = aidlc(chain, "validate")
    assert validated.returncode == 1 and "changed while it was being read (line 2" in validated.stderr
    proc = aidlc(chain, "log", "verify")
    assert proc.returncode == 1 and f"✗ {LEDGER}:2 seq 2: edited" in proc.stdout


def test_validate_and_status_keep_no_checkpoint(chain: Path) -> None:
    """Reading commands write nothing, a checkpoint included: only a command that appends keeps one."""
    (chain / checkpoint.CHECKPOINT).unlink()
    before = Bank(chain).snapshot()
    assert Bank(chain).findings("AIDLC-LEDGER-001") == []
    assert aidlc(chain, "status").returncode == 0 and aidlc(chain, "log", "verify").returncode == 0
    assert Bank(chain).snapshot() == before


def test_the_ledger_is_found_one_way() -> None:
    """Only aidlc/events/place.py builds the ledger's path (`Ledger.of_bank` through it, and the rules that look for
    a ledger before they import the ledger's modules): every command reads the same file. (bank/walk.py names
    the file, beside aidlc.yaml's name, for the rule files a pull request is judged by.)"""
    package = Path(__file__).resolve().parent.parent / "aidlc"
    sources = {path.relative_to(package).as_posix(): path.read_text(encoding="utf-8")
               for path in package.rglob("*.py")}
    builders = [name for name, text in sources.items()
                if re.search(r"\bLedger\(", text) or "/ LEDGER_FILE" in text or 'events.jsonl"' in text]
    assert sorted(builders) == ["bank/walk.py", "events/place.py", "events/view.py"]


def test_log_verify_streams_in_constant_memory() -> None:
    """The peak of a verification of 20,000 events is the peak of one of 2,000 (plus a little): it keeps no
    per-event state (measured with tracemalloc, which counts bytes, not time)."""
    import tracemalloc

    lines = forge.chain(event(n, ts=stamp(T0 + timedelta(seconds=n))) for n in range(1, 20_001))
    peaks = []
    for count in (2_000, 20_000):
        tracemalloc.start()
        assert verify_lines(lambda count=count: iter(lines[:count])).ok
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < peaks[0] + 256 * 1024, peaks


def test_a_complete_first_bolt_needs_a_readable_ledger(bank: Bank) -> None:
    """An unreadable ledger grants nothing: completions stay errors (never the warning of a bank without one)."""
    complete_first_bolt(bank)
    _folder_ledger = bank.path(LEDGER)
    _folder_ledger.mkdir(parents=True)
    codes = {f.code for f in bank.findings() if f.severity == Severity.error}
    assert {"AIDLC-FILE-004", "AIDLC-LEDGER-002", "AIDLC-LEDGER-003"} <= codes
    assert not bank.findings("AIDLC-LEDGER-007")
    with pytest.raises(LedgerError, match="is a folder"):
        list(Ledger.of_bank(bank.root, "memory-bank").lines())
