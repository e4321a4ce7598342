"""Shared fixtures: a clean memory bank in a real git repo, and a repo scaffolded by `aidlc init`.

The scaffolded repos are built once per session and copied for each test that asks for one.
"""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from aidlc.gates.actor import AGENT_SHELLS
from aidlc.llm.structured import forget_modes
from tests.helpers import Bank, build_clean_bank
from tests.openai_server import ScriptedServer

# The suite decides for itself who runs each command (a person, an agent, CI): run from a coding agent's shell, it
# would otherwise run every command as that agent (aidlc/gates/actor.py).
for _marker in AGENT_SHELLS:
    os.environ.pop(_marker, None)
# A test's `git init` copies no template (git's sample hooks, description and info/exclude, none of which aidlc
# reads): the same repository in 18 fewer files, which each test writes and pytest later deletes.
os.environ["GIT_TEMPLATE_DIR"] = ""
# A test's commits start no `git maintenance run --auto` (git's housekeeping, a process of its own after each commit,
# over two thousand in a run of the suite); aidlc's own commits skip it already (aidlc/vcs/process.py). Added after
# any settings the environment gives git this way (a container's `safe.directory`), not in their place.
_SET = int(os.environ.get("GIT_CONFIG_COUNT", "0") or "0")
os.environ.update({"GIT_CONFIG_COUNT": str(_SET + 1), f"GIT_CONFIG_KEY_{_SET}": "maintenance.auto",
                   f"GIT_CONFIG_VALUE_{_SET}": "false"})


def pytest_sessionstart(session: pytest.Session) -> None:
    """Deletes, beside the run, the folders of earlier runs that pytest deletes after the last test (it keeps the
    newest `tmp_path_retention_count`): about 200,000 files a run, whose deletion waits mostly on the disk (35 s, 12
    s of it CPU time) and so overlaps the tests well (docs/performance.md, "The house")."""
    config = session.config
    keep = int(config.getini("tmp_path_retention_count"))
    if hasattr(config, "workerinput") or config.option.basetemp or keep < 1 or shutil.which("rm") is None:
        return  # an xdist worker (its controller does it), a folder given, or no rm: pytest deletes them itself
    try:
        user = getpass.getuser()
    except (ImportError, KeyError, OSError):
        user = "unknown"  # as pytest names the folder then
    root = Path(os.environ.get("PYTEST_DEBUG_TEMPROOT") or tempfile.gettempdir()).resolve() / f"pytest-of-{user}"
    # Only a folder of this user's own, as pytest requires before it deletes there: in a /tmp shared with others,
    # another user may have made `pytest-of-<this user>` first.
    if not root.is_dir() or root.is_symlink() or (hasattr(os, "getuid") and root.stat().st_uid != os.getuid()):
        return
    runs = sorted((path for path in root.glob("pytest-*") if path.name[7:].isdigit()), key=lambda p: int(p.name[7:]))
    trash = list(root.glob("trash-*"))  # a deletion an earlier run did not finish
    for path in runs[: max(len(runs) - (keep - 1), 0)]:  # this run's folder is one of the `keep`
        if (path / ".lock").exists():
            continue  # a session still running (or one killed: pytest's own clean-up judges its lock's age)
        moved = root / f"trash-{path.name}-{os.getpid()}"
        try:
            path.rename(moved)
        except OSError:
            continue
        trash.append(moved)
    if trash:
        subprocess.Popen(["rm", "-rf", "--", *map(str, trash)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts) starts two workers per core: about a quarter of the suite's time is spent
    waiting on subprocesses, sockets and back-off, which a second worker on the core fills (docs/performance.md)."""
    return 2 * (os.cpu_count() or 1)


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    """A memory bank that validates with zero findings; a test breaks one thing in it."""
    return build_clean_bank(tmp_path / "repo")


@pytest.fixture(scope="session")
def _initialised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repo scaffolded by a real `aidlc init --git` subprocess, once per session: tests get copies."""
    root = tmp_path_factory.mktemp("init") / "shop"
    proc = subprocess.run([sys.executable, "-m", "aidlc", "init", "--git", str(root)], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "CI": "true", "GIT_TEMPLATE_DIR": ""})
    assert proc.returncode == 0, proc.stderr
    return _lean(root)


@pytest.fixture
def repo(tmp_path: Path, _initialised: Path) -> Path:
    """A repo scaffolded by `aidlc init --git` (empty bank, ledger started): a copy of the session's, still a
    real git repository (its .git is copied whole)."""
    return _copy(_initialised, tmp_path / "shop")


def _copy(template: Path, root: Path) -> Path:
    shutil.copytree(template, root, symlinks=True)
    return root


def _lean(template: Path) -> Path:
    """The template with its git objects in one pack: the same repository to git, in fewer files, which each test's
    copy writes and pytest later deletes."""
    subprocess.run(["git", "-C", str(template), "repack", "-adq"], check=True, capture_output=True)
    return template


@pytest.fixture(scope="session")
def _sample(tmp_path_factory: pytest.TempPathFactory, _initialised: Path) -> Path:
    """The bolt sample of tests/bolt_sample.py (a shop with a failing test), built once per session."""
    from tests.bolt_sample import build_sample

    root = _copy(_initialised, tmp_path_factory.mktemp("bolt") / "shop")
    build_sample(root)
    return _lean(root)


@pytest.fixture
def shop(_sample: Path, tmp_path: Path) -> Path:
    """A copy of the bolt sample for one test."""
    return _copy(_sample, tmp_path / "shop")


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A real HTTP server on 127.0.0.1 speaking the OpenAI (and Anthropic) protocol, scripted per test."""
    with ScriptedServer() as running:
        yield running


@pytest.fixture(autouse=True)
def _fresh_modes() -> Iterator[None]:
    """Structured output remembers per server which JSON mode works; tests must not share that."""
    forget_modes()
    yield
    forget_modes()


@pytest.fixture(scope="session")
def _chained(tmp_path_factory: pytest.TempPathFactory, _initialised: Path) -> Path:
    """The scaffolded repo with a chain built by `aidlc new`, once per session: tests get copies."""
    from tests.test_gate import set_identity
    from tests.test_new import build_chain

    root = _copy(_initialised, tmp_path_factory.mktemp("chain") / "shop")
    build_chain(root)
    set_identity(root)
    return _lean(root)


@pytest.fixture
def chain(tmp_path: Path, _chained: Path) -> Path:
    """The scaffolded repo with an intent -> requirement -> unit -> story -> bolt chain and a git identity."""
    return _copy(_chained, tmp_path / "shop")
