"""What aidlc needs installed: the model SDKs are extras, only for the commands that ask a model. A real `aidlc`
process with a module blocked (`sys.modules[name] = None`: importing it raises ImportError, as where it is not
installed) runs the commands that need it not."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.bolt_sample import BOLT, env
from tests.helpers import in_one_process

ROOT = Path(__file__).resolve().parent.parent


def without(modules: list[str], root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`aidlc --repo ROOT ARGS` in a process where each of `modules` cannot be imported."""
    (done,) = each_without(modules, root, [list(args)])
    return done


def each_without(modules: list[str], root: Path, commands: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    """Each of `commands` (`aidlc --repo ROOT ARGS`) one after another in one process where each of `modules`
    cannot be imported for any of them."""
    return in_one_process([["--repo", str(root), *args] for args in commands], env(), cwd=root, blocked=tuple(modules))


# Every command a pull request's CI and the pre-commit hook (`aidlc validate`) run, and a person's gate decision.
WITHOUT_A_MODEL = [["validate"], ["ci"], ["status"], ["status", "--bolt", "001"], ["log", "show"], ["log", "verify"],
                   ["gate", "approve", "001-checkout-payments", "--stage", "bolt-plan"], ["rules", "REF-001"]]


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_commands_that_ask_no_model_run_without_the_sdks(shop: Path, sdk: str) -> None:
    for args, done in zip(WITHOUT_A_MODEL, each_without([sdk], shop, WITHOUT_A_MODEL), strict=True):
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr


READ_ONLY = [args for args in WITHOUT_A_MODEL if args[0] != "gate"]


def test_read_only_commands_run_without_fcntl_and_import_no_lock(shop: Path) -> None:
    """Where fcntl does not exist (Windows): the commands that only read import neither it nor filelock."""
    for args, done in zip(READ_ONLY, each_without(["fcntl", "filelock"], shop, READ_ONLY), strict=True):
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_writing_command_takes_its_lock_through_filelock(shop: Path) -> None:
    """A gate decision appends to the ledger under a lock: with filelock blocked it cannot, and says nothing
    was recorded rather than writing unlocked."""
    ledger = (shop / "memory-bank/events.jsonl").read_bytes()
    done = without(["filelock"], shop, "gate", "approve", "001-checkout-payments", "--stage", "bolt-plan")
    assert done.returncode != 0 and "filelock" in done.stderr
    assert (shop / "memory-bank/events.jsonl").read_bytes() == ledger
    assert without([], shop, "gate", "approve", "001-checkout-payments", "--stage", "bolt-plan").returncode == 0


def test_a_command_that_asks_a_model_names_the_extra_to_install(shop: Path) -> None:
    done = without(["openai"], shop, "llm", "check", "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 2, done.stderr
    assert "the openai provider needs the openai package, which is not installed" in done.stderr
    assert "pip install 'aidlc[openai]'    # or 'aidlc[llm]': every provider" in done.stderr
    start = without(["openai"], shop, "bolt", "start", BOLT, "--dry-run", "--base-url", "http://127.0.0.1:9/v1")
    assert start.returncode == 2 and "pip install 'aidlc[openai]'" in start.stderr
    assert "Traceback" not in done.stderr + start.stderr


def test_the_sdks_are_extras_and_the_test_extra_has_both() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.startswith(("openai", "anthropic"))]
    extras = project["optional-dependencies"]
    assert extras["openai"] == ["openai>=1.40"] and extras["anthropic"] == ["anthropic>=0.30"]
    assert sorted(extras["llm"]) == sorted(extras["openai"] + extras["anthropic"])
    assert set(extras["llm"]) <= set(extras["test"])
