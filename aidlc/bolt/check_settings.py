"""The settings of the tools a check runs (what runs is found by aidlc/bolt/check_runs.py): `mypy src` judges by
pyproject.toml's [tool.mypy] (`ignore_errors = true` there passes anything), pytest by its `addopts` (`--deselect`
there stops a test), ruff by its `ignore` list, coverage by its `fail_under`. A bolt that changes them changes what
its checks prove, as one that rewrites the command does. pyproject.toml, setup.cfg, tox.ini and package.json hold
much else (a version, a dependency): of those only the tool's part is compared; a file only the tool reads counts
whole."""

from __future__ import annotations

import fnmatch
import json
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Tool:
    """A check's tool and where it reads its settings."""

    name: str
    files: tuple[str, ...] = ()  # its own settings files, by name (`jest.config.*`): any change counts
    pyproject: tuple[str, ...] = ()  # its [tool.NAME] tables in pyproject.toml
    sections: tuple[str, ...] = ()  # its sections in setup.cfg and tox.ini (`mypy-*`: any of that prefix)
    package: tuple[str, ...] = ()  # its keys in package.json (`scripts.test`: inside `scripts`)
    recipe_files: tuple[str, ...] = ()  # a runner's: the files it reads its recipes or scripts from, the first found
    recipes: tuple[str, ...] = ()  # a task runner's: the targets the command names (none: the file's first)
    assignments: tuple[str, ...] = ()  # make's: the variables the command sets (`make lint LINT=flake8`)
    workdir: str = ""  # a task runner's: the folder it runs in (`make -C web`)
    workspace: str = ""  # a package manager's: the workspace whose scripts it runs (`npm run lint -w web`)
    bases: tuple[str, ...] = ()  # the files its settings extend, by path (aidlc/bolt/settings_bases.py): read whole


PYTEST = Tool("pytest", ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml"), ("pytest",),
              ("tool:pytest", "pytest"))
TOX = Tool("tox", ("tox.ini", "tox.toml"), ("tox",), ("tox:*", "testenv*"))
COVERAGE = Tool("coverage", (".coveragerc",), ("coverage",), ("coverage:*",))
NPM_TEST = Tool("npm", package=("scripts.pretest", "scripts.test", "scripts.posttest"))  # what `npm test` runs
JEST = Tool("jest", ("jest.config.*",), package=("jest",))
MOCHA = Tool("mocha", (".mocharc*",), package=("mocha",))
AVA = Tool("ava", ("ava.config.*",), package=("ava",))
VITEST = Tool("vitest", ("vitest.config.*", "vitest.workspace.*"))
KARMA = Tool("karma", ("karma.conf.*",))
PLAYWRIGHT = Tool("playwright", ("playwright.config.*",))
CYPRESS = Tool("cypress", ("cypress.config.*", "cypress.json"))
NOX = Tool("nox", ("noxfile.py",))
# What the test runners load with the tests they run, and what `npm test` runs: changed by a bolt, the tests that
# existed before it no longer run as they were.
TEST_RUNNERS = (PYTEST, TOX, NOX, NPM_TEST, JEST, MOCHA, AVA, VITEST, KARMA, PLAYWRIGHT, CYPRESS)
# pre-commit's configuration says which hooks run and on what (`exclude`): any change to it counts.
PRE_COMMIT = Tool("pre-commit", (".pre-commit-config.yaml", ".pre-commit-config.yml"))
TOOLS = {tool.name: tool for tool in (
    *(runner for runner in TEST_RUNNERS if runner is not NPM_TEST), COVERAGE,
    Tool("mypy", ("mypy.ini", ".mypy.ini"), ("mypy",), ("mypy", "mypy-*")),
    Tool("ruff", ("ruff.toml", ".ruff.toml"), ("ruff",)),
    Tool("flake8", (".flake8",), (), ("flake8",)),
    Tool("pylint", ("pylintrc", ".pylintrc"), ("pylint",)),
    Tool("pyright", ("pyrightconfig.json",), ("pyright",)),
    Tool("eslint", ("eslint.config.*", ".eslintrc*", ".eslintignore"), package=("eslintConfig",)),
    Tool("tsc", ("tsconfig.json", "tsconfig.*.json")),
    Tool("golangci-lint", (".golangci.*",)),
    # Formatters run as checks (`black --check`), and the linters of other languages, by their own files.
    Tool("black", (), ("black",)),
    Tool("isort", (".isort.cfg",), ("isort",), ("isort", "tool:isort")),
    Tool("bandit", (".bandit",), ("bandit",)),
    Tool("basedpyright", ("pyrightconfig.json",), ("basedpyright", "pyright")),
    Tool("vulture", (), ("vulture",)),
    Tool("ty", ("ty.toml",), ("ty",)),
    Tool("pyrefly", ("pyrefly.toml",), ("pyrefly",)),
    Tool("deptry", (), ("deptry",)),
    Tool("codespell", (".codespellrc",), ("codespell",), ("codespell",)),
    Tool("typos", ("typos.toml", "_typos.toml", ".typos.toml"), ("typos",)),
    Tool("oxlint", (".oxlintrc.json", "oxlint.json")),
    Tool("actionlint", ("actionlint.yaml", "actionlint.yml")),
    Tool("zizmor", ("zizmor.yml", "zizmor.yaml")),
    Tool("prettier", (".prettierrc*", "prettier.config.*", ".prettierignore"), package=("prettier",)),
    Tool("biome", ("biome.json", "biome.jsonc")),
    Tool("stylelint", (".stylelintrc*", "stylelint.config.*"), package=("stylelint",)),
    Tool("rubocop", (".rubocop.yml", ".rubocop_todo.yml")),
    Tool("phpstan", ("phpstan.neon", "phpstan.neon.dist", "phpstan.dist.neon")),
    Tool("phpunit", ("phpunit.xml", "phpunit.xml.dist", "phpunit.dist.xml")),
    Tool("clippy", ("clippy.toml", ".clippy.toml")),  # `cargo clippy`
    Tool("staticcheck", ("staticcheck.conf",)),
    Tool("shellcheck", (".shellcheckrc",)),
    Tool("hadolint", (".hadolint.yaml", ".hadolint.yml")),
    Tool("yamllint", (".yamllint", ".yamllint.yaml", ".yamllint.yml")),
    Tool("markdownlint", (".markdownlint*",)),
    Tool("markdownlint-cli2", (".markdownlint*",)),
)}
def may_hold_settings(path: str, tools: list[Tool]) -> bool:
    """Whether one of the `tools` may read settings from the file at `path`."""
    name = posixpath.basename(path)
    return name in SHARED or any(path in tool.bases for tool in tools) or \
        any(fnmatch.fnmatchcase(name, pattern) for tool in tools for pattern in tool.files)


def changed_parts(path: str, before: bytes | None, after: bytes | None, tools: Iterable[Tool]) -> list[str]:
    """The parts of the file at `path` that the `tools` read and that differ between its two versions (None: not
    there), named as the file names them (`[tool.mypy]`, `scripts.test`, `jest`); "" for a file a tool reads whole."""
    tools = list(tools)
    old, new = _read(path, before, tools), _read(path, after, tools)
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return [part for part in sorted({*old, *new}) if old.get(part) != new.get(part)]
    return ["all of it: a version of it does not parse"]


def _read(path: str, data: bytes | None, tools: list[Tool]) -> dict[str, Any] | str:
    """What of the file the `tools` read, by part ({} where the file is not there or they read none of it). A file
    that does not parse is its whole text, so that any change to it counts (a tool reads it some way, or fails)."""
    if data is None:
        return {}
    name = posixpath.basename(path)
    text = data.decode("utf-8", "replace")
    if any(path in tool.bases or any(fnmatch.fnmatchcase(name, pattern) for pattern in tool.files) for tool in tools):
        return {"": text}
    reader = SHARED.get(name)
    try:
        return reader(text, tools) if reader is not None else {}
    except (ValueError, RecursionError):  # each reader's parse errors; nesting deeper than Python's stack
        return text


# The parsers are imported where a file is read: the run's loop imports this module at every start.
def _pyproject(text: str, tools: list[Tool]) -> dict[str, Any]:
    import tomllib

    tables = tomllib.loads(text).get("tool")
    found = {}
    for key in (key for tool in tools for key in tool.pyproject):  # a table, or one inside it: `hatch.envs`
        if (value := value_at(tables, key)) is not None:
            found[f"[tool.{key}]"] = value
    return found


def value_at(value: Any, dotted: str) -> Any:
    """The value at a dotted key of nested mappings (`hatch.envs`, `scripts.test`); None where there is none."""
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _ini(text: str, tools: list[Tool]) -> dict[str, Any]:
    import configparser

    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        raise ValueError(str(exc)) from None
    return {f"[{section}]": dict(parser[section]) for section in parser.sections()
            if any(fnmatch.fnmatchcase(section, pattern) for tool in tools for pattern in tool.sections)}


def _package(text: str, tools: list[Tool]) -> dict[str, Any]:
    package = json.loads(text)
    if not isinstance(package, dict):
        raise ValueError("package.json holds no object")
    found = {}
    for key in (key for tool in tools for key in tool.package):
        if (value := value_at(package, key)) is not None:
            found[key] = value
    return found


def _workspace_list(text: str, tools: list[Tool]) -> dict[str, Any]:
    """pnpm-workspace.yaml's or lerna.json's `packages`, the workspaces a package manager runs a script in, for a
    tool that reads package.json's `workspaces`; not the dependency catalogs or the version beside them."""
    from aidlc.bank import yamlio  # YAML, and JSON as YAML reads it

    if not any("workspaces" in tool.package for tool in tools):
        return {}
    try:
        document = yamlio.load(text)
    except yamlio.YAMLError as exc:
        raise ValueError(str(exc)) from None
    return {"packages": document.get("packages")} if isinstance(document, dict) else {}


# The files that hold the settings of several tools and much else: only each tool's part of them is read.
SHARED = {"pyproject.toml": _pyproject, "setup.cfg": _ini, "tox.ini": _ini, "package.json": _package,
          "pnpm-workspace.yaml": _workspace_list, "lerna.json": _workspace_list}


def said(subject: str, by_tool: dict[Tool, list[str]], runs: dict[Tool, list[str]]) -> str:
    """`it ([tool.ruff]): the settings of ruff, which the verify command(s) 'lint' run`: what changed (`by_tool`: the
    parts of `subject` each tool reads that changed) and the checks (`runs`, from `tools_of`) that read it."""
    parts = sorted({part for tool_parts in by_tool.values() for part in tool_parts})
    checks = ", ".join(f"'{name}'" for name in dict.fromkeys(n for tool in by_tool for n in runs[tool]))
    return (f"{named(subject, parts)}: the settings of {', '.join(sorted({tool.name for tool in by_tool}))}, which the "
            f"verify command(s) {checks} run")


def named(path: str, parts: list[str]) -> str:
    """`pyproject.toml ([tool.mypy])`; a file read whole by its name alone."""
    shown = [part for part in parts if part]
    return f"{path} ({', '.join(shown)})" if shown else path
