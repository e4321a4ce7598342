"""The ledger (docs/design.md, The ledger): tamper detection, concurrent appends, crash recovery,
idempotency keys, no unknown fields, no writing through a symlink.

Real files, real concurrent processes; `aidlc log verify` runs in this process (helpers.in_process) where the
ledger's content is the point, in a real process after other processes wrote or were killed mid-write.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from aidlc.events.canonical import event_hash, line_of
from aidlc.events.ledger import Ledger, LedgerError
from aidlc.events.verify import verify_lines
from aidlc.model.events import GENESIS, Actor, ActorKind, Event, EventType, FileDigest, Subject
from tests.helpers import in_process

LEDGER = "memory-bank/events.jsonl"
ADA = Actor(kind=ActorKind.human, name="Ada", email="ada@example.org")
CI = Actor(kind=ActorKind.ci, name="ci")
HANG_GUARD = 120  # seconds; only so that a deadlock fails the test instead of hanging it


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`aidlc --repo ROOT ARGS` in this process, with only PATH and HOME set (as `cli_process`)."""
    return in_process(["--repo", str(root), *args], {"PATH": "/usr/bin:/bin", "HOME": str(root)})


def cli_process(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(root), *args], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(root)}, timeout=HANG_GUARD)


def ledger_of(root: Path) -> Ledger:
    return Ledger(root / LEDGER, root)


def record(ledger: Ledger, n: int, key: str | None = None) -> Event:
    """Realistic events: gate decisions with fingerprints, check results with data."""
    if n % 2 == 0:
        return ledger.append(EventType.gate_decided, ADA, key=key, subject=Subject(kind="bolt", id=f"{n:03d}-api"),
                             stage="walkthrough", decision="approve", reason=f"reviewed, tests pass ({n})",
                             fingerprint=FileDigest(path=f"memory-bank/bolts/{n:03d}-api/walkthrough.md",
                                                    sha256=hashlib.sha256(str(n).encode()).hexdigest())).event
    return ledger.append(EventType.check_recorded, CI, key=key, run=f"run_{n}",
                         data={"name": "pytest", "exit_code": 0, "passed": True,
                               "tests": {"total": 40 + n, "failures": 0, "errors": 0, "skipped": 0}}).event


@pytest.fixture
def fifty(repo: Path) -> Path:
    """The scaffolded repo with 50 events: `ledger.created` (seq 1) and 49 more."""
    ledger = ledger_of(repo)
    for n in range(2, 51):
        record(ledger, n)
    assert len(lines(repo)) == 50
    return repo


def lines(root: Path) -> list[bytes]:
    return (root / LEDGER).read_bytes().splitlines(keepends=True)


def write_lines(root: Path, new: list[bytes]) -> None:
    (root / LEDGER).write_bytes(b"".join(new))


def problem_of(root: Path) -> dict:
    proc = cli(root, "log", "verify", "--format", "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    document = json.loads(proc.stdout)  # exactly one JSON document on stdout
    assert document["ok"] is False
    return document["problem"]


Tamper = Callable[[list[bytes]], list[bytes]]


# -- 1. tampering ---------------------------------------------------------------------------------------------
def flip_byte(old: list[bytes]) -> list[bytes]:
    line = bytearray(old[19])
    at = line.index(b"tests pass") + 1
    line[at] ^= 0x01  # "tests" -> "tusts": still valid JSON, a different event
    return [*old[:19], bytes(line), *old[20:]]


def delete_line(old: list[bytes]) -> list[bytes]:
    return old[:19] + old[20:]


def swap_lines(old: list[bytes]) -> list[bytes]:
    return [*old[:19], old[20], old[19], *old[21:]]


def duplicate_line(old: list[bytes]) -> list[bytes]:
    return [*old[:20], old[19], *old[20:]]


def truncate_tail(old: list[bytes]) -> list[bytes]:
    return [*old[:49], old[49][: len(old[49]) // 2]]


def garbage_line(old: list[bytes]) -> list[bytes]:
    return [*old[:19], b'{"not": "an event"\n', *old[19:]]


def delete_and_relink(old: list[bytes]) -> list[bytes]:
    """Remove seq 20 and re-hash seq 21 onto seq 19: its own hash recomputes, but seq jumps."""
    event = json.loads(old[20])
    event["prev"] = json.loads(old[18])["hash"]
    event["hash"] = event_hash(event)
    return [*old[:19], line_of(event), *old[21:]]


@pytest.mark.parametrize(("tamper", "line", "seq", "kind"), [
    (flip_byte, 20, 20, "edited"),
    (delete_line, 20, 21, "unknown_prev"),  # the event after the gap names a prev that is gone
    (delete_and_relink, 20, 21, "seq_gap"),
    (swap_lines, 20, 21, "reordered"),
    (duplicate_line, 21, 20, "duplicated"),
    (truncate_tail, 50, 50, "torn"),
    (garbage_line, 20, None, "invalid"),
])
def test_verify_names_line_seq_and_kind_of_the_tampering(fifty: Path, tamper: Tamper,
                                                         line: int, seq: int | None, kind: str) -> None:
    write_lines(fifty, tamper(lines(fifty)))
    problem = problem_of(fifty)
    assert (problem["line"], problem["seq"], problem["kind"]) == (line, seq, kind), problem
    text = cli(fifty, "log", "verify")
    assert text.returncode == 1
    assert f"{LEDGER}:{line} seq {'?' if seq is None else seq}: {kind}:" in text.stdout


def test_a_clean_ledger_verifies(fifty: Path) -> None:
    proc = cli(fifty, "log", "verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"ledger verified: {LEDGER}, 50 events" in proc.stdout
    proc = cli(fifty, "log", "verify", "--format", "json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {"version": 1, "path": LEDGER, "ok": True, "events": 50, "against": None,
                                       "problem": None, "notices": [], "signatures": [], "audit": [],
                                       "not_events": []}


def test_a_crlf_checkout_is_named_as_such(fifty: Path) -> None:
    write_lines(fifty, [line.replace(b"\n", b"\r\n") for line in lines(fifty)])
    problem = problem_of(fifty)
    assert (problem["line"], problem["seq"], problem["kind"]) == (1, 1, "edited") and "CRLF" in problem["message"]


def test_a_byte_order_mark_an_editor_added_is_named_as_such(fifty: Path) -> None:
    """Notepad saves UTF-8 with a byte order mark: the first line is intact behind it, and the message says so
    rather than that the line was edited."""
    ledger = lines(fifty)
    write_lines(fifty, [b"\xef\xbb\xbf" + ledger[0], *ledger[1:]])
    problem = problem_of(fifty)
    assert (problem["line"], problem["seq"], problem["kind"]) == (1, 1, "edited")
    assert "byte order mark (bytes EF BB BF)" in problem["message"] and "otherwise intact" in problem["message"]
    write_lines(fifty, [b"\xef\xbb\xbf" + ledger[0].replace(b'"seq":1', b'"seq":7'), *ledger[1:]])
    assert "byte order mark" not in problem_of(fifty)["message"]  # behind it, an edited line is an edited line


def test_duplicate_message_names_the_first_copy(fifty: Path) -> None:
    write_lines(fifty, duplicate_line(lines(fifty)))
    assert "already stands at line 20" in problem_of(fifty)["message"]


def test_reordered_message_names_where_prev_stands(fifty: Path) -> None:
    write_lines(fifty, swap_lines(lines(fifty)))
    assert "the event at line 21, which stands later" in problem_of(fifty)["message"]


def test_a_line_rehashed_after_an_edit_breaks_the_next_link(fifty: Path) -> None:
    """Editing an event and recomputing its hash is caught one line later: the next `prev` is unknown."""
    old = lines(fifty)
    event = json.loads(old[19])
    event["reason"] = "approved by someone else"
    event["hash"] = event_hash(event)
    write_lines(fifty, [*old[:19], line_of(event), *old[20:]])
    problem = problem_of(fifty)
    assert (problem["line"], problem["seq"], problem["kind"]) == (21, 21, "unknown_prev")


def test_a_non_canonical_rewrite_of_a_line_is_an_edit(fifty: Path) -> None:
    """Same JSON content, other bytes (keys reordered, spaces): the hash covers the canonical bytes."""
    old = lines(fifty)
    event = json.loads(old[9])
    write_lines(fifty, [*old[:9], json.dumps(event, indent=None).encode() + b"\n", *old[10:]])
    problem = problem_of(fifty)
    assert (problem["line"], problem["seq"], problem["kind"]) == (10, 10, "edited")


def test_a_reused_event_id_is_reported(fifty: Path) -> None:
    old = lines(fifty)
    event = json.loads(old[30])
    event["id"] = json.loads(old[5])["id"]
    event["hash"] = event_hash(event)
    following = json.loads(old[31])
    following["prev"] = event["hash"]
    following["hash"] = event_hash(following)
    write_lines(fifty, [*old[:30], line_of(event), line_of(following)])
    problem = problem_of(fifty)
    assert (problem["line"], problem["seq"], problem["kind"]) == (31, 31, "duplicate_id")


def test_in_process_verification_reports_every_problem_when_asked(fifty: Path) -> None:
    """One edit and one removal: the edited line, the link after it, the gap; no cascade after each."""
    tampered = flip_byte(lines(fifty))
    write_lines(fifty, tampered[:39] + tampered[40:])
    result = verify_lines(ledger_of(fifty).lines)
    assert [(p.line, p.seq, p.kind) for p in result.problems] == [(20, 20, "edited"), (21, 21, "unknown_prev"),
                                                                  (40, 41, "unknown_prev")]
    assert result.events == 49
    assert not result.ok


def test_a_line_the_fast_path_cannot_read_is_verified_the_slow_way(fifty: Path) -> None:
    """A field that sorts between `hash` and `id` (a newer writer, say) moves `id`: the line is parsed instead."""
    old = lines(fifty)
    events = [json.loads(line) for line in old[:3]]
    extra = {**events[2], "i": 1}
    del extra["hash"]
    extra["hash"] = event_hash(extra)
    odd = line_of(extra)
    assert b'"i":1,"id"' in odd
    ledger = [*old[:2], odd]
    result = verify_lines(lambda: iter(ledger), against=ledger)
    assert result.ok and result.events == 3
    edited = odd.replace(b'"i":1', b'"i":2')
    result = verify_lines(lambda: iter([*old[:2], edited]))
    assert [(p.line, p.seq, p.kind) for p in result.problems] == [(3, 3, "edited")]
    result = verify_lines(lambda: iter(old[:2]), against=ledger)
    assert [(p.line, p.seq, p.kind) for p in result.problems] == [(3, 3, "missing")]


# -- 3. concurrency -------------------------------------------------------------------------------------------
WORKER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from aidlc.events.ledger import Ledger
    from aidlc.model.events import Actor, EventType
    root, worker, count, gate, workers = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]), \
        int(sys.argv[5])
    ledger = Ledger(root / "memory-bank" / "events.jsonl", root)
    actor = Actor(kind="agent", name=f"worker-{worker}")
    (gate / str(worker)).touch()  # ready; all begin appending together, once every one has started up
    deadline = time.monotonic() + 60
    while len(list(gate.iterdir())) < workers:
        if time.monotonic() > deadline:
            sys.exit("the other workers never started")
        time.sleep(0.001)
    for n in range(count):
        key = f"w{worker}-{n}" if n % 2 else None  # keyed and unkeyed appends interleave
        ledger.append(EventType.check_recorded, actor, key=key, data={"worker": worker, "n": n})
""")


def test_eight_processes_appending_concurrently_keep_one_contiguous_chain(repo: Path, tmp_path: Path) -> None:
    # The workers wait for each other before their first append, so every append contends with seven other
    # processes from the start (asserted below: the events of the workers interleave); 100 contended appends a process
    # are as strong a test of the lock as the 300 that once ran partly alone while the other processes started.
    workers, count = 8, 100
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, *map(str, (repo, w, count, tmp_path, workers))],
                              stderr=subprocess.PIPE, text=True) for w in range(workers)]
    for proc in procs:
        _, err = proc.communicate(timeout=HANG_GUARD * 3)
        assert proc.returncode == 0, err
    raw = lines(repo)
    assert all(line.endswith(b"\n") for line in raw)
    events = [json.loads(line) for line in raw]  # no torn or interleaved line: every one parses
    assert [e["seq"] for e in events] == list(range(1, workers * count + 2))
    assert len({e["id"] for e in events}) == len(events)
    assert all(e["prev"] == before["hash"] for before, e in itertools.pairwise(events))
    recorded = sorted((e["data"]["worker"], e["data"]["n"]) for e in events[1:])
    assert recorded == [(w, n) for w in range(workers) for n in range(count)]
    turns = sum(a["data"]["worker"] != b["data"]["worker"] for a, b in itertools.pairwise(events[1:]))
    assert turns >= workers, f"the workers took {turns} turns: one after another, not at once"
    assert verify_lines(ledger_of(repo).lines).ok
    assert cli_process(repo, "log", "verify").returncode == 0


# -- 4. crashes -----------------------------------------------------------------------------------------------
LOOPER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from aidlc.events.ledger import Ledger
    from aidlc.model.events import Actor, EventType
    root = Path(sys.argv[1])
    ledger = Ledger(root / "memory-bank" / "events.jsonl", root)
    for n in range(1, 100_000):  # killed long before; the bound only keeps a stray child from filling the disk
        ledger.append(EventType.check_recorded, Actor(kind="agent", name="looper"), key=f"k{n}",
                      data={"n": n, "output": "x" * 2000})
""")


def test_a_process_killed_mid_append_leaves_a_ledger_that_verifies_and_takes_appends(repo: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", LOOPER, str(repo)], stderr=subprocess.PIPE)
    path = repo / LEDGER
    deadline = time.monotonic() + HANG_GUARD
    try:
        while path.read_bytes().count(b"\n") < 40 and proc.poll() is None:
            assert time.monotonic() < deadline, "the appending process wrote fewer than 40 events in time"
            os.sched_yield()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=HANG_GUARD)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
    before = lines(repo)
    assert len(before) >= 40 and verify_lines(ledger_of(repo).lines).ok
    # The killed process may have held the lock: the kernel released it, so this does not hang.
    appended = ledger_of(repo).append(EventType.check_recorded, CI, data={"after": "kill"})
    assert appended.recorded and appended.recovered is None
    assert appended.event.seq == json.loads(before[-1])["seq"] + 1
    assert cli_process(repo, "log", "verify").returncode == 0


def test_a_torn_tail_is_moved_aside_byte_for_byte_and_recorded(fifty: Path) -> None:
    path = fifty / LEDGER
    fragment = b'{"actor":{"kind":"agent","name":"looper"},"data":{"n":51,"note":"caf\xc3\xa9'  # cut mid-line
    with open(path, "ab") as handle:
        handle.write(fragment)
    assert problem_of(fifty)["kind"] == "torn"
    appended = ledger_of(fifty).append(EventType.check_recorded, CI, key="after-crash", data={"resumed": True})
    aside = appended.recovered
    assert aside is not None and aside.parent == path.parent and aside.name.startswith("events.jsonl.torn-")
    assert aside.read_bytes() == fragment
    tail = [json.loads(line) for line in lines(fifty)[-2:]]
    assert [e["type"] for e in tail] == ["ledger.tail_recovered", "check.recorded"]
    assert tail[0]["seq"] == 51 and tail[1]["seq"] == 52
    assert tail[0]["data"] == {"fragment": f"memory-bank/{aside.name}", "bytes": len(fragment),
                               "sha256": hashlib.sha256(fragment).hexdigest()}
    assert cli(fifty, "log", "verify").returncode == 0


SHORT_WRITER = textwrap.dedent("""
    import resource, signal, sys
    from pathlib import Path
    from aidlc.events.ledger import Ledger, LedgerError
    from aidlc.model.events import Actor, EventType
    root = Path(sys.argv[1])
    path = root / "memory-bank" / "events.jsonl"
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit is cut short instead of killing us
    limit = path.stat().st_size + 100
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    try:
        Ledger(path, root).append(EventType.check_recorded, Actor(kind="ci", name="ci"), data={"pad": "x" * 500})
    except LedgerError as exc:
        print(exc.message)
        sys.exit(3)
""")


def test_a_short_write_is_reported_and_the_next_append_recovers(fifty: Path) -> None:
    """A real short write (the file size limit stops it after 100 bytes), as a full disk would."""
    before = (fifty / LEDGER).read_bytes()
    proc = subprocess.run([sys.executable, "-c", SHORT_WRITER, str(fifty)], capture_output=True, text=True,
                          timeout=HANG_GUARD)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "short write" in proc.stdout and "Traceback" not in proc.stderr
    torn = (fifty / LEDGER).read_bytes()
    assert torn.startswith(before) and len(torn) == len(before) + 100
    assert problem_of(fifty)["kind"] == "torn"
    appended = ledger_of(fifty).append(EventType.check_recorded, CI, data={"retry": True})
    assert appended.recovered is not None and appended.recovered.read_bytes() == torn[len(before):]
    assert (fifty / LEDGER).read_bytes().startswith(before)
    assert cli(fifty, "log", "verify").returncode == 0


def test_a_ledger_that_is_only_a_fragment_recovers_to_a_new_genesis(repo: Path) -> None:
    path = repo / LEDGER
    path.write_bytes(b'{"actor":{"kind":"ci"')
    appended = ledger_of(repo).append(EventType.check_recorded, CI, data={"ok": True})
    assert appended.recovered is not None and appended.recovered.read_bytes() == b'{"actor":{"kind":"ci"'
    events = [json.loads(line) for line in lines(repo)]
    assert [(e["seq"], e["type"]) for e in events] == [(1, "ledger.tail_recovered"), (2, "check.recorded")]
    assert events[0]["prev"] == GENESIS
    assert verify_lines(ledger_of(repo).lines).ok


@pytest.mark.parametrize("damage", [flip_byte, garbage_line, delete_line, swap_lines, duplicate_line])
def test_damage_before_the_tail_makes_append_refuse_and_write_nothing(fifty: Path, damage: Tamper) -> None:
    write_lines(fifty, damage(lines(fifty)))
    with open(fifty / LEDGER, "ab") as handle:
        handle.write(b'{"torn')  # even a torn tail is left alone: no repair while the middle is damaged
    before = (fifty / LEDGER).read_bytes()
    with pytest.raises(LedgerError, match=r"events\.jsonl:2[01] .*refusing to append to a damaged ledger"):
        ledger_of(fifty).append(EventType.check_recorded, CI, data={"ok": True})
    assert (fifty / LEDGER).read_bytes() == before
    assert not list((fifty / "memory-bank").glob("events.jsonl.torn-*"))
    assert problem_of(fifty)["line"] in (20, 21)


@pytest.mark.parametrize("change", ["shorter", "longer", "same size"])
def test_a_ledger_changed_behind_an_appenders_back_is_checked_again(fifty: Path, change: str) -> None:
    """The appender remembers what it checked; a file rewritten since is checked in full, not trusted."""
    ledger = ledger_of(fifty)
    record(ledger, 51)
    path, old = fifty / LEDGER, lines(fifty)
    stat = path.stat()
    if change == "shorter":
        write_lines(fifty, delete_line(old))
    elif change == "longer":  # grown, but not by appending: the line it checked last moved
        write_lines(fifty, [*old[:2], b"garbage\n", *old[2:]])
    else:
        write_lines(fifty, flip_byte(old))
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # an edit made a second later
    with pytest.raises(LedgerError, match=r"events\.jsonl:(3|20) .*(unknown_prev|invalid|edited)"):
        record(ledger, 52)


def test_an_appender_sees_appends_made_by_another_process(fifty: Path, tmp_path: Path) -> None:
    ledger = ledger_of(fifty)
    first = record(ledger, 51, key="mine")
    other = subprocess.run([sys.executable, "-c", WORKER, str(fifty), "7", "4", str(tmp_path), "1"],
                           capture_output=True, text=True,
                           timeout=HANG_GUARD)
    assert other.returncode == 0, other.stderr
    again = ledger.append(EventType.check_recorded, CI, key="w7-3", data={"dup": True})
    assert not again.recorded and again.event.data == {"worker": 7, "n": 3}
    last = record(ledger, 52)
    assert last.seq == first.seq + 5 and verify_lines(ledger.lines).ok


# -- 5. idempotency keys --------------------------------------------------------------------------------------
def test_the_same_key_records_once(repo: Path) -> None:
    ledger = ledger_of(repo)
    first = ledger.append(EventType.run_started, ADA, key="run_42:start", run="run_42")
    second = ledger.append(EventType.run_started, ADA, key="run_42:start", run="run_42")
    assert first.recorded and not second.recorded
    assert second.event == first.event
    fresh = ledger_of(repo).append(EventType.run_started, ADA, key="run_42:start", run="run_42")  # another process
    assert not fresh.recorded and fresh.event == first.event
    assert sum(b"run_42:start" in line for line in lines(repo)) == 1


def test_different_keys_record_twice(repo: Path) -> None:
    ledger = ledger_of(repo)
    one = ledger.append(EventType.run_started, ADA, key="run_1:start", run="run_1")
    two = ledger.append(EventType.run_started, ADA, key="run_2:start", run="run_2")
    assert one.recorded and two.recorded and one.event.id != two.event.id
    assert [json.loads(line).get("key") for line in lines(repo)][-2:] == ["run_1:start", "run_2:start"]


@pytest.mark.parametrize("key", ['quote " and \\ backslash', "café ✓", "a,\"prev\":\"x"])
def test_keys_with_characters_json_escapes_match_exactly(repo: Path, key: str) -> None:
    ledger = ledger_of(repo)
    assert ledger.append(EventType.degraded, CI, key=key).recorded
    assert not ledger_of(repo).append(EventType.degraded, CI, key=key).recorded
    assert ledger_of(repo).append(EventType.degraded, CI, key=key + "x").recorded
    found = ledger_of(repo).find_key(key)
    assert found is not None and found.key == key
    assert verify_lines(ledger.lines).ok


def test_a_key_is_not_matched_inside_data(repo: Path) -> None:
    ledger = ledger_of(repo)
    ledger.append(EventType.check_recorded, CI, data={"key": "k1"})
    assert ledger_of(repo).append(EventType.check_recorded, CI, key="k1").recorded


# -- 8. nothing but the contract --------------------------------------------------------------------------------
def test_the_event_model_forbids_unknown_top_level_fields(repo: Path) -> None:
    event = json.loads(lines(repo)[0])
    Event.model_validate(event)
    with pytest.raises(ValidationError, match="prompt"):
        Event.model_validate({**event, "prompt": "Summarise the customer's card number ..."})
    before = (repo / LEDGER).read_bytes()
    with pytest.raises(ValidationError):
        ledger_of(repo).append(EventType.check_recorded, CI, prompt="You are a helpful assistant")
    assert (repo / LEDGER).read_bytes() == before


# -- 9. symbolic links ----------------------------------------------------------------------------------------
def test_append_refuses_to_write_through_a_symlink(repo: Path) -> None:
    path = repo / LEDGER
    elsewhere = repo / "elsewhere.jsonl"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    with pytest.raises(LedgerError, match="symbolic link"):
        ledger_of(repo).append(EventType.check_recorded, CI, data={"ok": True})
    assert elsewhere.read_bytes() == before and path.is_symlink()


def test_secrets_in_a_reason_or_data_are_redacted_before_the_event_is_hashed(repo: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    token = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"  # a GitHub token's shape, no environment variable holds it
    monkeypatch.setenv("PAYMENTS_API_KEY", "pk-live-0123456789")
    ledger = ledger_of(repo)
    ledger.append(EventType.gate_decided, ADA, subject=Subject(kind="bolt", id="001-api"), stage="plan",
                  decision="approve", reason="ok; deploy with pk-live-0123456789",
                  data={"note": [f"pushed with {token}"], "commit": "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"})
    written = lines(repo)[-1].decode()
    assert "pk-live-0123456789" not in written and token not in written
    event = json.loads(written)
    assert event["reason"] == "ok; deploy with [REDACTED:PAYMENTS_API_KEY]"
    assert event["data"] == {"note": ["pushed with [REDACTED:github-token]"],
                             "commit": "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"}  # a commit id is no secret
    assert event["hash"] == event_hash(event)  # hashed as written: the ledger still verifies
    verified = cli(repo, "log", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_canonical_json_is_what_its_module_says_not_rfc_8785() -> None:
    """Sorted by code point (RFC 8785 sorts by UTF-16 unit: U+10000 before U+FFFF there), Python's float form
    (RFC 8785: ECMAScript's), no spaces, UTF-8 unescaped, NaN refused. The hashes of every ledger are over these
    bytes: a change here would break every chain written so far."""
    from aidlc.events.canonical import canonical

    assert canonical({"\U00010000": 1, "\uffff": 2, "b": [True, None], "a": "é"}) == \
        '{"a":"é","b":[true,null],"\uffff":2,"\U00010000":1}'.encode()
    assert canonical({"x": 1e16}) == b'{"x":1e+16}'
    with pytest.raises(ValueError):
        canonical({"x": float("nan")})
