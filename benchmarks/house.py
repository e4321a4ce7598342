"""Measure the shape of the package against its goals: file sizes, complexity, maintainability, import cycles,
upward imports, imports inside functions, mypy errors and (optionally) the test suite's time.

Usage::

    python benchmarks/house.py [--json] [--no-mypy] [--suite]

What it measures
----------------
* **Lines per file** of ``aidlc/**/*.py``: goal, no file over 400 lines.
* **Cyclomatic complexity** of every function (radon): goal, none over 30 across the package, none over 15 in
  the bolt loop's package (``aidlc/bolt``).
* **Maintainability index** of every module (radon): goal, none under 20.
* **Import cycles** between modules (every ``import aidlc...`` at any depth of a file, so a cycle hidden inside a
  function counts): goal, none.
* **Upward imports**: a module importing from a higher floor of ``FLOORS`` (docs/design.md, The layers): goal,
  none.
* **Imports inside functions**: counted and listed; each should exist for start-up time and say so.
* **mypy errors** on ``aidlc`` (skipped with ``--no-mypy``) and the ``type: ignore`` comments: goal, no error.
* **The suite's time** (``--suite``): one ``python -m pytest -q`` on this machine, wall clock, with the number of
  cores; goal, under 5 minutes, and every test passing (a failing suite's time is no measure of it).

Each row prints its value, its goal and whether it is met. Informational: exit code 0.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from radon.metrics import h_visit_ast, mi_compute
from radon.raw import analyze
from radon.visitors import ComplexityVisitor

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "aidlc"

# The floors of docs/design.md, The layers, lowest first. A module may import its own floor and the floors below.
# A floor names parts of the package (`bank`) or single modules (`bolt.checks`); the longest name that holds a
# module decides its floor.
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "names", "globs", "plural", "perf", "mdtext", "processes", "redaction", "untrusted", "locking",
               "vcs", "__init__"}),
    frozenset({"model"}),
    frozenset({"bank", "aidlc_docs"}),
    frozenset({"llm", "templating"}),
    frozenset({"events", "workspace"}),
    # The bolt's records below the gates that judge them: its plan file, its run state and trail, the checks it runs,
    # the recipes and settings their tools read, and what weakens them (they import nothing above events/; gates, ci
    # and scaffold read them). The loop stays above gates.
    frozenset({f"bolt.{module}" for module in ("plan", "protected", "checks", "check_runs", "check_settings",
                                               "settings_bases", "recipes",
                                               "runner_configs", "counts", "groups", "store", "suppressions", "trail",
                                               "tautology", "weakening", "walkthrough_file")}),
    frozenset({"gates", "rules"}),
    frozenset({"scaffold", "bolt", "draft"}),
    frozenset({"report", "status", "ci", "formats"}),
    frozenset({"cli", "mcp", "__main__"}),
)
FLOOR_OF = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room(module: str) -> str:
    """The part of the package a module belongs to, as FLOORS names it: `aidlc.bank.index` -> `bank`,
    `aidlc.bolt.checks` -> `bolt.checks`; a part FLOORS does not name, by its top-level name."""
    parts = module.split(".")[1:]
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in FLOOR_OF:
            return ".".join(parts[:end])
    return parts[0] if parts else "__init__"


class Import(NamedTuple):
    """One import statement of an aidlc module inside a function: where it is and whether a comment says why."""

    file: str
    line: int
    reason: bool


def imports(tree: ast.Module, module: str, is_package: bool) -> tuple[set[str], list[int]]:
    """The aidlc names `tree` imports (at any depth; `from aidlc.events import journal` names aidlc.events.journal,
    which `resolve` maps to the module or, for a plain name, its package), and the lines of the import statements
    inside a function."""
    found: set[str] = set()
    inside: list[int] = []
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]  # each node once, with whether a function holds it
    while stack:
        node, in_function = stack.pop()
        stack += [(child, in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
                  for child in ast.iter_child_nodes(node)]
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
        names = [name for name in names if name == "aidlc" or name.startswith("aidlc.")]
        if names and in_function:
            inside.append(node.lineno)
        found.update(names)
    return found, sorted(inside)


def has_reason(lines: list[str], number: int) -> bool:
    """Whether the import on line `number` (1-based) says why it sits inside a function: a comment on its line, or on
    the line above the run of import lines it belongs to (one comment may speak for a block of imports)."""
    at = number - 1
    if "#" in lines[at]:
        return True
    while at > 0 and lines[at - 1].lstrip().startswith(("import ", "from ")):
        at -= 1
        if "#" in lines[at]:
            return True
    return at > 0 and lines[at - 1].lstrip().startswith("#")


def import_graph() -> tuple[dict[str, set[str]], list[Import]]:
    """Every aidlc module and the aidlc modules it imports (at any depth), and every import inside a function."""
    modules = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    inside: list[Import] = []
    for module, path in modules.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        found, nested = imports(ast.parse(text), module, path.name == "__init__.py")
        graph[module] = {target for name in found if (target := resolve(name, set(modules))) and target != module}
        rel = str(path.relative_to(ROOT))
        inside += [Import(rel, number, has_reason(lines, number)) for number in nested]
    return graph, inside


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """`source -> target` for every import of a module on a higher floor than the importer's."""
    return sorted(f"{source} -> {target}" for source, targets in graph.items() for target in targets
                  if FLOOR_OF.get(room(target), 0) > FLOOR_OF.get(room(source), 0))


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively: the components of more than one module are the import cycles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


def resolve(name: str, modules: set[str]) -> str | None:
    """`from aidlc.bank.index import X` names the module aidlc.bank.index; `from aidlc.bank import index` too
    resolves to the package's module, which is as far as an import statement says."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def maintainability_index(text: str, tree: ast.Module, visitor: ComplexityVisitor) -> float:
    """radon's `mi_visit(text, multi=True)` from the tree and complexity already made for the file (mi_visit parses
    and visits it again): Halstead volume, total complexity, logical lines, and comment lines with docstrings."""
    raw = analyze(text)
    comments = (raw.comments + raw.multi) / raw.sloc * 100 if raw.sloc else 0
    return mi_compute(h_visit_ast(tree).total.volume, visitor.total_complexity, raw.lloc, comments)


def measure_code() -> dict:
    sources = sorted(PACKAGE.rglob("*.py"))
    graph, inside = import_graph()
    lines: dict[str, int] = {}
    complexity: list[dict] = []
    maintainability: dict[str, float] = {}
    inside_by_module: dict[str, int] = defaultdict(int)
    for item in inside:
        inside_by_module[item.file] += 1
    ignores = 0
    for path in sources:
        text = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(ROOT))
        lines[rel] = text.count("\n")
        ignores += len(re.findall(r"#\s*type:\s*ignore", text))
        tree = ast.parse(text)
        visitor = ComplexityVisitor.from_ast(tree)
        for block in visitor.blocks:
            complexity.append({"file": rel, "function": block.fullname, "line": block.lineno,
                               "complexity": block.complexity})
        maintainability[rel] = round(maintainability_index(text, tree, visitor), 1)
    upward = upward_imports(graph)
    rooms: dict[str, set[str]] = defaultdict(set)
    for source, targets in graph.items():
        rooms[room(source)].update(room(target) for target in targets if room(target) != room(source))
    bolt_package = "aidlc/bolt/"
    complexity.sort(key=lambda row: -row["complexity"])
    return {
        "files": len(sources),
        "lines": sum(lines.values()),
        "largest_files": sorted(lines.items(), key=lambda item: -item[1])[:10],
        "files_over_400": sum(1 for count in lines.values() if count > 400),
        "most_complex": complexity[:10],
        "functions_over_30": sum(1 for row in complexity if row["complexity"] > 30),
        "bolt_package": bolt_package,
        "bolt_functions_over_15": sum(1 for row in complexity
                                      if row["file"].startswith(bolt_package) and row["complexity"] > 15),
        "least_maintainable": sorted(maintainability.items(), key=lambda item: item[1])[:10],
        "modules_under_20": sum(1 for value in maintainability.values() if value < 20),
        "module_cycles": strongly_connected(graph),
        "room_cycles": strongly_connected({name: set(targets) for name, targets in rooms.items()}),
        "upward_imports": upward,
        "imports_inside_functions": len(inside),
        "imports_inside_functions_without_reason": [f"{item.file}:{item.line}" for item in inside if not item.reason],
        "imports_inside_functions_by_file": dict(sorted(inside_by_module.items(), key=lambda item: -item[1])),
        "type_ignores": ignores,
    }


def mypy_errors() -> int | None:
    """The number of mypy errors on the package, or None where mypy is not installed."""
    try:
        done = subprocess.run([sys.executable, "-m", "mypy", "aidlc"], cwd=ROOT, capture_output=True, text=True,
                              timeout=1800)
    except subprocess.TimeoutExpired:
        return None
    if "No module named mypy" in done.stderr:
        return None
    return sum(1 for line in done.stdout.splitlines() if ": error:" in line)


class SuiteRun(NamedTuple):
    seconds: float
    passed: bool


def run_suite() -> SuiteRun:
    start = time.perf_counter()
    finished = subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=ROOT, capture_output=True, text=True,
                              timeout=5400)
    seconds = round(time.perf_counter() - start, 1)
    lines = finished.stdout.strip().splitlines()
    print(f"pytest -q: exit {finished.returncode} in {seconds} s: {(lines or ['no output'])[-1]}", file=sys.stderr)
    for line in lines:  # which tests failed, from pytest's short summary
        if line.startswith(("FAILED ", "ERROR ")):
            print(f"  {line}", file=sys.stderr)
    return SuiteRun(seconds, finished.returncode == 0)


def goals(code: dict, mypy: int | None, suite: SuiteRun | None) -> list[dict]:
    def goal(name: str, value: object, passed: bool | None) -> dict:
        return {"name": name, "value": value, "passed": passed}

    return [
        goal("no file over 400 lines", code["files_over_400"], code["files_over_400"] == 0),
        goal("no function over complexity 30", code["functions_over_30"], code["functions_over_30"] == 0),
        goal(f"no function over complexity 15 in {code['bolt_package']}", code["bolt_functions_over_15"],
             code["bolt_functions_over_15"] == 0),
        goal("no module's maintainability index under 20", code["modules_under_20"], code["modules_under_20"] == 0),
        goal("no import cycle between modules", len(code["module_cycles"]), not code["module_cycles"]),
        goal("no upward import", len(code["upward_imports"]), not code["upward_imports"]),
        goal("mypy reports no error", mypy, None if mypy is None else mypy == 0),
        goal("the suite passes in under 5 minutes", suite and suite.seconds,
             None if suite is None else suite.passed and suite.seconds < 300),
    ]


def render(report: dict) -> str:
    code = report["code"]
    out = [f"aidlc/: {code['files']} files, {code['lines']} lines, {code['type_ignores']} `type: ignore`, "
           f"{code['imports_inside_functions']} imports inside functions "
           f"({len(code['imports_inside_functions_without_reason'])} without a comment saying why); "
           f"{report['cores']} cores", ""]
    for row in report["goals"]:
        verdict = {True: "met", False: "MISSED", None: "not measured"}[row["passed"]]
        out.append(f"  {verdict:<12} {row['name']}: {row['value']}")
    out += ["", "largest files:"] + [f"  {count:>5}  {path}" for path, count in code["largest_files"][:5]]
    out += ["", "most complex functions:"] + [
        f"  {row['complexity']:>5}  {row['file']}:{row['line']} {row['function']}" for row in code["most_complex"][:5]]
    out += ["", "least maintainable modules:"] + [f"  {value:>5}  {path}" for path, value in
                                                    code["least_maintainable"][:5]]
    if code["room_cycles"]:
        out += ["", "cycles between parts of the package:"] + ["  " + " <-> ".join(c) for c in code["room_cycles"]]
    if code["upward_imports"]:
        out += ["", "upward imports:"] + [f"  {arrow}" for arrow in code["upward_imports"][:20]]
        if len(code["upward_imports"]) > 20:
            out.append(f"  ... and {len(code['upward_imports']) - 20} more (--json lists them all)")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--no-mypy", action="store_true", help="skip mypy (it takes a minute or two)")
    parser.add_argument("--suite", action="store_true", help="also time one run of the whole test suite")
    options = parser.parse_args(argv)
    code = measure_code()
    mypy = None if options.no_mypy else mypy_errors()
    suite = run_suite() if options.suite else None
    report = {"version": 1, "cores": os.cpu_count(), "code": code, "mypy_errors": mypy,
              "suite_seconds": suite and suite.seconds, "suite_passed": suite and suite.passed,
              "goals": goals(code, mypy, suite)}
    print(json.dumps(report, indent=2) if options.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
