"""Adopting aidlc on an existing specs.md bank (tests/specsmd_bank.py, a real git history): what git shows was
complete before the ledger's first event is adopted history, a warning naming the commit, until its file changes;
`aidlc init` says how many findings are history and how many are live defects, and the path it prints (baseline,
commit, `aidlc ci`) is green on day one, while `--strict` fails naming each adopted finding."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from aidlc.events.ledger import Ledger
from aidlc.model.events import Actor, ActorKind, Decision, EventType, FileDigest, Subject
from tests.helpers import run_cli
from tests.specsmd_bank import COMPLETE_BOLTS, COMPLETE_STORIES, GIT_ENV, build_bank, commit, complete_bolt, story_rel

# STATE-001 and LEDGER-003 per complete story, LEDGER-002 per complete bolt, LEDGER-004 for the intent.
ADOPTED = len(COMPLETE_STORIES) * 2 + len(COMPLETE_BOLTS) + 1
LIVE = 3  # two stories without `implemented` (STATE-002), a bolt started after it completed (STATE-004)
EDITED = story_rel("001-parser", "002", "parse-sessions")


def aidlc(root: Path, *args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=root, env={**GIT_ENV, "CI": "true"})


def findings(root: Path, *args: str) -> list[dict]:
    proc = aidlc(root, "--format", "json", "validate", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["findings"]


def by_code(found: list[dict], code: str) -> dict[str, dict]:
    return {f["path"]: f for f in found if f["code"] == code}


@pytest.fixture
def bank(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "logs"
    return root, build_bank(root)


def test_stories_completed_before_init_are_adopted_until_one_is_edited(bank: tuple[Path, dict[str, str]]) -> None:
    root, commits = bank
    assert aidlc(root, "init").returncode == 0
    commit(root, "Adopt aidlc")
    before = commits["server"][:12]
    found = findings(root)
    unchecked = by_code(found, "AIDLC-STATE-001")
    assert set(unchecked) == set(COMPLETE_STORIES)
    for path, boxes in COMPLETE_STORIES.items():
        assert unchecked[path]["severity"] == "warning" and unchecked[path]["adopted"] == commits["server"]
        assert unchecked[path]["message"].startswith(
            f"completed before aidlc governed this bank (so in commit {before}, the last before the ledger, and "
            f"unchanged since): story ")
        assert unchecked[path]["message"].endswith(f"is complete but {boxes} of {boxes} acceptance boxes are unchecked")
    assert len(by_code(found, "AIDLC-LEDGER-008")) == ADOPTED - len(COMPLETE_STORIES)
    assert sorted(f["code"] for f in found if f["severity"] == "error") == \
        ["AIDLC-STATE-002", "AIDLC-STATE-002", "AIDLC-STATE-004"]

    # A story of that history changes after adoption: it is judged as any completion now is.
    text = (root / EDITED).read_text()
    (root / EDITED).write_text(text.replace("- Keep it small", "- Keep it small, and fast"))
    commit(root, "a note on an old story")
    found = findings(root)
    edited = by_code(found, "AIDLC-STATE-001")[EDITED]
    assert edited["severity"] == "error" and edited["adopted"] is None
    assert edited["message"] == ("story 002-parse-sessions is complete but 4 of 4 acceptance boxes are unchecked (it "
                                 f"was complete in commit {before}, the last before the ledger, but its file changed "
                                 "after aidlc governed this bank)")
    assert by_code(found, "AIDLC-LEDGER-003")[EDITED]["severity"] == "error"
    still = {path for path, f in by_code(found, "AIDLC-STATE-001").items() if f["adopted"]}
    assert still == set(COMPLETE_STORIES) - {EDITED}
    proc = aidlc(root, "validate")
    assert proc.returncode == 1 and f"{EDITED}:22 AIDLC-STATE-001 story 002-parse-sessions" in proc.stdout


def test_a_backdated_completion_with_no_commit_before_the_ledger_is_an_error(bank: tuple[Path, dict[str, str]]) -> None:
    root, commits = bank
    assert aidlc(root, "init").returncode == 0
    commit(root, "Adopt aidlc")
    # Bolt 003 done after adoption, its dates written in 2025, before the ledger's first event.
    complete_bolt(root, "003-watcher", "2025-12-29T18:00:00Z", "2025-12-29T18:30:00Z")
    story = story_rel("003-watcher", "001", "watch-changes")
    found = findings(root)  # not committed yet
    assert by_code(found, "AIDLC-STATE-001")[story]["message"].endswith(
        f"(it was not complete in commit {commits['server'][:12]}, the last before the ledger)")
    commit(root, "bolt 003-watcher complete (in 2025)")
    found = findings(root)
    for code, path in (("AIDLC-STATE-001", story), ("AIDLC-LEDGER-003", story),
                       ("AIDLC-LEDGER-002", "memory-bank/bolts/003-watcher/bolt.md")):
        hit = by_code(found, code)[path]
        assert hit["severity"] == "error" and hit["adopted"] is None, hit
        assert f"(it was not complete in commit {commits['server'][:12]}, the last before the ledger)" in \
            hit["message"]


def test_a_completion_committed_with_the_ledger_is_not_history(bank: tuple[Path, dict[str, str]]) -> None:
    root, commits = bank
    assert aidlc(root, "init").returncode == 0
    complete_bolt(root, "003-watcher", "2025-12-29T18:00:00Z", "2025-12-29T18:30:00Z")
    commit(root, "Adopt aidlc, and bolt 003-watcher on the way")
    hit = by_code(findings(root), "AIDLC-STATE-001")[story_rel("003-watcher", "001", "watch-changes")]
    assert hit["severity"] == "error"
    assert hit["message"].endswith(f"(it was not complete in commit {commits['server'][:12]}, the last before the "
                                   "ledger)")


def _step(output: str, command: str) -> str:
    """The next step `aidlc init` printed that starts with `command`, without its comment."""
    line = next(line.strip() for line in output.splitlines() if line.strip().startswith(command))
    return line.split("    #", 1)[0]


def test_init_then_ci_on_an_adopted_bank_passes_and_strict_names_each_adopted_finding(
        bank: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, commits = bank
    proc = aidlc(root, "init")
    assert proc.returncode == 0, proc.stderr
    assert f"the bank as it is: {ADOPTED} findings of adopted history (completed before aidlc governed this bank: " \
           f"warnings naming the commit that shows it), {LIVE} live defects (errors), 0 other warnings" in proc.stdout
    summary = json.loads(aidlc(root, "--format", "json", "validate").stdout)["summary"]
    assert (summary["adopted"], summary["errors"], summary["warnings"]) == (ADOPTED, LIVE, ADOPTED)
    again = json.loads(aidlc(root, "--format", "json", "init").stdout)  # rerun: nothing written, the same counts
    assert again["found"] == {"adopted": ADOPTED, "errors": LIVE, "warnings": 0}
    known = LIVE + summary["infos"]  # the baseline holds the live findings, notes too, never adopted history

    baseline = _step(proc.stdout, "aidlc ci --write-baseline")
    assert baseline == "aidlc ci --write-baseline"
    written = aidlc(root, *shlex.split(baseline)[1:])
    assert written.returncode == 0, written.stderr
    assert written.stdout.startswith(f"wrote .aidlc-baseline.json: {known} findings are known from now on; new ones "
                                     f"fail ({ADOPTED} warnings of adopted history are left out")
    adopt = _step(proc.stdout, "git -C")
    subprocess.run(adopt, shell=True, check=True, env={**GIT_ENV, "PATH": "/usr/bin:/bin"})
    assert "memory-bank/events.jsonl" in subprocess.run(["git", "-C", str(root), "show", "--name-only", "HEAD"],
                                                        capture_output=True, text=True, check=True).stdout

    for args in ((), ("--base", commits["server"])):
        ci = aidlc(root, "ci", *args)
        assert ci.returncode == 0, ci.stdout + ci.stderr
        assert re.search(rf"aidlc ci passed \(.*\): \d+ files, 0 errors, {ADOPTED} warnings \({ADOPTED} adopted "
                         rf"history\), 0 notes, {known} known and 0 fixed", ci.stdout), ci.stdout

    sarif = tmp_path / "aidlc.sarif"
    report = json.loads(aidlc(root, "--format", "json", "ci", "--sarif", str(sarif)).stdout)
    adopted = [f for f in report["findings"] if f["adopted"]]
    assert len(adopted) == ADOPTED and {f["adopted"] for f in adopted} == {commits["server"]}
    assert all(f["severity"] == "warning" and f["baseline"] == "new" for f in adopted)
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert sorted((r["ruleId"], r["level"]) for r in results if r.get("properties", {}).get("adopted")) == \
        sorted((f["code"], "warning") for f in adopted)

    strict = aidlc(root, "ci", "--strict")
    assert strict.returncode == 1
    for finding in adopted:
        where = f"{finding['path']}:{finding['line']}" if finding["line"] else finding["path"]
        assert f"[WARNING] {where} {finding['code']} " in strict.stdout, finding
    assert "(--strict: warnings fail)" in strict.stdout
    assert f"  aidlc ci    # without --strict, the {ADOPTED} warnings of adopted history do not fail" in strict.stdout
    against = aidlc(root, "ci", "--base", commits["server"], "--strict")  # the same run without --strict: its base too
    assert against.returncode == 1 and f"  aidlc ci --base {commits['server']}    # without --strict" in against.stdout
    assert aidlc(root, "validate", "--strict").returncode == 1


def test_a_pull_request_that_starts_the_ledger_cannot_adopt_its_own_completions(
        bank: tuple[Path, dict[str, str]]) -> None:
    """The attack: complete stories by hand in one commit, start the ledger in the next, and open the pull request.
    Without a base, git shows those completions before the ledger; judged against the base, they are the pull
    request's own, and only what the base held is history."""
    root, commits = bank
    base = commits["parser"]  # the pull request: bolt 002-server done by hand, then `aidlc init`
    assert aidlc(root, "init").returncode == 0
    commit(root, "Adopt aidlc")
    own = story_rel("002-server", "001", "serve-pages")
    assert by_code(findings(root), "AIDLC-STATE-001")[own]["adopted"] == commits["server"]
    proc = aidlc(root, "--format", "json", "ci", "--base", base)
    assert proc.returncode == 1, proc.stderr
    found = json.loads(proc.stdout)["findings"]
    hit = by_code(found, "AIDLC-STATE-001")[own]
    assert hit["severity"] == "error" and hit["adopted"] is None
    assert hit["message"].endswith(f"(it was not complete in commit {base[:12]}, the base of this pull request, "
                                   "which starts the ledger)")
    assert by_code(found, "AIDLC-LEDGER-002")["memory-bank/bolts/002-server/bolt.md"]["severity"] == "error"
    history = by_code(found, "AIDLC-STATE-001")[EDITED]  # bolt 001-parser was complete in the base: history
    assert history["adopted"] == base and history["message"].startswith(
        f"completed before aidlc governed this bank (so in commit {base[:12]}, the base of this pull request, which "
        "starts the ledger, and unchanged since)")


def test_a_story_new_since_the_ledger_keeps_the_plain_finding(bank: tuple[Path, dict[str, str]]) -> None:
    """No history to speak of: a story written after adoption and marked complete is the ordinary error."""
    root, _commits = bank
    assert aidlc(root, "init").returncode == 0
    commit(root, "Adopt aidlc")
    new = story_rel("003-watcher", "002", "watch-renames")
    text = (root / story_rel("003-watcher", "001", "watch-changes")).read_text()
    (root / new).write_text(text.replace("001-watch-changes", "002-watch-renames").replace("status: draft",
                                                                                          "status: complete"))
    commit(root, "a new story, complete by hand")
    hit = by_code(findings(root), "AIDLC-STATE-001")[new]
    assert hit["severity"] == "error" and hit["adopted"] is None
    assert hit["message"] == "story 002-watch-renames is complete but 2 of 2 acceptance boxes are unchecked"


def test_a_pull_request_cannot_move_the_ledger_s_birth_with_a_backdated_add(bank: tuple[Path, dict[str, str]]) -> None:
    """The attack: after adoption, bolt 003-watcher was completed by hand on main (an error there). A pull request
    merges a line that branched off before the ledger and adds it there, backdated, with one more event: git's walk
    of the ledger's path follows the merged line alone, finds that add, which the base does not hold, and the base
    would look like the ledger's start and its hand completion like history. Judged against its base, the ledger was
    born where the base's history says: the completion stays an error."""
    root, commits = bank
    assert aidlc(root, "init").returncode == 0
    commit(root, "Adopt aidlc")
    complete_bolt(root, "003-watcher", "2026-01-05T18:00:00Z", "2026-01-05T18:30:00Z")
    base = commit(root, "bolt 003-watcher complete by hand")
    story = story_rel("003-watcher", "001", "watch-changes")
    assert by_code(findings(root), "AIDLC-STATE-001")[story]["severity"] == "error"

    def run_git(*args: str, **env: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV, **env})

    ledger = root / "memory-bank" / "events.jsonl"
    kept = ledger.read_bytes()
    run_git("checkout", "-q", "-b", "side", commits["server"])
    ledger.write_bytes(kept)
    Ledger(ledger, root).append(EventType.gate_decided, Actor(kind=ActorKind.human, name="Ada", email="ada@x.org"),
                                subject=Subject(kind="bolt", id="003-watcher"), stage="walkthrough",
                                decision=Decision.reject,
                                fingerprint=FileDigest(path="memory-bank/bolts/003-watcher/bolt.md", sha256="0" * 64))
    run_git("add", "memory-bank/events.jsonl")
    run_git("commit", "-qm", "the ledger", GIT_AUTHOR_DATE="2020-01-01T00:00:00Z",
            GIT_COMMITTER_DATE="2020-01-01T00:00:00Z")
    longer = ledger.read_bytes()
    run_git("checkout", "-q", "-b", "pr", base)
    run_git("merge", "-q", "--no-commit", "-s", "ours", "side")
    ledger.write_bytes(longer)  # the base's ledger with the side's event: the side's version of it
    run_git("commit", "-qam", "merge side")
    proc = aidlc(root, "--format", "json", "ci", "--base", base)
    hit = by_code(json.loads(proc.stdout)["findings"], "AIDLC-STATE-001")[story]
    assert proc.returncode == 1 and hit["severity"] == "error" and hit["adopted"] is None, hit
    assert hit["message"].endswith(f"(it was not complete in commit {commits['server'][:12]}, the last before the "
                                   "ledger)")
