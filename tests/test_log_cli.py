"""`aidlc log show` and `aidlc log verify [--against REF]` in real git repos (in-process, as the console script runs
them)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from aidlc.events.canonical import event_hash, line_of, plain
from aidlc.events.ledger import Ledger
from aidlc.events.view import open_view
from aidlc.model.events import Actor, ActorKind, Event, EventType, FileDigest, Subject
from tests import forge
from tests.helpers import in_process

LEDGER = "memory-bank/events.jsonl"
ADA = Actor(kind=ActorKind.human, name="Ada", email="ada@example.org")
CI = Actor(kind=ActorKind.ci, name="ci")
GIT_ENV = {"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Ada",
           "GIT_AUTHOR_EMAIL": "ada@example.org", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@example.org"}


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return in_process(list(args), {**GIT_ENV, "HOME": str(root)}, cwd=root)


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env={**GIT_ENV, "HOME": str(root)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def ledger_of(root: Path) -> Ledger:
    return Ledger(root / LEDGER, root)


def decide(ledger: Ledger, bolt: str, stage: str, decision: str = "approve") -> Event:
    return ledger.append(EventType.gate_decided, ADA, subject=Subject(kind="bolt", id=bolt), stage=stage,
                         decision=decision, reason=f"{stage} looked at",
                         fingerprint=FileDigest(path=f"memory-bank/bolts/{bolt}/{stage}.md",
                                                sha256=hashlib.sha256(bolt.encode()).hexdigest())).event


def check(ledger: Ledger, n: int) -> Event:
    return ledger.append(EventType.check_recorded, CI, data={"check": "pytest", "n": n}).event


def raw(root: Path) -> list[bytes]:
    return (root / LEDGER).read_bytes().splitlines(keepends=True)


def rechain(events: list[dict]) -> bytes:
    """Rewrite history the way a careful forger would: renumber and re-hash so the chain holds."""
    out, prev = [], "0" * 64
    for seq, event in enumerate(events, start=1):
        event = {**event, "seq": seq, "prev": prev}
        event["hash"] = prev = event_hash(event)
        out.append(line_of(event))
    return b"".join(out)


@pytest.fixture
def committed(repo: Path) -> Path:
    """The scaffolded repo with ten events, committed."""
    ledger = ledger_of(repo)
    for n in range(2, 11):
        check(ledger, n)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "ledger with ten events")
    return repo


# -- verify --against ----------------------------------------------------------------------------------------
def test_appending_only_keeps_every_event_of_the_ref(committed: Path) -> None:
    for n in range(11, 14):
        check(ledger_of(committed), n)
    proc = cli(committed, "log", "verify", "--against", "HEAD")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"ledger verified: {LEDGER}, 13 events, all of HEAD present" in proc.stdout


@pytest.mark.parametrize("rewrite", ["remove", "alter"])
def test_a_rewritten_history_is_caught_against_the_ref(committed: Path, rewrite: str) -> None:
    events = [json.loads(line) for line in raw(committed)]
    if rewrite == "remove":
        del events[4]  # seq 5
    else:
        events[4]["data"] = {"check": "pytest", "n": 5, "note": "it passed, honestly"}
    (committed / LEDGER).write_bytes(rechain(events))
    for n in range(11, 13):
        check(ledger_of(committed), n)
    assert cli(committed, "log", "verify").returncode == 0  # the chain alone holds: only the ref can tell
    proc = cli(committed, "log", "verify", "--against", "HEAD")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"✗ {LEDGER} at HEAD seq 5: missing: event seq 5 (line 5 of the older version)" in proc.stdout
    document = json.loads(cli(committed, "log", "verify", "--against", "HEAD", "--format", "json").stdout)
    assert document["ok"] is False and document["against"] == "HEAD"
    assert {k: document["problem"][k] for k in ("line", "seq", "kind")} == {"line": 5, "seq": 5, "kind": "missing"}


def test_a_damaged_chain_is_reported_before_the_ref_is_compared(committed: Path) -> None:
    lines = raw(committed)
    (committed / LEDGER).write_bytes(b"".join(lines[:3] + lines[4:]))
    proc = cli(committed, "log", "verify", "--against", "HEAD", "--format", "json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["problem"]["kind"] == "unknown_prev"


def test_a_ref_without_the_ledger_has_nothing_to_miss(committed: Path) -> None:
    git(committed, "checkout", "-q", "--orphan", "empty")
    git(committed, "rm", "-rq", "--cached", ".")
    git(committed, "commit", "-q", "--allow-empty", "-m", "nothing")
    proc = cli(committed, "log", "verify", "--against", "empty")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("ref", ["no-such-branch", "HEAD~7", "0" * 40, "", "HEAD:memory-bank"])
def test_an_unknown_ref_is_a_usage_error_without_traceback(committed: Path, ref: str) -> None:
    proc = cli(committed, "log", "verify", "--against", ref)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "error: " in proc.stderr and ("unknown git ref" in proc.stderr or "needs a git ref" in proc.stderr)
    proc = cli(committed, "--format", "json", "log", "verify", "--against", ref)
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["exit_code"] == 2


def test_a_committed_ledger_that_is_gone_is_restored_from_git_never_started_over(committed: Path) -> None:
    recorded = (committed / LEDGER).read_bytes()
    (committed / LEDGER).unlink()
    restore = f"git restore --source=HEAD --staged --worktree -- {LEDGER}"
    for command in (("log", "verify"), ("log", "show"), ("init", str(committed)),
                    ("gate", "approve", "001-checkout-api", "--stage", "plan", "--as", "Ada <ada@example.org>")):
        proc = cli(committed, *command)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, (command, proc.stderr)
        assert "is missing, but HEAD has it" in proc.stderr and restore in proc.stderr, command
        assert not (committed / LEDGER).exists()  # init did not start a new history
    subprocess.run(restore.split(), cwd=committed, check=True)  # the next step, as printed, works
    assert (committed / LEDGER).read_bytes() == recorded
    assert cli(committed, "log", "verify").returncode == 0


def test_a_ledger_never_committed_is_created_by_init(repo: Path) -> None:
    (repo / LEDGER).unlink()
    proc = cli(repo, "log", "verify")
    assert proc.returncode == 2 and "no ledger" in proc.stderr and "aidlc init" in proc.stderr
    assert cli(repo, "init", str(repo)).returncode == 0 and cli(repo, "log", "verify").returncode == 0


def test_verify_outside_a_memory_bank_is_a_usage_error(tmp_path: Path) -> None:
    proc = cli(tmp_path, "--repo", str(tmp_path), "log", "verify")
    assert proc.returncode == 2 and "no memory bank" in proc.stderr and "Traceback" not in proc.stderr


def test_verify_json_is_one_document_on_stdout(committed: Path) -> None:
    lines = raw(committed)
    (committed / LEDGER).write_bytes(b"".join([*lines[:6], lines[5], *lines[6:]]))
    for args in (["--format", "json", "log", "verify"], ["log", "verify", "--format", "json"]):
        proc = cli(committed, *args)
        assert proc.returncode == 1
        document = json.loads(proc.stdout)  # raises if anything else is on stdout
        assert document["version"] == 1 and document["path"] == LEDGER and document["events"] == 7
        assert document["problem"] == {"line": 7, "seq": 6, "kind": "duplicated",
                                       "message": "the same event already stands at line 6"}


# -- show -----------------------------------------------------------------------------------------------------
@pytest.fixture
def decided(repo: Path) -> Path:
    ledger = ledger_of(repo)
    decide(ledger, "001-checkout-api", "plan")
    check(ledger, 3)
    decide(ledger, "002-refunds", "plan", "reject")
    decide(ledger, "001-checkout-api", "walkthrough")
    return repo


def test_show_lists_every_event_oldest_first(decided: Path) -> None:
    proc = cli(decided, "log", "show")
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()
    assert len(rows) == 5
    assert [row.split()[0] for row in rows] == ["1", "2", "3", "4", "5"]
    assert "ledger.created" in rows[0]
    assert "gate.decided     bolt:001-checkout-api plan -> approve  [human: Ada]  plan looked at" in rows[1]
    assert "check.recorded" in rows[2] and "[ci: ci]" in rows[2]
    assert "bolt:002-refunds plan -> reject" in rows[3]


def test_show_filters_by_subject_and_type(decided: Path) -> None:
    proc = cli(decided, "log", "show", "--subject", "001-checkout-api")
    assert [row.split()[0] for row in proc.stdout.splitlines()] == ["2", "5"]
    proc = cli(decided, "log", "show", "--type", "check.recorded")
    assert [row.split()[0] for row in proc.stdout.splitlines()] == ["3"]
    proc = cli(decided, "log", "show", "--subject", "no-such-bolt")
    assert proc.returncode == 0 and proc.stdout == "" and "no matching events" in proc.stderr


def test_show_json_is_one_document_with_the_events_as_recorded(decided: Path) -> None:
    proc = cli(decided, "log", "show", "--format", "json", "--subject", "001-checkout-api", "--type", "gate.decided")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["version"] == 1
    recorded = [json.loads(line) for line in raw(decided)]
    assert document["events"] == [recorded[1], recorded[4]]
    everything = json.loads(cli(decided, "--format", "json", "log", "show").stdout)
    assert everything["events"] == recorded


@pytest.mark.parametrize("damage", [b"<<<<<<< HEAD\n", b'{"type":"gate.decided","subject":"x","actor":"y"}\n',
                                    b'{"x": 1}\n', b"[1, 2]\n", b"\xff\xfe\n"])
def test_show_skips_a_damaged_line_says_so_and_verify_reports_it(decided: Path, damage: bytes) -> None:
    lines = raw(decided)
    (decided / LEDGER).write_bytes(b"".join([*lines[:2], damage, *lines[2:]]))
    proc = cli(decided, "log", "show", "--format", "json")
    assert proc.returncode == 0 and len(json.loads(proc.stdout)["events"]) == 5
    assert f"{LEDGER}: line 3 holds no readable event and is not shown" in proc.stderr
    assert "aidlc log verify" in proc.stderr and "Traceback" not in proc.stderr
    text = cli(decided, "log", "show")
    assert text.returncode == 0 and "Traceback" not in text.stderr
    for command in (("validate",), ("status",)):  # every reader of the ledger survives the line
        other = cli(decided, *command)
        assert "Traceback" not in other.stderr and other.returncode in (0, 1), other.stderr
    verify = json.loads(cli(decided, "log", "verify", "--format", "json").stdout)
    assert verify["problem"]["line"] == 3 and verify["problem"]["kind"] == "invalid"


def test_verify_names_a_chained_line_that_holds_no_event(decided: Path) -> None:
    now = forge.stamp(datetime.now(UTC))
    forge.append_events(decided / LEDGER, [forge.event(6, ts=now, actor=None), forge.event(7, ts=now),
                                           forge.event(8, ts=now, type="gate.forged")])
    proc = cli(decided, "log", "verify")
    assert proc.returncode == 1
    assert f"✗ {LEDGER}:6: the line holds no ledger event (actor: field required) (and 1 more such lines)" \
        in proc.stdout, proc.stdout
    assert f"git log -p -- {LEDGER}" in proc.stdout
    verified = json.loads(cli(decided, "log", "verify", "--format", "json").stdout)
    assert not verified["ok"] and verified["problem"] is None and verified["events"] == 8
    assert [found["line"] for found in verified["not_events"]] == [6, 8]
    assert verified["not_events"][0]["message"] == "the line holds no ledger event (actor: field required)"
    assert verified["not_events"][1]["message"].startswith("the line holds no ledger event (type: input should be ")


def test_the_merge_driver_names_a_file_that_is_not_there(tmp_path: Path) -> None:
    proc = cli(tmp_path, "log", "merge", str(tmp_path / "base"), str(tmp_path / "ours"), str(tmp_path / "theirs"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"'{tmp_path / 'base'}' does not exist" in proc.stderr


# -- ledgers written before events were read as models ---------------------------------------------------------------
# tests/data/ledger-v1: five events written by `Ledger.append` as it stood before the readers returned `Event` models
# (a decision with non-ASCII text, a check with nulls and a float in its data, a signed decision, an audit record),
# and the allowed_signers holding the public key that signed seq 4.
V1 = Path(__file__).parent / "data" / "ledger-v1"
V1_AUDIT = b"## Requirements\n\nApproved by Ada.\n"  # the entry the audit.appended event records


@pytest.fixture
def adopted_v1(repo: Path) -> Path:
    """The scaffolded repo holding the ledger of tests/data/ledger-v1, its signers and its audit entry."""
    shutil.copy(V1 / "events.jsonl", repo / LEDGER)
    shutil.copy(V1 / "allowed_signers", repo / "memory-bank" / "allowed_signers")
    (repo / "memory-bank" / "audit.md").write_bytes(V1_AUDIT)
    return repo


def test_a_ledger_written_before_typed_events_verifies_and_reads_as_it_did(adopted_v1: Path) -> None:
    lines = raw(adopted_v1)
    proc = cli(adopted_v1, "log", "verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ledger verified: memory-bank/events.jsonl, 5 events" in proc.stdout
    # The models give back the very bytes of each line: its hash, and the signature over it, stand.
    events = list(ledger_of(adopted_v1).events())
    assert [line_of(plain(event)) for event in events] == lines
    assert all(event_hash(plain(event)) == event.hash for event in events)
    assert [(e.seq, e.type, e.actor.name) for e in events] == [
        (1, EventType.ledger_created, "Ada Lovelace"), (2, EventType.gate_decided, "Ada Lovelace"),
        (3, EventType.check_recorded, "ci"), (4, EventType.gate_decided, "Ada Lovelace"),
        (5, EventType.audit_appended, "Ada Lovelace")]
    assert events[1].reason == "Zoë read it — ok ✓" and events[3].signature is not None
    assert events[2].datum("nested") == {"empty": None, "list": [1, None, "x"]} and events[2].datum("ratio") == 0.5
    assert events[3].datum("judged") == [{"path": "memory-bank/bolts/001-api/plan.md", "sha256": "c" * 64}]
    # Every reader returns the same events: the history, the key search and `log show`.
    history = open_view(ledger_of(adopted_v1)).history
    assert history.latest("bolt", "001-api", "plan") == events[3]
    assert history.latest("intent", "001-orders", "requirements") == events[1]
    assert ledger_of(adopted_v1).find_key("check:1") == events[2]
    shown = cli(adopted_v1, "log", "show", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["events"] == [json.loads(line) for line in lines]


def test_a_signed_decision_of_an_old_ledger_changed_by_one_byte_no_longer_verifies(adopted_v1: Path) -> None:
    """The signature is checked over the bytes the model gives back: a forger who changes the reason of the signed
    decision and re-hashes the chain is caught (the model cannot paper over the change)."""
    events = [json.loads(line) for line in raw(adopted_v1)]
    events[3]["reason"] = "scope fine"
    (adopted_v1 / LEDGER).write_bytes(rechain(events))
    proc = cli(adopted_v1, "log", "verify")
    assert proc.returncode == 1
    assert "seq 4: bolt 001-api plan (reject) by Ada Lovelace <ada@example.org>" in proc.stdout + proc.stderr


@pytest.mark.parametrize("change", [
    {"colour": "blue"},  # a field the event does not have
    {"run": 7},  # a field of the wrong type
    {"actor": {"kind": "human"}},  # an actor without a name
    {"type": "gate.overruled"},  # a type the ledger does not know
], ids=["extra-field", "wrong-type", "missing-name", "unknown-type"])
def test_a_line_that_is_json_but_no_event_is_left_out_of_every_reader_and_reported(
        committed: Path, change: dict) -> None:
    """A forger appends a line that parses as JSON, chained and hashed correctly, that is not an Event: no reader
    hands it on, and `aidlc log verify` names its line."""
    before = [json.loads(line) for line in raw(committed)]
    forged = {**before[-1], "id": "evt_f0", **change}
    (committed / LEDGER).write_bytes(rechain([*before, forged]))
    damaged: list[int] = []
    ledger = ledger_of(committed)
    assert [e.seq for e in ledger.events(damaged)] == list(range(1, 11)) and damaged == [11]
    assert [n for n, _ in open_view(ledger).events] == list(range(1, 11))
    shown = cli(committed, "log", "show", "--format", "json")
    assert [e["seq"] for e in json.loads(shown.stdout)["events"]] == list(range(1, 11))
    proc = cli(committed, "log", "verify")
    assert proc.returncode == 1
    assert "memory-bank/events.jsonl:11" in proc.stdout + proc.stderr


def test_two_lines_that_are_two_events_only_when_joined_are_left_out_and_reported(committed: Path) -> None:
    """Two chained and hashed lines, neither JSON, that joined by a comma are the canonical JSON of two events
    (`forge.split_pair`): a block of lines read as one JSON array would take them for events; every reader leaves
    them out, and `aidlc log verify` and `aidlc validate` name both."""
    now = forge.stamp(datetime.now(UTC))
    last = json.loads(raw(committed)[-1])
    pair = forge.split_pair(forge.event(11, ts=now), forge.event(12, ts=now), last["hash"], last["seq"])
    digest = pair[1][pair[1].rfind(b'"hash":"') + 8:][:64].decode()
    (committed / LEDGER).write_bytes(b"".join([*raw(committed), *pair, *forge.chain([forge.event(13, ts=now)],
                                                                                     digest, 12)]))
    verified = cli(committed, "log", "verify", "--format", "json")
    document = json.loads(verified.stdout)
    assert verified.returncode == 1 and document["problem"] is None and document["events"] == 13
    assert [(found["line"], found["message"][:44]) for found in document["not_events"]] == \
        [(11, "the line holds no ledger event (not JSON (In"), (12, "the line holds no ledger event (not JSON (Ex")]
    assert f"✗ {LEDGER}:11: the line holds no ledger event" in cli(committed, "log", "verify").stdout
    damaged: list[int] = []
    assert [e.seq for e in ledger_of(committed).events(damaged)] == [*range(1, 11), 13] and damaged == [11, 12]
    shown = json.loads(cli(committed, "log", "show", "--format", "json").stdout)
    assert [e["seq"] for e in shown["events"]] == [*range(1, 11), 13]
    findings = json.loads(cli(committed, "validate", "--format", "json").stdout)["findings"]
    assert [(f["code"], f["line"]) for f in findings if f["path"] == LEDGER] == \
        [("AIDLC-LEDGER-018", 11), ("AIDLC-LEDGER-018", 12)]
