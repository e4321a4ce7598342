"""aidlc.yaml: the tool configuration. Every field has a default."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from aidlc.model.types import Risk

DEFAULT_MAX_ANSWER_BYTES = 1 << 20  # 1 MiB: a 4096-token answer is about 16 KiB
_MAX_NAME = 255  # bytes in one file name (NAME_MAX on Linux and macOS)
_MAX_FOLDER = 1024  # a records folder's path in the repository, far within PATH_MAX once the repository's is added


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMTarget(_Section):
    provider: Literal["openai", "anthropic", "replay"] = "openai"
    model: str = "gpt-4.1-mini"
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"


class LLMConfig(LLMTarget):
    fallback: list[LLMTarget] = Field(default_factory=list)
    max_answer_bytes: int = Field(default=DEFAULT_MAX_ANSWER_BYTES, ge=1024, le=1 << 30,
                                  description="the most bytes a model's answer may hold as it is read (its HTTP "
                                  "body); a larger answer is refused while it is read, never held whole")


class VerifyCommand(_Section):
    name: str
    # A command line, not a script: the longest a shell splits at once in well under a second (a script longer
    # than this belongs in a file the command runs).
    run: str = Field(max_length=32_768)
    timeout_s: int = Field(default=600, gt=0)
    junit: str | None = None
    env: list[str] = Field(default_factory=list, description="names of environment variables this check gets "
                           "besides the few every check gets (PATH, HOME, LANG, LC_*, TMPDIR, CI, VIRTUAL_ENV, ...): "
                           "a check runs code a model wrote, so a secret reaches it only when named here")

    @field_validator("name", "run", "junit")
    @classmethod
    def _no_nul(cls, value: str | None) -> str | None:
        if value is not None and "\x00" in value:  # no process argument and no path can hold one
            raise ValueError("holds a NUL character")
        return value


class Policy(_Section):
    max_steps: int = Field(default=25, gt=0)
    max_tokens: int = Field(default=120_000, gt=0)
    deadline_s: int = Field(default=900, gt=0)
    max_repairs: int = Field(default=3, ge=0)
    auto_approve_plan: list[Risk] = Field(default_factory=list)


class Governance(_Section):
    paths: list[str] = Field(default_factory=lambda: ["src/**"])
    bot_emails: list[str] = Field(default_factory=list, description="commit and decision identities that are "
                                  "agents, never people (compared without case)")
    require_signed_approvals: bool = Field(default=False, description="every human gate decision carries an SSH "
                                           "signature by a key memory-bank/allowed_signers lists for its email")
    require_signed_commits: bool = Field(default=False, description="every commit a pull request adds carries a "
                                         "signature (GPG, SSH or X.509): `aidlc ci --base` reports those that do not")


class Evidence(_Section):
    """What `aidlc walkthrough` counts as evidence."""

    test_patterns: list[str] = Field(
        default_factory=lambda: ["test_*.py", "*_test.py", "tests/**", "test/**", "*.test.ts", "*.test.js",
                                 "*.spec.ts", "*.spec.js", "*_test.go", "*Test.java"],
        description="globs of test files: a pattern without '/' matches a file name anywhere, one with '/' the "
                    "path from the repository root")
# `OWNER/REPO@REF` or `OWNER/REPO/PATH@REF` (a GitHub Action reference); nothing that could end the YAML value.
_ACTION = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[A-Za-z0-9_./-]+$"


class CiSettings(_Section):
    """How the workflow `aidlc init` writes installs aidlc: set one (aidlc docs/ci.md)."""

    action: str | None = Field(default=None, pattern=_ACTION, description="the aidlc GitHub Action to run, pinned "
                               "to a tag or commit, e.g. OWNER/aidlc@v0.1.0")
    install: str | None = Field(default=None, pattern=r"^[^\r\n]+$", description="a pip requirement to install "
                                "aidlc from, e.g. git+https://github.com/OWNER/aidlc@v0.1.0")


# The layouts a project keeps its AI-DLC records in: specs.md's memory bank, AWS aidlc-workflows' aidlc-docs folder.
RecordsLayout = Literal["memory-bank", "aidlc-docs"]


class Config(_Section):
    version: Literal[1] = 1
    layout: Literal["auto", "memory-bank", "aidlc-docs"] = Field(
        default="auto", description="how the project keeps its AI-DLC records: specs.md's memory bank, AWS "
        "aidlc-workflows' aidlc-docs folder, or auto (the memory bank when its folder exists, else aidlc-docs when "
        "its aidlc-state.md or audit.md does; both is an error until this chooses)")
    memory_bank: str = Field(default="memory-bank", description="the memory bank folder, relative to the repo")
    aidlc_docs: str = Field(default="aidlc-docs", description="the aidlc-docs folder, relative to the repo")
    llm: LLMConfig = Field(default_factory=LLMConfig)
    # Each check is a process run at every verify round, one after another: a list far past any project's is a
    # mistake, and would keep a run busy for hours before its first line of output.
    verify: list[VerifyCommand] = Field(default_factory=list, max_length=100)
    policy: Policy = Field(default_factory=Policy)
    governance: Governance = Field(default_factory=Governance)
    evidence: Evidence = Field(default_factory=Evidence)
    ci: CiSettings = Field(default_factory=CiSettings)

    @field_validator("memory_bank", "aidlc_docs")
    @classmethod
    def _inside_the_repo(cls, value: str) -> str:
        parts = PurePosixPath(value.replace("\\", "/")).parts
        # `./` (no part) is the repository itself: every file of it read as records
        if not value.strip() or not parts or PurePosixPath(value).is_absolute() or ".." in parts or ".git" in parts:
            raise ValueError("must be a folder inside the repository, e.g. memory-bank (not absolute, no '..', "
                             "not in .git)")
        if len(value) > _MAX_FOLDER or any(len(part.encode()) > _MAX_NAME for part in parts):
            raise ValueError(f"must be a folder a file system can name: at most {_MAX_NAME} bytes a name and "
                             f"{_MAX_FOLDER} characters in all")
        # One spelling of the folder: `aidlc-docs/`, `./aidlc-docs` and `aidlc-docs` name it alike (read as given,
        # `aidlc-docs/` made every path inside it one character short, and no rule ran)
        return PurePosixPath(*parts).as_posix()
