"""Where a memory bank's files are: its folder, and its folders and files in a stable order."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CONFIG_FILE = "aidlc.yaml"
DEFAULT_BANK = "memory-bank"  # the `memory_bank` of aidlc.yaml when it says nothing

Entry = os.DirEntry[str]


def find_bank(repo_root: Path, memory_bank: str) -> tuple[Path, Path]:
    """(repo root, memory bank folder). A path that is itself a memory bank is accepted too."""
    bank = repo_root / memory_bank
    if not bank.is_dir() and (repo_root / "intents").is_dir() and not (repo_root / ".git").exists():
        return repo_root.parent, repo_root
    return repo_root, bank


def relative_to(repo_root: Path) -> Callable[[Path | str], str]:
    """A function giving a path relative to `repo_root`, POSIX style."""
    prefix = str(repo_root).rstrip(os.sep) + os.sep

    def rel(path: Path | str) -> str:
        text = str(path)
        if text.startswith(prefix):  # the common case, without relpath's cost on 10,000s of files
            return text[len(prefix):].replace(os.sep, "/")
        return Path(os.path.relpath(text, repo_root)).as_posix()

    return rel


@dataclass
class Listing:
    """The intents (with their units and story files) and bolt folders of a bank, sorted by name."""

    intents: list[tuple[Entry, list[tuple[Entry, list[Entry]]]]]
    bolts: list[Entry]


def list_bank(bank_dir: Path) -> Listing:
    root = str(bank_dir)
    intents = [(entry, [(unit, files(os.path.join(unit.path, "stories"), ".md"))
                        for unit in dirs(os.path.join(entry.path, "units"))])
               for entry in dirs(os.path.join(root, "intents"))]
    return Listing(intents, dirs(os.path.join(root, "bolts")))


def dirs(path: str) -> list[Entry]:
    return sorted((e for e in _scan(path) if e.is_dir() and not e.name.startswith(".")), key=lambda e: e.name)


def files(path: str, suffix: str) -> list[Entry]:
    return sorted(
        (e for e in _scan(path) if e.is_file() and e.name.endswith(suffix) and not e.name.startswith(".")),
        key=lambda e: e.name,
    )


def _scan(path: str) -> list[Entry]:
    try:
        return list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []
