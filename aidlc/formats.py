"""The formats of the files and documents aidlc reads and writes, and their JSON Schemas.

The schemas are generated from the pydantic models (never written by hand). This registry sits
above every module it lists, so the models themselves point at nothing above them.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from aidlc.draft.proposals import PROPOSALS
from aidlc.model.artifacts import FRONT_MATTER_MODELS
from aidlc.model.ci import Baseline, CiReport
from aidlc.model.config import Config
from aidlc.model.events import Event
from aidlc.model.evidence import EvidenceReport
from aidlc.model.findings import ValidationReport
from aidlc.model.run import Plan, RunState, Span
from aidlc.model.status import DocsStatusReport, RecordsStatusReport, StatusReport
from aidlc.model.unit_evidence import UnitEvidenceReport
from aidlc.model.user_config import UserConfig

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _models() -> dict[str, type[BaseModel]]:
    models: dict[str, type[BaseModel]] = {name: model for name, model in FRONT_MATTER_MODELS.items()}
    models["config"] = Config
    models["user-config"] = UserConfig
    models["event"] = Event
    models["validate-report"] = ValidationReport
    models["status-report"] = StatusReport
    models["docs-status-report"] = DocsStatusReport  # aidlc status --format json on the aidlc-docs layout
    models["records-status-report"] = RecordsStatusReport  # the same on aidlc-workflows v2 intent records
    models["ci-report"] = CiReport
    models["ci-baseline"] = Baseline  # .aidlc-baseline.json
    models["run-state"] = RunState  # .aidlc/runs/<run-id>/state.json
    models["run-trace-span"] = Span  # one line of .aidlc/runs/<run-id>/trace.jsonl
    models["bolt-plan"] = Plan  # a model's answer at a bolt run's PLANNING
    models["evidence-report"] = EvidenceReport  # aidlc walkthrough BOLT --format json
    models["unit-evidence-report"] = UnitEvidenceReport  # aidlc walkthrough UNIT on the aidlc-docs layout
    models.update({f"draft-{level}": proposal for level, proposal in PROPOSALS.items()})  # a model's answers
    return models


def all_schemas() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema document."""
    schemas = {}
    for name, model in _models().items():
        schema = model.model_json_schema(mode="validation")
        schemas[f"{name}.schema.json"] = {"$schema": SCHEMA_DIALECT, "$id": f"aidlc:{name}", **schema}
    return schemas


def dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
