"""`aidlc init` adopting an aidlc-docs repository, `aidlc audit append` and `aidlc log verify` on its ledger: through
the real CLI, on real git repositories in the shapes of aidlc-workflows' projects (tests/aidlc_docs_sample.py)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from aidlc.aidlc_docs.audit import field_name, read_audit
from tests.aidlc_docs_adopted import AUDIT, DOCS, ENTRIES, LEDGER, build_docs_repo, git
from tests.helpers import in_process, run_cli


def events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / LEDGER).read_text().splitlines()]


def append(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`aidlc audit append ARGS` in ROOT, in this process (helpers.in_process): the entry and its event are the
    point. A real process (`append_process`) where it is: stdin, a kill, and the first test's whole run."""
    return in_process(["audit", "append", *args], _append_env(env), cwd=root)


def append_process(root: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
                   ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aidlc", "audit", "append", *args], cwd=root, env=_append_env(env),
                          input=stdin, capture_output=True, text=True, encoding="utf-8")


def _append_env(env: dict[str, str] | None) -> dict[str, str]:
    full = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full.pop("CI", None)
    full.pop("AIDLC_ACTOR_KIND", None) if "AIDLC_ACTOR_KIND" not in (env or {}) else None
    return full


@pytest.fixture(scope="module")
def _adopted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_docs_repo(tmp_path_factory.mktemp("adopted") / "shop")
    assert run_cli("init", str(root)).returncode == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Adopt aidlc")
    return root


@pytest.fixture
def docs(_adopted: Path, tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(_adopted, root, symlinks=True)
    return root


# -- aidlc init --------------------------------------------------------------------------------------------------
def test_init_adopts_the_docs_folder_and_copies_no_entry_into_the_ledger(tmp_path: Path) -> None:
    root = build_docs_repo(tmp_path / "shop")
    before = (root / AUDIT).read_bytes()
    proc = run_cli("init", str(root))
    assert proc.returncode == 0, proc.stderr
    assert f"adopted {DOCS}/ (aidlc-workflows' layout; no memory-bank/ is made): 6 audit entries in {AUDIT} and " \
           "6 ticked stages are kept as history" in proc.stdout
    assert "layout: aidlc-docs" in (root / "aidlc.yaml").read_text()
    assert not (root / "memory-bank").exists()
    assert (root / ".github/workflows/aidlc.yml").is_file()
    assert f"{LEDGER} merge=aidlc-ledger -text" in (root / ".gitattributes").read_text().splitlines()
    (created,) = events(root)  # the adopted entries are counted once, never recorded as decisions
    assert created["type"] == "ledger.created"
    assert created["data"] == {"layout": "aidlc-docs", "adopted": {
        "folder": DOCS, "audit_logs": [AUDIT], "audit_entries": len(ENTRIES), "stages_done": 6}}
    assert (root / AUDIT).read_bytes() == before
    again = run_cli("init", str(root), "--format", "json")  # a second run changes nothing
    assert again.returncode == 0
    assert {f["action"] for f in json.loads(again.stdout)["files"]} <= {"kept", "unchanged"}
    assert len(events(root)) == 1


def test_log_verify_reads_the_ledger_in_the_docs_folder(docs: Path) -> None:
    proc = run_cli("log", "verify", cwd=docs)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"ledger verified: {LEDGER}, 1 events"
    shown = run_cli("log", "show", "--format", "json", cwd=docs)
    assert [e["type"] for e in json.loads(shown.stdout)["events"]] == ["ledger.created"]


# -- aidlc audit append ------------------------------------------------------------------------------------------
def test_append_writes_one_entry_in_the_rules_format_with_the_time_now(docs: Path) -> None:
    before = (docs / AUDIT).read_bytes()
    inode = (docs / AUDIT).stat().st_ino
    start = datetime.now(UTC).replace(microsecond=0)
    proc = append_process(docs, "--stage", "code-generation", "--user-input", "Approve the plan, but keep FR-1 first",
                  "--ai-response", "Starting Step 2 of the plan")
    end = datetime.now(UTC)
    assert proc.returncode == 0, proc.stderr
    after = (docs / AUDIT).read_bytes()
    assert after.startswith(before + b"\n\n## Code Generation\n")  # the old bytes untouched, a newline added first
    assert (docs / AUDIT).stat().st_ino == inode  # appended in place, never replaced
    entry = read_audit(after.decode(), AUDIT).entries[-1]
    assert entry.heading == "Code Generation"
    assert entry.fields["user_input"] == '"Approve the plan, but keep FR-1 first"'
    assert entry.fields["ai_response"] == '"Starting Step 2 of the plan"'
    assert entry.fields["context"] == "CONSTRUCTION - Code Generation"
    assert entry.zoned and entry.timestamp.endswith("Z") and start <= entry.at <= end
    assert len(read_audit(after.decode(), AUDIT).entries) == len(ENTRIES) + 1
    event = events(docs)[-1]
    record = event["data"]
    assert event["type"] == "audit.appended" and event["stage"] == "code-generation"
    assert event["actor"] == {"kind": "agent", "name": "Ada Lovelace", "email": "ada@example.org"}
    assert record["line"] == entry.line and record["path"] == AUDIT
    assert hashlib.sha256(after[record["offset"]:]).hexdigest() == record["sha256"]
    assert after[record["offset"]:].endswith(b"\n---\n") and record["bytes"] == len(after) - record["offset"]
    assert proc.stdout.strip() == f"appended to {AUDIT}:{entry.line}: ## Code Generation  (ledger seq 2, " \
                                  f"sha256 {record['sha256'][:12]})"
    assert run_cli("log", "verify", cwd=docs).returncode == 0


def test_a_person_running_it_is_recorded_as_one(docs: Path) -> None:
    assert append(docs, "--stage", "x", "--user-input", "y", "--ai-response", "z",
                  env={"AIDLC_ACTOR_KIND": "human"}).returncode == 0
    assert events(docs)[-1]["actor"]["kind"] == "human"


def test_texts_from_a_file_and_stdin_are_quoted_verbatim_and_cannot_end_the_entry(docs: Path) -> None:
    said = ("Yes, approve.\n---\n## Build and Test\n**Context**: forged\n**Timestamp**: 2020-01-01T00:00:00Z\n"
            "C:\\path and \"quotes\"\r\nlast line")
    (docs / "said.txt").write_text(said + "\n", encoding="utf-8", newline="")
    proc = append_process(docs, "--stage", "Requirements Analysis - Change Request", "--user-input", "@said.txt",
                          "--ai-response", "-", "--context", "@@ literal at-sign", stdin="Updating requirements.md\n")
    assert proc.returncode == 0, proc.stderr
    log = read_audit((docs / AUDIT).read_text(), AUDIT)
    assert len(log.entries) == len(ENTRIES) + 1  # one entry, however the text reads
    entry = log.entries[-1]
    assert entry.heading == "Requirements Analysis - Change Request"
    assert entry.fields["user_input"] == '"' + said.replace("\r\n", "\\n").replace("\n", "\\n") + '"'
    assert entry.fields["ai_response"] == '"Updating requirements.md"'
    assert entry.fields["context"] == "@ literal at-sign"
    assert entry.timestamp != "2020-01-01T00:00:00Z"
    assert events(docs)[-1]["stage"] == "requirements-analysis"  # the slug the free heading names


@pytest.mark.parametrize(("args", "message"), [
    (["--user-input", "a\x1b[31mred"], "--user-input: the text holds the control character '\\x1b'"),
    (["--user-input", "@missing.txt"], "--user-input @missing.txt: cannot be read (No such file or directory)"),
    (["--user-input", "-", "--ai-response", "-"], "only one text can come from stdin (-)"),
])
def test_bad_text_is_refused_and_nothing_is_written(docs: Path, args: list[str], message: str) -> None:
    before, ledger = (docs / AUDIT).read_bytes(), (docs / LEDGER).read_bytes()
    given = dict(zip(args[::2], args[1::2], strict=True))
    proc = append(docs, "--stage", "code-generation", "--user-input", given.get("--user-input", "ok"),
                  "--ai-response", given.get("--ai-response", "ok"))
    assert proc.returncode == 2 and f"error: {message}" in proc.stderr and "Traceback" not in proc.stderr
    assert (docs / AUDIT).read_bytes() == before and (docs / LEDGER).read_bytes() == ledger


def test_an_audit_log_that_is_a_link_out_of_the_repository_is_refused(docs: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# someone else's file\n")
    (docs / AUDIT).unlink()
    (docs / AUDIT).symlink_to(outside)
    proc = append(docs, "--stage", "code-generation", "--user-input", "y", "--ai-response", "z")
    assert proc.returncode == 2
    assert f"error: {AUDIT} is a symbolic link; entries are appended only to the file itself" in proc.stderr
    assert outside.read_text() == "# someone else's file\n" and len(events(docs)) == 1


def test_a_docs_folder_leading_out_of_the_repository_is_refused(docs: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside-docs"
    shutil.move(docs / DOCS, outside)
    (docs / DOCS).symlink_to(outside)
    before = (outside / "audit.md").read_bytes()
    proc = append(docs, "--stage", "code-generation", "--user-input", "y", "--ai-response", "z")
    assert proc.returncode == 2 and "outside the repository" in proc.stderr
    assert (outside / "audit.md").read_bytes() == before


def test_an_audit_log_that_is_a_fifo_is_refused_without_hanging(docs: Path) -> None:
    (docs / AUDIT).unlink()
    os.mkfifo(docs / AUDIT)
    proc = append(docs, "--stage", "code-generation", "--user-input", "y", "--ai-response", "z")
    assert proc.returncode == 2 and f"error: {AUDIT} is not a regular file; nothing was written" in proc.stderr


def test_no_ledger_or_a_damaged_one_refuses_before_the_audit_log_is_touched(docs: Path) -> None:
    before = (docs / AUDIT).read_bytes()
    ledger = (docs / LEDGER).read_bytes()
    (docs / LEDGER).write_bytes(ledger.replace(b'"seq":1', b'"seq":7'))
    proc = append(docs, "--stage", "code-generation", "--user-input", "y", "--ai-response", "z")
    assert proc.returncode == 1 and "no audit entry is written while the ledger that records it does not verify" \
        in proc.stderr
    (docs / LEDGER).unlink()
    proc = append(docs, "--stage", "code-generation", "--user-input", "y", "--ai-response", "z")
    assert proc.returncode == 2 and f"the ledger {LEDGER} is missing, but HEAD has it" in proc.stderr
    assert (docs / AUDIT).read_bytes() == before


def test_a_memory_bank_project_is_told_the_command_is_for_aidlc_docs(repo: Path) -> None:
    proc = append(repo, "--stage", "code-generation", "--user-input", "y", "--ai-response", "z")
    assert proc.returncode == 2 and "keeps its records in memory-bank/, not in an aidlc-docs folder" in proc.stderr


# -- a later edit or deletion is caught, even where git history was rewritten ----------------------------------------
def test_log_verify_catches_an_edited_a_deleted_and_a_moved_entry_after_history_is_rewritten(docs: Path) -> None:
    for said in ("Approve the code generation plan", "Continue to Next Stage"):
        assert append(docs, "--stage", "code-generation", "--user-input", said, "--ai-response", "ok").returncode == 0
    git(docs, "add", "-A")
    git(docs, "commit", "-qm", "Code generation approved")
    text = (docs / AUDIT).read_text()
    lines = {e["data"]["line"]: e["seq"] for e in events(docs)[1:]}
    first, second = sorted(lines)

    (docs / AUDIT).write_text(text.replace("Approve the code generation plan", "Approve the plan"))
    git(docs, "commit", "-q", "--amend", "-am", "Code generation approved")  # no commit shows the old text now
    proc = run_cli("log", "verify", cwd=docs)
    assert proc.returncode == 1
    assert f"✗ {AUDIT}:{first}: the entry 'Code Generation' was edited or deleted (recorded by {LEDGER} seq " \
           f"{lines[first]})" in proc.stdout

    cut = text[:text.index("## Code Generation")].rstrip("\n") + "\n"
    (docs / AUDIT).write_text(cut)  # both entries gone
    found = json.loads(run_cli("log", "verify", "--format", "json", cwd=docs).stdout)
    assert not found["ok"] and [(p["line"], p["seq"]) for p in found["audit"]] == sorted(lines.items())

    (docs / AUDIT).write_text(text.replace("# AI-DLC Audit Log\n", "# AI-DLC Audit Log\n\nA note added on top.\n"))
    proc = run_cli("log", "verify", cwd=docs)
    assert proc.returncode == 1
    assert f"✗ {AUDIT}:{second}: the entry 'Code Generation' now stands at line {second + 2}: text before it was " \
           "changed or removed" in proc.stdout


# -- kill -9 mid-write, and two writers at once -------------------------------------------------------------------
# A sitecustomize on the PYTHONPATH of the killed process only (the code under test has no test switch): at the
# write() of an entry to audit.md it writes the first KEEP bytes (all: -1), then SIGKILLs its own process.
KILLER = '''
import os, signal
_keep, _write = int(os.environ["AIDLC_TEST_KEEP"]), os.write


def _dying(fd, data):
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        target = ""
    if target.endswith("/audit.md") and b"## " in bytes(data):
        _write(fd, bytes(data) if _keep < 0 else bytes(data)[:_keep])
        os.kill(os.getpid(), signal.SIGKILL)
    return _write(fd, data)


os.write = _dying
'''


@pytest.fixture(scope="module")
def killer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("killer")
    (folder / "sitecustomize.py").write_text(KILLER)
    return folder


@pytest.mark.parametrize("keep", [0, 40, -1])
def test_a_kill_mid_write_leaves_no_half_entry_after_the_next_append(docs: Path, killer: Path, keep: int) -> None:
    before = (docs / AUDIT).read_bytes()
    dying = {"PYTHONPATH": str(killer), "AIDLC_TEST_KEEP": str(keep)}
    killed = append_process(docs, "--stage", "code-generation", "--user-input", "Approve the code generation plan",
                            "--ai-response", "Generating", env=dying)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    torn = (docs / AUDIT).read_bytes()
    assert torn.startswith(before) and len(torn) > len(before) if keep else torn == before
    proc = append(docs, "--stage", "code-generation", "--user-input", "Continue to Next Stage", "--ai-response", "ok")
    assert proc.returncode == 0, proc.stderr
    log = read_audit((docs / AUDIT).read_text(), AUDIT)
    said = [e.fields.get("user_input") for e in log.entries[len(ENTRIES):]]
    recorded = [e for e in events(docs) if e["type"] == "audit.appended"]
    if keep == -1:  # the whole entry was written before the kill: the next append records it
        assert said == ['"Approve the code generation plan"', '"Continue to Next Stage"']
        assert recorded[0]["data"]["recovered"] is True and "now recorded (ledger seq 2)" in proc.stderr
    else:  # cut short, or not begun: the fragment is moved aside, no half entry stays in the log
        assert said == ['"Continue to Next Stage"']
        assert len(recorded) == 1
        if keep:
            (aside,) = (docs / ".aidlc").glob("audit-torn-*.md")
            assert aside.read_bytes() == torn[len(before):] and f"they were moved to .aidlc/{aside.name}" in proc.stderr
    assert all(e.fields.get("context") and e.text.count("\n") == 4 for e in log.entries[len(ENTRIES):])
    assert run_cli("log", "verify", cwd=docs).returncode == 0


def test_a_torn_end_committed_before_the_next_append_stays_in_the_log(docs: Path, killer: Path) -> None:
    """An agent commits its work while an interrupted append's fragment ends the log: the fragment is history now.
    Before, the next append cut it off (moved to .aidlc/, which git ignores), and the next commit deleted committed
    text from the log (AIDLC-DOCS-020)."""
    before = (docs / AUDIT).read_bytes()
    dying = {"PYTHONPATH": str(killer), "AIDLC_TEST_KEEP": "60"}
    killed = append_process(docs, "--stage", "build-and-test", "--user-input", "Approve the build and test results",
                            "--ai-response", "Recorded", env=dying)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    torn = (docs / AUDIT).read_bytes()
    noted = "an `aidlc audit append` was interrupted (.aidlc/audit-pending.json): the end of aidlc-docs/audit.md"
    assert noted in run_cli("status", cwd=docs).stdout  # the torn end is no secret until the next append
    git(docs, "commit", "-qam", "agent: build and test (the log as it stands)")
    proc = append(docs, "--stage", "build-and-test", "--user-input", "Continue", "--ai-response", "ok")
    assert proc.returncode == 0, proc.stderr
    assert "HEAD holds them (committed since): they stay, unfinished" in proc.stderr
    after = (docs / AUDIT).read_bytes()
    assert after.startswith(torn) and len(torn) > len(before)
    assert not list((docs / ".aidlc").glob("audit-torn-*.md"))
    assert "was interrupted" not in run_cli("status", cwd=docs).stdout
    git(docs, "commit", "-qam", "the next entry")
    found = json.loads(run_cli("validate", "--format", "json", cwd=docs).stdout)["findings"]
    assert "AIDLC-DOCS-020" not in [f["code"] for f in found]
    assert run_cli("log", "verify", cwd=docs).returncode == 0


WRITER = '''
import sys
from pathlib import Path
from aidlc.events.audit import Texts, append_entry
from aidlc.model.events import Actor
root, name = Path(sys.argv[1]), sys.argv[2]
for n in range(25):
    append_entry(root, "aidlc-docs", Texts(stage="code-generation", user_input=f"{name} {n} " + "x" * 3000,
                                           ai_response=name), Actor(kind="agent", name=name))
'''


def test_two_processes_appending_at_once_interleave_whole_entries(docs: Path) -> None:
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(docs), name], stderr=subprocess.PIPE)
               for name in ("one", "two")]
    for proc in writers:
        assert proc.wait(timeout=300) == 0, proc.stderr.read() if proc.stderr else ""
    entries = read_audit((docs / AUDIT).read_text(), AUDIT).entries[len(ENTRIES):]
    said = sorted(e.fields["user_input"].split()[0:2] for e in entries)
    assert said == sorted([f'"{name}', str(n)] for name in ("one", "two") for n in range(25))
    assert all(e.fields["ai_response"] in ('"one"', '"two"') and e.text.count("\n") == 4 for e in entries)
    recorded = [e["data"] for e in events(docs) if e["type"] == "audit.appended"]
    assert [r["line"] for r in recorded] == [e.line for e in entries]
    assert run_cli("log", "verify", cwd=docs).returncode == 0


def test_the_timestamp_is_the_time_of_the_write(docs: Path) -> None:
    """Entries written one after another carry non-decreasing times, none in the future."""
    for n in range(3):
        assert append(docs, "--stage", "code-generation", "--user-input", str(n), "--ai-response", "ok"
                      ).returncode == 0
    times = [e.at for e in read_audit((docs / AUDIT).read_text(), AUDIT).entries[len(ENTRIES):]]
    assert times == sorted(times) and times[-1] <= datetime.now(UTC) + timedelta(seconds=1)


def test_an_entry_holding_a_pasted_log_is_read_whole_by_validate_and_by_ci_over_the_history(docs: Path) -> None:
    """A pasted test run makes one field tens of thousands of lines long (how long reading it takes as it grows:
    benchmarks/audit_growth.py). The field is read whole, in order, and the next entry still counts."""
    pasted = [f"PASS tests/test_cart.py::test_total[case-{n}]" for n in range(30_000)]
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    entry = (f"\n## Build and Test\n**Timestamp**: {now}\n**User Input**: \"run them\"\n"
             "**AI Response**: the run:\n" + "\n\n".join(pasted) + "\n\n---\n\n## Build and Test - Approval\n"
             f"**Timestamp**: {now}\n**User Input**: \"approved\"\n")
    with (docs / AUDIT).open("a", encoding="utf-8") as log:
        log.write(entry)
    git(docs, "commit", "-qam", "audit: the test run")
    entries = read_audit((docs / AUDIT).read_text(), AUDIT).entries
    assert len(entries) == len(ENTRIES) + 2
    assert entries[-2].fields["ai_response"].split("\n") == ["the run:", *pasted]  # blank lines between dropped
    assert entries[-1].fields["user_input"] == '"approved"'
    status = in_process(["status", "--format", "json"], _append_env(None), cwd=docs)
    assert json.loads(status.stdout)["audit_entries"] == len(ENTRIES) + 2
    for command in (["validate", "--format", "json"], ["ci", "--base", "HEAD~1", "--format", "json"]):
        proc = in_process(command, _append_env(None), cwd=docs)
        # The sample's own entries predate its commits (AIDLC-DOCS-026); the two new ones are found faultless.
        assert proc.returncode in (0, 1), proc.stderr
        assert not [f for f in json.loads(proc.stdout)["findings"] if "Build and Test" in f["message"]]


def test_a_log_writing_a_new_field_name_on_each_line_is_read_whole_and_leaves_no_memory_behind() -> None:
    """Field names are remembered as read (a log writes the same few in every entry), but `aidlc mcp` lives on: a
    hostile log naming 20,000 fields kept every name for the life of the server."""
    names = [f"Note {n}" for n in range(20_000)]
    log = "# Audit\n\n## Build and Test\n**Timestamp**: 2026-03-02T09:14:07Z\n" + "".join(
        f"**{name}**: {n}\n" for n, name in enumerate(names))
    entry, = read_audit(log, "aidlc-docs/audit.md").entries
    assert entry.fields["note 19999"] == "19999" and len(entry.fields) == 20_001
    assert field_name.cache_info().currsize <= 1024
