"""Where a memory bank's files are: its folder, and its folders and files in a stable order.

Light on purpose (no models, no pydantic): `aidlc validate` lists the stories with it before
it imports the rest of aidlc, so that a helper can start reading them (see `stories`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aidlc.bank import frontmatter

CONFIG_FILE = "aidlc.yaml"
DEFAULT_BANK = "memory-bank"  # the `memory_bank` of aidlc.yaml when it says nothing

Entry = os.DirEntry[str]


def find_bank(repo_root: Path, memory_bank: str) -> tuple[Path, Path]:
    """(repo root, memory bank folder). A path that is itself a memory bank is accepted too."""
    bank = repo_root / memory_bank
    if not bank.is_dir() and (repo_root / "intents").is_dir() and not (repo_root / ".git").exists():
        return repo_root.parent, repo_root
    return repo_root, bank


def configured_bank(repo_root: Path) -> str:
    """The `memory_bank` aidlc.yaml names, read without validating it (loading the config does that)."""
    try:
        text, _problem = frontmatter.decode(frontmatter.read_bytes(repo_root / CONFIG_FILE), CONFIG_FILE)
    except OSError:
        return DEFAULT_BANK
    meta = frontmatter.parse_mapping(text)[0] if text is not None else None
    value = meta.get("memory_bank") if meta else None
    return value if isinstance(value, str) and value else DEFAULT_BANK


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

    bank_dir: Path
    intents: list[tuple[Entry, list[tuple[Entry, list[Entry]]]]]
    bolts: list[Entry]
    stories: list[tuple[str, str]]  # every story file: (path, path relative to the repo root)

    @property
    def other_files(self) -> int:
        """The files read besides stories: a requirements.md per intent, a brief per unit, a bolt.md per bolt."""
        return len(self.bolts) + sum(1 + len(units) for _intent, units in self.intents)


def list_bank(bank_dir: Path, rel: Callable[[Path | str], str]) -> Listing:
    root = str(bank_dir)
    intents = [(entry, [(unit, files(os.path.join(unit.path, "stories"), ".md"))
                        for unit in dirs(os.path.join(entry.path, "units"))])
               for entry in dirs(os.path.join(root, "intents"))]
    stories = [(story.path, rel(story.path)) for _intent, units in intents for _unit, found in units
               for story in found]
    return Listing(bank_dir, intents, dirs(os.path.join(root, "bolts")), stories)


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
