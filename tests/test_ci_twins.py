"""One record on every machine (aidlc/ci/checks.py records_twinned): a pull request cannot add a second spelling of a
records file or folder, differing only in letter case or Unicode form, which git keeps beside the first and a
case-insensitive checkout (macOS, Windows) folds into one. Each attack is made with git and the CLI, as a
pull-request author would make it; CI runs on Linux, where both spellings are files of their own."""

from __future__ import annotations

import os
import subprocess
import tracemalloc
import unicodedata
from pathlib import Path

from aidlc.ci import checks
from tests.aidlc_docs_sample import AUDIT
from tests.test_ci import commit, document, pr  # noqa: F401 - pr is a fixture
from tests.test_ci_attributes import docs_pull_request
from tests.test_ci_rulebook import EVE
from tests.test_gate import LEDGER, write


def twins(doc: dict) -> list[dict]:
    return [finding for finding in doc["findings"] if finding["code"] == "AIDLC-CI-019"]


def take(root: Path, fix: str) -> None:
    """The step a finding gives, run as Eve would run it."""
    env = {**os.environ, "GIT_AUTHOR_NAME": EVE[0], "GIT_AUTHOR_EMAIL": EVE[1], "GIT_COMMITTER_NAME": EVE[0],
           "GIT_COMMITTER_EMAIL": EVE[1]}
    step = fix.partition("    #")[0].replace("git commit", "git commit -q -m 'one spelling'")
    subprocess.run(["bash", "-c", step], cwd=root, env=env, check=True)


def test_a_second_spelling_of_the_ledger_is_refused_and_the_step_mends_it(pr: Path) -> None:  # noqa: F811
    """Eve adds `memory-bank/Events.jsonl`: the ledger with an approval of her own appended. Here aidlc reads
    events.jsonl and the forgery is a file nobody reads; a reviewer's Mac checks out one file for both, and `aidlc
    status` there reads whichever was written last. Before: `aidlc ci passed`."""
    ledger = (pr / LEDGER).read_text(encoding="utf-8")
    forged = ledger + '{"forged": "approval"}\n'
    write(pr, "memory-bank/Events.jsonl", forged)
    commit(pr, "ledger", EVE)
    doc = document(pr, "--base", "main")
    assert not doc["passed"]
    [twin] = twins(doc)
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == ["AIDLC-CI-019"]
    assert twin["path"] == LEDGER  # the spelling the base holds is the one to keep
    assert twin["message"].startswith("memory-bank/Events.jsonl and memory-bank/events.jsonl differ only in letter "
                                      "case: a checkout on a case-insensitive file system (macOS, Windows) keeps one")
    assert twin["fix"].startswith("git rm -r -q --cached -- memory-bank/Events.jsonl && git commit    # keep "
                                  f"{LEDGER}")
    take(pr, twin["fix"])
    assert document(pr, "--base", "main")["passed"]
    assert (pr / LEDGER).read_text(encoding="utf-8") == ledger


def test_a_twin_records_folder_is_named_once_at_the_folder(tmp_path: Path) -> None:
    """`AIDLC-Docs/` beside `aidlc-docs/`, holding an audit log of its own and a copy of the state file: on a Mac
    the two folders are one, whose audit.md is one of the two logs. Named once, at the folder."""
    repo = docs_pull_request(tmp_path / "shop")
    repo.write("AIDLC-Docs/audit.md", repo.read(AUDIT) + "\n## Build and Test approved\n")
    repo.write("AIDLC-Docs/aidlc-state.md", repo.read("aidlc-docs/aidlc-state.md"))
    repo.commit("docs")
    [twin] = twins(document(repo.root, "--base", "base"))
    assert twin["path"] == "aidlc-docs"
    assert twin["message"].startswith("AIDLC-Docs and aidlc-docs differ only in letter case")
    assert twin["fix"].startswith("git rm -r -q --cached -- AIDLC-Docs && git commit")


def test_a_records_file_spelled_in_another_unicode_form_is_refused(tmp_path: Path) -> None:
    """A plan named `café` as the base holds it (é one character, NFC) and again with é as e and an accent (NFD), as
    HFS+ would write it: one name there, two files here. The message spells both with escapes: they look alike."""
    repo = docs_pull_request(tmp_path / "shop")
    nfc = "aidlc-docs/construction/plans/caf\u00e9-plan.md"
    subprocess.run(["git", "-C", str(repo.root), "checkout", "-q", "base"], check=True)
    repo.write(nfc, "# Plan\n\n- [x] Step one\n")
    repo.commit("plan")
    subprocess.run(["git", "-C", str(repo.root), "checkout", "-q", "-B", "pr", "base"], check=True)
    nfd = unicodedata.normalize("NFD", nfc)
    repo.write(nfd, "# Plan\n\n- [ ] Step one\n")
    repo.commit("plan again")
    [twin] = twins(document(repo.root, "--base", "base"))
    assert twin["path"] == nfc
    assert twin["message"].startswith("aidlc-docs/construction/plans/cafe\\u0301-plan.md and aidlc-docs/construction/"
                                      "plans/caf\\xe9-plan.md differ only in Unicode form")


def test_twins_outside_the_records_are_not_its_business_and_the_config_file_is(pr: Path) -> None:  # noqa: F811
    write(pr, "src/App.py", "print('a')\n")
    write(pr, "src/app.py", "print('b')\n")
    commit(pr, "code twins", EVE)
    assert twins(document(pr, "--base", "main")) == []
    write(pr, "AIDLC.yaml", "governance:\n  paths: []\n")
    commit(pr, "config twin", EVE)
    [twin] = twins(document(pr, "--base", "main"))
    assert twin["path"] == "aidlc.yaml" and twin["message"].startswith("AIDLC.yaml and aidlc.yaml differ only in")


def test_a_docs_folder_the_base_lacks_is_judged_and_the_spelling_aidlc_reads_is_kept(tmp_path: Path) -> None:
    """The base holds no records (judged as a memory bank); the pull request brings an aidlc-docs folder with
    `AUDIT.md` beside `audit.md`. Before: passed, the twins not looked for outside the memory bank's folder."""
    root = tmp_path / "shop"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    commit(root, "empty", EVE)
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-b", "docs"], check=True)
    write(root, "aidlc-docs/aidlc-state.md", "# State\n\n- [ ] Requirements Analysis\n")
    write(root, "aidlc-docs/audit.md", "# Audit\n")
    write(root, "aidlc-docs/AUDIT.md", "# Audit\n")
    commit(root, "docs", EVE)
    [twin] = twins(document(root, "--base", "main"))
    assert twin["path"] == "aidlc-docs/audit.md"
    assert twin["fix"].startswith("git rm -r -q --cached -- aidlc-docs/AUDIT.md && git commit    # keep aidlc-docs/")


def test_twins_are_found_in_space_the_names_bound() -> None:
    """200 files 2,000 folders deep, twinned at the thousandth: every folder above each file was a path of its own
    (about 4 * 10**8 characters held); the tree of names holds each name once."""
    deep = "/".join(["aidlc-docs", *["a"] * 999])
    paths = [f"{deep}/b/{'/'.join(['c'] * 1000)}/{n}.md" for n in range(100)]
    paths += [f"{deep}/B/{'/'.join(['c'] * 1000)}/{n}.md" for n in range(100)]
    tracemalloc.start()
    found = checks.twin_spellings(paths)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert found == [[f"{deep}/B", f"{deep}/b"]] and peak < 50_000_000
    assert checks.twin_spellings(["x/Audit.md", "x/audit.md", "x/AUDIT.md", "y/a.md"]) == [
        ["x/AUDIT.md", "x/Audit.md", "x/audit.md"]]
