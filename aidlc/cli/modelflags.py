"""The model options every command that asks a model takes, alike: draft, llm check, bolt start|resume,
walkthrough. One decorator declares them; the command receives them as one `ModelFlags`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from aidlc.cli.app import App

if TYPE_CHECKING:
    from aidlc.model.config import Config

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ModelFlags:
    """What the command line says of the model; None: not said (the environment and config files decide)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    record: str | None = None
    replay: str | None = None
    timeout_s: float | None = None

    def settings(self) -> dict[str, Any]:
        """The keyword arguments of aidlc.llm.factory.provider_from_config (and aidlc.llm.check.run_check)."""
        return asdict(self)

    def build(self, app: App, root: Path, on_degrade: Callable[[Any], None] | None = None,
              config: Config | None = None) -> Any:
        """The provider of the repository at `root` with these flags; a call that waits long says so on a
        terminal (aidlc.cli.waiting). `config`: aidlc.yaml as the command read it (else it is read here)."""
        # Loaded when the command runs: --help and shell completion import this file too.
        from aidlc.bank.config import load_config
        from aidlc.cli.waiting import shows_waiting
        from aidlc.llm.factory import provider_from_config

        return shows_waiting(app, provider_from_config(
            (config or load_config(root)).llm, **self.settings(), root=root,
            on_degrade=on_degrade or (lambda notice: app.note(f"degraded: {notice.reason}"))))

    def builder(self, app: App, root: Path, config: Config | None = None) -> Callable[[], Any]:
        """The provider, built only when a run first asks the model (resuming at a gate needs none)."""
        return lambda: self.build(app, root, config=config)


_OPTIONS = [
    click.option("--provider", type=click.Choice(["openai", "anthropic", "replay"]),
                 help="Override llm.provider (also AIDLC_LLM_PROVIDER)."),
    click.option("--model", help="Override llm.model (also AIDLC_LLM_MODEL)."),
    click.option("--base-url", help="Override llm.base_url, e.g. http://localhost:11434/v1 (also AIDLC_LLM_BASE_URL)."),
    click.option("--api-key-env", metavar="NAME", help="The variable that holds the key (also AIDLC_LLM_API_KEY_ENV)."),
    click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), help="Seconds per model call "
                 "(default 120; also AIDLC_LLM_TIMEOUT)."),
    click.option("--record", type=click.Path(dir_okay=False), help="Append the answers to this cassette "
                 "(also AIDLC_LLM_RECORD)."),
    click.option("--replay", type=click.Path(dir_okay=False), help="Answer from this cassette only, no network "
                 "(also AIDLC_LLM_REPLAY)."),
]
_NAMES = tuple(ModelFlags.__dataclass_fields__)


def model_options(command: F) -> F:
    """Declare the model options on `command`, which gets them as `model_flags: ModelFlags`."""

    @functools.wraps(command)
    def taking_flags(*args: Any, **kwargs: Any) -> Any:
        flags = ModelFlags(**{name: kwargs.pop(name) for name in _NAMES})
        if flags.record and flags.replay:
            raise click.UsageError("--record and --replay exclude each other")
        return command(*args, model_flags=flags, **kwargs)

    for option in reversed(_OPTIONS):
        taking_flags = option(taking_flags)
    return taking_flags  # type: ignore[return-value]  # click's decorators keep the signature
