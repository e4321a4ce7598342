"""What the model is asked to answer when it drafts the next level of an intent.

These models are the wire format of `aidlc draft`: the JSON Schema the model is held to is
generated from them, and a validated proposal is written through the same creator as
`aidlc new`, so a draft can never hold a shape the memory bank does not accept.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from aidlc.model.types import BoltType, Priority, Risk

Level = Literal["requirements", "units", "stories", "bolts"]

# The gate a person decides to accept each level (docs/design.md, Gates).
GATE_OF: dict[str, str] = {"requirements": "requirements", "units": "units", "stories": "stories",
                           "bolts": "bolt-plan"}

CriterionText = Annotated[str, Field(min_length=8, max_length=400,
                                     description="one binary outcome: **Given** ..., **When** ..., **Then** ...")]


class _Draft(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RequirementDraft(_Draft):
    kind: Literal["FR", "NFR"]
    title: str = Field(min_length=3, max_length=120)
    priority: Priority
    description: str = Field(default="", max_length=1200)
    acceptance_criteria: list[CriterionText] = Field(min_length=1, max_length=8)


class RequirementsProposal(_Draft):
    requirements: list[RequirementDraft] = Field(min_length=1, max_length=20)


class UnitDraft(_Draft):
    title: str = Field(min_length=3, max_length=80)
    purpose: str = Field(min_length=10, max_length=800)
    requirements: list[str] = Field(min_length=1, description="requirement IDs of this intent, e.g. FR-1")


class UnitsProposal(_Draft):
    units: list[UnitDraft] = Field(min_length=1, max_length=12)


class StoryDraft(_Draft):
    unit: str = Field(description="an existing unit folder name of this intent")
    title: str = Field(min_length=3, max_length=100)
    as_a: str = Field(min_length=2, max_length=80)
    so_that: str = Field(min_length=3, max_length=200)
    priority: Priority
    requirements: list[str] = Field(min_length=1, description="requirement IDs of this intent")
    acceptance_criteria: list[CriterionText] = Field(min_length=1, max_length=8)


class StoriesProposal(_Draft):
    stories: list[StoryDraft] = Field(min_length=1, max_length=30)


class BoltDraft(_Draft):
    unit: str = Field(description="an existing unit folder name of this intent")
    stories: list[str] = Field(min_length=1, description="story file names (without .md) of that unit")
    type: BoltType = BoltType.simple
    risk: Risk
    objective: str = Field(min_length=10, max_length=600)
    scope: list[str] = Field(default_factory=list, description="globs of files the bolt may change")
    requires: list[str] = Field(default_factory=list,
                                description="ids of existing bolts, or #N for the N-th bolt of this proposal")


class BoltsProposal(_Draft):
    bolts: list[BoltDraft] = Field(min_length=1, max_length=12)


PROPOSALS: dict[str, type[BaseModel]] = {
    "requirements": RequirementsProposal,
    "units": UnitsProposal,
    "stories": StoriesProposal,
    "bolts": BoltsProposal,
}
