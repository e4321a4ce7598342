"""The test runners' settings inside files a project keeps for much else: pytest reads `addopts` from pyproject.toml
([tool.pytest.ini_options], [tool.pytest]) and setup.cfg ([tool:pytest]), tox its environments from both, jest,
mocha and ava their options from package.json, and `npm test` runs package.json's `test` script. A bolt that puts
`--deselect` there stops a test of the base from running as a conftest.py would, yet it changes these files for a
version or a dependency too: only the runner's part of them is compared."""

from __future__ import annotations

import configparser
import json
import tomllib
from typing import Any

SHARED = ("pyproject.toml", "setup.cfg", "package.json")
_PACKAGE_KEYS = ("jest", "mocha", "ava")
_PACKAGE_SCRIPTS = ("pretest", "test", "posttest")  # what `npm test` runs, in that order


def is_shared(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in SHARED


def changed_parts(path: str, before: bytes | None, after: bytes | None) -> list[str]:
    """The parts of the file at `path` a test runner reads that differ between its two versions (None: not there),
    named as the file names them (`[tool.pytest]`, `scripts.test`, `jest`)."""
    old, new = _runner_part(path, before), _runner_part(path, after)
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return [part for part in sorted({*old, *new}) if old.get(part) != new.get(part)]
    return ["all of it: one version does not parse" if isinstance(old, str) or isinstance(new, str)
            else "its test runner's settings"]


def _runner_part(path: str, data: bytes | None) -> dict[str, Any] | str | None:
    """What of the file a test runner reads, by part; None where the file is not there. A file that does not parse
    is its whole text, so that any change to it counts (the runner reads it some way, or fails)."""
    if data is None:
        return None
    text = data.decode("utf-8", "replace")
    name = path.rsplit("/", 1)[-1]
    try:
        if name == "pyproject.toml":
            tool = tomllib.loads(text).get("tool")
            tool = tool if isinstance(tool, dict) else {}
            return {f"[tool.{key}]": tool[key] for key in ("pytest", "tox") if key in tool}
        if name == "setup.cfg":
            parser = configparser.RawConfigParser(strict=False, interpolation=None)
            parser.read_string(text)
            return {f"[{section}]": dict(parser[section]) for section in parser.sections()
                    if section == "tool:pytest" or section.startswith(("tox:", "testenv"))}
        package = json.loads(text)
    except (ValueError, configparser.Error):  # TOML and JSON errors are ValueErrors
        return text
    if not isinstance(package, dict):
        return text
    scripts = package.get("scripts")
    scripts = scripts if isinstance(scripts, dict) else {}
    return {**{f"scripts.{key}": scripts[key] for key in _PACKAGE_SCRIPTS if key in scripts},
            **{key: package[key] for key in _PACKAGE_KEYS if key in package}}
