"""The package layout is the architecture: the domain never imports the CLI, and the models import
nothing above them (report/, draft/, status/, cli/)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "aidlc"
DOMAIN = ("model", "bank", "rules", "events", "gates", "draft", "llm", "report", "status", "scaffold", "mcp")


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
