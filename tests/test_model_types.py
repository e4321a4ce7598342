"""`Timestamp` as JSON holds it: the text pydantic writes for the same value, without pydantic's warning."""

from __future__ import annotations

import warnings
from datetime import UTC, date, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from aidlc.model.artifacts import Story

ZONES = st.sampled_from([UTC, timezone(timedelta(0)), timezone(timedelta(hours=2)),
                         timezone(timedelta(hours=-5, minutes=-30)), timezone(timedelta(hours=23, minutes=59))])
WHEN = st.datetimes(timezones=ZONES) | st.dates()


@settings(max_examples=200, deadline=None)
@given(WHEN)
def test_a_timestamp_is_written_as_pydantic_writes_its_value_and_without_a_warning(when: datetime | date) -> None:
    story = Story(id="001-a", unit="001-u", intent="001-i", status="draft", created=when)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        written = story.model_dump(mode="json")["created"]
        assert story.model_dump_json().count(f'"created":"{written}"') == 1
    kind = datetime if isinstance(when, datetime) else date
    assert written == TypeAdapter(kind).dump_python(when, mode="json")


def test_the_python_form_keeps_the_value() -> None:
    when = datetime(2026, 12, 2, 1, 33, 26, tzinfo=UTC)
    story = Story.model_validate({"id": "x", "unit": "u", "intent": "i", "status": "draft",
                                  "created": "2026-12-02T01:33:26Z"})
    assert story.created == when and story.model_dump()["created"] == when
    assert story.model_dump(mode="json")["created"] == "2026-12-02T01:33:26Z"
