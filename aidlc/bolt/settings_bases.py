"""The files a tool's settings take more settings from: ruff's `extend`; the `extends` of tsconfig, pyright, biome,
an .eslintrc, stylelint, yamllint and markdownlint; rubocop's `inherit_from`; phpstan's `includes`; the relative
imports of settings written in JavaScript or TypeScript (`eslint.config.js` importing `./eslint/base.js`). A bolt
that turns a rule off in such a file changes what its check proves as surely as one editing the tool's own file,
which is known by its name (aidlc/bolt/check_settings.py); the file extended is known only by what names it.

`with_bases` reads the settings files of the tools a check runs, as the repository holds them at the head, and
gives each tool its `bases`: the files they name, followed through files that name others, each read whole as the
tool's settings. A value that names no file of the repository (a package: `eslint:recommended`,
`@tsconfig/node20/tsconfig.json`) is not followed, nor one leading out of it; a file that does not parse names
nothing (it is the tool's own file, compared whole, or one already followed)."""

from __future__ import annotations

import fnmatch
import functools
import json
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.bank import yamlio
from aidlc.bolt.check_settings import SHARED, Tool, may_hold_settings, value_at
from aidlc.bolt.recipes import items
from aidlc.bolt.runner_configs import json_object

MAX_FILES = 200  # settings files read to find what they extend, all tools together (a monorepo's package.json files)
MAX_DEPTH = 5  # a base extending a base ...

_KEYS = ("extend", "extends", "inherit_from", "includes")
# `import base from './base.js'`, `import './base.js'`, `require('./base')`, `await import('../base.mjs')`, and a
# package's: `import { config } from '@repo/eslint-config/base'` (a workspace's own, as a Turborepo shares settings)
_IMPORT = re.compile(r"""(?:\bfrom|\bimport|\brequire)\s*\(?\s*["']([^"'\n]+)["']""")
_SCRIPT = re.compile(r"\.[cm]?[jt]s$")
_SCRIPT_ENDINGS = ("", ".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".json", "/index.js", "/index.ts")
# A string, kept, or a comment, dropped: JSON with comments (tsconfig.json, .eslintrc.json, biome.jsonc).
_JSON_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_LEADING_TABS = re.compile(r"^\t+", re.MULTILINE)
# What may be a base: files of the formats settings are written in (`config/ruff-base.toml`, `.rubocop-base.yml`).
_MAY_BE_BASE = re.compile(r"(?:\.(?:toml|jsonc?|json5|ya?ml|neon|[cm]?[jt]s)|/\.[^/]*)$")

Read = Callable[[Iterable[str]], dict[str, bytes | None]]


def may_be_base(path: str) -> bool:
    """Whether the file at `path` is written in a format settings are (TOML, JSON, YAML, JavaScript...)."""
    return bool(_MAY_BE_BASE.search("/" + path))


def extended_at(project: Path, head: str, runs: dict[Tool, list[str]], changed: Iterable[str],
                files: Callable[[], list[str]] | None = None) -> dict[Tool, list[str]]:
    """`runs` with each tool's `bases` as the repository of `project` holds them at commit `head` (`files`: its
    files there, when the caller lists them), when one of the `changed` files may be one: a file in a format
    settings are written in, and not a settings file by its name."""
    tools = list(runs)
    if not tools or not any(may_be_base(path) and not may_hold_settings(path, tools) for path in changed):
        return runs
    history = vcs.history(project)
    if history is None:
        return runs
    return with_bases(runs, vcs.files_at(project, head) if files is None else files(),
                      lambda paths: history.read(head, paths))


def with_bases(runs: dict[Tool, list[str]], listing: list[str], read: Read) -> dict[Tool, list[str]]:
    """`runs` (a tool -> the checks running it) with each tool given the `bases` its settings extend, among the files
    of `listing` (the repository's at the head), read with `read` (paths -> their bytes, in one batch)."""
    present = set(listing)
    packages = functools.cache(lambda: _workspace_packages(listing, read))  # read when a bare name is met
    owners = _settings_files(list(runs), listing)
    bases: dict[Tool, set[str]] = {}
    seen = set(owners)
    for _ in range(MAX_DEPTH):
        texts = read(sorted(owners))
        named: dict[str, set[Tool]] = {}
        for path, tools in owners.items():
            text = (texts.get(path) or b"").decode("utf-8", "replace")
            for tool in tools:
                for base in _named(path, text, tool, present, packages):
                    bases.setdefault(tool, set()).add(base)
                    named.setdefault(base, set()).add(tool)
        owners = {path: tools for path, tools in named.items() if path not in seen}
        seen |= set(owners)
        if not owners:
            break
    return {replace(tool, bases=tuple(sorted(bases[tool]))) if tool in bases else tool: checks
            for tool, checks in runs.items()}


def _settings_files(tools: list[Tool], listing: list[str]) -> dict[str, set[Tool]]:
    """A settings file of `listing` -> the `tools` reading it; MAX_FILES files at most, the tools' own files first: a
    bolt adding hundreds of package.json files (any change of a tool's own file counts already) must not crowd out
    the eslint.config.js whose base it then weakens."""
    owners: dict[str, set[Tool]] = {}
    shared = [path for path in listing if posixpath.basename(path) in SHARED]
    for path in [*(path for path in listing if posixpath.basename(path) not in SHARED), *shared]:
        for tool in tools:
            if _holds(path, tool) and (path in owners or len(owners) < MAX_FILES):
                owners.setdefault(path, set()).add(tool)
    return owners


def _holds(path: str, tool: Tool) -> bool:
    name = posixpath.basename(path)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in tool.files) or \
        (name == "pyproject.toml" and bool(tool.pyproject)) or (name == "package.json" and bool(tool.package))


Packages = Callable[[], dict[str, tuple[str, dict[str, Any]]]]  # a workspace package's name -> its folder, manifest


def _named(path: str, text: str, tool: Tool, present: set[str], packages: Packages) -> list[str]:
    """The files of the repository (`present`) that the settings file at `path` names as its bases, by a path or as
    a workspace package's (`packages`); not the files shared with other tools (pyproject.toml), whose parts each
    tool reads are compared already."""
    folder, name = posixpath.split(path)
    script = bool(_SCRIPT.search(name))
    values = _IMPORT.findall(text) if script else [value for settings in _settings(name, text, tool)
                                                  for key in _KEYS for value in _strings(settings.get(key))]
    endings = _SCRIPT_ENDINGS if script else ("", ".json")
    found = ((_resolved(folder, value, endings, present) if value.startswith(".") or not script else None)
             or _in_package(value, endings, present, packages) for value in values)
    return [base for base in found if base is not None and posixpath.basename(base) not in SHARED]


def _workspace_packages(listing: list[str], read: Read) -> dict[str, tuple[str, dict[str, Any]]]:
    """The packages of the repository by name (their package.json, MAX_FILES at most, none in node_modules)."""
    manifests = [path for path in listing if posixpath.basename(path) == "package.json"
                 and "node_modules/" not in f"/{path}"][:MAX_FILES]
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for path, data in read(manifests).items():
        manifest = json_object(data)
        if isinstance(manifest.get("name"), str):
            found.setdefault(manifest["name"], (posixpath.dirname(path), manifest))
    return found


def _in_package(value: str, endings: tuple[str, ...], present: set[str], packages: Packages) -> str | None:
    """The file a workspace package's specifier names (`@repo/eslint-config/next-js`, through its package.json's
    `exports`; `@repo/typescript-config/nextjs.json`; the package alone, its `main`), if the package is the
    repository's own."""
    if value.startswith((".", "/")) or ":" in value:
        return None
    parts = value.split("/")
    size = 2 if value.startswith("@") else 1
    held = packages().get("/".join(parts[:size]))
    if held is None:
        return None
    folder, manifest = held
    sub = "/".join(parts[size:])
    exports = manifest.get("exports")
    target = exports.get(f"./{sub}" if sub else ".") if isinstance(exports, dict) else exports if not sub else None
    target = target.get("default") or target.get("import") or target.get("require") \
        if isinstance(target, dict) else target
    main = manifest.get("main")
    if not isinstance(target, str):
        target = sub or (main if isinstance(main, str) else "index")
    return _resolved(folder, target, (*endings, "/index.js"), present)


def _settings(name: str, text: str, tool: Tool) -> list[dict[str, Any]]:
    """The tables of the tool's settings in the file (its own tables in pyproject.toml and package.json); none where
    it does not parse."""
    try:
        if name == "pyproject.toml":
            tables = _toml(text).get("tool")
            return [table for key in tool.pyproject if isinstance(table := value_at(tables, key), dict)]
        if name == "package.json":
            package = json.loads(text)
            values = [value_at(package, key) for key in tool.package]
            return [value if isinstance(value, dict) else {"extends": value} for value in values if value is not None]
        if name.endswith(".neon"):  # phpstan's NEON: YAML but for the tabs it is indented with
            text = _LEADING_TABS.sub(lambda m: "    " * len(m.group()), text)
        data = _toml(text) if name.endswith(".toml") else _json(text) if name.endswith((".json", ".jsonc")) \
            else _json_or_yaml(text)
    except (ValueError, RecursionError, yamlio.YAMLError):  # the parsers' errors: it names nothing
        return []
    return [data] if isinstance(data, dict) else []


def _toml(text: str) -> dict[str, Any]:
    import tomllib  # here: the bolt's loop imports this module at every start

    return tomllib.loads(text)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        stripped = _JSON_COMMENT.sub(lambda m: m.group() if m.group().startswith('"') else "", text)
        return json.loads(_TRAILING_COMMA.sub(r"\1", stripped))


def _json_or_yaml(text: str) -> Any:
    """An rc file without an ending (`.eslintrc`, `.yamllint`), or YAML or NEON: JSON (with comments) or YAML."""
    try:
        return _json(text)
    except ValueError:
        return yamlio.load(text)


def _strings(value: Any) -> list[str]:
    return [item for item in items(value) if isinstance(item, str)]


def _resolved(folder: str, value: str, endings: tuple[str, ...], present: set[str]) -> str | None:
    """The file of the repository `value` names, from the settings file's `folder`, tried with each of `endings`."""
    if not value or value.startswith(("/", "~")) or "://" in value:
        return None
    path = posixpath.normpath(posixpath.join(folder, value))
    if path == ".." or path.startswith("../"):
        return None
    return next((path + ending for ending in endings if path + ending in present), None)
