"""Errors a user can act on. The CLI prints them without a traceback."""

from __future__ import annotations


class AidlcError(Exception):
    """A failure caused by input or environment, with the next commands to run."""

    exit_code = 1

    def __init__(self, message: str, next_steps: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.next_steps = next_steps or []


class UsageError(AidlcError):
    """Bad arguments or configuration (exit code 2)."""

    exit_code = 2
