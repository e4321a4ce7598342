"""What a task runner runs: the files make, just and task read their recipes from (`recipe_files`), and the command
lines the targets a command names run (`commands`): a Makefile's or justfile's rules with their prerequisites, a
Makefile's variables expanded, a Taskfile's tasks with their `deps` and the tasks they call. Read from the files
alone, nothing run: `make lint` running `ruff check` is found here, ruff's settings by aidlc/bolt/check_settings.py."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from aidlc.bank import yamlio

# The files a task runner reads its recipes from, when no option names another (a word of the command then).
RUNNERS = {"make": ("Makefile", "makefile", "GNUmakefile"), "just": ("justfile", "Justfile", ".justfile"),
           "task": ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml",
                    "taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yaml")}  # in the order task reads them
RUNNERS["gmake"] = RUNNERS["make"]
FILE_OPTIONS = ("-f", "--file", "--makefile", "--justfile", "-t", "--taskfile")


def recipe_files(runner: str, rest: list[str]) -> list[str]:
    """The files the task runner `runner` reads its recipes from, given the words after it: those an option names
    (`-f ci.mk`, `--file=ci.mk`), else its own names, in the folder `-C` names."""
    named = [rest[at + 1] for at, word in enumerate(rest[:-1]) if word in FILE_OPTIONS]
    named += [word.split("=", 1)[1] for word in rest if "=" in word and word.split("=", 1)[0] in FILE_OPTIONS]
    folder = rest[1] if rest[:1] in (["-C"], ["--directory"]) and len(rest) > 1 else ""
    return named or [posixpath.join(folder, name) for name in RUNNERS[runner]]


# A rule of a Makefile or justfile: its targets (a justfile recipe's name and parameters), a colon, its prerequisites.
_RULE = re.compile(r"^([^\s#:=][^:=]*?)\s*::?(?!=)(.*)$")


def commands(runner: str, data: bytes, targets: tuple[str, ...], assignments: tuple[str, ...] = ()) -> list[str]:
    """The command lines the `targets` of the recipe file `data` run (its first rule, or Task's `default`, when none
    is named), with those of their prerequisites: for make, with the variables' values in place of `$(NAME)` (the
    command's `assignments`, `LINT=flake8`, over the file's)."""
    if runner == "task":
        return _task_commands(data, targets)
    text, make = data.decode("utf-8", "replace"), runner in ("make", "gmake")
    rules = _rules(text, every_name=make)
    values = {**_variables(text), **dict(word.split("=", 1) for word in assignments)} if make else {}
    # Each rule once, whichever of its targets reached it (a rule may name thousands), and the lines' expansion within
    # one budget: a file's size bounds the time and space taken, whatever it holds.
    wanted, seen, taken, lines, budget = list(targets or list(rules)[:1]), set(), set(), [], _EXPANDED_IN_ALL
    while wanted:
        target = wanted.pop(0)
        if target in seen or target not in rules:
            continue
        seen.add(target)
        for rule in (rule for rule in rules[target] if id(rule) not in taken):
            taken.add(id(rule))
            wanted += rule.prerequisites
            for line in rule.recipe:
                lines.append(_expanded(line, values) if budget > 0 else line)
                budget -= len(lines[-1])
    return lines


def _task_commands(data: bytes, names: tuple[str, ...]) -> list[str]:
    """The commands a Taskfile's tasks run (`default` when none is named), with those of the tasks they depend on
    or call."""
    try:
        document = yamlio.load(data.decode("utf-8", "replace"))
    except yamlio.YAMLError:
        return []
    tasks = document.get("tasks") if isinstance(document, dict) else None
    if not isinstance(tasks, dict):
        return []
    wanted, seen, lines = list(names or ["default"]), set(), []
    while wanted:
        name = wanted.pop(0)
        if name in seen or name not in tasks:
            continue
        seen.add(name)
        called, runs = _task(tasks[name])
        wanted += called
        lines += runs
    return lines


def _task(task: Any) -> tuple[list[str], list[str]]:
    """The tasks a Taskfile's task calls (its `deps`, its `- task: NAME` commands) and the commands it runs. A task
    is a mapping (`cmds`, `cmd`, `deps`), a list of commands or one command."""
    task = task if isinstance(task, dict) else {"cmds": task}
    listed = [task.get("cmd"), *_items(task.get("cmds"))]
    called = [entry.get("task") if isinstance(entry, dict) else entry for entry in _items(task.get("deps"))]
    called += [entry.get("task") for entry in listed if isinstance(entry, dict)]
    runs = [entry.get("cmd") if isinstance(entry, dict) else entry for entry in listed]
    return [name for name in called if isinstance(name, str)], [run for run in runs if isinstance(run, str)]


def _items(value: Any) -> list[Any]:
    """A YAML value that holds a list of things, or one thing, as a list."""
    return value if isinstance(value, list) else [] if value is None else [value]


# A Makefile's variable set outside a recipe (`LINT = ruff check`, `:=`, `::=`, `?=`, `!=`, `+=`), and one's use.
_ASSIGNMENT = re.compile(r"^(?:(?:override|export)\s+)*([A-Za-z_][\w.-]*)\s*(\+|\?|::?|!)?=\s*(.*)$")
_REFERENCE = re.compile(r"\$[({]([A-Za-z_][\w.-]*)[)}]")


def _variables(text: str) -> dict[str, str]:
    """The variables a Makefile sets, as they stand once it is read (`?=` sets only an unset one, `+=` appends)."""
    parts: dict[str, list[str]] = {}  # each value's parts, joined once at the end: `+=` a thousand times is no copy
    for line in text.splitlines():
        assigned = _ASSIGNMENT.match(line) if line[:1] != "\t" else None
        if assigned is not None:
            name, how, value = assigned.group(1), assigned.group(2), assigned.group(3).split("#", 1)[0].strip()
            if how == "+":
                parts.setdefault(name, []).append(value)
            elif how != "?" or name not in parts:
                parts[name] = [value]
    return {name: " ".join(part for part in value if part) for name, value in parts.items()}


# Characters a recipe line may grow to (a hostile Makefile's variables can double the line at each use of one), and
# all the lines of one command together.
_EXPANDED_AT_MOST = 100_000
_EXPANDED_IN_ALL = 1_000_000


def _expanded(line: str, values: dict[str, str]) -> str:
    """A recipe line with the variables' values in place, as make expands them (a value may use others; ten deep,
    and no longer than _EXPANDED_AT_MOST: past it, the line as it stood); $(MAKE) stays, read as make itself."""
    def value(used: re.Match[str]) -> str:
        return values.get(used.group(1), used.group(0)) if used.group(1) != "MAKE" else used.group(0)

    for _ in range(10):
        if len(line) + sum(len(value(used)) for used in _REFERENCE.finditer(line)) > _EXPANDED_AT_MOST:
            break
        expanded = _REFERENCE.sub(value, line)
        if expanded == line:
            break
        line = expanded
    return line


@dataclass
class _Rule:
    prerequisites: list[str]
    recipe: list[str] = field(default_factory=list)


def _rules(text: str, every_name: bool) -> dict[str, list[_Rule]]:
    """target -> the rules that name it, of a Makefile or justfile (`.PHONY` and the like left out); one rule object
    for all the targets it names. `every_name`: a Makefile's rule names several targets (`lint check: ...`); a
    justfile's, its recipe and then the recipe's parameters."""
    rules: dict[str, list[_Rule]] = {}
    current: _Rule | None = None
    for line in text.splitlines():
        if line[:1] in ("\t", " ") and current is not None:
            current.recipe.append(line.strip().lstrip("@-"))
        elif (matched := _RULE.match(line)) is not None and line.startswith("."):
            current = None
        elif matched is not None:
            current = _Rule(matched.group(2).split("#", 1)[0].split())
            names = matched.group(1).split()
            for name in names if every_name else names[:1]:
                rules.setdefault(name, []).append(current)
        elif line.strip() and not line.lstrip().startswith("#"):
            current = None
    return rules
