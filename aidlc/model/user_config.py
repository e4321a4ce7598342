"""The user-level config file: `$XDG_CONFIG_HOME/aidlc/config.yaml`, else `~/.config/aidlc/config.yaml`.

It is the user's, never a repository's: what it says about the LLM wins over any aidlc.yaml, and
it records which servers the user trusted, per repository, to receive which key (`aidlc llm trust`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from aidlc.model.config import LLMConfig


class TrustedServer(BaseModel):
    """One repository may send the key in `api_key_env` to `base_url` (as its aidlc.yaml asks)."""

    model_config = ConfigDict(extra="forbid")

    repository: str = Field(description="absolute path of the repository's root folder")
    root_commit: str | None = Field(
        default=None, description="the first commit of its history (none for a folder without git history): "
                                  "another repository later put at the same path is not trusted")
    base_url: str = Field(description="the server, as aidlc.yaml names it (a provider's own endpoint spelled out)")
    api_key_env: str = Field(description="the environment variable whose key may be sent there")
    trusted_at: datetime


class UserConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    llm: LLMConfig = Field(
        default_factory=LLMConfig,
        description="your own LLM settings: each key written here wins over the repository's aidlc.yaml "
                    "(flags and AIDLC_LLM_* variables win over both)")
    trusted: list[TrustedServer] = Field(default_factory=list, description="written by `aidlc llm trust`")
