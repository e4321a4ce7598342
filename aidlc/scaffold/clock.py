"""The time written into new artifacts: UTC, to the second."""

from __future__ import annotations

from datetime import UTC, datetime

from aidlc.bank.write import yaml_scalar


def now() -> str:
    """Now, as it is written in YAML front matter."""
    return yaml_scalar(now_utc())


def now_utc() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
