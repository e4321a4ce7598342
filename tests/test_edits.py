"""A model's edit blocks: read tolerantly, dry-run against the files, refused with a message the model
can act on, and written all or nothing (across kill -9 too). Real files, real symbolic links, a real
FIFO, a real git repository."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from aidlc.bolt.edits import (
    EditBlock,
    EditFormatError,
    EditRefused,
    edit_format_prompt,
    parse_edit_blocks,
    prepare_edits,
)
from aidlc.events import journal
from tests.helpers import git_init

APP = "def greet(name):\n    return 'hello ' + name\n\n\ndef shout(name):\n    return greet(name).upper()\n"


def block(path: str, search: str, replace: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


Allowed = Callable[[str], bool]


def anything(_: str) -> bool:
    return True


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A real git repository holding src/app.py, committed."""
    repo = tmp_path / "repo"
    git_init(repo)
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text(APP, encoding="utf-8")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com",
                    "commit", "-qm", "start"], check=True)
    return repo


def applied(root: Path, answer: str, allowed: Allowed = anything, whole_file: bool = False) -> list[str]:
    return prepare_edits(root, parse_edit_blocks(answer, whole_file), allowed, "memory-bank").apply()


def refused(root: Path, answer: str, allowed: Allowed = anything) -> list[str]:
    before = snapshot(root)
    with pytest.raises(EditRefused) as caught:
        prepare_edits(root, parse_edit_blocks(answer), allowed, "memory-bank")
    assert snapshot(root) == before, "a refused edit wrote something"
    return caught.value.problems


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under `root` but .git/'s objects: a file's bytes, a link's target, a folder's kind."""
    found: dict[str, bytes | str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name != "objects"]
        for name in dirs + files:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = f"-> {os.readlink(path)}"
            elif path.is_file():
                found[rel] = path.read_bytes()
            else:
                found[rel] = "folder" if path.is_dir() else "special"
    return found


# ---- reading the answer ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path_line", [
    "src/app.py", "`src/app.py`", "**src/app.py**", "# src/app.py", "### File: src/app.py", "File: `src/app.py`",
    "src/app.py:", "**`src/app.py`**:", "Path: src/app.py", "Change `src/app.py` like this:",
])
def test_the_path_line_is_read_however_it_is_decorated(path_line: str) -> None:
    answer = f"Here is my change.\n\n{path_line}\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"
    assert parse_edit_blocks(answer) == [EditBlock("src/app.py", "a\n", "b\n")]


def test_the_path_as_the_fence_info_string_and_no_fence_at_all() -> None:
    fenced = "```src/app.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"
    bare = "src/app.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
    assert parse_edit_blocks(fenced) == parse_edit_blocks(bare) == [EditBlock("src/app.py", "a\n", "b\n")]


def test_a_block_with_no_path_belongs_to_the_file_of_the_block_before() -> None:
    second = "\nand\n\n```python\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n"
    answer = block("src/app.py", "a\n", "b\n") + second
    assert [b.path for b in parse_edit_blocks(answer)] == ["src/app.py", "src/app.py"]


def test_crlf_answers_and_sloppy_markers_are_read() -> None:
    answer = "src/app.py\r\n<<<<<<<SEARCH\r\na\r\n========\r\nb\r\n>>>>>>>  REPLACE  \r\n"
    assert parse_edit_blocks(answer) == [EditBlock("src/app.py", "a\n", "b\n")]


def test_an_empty_search_creates_a_file_and_a_delete_marker_deletes_one() -> None:
    answer = block("src/new.py", "", "x = 1\n") + "src/old.py\n<<<<<<< DELETE\n"
    assert parse_edit_blocks(answer) == [EditBlock("src/new.py", "", "x = 1\n"),
                                         EditBlock("src/old.py", None, "", delete=True)]


def test_whole_file_blocks() -> None:
    answer = ("I rewrote two files.\n\n`src/app.py`\n```python\nx = 1\n\n\ny = 2\n```\n\n"
              "docs/guide.md\n````markdown\n# Guide\n```\ncode\n```\n````\n\nRun it with:\n```bash\npytest\n```\n")
    assert parse_edit_blocks(answer, whole_file=True) == [
        EditBlock("src/app.py", None, "x = 1\n\n\ny = 2\n"),
        EditBlock("docs/guide.md", None, "# Guide\n```\ncode\n```\n"),
    ]


def test_a_markdown_file_with_tagged_fences_inside_a_plain_fence() -> None:
    answer = "README.md\n```\n# Use\n```python\nimport app\n```\nDone.\n```\n"
    assert parse_edit_blocks(answer, whole_file=True) == [
        EditBlock("README.md", None, "# Use\n```python\nimport app\n```\nDone.\n")]


def test_search_replace_blocks_are_still_read_in_whole_file_mode() -> None:
    assert parse_edit_blocks(block("src/app.py", "a\n", "b\n"), whole_file=True) == [
        EditBlock("src/app.py", "a\n", "b\n")]


@pytest.mark.parametrize(("answer", "problem"), [
    ("I think the code is fine.", "holds no edit block"),
    ("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "Line 1 of your answer, `<<<<<<< SEARCH`, has no file path"),
    ("src/app.py\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", "no `=======` line between SEARCH and REPLACE: line 4"),
    ("src/app.py\n<<<<<<< SEARCH\na\n=======\nb\n", "never closed with `>>>>>>> REPLACE`: the answer ends"),
    ("src/app.py\n<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n",
     "never closed with `>>>>>>> REPLACE`: line 6 begins another block"),
    ("src/app.py\nb\n>>>>>>> REPLACE\n", "Line 3 of your answer, `>>>>>>> REPLACE`, ends a block that never began"),
])
def test_a_malformed_answer_says_what_is_wrong_and_shows_the_format(answer: str, problem: str) -> None:
    with pytest.raises(EditFormatError) as caught:
        parse_edit_blocks(answer)
    assert problem in caught.value.problem
    assert caught.value.message.startswith(caught.value.problem)
    assert "<<<<<<< SEARCH" in caught.value.message.split("\n\n", 1)[1]  # the format, again


def test_an_unclosed_whole_file_block_is_malformed() -> None:
    with pytest.raises(EditFormatError) as caught:
        parse_edit_blocks("src/app.py\n```python\nx = 1\n", whole_file=True)
    assert "never closed with a line ```" in caught.value.problem
    assert "complete new content" in caught.value.message


def test_the_format_prompt_for_each_mode() -> None:
    assert "<<<<<<< SEARCH" in edit_format_prompt() and "never in JSON" in edit_format_prompt()
    assert "complete new content" in edit_format_prompt(whole_file=True)


# ---- matching ---------------------------------------------------------------------------------------------


def test_a_search_that_matches_once_is_replaced(root: Path) -> None:
    assert applied(root, block("src/app.py", "    return 'hello ' + name\n", "    return 'hi ' + name\n")) == [
        "src/app.py"]
    assert (root / "src/app.py").read_text() == APP.replace("'hello '", "'hi '")


def test_a_search_that_matches_twice_is_told_with_the_line_numbers(root: Path) -> None:
    (root / "src/app.py").write_text(APP + "\n\ndef again(name):\n    return 'hello ' + name\n")
    problems = refused(root, block("src/app.py", "    return 'hello ' + name\n", "    return 'hi'\n"))
    assert problems == ["src/app.py: SEARCH matches 2 places (lines 2, 10); add lines around the change so that "
                        "it matches one place only"]


def test_a_search_that_matches_nowhere_shows_the_nearest_lines(root: Path) -> None:
    problems = refused(root, block("src/app.py", "def greet(person):\n    return 'hello ' + name\n", "x\n"))
    assert problems[0].startswith("src/app.py: SEARCH matches no place in the file")
    assert "    1 | def greet(name):\n    2 |     return 'hello ' + name" in problems[0]


def test_the_nearest_lines_of_a_large_file_compare_few_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Comparing SEARCH with every window of a large file took minutes: only windows around a few close
    lines are compared (counted, not timed)."""
    from aidlc.bolt import edit_match

    windows: list[str] = []

    class Counting(edit_match.SequenceMatcher):
        def ratio(self) -> float:
            if "\n" in self.a:
                windows.append(self.a)
            return super().ratio()

    monkeypatch.setattr(edit_match, "SequenceMatcher", Counting)
    text = "".join(f"value_{i} = compute({i}, {i % 7})\n" for i in range(3000))
    search = "".join(f"value_{i} = compute({i}, {i % 5})\n" for i in range(1200, 1230))
    with pytest.raises(edit_match.MatchProblem) as caught:
        edit_match.replace_once(text, search, "x\n")
    assert len(windows) <= 9
    assert " 1201 | value_1200 = compute(1200, 3)" in str(caught.value)


def test_a_change_already_made_is_pointed_out(root: Path) -> None:
    problems = refused(root, block("src/app.py", "    return 'hi ' + name\n", "    return 'hello ' + name\n"))
    assert "The REPLACE lines are in the file already" in problems[0]


def test_trailing_whitespace_drift_is_tolerated(root: Path) -> None:
    (root / "src/app.py").write_text(APP.replace("(name):\n", "(name):   \n", 1))
    applied(root, block("src/app.py", "def greet(name):\n    return 'hello ' + name\n",
                        "def greet(name):\n    return 'hi ' + name\n"))
    assert (root / "src/app.py").read_text().startswith("def greet(name):\n    return 'hi ' + name\n")


@pytest.mark.parametrize("shift", ["", "        "])
def test_uniform_indentation_drift_is_tolerated_and_carried_to_replace(root: Path, shift: str) -> None:
    (root / "src/app.py").write_text("class A:\n    def f(self):\n        return 1\n")
    search = f"{shift}def f(self):\n{shift}    return 1\n"
    replace = f"{shift}def f(self):\n{shift}    x = 2\n\n{shift}    return x\n"
    applied(root, block("src/app.py", search, replace))
    assert (root / "src/app.py").read_text() == "class A:\n    def f(self):\n        x = 2\n\n        return x\n"


def test_uneven_indentation_drift_is_not_guessed(root: Path) -> None:
    (root / "src/app.py").write_text("class A:\n    def f(self):\n        return 1\n")
    problems = refused(root, block("src/app.py", "def f(self):\n        return 1\n", "pass\n"))
    assert "SEARCH matches no place" in problems[0]


def test_blank_lines_the_model_added_around_search_are_tolerated(root: Path) -> None:
    applied(root, block("src/app.py", "\ndef shout(name):\n\n", "def shout(who):\n"))
    assert "def shout(who):\n    return greet(name)" in (root / "src/app.py").read_text()


def test_blocks_for_one_file_apply_in_order(root: Path) -> None:
    answer = (block("src/app.py", "def greet(name):\n", "def greet(who):\n")
              + block("src/app.py", "def greet(who):\n    return 'hello ' + name\n",
                      "def greet(who):\n    return 'hello ' + who\n"))
    applied(root, answer)
    assert (root / "src/app.py").read_text().startswith("def greet(who):\n    return 'hello ' + who\n")


def test_a_crlf_file_keeps_its_line_endings(root: Path) -> None:
    (root / "src/app.py").write_bytes(APP.replace("\n", "\r\n").encode())
    old, new = "    return 'hello ' + name\n", "    first = 'hello '\n    return first + name\n"
    applied(root, block("src/app.py", old, new))
    assert (root / "src/app.py").read_bytes() == APP.replace(old, new).replace("\n", "\r\n").encode()


def test_a_crlf_file_rewritten_whole_stays_crlf_and_a_bom_is_kept(root: Path) -> None:
    (root / "src/app.py").write_bytes(b"\xef\xbb\xbfx = 1\r\ny = 2\r\n")
    applied(root, "src/app.py\n```python\nx = 3\ny = 4\n```\n", whole_file=True)
    assert (root / "src/app.py").read_bytes() == b"\xef\xbb\xbfx = 3\r\ny = 4\r\n"


def test_a_file_without_a_final_newline_keeps_none(root: Path) -> None:
    (root / "src/app.py").write_text("a = 1\nb = 2")
    applied(root, block("src/app.py", "b = 2\n", "b = 3\n"))
    assert (root / "src/app.py").read_text() == "a = 1\nb = 3"


def test_a_file_is_created_in_a_new_folder_and_deleted(root: Path) -> None:
    assert applied(root, block("src/pkg/util.py", "", "X = 1\n") + "src/app.py\n<<<<<<< DELETE\n") == [
        "src/pkg/util.py", "src/app.py"]
    assert (root / "src/pkg/util.py").read_text() == "X = 1\n" and not (root / "src/app.py").exists()


def test_creating_a_file_that_exists_or_changing_one_that_does_not_is_refused(root: Path) -> None:
    problems = refused(root, block("src/app.py", "", "x\n") + block("src/none.py", "a\n", "b\n")
                       + "src/gone.py\n<<<<<<< DELETE\n")
    assert problems == [
        "src/app.py (block 1 of 3): exists already; an empty SEARCH only creates a new file. Put the lines to change "
        "in SEARCH (or send the whole file)",
        "src/none.py (block 2 of 3): does not exist; to create it, leave SEARCH empty (or check the path)",
        "src/gone.py (block 3 of 3): does not exist, so it cannot be deleted; check the path"]


def test_a_whole_file_that_leaves_code_out_is_refused(root: Path) -> None:
    with pytest.raises(EditRefused) as caught:
        answer = "src/app.py\n```python\ndef greet(name):\n    # ... rest unchanged\n```\n"
        prepare_edits(root, parse_edit_blocks(answer, whole_file=True), anything, "memory-bank")
    assert "leaves code out (`# ... rest unchanged`)" in caught.value.problems[0]


def test_a_block_that_changes_nothing_writes_nothing(root: Path) -> None:
    assert applied(root, block("src/app.py", "def shout(name):\n", "def shout(name):\n")) == []


# ---- refusals ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "why"), [
    ("/etc/passwd", "an absolute path"),
    ("~/.bashrc", "an absolute path"),
    ("../outside.py", "'..' leads outside the repository"),
    ("src/../../outside.py", "'..' leads outside the repository"),
    ("src\\app.py", "not '\\'"),
    (".git/hooks/pre-commit", "inside .git/"),
    ("vendor/lib/.git/config", "inside .git/"),
    (".GIT/config", "inside .git/"),
    ("src/.Git./hooks/x", "inside .git/"),
    (".github/workflows/ci.yml", "under .github/"),
    (".github/actions/setup/action.yml", "under .github/"),
    (".github/CODEOWNERS", "under .github/"),
    (".GitHub/Workflows/ci.yml", "under .github/"),
    (".aidlc/runs/r1/state.json", "aidlc's own run state"),
    ("memory-bank/events.jsonl", "in the memory bank"),
    ("memory-bank/allowed_signers", "in the memory bank"),
    ("memory-bank/bolts/001-api/bolt.md", "in the memory bank"),
    ("Memory-Bank/bolts/001-api/bolt.md.", "in the memory bank"),
    ("memory-bank/intents/001-shop/units/cart/stories/001-add.md", "in the memory bank"),
    ("aidlc.yaml", "governs the repository"),
    ("AIDLC.YAML", "governs the repository"),
    ("./aidlc.yaml", "governs the repository"),
    ("./.gitattributes", "governs the repository"),
    ("src/.GITATTRIBUTES.", "governs the repository"),
    ("CODEOWNERS", "governs the repository"),
    ("docs/CodeOwners", "governs the repository"),
    (".aidlc-baseline.json", "governs the repository"),
])
def test_paths_the_model_may_never_write_are_refused(root: Path, path: str, why: str) -> None:
    (root / ".github/workflows").mkdir(parents=True)
    (root / ".github/workflows/ci.yml").write_text("on: push\n")
    problems = refused(root, block(path, "", "pwned\n"))
    assert len(problems) == 1 and problems[0].startswith(f"{path}: ") and why in problems[0]


def test_a_bank_elsewhere_is_refused(root: Path) -> None:
    (root / "aidlc.yaml").write_text("version: 1\nmemory_bank: docs/bank\n")
    with pytest.raises(EditRefused) as caught:
        prepare_edits(root, parse_edit_blocks(block("docs/bank/events.jsonl", "", "{}\n")), anything)
    assert "in the memory bank (docs/bank/)" in caught.value.problems[0]


def test_a_path_outside_the_plan_is_refused(root: Path) -> None:
    problems = refused(root, block("src/other.py", "", "x\n"), allowed=lambda rel: rel == "src/app.py")
    assert problems == ["src/other.py: not in the approved plan; change only the files the plan names (a file the "
                        "plan does not name needs a new plan)"]


def test_the_plan_check_gets_the_path_normalised(root: Path) -> None:
    seen: list[str] = []
    refused(root, block("./src//x.py", "", "x\n"), allowed=lambda rel: seen.append(rel) or False)
    assert seen == ["src/x.py"]


def test_a_symbolic_link_anywhere_on_the_path_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.py").write_text("secret = 1\n")
    (root / "src/linked.py").symlink_to(outside / "target.py")
    (root / "src/inside.py").symlink_to("app.py")  # a link that stays inside is refused too
    (root / "lib").symlink_to(outside)
    (root / "src/sub").symlink_to(root / "src")
    problems = refused(root, block("src/linked.py", "secret = 1\n", "secret = 2\n") + block("src/inside.py", "", "x\n")
                       + block("lib/new.py", "", "x\n") + block("src/sub/app.py", "def shout(name):\n", "x\n"))
    assert [problem.split(": ", 1) for problem in problems] == [
        ["src/linked.py", "a symbolic link; aidlc never writes through one: edit the file it leads to by its own path"],
        ["src/inside.py", "a symbolic link; aidlc never writes through one: edit the file it leads to by its own path"],
        ["lib/new.py", "goes through the symbolic link lib; aidlc never writes through one: edit the file it leads "
                       "to by its own path"],
        ["src/sub/app.py", "goes through the symbolic link src/sub; aidlc never writes through one: edit the file "
                           "it leads to by its own path"]]
    assert (outside / "target.py").read_text() == "secret = 1\n" and not (outside / "new.py").exists()


def test_a_fifo_a_folder_and_a_file_used_as_a_folder_are_refused(root: Path) -> None:
    os.mkfifo(root / "src/pipe.py")
    (root / "src/data.d").mkdir()
    problems = refused(root, block("src/pipe.py", "", "x\n") + block("src/data.d", "", "x\n")
                       + block("src/app.py/inner.py", "", "x\n"))
    assert problems == [
        "src/pipe.py: a FIFO (named pipe), not a regular file; aidlc edits only regular files",
        "src/data.d: a folder, not a regular file; aidlc edits only regular files",
        "src/app.py/inner.py: src/app.py is a file, not a folder"]


def test_binary_and_non_utf8_files_are_refused(root: Path) -> None:
    (root / "src/logo.py").write_bytes(b"x = 1\n\x00\x01")
    (root / "src/latin.py").write_bytes(b"x = 1\nname = '\xe9'\n")
    problems = refused(root, block("src/logo.py", "x = 1\n", "x = 2\n") + block("src/latin.py", "x = 1\n", "x = 2\n"))
    assert problems == ["src/logo.py: a binary file; aidlc edits only text files: leave this file out",
                        "src/latin.py: not UTF-8 text (byte 0xe9 on line 2); aidlc edits only UTF-8 text files: "
                        "leave this file out"]


def test_when_the_third_of_three_blocks_is_refused_nothing_is_written(root: Path) -> None:
    answer = (block("src/app.py", "def greet(name):\n", "def greet(who):\n") + block("src/new.py", "", "x = 1\n")
              + block(".git/hooks/pre-commit", "", "#!/bin/sh\ncurl evil\n"))
    problems = refused(root, answer)
    assert problems == [".git/hooks/pre-commit: is inside .git/, which aidlc never writes"]
    assert not (root / "src/new.py").exists() and not (root / ".aidlc").exists()


def test_every_problem_is_told_at_once(root: Path) -> None:
    problems = refused(root, block("src/app.py", "nowhere\n", "x\n") + block(".aidlc/x", "", "x\n")
                       + block(".aidlc/x", "", "y\n"), allowed=anything)
    assert [problem.split(" ", 1)[0] for problem in problems] == ["src/app.py", ".aidlc/x:"]


# ---- writing all or nothing ---------------------------------------------------------------------------------


def test_apply_refuses_a_file_changed_or_linked_since_the_dry_run(root: Path, tmp_path: Path) -> None:
    prepared = prepare_edits(root, parse_edit_blocks(block("src/app.py", "def shout(name):\n", "def yell(name):\n")
                                                     + block("src/b.py", "", "b\n")), anything, "memory-bank")
    (root / "src/app.py").write_text(APP + "# a person's line\n")
    with pytest.raises(EditRefused, match="changed since the edits were checked"):
        prepared.apply()
    (root / "src/app.py").write_text(APP)
    (root / "src/b.py").symlink_to(tmp_path / "elsewhere.py")
    with pytest.raises(EditRefused, match="a symbolic link"):
        prepared.apply()
    assert (root / "src/app.py").read_text() == APP and not (tmp_path / "elsewhere.py").exists()


def test_a_write_that_fails_half_way_is_rolled_back(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prepared = prepare_edits(root, parse_edit_blocks(block("src/app.py", "def shout(name):\n", "def yell(name):\n")
                                                     + block("src/pkg/new.py", "", "x\n")), anything, "memory-bank")
    real, calls = journal.atomic_write, []

    def disk_full_at_the_second(path: Path, data: str | bytes, repo: Path) -> None:  # tests run as root: no EACCES
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(path))
        real(path, data, repo)

    monkeypatch.setattr(journal, "atomic_write", disk_full_at_the_second)
    before = snapshot(root)
    with pytest.raises(OSError, match="No space left"):
        prepared.apply()
    assert {rel: data for rel, data in snapshot(root).items() if not rel.startswith(".aidlc")} == before
    assert not (root / journal.JOURNAL).exists()


KILLED_APPLY = """
import os, signal, sys
from pathlib import Path
from aidlc.events import journal
from aidlc.bolt.edits import parse_edit_blocks, prepare_edits

writes = 0
real = journal.atomic_write
def dying(path, data, root):
    global writes
    writes += 1
    if writes == int(sys.argv[3]):
        os.kill(os.getpid(), signal.SIGKILL)
    real(path, data, root)
journal.atomic_write = dying
root = Path(sys.argv[1])
prepare_edits(root, parse_edit_blocks(Path(sys.argv[2]).read_text()), lambda rel: True, "memory-bank").apply()
"""


@pytest.mark.parametrize("killed_at", [2, 3])
def test_a_kill_during_apply_is_rolled_back_by_the_next_command(root: Path, tmp_path: Path, killed_at: int) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(block("src/app.py", "def shout(name):\n", "def yell(name):\n")
                      + block("src/pkg/new.py", "", "x = 1\n") + block("src/third.py", "", "y = 2\n"))
    before = snapshot(root)
    proc = subprocess.run([sys.executable, "-c", KILLED_APPLY, str(root), str(answer), str(killed_at)],
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert (root / journal.JOURNAL).exists()
    assert (root / "src/app.py").read_text() != APP  # the first file was written before the kill
    assert journal.recover(root) == ["src/app.py", "src/pkg/new.py", "src/third.py"][:killed_at]
    after = {rel: data for rel, data in snapshot(root).items() if not rel.startswith(".aidlc")}
    assert after == before  # no half edit, no new folder, no temporary file left


def test_a_left_journal_of_edits_never_restores_into_git(root: Path) -> None:
    (root / ".aidlc").mkdir()
    (root / journal.JOURNAL).write_text('{"bank": "", "key": "", "v": 1}\n{"old": null, "path": ".git/config"}\n')
    with pytest.raises(journal.AidlcError, match=r"names a path outside what aidlc writes: '\.git/config'"):
        journal.recover(root)
    assert (root / ".git/config").exists()
