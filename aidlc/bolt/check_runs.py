"""What a check's command runs beside its own words: the tools it names (`tools_run`), and through the runners among
them (make, just, task, npm and its kin, pre-commit, tox, nox, pdm, poe, hatch, a shell or Python script) the
commands those run in turn, read from their files (`tools_of`); and the files it names or runs (`named_by_verify`:
`make test` runs the Makefile). The settings of the tools found are aidlc/bolt/check_settings.py's."""

from __future__ import annotations

import functools
import posixpath
import shlex
from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Any

from aidlc.bolt import recipes, runner_configs
from aidlc.bolt.check_settings import COVERAGE, NOX, NPM_TEST, PRE_COMMIT, PYTEST, TOOLS, TOX, Tool

_NPM = ("npm", "yarn", "pnpm", "bun")
_MONOREPO = ("turbo", "nx", "lerna")  # they run the package scripts of the workspaces


def tools_run(words: list[str]) -> list[Tool]:
    """The tools a check's command (its words) runs: by name (`mypy`, `python -m mypy`, `npx eslint`), coverage by
    pytest-cov's `--cov` too, the task runners, package managers, pre-commit, tox and pdm, poe or hatch with what
    their words say they run (a target, a script, a hook, an environment, a task), and the shell scripts it runs
    (what those call: `tools_of`)."""
    found: dict[Tool, None] = {}  # each once, in the order named
    for at, word in enumerate(words):
        name = _MAKE_VARIABLE.get(word, posixpath.basename(word))
        script, python = recipes.shell_script(words, at), recipes.python_script(words, at)
        tool = _RUNNERS[name](name, words[at + 1:]) if name in _RUNNERS else TOOLS.get(name) or \
            (PYTEST if name == "py.test" else COVERAGE if word.startswith("--cov") else None) or \
            (Tool(SCRIPT, recipe_files=(script,)) if script is not None else None) or \
            (Tool(PYTHON_SCRIPT, recipe_files=(python,)) if python is not None else None)
        if tool is not None:
            found.setdefault(tool)
        if (line := recipes.shell_command(words, at)) is not None:  # its own words, read as a command's
            found.update(dict.fromkeys(tools_run(command_words({"run": line}))))
    return list(found)


_HOOK_RUNNERS = ("pre-commit", "pre_commit", "prek")  # pre-commit (`python -m pre_commit`), and prek, its port


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


def _nox_runner(name: str, rest: list[str]) -> Tool:
    """nox, given the words after it: the sessions `-s` names (`-s lint tests`; each, when none is) and the noxfile
    `-f` names."""
    sessions, taking = [], False
    for word in rest:
        if word.startswith("-"):
            taking = word in ("-s", "--session", "--sessions", "-e")
        elif taking:
            sessions.append(word)
    noxfile = recipes.option_values(rest, ("-f", "--noxfile"))[:1]
    return replace(NOX, recipe_files=tuple(noxfile) or NOX.files, recipes=tuple(sessions))


def _tox_runner(name: str, rest: list[str]) -> Tool:
    """tox, given the words after it: the environments `-e` names and the file `-c` names (else tox's own)."""
    envs = recipes.option_values(rest, ("-e", "--env")) + [word[2:] for word in rest if word[:2] == "-e" and word[2:]]
    config = recipes.option_values(rest, ("-c", "--conf"))[:1]
    return replace(TOX, recipe_files=tuple(config) or runner_configs.TOX_CONFIGS, recipes=tuple(envs))


SCRIPT = "sh"  # the tool name of a shell script a command runs: its lines are followed as commands
PYTHON_SCRIPT = "python"  # of a Python script: the commands it runs in string literals are followed
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
    package.json it reads them from, in the folder `--prefix`, `-C`, `--cwd` or `--dir` names; in the workspace an
    option names, or in every workspace (`--workspaces`, pnpm's `-r`, `yarn workspaces foreach`, a
    filter with a wildcard)."""
    valued = (*_VALUED, "-w") if name == "npm" else _VALUED  # pnpm's -w is the workspace root, no value
    script, workspace = _script(rest, valued)
    folders = recipes.option_values(rest, _FOLDER_OPTIONS)
    workspace = workspace or "".join(recipes.option_values(rest, valued[len(_FOLDER_OPTIONS):])[:1])
    every = "*" in workspace or any(word in _EVERY_OPTIONS for word in rest)
    listed = ("workspaces",) if workspace or every else ()  # their list (pnpm-workspace.yaml's: check_settings.py)
    return Tool(name, package=(*_scripts(script), *listed),
                recipe_files=(posixpath.join(*folders[:1], "package.json"),),
                workspace=_EVERY_WORKSPACE if every else workspace)


def _scripts(script: str | None) -> tuple[str, ...]:
    """The package.json keys of the scripts `npm run SCRIPT` runs: its pre and post scripts too."""
    if script in ("test", "t"):
        return NPM_TEST.package
    return (f"scripts.pre{script}", f"scripts.{script}", f"scripts.post{script}") if script else ()


_EVERY_WORKSPACE = "*"  # a package manager's workspace: each of them
# What turbo, nx and lerna read of how a task runs (turbo's `inputs`: a change outside them replays a cached pass).
_MONOREPO_FILES = {"turbo": ("turbo.json", "turbo.jsonc"), "nx": ("nx.json", "project.json"), "lerna": ()}
_EVERY_OPTIONS = ("--workspaces", "-ws", "--ws", "-r", "--recursive")


def _monorepo_runner(name: str, rest: list[str]) -> Tool:
    """turbo, nx or lerna, given the words after it: the scripts of every workspace's package.json named as the tasks
    it runs (`turbo run lint test`, `nx run-many -t lint`, `lerna run lint`); `turbo run web#lint` the web
    workspace's."""
    tasks = [word for at, word in enumerate(rest) if not word.startswith("-") and
             (at == 0 or rest[at - 1] not in ("--filter", "-F", "--scope", "-p", "--projects", "--exclude"))]
    tasks = tasks[1:] if tasks[:1] in (["run"], ["run-many"], ["affected"]) else tasks
    tasks += [task for value in recipes.option_values(rest, ("-t", "--target", "--targets"))
              for task in value.split(",")]
    if len(tasks) == 1 and "#" in tasks[0]:  # one workspace's task, by its package's name; `//#lint` the root's
        package, _, task = tasks[0].partition("#")
        return Tool(name, _MONOREPO_FILES[name], package=(*_scripts(task), "workspaces"),
                    recipe_files=("package.json",), workspace=package.strip("/"))
    return Tool(name, _MONOREPO_FILES[name],
                package=(*(key for task in tasks for key in _scripts(task.rpartition("#")[2])), "workspaces"),
                recipe_files=("package.json",), workspace=_EVERY_WORKSPACE)


_FOLDER_OPTIONS = ("--prefix", "-C", "--cwd", "--dir")
_VALUED = (*_FOLDER_OPTIONS, "--filter", "-F", "--workspace")  # options that take a value; after the folders', those
# naming a workspace


def _script(rest: list[str], valued: tuple[str, ...]) -> tuple[str | None, str]:
    """The script `npm run NAME` (`npm test`, `yarn NAME`, `pnpm --filter web NAME`) runs, skipping options (and
    the values of those that take one), and the workspace `yarn workspace web NAME` names."""
    words = [word for at, word in enumerate(rest)
             if not word.startswith("-") and (at == 0 or rest[at - 1] not in valued)]
    workspace = words[1] if words[:1] == ["workspace"] and len(words) > 1 else \
        _EVERY_WORKSPACE if words[:2] == ["workspaces", "foreach"] else ""  # yarn's
    words = words[2:] if workspace else words
    if words[:1] in (["run"], ["run-script"]):
        words = words[1:]
    return (words[0] if words else None), workspace


# The runners whose words say what they run, each read from the words after its name.
_RUNNERS: dict[str, Callable[[str, list[str]], Tool]] = {
    TOX.name: _tox_runner, NOX.name: _nox_runner, **dict.fromkeys(recipes.RUNNERS, _task_runner),
    **dict.fromkeys(_NPM, _package_runner), **dict.fromkeys(_MONOREPO, _monorepo_runner),
    **dict.fromkeys(runner_configs.PYPROJECT_RUNNERS, _pyproject_runner),
    **dict.fromkeys(_HOOK_RUNNERS, _hook_runner)}


def tools_of(verify: list[Any], read: Callable[[str], bytes | None] | None = None,
             files: Callable[[], list[str]] | None = None, changed: Collection[str] = ()) -> dict[Tool, list[str]]:
    """The tools aidlc.yaml's verify commands run, each with the names of the checks that run it; with `read` (a
    file of the project at the head, by path: those `files_read` names), also the tools the package.json scripts
    that npm, yarn, pnpm or bun run call (`npm run lint` running eslint; with `files`, the project's files at the
    head, those of every workspace, `pnpm -r lint`, each holding one of the `changed` files first), and those the
    Makefile or justfile targets a task runner runs call (`make lint` running ruff), and theirs in turn."""
    runs: dict[Tool, list[str]] = {}
    workspaces = None if read is None or files is None else \
        functools.partial(runner_configs.every_workspace, read=read, files=files, changed=changed)
    followed = 0  # tools followed into their files, for all the checks together
    for check in (check for check in verify if isinstance(check, dict)):
        pending, seen = tools_run(command_words(check)), set()
        while pending:
            tool = pending.pop(0)
            if tool in seen:
                continue
            seen.add(tool)
            runs.setdefault(tool, []).append(str(check.get("name", "?")))
            if read is not None and tool.recipe_files and followed < _FOLLOWED_AT_MOST:
                followed += 1
                pending += _called(tool, read, workspaces)
    return runs


# Each file read costs git processes: a recipe running thousands of scripts is followed into the first hundred.
_FOLLOWED_AT_MOST = 100


# The package.json of each workspace of the root package.json at a path (`runner_configs.every_workspace`).
Workspaces = Callable[[str], list[str]]


def _called(tool: Tool, read: Callable[[str], bytes | None], workspaces: Workspaces | None) -> list[Tool]:
    """The tools that what `tool` runs calls: a package script, a task runner's recipe, a pre-commit hook, a tox
    environment's commands, a shell script's lines."""
    return [called for line in _lines_run(tool, read, workspaces)
            for called in tools_run(command_words({"run": line}))]


def _lines_run(tool: Tool, read: Callable[[str], bytes | None], workspaces: Workspaces | None) -> list[str]:
    """The command lines `tool` runs, read from its files."""
    if tool.name in (*_NPM, *_MONOREPO):
        lines = []
        for package in _packages(tool, read, workspaces):
            scripts = runner_configs.package_scripts(read(package))
            lines += [run for key in tool.package if (run := scripts.get(key.removeprefix("scripts."))) is not None]
        return lines
    first = next((data for data in map(read, tool.recipe_files) if data is not None), None)  # the file it reads
    if tool.name in (SCRIPT, PYTHON_SCRIPT, NOX.name, PRE_COMMIT.name):
        return _file_lines(tool, first)
    if tool.name in runner_configs.PYPROJECT_RUNNERS:
        return runner_configs.pyproject_tasks(tool.name, read, tool.recipe_files, tool.recipes)
    if tool.name == TOX.name:
        return runner_configs.tox_commands(read, tool.recipe_files, tool.recipes)
    found = _recipes(tool, read)
    return recipes.commands(tool.name, found, tool.recipes, tool.assignments) if found is not None else []


def _packages(tool: Tool, read: Callable[[str], bytes | None], workspaces: Workspaces | None) -> list[str]:
    """The package.json files whose scripts a package manager runs: the root's, a workspace's, or every workspace's
    (and the root's: `pnpm -r` and turbo run its script too), which only the project's files list (`workspaces`)."""
    root = tool.recipe_files[0]
    if tool.workspace == _EVERY_WORKSPACE:
        return [root, *workspaces(root)] if workspaces is not None else [root]
    package = runner_configs.workspace_package(root, tool.workspace, read) if tool.workspace else root
    return [package] if package is not None else []


def _file_lines(tool: Tool, data: bytes | None) -> list[str]:
    """The command lines of a shell or Python script, a noxfile's sessions or pre-commit's hooks, from `data`, the
    file `tool` reads."""
    if tool.name == SCRIPT:
        return recipes.script_lines(data)
    if tool.name == PRE_COMMIT.name:
        return [f"{' '.join(_hook_tools(hook))} {entry}" for hook, entry in runner_configs.hooks(data, tool.recipes)]
    sessions = tool.recipes if tool.name == NOX.name else None  # a noxfile's sessions; a script's whole module
    return runner_configs.python_commands(data, sessions)


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


def unread(verify: list[Any], read: Callable[[str], bytes | None], files: Callable[[], list[str]] | None = None,
           changed: Collection[str] = ()) -> list[tuple[str, list[str], str]]:
    """(path, the checks, why) of each file a runner the verify commands run reads its scripts or tasks from
    (package.json, a Taskfile, .pre-commit-config.yaml, tox's and pyproject.toml's tasks, a noxfile, a Python
    script) that the head holds and that does not parse: what runs through it is not followed, so the settings of
    the tools it runs are not known to be a check's."""
    read = functools.cache(read)
    found: dict[str, tuple[list[str], str]] = {}
    for tool, names in tools_of(verify, read, files, changed).items():
        path = next((path for path in tool.recipe_files if read(path) is not None), None)
        data = read(path) if path is not None else None
        why = runner_configs.unreadable(path, data, tool.name in (PYTHON_SCRIPT, NOX.name)) \
            if path is not None and data is not None else None
        if path is not None and why is not None:
            checks, _ = found.setdefault(path, ([], why))
            checks += [name for name in names if name not in checks]
    return [(path, names, why) for path, (names, why) in found.items()]


def files_read(verify: list[Any]) -> list[str]:
    """The project's files `tools_of` reads to follow what the verify commands run: package.json where they run
    package scripts (in the folder an option names), the recipe files of the task runners they run."""
    return sorted({file for tool in tools_of(verify) for file in tool.recipe_files})


def command_words(check: dict[str, Any]) -> list[str]:
    """The words of a verify command's `run`, as a shell splits them (none where it does not split)."""
    run = check.get("run")
    try:
        return shlex.split(run) if isinstance(run, str) else []
    except ValueError:
        return []


def named_by_verify(verify: list[Any], changed: set[str], read: Callable[[str], bytes | None] | None = None,
                    files: Callable[[], list[str]] | None = None) -> list[tuple[str, str]]:
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
        for path in sorted((named | _reached(check, changed, read, files) if read is not None else named) & changed):
            found.append((path, str(check.get("name", "?"))))
    return found


def _reached(check: dict[str, Any], changed: set[str], read: Callable[[str], bytes | None],
             files: Callable[[], list[str]] | None) -> set[str]:
    """The shell scripts and recipe files (with the files those include) the command `check` runs, followed, and
    the `changed` files a wildcard include names."""
    found: set[str] = set()
    for tool in tools_of([check], read, files, changed):
        if tool.name in (SCRIPT, PYTHON_SCRIPT):
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
