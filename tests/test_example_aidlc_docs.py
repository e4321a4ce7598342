"""examples/aidlc-docs.sh, the aidlc-docs layout's sample: a repository whose records an agent wrote commit by
commit, checked by validate and status, and a pull request rewriting the person's answer refused by ci."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a whole-program run: .ci/run runs it with -m slow

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "aidlc-docs.sh"


def run_example(folder: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """As a reader runs it on a fresh machine: no git identity or user configuration (an empty HOME)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIDLC_", "GIT_", "XDG_"))}
    env.update({"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(home), "NO_COLOR": "1"})
    return subprocess.run(["bash", str(EXAMPLE), str(folder)], env=env, capture_output=True, text=True)


def test_the_example_finds_the_unapproved_stage_then_refuses_the_rewritten_answer(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    ran = run_example(tmp_path / "records", tmp_path / "home")
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    checked = ran.stdout.split("== 2.")[1].split("== 3.")[0]
    assert "aidlc-state.md:22 AIDLC-DOCS-003 Code Generation of unit 2 is ticked" in checked
    assert ("audit.md:66 logs the person's words on it refusing or asking for changes, with no approval after them: "
            '"Request Changes: show prices with tax"') in checked
    assert "aidlc-state.md:22 AIDLC-DOCS-005 ticked while aidlc-docs/construction/plans/shop-web-code-generation" \
           "-plan.md" in checked
    assert "(aidlc validate exited 1:" in checked
    # status cites each approval it reads, and names the stage with none
    assert "requirements-analysis  line 12  logged approval: aidlc-docs/audit.md:18" in checked
    assert "code-generation        line 22  no approval logged" in checked
    pull_request = ran.stdout.split("== 3.")[1]
    assert "AIDLC-DOCS-021 commit" in pull_request
    assert 'read `**User Input**: "Request Changes: show prices with tax"`' in pull_request
    assert "AIDLC-DOCS-003 Build and Test is ticked" in pull_request
    assert "(aidlc ci exited 1:" in pull_request
    log = subprocess.run(["git", "log", "--format=%s", "agent/finish"], cwd=tmp_path / "records",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    assert log[:3] == ["Finish construction", "Construction: units 1 and 2 designed and generated",
                       "Inception: requirements, plan and units approved"]


def test_the_example_builds_only_its_own_sample_never_in_a_folder_of_yours(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.md").write_text("mine\n")
    ran = run_example(mine, tmp_path)
    assert ran.returncode == 2
    assert "exists and is not empty" in ran.stderr and "Next steps:" in ran.stderr
    assert sorted(path.name for path in mine.iterdir()) == ["notes.md"]


def test_the_example_says_how_to_install_aidlc_when_it_is_not_on_path(tmp_path: Path) -> None:
    bare = {k: v for k, v in os.environ.items() if not k.startswith(("AIDLC_", "GIT_", "XDG_"))}
    bare["PATH"] = "/usr/bin:/bin"  # git and the shell's tools, no aidlc
    ran = subprocess.run(["bash", str(EXAMPLE), str(tmp_path / "records")], env=bare, capture_output=True, text=True)
    assert ran.returncode == 2
    assert "the aidlc command is not on PATH" in ran.stderr and "pip install -e ." in ran.stderr
    assert not (tmp_path / "records").exists()
