"""The composite action (action.yml) run step by step as a GitHub runner runs one, on real pull-request histories:
the job fails exactly when `aidlc ci` exits 1.

No GitHub runner is at hand, so this file plays its part, and only that: each `run` step goes through
`bash --noprofile --norc -eo pipefail FILE` (the runner's command for `shell: bash`) with the step's `env`, in the
workspace, and the job stops at the first step that exits non-zero. The expressions the action uses are the
only ones evaluated (`inputs.*`, `github.action_path`); any other stops the test. `actions/setup-python`, a
`uses` step, is played by a new virtual environment put first on PATH; the install step then builds and installs
aidlc from this repository's source, as the action's default does (offline: its dependencies come from the test
environment)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

from tests.test_ci import approved_plan, code_change, pr  # noqa: F401 - `pr` is a fixture

pytestmark = pytest.mark.slow  # whole-program runs: .ci/run runs them with -m slow

ROOT = Path(__file__).resolve().parent.parent
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


@pytest.fixture(scope="module")
def python_on_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What `actions/setup-python` leaves: a Python whose folder comes first on PATH (and its pip)."""
    venv = tmp_path_factory.mktemp("setup-python") / "py"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    # aidlc's dependencies and its build backend, from the test environment: no index is asked.
    (site / "test-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def run_action(workspace: Path, bin_dir: Path, inputs: dict[str, str]) -> list[tuple[str, subprocess.CompletedProcess]]:
    """The steps run until the first that fails, each with its name and what it printed."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    values = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    values |= {f"inputs.{name}": value for name, value in inputs.items()} | {"github.action_path": str(ROOT)}

    def evaluate(text: str) -> str:
        return EXPRESSION.sub(lambda m: values[m.group(1)], text)  # an unknown expression: KeyError

    # pip reads PIP_NO_BUILD_ISOLATION=0 as --no-build-isolation (its "no-" options take a false value so): the
    # build backend comes from the environment, and PIP_NO_INDEX makes any download attempt fail the test.
    base_env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(workspace.parent), "GITHUB_ACTIONS": "true",
                "GITHUB_WORKSPACE": str(workspace), "CI": "true", "PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1",
                "PIP_NO_BUILD_ISOLATION": "0", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    ran = []
    for number, step in enumerate(action["runs"]["steps"], start=1):
        if "uses" in step:
            assert step["uses"].startswith("actions/setup-python@"), step  # the one the caller played
            continue
        assert step["shell"] == "bash"
        script = workspace.parent / f"step-{number}.sh"
        script.write_text(step["run"])
        env = base_env | {name: evaluate(str(value)) for name, value in step.get("env", {}).items()}
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                              env=env, capture_output=True, text=True, timeout=600)
        ran.append((step["name"], proc))
        if proc.returncode != 0:
            break
    return ran


def test_the_job_passes_on_a_traced_change_and_fails_when_aidlc_ci_exits_1(pr: Path,  # noqa: F811
                                                                          python_on_path: Path) -> None:
    approved_plan(pr)
    code_change(pr)
    ran = run_action(pr, python_on_path, {"base": "main"})
    assert [(name, proc.returncode) for name, proc in ran] == [("install aidlc", 0), ("aidlc ci", 0)], ran
    assert "aidlc ci passed (against base" in ran[-1][1].stdout
    installed = subprocess.run([str(python_on_path / "python"), "-c", "import aidlc; print(aidlc.__file__)"],
                               capture_output=True, text=True, check=True, cwd=pr.parent).stdout
    assert installed.startswith(str(python_on_path.parent)), installed  # built from the action's source

    code_change(pr, trailer=None, path="src/pay/untraced.py")  # governed code with no bolt behind it
    sarif = pr.parent / "aidlc.sarif"
    ran = run_action(pr, python_on_path, {"base": "main", "sarif": str(sarif)})
    (name, proc) = ran[-1]
    assert (name, proc.returncode) == ("aidlc ci", 1), ran  # the step fails, so the job does
    assert "::error file=src/pay/untraced.py,title=AIDLC-CI-005::" in proc.stdout
    assert sarif.is_file() and "AIDLC-CI-005" in sarif.read_text()


def test_a_usage_error_of_aidlc_ci_fails_the_job_too(pr: Path, python_on_path: Path) -> None:  # noqa: F811
    ran = run_action(pr, python_on_path, {"base": "0" * 40})  # a base this clone lacks
    assert (ran[-1][0], ran[-1][1].returncode) == ("aidlc ci", 2), ran
    assert os.path.exists(python_on_path / "aidlc")
