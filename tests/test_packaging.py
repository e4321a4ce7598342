"""The built wheel works on its own: templates and schemas ship inside it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _build_wheel(out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True,
    )
    (wheel,) = out.glob("aidlc-*.whl")
    return wheel


def test_wheel_ships_templates_and_schemas(tmp_path: Path) -> None:
    names = zipfile.ZipFile(_build_wheel(tmp_path / "dist")).namelist()
    assert "aidlc/templates/scaffold/aidlc.yaml.j2" in names
    assert "aidlc/templates/artifacts/story.md.j2" in names
    assert "aidlc/schemas/story.schema.json" in names


def test_installed_wheel_runs_init_outside_the_checkout(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "dist")
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True)
    env = {**os.environ, "PYTHONPATH": str(target), "CI": "true"}
    where = subprocess.run([sys.executable, "-c", "import aidlc; print(aidlc.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where.startswith(str(target)), where  # the wheel, not the checkout
    result = subprocess.run([sys.executable, "-m", "aidlc", "init", "--git", "proj"], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "proj/memory-bank/standards/definition-of-done.md").is_file()
    assert (tmp_path / "proj/.github/workflows/aidlc.yml").is_file()
    check = subprocess.run([sys.executable, "-m", "aidlc", "validate", "proj"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
