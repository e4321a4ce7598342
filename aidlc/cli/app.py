"""Shared CLI state and output discipline: JSON on stdout, prose on stderr, no tracebacks."""

from __future__ import annotations

import codecs
import io
import itertools
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from aidlc.bank.walk import CONFIG_FILE, DEFAULT_BANK, DEFAULT_DOCS, is_bank, shown, shown_json
from aidlc.errors import AidlcError, UsageError
from aidlc.names import arg, shorten, terminal_safe
from aidlc.report.style import Style

JSON_VERSION = 1


@dataclass
class App:
    repo: str | None
    output_format: str
    color: bool
    verbosity: int

    @property
    def json(self) -> bool:
        return self.output_format == "json"

    @property
    def style(self) -> Style:
        return Style(self.color)

    def root(self, override: str | None = None) -> Path:
        """The repo root: the given path, else --repo, else the nearest folder up that holds records (discover_root)."""
        if override or self.repo:
            path = Path(override or self.repo or ".")
            if not path.exists():
                raise click.BadParameter(f"{path} does not exist", param_hint="PATH/--repo")
            return path.resolve()
        return discover_root(Path.cwd())

    def emit_json(self, document: dict[str, Any]) -> None:
        click.echo(terminal_safe(shown_json(json.dumps({"version": JSON_VERSION, **document}, ensure_ascii=False,
                                                       indent=2, default=str))))

    def out(self, text: str) -> None:
        """Text results: stdout in text mode, stderr in JSON mode (stdout holds only the document)."""
        click.echo(terminal_safe(text), err=self.json)

    def note(self, text: str) -> None:
        """Progress and prose: always stderr, silenced by -q."""
        if self.verbosity >= 0:
            click.echo(terminal_safe(text), err=True)


def _set(attribute: str, convert: Callable[[Any], Any]) -> Callable[[click.Context, click.Parameter, Any], None]:
    def callback(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
        app = ctx.find_object(App)
        if app is not None and value:  # unset per-command flags leave the global choice alone
            setattr(app, attribute, convert(value) if attribute != "verbosity" else app.verbosity + convert(value))
    return callback


F = TypeVar("F", bound=Callable[..., Any])


def output_options(command: F) -> F:
    """The global options, also accepted after the command name (`aidlc validate --repo X --format json`)."""
    options = [
        click.option("--repo", metavar="PATH", expose_value=False, callback=_set("repo", str),
                     help="Repository root (default: the nearest folder up with aidlc.yaml, a memory bank, "
                          "an aidlc-docs folder or .git)."),
        click.option("--format", "output_format", type=click.Choice(["text", "json"]), expose_value=False,
                     callback=_set("output_format", str), help="json: exactly one JSON document on stdout."),
        click.option("--no-color", is_flag=True, expose_value=False, callback=_set("color", lambda _v: False),
                     help="No ANSI colour (also NO_COLOR)."),
        click.option("-q", "--quiet", count=True, expose_value=False, callback=_set("verbosity", lambda v: -v),
                     help="Less output."),
        click.option("-v", "--verbose", count=True, expose_value=False, callback=_set("verbosity", int),
                     help="More output."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def write_output(path: Path, text: str, option: str, again: str) -> None:
    """Write a file a person named on the command line (`option`, e.g. --html). Missing folders on the way are
    made: naming the file there asks for them. A path that cannot be written is a usage error (exit 2) naming
    it, with `again`, the command to run again elsewhere (`aidlc ci --sarif PATH`); nothing is half written."""
    # Every command imports this file; only the ones writing a file a person named need the writer.
    from aidlc.bank.write import NotWritten, atomic_write

    target = path.absolute()
    try:
        atomic_write(target, text, target.parent)
    except AidlcError as exc:
        in_the_way = next((folder for folder in target.parents if folder.exists() and not folder.is_dir()), None)
        why = f"cannot be written ({exc.reason})" if isinstance(exc, NotWritten) else exc.message
        if in_the_way is not None:
            why = f"cannot be written ({in_the_way} is a file, not a folder)"
        raise UsageError(f"{option} {path}: {why}; nothing was written there",
                         [f"{again}    # a path in a folder you can write"]) from None


def wants_color(stream: Any, no_color_flag: bool = False, env: Mapping[str, str] | None = None) -> bool:
    """Colour for `stream`: --no-color, then NO_COLOR (when not empty, no-color.org), then FORCE_COLOR or
    CLICOLOR_FORCE (when not empty; CLICOLOR_FORCE=0 forces nothing), then TERM=dumb; else only on a terminal."""
    env = os.environ if env is None else env
    if no_color_flag or env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR") or env.get("CLICOLOR_FORCE", "0") != "0":
        return True
    if env.get("TERM") == "dumb":
        return False
    return bool(stream.isatty())


def discover_root(start: Path) -> Path:
    """The nearest folder up from `start` with aidlc.yaml, a memory bank (a memory-bank/ of Cline's notes is none),
    an aidlc-docs folder or a .git: the repo to work on (a monorepo's part may keep its own records:
    `backend/aidlc-docs/`)."""
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).exists() or is_bank(folder / DEFAULT_BANK) \
                or (folder / DEFAULT_DOCS).is_dir() or (folder / ".git").exists():
            return folder
    return start


def _shown_bytes(exc: UnicodeError) -> tuple[str, int]:
    """The streams' error handler: what cannot be written (a lone surrogate from a non-UTF-8 name) as \\xNN."""
    if not isinstance(exc, UnicodeEncodeError):  # output streams only ever encode
        raise exc
    return shown(exc.object[exc.start:exc.end]), exc.end


def run_safely(command: click.Command) -> None:
    """Run the click command; user errors print a message and next steps, never a traceback."""
    wants_json = "--format=json" in sys.argv or _pair(sys.argv, "--format", "json")
    # A path holding bytes that are not UTF-8 (a folder name) is shown with \xNN, never a crash.
    codecs.register_error("aidlc-shown", _shown_bytes)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="aidlc-shown")
    sys.stdout = ReaderMayLeave(sys.stdout)
    try:
        # Without standalone mode click returns the code of an Exit instead of raising it.
        code = command.main(standalone_mode=False, prog_name="aidlc")
        sys.stdout.flush()  # here, where a closed pipe is caught below, not at interpreter exit
        sys.exit(code if isinstance(code, int) else 0)
    except AidlcError as exc:  # raised before a command ran (e.g. while parsing)
        report_error(exc.message, exc.next_steps, exc.exit_code, wants_json)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        hint = _usage_hint(exc)
        code = 2 if isinstance(exc, click.UsageError) else exc.exit_code
        report_error(exc.format_message(), hint, code, wants_json)
        sys.exit(code)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)


def _usage_hint(exc: click.ClickException) -> list[str]:
    """Next steps for a command line click refused: its help; for an unknown option where the command takes a name,
    how to pass a name that starts with '-' (an aidlc-docs unit folder `-x`): last, after `--`."""
    ctx = getattr(exc, "ctx", None)
    if ctx is None:
        return ["aidlc --help", "aidlc COMMAND --help"]
    if isinstance(ctx.command, click.Group):
        return [f"{ctx.command_path} --help", f"{ctx.command_path} COMMAND --help"]
    hint = [f"{ctx.command_path} --help"]
    takes_name = any(isinstance(param, click.Argument) for param in ctx.command.params)
    # `--bogus` is a mistyped option; `-x` may be a name: a unit folder of the aidlc-docs layout can be called so
    if isinstance(exc, click.NoSuchOption) and takes_name and not exc.option_name.startswith("--"):
        hint.append(f"{ctx.command_path} [OPTIONS] -- {arg(exc.option_name)}    # a name starting with '-' goes "
                    "last, after --")
    return hint


class ReaderMayLeave:
    """stdout whose reader may stop reading (`aidlc rules | head -1`): once the pipe is closed, the rest goes to
    /dev/null, so the command runs to its end and exits with its own code, never a BrokenPipeError."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            self._reader_left()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_left()

    def _reader_left(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())  # what is still buffered is flushed there, quietly
        os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _pair(argv: list[str], flag: str, value: str) -> bool:
    return any(a == flag and b == value for a, b in itertools.pairwise(argv))


def echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    """Print a line that may hold repository or model text: shown terminal-safe (aidlc/names.py)."""
    click.echo(terminal_safe(text), err=err, nl=nl)


MAX_ERROR = 1000  # characters of an error message: a person reads what it is and why, never a pasted value whole


def report_error(message: str, next_steps: list[str], code: int, wants_json: bool) -> None:
    """The message and next steps on stderr; with --format json, also the error document on stdout. A message
    quoting a value from the command line or a file (`--intent` given 5,000 digits) keeps its ends, not all of it."""
    message = shorten(message, MAX_ERROR)
    if wants_json:
        click.echo(terminal_safe(shown_json(json.dumps({"version": JSON_VERSION, "error": {
            "message": message, "exit_code": code, "next_steps": next_steps}}, ensure_ascii=False, indent=2))))
    color = wants_color(sys.stderr, "--no-color" in sys.argv)
    click.echo(Style(color)("error: ", "red") + terminal_safe(message), err=True, color=color)
    if next_steps:
        click.echo("Next steps:", err=True)
        for step in next_steps:
            click.echo(f"  {terminal_safe(step)}", err=True)


def can_prompt() -> bool:
    """Questions only for a person at a terminal, never in CI."""
    return sys.stdin.isatty() and sys.stdout.isatty() and not os.environ.get("CI")
