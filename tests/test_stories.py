"""The story helper process: the same findings with it as without it, whatever happens to it."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aidlc.bank import loader, stories, walk
from aidlc.bank.config import load_config
from aidlc.bank.loader import load_bank
from aidlc.rules import validate
from tests.helpers import UNIT_DIR, Bank

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
                                reason="the helper runs only on Linux with two or more CPUs")

# Bodies that take every branch of the story reader, and files it cannot read at all.
ODD_STORIES: dict[str, bytes] = {
    "003-fenced.md": b"---\nid: 003-fenced\nunit: 001-checkout-api\nstatus: draft\n---\n\n## Acceptance Criteria\n\n"
                     b"```\n- [ ] inside a fence\n```\n- [ ] **Given** a, **When** b, **Then** it is fast\n"
                     b"\n**Related Requirements**: FR-1 / FR-9\n",
    "004-crlf.md": b"---\r\nid: 004-crlf\r\nunit: 001-checkout-api\r\n---\r\n\r\n## Acceptance Criteria\r\n\r\n"
                   b"- [x] done\r\n-\r\n* plain bullet\r\n",
    "005-bom.md": "\ufeff---\nid: 005-bom\nunit: 001-checkout-api\n---\n# Acceptance criteria\n- [ ] b\n".encode(),
    "006-label.md": b"---\nid: 006-label\nunit: 001-checkout-api\n---\n"
                    b"**Acceptance Criteria**:\n- [ ] a\n- appropriate\n",
    "007-odd-breaks.md": b"---\nid: 007-odd-breaks\n---\n## Acceptance Criteria\x0c\n- [ ] x\x0b- [ ] y\n",
    "008-latin1.md": b"---\nid: 008-latin1\n---\n## Acceptance Criteria\n- [ ] caf\xe9\n",
    "009-no-front-matter.md": b"# Story\n\n## Acceptance Criteria\n\n- [ ] only a body\n",
    "010-unclosed.md": b"---\nid: 010-unclosed\n## Acceptance Criteria\n- [ ] never closed\n",
    "011-empty.md": b"",
}


@pytest.fixture
def odd_bank(bank: Bank) -> Bank:
    for name, data in ODD_STORIES.items():
        bank.write_bytes(f"{UNIT_DIR}/stories/{name}", data)
    return bank


BIG = [f"{n:03d}-story-{n}.md" for n in range(3, 3 + 3 * 100)]  # more than three chunks


@pytest.fixture
def big_bank(bank: Bank) -> Bank:
    for name in BIG:
        bank.write(f"{UNIT_DIR}/stories/{name}", f"---\nid: {name[:-3]}\nunit: 001-checkout-api\n"
                   "intent: 001-checkout\nstatus: draft\n---\n\n## Acceptance Criteria\n\n- [ ] **Given** a, "
                   "**When** b, **Then** c\n")
    return bank


@pytest.fixture
def helper_for_every_bank(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Fork the helper even for a small bank; yield the pids it ran as."""
    # Forced on unless switched off; test_when_the_helper_runs checks the real conditions.
    monkeypatch.setattr(stories, "wanted", lambda _stories: os.environ.get(stories.SWITCH) != "0")
    pids: list[int] = []
    start = stories.StoryHelper.start.__func__  # type: ignore[attr-defined]

    def recording_start(cls: type[stories.StoryHelper], *args: Any) -> stories.StoryHelper | None:
        helper = start(cls, *args)
        if helper is not None:
            pids.append(helper.pid)
        return helper

    monkeypatch.setattr(stories.StoryHelper, "start", classmethod(recording_start))
    yield pids


def findings(root: Path) -> list[tuple]:
    report = validate(load_bank(root, load_config(root)))
    return [(f.code, f.path, f.line, f.message) for f in report.findings]


def inline_findings(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    with monkeypatch.context() as patch:
        patch.setenv(stories.SWITCH, "0")
        return findings(root)


def children() -> list[str]:
    """Live or unreaped children of this process."""
    pid = os.getpid()
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


def test_the_helper_finds_exactly_what_inline_parsing_finds(
    odd_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = inline_findings(odd_bank.root, monkeypatch)
    assert not helper_for_every_bank
    assert findings(odd_bank.root) == expected
    assert len(helper_for_every_bank) == 1  # it did run
    codes = {code for code, *_ in expected}
    assert {"AIDLC-FILE-001", "AIDLC-FILE-003", "AIDLC-STRUCT-002", "AIDLC-REF-001"} <= codes
    assert children() == []


def test_the_helpers_parts_equal_the_inline_parts_story_by_story(
    odd_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def parts(bank_root: Path) -> list[tuple]:
        bank = load_bank(bank_root, load_config(bank_root))
        return [(s.rel, s.criteria_line, s.criteria, s.related_line, s.related, s.opinion_hint) for s in bank.stories]

    with monkeypatch.context() as patch:
        patch.setenv(stories.SWITCH, "0")
        inline = parts(odd_bank.root)
    assert parts(odd_bank.root) == inline
    assert len(inline) == 2 + len(ODD_STORIES)
    assert any(criteria for _rel, _line, criteria, *_ in inline)


def in_the_helper_only(change: Any) -> Any:
    """A `read_story` that behaves like `change` in the helper process and normally here."""
    parent, real = os.getpid(), stories.read_story

    def read(path: str, rel: str) -> stories.StoryRead:
        return real(path, rel) if os.getpid() == parent else change(real, path, rel)

    return read


def test_a_helper_that_fails_changes_nothing(
    odd_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = inline_findings(odd_bank.root, monkeypatch)

    def broken(real: Any, path: str, rel: str) -> stories.StoryRead:
        raise RuntimeError("helper bug")

    monkeypatch.setattr(stories, "read_story", in_the_helper_only(broken))
    assert findings(odd_bank.root) == expected
    assert helper_for_every_bank and children() == []


def test_a_helper_killed_half_way_changes_nothing(
    big_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = inline_findings(big_bank.root, monkeypatch)
    calls = [0]

    def dies_in_its_second_chunk(real: Any, path: str, rel: str) -> stories.StoryRead:
        calls[0] += 1
        if calls[0] == stories.CHUNK + 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(path, rel)

    monkeypatch.setattr(stories, "read_story", in_the_helper_only(dies_in_its_second_chunk))
    assert findings(big_bank.root) == expected
    assert helper_for_every_bank and children() == []


def test_frames_this_process_cannot_read_are_read_here(
    odd_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = inline_findings(odd_bank.root, monkeypatch)
    monkeypatch.setattr(stories, "_pack", lambda doc, parts: ("not", "a", "story"))  # only the helper packs
    assert findings(odd_bank.root) == expected
    assert helper_for_every_bank and children() == []


@pytest.mark.parametrize("slow", ["helper", "here"])
def test_neither_process_waits_for_a_slower_one(
    slow: str, big_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow helper: this process reads most stories. A busy one here: the helper delivers most."""
    expected = inline_findings(big_bank.root, monkeypatch)
    here = [0]
    parent, real = os.getpid(), stories.read_story

    def slow_on_one_side(path: str, rel: str) -> stories.StoryRead:
        in_parent = os.getpid() == parent
        here[0] += in_parent
        if in_parent == (slow == "here"):
            time.sleep(0.002)
        return real(path, rel)

    monkeypatch.setattr(stories, "read_story", slow_on_one_side)
    assert findings(big_bank.root) == expected
    assert (here[0] > len(BIG) // 2) == (slow == "helper")
    assert helper_for_every_bank and children() == []


def test_an_error_while_loading_stops_the_helper(
    odd_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(self: object, entry: object) -> None:
        raise RuntimeError("bolt reader bug")

    monkeypatch.setattr(loader._Loader, "_bolt", crash)
    with pytest.raises(RuntimeError, match="bolt reader bug"):
        findings(odd_bank.root)
    assert helper_for_every_bank and children() == []


def test_when_the_helper_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    assert threading.active_count() == 1, [thread.name for thread in threading.enumerate()]  # no test left one
    monkeypatch.delenv(stories.SWITCH, raising=False)
    assert not stories.wanted(stories.MIN_STORIES - 1)
    assert stories.wanted(stories.MIN_STORIES)
    monkeypatch.setenv(stories.SWITCH, "0")
    assert not stories.wanted(stories.MIN_STORIES)
    monkeypatch.delenv(stories.SWITCH)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not stories.wanted(stories.MIN_STORIES)  # forking a threaded process can deadlock the child
    finally:
        stop.set()
        other.join()


def test_validate_through_the_cli_with_the_helper(
    odd_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from aidlc.cli import cli

    with monkeypatch.context() as patch:
        patch.setenv(stories.SWITCH, "0")
        inline = CliRunner().invoke(cli, ["--repo", str(odd_bank.root), "--format", "json", "validate"])
    helped = CliRunner().invoke(cli, ["--repo", str(odd_bank.root), "--format", "json", "validate"])
    assert helped.output == inline.output and helped.exit_code == inline.exit_code == 1
    assert len(helper_for_every_bank) == 1


def test_a_helper_started_before_the_imports_is_used(
    odd_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = inline_findings(odd_bank.root, monkeypatch)
    early = stories.start_early(odd_bank.root)
    assert early is not None and len(early.jobs) == 2 + len(ODD_STORIES)
    report = validate(load_bank(odd_bank.root, load_config(odd_bank.root), early))
    assert [(f.code, f.path, f.line, f.message) for f in report.findings] == expected
    assert len(helper_for_every_bank) == 1  # the early one, no second
    assert early.pid == 0 and children() == []


def test_an_early_helper_for_other_stories_is_stopped_not_used(
    odd_bank: Bank, helper_for_every_bank: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    early = stories.start_early(odd_bank.root)
    assert early is not None
    odd_bank.write(f"{UNIT_DIR}/stories/012-late.md", "---\nid: 012-late\n---\n## Acceptance Criteria\n- [ ] x\n")
    found = findings_with(odd_bank.root, early)
    assert found == inline_findings(odd_bank.root, monkeypatch)
    assert any("012-late" in path for _code, path, *_ in found)
    assert len(helper_for_every_bank) == 2  # the early one, stopped, and one for the stories as they are now
    assert children() == []


def test_the_early_start_finds_the_bank_aidlc_yaml_names(bank: Bank) -> None:
    assert walk.configured_bank(bank.root) == walk.DEFAULT_BANK == load_config(bank.root).memory_bank
    bank.write("aidlc.yaml", "version: 1\nmemory_bank: docs/bank\n")
    assert walk.configured_bank(bank.root) == "docs/bank"
    bank.write("aidlc.yaml", "memory_bank: [not, text]\n")
    assert walk.configured_bank(bank.root) == walk.DEFAULT_BANK  # loading the config reports it
    bank.write_bytes("aidlc.yaml", b"memory_bank: caf\xe9\n")
    assert walk.configured_bank(bank.root) == walk.DEFAULT_BANK


def findings_with(root: Path, early: stories.StoryHelper) -> list[tuple]:
    report = validate(load_bank(root, load_config(root), early))
    return [(f.code, f.path, f.line, f.message) for f in report.findings]


def test_the_validate_command_starts_the_helper_before_pydantic_is_imported() -> None:
    """The head start is the point of starting early: the command's module and the helper's must stay light."""
    import subprocess

    probe = ("import sys, aidlc.cli.validate, aidlc.bank.stories; "
             "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'aidlc.model'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_helper_whose_parent_is_killed_stops(big_bank: Bank, tmp_path: Path) -> None:
    """kill -9 of aidlc leaves no helper reading on for nobody: it stops after its chunk."""
    import subprocess

    log = tmp_path / "read.log"
    script = tmp_path / "parent.py"
    script.write_text(f"""
import os, sys, time
from pathlib import Path
from aidlc.bank import stories, walk
real = stories.read_story
def logged(path, rel):
    with open({str(log)!r}, "a") as out:
        out.write(rel + "\\n")
    time.sleep(0.005)
    return real(path, rel)
stories.read_story = logged
stories.wanted = lambda n: True
root = Path({str(big_bank.root)!r})
helper = stories.StoryHelper.start(walk.list_bank(root / "memory-bank", walk.relative_to(root)))
print(helper.pid, flush=True)
time.sleep(60)
""")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    helper = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    while Path(f"/proc/{helper}").exists() and "zombie" not in Path(f"/proc/{helper}/status").read_text():
        time.sleep(0.05)
    read = log.read_text().splitlines()
    assert len(read) % stories.CHUNK == 0 and len(read) < len(BIG)  # whole chunks, not the whole bank
