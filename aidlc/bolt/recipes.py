"""What a task runner runs: the files make, just and task read their recipes from (`recipe_files`, and the files
those include: `read_recipes`), and the command lines the targets a command names run (`commands`): a Makefile's or
justfile's rules with their prerequisites, a Makefile's variables expanded, a Taskfile's tasks with their `deps` and
the tasks they call; and a shell script's command lines (`script_lines`). Read from the files alone, nothing run:
`make lint` running `ruff check` is found here, ruff's settings by aidlc/bolt/check_settings.py; what package
managers, pre-commit and tox run by aidlc/bolt/runner_configs.py."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aidlc.bank import yamlio

# The files a task runner reads its recipes from, when no option names another (a word of the command then).
RUNNERS = {"make": ("Makefile", "makefile", "GNUmakefile"), "just": ("justfile", "Justfile", ".justfile"),
           "task": ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml",
                    "taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yaml")}  # in the order task reads them
RUNNERS["gmake"] = RUNNERS["make"]
FILE_OPTIONS = ("-f", "--file", "--makefile", "--justfile", "-t", "--taskfile")


def folder(rest: list[str]) -> str:
    """The folder a task runner works in, given the words after it: the one `-C` names (make's includes are found
    from there)."""
    return rest[1] if rest[:1] in (["-C"], ["--directory"]) and len(rest) > 1 else ""


def recipe_files(runner: str, rest: list[str]) -> list[str]:
    """The files the task runner `runner` reads its recipes from, given the words after it: those an option names
    (`-f ci.mk`, `--file=ci.mk`), else its own names, in the folder `-C` names."""
    named = [rest[at + 1] for at, word in enumerate(rest[:-1]) if word in FILE_OPTIONS]
    named += [word.split("=", 1)[1] for word in rest if "=" in word and word.split("=", 1)[0] in FILE_OPTIONS]
    return [posixpath.join(folder(rest), name) for name in named or RUNNERS[runner]]


@dataclass
class Recipes:
    """A task runner's recipes as it reads them: a Makefile's or justfile's text with the text of each file it
    includes in place of the line including it, or a Taskfile's tasks by the names a command calls them (`docs:lint`:
    the `lint` task of the Taskfile included as `docs`), each with the namespace its own calls are read in. `included`:
    the files included, found or not (a bolt adding one changes what runs); `patterns`: wildcard includes
    (`include mk/*.mk`), matched against changed files, not followed."""

    path: str  # the recipe file the runner reads
    text: str = ""
    tasks: dict[str, tuple[str, Any]] = field(default_factory=dict)
    included: list[str] = field(default_factory=list)
    patterns: list[str] = field(default_factory=list)
    size: int = 0  # the bytes of the files included, read


# make's `include`, `-include` and `sinclude` lines (not a recipe's: those start with a tab) and just's `import`.
_MAKE_INCLUDE = re.compile(r"^ *(?:-include|sinclude|include)[ \t]+([^#]*)")
_JUST_IMPORT = re.compile(r"""^import\??[ \t]+(?:'([^']*)'|"([^"]*)")""")
# How deep includes are followed, how many files and how many bytes in all: a hostile recipe file costs no more.
_DEEPEST = 10
_FILES_AT_MOST = 200
_BYTES_AT_MOST = 10_000_000


def read_recipes(runner: str, path: str, data: bytes, read: Callable[[str], bytes | None] = lambda path: None,
                 workdir: str = "") -> Recipes:
    """The recipes the task runner `runner` reads from the file at `path` (holding `data`), with the files it
    includes, read by `read` (a project file by path; None where there is none): make's found from `workdir`, where
    make runs, just's and task's from the including file's folder."""
    found = Recipes(path)
    if runner == "task":
        _read_tasks(path, data, read, "", found, 0)
    else:
        found.text = _spliced(runner, path, data.decode("utf-8", "replace"), read, workdir, found, 0)
    return found


def matches(path: str, pattern: str) -> bool:
    """Whether the file at `path` is one a wildcard include names (a `*` stays within a folder, as in make)."""
    parts, wanted = path.split("/"), pattern.split("/")
    return len(parts) == len(wanted) and all(map(fnmatch.fnmatchcase, parts, wanted))


def _spliced(runner: str, path: str, text: str, read: Callable[[str], bytes | None], workdir: str, found: Recipes,
             depth: int) -> str:
    """`text` with each file it includes (make) or imports (just) in place of the line that does, to _DEEPEST."""
    make = runner != "just"
    values = _variables(text) if make else {}
    lines = text.splitlines()
    for at, line in enumerate(lines):
        names = _make_includes(line, values) if make else _just_imports(line)
        parts = []
        for name in names:
            rel = within(workdir if make else posixpath.dirname(path), name)
            data = _include(rel, read, found, depth) if rel is not None else None
            if rel is not None and data is not None:
                parts.append(_spliced(runner, rel, data.decode("utf-8", "replace"), read, workdir, found, depth + 1))
        lines[at] = "\n".join(parts) if names else line
    return "\n".join(lines)


def _make_includes(line: str, values: dict[str, str]) -> list[str]:
    """The names an include line gives, its variables expanded; `$(wildcard mk/*.mk)` gives its pattern."""
    included = _MAKE_INCLUDE.match(line) if "include" in line else None
    return _WILDCARD.sub(r"\1", _expanded(included.group(1), values)).split() if included is not None else []


_WILDCARD = re.compile(r"\$[({]wildcard\s+([^)}]*)[)}]")


def _just_imports(line: str) -> list[str]:
    imported = _JUST_IMPORT.match(line) if line.startswith("import") else None
    return [imported.group(1) or imported.group(2) or ""] if imported is not None else []


def within(folder: str, name: str) -> str | None:
    """The project path of an included file named from `folder`; None for one outside the project (an absolute
    path, `../`, `~`, or a name still holding a variable make could not expand)."""
    if not name or name.startswith(("/", "~")) or "$" in name:
        return None
    rel = posixpath.normpath(posixpath.join(folder, name))
    return None if rel == ".." or rel.startswith("../") else rel


def _include(rel: str, read: Callable[[str], bytes | None], found: Recipes, depth: int) -> bytes | None:
    """The text of the file `rel` a recipe file includes, recorded in `found`; None when it was read already (a
    cycle), is a wildcard, is past the bounds or is not there."""
    if any(mark in rel for mark in "*?["):
        found.patterns.append(rel)
        return None
    if rel == found.path or rel in found.included or depth >= _DEEPEST or len(found.included) >= _FILES_AT_MOST:
        return None
    found.included.append(rel)
    data = read(rel) if found.size < _BYTES_AT_MOST else None
    found.size += len(data or b"")
    return data


def yaml_mapping(data: bytes | None) -> dict[str, Any]:
    """A YAML mapping's members ({} for anything else), its merge keys merged as the runners' parsers do."""
    try:
        value = _merged(yamlio.load(data.decode("utf-8", "replace"))) if data is not None else None
    except (yamlio.YAMLError, RecursionError):  # nesting deeper than Python's stack
        return {}
    return value if isinstance(value, dict) else {}


def _merged(value: Any) -> Any:
    """`value` with each mapping's `<<` (YAML 1.1's merge key, which task's and pre-commit's parsers honour and
    aidlc's YAML does not: `lint: {<<: *go, desc: lint}`) replaced by the members of the mapping or mappings it names
    that the mapping does not set itself, the first named winning."""
    if isinstance(value, list):
        return [_merged(item) for item in value]
    if not isinstance(value, dict):
        return value
    merged = {key: _merged(item) for key, item in value.items() if key != "<<"}
    named = value.get("<<")
    for source in named if isinstance(named, list) else [named]:
        for key, item in (_merged(source).items() if isinstance(source, dict) else ()):
            merged.setdefault(key, item)
    return merged


def option_values(rest: list[str], options: tuple[str, ...]) -> list[str]:
    """The values the `options` are given in the words `rest` (`-C web`, `--workspace=web`)."""
    found = [rest[at + 1] for at, word in enumerate(rest[:-1]) if word in options]
    return found + [word.split("=", 1)[1] for word in rest if "=" in word and word.split("=", 1)[0] in options]


_SHELLS = ("sh", "bash", "zsh", "dash", "ksh", "source", ".")
_COMMAND_STARTS = ("&&", "||", ";", "|", "then", "do", "else", "exec")


def shell_script(words: list[str], at: int) -> str | None:
    """The project path of the shell script the word at `at` runs, if it runs one: a `.sh` or `.bash` file, the file
    a shell is given (`bash scripts/check`), or `./check` run as a command."""
    word, extension = words[at], posixpath.splitext(words[at])[1]
    given = at > 0 and words[at - 1] in _SHELLS and _command_at(words, at - 1) and not word.startswith("-")
    runs = extension in (".sh", ".bash") or (given and word not in _COMMAND_STARTS) or \
        (word.startswith("./") and extension == "" and _command_at(words, at))
    return within("", word) if runs else None


def shell_command(words: list[str], at: int) -> str | None:
    """The command line a shell is given to run by the word at `at` (`bash -c "ruff check src"`, `sh -e -xc ...`), if
    it is one."""
    if at < 2 or re.fullmatch(r"-[a-zA-Z]*c", words[at - 1]) is None:
        return None
    shell = at - 2
    while shell > 0 and words[shell].startswith("-"):  # the shell's other options
        shell -= 1
    given = posixpath.basename(words[shell]) in _SHELLS[:5] and _command_at(words, shell)
    return words[at] if given else None


def python_script(words: list[str], at: int) -> str | None:
    """The project path of the Python script the word at `at` runs, if it runs one: a `.py` file Python is given
    (`python scripts/check.py`, `python3.12 -u ci/lint.py`)."""
    before = [posixpath.basename(word) for word in words[:at] if not word.startswith("-")][-1:]
    given = bool(before) and re.fullmatch(r"python[\d.]*", before[0]) is not None
    return within("", words[at]) if given and words[at].endswith(".py") and words[at - 1] not in ("-m", "-c") else None


def _command_at(words: list[str], at: int) -> bool:
    """Whether the word at `at` is where a command starts (not an argument: `eslint .` is no `.` command)."""
    return at == 0 or words[at - 1] in _COMMAND_STARTS


def script_lines(data: bytes | None) -> list[str]:
    """The command lines of a shell script (none for a file that is not text): its lines, one ending in a backslash
    joined with the next, comments left out."""
    if data is None or b"\0" in data:
        return []
    joined = data.decode("utf-8", "replace").replace("\\\r\n", " ").replace("\\\n", " ")
    return [line for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


# A rule of a Makefile or justfile: its targets (a justfile recipe's name and parameters), a colon, its prerequisites.
_RULE = re.compile(r"^([^\s#:=][^:=]*?)\s*::?(?!=)(.*)$")


def commands(runner: str, found: Recipes, targets: tuple[str, ...], assignments: tuple[str, ...] = ()) -> list[str]:
    """The command lines the `targets` of the recipes `found` run (the first rule, or Task's `default`, when none is
    named), with those of their prerequisites: for make, with the variables' values in place of `$(NAME)` (the
    command's `assignments`, `LINT=flake8`, over the file's)."""
    if runner == "task":
        return _task_commands(found.tasks, targets)
    make = runner in ("make", "gmake")
    rules = _rules(found.text, every_name=make)
    values = {**_variables(found.text), **dict(word.split("=", 1) for word in assignments)} if make else {}
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


def _read_tasks(path: str, data: bytes, read: Callable[[str], bytes | None], namespace: str, found: Recipes,
                depth: int) -> None:
    """A Taskfile's tasks into `found`, named in `namespace` (`docs:`), and those of the Taskfiles it includes
    (`includes: {docs: ./docs}`: docs/Taskfile.yml's tasks as `docs:NAME`, or as they are with `flatten: true`)."""
    document = yaml_mapping(data)
    tasks, includes = document.get("tasks"), document.get("includes")
    for name, task in (tasks.items() if isinstance(tasks, dict) else ()):
        found.tasks.setdefault(f"{namespace}{name}", (namespace, task))
    for name, entry in (includes.items() if isinstance(includes, dict) else ()):
        flat = isinstance(entry, dict) and entry.get("flatten") is True
        for file in _taskfiles(posixpath.dirname(path), entry.get("taskfile") if isinstance(entry, dict) else entry):
            included = _include(file, read, found, depth)
            if included is not None:
                _read_tasks(file, included, read, namespace if flat else f"{namespace}{name}:", found, depth + 1)
                break


def _taskfiles(folder: str, where: Any) -> list[str]:
    """The files an include of a Taskfile in `folder` may read (a folder's: each name task looks for there), none
    for a path outside the project or holding a template (`{{.OS}}`)."""
    rel = within(folder, where) if isinstance(where, str) and "{{" not in where else None
    if rel is None or rel.endswith((".yml", ".yaml")):
        return [rel] if rel is not None else []
    return [posixpath.join(rel, file) for file in RUNNERS["task"]]


def _task_commands(tasks: dict[str, tuple[str, Any]], names: tuple[str, ...]) -> list[str]:
    """The commands a Taskfile's tasks run (`default` when none is named), with those of the tasks they depend on
    or call (in the caller's namespace, or the root's for a name starting with a colon)."""
    wanted, seen, lines = list(names or ["default"]), set(), []
    while wanted:
        name = wanted.pop(0)
        if name in seen or name not in tasks:
            continue
        seen.add(name)
        namespace, task = tasks[name]
        called, runs = _task(task)
        wanted += [call[1:] if call.startswith(":") else f"{namespace}{call}" for call in called]
        lines += runs
    return lines


def _task(task: Any) -> tuple[list[str], list[str]]:
    """The tasks a Taskfile's task calls (its `deps`, its `- task: NAME` commands) and the commands it runs. A task
    is a mapping (`cmds`, `cmd`, `deps`), a list of commands or one command."""
    task = task if isinstance(task, dict) else {"cmds": task}
    listed = [task.get("cmd"), *items(task.get("cmds"))]
    called = [entry.get("task") if isinstance(entry, dict) else entry for entry in items(task.get("deps"))]
    called += [entry.get("task") for entry in listed if isinstance(entry, dict)]
    runs = [entry.get("cmd") if isinstance(entry, dict) else entry for entry in listed]
    return [name for name in called if isinstance(name, str)], [run for run in runs if isinstance(run, str)]


def items(value: Any) -> list[Any]:
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
    and no longer than _EXPANDED_AT_MOST: past it, the line as it stood); $(MAKE) stays, read as make itself, and
    `$(shell CMD)` is CMD's words."""
    def value(used: re.Match[str]) -> str:
        return values.get(used.group(1), used.group(0)) if used.group(1) != "MAKE" else used.group(0)

    for _ in range(10):
        if len(line) + sum(len(value(used)) for used in _REFERENCE.finditer(line)) > _EXPANDED_AT_MOST:
            break
        expanded = _REFERENCE.sub(value, line)
        if expanded == line:
            break
        line = expanded
    return _SHELL_CALL.sub(r" \1 ", line)


# make's `$(shell which ruff)`: the command it runs, read as words of the line (`RUFF := $(shell which ruff)`, then
# `$(RUFF) check src`, runs ruff).
_SHELL_CALL = re.compile(r"\$[({]shell[ \t]+([^(){}]*)[)}]")


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
