"""The user-level config file (aidlc.model.user_config): where it is, reading it, writing it.

    $XDG_CONFIG_HOME/aidlc/config.yaml, else ~/.config/aidlc/config.yaml

Found through the environment a command runs with (tests give their own): with neither variable
set there is no file. A missing file is an empty config; a broken one is a configuration error
naming the file and the line. Only `aidlc llm trust` writes it (comments are not kept).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError

from aidlc.bank import frontmatter
from aidlc.bank.config import key_line
from aidlc.bank.write import atomic_write
from aidlc.errors import AidlcError
from aidlc.llm.errors import LLMConfigError
from aidlc.llm.files import read_regular
from aidlc.model.user_config import UserConfig

HEADER = ("# aidlc: your own settings, never a repository's (written by `aidlc llm trust`; comments are not kept).\n"
          "# Schema: aidlc schema export DIR -> user-config.schema.json\n")


@dataclass
class UserFile:
    config: UserConfig = field(default_factory=UserConfig)
    path: Path | None = None

    @property
    def shown(self) -> str:
        """How messages name the file."""
        return str(self.path) if self.path else "the user config file (set HOME or XDG_CONFIG_HOME)"


def user_config_path(env: Mapping[str, str]) -> Path | None:
    base = env.get("XDG_CONFIG_HOME", "")
    if base and Path(base).is_absolute():  # the XDG spec says to ignore a relative one
        return Path(base) / "aidlc" / "config.yaml"
    home = env.get("HOME", "")
    return Path(home) / ".config" / "aidlc" / "config.yaml" if home else None


def load_user_config(env: Mapping[str, str]) -> UserFile:
    path = user_config_path(env)
    if path is None:
        return UserFile()
    fix = f"fix or delete {path}"
    try:
        data = read_regular(path, "the user config file", fix)
    except FileNotFoundError:
        return UserFile(path=path)
    except OSError as exc:
        raise LLMConfigError(f"{path}: cannot be read ({exc.strerror or exc})", [fix]) from None
    text, problem = frontmatter.decode(data, str(path))
    meta: object = None
    if problem is None and text is not None:
        meta, problem = frontmatter.parse_mapping(text)
    if problem is not None:
        raise LLMConfigError(f"{path}:{problem.line or 1}: {problem.message}", [fix])
    try:
        return UserFile(UserConfig.model_validate(meta), path)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        key = ".".join(str(part) for part in first["loc"])
        line = key_line(text or "", [str(part) for part in first["loc"] if isinstance(part, str)])
        raise LLMConfigError(f"{path}:{line}: '{key}': {first['msg']}", [fix]) from None


def save_user_config(user: UserFile) -> None:
    """Write the file atomically; only what was set in it is written (defaults stay nobody's choice)."""
    if user.path is None:
        raise LLMConfigError("there is no user config file to write: neither HOME nor XDG_CONFIG_HOME is set",
                             ["export HOME=/home/you   # or XDG_CONFIG_HOME, then rerun the command"])
    target = user.path.resolve()  # a dotfile manager's symbolic link is the user's own choice: write its target
    text = HEADER + yaml.safe_dump(user.config.model_dump(mode="json", exclude_unset=True), sort_keys=False,
                                   allow_unicode=True)
    try:
        atomic_write(target, text, target.parent)
    except AidlcError as exc:
        raise LLMConfigError(exc.message, exc.next_steps) from None
