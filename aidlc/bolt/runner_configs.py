"""What package managers, pre-commit, tox, pdm, poe, hatch and Python scripts run, read from their own files: the
package.json of the workspace a command names (`workspace_package`), the hooks a pre-commit configuration lists
(`hooks`), the commands of the tox environments a command runs (`tox_commands`), of pyproject.toml's tasks
(`pyproject_tasks`) and those a Python script or a noxfile's sessions run (`python_commands`). Read from the files
alone, nothing run; the tools those call are found by aidlc/bolt/check_runs.py."""

from __future__ import annotations

import ast
import configparser
import json
import posixpath
import shlex
from collections.abc import Callable, Collection
from typing import Any

from aidlc.bank import yamlio
from aidlc.bolt import recipes


def workspace_package(root: str, workspace: str, read: Callable[[str], bytes | None]) -> str | None:
    """The package.json of the workspace a package manager's command names (`npm run lint -w web`, `pnpm --filter
    @shop/web lint`, `yarn workspace @shop/web lint`), beside the root package.json at `root`: by its folder, or by
    its name among the folders the root's `workspaces` (or pnpm-workspace.yaml's `packages`) list, a `packages/*`
    tried with the name's last part; None when none is found (the root's scripts are not what runs)."""
    folder = posixpath.dirname(root)
    wanted = workspace.strip("{}").removeprefix("...").removesuffix("...").removeprefix("./")  # pnpm's selectors
    for candidate in (wanted, *_workspace_folders(folder, read, wanted.rsplit("/", 1)[-1])):
        path = recipes.within(folder, posixpath.join(candidate, "package.json"))
        data = read(path) if path is not None else None
        if data is not None and (candidate == wanted or json_object(data).get("name") == wanted):
            return path
    return None


def every_workspace(root: str, read: Callable[[str], bytes | None], files: Callable[[], list[str]],
                    changed: Collection[str] = ()) -> list[str]:
    """The package.json of each workspace of the root package.json at `root` (`npm run lint --workspaces`, `pnpm -r
    lint`, `turbo run lint`), among the project's `files`: those the root's `workspaces`, pnpm-workspace.yaml's or
    lerna.json's `packages` patterns match (pnpm's `!` patterns left out), or, with no pattern, every package.json
    below the root but in node_modules. Each workspace holding one of the `changed` files, then
    _WORKSPACES_AT_MOST of the others: an edit adding sixty workspaces that sort first must not crowd out the one
    whose linter settings it weakened (those it adds hold its change: they are read too, at its own cost)."""
    folder = posixpath.dirname(root)
    patterns = _workspace_patterns(folder, read)
    found = [path for path in files() if path != root and _is_workspace(path, folder, patterns)]
    holding = {"/".join(parts[:n]) for parts in (path.split("/") for path in changed) for n in range(1, len(parts))}
    return [path for path in found if posixpath.dirname(path) in holding] + \
        [path for path in found if posixpath.dirname(path) not in holding][:_WORKSPACES_AT_MOST]


def _is_workspace(path: str, folder: str, patterns: list[str]) -> bool:
    """Whether `path` is the package.json of a workspace the `patterns` name, below `folder` and not in
    node_modules."""
    inside = path[len(folder) + 1:] if folder else path
    if posixpath.basename(path) != "package.json" or (folder and not path.startswith(folder + "/")) or \
            "node_modules/" in f"/{inside}":
        return False
    package = posixpath.dirname(inside)
    if any(_globbed(package, pattern[1:]) for pattern in patterns if pattern.startswith("!")):
        return False
    wanted = [pattern for pattern in patterns if not pattern.startswith("!")]
    return not wanted or any(_globbed(package, pattern) for pattern in wanted)


def _globbed(folder: str, pattern: str) -> bool:
    """Whether a workspace pattern (`packages/*`, `apps/**`) names the package folder `folder`."""
    if pattern.endswith("/**"):
        return folder.startswith(pattern[:-3] + "/") and recipes.matches(folder[:len(pattern) - 3], pattern[:-3])
    return recipes.matches(folder, pattern)


def _workspace_patterns(folder: str, read: Callable[[str], bytes | None]) -> list[str]:
    """The workspace patterns of the root package in `folder`: package.json's `workspaces` (or its `packages`),
    pnpm-workspace.yaml's and lerna.json's `packages`, as written but for a leading `./` and a trailing `/`."""
    listed = json_object(read(posixpath.join(folder, "package.json"))).get("workspaces")
    listed = listed.get("packages") if isinstance(listed, dict) else listed
    pnpm = recipes.yaml_mapping(read(posixpath.join(folder, "pnpm-workspace.yaml"))).get("packages")
    lerna = json_object(read(posixpath.join(folder, "lerna.json"))).get("packages")
    return [pattern.replace("!./", "!").removeprefix("./").rstrip("/")
            for pattern in (*recipes.items(listed), *recipes.items(pnpm), *recipes.items(lerna))
            if isinstance(pattern, str)]


def _workspace_folders(folder: str, read: Callable[[str], bytes | None], last: str) -> list[str]:
    """The folders the workspaces of the root package in `folder` may be in, for a package whose name ends in
    `last`: each listed folder, and `last` in each listed `folder/*`."""
    found = []
    patterns = [pattern for pattern in _workspace_patterns(folder, read) if not pattern.startswith("!")]
    for pattern in patterns:
        above, _, star = pattern.rpartition("/")
        if not any(mark in pattern for mark in "*?[!"):
            found.append(pattern)
        elif star in ("*", "**") and not any(mark in above for mark in "*?[!"):
            found.append(posixpath.join(above, last))
    return list(dict.fromkeys(found))[:_WORKSPACES_AT_MOST]


_WORKSPACES_AT_MOST = 50  # folders tried for a workspace's name: each costs a read


def json_object(data: bytes | None) -> dict[str, Any]:
    """A JSON object's members ({} for anything else)."""
    try:
        value = json.loads(data) if data is not None else None
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def package_scripts(data: bytes | None) -> dict[str, str]:
    """A package.json's scripts by name ({} for a file that is not one)."""
    scripts = json_object(data).get("scripts")
    return {name: run for name, run in scripts.items() if isinstance(run, str)} if isinstance(scripts, dict) else {}


def hooks(data: bytes | None, named: tuple[str, ...]) -> list[tuple[str, str]]:
    """(id, entry) of each hook a pre-commit configuration (`.pre-commit-config.yaml`) lists, or of those `named`
    (`pre-commit run mypy`); the entry is "" for a hook whose repository says what it runs."""
    found = []
    for repo in (repo for repo in recipes.items(recipes.yaml_mapping(data).get("repos")) if isinstance(repo, dict)):
        for hook in (hook for hook in recipes.items(repo.get("hooks")) if isinstance(hook, dict)):
            name, entry = hook.get("id"), hook.get("entry")
            if isinstance(name, str) and (not named or name in named):
                found.append((name, entry if isinstance(entry, str) else ""))
    return found


# The files tox reads its configuration from, in the order it looks (the first holding one counts).
TOX_CONFIGS = ("tox.ini", "setup.cfg", "pyproject.toml", "tox.toml")


def tox_commands(read: Callable[[str], bytes | None], configs: tuple[str, ...], envs: tuple[str, ...]) -> list[str]:
    """The command lines of the tox environments `envs` (when none is named, the configuration's `envlist`, else each
    environment it defines), from the first of the files `configs` holding tox's configuration; an environment with
    no commands of its own (or not defined: `py311`) runs the base environment's."""
    for path in configs:
        data = read(path)
        found = _tox_environments(posixpath.basename(path), data) if data is not None else None
        if found is not None:
            environments, listed = found
            wanted = [env for names in envs for env in names.split(",")] or listed or \
                [env for env in environments if env] or [""]
            return [line for env in wanted for line in environments.get(env.strip(), environments.get("", []))]
    return []


# A tox configuration: environment ("" the base) -> its command lines, and the environments `tox` alone runs.
ToxConfig = tuple[dict[str, list[str]], list[str]]


def _tox_environments(name: str, data: bytes) -> ToxConfig | None:
    """The tox configuration in the file `name` holding `data`; None where that file holds none (a pyproject.toml
    without [tool.tox])."""
    text = data.decode("utf-8", "replace")
    if name not in ("pyproject.toml", "tox.toml"):
        return _ini_environments(text, "tox:tox" if name == "setup.cfg" else "tox")
    import tomllib  # where a tox configuration is read: the run's loop imports this module at every start

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return ({}, []) if name == "tox.toml" else None
    table = document if name == "tox.toml" else document.get("tool", {}).get("tox")
    if not isinstance(table, dict):
        return None
    if isinstance(table.get("legacy_tox_ini"), str):
        return _ini_environments(table["legacy_tox_ini"], "tox")
    environments = {"": _toml_commands(table.get("env_run_base"))}
    named = table.get("env")
    environments.update({env: _toml_commands(body) for env, body in (named.items() if isinstance(named, dict) else ())
                         if isinstance(body, dict) and "commands" in body})
    return environments, [env for env in recipes.items(table.get("env_list")) if isinstance(env, str)]


def _ini_environments(text: str, head: str) -> ToxConfig | None:
    """The environments of an INI tox configuration (`[testenv]`, `[testenv:lint]`) and the `envlist` of its section
    `head`; None where setup.cfg has no `[tox:tox]`; nothing where the text does not parse."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}, []
    if head == "tox:tox" and not parser.has_section(head):
        return None
    listed = parser.get(head, "envlist", fallback="") if parser.has_section(head) else ""
    return {section.partition(":")[2]: _ini_commands(parser[section]["commands"]) for section in parser.sections()
            if section.partition(":")[0] == "testenv" and parser.has_option(section, "commands")}, \
        [env.strip() for env in listed.replace("\n", ",").split(",") if env.strip()]


def _ini_commands(value: str) -> list[str]:
    """The command lines of an INI `commands` value: one a line, a backslash joining the next, comments left out,
    without the `-` or `!` that says how a failure counts."""
    lines = value.replace("\\\n", " ").splitlines()
    return [line.strip().lstrip("-!").strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def _toml_commands(body: Any) -> list[str]:
    """The command lines of a TOML environment's `commands`, a list of argument lists."""
    commands = body.get("commands") if isinstance(body, dict) else None
    return [shlex.join(word for word in command if isinstance(word, str))
            for command in recipes.items(commands) if isinstance(command, list)]


# Python's task runners that read their tasks from pyproject.toml: pdm's [tool.pdm.scripts], poe's [tool.poe.tasks],
# hatch's [tool.hatch.envs.ENV.scripts] (or hatch.toml's [envs.ENV.scripts]).
PYPROJECT_RUNNERS = ("pdm", "poe", "hatch")


def pyproject_tasks(runner: str, read: Callable[[str], bytes | None], configs: tuple[str, ...],
                    names: tuple[str, ...]) -> list[str]:
    """The command lines the tasks `names` of `runner` run (pdm's with their `pre_` and `post_` scripts; hatch's
    named `ENV:NAME` in an environment, which has the default environment's scripts too), from the first of the
    files `configs` holding them, with those of the tasks they run in turn: a command whose first word names a
    task runs that task (pdm's `composite`, poe's `sequence`, `ref` and `deps`, a hatch script naming another)."""
    tasks = next((found for path in configs
                  if (found := _runner_tasks(runner, posixpath.basename(path), read(path), names[:1]))), {})
    wanted = [name.rpartition(":")[2] if runner == "hatch" else name for name in names]
    if runner == "pdm":
        wanted = [f"{when}{name}" for name in wanted for when in ("pre_", "", "post_")]
    return _followed(tasks, wanted)


def _followed(tasks: dict[str, Any], wanted: list[str]) -> list[str]:
    """The command lines of the tasks `wanted`, a line whose first word names a task read as that task's."""
    seen: set[str] = set()
    lines: list[str] = []
    while wanted:
        name = wanted.pop(0)
        if name in seen or name not in tasks:
            continue
        seen.add(name)
        for line in _task_lines(tasks[name]):
            first = line.split(maxsplit=1)[:1]
            wanted += first if first and first[0] in tasks else []
            lines += [] if first and first[0] in tasks else [line]
    return lines


def _runner_tasks(runner: str, name: str, data: bytes | None, names: tuple[str, ...]) -> dict[str, Any]:
    """The tasks of `runner` the file `name` (pyproject.toml or hatch.toml) holding `data` defines, by name; for hatch,
    the scripts of the environment the first of `names` runs in (`lint:check`: lint)."""
    import tomllib  # where a task runner's tasks are read: the run's loop imports this module at every start

    try:
        document = tomllib.loads(data.decode("utf-8", "replace")) if data is not None else {}
    except tomllib.TOMLDecodeError:
        return {}
    tool = document.get("tool", {}) if name == "pyproject.toml" else {"hatch": document}
    table = tool.get(runner) if isinstance(tool, dict) else None
    table = table if isinstance(table, dict) else {}
    if runner != "hatch":
        found = table.get("scripts" if runner == "pdm" else "tasks")
        return found if isinstance(found, dict) else {}
    envs = table.get("envs")
    envs = envs if isinstance(envs, dict) else {}
    env = names[0].rpartition(":")[0] if names and ":" in names[0] else "default"
    scripts: dict[str, Any] = {}
    for chosen in dict.fromkeys(("default", env)):
        body = envs.get(chosen)
        found = body.get("scripts") if isinstance(body, dict) else None
        scripts.update(found if isinstance(found, dict) else {})
    return scripts


def _task_lines(task: Any) -> list[str]:
    """The command lines (or names of other tasks, first word) of one task of pdm, poe or hatch: a command, a list of
    them, or a table saying how (`cmd`, `shell`, `composite`, `sequence`, `ref`, `deps`); a Python call is not read."""
    if isinstance(task, str):  # a `shell` script: one command a line, a backslash joining the next
        return [line for line in task.replace("\\\n", " ").splitlines() if line.strip()]
    if isinstance(task, list):
        return [line for item in task for line in _task_lines(item)]
    if not isinstance(task, dict):
        return []
    command = task.get("cmd")
    lines = [shlex.join(word for word in command if isinstance(word, str))] if isinstance(command, list) else []
    for key in ("deps", "cmd", "shell", "ref", "composite", "sequence"):
        lines += _task_lines(task.get(key)) if not (key == "cmd" and isinstance(command, list)) else []
    return lines


# The calls a Python file runs a command with: subprocess's, os's, and nox's session.run.
_RUNS_COMMAND = frozenset({"run", "call", "check_call", "check_output", "Popen", "system", "run_always",
                           "getoutput", "getstatusoutput"})


def python_commands(data: bytes | None, sessions: tuple[str, ...] | None = None) -> list[str]:
    """The commands a Python file runs, as written: the argument lists and command lines it gives subprocess (run,
    call, check_call, check_output, Popen), os.system and nox's session.run in string literals; with `sessions`, a
    noxfile's: only in those sessions' functions (each decorated one, when none is named). Arguments computed at run
    time are not followed."""
    try:
        tree = ast.parse(data or b"")
    except (SyntaxError, ValueError, RecursionError):  # not Python, a NUL byte, nesting deeper than the stack
        return []
    scopes: list[ast.AST] = [tree] if sessions is None else _sessions(tree, sessions)
    calls = (node for scope in scopes for node in ast.walk(scope) if isinstance(node, ast.Call) and node.args)
    return [line for call in calls if _called_name(call.func) in _RUNS_COMMAND for line in _literal_command(call.args)]


def _sessions(tree: ast.Module, named: tuple[str, ...]) -> list[ast.AST]:
    """A noxfile's functions of the sessions `named` (each decorated as a session, when none is)."""
    return [node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and
            (node.name in named if named else any("session" in ast.unparse(d) for d in node.decorator_list))]


def _called_name(function: ast.expr) -> str:
    """The name a call calls: `run` of `subprocess.run(...)` and of `run(...)`."""
    return function.attr if isinstance(function, ast.Attribute) else function.id if isinstance(function, ast.Name) \
        else ""


def _literal_command(args: list[ast.expr]) -> list[str]:
    """The command a call's arguments spell in string literals: a list or tuple of them (subprocess), several of them
    (`session.run("ruff", "check")`) or one string (a shell's command line)."""
    listed = isinstance(args[0], ast.List | ast.Tuple)
    words = args[0].elts if isinstance(args[0], ast.List | ast.Tuple) else args
    strings = [word.value for word in words if isinstance(word, ast.Constant) and isinstance(word.value, str)]
    return [shlex.join(strings)] if strings and (listed or len(strings) > 1) else strings[:1]


def unreadable(path: str, data: bytes, python: bool = False) -> str | None:
    """Why a runner's file does not parse in its format, known by its name (JSON, YAML, TOML, INI; Python, a
    noxfile or a `python` script), or None: a Makefile, justfile or shell script is read by lines, and always
    reads."""
    name = posixpath.basename(path)
    text = data.decode("utf-8", "replace")
    try:
        if python or name.endswith(".py"):
            ast.parse(text)
        elif name.endswith(".json") and not isinstance(json.loads(text), dict):
            return "it holds no JSON object"
        elif name.endswith((".yml", ".yaml")) and not isinstance(yamlio.load(text), dict):
            return "it holds no YAML mapping"
        elif name.endswith(".toml"):
            import tomllib  # here: the run's loop imports this module at every start

            tomllib.loads(text)
        elif name.endswith((".ini", ".cfg")):
            configparser.RawConfigParser(strict=False, interpolation=None).read_string(text)
    except yamlio.YAMLError as exc:
        return f"line {exc.line}: {yamlio.error_summary(exc)}" if exc.line else yamlio.error_summary(exc)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, configparser.Error) as exc:  # json's and tomllib's errors are ValueErrors
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None
