"""The files that hold the rules a pull request is judged by, as one source holds them: the work tree, or a commit.

`aidlc ci --base` reads them from the base, so a pull request cannot rewrite the rules it is judged by
(docs/ci.md, "Changing the rules"); `aidlc gate approve policy --stage change` binds a person's approval of a change
to them (their fingerprint). They are:

* aidlc.yaml's judging sections (RULE_KEYS): the layout and its folder, which code is governed, the checks, the
  policy, signing, evidence;
* the bank's allowed_signers (who may sign decisions, and who may approve a change of the rules);
* the CI baseline (the findings that do not fail);
* the attributes git gives the ledger (its merge driver; a conversion between the commit and the work tree), as git
  reads them from every .gitattributes on the ledger's way;
* the aidlc workflows (`.github/workflows/aidlc*.yml` at the top of the repository: what runs `aidlc ci`).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aidlc import vcs
from aidlc.bank.config import layout, parse_config, records_folder
from aidlc.bank.walk import CONFIG_FILE, LEDGER_FILE, read_inside
from aidlc.model.config import Config, RecordsLayout

RULE_KEYS = ("layout", "memory_bank", "aidlc_docs", "verify", "policy", "governance", "evidence")
ALLOWED_SIGNERS = "allowed_signers"
BASELINE_FILE = ".aidlc-baseline.json"
ATTRIBUTES = ".gitattributes"
WORKFLOWS = ".github/workflows"


@dataclass(frozen=True)
class RuleFiles:
    """The rule-bearing files of one source; paths relative to the project (the folder of aidlc.yaml), so a
    workflow of a project in a sub-folder is `../.github/workflows/...`."""

    source: str  # for messages: "the work tree", "the base 1a2b3c4d5e6f"
    config: Config
    layout: RecordsLayout  # the layout the source keeps its records in, as its aidlc.yaml and its files decide
    folder: str  # the records' folder in that layout: the memory bank, or the aidlc-docs folder
    files: dict[str, bytes | None]  # path -> bytes (None: the source lacks it), aidlc.yaml first
    attributes: tuple[str, ...]  # the attributes git gives the ledger (`merge=aidlc-ledger`, `-text`), in git's order

    @property
    def signers_rel(self) -> str:
        return f"{self.folder}/{ALLOWED_SIGNERS}"

    @property
    def ledger_rel(self) -> str:
        return f"{self.folder}/{LEDGER_FILE}"


def paths(folder: str, baseline: str, workflows: list[str]) -> list[str]:
    """The rule-bearing files' paths, for a source whose records live in `folder`."""
    return [CONFIG_FILE, f"{folder}/{ALLOWED_SIGNERS}", baseline, ATTRIBUTES, *sorted(workflows)]


def is_workflow(name: str) -> bool:
    return name.startswith("aidlc") and name.endswith((".yml", ".yaml"))


def read(source: str, read_files: Callable[[list[str]], dict[str, bytes | None]], holds: Callable[[str], bool],
         attributes: Callable[[str], tuple[str, ...]], workflows: list[str],
         baseline: str = BASELINE_FILE) -> RuleFiles:
    """The rule files through `read_files` (paths -> bytes or None); aidlc.yaml first, since it names the records'
    folder, which `holds` (a file or folder the source has) decides with it (`aidlc.bank.config.layout`);
    `attributes`: what git's .gitattributes give a path. A broken aidlc.yaml is a ConfigError naming the source."""
    data = read_files([CONFIG_FILE])[CONFIG_FILE]
    config = Config() if data is None else parse_config(data, f"{CONFIG_FILE} in {source}")
    found = layout(config, holds)
    folder = records_folder(config, found)
    rels = paths(folder, baseline, workflows)
    files = {CONFIG_FILE: data, **read_files(rels[1:])}
    # A .gitattributes below the top on the ledger's way counts where it exists: an approval binds to it too, and
    # the rules of a repository without one are fingerprinted as before.
    nested = read_files(_nested_attributes(folder))
    files.update({rel: data for rel, data in nested.items() if data is not None})
    return RuleFiles(source, config, found, folder, files, attributes(f"{folder}/{LEDGER_FILE}"))


def _nested_attributes(folder: str) -> list[str]:
    """The .gitattributes of each folder from the top's (not included) down to `folder`."""
    parts = [part for part in folder.split("/") if part not in ("", ".")]
    return [f"{'/'.join(parts[:depth])}/{ATTRIBUTES}" for depth in range(1, len(parts) + 1)]


def work_tree(project: Path, top: Path, baseline: str = BASELINE_FILE, in_git: bool = True) -> RuleFiles:
    """The rule files as the work tree holds them (a file that is not regular, or leads outside the repository,
    counts as missing: the rules never read it); outside a repository (`in_git` False) git gives no attributes."""
    folder = project / os.path.relpath(top / WORKFLOWS, project)
    workflows = sorted(posixpath.join(os.path.relpath(top / WORKFLOWS, project).replace(os.sep, "/"), entry.name)
                       for entry in (folder.iterdir() if folder.is_dir() else []) if is_workflow(entry.name))

    def read_files(rels: list[str]) -> dict[str, bytes | None]:
        found: dict[str, bytes | None] = {}
        for rel in rels:
            try:
                found[rel] = read_inside(project / rel, top)
            except OSError:
                found[rel] = None
        return found

    def attributes(rel: str) -> tuple[str, ...]:
        tree = Path(os.path.relpath(project / rel, top)).as_posix()
        return vcs.attributes(top, [tree]).get(tree, ()) if in_git else ()

    return read("the work tree", read_files, lambda rel: (project / rel).exists(), attributes, workflows, baseline)


def changes(base: RuleFiles, head: RuleFiles) -> list[tuple[str, str]]:
    """What `head` changes of `base`'s rules: (path, what) pairs, the path as `head` names it."""
    found = []
    old, new = base.config.model_dump(mode="json"), head.config.model_dump(mode="json")
    for key in RULE_KEYS:
        if old[key] != new[key]:
            found.append((CONFIG_FILE, f"changes its `{key}` section"))
    pairs = [(base.signers_rel, head.signers_rel)]
    pairs += [(rel, rel) for rel in sorted(set(base.files) | set(head.files))
              if rel not in (CONFIG_FILE, base.signers_rel, head.signers_rel) and posixpath.basename(rel) != ATTRIBUTES]
    for was, now in pairs:
        before, after = base.files.get(was), head.files.get(now)
        if before != after:
            what = "adds it" if before is None else "deletes it" if after is None else "changes it"
            found.append((now if after is not None else was, what))
    if base.attributes != head.attributes:  # other lines of a .gitattributes are no rule
        was = ", ".join(base.attributes) or "none"
        found.append((_attributes_file(head), f"changes the attributes git gives {head.ledger_rel} to "
                      f"{', '.join(head.attributes) or 'none'} (the base's: {was})"))
    return found


def _attributes_file(rules: RuleFiles) -> str:
    """The deepest .gitattributes on the ledger's way that the source holds (where a reader looks first)."""
    held = [rel for rel in [ATTRIBUTES, *_nested_attributes(rules.folder)] if rules.files.get(rel) is not None]
    return held[-1] if held else ATTRIBUTES


def fingerprint(rules: RuleFiles) -> str:
    """sha256 over each rule file's path and bytes (sorted by path; a missing file counts as missing): what an
    approval of a change of the rules binds to."""
    digest = hashlib.sha256()
    for rel in sorted(rules.files):
        data = rules.files[rel]
        digest.update(f"{rel}\0{'-' if data is None else hashlib.sha256(data).hexdigest()}\n".encode())
    return digest.hexdigest()
