"""Hostile files: a FIFO, a socket, a link leading outside, a bank that is such a link, a folder
that cannot be listed, a name that is not UTF-8. Each is a finding or a clear error, never a
hang, a traceback, a read of what lies outside or a write through it. Real processes, whose hang a timeout bounds,
for every file that is not a link; the links, which cannot hang a reader, in this process.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import BOLT2, MB, PROJECT, REQUIREMENTS, STORY1, UNIT_BRIEF, UNIT_DIR, Bank, git_init, in_process

# Bounds the wait for a process that must not hang; a hang makes the test fail instead of stalling the suite.
HANG = 120
SECRET = "SECRET-OUTSIDE-THE-REPO-7f3a"


def aidlc(root: Path, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, sys.executable, "-m", "aidlc", *args], cwd=root, env=_env(), capture_output=True,
                          text=True, encoding="utf-8", errors="strict", timeout=HANG)


def here(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """As `aidlc`, in this process (helpers.in_process): for the links, where no read can hang."""
    return in_process(list(args), _env(), cwd=root)


def _env() -> dict[str, str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    return env


def findings(proc: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    assert "Traceback" not in proc.stderr, proc.stderr
    return [(f["code"], f["path"]) for f in json.loads(proc.stdout)["findings"]]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A folder beside the repository, holding a file no aidlc command may read or write."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(f"---\nid: x\n---\n{SECRET}\n")
    yield folder


# --- only regular files are opened ---------------------------------------------------------------


FIFOS = [f"{UNIT_DIR}/stories/003-pipe.md", UNIT_BRIEF, BOLT2, REQUIREMENTS, PROJECT,
         f"{MB}/operations/runbooks/pipe.md", f"{MB}/intents/pipe"]  # a story, by-name files, a runbook, a folder


def test_a_fifo_is_a_finding_never_opened(bank: Bank) -> None:
    for rel in FIFOS:
        path = bank.path(rel)
        if path.exists():
            path.unlink()
        os.mkfifo(path)  # opening one for reading would wait for a writer for ever
    proc = aidlc(bank.root, "validate", "--format", "json")
    assert proc.returncode == 1
    assert sorted(path for code, path in findings(proc) if code == "AIDLC-FILE-007") == sorted(FIFOS)


# The peak memory of a child that runs aidlc: ru_maxrss of its children, in KiB on Linux.
PEAK = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True); "
        "sys.stderr.buffer.write(p.stderr); sys.stdout.buffer.write(p.stdout); "
        "sys.stderr.write(f'\\npeak-kib {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n'); "
        "sys.exit(p.returncode)")


def test_a_300_mb_story_is_a_finding_and_never_read_whole(bank: Bank) -> None:
    story = bank.path(STORY1)
    with open(story, "r+b") as handle:  # sparse: 300 MB that cost no disk
        handle.truncate(300 * 1024 * 1024)
    proc = aidlc(bank.root, "validate", "--format", "json", prefix=(sys.executable, "-c", PEAK))
    assert proc.returncode == 1
    found = json.loads(proc.stdout)["findings"]
    (large,) = [f for f in found if f["code"] == "AIDLC-FILE-010"]
    assert large["path"] == STORY1 and "314,572,800 bytes, over the 1,048,576-byte limit" in large["message"]
    peak_kib = int(proc.stderr.rsplit("peak-kib ", 1)[1])
    assert peak_kib < 200 * 1024, f"validate took {peak_kib} KiB for a bank with a 300 MB story"  # was 659,212


def test_a_file_at_the_limit_is_read(bank: Bank) -> None:
    text = bank.read(STORY1)
    bank.write(STORY1, text + "x" * (1024 * 1024 - len(text.encode()) - 1) + "\n")
    proc = aidlc(bank.root, "validate", "--format", "json")
    assert "AIDLC-FILE-010" not in [code for code, _path in findings(proc)]


def test_a_socket_is_a_finding(bank: Bank, monkeypatch: pytest.MonkeyPatch) -> None:
    rel = f"{UNIT_DIR}/stories/003-socket.md"
    monkeypatch.chdir(bank.path(f"{UNIT_DIR}/stories"))  # a socket path must be short: bind to the bare name
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind("003-socket.md")
        proc = aidlc(bank.root, "validate", "--format", "json")
    assert ("AIDLC-FILE-007", rel) in findings(proc)
    assert "a socket, not a regular file" in proc.stdout


def test_a_fifo_aidlc_yaml_is_a_configuration_error(bank: Bank) -> None:
    os.mkfifo(bank.path("aidlc.yaml"))
    proc = aidlc(bank.root, "validate")
    assert proc.returncode == 2
    assert "aidlc.yaml: cannot be read (a FIFO (named pipe), not a regular file; aidlc does not open it)" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_aidlc_new_never_opens_a_fifo(chain: Path) -> None:
    units = chain / "memory-bank/intents/001-checkout-payments/units.md"
    units.unlink()
    os.mkfifo(units)
    proc = aidlc(chain, "new", "unit", "Refunds", "--requirements", "FR-1")
    assert proc.returncode == 1, proc.stderr
    assert "units.md: cannot be read (a FIFO (named pipe), not a regular file" in proc.stderr
    assert not (chain / "memory-bank/intents/001-checkout-payments/units/002-refunds").exists()


# --- symbolic links ------------------------------------------------------------------------------


def test_a_link_outside_is_a_finding_and_never_read(bank: Bank, outside: Path) -> None:
    rel = f"{UNIT_DIR}/stories/003-elsewhere.md"
    bank.path(rel).symlink_to(outside / "secret.md")
    proc = here(bank.root, "validate", "--format", "json")
    assert ("AIDLC-FILE-008", rel) in findings(proc)
    assert SECRET not in proc.stdout + proc.stderr


def test_a_link_inside_the_repository_is_read(bank: Bank) -> None:
    shutil.move(bank.path(STORY1), bank.root / "story-one.md")
    bank.path(STORY1).symlink_to(bank.root / "story-one.md")
    proc = here(bank.root, "validate", "--format", "json")
    assert findings(proc) == []


def test_a_fixed_folder_linked_outside_is_never_listed(bank: Bank, outside: Path) -> None:
    """`stories` is looked up by name, not listed: it is checked all the same."""
    stories = bank.path(f"{UNIT_DIR}/stories")
    shutil.rmtree(stories)
    stories.symlink_to(outside)
    proc = here(bank.root, "validate", "--format", "json")
    assert ("AIDLC-FILE-008", f"{UNIT_DIR}/stories") in findings(proc)
    assert SECRET not in proc.stdout + proc.stderr


def test_aidlc_new_never_reads_or_writes_through_a_link_outside(chain: Path, outside: Path) -> None:
    units = chain / "memory-bank/intents/001-checkout-payments/units.md"
    units.unlink()
    units.symlink_to(outside / "secret.md")
    before = snapshot(outside)
    proc = here(chain, "new", "unit", "Refunds", "--requirements", "FR-1")
    assert proc.returncode == 1
    assert "units.md: cannot be read (a symbolic link to" in proc.stderr and "outside the repository" in proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
    assert snapshot(outside) == before
    assert not (chain / "memory-bank/intents/001-checkout-payments/units/002-refunds").exists()


# --- a bank that is itself a link leading outside ------------------------------------------------


@pytest.fixture
def linked_bank(bank: Bank, outside: Path) -> Bank:
    """The clean bank moved outside the repository, and `memory-bank` a link to it."""
    shutil.move(bank.path(MB), outside / "bank")
    (outside / "bank" / "intents" / "pipe.md").write_text(SECRET)
    bank.path(MB).symlink_to(outside / "bank")
    return bank


def test_validate_refuses_a_bank_leading_outside_and_reads_nothing(linked_bank: Bank) -> None:
    proc = here(linked_bank.root, "validate", "--format", "json")
    assert proc.returncode == 2
    error = json.loads(proc.stdout)["error"]
    assert error["message"].startswith(f"{MB} is a symbolic link (to ") and "outside the repository" in error["message"]
    assert error["next_steps"][0].startswith(f"git rm -q {MB}    # then copy the records from ")
    assert SECRET not in proc.stdout + proc.stderr


@pytest.mark.parametrize("args", [
    ("gate", "approve", "001-checkout", "--stage", "requirements", "--as", "Ada <ada@x.org>"),
    ("new", "intent", "Refunds"),
    ("new", "story", "Refund", "--unit", "001-checkout-api"),
    ("status",),
    ("init",),
    ("log", "show"),
], ids=["gate", "new-intent", "new-story", "status", "init", "log"])
def test_no_command_decides_reads_or_writes_through_a_bank_leading_outside(linked_bank: Bank, outside: Path,
                                                                              args: tuple[str, ...]) -> None:
    before = snapshot(outside)
    proc = here(linked_bank.root, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "outside the repository" in proc.stderr and "Traceback" not in proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
    assert snapshot(outside) == before


def test_a_bank_linked_to_nothing_is_refused_with_a_step_that_can_run(chain: Path) -> None:
    shutil.rmtree(chain / MB)
    (chain / MB).symlink_to("gone")
    proc = here(chain, "validate")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {MB} is a symbolic link (to gone, which does not exist): git keeps")
    assert "git mv" not in proc.stderr and f"  git rm -q {MB}    # then put the records back at {MB}/" in proc.stderr


@pytest.mark.parametrize("args", [("validate",), ("status",), ("new", "story", "Refund", "--unit", "001-checkout-api")])
def test_a_bank_linked_inside_the_repository_is_refused_until_it_is_the_folder(chain: Path,
                                                                              args: tuple[str, ...]) -> None:
    """git keeps the link, not the bank: the ledger's history would be read at a path that holds none."""
    (chain / "docs").mkdir()
    shutil.move(chain / MB, chain / "docs" / "bank")
    (chain / MB).symlink_to(Path("docs") / "bank")
    subprocess.run(["git", "-C", str(chain), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(chain), "-c", "user.name=Ada", "-c", "user.email=ada@x.org", "commit", "-q", "-m",
                    "bank linked"], check=True)
    proc = here(chain, *args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {MB} is a symbolic link (to docs/bank): git keeps the link, not the records")
    steps = proc.stderr.split("Next steps:\n")[1].splitlines()
    assert steps[:2] == [f"  git rm -q {MB} && git mv docs/bank {MB}    # the folder where the link was",
                         "  set `memory_bank: docs/bank` in aidlc.yaml    # or read the records where git keeps them"]
    subprocess.run(["bash", "-c", steps[0]], cwd=chain, check=True)  # the first step, as printed
    proc = here(chain, *args)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- folders that cannot be listed ---------------------------------------------------------------


def _without_root_powers() -> tuple[str, ...]:
    """A prefix that runs a command without the powers that let root read a chmod 000 folder anyway."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a chmod 000 folder cannot be shown unreadable")
    return (setpriv, "--bounding-set", "-dac_override,-dac_read_search")


@pytest.mark.parametrize("rel", [f"{MB}/intents", UNIT_DIR], ids=["intents", "unit"])
def test_an_unreadable_folder_is_a_finding(bank: Bank, rel: str) -> None:
    prefix = _without_root_powers()
    folder = bank.path(rel)
    folder.chmod(0)
    try:
        proc = aidlc(bank.root, "validate", "--format", "json", prefix=prefix)
    finally:
        folder.chmod(0o755)
    assert proc.returncode == 1
    listed = f"{rel}/stories" if rel == UNIT_DIR else rel  # a unit is read through its stories folder
    assert ("AIDLC-FILE-009", listed) in findings(proc)
    assert "the folder cannot be listed (Permission denied)" in proc.stdout


def test_a_bank_that_cannot_be_listed_is_reported_not_a_traceback(bank: Bank) -> None:
    prefix = _without_root_powers()
    bank.path(MB).chmod(0)
    try:
        proc = aidlc(bank.root, "validate", "--format", "json", prefix=prefix)
        shown = aidlc(bank.root, "log", "show", prefix=prefix)
    finally:
        bank.path(MB).chmod(0o755)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert ("AIDLC-FILE-009", MB) in findings(proc)
    assert shown.returncode == 1 and "cannot be read: Permission denied" in shown.stderr, shown.stderr


# --- names that are not UTF-8 --------------------------------------------------------------------


def test_a_name_that_is_not_utf8_is_shown_escaped_in_valid_json(bank: Bank) -> None:
    stories = os.fsencode(bank.path(f"{UNIT_DIR}/stories"))
    with open(os.path.join(stories, b"caf\xe9.md"), "wb") as handle:
        handle.write(bank.path(STORY1).read_bytes())
    proc = subprocess.run([sys.executable, "-m", "aidlc", "validate", "--format", "json"], cwd=bank.root,
                          capture_output=True, timeout=HANG)
    document = json.loads(proc.stdout.decode("utf-8"))  # strict: the whole output is UTF-8
    assert [(f["code"], f["path"]) for f in document["findings"]] == [
        ("AIDLC-FILE-007", f"{UNIT_DIR}/stories/caf\\xe9.md")]
    text = subprocess.run([sys.executable, "-m", "aidlc", "validate"], cwd=bank.root, capture_output=True,
                          timeout=HANG)
    assert f"{UNIT_DIR}/stories/caf\\xe9.md AIDLC-FILE-007".encode() in text.stdout
    assert b"Traceback" not in text.stderr


def test_a_repository_path_that_is_not_utf8_keeps_json_valid(tmp_path: Path) -> None:
    root = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"d\xe9p\xf4t")))
    git_init(root)
    assert subprocess.run([sys.executable, "-m", "aidlc", "init"], cwd=root, capture_output=True, timeout=HANG,
                          env={**os.environ, "CI": "true"}).returncode == 0
    for command in ("validate", "status"):
        proc = subprocess.run([sys.executable, "-m", "aidlc", command, "--format", "json"], cwd=root,
                              capture_output=True, timeout=HANG)
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
        assert json.loads(proc.stdout.decode("utf-8"))["root"].endswith("/d\\xe9p\\xf4t")


# --- nothing outside reaches a model, nothing is written through a link ---------------------------


def test_draft_never_sends_a_file_outside_the_repository(chain: Path, outside: Path) -> None:
    from tests.openai_server import ScriptedServer, chat

    intent = chain / MB / "intents" / "001-checkout-payments"
    stories = intent / "units" / "001-checkout-api" / "stories"
    (stories / "002-elsewhere.md").symlink_to(outside / "secret.md")
    (chain / MB / "standards" / "secret.md").symlink_to(outside / "secret.md")
    bolts = json.dumps({"bolts": [{"unit": "001-checkout-api", "stories": ["001-pay-by-card"], "risk": "low",
                                   "objective": "Take card payments end to end."}]})
    with ScriptedServer() as server:
        server.push(chat(bolts))
        proc = here(chain, "draft", "bolts", "001", "--base-url", server.url, "--dry-run")
        assert proc.returncode == 0, proc.stderr
        assert SECRET not in json.dumps(server.bodies())  # neither the story nor the standard went out
        (intent / "units.md").unlink()
        (intent / "units.md").symlink_to(outside / "secret.md")
        proc = here(chain, "draft", "bolts", "001", "--base-url", server.url)
        assert proc.returncode == 2 and "aidlc sends a model only the repository's own regular files" in proc.stderr
        assert len(server.bodies()) == 1  # refused before any request


def test_a_write_through_a_link_is_refused_and_undone(chain: Path, outside: Path) -> None:
    """`aidlc new story` writes the story, then the story index: a link there stops it, and the story goes too."""
    index = chain / MB / "story-index.md"
    index.unlink()
    index.symlink_to(outside / "secret.md")
    before = snapshot(outside)
    proc = here(chain, "new", "story", "Refund", "--unit", "001-checkout-api")
    assert proc.returncode == 1 and "it is a symbolic link" in proc.stderr, proc.stderr
    assert snapshot(outside) == before
    stories = chain / MB / "intents" / "001-checkout-payments" / "units" / "001-checkout-api" / "stories"
    assert sorted(p.name for p in stories.iterdir()) == ["001-pay-by-card.md"]


def test_a_gate_never_judges_a_file_leading_outside(chain: Path, outside: Path) -> None:
    from tests.test_gate import set_identity

    set_identity(chain)
    requirements = chain / "memory-bank/intents/001-checkout-payments/requirements.md"
    (outside / "secret.md").write_bytes(requirements.read_bytes())
    requirements.unlink()
    requirements.symlink_to(outside / "secret.md")
    ledger = (chain / "memory-bank/events.jsonl").read_bytes()
    proc = here(chain, "gate", "approve", "001-checkout-payments", "--stage", "requirements")
    assert proc.returncode == 1, proc.stderr
    assert "judges files aidlc does not read" in proc.stderr and "outside the repository" in proc.stderr
    assert (chain / "memory-bank/events.jsonl").read_bytes() == ledger
