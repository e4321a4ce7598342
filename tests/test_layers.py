"""The package layout is the architecture (docs/design.md, The layers): imports run down the floors of
benchmarks/house.py's FLOORS only, no two modules import each other (directly or round a longer loop), the domain
never imports the CLI, and an import inside a function says on its line (or the line above its block) why it is
there."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from radon.metrics import mi_visit

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "aidlc"
DOMAIN = ("model", "bank", "rules", "events", "gates", "draft", "llm", "report", "status", "scaffold", "mcp")



def load_house() -> ModuleType:
    spec = importlib.util.spec_from_file_location("house", ROOT / "benchmarks" / "house.py")
    assert spec is not None and spec.loader is not None
    house = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(house)
    return house


@pytest.fixture(scope="module")
def house() -> ModuleType:
    return load_house()


@pytest.fixture(scope="module")
def graph(house: ModuleType) -> tuple[dict[str, set[str]], list]:
    return house.import_graph()


def test_no_two_modules_import_each_other(house: ModuleType, graph: tuple[dict[str, set[str]], list]) -> None:
    assert house.strongly_connected(graph[0]) == []


def test_the_rooms_keep_the_size_and_complexity_the_house_allows(house: ModuleType) -> None:
    """benchmarks/house.py's goals on the code itself (files, complexity, maintainability), held here so that a change
    that breaks one fails the suite instead of waiting for the next benchmark run."""
    code = house.measure_code()
    missed = [f"{goal['name']}: {goal['value']}" for goal in house.goals(code, None, None) if goal["passed"] is False]
    assert missed == [], (missed, code["most_complex"][:3], code["largest_files"][:3])


@pytest.mark.parametrize("module", ["bolt/run.py", "aidlc_docs/stages.py", "rules/docs_approvals.py", "__init__.py"])
def test_the_maintainability_index_is_radons(house: ModuleType, module: str) -> None:
    """The house reads each file's index from the tree it already parsed: the same number radon's mi_visit gives."""
    text = (PACKAGE / module).read_text(encoding="utf-8")
    tree = ast.parse(text)
    visitor = house.ComplexityVisitor.from_ast(tree)
    assert house.maintainability_index(text, tree, visitor) == mi_visit(text, multi=True)


def test_imports_run_down_the_floors_only(house: ModuleType, graph: tuple[dict[str, set[str]], list]) -> None:
    assert house.upward_imports(graph[0]) == []


def test_every_part_of_the_package_stands_on_a_floor(house: ModuleType,
                                                     graph: tuple[dict[str, set[str]], list]) -> None:
    assert sorted({house.room(module) for module in graph[0]} - set(house.FLOOR_OF)) == []


def test_every_import_inside_a_function_says_why(graph: tuple[dict[str, set[str]], list]) -> None:
    assert [f"{item.file}:{item.line}" for item in graph[1]
            if not item.reason] == []


def test_the_floor_check_sees_an_upward_import_and_a_cycle(house: ModuleType) -> None:
    made_up = {"aidlc.bank.items": {"aidlc.cli.app"}, "aidlc.cli.app": {"aidlc.bank.items"},
               "aidlc.bolt.checks": {"aidlc.gates.decide"}, "aidlc.gates.decide": {"aidlc.bolt.runner"}}
    assert house.upward_imports(made_up) == ["aidlc.bank.items -> aidlc.cli.app",
                                             "aidlc.bolt.checks -> aidlc.gates.decide",
                                             "aidlc.gates.decide -> aidlc.bolt.runner"]
    assert house.strongly_connected(made_up) == [["aidlc.bank.items", "aidlc.cli.app"]]


def test_an_import_inside_a_function_needs_a_comment_on_it_or_above_its_block(house: ModuleType) -> None:
    text = ("def f():\n"
            "    from aidlc import vcs\n"
            "    # only when a journal is left: rare\n"
            "    from aidlc.bank import walk\n"
            "    from aidlc.bank import write\n"
            "    x = 1\n"
            "    from aidlc.errors import UsageError  # the error path only\n")
    found, inside = house.imports(ast.parse(text), "aidlc.m", False)
    lines = text.splitlines()
    assert inside == [2, 4, 5, 7]
    assert [house.has_reason(lines, number) for number in inside] == [False, True, True, True]
    assert {"aidlc.vcs", "aidlc.bank.walk", "aidlc.bank.write", "aidlc.errors.UsageError"} <= found


def imported(path: Path) -> set[str]:
    """Every module `path` imports, at any depth of the file (lazy imports inside functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def offenders(package: str, forbidden: tuple[str, ...]) -> list[str]:
    return [f"{path.relative_to(PACKAGE.parent)} imports {name}"
            for path in sorted((PACKAGE / package).rglob("*.py")) for name in sorted(imported(path))
            if name.startswith(forbidden)]


@pytest.mark.parametrize("package", DOMAIN)
def test_the_domain_never_imports_the_cli(package: str) -> None:
    assert offenders(package, ("aidlc.cli",)) == []


def test_the_models_import_nothing_above_them() -> None:
    assert offenders("model", ("aidlc.cli", "aidlc.report", "aidlc.draft", "aidlc.status", "aidlc.rules")) == []


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from aidlc.cli.app import App\n", encoding="utf-8")
    assert "aidlc.cli.app" in imported(module)


def test_every_type_ignore_says_why() -> None:
    said = re.compile(r"# type: ignore(\[[\w, -]+\])?\s*#\s*\S")
    assert [f"{path.relative_to(PACKAGE.parent)}:{number}" for path in sorted(PACKAGE.rglob("*.py"))
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if "# type: ignore" in line and not said.search(line)] == []


VCS = PACKAGE / "vcs"


def talks_to_git(path: Path) -> list[str]:
    """What in `path` talks to git past the vcs package's facade: GitPython imported, a `git` command line written
    out, or a module of aidlc/vcs/ imported by name (callers use `from aidlc import vcs` only)."""
    modules = {module.stem for module in VCS.glob("*.py")} - {"__init__"}
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names
                      if alias.name.split(".")[0] == "git" or alias.name.startswith("aidlc.vcs.")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "git" or node.module.startswith("aidlc.vcs."):
                found.append(f"from {node.module} import {', '.join(alias.name for alias in node.names)}")
            elif node.module == "aidlc.vcs":
                found += [f"from aidlc.vcs import {alias.name}" for alias in node.names if alias.name in modules]
        elif isinstance(node, (ast.List, ast.Tuple)) and node.elts and \
                isinstance(node.elts[0], ast.Constant) and node.elts[0].value == "git":
            found.append(f"a git command on line {node.lineno}")
    return found


def test_only_the_vcs_package_talks_to_git() -> None:
    """docs/design.md, The layers: one package runs every git command; the rest call it through its facade."""
    assert {str(path.relative_to(PACKAGE.parent)): found for path in sorted(PACKAGE.rglob("*.py"))
            if not path.is_relative_to(VCS) and (found := talks_to_git(path))} == {}


def test_the_git_check_sees_gitpython_a_git_command_and_a_vcs_module(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import subprocess\n"
                      "from aidlc import vcs\n"
                      "from aidlc.vcs import history\n"
                      "from aidlc.vcs import process\n"
                      "from aidlc.vcs.log import Commit\n"
                      "def f():\n"
                      "    import git\n"
                      "    subprocess.run(['git', 'status'])\n", encoding="utf-8")
    assert talks_to_git(module) == ["from aidlc.vcs import process", "from aidlc.vcs.log import Commit", "import git",
                                    "a git command on line 8"]
    in_vcs = talks_to_git(VCS / "process.py")  # where git does run
    assert "import git" in in_vcs and any(item.startswith("a git command") for item in in_vcs)
