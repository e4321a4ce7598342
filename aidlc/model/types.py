"""Field types shared by every file format."""

from __future__ import annotations

from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

# Error types raised here; the validator maps them to rule codes.
TIMESTAMP_NO_TZ = "timestamp_no_tz"
TIMESTAMP_INVALID = "timestamp_invalid"


def _timestamp(value: Any) -> datetime | date:
    if isinstance(value, str):
        text = value.strip()
        try:
            value = datetime.fromisoformat(text.replace("Z", "+00:00")) if "T" in text or " " in text \
                else date.fromisoformat(text)
        except ValueError:
            raise PydanticCustomError(
                TIMESTAMP_INVALID, "'{value}' is not an ISO 8601 timestamp", {"value": text}
            ) from None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise PydanticCustomError(
                TIMESTAMP_NO_TZ,
                "timestamp '{value}' has no time zone",
                {"value": value.isoformat()},
            )
        return value
    if isinstance(value, date):
        return value
    raise PydanticCustomError(TIMESTAMP_INVALID, "'{value}' is not an ISO 8601 timestamp", {"value": value})


def _timestamp_text(value: datetime | date) -> str:
    """A timestamp as JSON holds it, as pydantic writes one (UTC as `Z`). Said here because pydantic, serializing
    a union under a plain validator, warns about every value it writes."""
    text = value.isoformat()
    return text[:-6] + "Z" if isinstance(value, datetime) and text.endswith("+00:00") else text


# A point in time with a time zone (a bare date is tolerated and reported as a warning).
Timestamp = Annotated[
    datetime | date,
    PlainValidator(_timestamp),
    PlainSerializer(_timestamp_text, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "anyOf": [{"format": "date-time"}, {"format": "date"}]}),
]


def instant(value: object) -> datetime | None:
    """A timestamp (datetime, bare date or ISO 8601 text) as an aware datetime, to compare; a date
    is its midnight UTC and a time without a zone is read as UTC. None for anything else."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return None


class StoryStatus(StrEnum):
    draft = "draft"
    ready = "ready"
    in_progress = "in-progress"
    complete = "complete"
    blocked = "blocked"


class BoltStatus(StrEnum):
    planned = "planned"
    in_progress = "in-progress"
    complete = "complete"
    blocked = "blocked"


class Priority(StrEnum):
    must = "must"
    should = "should"
    could = "could"

    @classmethod
    def _missing_(cls, value: object) -> Priority | None:
        # Requirements documents write "Must"; stories write "must".
        return cls.__members__.get(str(value).lower())


class BoltType(StrEnum):
    simple = "simple-construction-bolt"
    ddd = "ddd-construction-bolt"
    spike = "spike-bolt"


class Risk(StrEnum):
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


class Severity(StrEnum):
    error = "error"
    warning = "warning"
    info = "info"
