"""`aidlc --help` lists every command from the lazy command table, without importing the commands."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from aidlc.cli import COMMANDS, cli
from tests.helpers import run_cli_process as run_cli  # the real process: these tests are about it


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_table_says_what_each_command_says_of_itself(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.name == name
    assert COMMANDS[name].help == command.get_short_help_str(limit=1000)


def test_help_lists_every_command_and_imports_none_of_them() -> None:
    probe = ("import sys\nfrom aidlc.cli import main\nsys.argv = ['aidlc', '--help']\ntry:\n    main()\n"
             "except SystemExit as exc:\n    code = exc.code\n"
             "loaded = sorted(m for m in sys.modules if m.startswith(('aidlc.cli.', 'pydantic')))\n"
             "print('LOADED', code, loaded)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    listing = done.stdout.split("Commands:")[1]
    for name, entry in COMMANDS.items():
        assert f"  {name} " in listing and entry.help.split()[0] in listing
    assert done.stdout.splitlines()[-1] == "LOADED 0 ['aidlc.cli.app']"  # the shared CLI plumbing only


def test_a_bare_aidlc_prints_the_help_and_succeeds() -> None:
    done = run_cli()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: aidlc [OPTIONS] [COMMAND] [ARGS]...")
    assert "Commands:" in done.stdout and done.stderr == ""


@pytest.mark.parametrize("words", [[], ["validate"], ["gate", "approve"]])
def test_help_command_prints_what_dash_dash_help_prints(words: list[str]) -> None:
    asked = run_cli("help", *words)
    flag = run_cli(*words, "--help")
    assert asked.returncode == flag.returncode == 0, asked.stderr
    assert asked.stdout == flag.stdout


@pytest.mark.parametrize(("words", "nearest"), [(["stauts"], "status"), (["walkthrogh"], "walkthrough"),
                                                (["gate", "aprove"], "approve"), (["help", "stauts"], "status"),
                                                (["help", "gate", "aprove"], "approve")])
def test_an_unknown_command_is_told_the_nearest(words: list[str], nearest: str) -> None:
    done = run_cli(*words)
    assert done.returncode == 2
    assert f"No such command '{words[-1]}'. Did you mean '{nearest}'?" in done.stderr
    assert "Traceback" not in done.stderr


MODEL_COMMANDS = [["draft"], ["llm", "check"], ["bolt", "start"], ["bolt", "resume"], ["walkthrough"]]


def test_every_command_that_asks_a_model_takes_the_same_model_options() -> None:
    def options(words: list[str]) -> list[tuple[str, ...]]:
        command: click.Command = cli
        for word in words:
            command = command.get_command(click.Context(command), word)  # type: ignore[attr-defined]
        return [(*p.opts, p.help or "") for p in command.params if isinstance(p, click.Option)
                and p.opts[0] in ("--provider", "--model", "--base-url", "--api-key-env", "--timeout", "--record",
                                  "--replay")]

    first = options(MODEL_COMMANDS[0])
    assert len(first) == 7
    assert all(options(words) == first for words in MODEL_COMMANDS[1:])
