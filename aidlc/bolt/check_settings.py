"""What a check's command runs and reads beside its own words: the files it names or whose recipe it runs
(`make test` runs the Makefile: `named_by_verify`), and the settings of the tools it runs (`tools_run`): `mypy src`
judges by pyproject.toml's
[tool.mypy] (`ignore_errors = true` there passes anything), pytest by its `addopts` (`--deselect` there stops a
test), ruff by its `ignore` list, coverage by its `fail_under`. A bolt that changes them changes what its checks
prove, as one that rewrites the command does. pyproject.toml, setup.cfg, tox.ini and package.json hold much else
(a version, a dependency): of those only the tool's part is compared; a file only the tool reads counts whole."""

from __future__ import annotations

import fnmatch
import functools
import json
import posixpath
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from aidlc.bolt import recipes, runner_configs


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


PYTEST = Tool("pytest", ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml"), ("pytest",),
              ("tool:pytest", "pytest"))
TOX = Tool("tox", ("tox.ini",), ("tox",), ("tox:*", "testenv*"))
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
TOOLS = {tool.name: tool for tool in (
    *(runner for runner in TEST_RUNNERS if runner is not NPM_TEST), COVERAGE,
    Tool("mypy", ("mypy.ini", ".mypy.ini"), ("mypy",), ("mypy", "mypy-*")),
    Tool("ruff", ("ruff.toml", ".ruff.toml"), ("ruff",)),
    Tool("flake8", (".flake8",), (), ("flake8",)),
    Tool("pylint", ("pylintrc", ".pylintrc"), ("pylint",)),
    Tool("pyright", ("pyrightconfig.json",), ("pyright",)),
    Tool("eslint", ("eslint.config.*", ".eslintrc*"), package=("eslintConfig",)),
    Tool("tsc", ("tsconfig.json", "tsconfig.*.json")),
    Tool("golangci-lint", (".golangci.*",)),
)}
_NPM = ("npm", "yarn", "pnpm", "bun")


def tools_run(words: list[str]) -> list[Tool]:
    """The tools a check's command (its words) runs: by name (`mypy`, `python -m mypy`, `npx eslint`), coverage by
    pytest-cov's `--cov` too, the task runners, package managers, pre-commit, tox and pdm, poe or hatch with what
    their words say they run (a target, a script, a hook, an environment, a task), and the shell scripts it runs
    (what those call: `tools_of`)."""
    found: dict[Tool, None] = {}  # each once, in the order named
    for at, word in enumerate(words):
        name = _MAKE_VARIABLE.get(word, posixpath.basename(word))
        script = recipes.shell_script(words, at)
        tool = _RUNNERS[name](name, words[at + 1:]) if name in _RUNNERS else TOOLS.get(name) or \
            (PYTEST if name == "py.test" else COVERAGE if word.startswith("--cov") else None) or \
            (Tool(SCRIPT, recipe_files=(script,)) if script is not None else None)
        if tool is not None:
            found.setdefault(tool)
    return list(found)


_HOOK_RUNNERS = ("pre-commit", "pre_commit", "prek")  # pre-commit (`python -m pre_commit`), and prek, its port
# pre-commit's configuration says which hooks run and on what (`exclude`): any change to it counts.
PRE_COMMIT = Tool("pre-commit", (".pre-commit-config.yaml", ".pre-commit-config.yml"))


def _hook_runner(name: str, rest: list[str]) -> Tool:
    """pre-commit, given the words after it: its configuration (`-c FILE`, else its own) and the hooks `run` names."""
    config = recipes.option_values(rest, ("-c", "--config"))
    named = [word for at, word in enumerate(rest) if not word.startswith("-") and
             (at == 0 or rest[at - 1] not in ("-c", "--config", "--files", "--hook-stage", "--from-ref", "--to-ref",
                                              "--source", "--origin", "-s", "-o"))]
    return replace(PRE_COMMIT, recipe_files=tuple(config[:1]) or PRE_COMMIT.files,
                   recipes=tuple(named[1:]) if named[:1] == ["run"] else ())


def _pyproject_runner(name: str, rest: list[str]) -> Tool:
    """pdm, poe or hatch, given the words after it: the task it runs (`pdm run lint`, `poe lint`, `hatch run
    lint:check`; none for `hatch fmt`) and where it reads its tasks, whose part of pyproject.toml is its settings."""
    words = [word for word in rest if not word.startswith("-")]
    words = words[1:] if words[:1] == ["run"] else [] if name == "hatch" else words
    table = {"pdm": "pdm.scripts", "poe": "poe", "hatch": "hatch.envs"}[name]
    return Tool(name, ("hatch.toml",) if name == "hatch" else (), (table,), recipes=tuple(words[:1]),
                recipe_files=("pyproject.toml", "hatch.toml") if name == "hatch" else ("pyproject.toml",))


def _tox_runner(name: str, rest: list[str]) -> Tool:
    """tox, given the words after it: the environments `-e` names and the file `-c` names (else tox's own)."""
    envs = recipes.option_values(rest, ("-e", "--env")) + [word[2:] for word in rest if word[:2] == "-e" and word[2:]]
    config = recipes.option_values(rest, ("-c", "--conf"))[:1]
    return replace(TOX, recipe_files=tuple(config) or runner_configs.TOX_CONFIGS, recipes=tuple(envs))


SCRIPT = "sh"  # the tool name of a shell script a command runs: its lines are followed as commands
_MAKE_VARIABLE = {"$(MAKE)": "make", "${MAKE}": "make"}  # a recipe's call of make itself


def _task_runner(name: str, rest: list[str]) -> Tool:
    """make, just or task, given the words after it: the recipe files it reads, the targets and variables it names."""
    targets = tuple(word for at, word in enumerate(rest) if not word.startswith("-") and "=" not in word
                    and (at == 0 or rest[at - 1] not in (*recipes.FILE_OPTIONS, "-C", "--directory")))
    assigned = tuple(word for word in rest if "=" in word and not word.startswith("-"))
    return Tool(name, recipe_files=tuple(recipes.recipe_files(name, rest)), recipes=targets, assignments=assigned,
                workdir=recipes.folder(rest))


def _package_runner(name: str, rest: list[str]) -> Tool:
    """npm, yarn, pnpm or bun, given the words after it: the script it runs, with its pre and post scripts, and the
    package.json it reads them from, in the folder `--prefix`, `-C`, `--cwd` or `--dir` names."""
    valued = (*_VALUED, "-w") if name == "npm" else _VALUED  # pnpm's -w is the workspace root, no value
    script, workspace = _script(rest, valued)
    scripts = NPM_TEST.package if script in ("test", "t") else \
        (f"scripts.pre{script}", f"scripts.{script}", f"scripts.post{script}") if script else ()
    folders = recipes.option_values(rest, _FOLDER_OPTIONS)
    return Tool(name, package=scripts, recipe_files=(posixpath.join(*folders[:1], "package.json"),),
                workspace=workspace or "".join(recipes.option_values(rest, valued[len(_FOLDER_OPTIONS):])[:1]))


_FOLDER_OPTIONS = ("--prefix", "-C", "--cwd", "--dir")
_VALUED = (*_FOLDER_OPTIONS, "--filter", "-F", "--workspace")  # options that take a value; after the folders', those
# naming a workspace


def _script(rest: list[str], valued: tuple[str, ...]) -> tuple[str | None, str]:
    """The script `npm run NAME` (`npm test`, `yarn NAME`, `pnpm --filter web NAME`) runs, skipping options (and
    the values of those that take one), and the workspace `yarn workspace web NAME` names."""
    words = [word for at, word in enumerate(rest)
             if not word.startswith("-") and (at == 0 or rest[at - 1] not in valued)]
    workspace = words[1] if words[:1] == ["workspace"] and len(words) > 1 else ""
    words = words[2:] if workspace else words
    if words[:1] in (["run"], ["run-script"]):
        words = words[1:]
    return (words[0] if words else None), workspace


# The runners whose words say what they run, each read from the words after its name.
_RUNNERS: dict[str, Callable[[str, list[str]], Tool]] = {
    TOX.name: _tox_runner, **dict.fromkeys(recipes.RUNNERS, _task_runner), **dict.fromkeys(_NPM, _package_runner),
    **dict.fromkeys(runner_configs.PYPROJECT_RUNNERS, _pyproject_runner), **dict.fromkeys(_HOOK_RUNNERS, _hook_runner)}


def may_hold_settings(path: str, tools: list[Tool]) -> bool:
    """Whether one of the `tools` may read settings from the file at `path`."""
    name = posixpath.basename(path)
    return name in _SHARED or \
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
    if any(fnmatch.fnmatchcase(name, pattern) for tool in tools for pattern in tool.files):
        return {"": text}
    reader = _SHARED.get(name)
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
        value = tables
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is not None:
            found[f"[tool.{key}]"] = value
    return found


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
        outer, _, inner = key.partition(".")
        value = package.get(outer)
        value = value.get(inner) if inner and isinstance(value, dict) else None if inner else value
        if value is not None:
            found[key] = value
    return found


# The files that hold the settings of several tools and much else: only each tool's part of them is read.
_SHARED = {"pyproject.toml": _pyproject, "setup.cfg": _ini, "tox.ini": _ini, "package.json": _package}


def tools_of(verify: list[Any], read: Callable[[str], bytes | None] | None = None) -> dict[Tool, list[str]]:
    """The tools aidlc.yaml's verify commands run, each with the names of the checks that run it; with `read` (a
    file of the project at the head, by path: those `files_read` names), also the tools the package.json scripts
    that npm, yarn, pnpm or bun run call (`npm run lint` running eslint), and those the Makefile or justfile
    targets a task runner runs call (`make lint` running ruff), and theirs in turn."""
    runs: dict[Tool, list[str]] = {}
    for check in (check for check in verify if isinstance(check, dict)):
        pending, seen = tools_run(command_words(check)), set()
        while pending:
            tool = pending.pop(0)
            if tool in seen:
                continue
            seen.add(tool)
            runs.setdefault(tool, []).append(str(check.get("name", "?")))
            if read is not None:
                pending += _called(tool, read)
    return runs


def _called(tool: Tool, read: Callable[[str], bytes | None]) -> list[Tool]:
    """The tools that what `tool` runs calls: a package script, a task runner's recipe, a pre-commit hook, a tox
    environment's commands, a shell script's lines."""
    return [called for line in _lines_run(tool, read) for called in tools_run(command_words({"run": line}))]


def _lines_run(tool: Tool, read: Callable[[str], bytes | None]) -> list[str]:
    """The command lines `tool` runs, read from its files."""
    if tool.name in _NPM:
        package = runner_configs.workspace_package(tool.recipe_files[0], tool.workspace, read) if tool.workspace \
            else tool.recipe_files[0]
        scripts = runner_configs.package_scripts(read(package) if package is not None else None)
        return [run for key in tool.package if (run := scripts.get(key.removeprefix("scripts."))) is not None]
    if tool.name == SCRIPT:
        return recipes.script_lines(read(tool.recipe_files[0]))
    if tool.name == PRE_COMMIT.name:
        config = next((data for data in map(read, tool.recipe_files) if data is not None), None)
        return [f"{' '.join(_hook_tools(hook))} {entry}" for hook, entry in runner_configs.hooks(config, tool.recipes)]
    if tool.name in runner_configs.PYPROJECT_RUNNERS:
        return runner_configs.pyproject_tasks(tool.name, read, tool.recipe_files, tool.recipes)
    if tool.name == TOX.name:
        return runner_configs.tox_commands(read, tool.recipe_files, tool.recipes)
    found = _recipes(tool, read)
    return recipes.commands(tool.name, found, tool.recipes, tool.assignments) if found is not None else []


def _hook_tools(hook: str) -> list[str]:
    """The tools a pre-commit hook of that id runs (`ruff-format`: ruff; `golangci-lint-full`: golangci-lint)."""
    return [name for name in TOOLS if hook == name or hook.startswith(name + "-")]


def _recipes(tool: Tool, read: Callable[[str], bytes | None]) -> recipes.Recipes | None:
    """The recipes of the task runner `tool`, from the first of its recipe files there is, with the files that one
    includes."""
    for path in tool.recipe_files:
        data = read(path)
        if data is not None:
            return recipes.read_recipes(tool.name, path, data, read, tool.workdir)
    return None


def files_read(verify: list[Any]) -> list[str]:
    """The project's files `tools_of` reads to follow what the verify commands run: package.json where they run
    package scripts (in the folder an option names), the recipe files of the task runners they run."""
    return sorted({file for tool in tools_of(verify) for file in tool.recipe_files})


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


def command_words(check: dict[str, Any]) -> list[str]:
    """The words of a verify command's `run`, as a shell splits them (none where it does not split)."""
    run = check.get("run")
    try:
        return shlex.split(run) if isinstance(run, str) else []
    except ValueError:
        return []


def named_by_verify(verify: list[Any], changed: set[str], read: Callable[[str], bytes | None] | None = None,
                    ) -> list[tuple[str, str]]:
    """(path, check name) for each of the `changed` files a verify command names as a word of its `run`, or runs
    through a tool that reads its recipe from a file of its own (`make test` runs the Makefile's `test`); with `read`
    (a project file by path, as the edit leaves it), also the files what it runs is read from, followed: those the
    recipe files include (`include mk/test.mk`, just's `import`, a Taskfile's `includes`) and the shell scripts
    and recipe files the recipes, package scripts and scripts run in turn."""
    read = functools.cache(read) if read is not None else None  # each file read once, however often it is reached
    found = []
    for check in verify:
        if not isinstance(check, dict):
            continue
        named = {posixpath.normpath(word) for word in _files_run(command_words(check))}
        for path in sorted((named | _reached(check, changed, read) if read is not None else named) & changed):
            found.append((path, str(check.get("name", "?"))))
    return found


def _reached(check: dict[str, Any], changed: set[str], read: Callable[[str], bytes | None]) -> set[str]:
    """The shell scripts and recipe files (with the files those include) the command `check` runs, followed, and
    the `changed` files a wildcard include names."""
    found: set[str] = set()
    for tool in tools_of([check], read):
        if tool.name == SCRIPT:
            found.update(tool.recipe_files)
        elif tool.name in recipes.RUNNERS and (book := _recipes(tool, read)) is not None:
            found.update((book.path, *book.included))
            found.update(path for path in changed if any(recipes.matches(path, p) for p in book.patterns))
    return found


def _files_run(words: list[str]) -> list[str]:
    """The command's words (an option's value too: `--file=ci.mk`), and the recipe files of each task runner among
    them."""
    found = [*words, *(word.split("=", 1)[1] for word in words if word.startswith("--") and "=" in word)]
    for at, word in enumerate(words):
        if posixpath.basename(word) in recipes.RUNNERS:
            found += recipes.recipe_files(posixpath.basename(word), words[at + 1:])
    return found


