"""Front matter of every memory-bank artifact: the machine contract of each file.

Unknown keys are allowed and kept (``extra="allow"``): real memory banks carry
fields of their own and aidlc must never drop them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from aidlc.model.types import BoltStatus, BoltType, Priority, Risk, StoryStatus, Timestamp


class FrontMatter(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, use_enum_values=False)


class Project(FrontMatter):
    """memory-bank/project.yaml"""

    project_type: str = Field(description="kind of project, e.g. cli-tool, web-app, library")
    initialized_at: Timestamp
    name: str | None = None
    description: str | None = None


class Requirements(FrontMatter):
    """intents/NNN-slug/requirements.md (front matter is optional in older banks)."""

    intent: str | None = None
    phase: str | None = None
    status: str | None = None
    created: Timestamp | None = None
    updated: Timestamp | None = None


class UnitBrief(FrontMatter):
    """intents/NNN-slug/units/UUU-slug/unit-brief.md"""

    unit: str
    intent: str
    phase: str | None = None
    status: str | None = None
    created: Timestamp | None = None
    updated: Timestamp | None = None


class Story(FrontMatter):
    """intents/NNN-slug/units/UUU-slug/stories/SSS-slug.md"""

    id: str
    unit: str
    intent: str
    status: StoryStatus
    priority: Priority | None = None
    created: Timestamp | None = None
    assigned_bolt: str | None = None
    implemented: bool | None = None
    requirements: list[str] = Field(default_factory=list)


class StageRecord(FrontMatter):
    name: str
    completed: Timestamp | None = None
    artifact: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, data: Any) -> Any:
        # Banks in the wild also write a completed stage as `- plan: 2026-11-30T08:00:00Z`.
        if isinstance(data, dict) and len(data) == 1 and "name" not in data:
            ((name, completed),) = data.items()
            return {"name": name, "completed": completed}
        return data


class Bolt(FrontMatter):
    """bolts/<bolt-id>/bolt.md"""

    id: str
    unit: str
    intent: str
    type: BoltType
    status: BoltStatus
    stories: list[str] = Field(default_factory=list)
    created: Timestamp | None = None
    started: Timestamp | None = None
    completed: Timestamp | None = None
    current_stage: str | None = None
    stages_completed: list[StageRecord | str] = Field(default_factory=list)
    requires_bolts: list[str] = Field(default_factory=list)
    enables_bolts: list[str] = Field(default_factory=list)
    requires_units: list[str] = Field(default_factory=list)
    blocks: bool | None = None
    complexity: dict[str, Any] | None = None
    risk: Risk | None = None
    scope: list[str] = Field(default_factory=list, description="globs of files the bolt may change")


# The file kinds whose front matter aidlc reads, by schema name.
FRONT_MATTER_MODELS: dict[str, type[FrontMatter]] = {
    "project": Project,
    "requirements": Requirements,
    "unit-brief": UnitBrief,
    "story": Story,
    "bolt": Bolt,
}
