"""Multi-file writes are all or nothing across kill -9.

A real `aidlc` process is killed with SIGKILL at a real point of its write: a `sitecustomize`
put on the PYTHONPATH of that process only (the code under test has no test switch) installs an
audit hook that sends SIGKILL to its own process just before the N-th file of the bank is
renamed into place (its temporary file written and fsynced, the earlier files replaced), or just
before the journal is removed. The next aidlc command must find the bank as it was before, or
(a draft whose ledger event was recorded) as drafted: never half written, and no temporary file left.
"""

from __future__ import annotations

import base64
import difflib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import in_process
from tests.openai_server import ScriptedServer, chat

MB = "memory-bank"
INTENT = "001-checkout-payments"
UNIT = "001-checkout-api"
STORIES = ["001-pay-by-card", "002-pay-by-voucher", "003-pay-in-three"]
HANG = 120  # bounds the wait for a process; none of these should come near it

KILLER = '''
import os, signal, sys

_at, _root, _count = os.environ["KILL_AT"], os.environ["KILL_ROOT"], 0


def _kill(event, args):
    global _count
    if event == "os.rename" and os.fsdecode(args[1]).startswith(_root + "/memory-bank/"):
        _count += 1
        if _at == f"replace:{_count}":
            os.kill(os.getpid(), signal.SIGKILL)
    elif event == "os.remove" and _at == "commit" and os.fsdecode(args[0]) == _root + "/.aidlc/journal.jsonl":
        os.kill(os.getpid(), signal.SIGKILL)
    elif event == "open" and _at == "ledger" and str(args[0]) == _root + "/.aidlc/locks/ledger.lock":
        os.kill(os.getpid(), signal.SIGKILL)


sys.addaudithook(_kill)
'''


@pytest.fixture(scope="module")
def killer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("killer")
    (folder / "sitecustomize.py").write_text(KILLER)
    return folder


@pytest.fixture(scope="module")
def three_stories(tmp_path_factory: pytest.TempPathFactory, _chained: Path) -> Path:
    """An intent with one unit and three stories, no bolt yet: built once, copied per test."""
    root = tmp_path_factory.mktemp("template") / "shop"
    shutil.copytree(_chained, root, symlinks=True)
    shutil.rmtree(root / MB / "bolts" / "001-checkout-api")
    story = root / MB / "intents" / INTENT / "units" / UNIT / "stories" / f"{STORIES[0]}.md"
    story.write_text(story.read_text().replace("assigned_bolt: 001-checkout-api", "assigned_bolt: null"))
    for title in ("Pay by voucher", "Pay in three"):
        assert aidlc(root, "new", "story", title, "--unit", UNIT, "--requirements", "FR-1").returncode == 0
    return root


@pytest.fixture
def shop(three_stories: Path, tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(three_stories, root, symlinks=True)
    return root


def aidlc(root: Path, *args: str, kill_at: str | None = None, killer: Path | None = None,
          ) -> subprocess.CompletedProcess[str]:
    """`aidlc --repo ROOT ARGS`: killed at `kill_at`, in a real process; else, as the next command that finds what
    the kill left, in this process (helpers.in_process)."""
    env = {**os.environ, "NO_COLOR": "1", "CI": "true"}
    if kill_at is None:
        return in_process(["--repo", str(root), *args], env)
    assert killer is not None
    env.update(PYTHONPATH=str(killer), KILL_AT=kill_at, KILL_ROOT=str(root))
    return subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(root), *args], capture_output=True,
                          text=True, env=env, timeout=HANG)


def bank_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / MB).rglob("*")) if p.is_file()}


def bank_folders(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / MB).rglob("*") if p.is_dir())


def strays(root: Path) -> list[str]:
    return [p.name for p in (root / MB).rglob(".*.tmp")]


NEW_BOLT = ("new", "bolt", "--unit", UNIT, "--stories", ",".join(STORIES))


@pytest.mark.parametrize("kill_at", ["replace:1", "replace:3", "replace:5", "commit"])
def test_new_bolt_killed_anywhere_leaves_the_bank_as_it_was(shop: Path, killer: Path, kill_at: str) -> None:
    before, folders = bank_files(shop), bank_folders(shop)
    killed = aidlc(shop, *NEW_BOLT, kill_at=kill_at, killer=killer)
    assert killed.returncode == -9, killed.stderr
    during = bank_files(shop)
    if kill_at != "replace:1":  # the hole the journal closes: files of the bank already replaced, others not
        assert during != before
    if kill_at.startswith("replace"):
        assert strays(shop), "killed between writing a file's temporary copy and renaming it"
    assert (shop / ".aidlc" / "journal.jsonl").exists()

    status = aidlc(shop, "status")  # the next command, whatever it is, finds the bank whole
    assert status.returncode == 0, status.stderr
    assert bank_files(shop) == before
    assert bank_folders(shop) == folders  # the bolt folder the write created is gone too
    assert strays(shop) == []
    assert not (shop / ".aidlc" / "journal.jsonl").exists()

    if kill_at == "replace:3":  # and the command, run again, then does its whole work
        again = aidlc(shop, *NEW_BOLT)
        assert again.returncode == 0, again.stderr
        assert aidlc(shop, "validate").returncode == 0


def test_a_journal_left_by_a_live_writer_is_not_rolled_back(shop: Path) -> None:
    """The journal's lock tells an interrupted write from one still running."""
    import fcntl

    lock = shop / ".aidlc" / "locks" / "journal.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = subprocess.Popen([sys.executable, "-m", "aidlc", "--repo", str(shop), *NEW_BOLT],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "CI": "true"})
        with pytest.raises(subprocess.TimeoutExpired):  # it waits for the lock instead of writing beside us
            waiting.wait(timeout=3)
        assert not (shop / MB / "bolts" / "001-checkout-api").exists()
    _out, err = waiting.communicate(timeout=HANG)
    assert waiting.returncode == 0, err
    assert (shop / MB / "bolts" / "001-checkout-api" / "bolt.md").is_file()


def test_a_hostile_journal_is_refused_and_changes_nothing(shop: Path) -> None:
    """A journal is untrusted input: one naming a file outside the bank stops the command, touching nothing."""
    journal = shop / ".aidlc" / "journal.jsonl"
    journal.parent.mkdir(exist_ok=True)
    journal.write_text('{"bank": "memory-bank", "key": "", "v": 1}\n{"old": "cHduZWQ=", "path": "README.md"}\n')
    (shop / "README.md").write_text("mine\n")
    before = bank_files(shop)
    proc = aidlc(shop, "status")
    assert proc.returncode == 1
    assert "names a path outside the memory bank: 'README.md'" in proc.stderr and "Traceback" not in proc.stderr
    assert (shop / "README.md").read_text() == "mine\n"
    assert bank_files(shop) == before


def test_a_committed_journal_is_refused(shop: Path) -> None:
    """A journal that came with the repository was left by no interrupted command here: it is never applied."""
    story = shop / MB / "intents" / INTENT / "units" / UNIT / "stories" / f"{STORIES[0]}.md"
    journal = shop / ".aidlc" / "journal.jsonl"
    journal.parent.mkdir(exist_ok=True)
    journal.write_text('{"bank": "memory-bank", "key": "", "v": 1}\n' + json.dumps(
        {"path": story.relative_to(shop).as_posix(), "old": base64.b64encode(b"planted\n").decode()}) + "\n")
    subprocess.run(["git", "add", "-f", ".aidlc/journal.jsonl"], cwd=shop, check=True)
    subprocess.run(["git", "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "j"], cwd=shop, check=True)
    before = bank_files(shop)
    proc = aidlc(shop, "status")
    assert proc.returncode == 1 and "is committed to the repository" in proc.stderr
    assert bank_files(shop) == before


# --- aidlc draft ---------------------------------------------------------------------------------

UNITS = json.dumps({"units": [
    {"title": "Refunds API", "purpose": "Pays money back to the card a shopper used.", "requirements": ["FR-1"]},
    {"title": "Receipts", "purpose": "Sends the receipt of every payment by e-mail.", "requirements": ["FR-1"]},
]})


def draft(root: Path, server: ScriptedServer, *extra: str, kill_at: str | None = None,
          killer: Path | None = None) -> subprocess.CompletedProcess[str]:
    server.push(chat(UNITS, model="small-model"))
    return aidlc(root, "--format", "json", "draft", "units", INTENT, "--base-url", server.url, *extra,
                 kill_at=kill_at, killer=killer)


@pytest.mark.parametrize("kill_at", ["replace:1", "replace:2", "ledger"])
def test_draft_killed_before_its_ledger_event_is_rolled_back(shop: Path, killer: Path, server: ScriptedServer,
                                                             kill_at: str) -> None:
    before, ledger = bank_files(shop), (shop / MB / "events.jsonl").read_bytes()
    killed = draft(shop, server, kill_at=kill_at, killer=killer)
    assert killed.returncode == -9, killed.stderr
    if kill_at != "replace:1":
        assert bank_files(shop) != before  # half written, until the next command
    assert aidlc(shop, "status").returncode == 0
    assert bank_files(shop) == before and strays(shop) == []
    assert (shop / MB / "events.jsonl").read_bytes() == ledger


def test_draft_killed_after_its_ledger_event_is_finished(shop: Path, killer: Path, server: ScriptedServer) -> None:
    killed = draft(shop, server, kill_at="commit", killer=killer)
    assert killed.returncode == -9, killed.stderr
    assert aidlc(shop, "status").returncode == 0
    units = shop / MB / "intents" / INTENT / "units"
    assert (units / "002-refunds-api" / "unit-brief.md").is_file() and (units / "003-receipts").is_dir()
    events = [json.loads(line) for line in (shop / MB / "events.jsonl").read_text().splitlines()]
    assert events[-1]["type"] == "draft.proposed"
    assert not (shop / ".aidlc" / "journal.jsonl").exists() and strays(shop) == []
    assert aidlc(shop, "validate").returncode == 0


def test_draft_writes_exactly_what_it_reports(shop: Path, server: ScriptedServer) -> None:
    before = bank_files(shop)
    dry = json.loads(draft(shop, server, "--dry-run").stdout)
    assert bank_files(shop) == before
    real = draft(shop, server)
    assert real.returncode == 0, real.stderr
    done = json.loads(real.stdout)
    assert [p["path"] for p in dry["previews"]] == [p["path"] for p in done["previews"]]
    after = bank_files(shop)
    for shown in done["previews"]:
        if shown["action"] == "created":
            assert after[shown["path"]].decode() == shown["text"]  # byte for byte
        else:  # an updated file is shown as the diff from what it was to what it is now
            old, new, rel = before[shown["path"]].decode(), after[shown["path"]].decode(), shown["path"]
            assert "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), rel, rel)) == shown["text"]
    assert set(after) - set(before) == set(done["created"])
    changed = {rel for rel in before if after.get(rel) != before[rel]}
    assert changed == {*done["updated"], f"{MB}/events.jsonl"}  # and the ledger, which records the draft


def test_draft_refuses_a_ledger_that_does_not_verify_before_calling_the_model(shop: Path,
                                                                              server: ScriptedServer) -> None:
    ledger = shop / MB / "events.jsonl"
    ledger.write_text(ledger.read_text().replace('"ledger.created"', '"ledger.createD"'))
    before = bank_files(shop)
    proc = aidlc(shop, "draft", "units", INTENT, "--base-url", server.url)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "writes nothing while the ledger does not verify" in proc.stderr
    assert server.bodies() == []  # no token spent
    assert bank_files(shop) == before
    ledger.unlink()
    proc = aidlc(shop, "draft", "units", INTENT, "--base-url", server.url)
    assert proc.returncode == 2 and "no ledger" in proc.stderr
    assert server.bodies() == []
