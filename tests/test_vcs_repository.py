"""What git reads the history by (aidlc/vcs/repository.py reading_state) covers every settings file git itself reads:
each file `git config --list --show-origin` names, in a repository whose settings include others in the forms git
takes (relative to the including file, from the home folder, quoted, after a comment, on the header's line, nested,
under a condition), changes the reading when it changes; and so does the system file of a git installed under a
prefix of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from aidlc import vcs


def test_every_settings_file_git_reads_is_watched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    repo = home / "work" / "repo"
    repo.mkdir(parents=True)
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME", "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    files = {
        home / ".gitconfig": '[user]\n\tname = Ada\n[includeIf "gitdir:~/work/"]\n\tpath = ~/work.config\n',
        home / "work.config": '[include]\n\tpath = "nested/deeper.config" # the folder is this file\'s\n',
        home / "nested/deeper.config": "[include] path = last.config\n",
        home / "nested/last.config": "[log]\n\tshowSignature = false\n",
        repo / "shared.config": "[core]\n\tabbrev = 12\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    with (repo / ".git/config").open("a", encoding="utf-8") as config:
        config.write("[Include]\n\tPath = ../shared.config\n")
    listed = subprocess.run(["git", "-C", str(repo), "config", "--list", "--show-origin", "--includes"], check=True,
                            capture_output=True, text=True, env=os.environ).stdout
    read = {(repo / line.partition("\t")[0].removeprefix("file:")).resolve() for line in listed.splitlines()}
    assert read == {path.resolve() for path in [*files, repo / ".git/config"]}  # git reads each of them
    for path in sorted(read):
        before = vcs.reading_state(repo)
        with path.open("a", encoding="utf-8") as changed:
            changed.write("# changed\n")
        assert vcs.reading_state(repo)["settings"] != before["settings"], path


def test_the_system_settings_under_the_prefix_git_is_installed_in_are_watched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Homebrew's git reads /opt/homebrew/etc/gitconfig, a file the user may write (no administrator needed), not
    /etc/gitconfig: the git first on PATH (here a git installed under a prefix of its own, running the real one)
    names the prefix whose etc/gitconfig is watched. Before: only /etc/gitconfig and GIT_CONFIG_SYSTEM's were."""
    real = shutil.which("git")
    assert real is not None
    prefix = tmp_path / "homebrew"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "etc").mkdir()
    (prefix / "bin" / "git").write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    (prefix / "bin" / "git").chmod(0o755)
    (prefix / "etc" / "gitconfig").write_text("[core]\n\tabbrev = 12\n")
    monkeypatch.setenv("PATH", f"{prefix / 'bin'}{os.pathsep}{os.environ['PATH']}")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    before = vcs.reading_state(repo)
    with (prefix / "etc" / "gitconfig").open("a", encoding="utf-8") as settings:
        settings.write("[log]\n\tshowSignature = true\n")
    assert vcs.reading_state(repo)["settings"] != before["settings"]


def test_a_file_digest_names_what_is_no_file_without_reading_it(tmp_path: Path) -> None:
    """A FIFO where a settings or records file was (made by code a check runs) was read as a file: the digest waited
    for a writer, and /dev/zero would be read without end. Each is named by what it is, unread; the writer here
    would have handed the old reading its bytes. (git itself hangs on a settings file that is a FIFO, so aidlc's
    reading cannot be the only guard there: this keeps aidlc's own readers, the records' digests among them, from
    waiting.)"""
    fifo = tmp_path / "settings.fifo"
    os.mkfifo(fifo)

    def writer() -> None:
        try:
            with fifo.open("wb") as pipe:
                pipe.write(b"[core]\n\tabbrev = 12\n")
        except OSError:
            pass  # the reader has gone: nothing to hand over

    threading.Thread(target=writer, daemon=True).start()
    assert vcs.file_digest(fifo).startswith("not a file: p")
    assert vcs.file_digest(Path("/dev/zero")).startswith("not a file: c")
    assert vcs.file_digest(tmp_path / "gone") == "absent"
