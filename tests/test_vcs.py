"""The vcs package's facade (aidlc/vcs/__init__.py): it names exactly what the rest of aidlc calls as `vcs.name`,
and importing it starts neither GitPython nor subprocess (start-up time)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from aidlc import vcs

ROOT = Path(__file__).resolve().parent.parent


def called_names() -> set[str]:
    """Every `vcs.name` and `from aidlc.vcs import name` outside the package: in aidlc, its tests and benchmarks."""
    names: set[str] = set()
    for path in (path for folder in ("aidlc", "tests", "benchmarks") for path in (ROOT / folder).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.is_relative_to(ROOT / "aidlc" / "vcs") or "vcs" not in text:
            continue  # a file without the word can name nothing of it: parsing every file was most of the time
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "vcs":
                names.add(node.attr)
            elif isinstance(node, ast.ImportFrom) and node.module == "aidlc.vcs":
                names.update(alias.name for alias in node.names)
    return names


def offered_names() -> set[str]:
    tree = ast.parse((ROOT / "aidlc" / "vcs" / "__init__.py").read_text(encoding="utf-8"))
    return {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
            for alias in node.names}


def test_the_facade_offers_exactly_the_names_callers_use() -> None:
    modules = {path.stem for path in (ROOT / "aidlc" / "vcs").glob("*.py")}
    called = called_names() - modules  # a test may reach one module by name (test_claims counts git processes)
    assert sorted(called - offered_names()) == [] and sorted(offered_names() - called) == []
    assert all(hasattr(vcs, name) for name in offered_names())


def test_importing_vcs_starts_neither_gitpython_nor_subprocess() -> None:
    code = "import sys, aidlc.vcs; print(sorted({'git', 'subprocess', 'configparser'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
