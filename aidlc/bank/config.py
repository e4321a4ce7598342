"""Loading aidlc.yaml. A missing file means defaults; a broken one is a configuration error."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from pydantic import ValidationError

from aidlc.bank import frontmatter
from aidlc.bank.walk import BANK_MARKERS, CONFIG_FILE, is_bank, read_inside
from aidlc.errors import UsageError
from aidlc.model.config import Config, RecordsLayout
from aidlc.names import arg

__all__ = [
    "BANK_MARKERS",
    "CONFIG_FILE",
    "DOCS_MARKERS",
    "V2_SPACES",
    "ConfigError",
    "docs_marker",
    "holds_bank",
    "key_line",
    "layout",
    "load_config",
    "parse_config",
    "records_folder",
    "refuse_other_bank",
]


class ConfigError(UsageError):
    """aidlc.yaml cannot be used; the message names the file, the line and the fix."""

    def __init__(self, message: str) -> None:
        super().__init__(message, [f"fix {CONFIG_FILE}, then rerun the command",
                                   "aidlc schema export schemas/  # the JSON Schema of aidlc.yaml"])


def load_config(repo_root: Path) -> Config:
    """aidlc.yaml at `repo_root` (defaults without one), once the records folders it names are found real folders
    in the work tree (`refuse_linked_records`)."""
    path = repo_root / CONFIG_FILE
    if not path.exists() and not path.is_symlink():
        config = Config()
    else:
        try:
            data = read_inside(path, repo_root)
        except OSError as exc:
            raise ConfigError(f"{CONFIG_FILE}: cannot be read ({exc.strerror})") from None
        config = parse_config(data)
    refuse_linked_records(repo_root, config)
    return config


def refuse_linked_records(root: Path, config: Config) -> None:
    """A usage error where a records folder (the memory bank, the aidlc-docs folder, the v2 workspace's spaces) is,
    or lies below, a symbolic link: git keeps the link, not the records, so their history (the ledger's, the audit
    log's, which every rule of a pull request reads) would be read at a path that holds none, and a change to
    them would go unjudged."""
    for key, rel in (("memory_bank", config.memory_bank), ("aidlc_docs", config.aidlc_docs), (None, V2_SPACES)):
        at = root
        for n, part in enumerate(PurePosixPath(rel).parts, 1):
            at = at / part
            if at.is_symlink():
                raise _linked(root, at, key, "/".join(PurePosixPath(rel).parts[n:]))


def _linked(root: Path, link: Path, key: str | None, below: str) -> UsageError:
    shown = link.relative_to(root).as_posix()
    target = os.readlink(link)
    top = Path(os.path.normpath(root.absolute()))
    real = Path(os.path.normpath(top / shown / ".." / target))
    steps = [f"aidlc validate {arg(str(root))}    # once the records are a folder at {shown} itself"]
    where = f"to {target}"
    if not os.path.exists(link):  # a step that moves the folder it names would fail: there is none
        where += ", which does not exist"
        steps[:0] = [f"git rm -q {arg(shown)}    # then put the records back at {shown}/ (git log --stat -- {shown} "
                     "shows where they went) and commit them"]
    elif real.is_relative_to(top) and real != top:
        there = real.relative_to(top).as_posix()
        folder = f"{there}/{below}".rstrip("/")
        steps[:0] = [f"git rm -q {arg(shown)} && git mv {arg(there)} {arg(shown)}    # the folder where the link was",
                     *([f"set `{key}: {folder}` in {CONFIG_FILE}    # or read the records where git keeps them"]
                       if key else [])]
    else:
        where += ", outside the repository"
        steps[:0] = [f"git rm -q {arg(shown)}    # then copy the records from {target} into {shown}/ and commit them"]
    return UsageError(f"{shown} is a symbolic link ({where}): git keeps the link, not the records behind it, so "
                      "their history, which aidlc judges (the ledger's, the audit log's), cannot be read", steps)


def parse_config(data: bytes, label: str = CONFIG_FILE) -> Config:
    """aidlc.yaml's bytes as a Config; `label` names where they came from in messages (`aidlc ci` reads the base's
    copy from git)."""
    text, problem = frontmatter.decode(data, label)
    if problem is None and text is not None:
        meta, problem = frontmatter.parse_mapping(text)
    if problem is not None:
        raise ConfigError(f"{label}:{problem.line or 1}: {problem.message}")
    try:
        return Config.model_validate(meta)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        key = ".".join(str(part) for part in first["loc"])
        line = key_line(text or "", [str(part) for part in first["loc"] if isinstance(part, str)])
        raise ConfigError(f"{label}:{line}: '{key}': {first['msg']}") from None


# What marks a folder as the aidlc-docs layout's (AWS aidlc-workflows v1): its state file, its audit log or shards.
DOCS_MARKERS = ("aidlc-state.md", "audit.md", "audit")
# Where aidlc-workflows v2 keeps its intent records (aidlc/aidlc_docs/records.py reads them).
V2_SPACES = "aidlc/spaces"
# The notes of Cline's memory bank (and of the tools that keep theirs as Cline does), at its folder's top.
OTHER_BANK_NOTES = ("projectbrief.md", "productContext.md", "activeContext.md", "systemPatterns.md", "techContext.md")


def refuse_other_bank(root: Path, folder: str, rerun: str | None = None) -> None:
    """Before a command writes the first records into the memory bank's folder `folder`: a folder keeping another
    tool's notes (Cline's memory bank) and none of aidlc's records is not aidlc's to fill, unless aidlc.yaml names
    it: aidlc's records would sit among notes that tool reads at every task. `rerun`: the command to run again."""
    if is_bank(root / folder) or (root / CONFIG_FILE).exists():
        return
    notes = [name for name in OTHER_BANK_NOTES if (root / folder / name).is_file()]
    if notes:
        config, then = arg(str(root / CONFIG_FILE)), f" && {rerun}" if rerun else ""
        again = "" if rerun else ", then run the command again"
        raise UsageError(f"{folder}/ keeps another tool's memory bank ({', '.join(notes)}: Cline's, or one kept as "
                         "Cline keeps it), not aidlc's records; aidlc's would sit among the notes that tool reads at "
                         "every task; nothing was written",
                         [f"printf 'memory_bank: aidlc-bank\\n' > {config}{then}    # their own folder{again}",
                          f"printf 'memory_bank: {folder}\\n' > {config}{then}    # or beside those notes{again}"])


def docs_marker(root: Path, config: Config) -> str | None:
    """The first marker of the aidlc-docs layout that the folder `aidlc_docs:` names under `root` holds
    (`aidlc-docs/aidlc-state.md`), as a path relative to `root`; None when it holds none."""
    return next((f"{config.aidlc_docs}/{marker}" for marker in DOCS_MARKERS
                 if (root / config.aidlc_docs / marker).exists()), None)


def holds_bank(config: Config, holds: Callable[[str], bool]) -> bool:
    """Whether the source `holds` (as `layout` takes it) keeps a memory bank: its folder holding one of BANK_MARKERS."""
    return any(holds(f"{config.memory_bank}/{name}") for name in BANK_MARKERS)


def layout(config: Config, holds: Callable[[str], bool]) -> RecordsLayout:
    """The layout a source keeps its records in: aidlc.yaml's `layout`, or with `auto` the memory bank when `holds`
    one (`holds_bank`), else aidlc-docs when it holds one of the docs folder's markers, else the memory bank.
    `holds(rel)`: whether the source (the work tree, or a commit) has that file or folder."""
    if config.layout != "auto":
        return config.layout
    if holds_bank(config, holds):
        return "memory-bank"
    if any(holds(f"{config.aidlc_docs}/{name}") for name in DOCS_MARKERS):
        return "aidlc-docs"
    return "memory-bank"


def records_folder(config: Config, found_layout: str) -> str:
    """The folder that holds the records and their ledger (events.jsonl, allowed_signers) in that layout."""
    return config.aidlc_docs if found_layout == "aidlc-docs" else config.memory_bank


def key_line(text: str, keys: list[str]) -> int:
    """Line of a nested key: each key is looked for below the line of its parent."""
    lines = text.splitlines()
    found, start = 1, 0
    for key in keys:
        for number in range(start, len(lines)):
            if lines[number].lstrip().startswith(f"{key}:"):
                found, start = number + 1, number + 1
                break
    return found
