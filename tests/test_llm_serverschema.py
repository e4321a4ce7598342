"""The schema a server is sent keeps the structure and drops what grammar engines choke on; the prompt
states the answer's shape, not the raw schema; the full validation still runs locally."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aidlc.draft.proposals import PROPOSALS, RequirementsProposal
from aidlc.formats import all_schemas
from aidlc.llm.base import Message
from aidlc.llm.openai_provider import OpenAIProvider
from aidlc.llm.retry import RetryPolicy
from aidlc.llm.schemashape import shape
from aidlc.llm.serverschema import MAX_ITEMS_BOUND, MAX_LENGTH_BOUND, server_schema
from aidlc.llm.structured import complete_structured, strict_schema
from tests.openai_server import ScriptedServer, chat
from tests.test_new import build_chain

UNION_KEYS = ("anyOf", "oneOf", "allOf")
DROPPED = ("pattern", "format", "title", "default", "examples", "patternProperties", "propertyNames")


def walk(node: Any) -> list[dict[str, Any]]:
    """Every schema in a JSON Schema document (not the maps of names, such as `properties`)."""
    if not isinstance(node, dict):
        return []
    found = [node]
    for key in ("properties", "$defs", "patternProperties"):
        for child in (node.get(key) or {}).values():
            found += walk(child)
    for key in ("items", "additionalProperties"):
        found += walk(node.get(key))
    for key in (*UNION_KEYS, "prefixItems"):
        for child in node.get(key) or []:
            found += walk(child)
    return found


def assert_relaxed_for_grammars(sent: dict[str, Any]) -> None:
    for node in walk(sent):
        for key in ("maxLength", "minLength"):
            assert not isinstance(node.get(key), int) or node[key] <= MAX_LENGTH_BOUND, node
        for key in ("maxItems", "minItems"):
            assert not isinstance(node.get(key), int) or node[key] <= MAX_ITEMS_BOUND, node
        assert not set(node) & set(DROPPED), node


def assert_keeps_structure(full: Any, sent: Any, unions: int = 0) -> None:
    """Same types, required keys, enums, properties, items and definitions, path by path; only a union
    nested in a union may become `{}`, and only an optional scalar may become a list of types."""
    if not isinstance(full, dict):
        assert sent == full
        return
    if unions > 1:
        assert sent == {}
        return
    branches = next((full[k] for k in ("anyOf", "oneOf") if k in full), None)
    if isinstance(sent.get("type"), list) and branches is not None:  # flattened Optional[scalar]
        (other,) = [b for b in branches if b != {"type": "null"}]
        assert sorted(sent["type"]) == sorted([other["type"], "null"])
        return
    for key in ("type", "required", "enum", "const", "$ref"):
        assert sent.get(key) == full.get(key), (key, full, sent)
    for key in ("properties", "$defs"):
        assert set(sent.get(key) or {}) == set(full.get(key) or {})
        for name, child in (full.get(key) or {}).items():
            assert_keeps_structure(child, sent[key][name], unions)
    for key in ("items", "additionalProperties"):
        if key in full and not (key == "additionalProperties" and "patternProperties" in full):
            assert_keeps_structure(full[key], sent[key], unions)
    for key in UNION_KEYS:
        if key in full:
            assert len(sent[key]) == len(full[key])
            for child, sent_child in zip(full[key], sent[key], strict=True):
                assert_keeps_structure(child, sent_child, unions + 1)


@pytest.mark.parametrize("name", sorted(all_schemas()))
def test_every_shipped_schema_keeps_its_structure_and_loses_what_grammars_refuse(name: str) -> None:
    full = all_schemas()[name]
    sent = server_schema(full)
    jsonschema.Draft202012Validator.check_schema(sent)
    assert_relaxed_for_grammars(sent)
    assert_keeps_structure(full, sent)
    assert json.dumps(full) == json.dumps(all_schemas()[name])  # the full schema is not changed


@pytest.mark.parametrize("level", sorted(PROPOSALS))
def test_draft_schemas_as_sent_keep_every_required_key_and_enum(level: str) -> None:
    full, _strict = strict_schema(PROPOSALS[level])
    sent = server_schema(full)
    assert_relaxed_for_grammars(sent)
    assert_keeps_structure(full, sent)
    required = sorted(json.dumps(n["required"]) for n in walk(full) if isinstance(n.get("required"), list))
    enums = sorted(json.dumps(n["enum"]) for n in walk(full) if isinstance(n.get("enum"), list))
    assert required and (enums or level == "units")  # units have no fixed set of values
    assert sorted(json.dumps(n["required"]) for n in walk(sent) if isinstance(n.get("required"), list)) == required
    assert sorted(json.dumps(n["enum"]) for n in walk(sent) if isinstance(n.get("enum"), list)) == enums


def test_the_requirements_schema_loses_its_long_bounds_and_keeps_the_short_ones() -> None:
    sent = server_schema(strict_schema(RequirementsProposal)[0])
    draft = sent["$defs"]["RequirementDraft"]["properties"]
    assert draft["description"] == {"type": "string"}  # maxLength 1200 crashed llama.cpp's server
    assert draft["title"] == {"type": "string", "minLength": 3, "maxLength": 120}
    assert draft["acceptance_criteria"]["items"] == {"type": "string", "minLength": 8, "description": (
        "one binary outcome: **Given** ..., **When** ..., **Then** ...")}  # 400: dropped
    assert draft["acceptance_criteria"]["maxItems"] == 8 and sent["properties"]["requirements"]["maxItems"] == 20


def test_optional_scalars_flatten_nested_unions_open_and_large_minimums_are_lowered() -> None:
    full = {"type": "object", "properties": {
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Note"},
        "short": {"anyOf": [{"type": "string", "maxLength": 20}, {"type": "null"}]},
        "deep": {"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"type": "boolean"}]},
        "many": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$", "format": "hostname"},
                 "minItems": 100, "maxItems": 1000},
        "long": {"type": "string", "minLength": 2000},
        "tags": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False},
    }}
    sent = server_schema(full)["properties"]
    assert sent["note"] == {"type": ["string", "null"]}
    assert sent["short"] == {"anyOf": [{"type": "string", "maxLength": 20}, {"type": "null"}]}  # bound kept
    assert sent["deep"] == {"anyOf": [{"anyOf": [{}, {}]}, {"type": "boolean"}]}
    assert sent["many"] == {"type": "array", "items": {"type": "string"}, "minItems": MAX_ITEMS_BOUND}
    assert sent["long"] == {"type": "string", "minLength": MAX_LENGTH_BOUND}
    assert sent["tags"] == {"type": "object"}  # x-keys stay allowed
    assert_keeps_structure(full, server_schema(full))


# -- relaxation: every answer the full schema takes, the server's schema takes too ---------------------------

def schema_and_answer(depth: int = 0) -> st.SearchStrategy[tuple[dict[str, Any], Any]]:
    """A random schema of the kinds pydantic writes, with an answer valid against it by construction."""
    @st.composite
    def string(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
        low = draw(st.integers(0, 300))
        high = draw(st.integers(low, 1500))
        node: dict[str, Any] = {"type": "string", "minLength": low, "maxLength": high, "title": "Text"}
        if draw(st.booleans()):
            node["pattern"] = "^[a-z ]*$"
            return node, draw(st.from_regex(r"\A[a-z ]*\Z").filter(lambda s: low <= len(s) <= high)
                              | st.just("a" * low))
        return node, draw(st.text(min_size=low, max_size=min(high, low + 20)))

    @st.composite
    def enum(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
        values = draw(st.lists(st.sampled_from(["low", "high", "FR", "NFR", "must"]), min_size=1, unique=True))
        return {"type": "string", "enum": values}, draw(st.sampled_from(values))

    leaves = st.one_of(string(), enum(), st.integers().map(lambda n: ({"type": "integer"}, n)))
    if depth >= 3:
        return leaves
    inner = schema_and_answer(depth + 1)

    @st.composite
    def array(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
        item, _ = draw(inner)
        low = draw(st.integers(0, 40))
        high = draw(st.integers(low, 60))
        answers = [draw(inner.filter(lambda pair, item=item: pair[0] == item))[1]
                   for _ in range(draw(st.integers(low, min(high, low + 2))))] if low <= 2 else None
        if answers is None:  # many items: all the same valid one
            pair = draw(inner)
            item, answers = pair[0], [pair[1]] * low
        return {"type": "array", "items": item, "minItems": low, "maxItems": high}, answers

    @st.composite
    def obj(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
        fields = draw(st.dictionaries(st.sampled_from(["title", "units", "description", "kind", "items"]), inner,
                                      min_size=1, max_size=3))
        required = [name for name in fields if draw(st.booleans())]
        node = {"type": "object", "properties": {k: v[0] for k, v in fields.items()}, "required": required,
                "additionalProperties": False}
        return node, {k: v[1] for k, v in fields.items() if k in required or draw(st.booleans())}

    @st.composite
    def union(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
        first, second = draw(inner), draw(inner)
        return {"anyOf": [first[0], second[0], {"type": "null"}]}, draw(st.sampled_from([first[1], second[1], None]))

    @st.composite
    def optional(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
        node, answer = draw(leaves)
        return {"anyOf": [node, {"type": "null"}], "default": None}, draw(st.sampled_from([answer, None]))

    return st.one_of(leaves, array(), obj(), union(), optional())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(schema_and_answer())
def test_the_server_schema_accepts_every_answer_the_full_schema_accepts(pair: tuple[dict[str, Any], Any]) -> None:
    full, answer = pair
    jsonschema.Draft202012Validator(full).validate(answer)  # the generator's own promise
    sent = server_schema(full)
    jsonschema.Draft202012Validator(sent).validate(answer)
    assert_relaxed_for_grammars(sent)
    assert_keeps_structure(full, sent)


# -- what the server receives, and what the model reads ------------------------------------------------------

def provider(server: ScriptedServer) -> OpenAIProvider:
    return OpenAIProvider("test-model", api_key="k", base_url=server.url, timeout_s=10,
                          retry=RetryPolicy(sleep=lambda _s: None, rng=random.Random(1)))


REQUIREMENT = {"kind": "FR", "title": "Refund a payment", "priority": "must", "description": "",
               "acceptance_criteria": ["**Given** a paid order, **When** support refunds it, **Then** the card is "
                                       "credited within 5 days"]}


def test_the_server_gets_the_relaxed_schema_and_the_long_bound_is_still_checked_here(server: ScriptedServer) -> None:
    too_long = {**REQUIREMENT, "description": "x" * 1300}
    server.push(chat(json.dumps({"requirements": [too_long]})), chat(json.dumps({"requirements": [REQUIREMENT]})))
    result = complete_structured(provider(server), [Message("user", "propose requirements")], RequirementsProposal)
    assert result.attempts == 2 and result.value.requirements[0].title == "Refund a payment"
    first, second = server.bodies()
    sent = first["response_format"]["json_schema"]["schema"]
    assert sent == server_schema(strict_schema(RequirementsProposal)[0])
    assert '"maxLength": 1200' not in json.dumps(first) and '"pattern"' not in json.dumps(first)
    feedback = second["messages"][-1]["content"]
    assert "requirements.0.description: String should have at most 1200 characters" in feedback


def test_the_prompt_states_the_shape_without_class_titles_or_schema_keywords(server: ScriptedServer) -> None:
    server.push(chat("no JSON here"), chat("none"), chat("nor here"), chat(json.dumps({"requirements": [REQUIREMENT]})))
    complete_structured(provider(server), [Message("user", "propose requirements")], RequirementsProposal, attempts=4)
    asked = server.bodies()[0]["messages"][-1]["content"]
    assert shape(strict_schema(RequirementsProposal)[0]) in asked
    assert '"description": string,  // optional, default ""; at most 1200 characters' in asked
    assert '"priority": "must" | "should" | "could",' in asked
    last = server.bodies()[3]["messages"][-1]["content"]  # the last attempt repeats the shape
    assert last.startswith("LAST ATTEMPT") and shape(strict_schema(RequirementsProposal)[0]) in last
    for text in (asked, last):
        for word in ("RequirementDraft", "RequirementsProposal", "$defs", "$ref", '"properties"', '"type"'):
            assert word not in text


def test_draft_requirements_sends_a_schema_llama_cpp_can_compile(repo: Path, server: ScriptedServer) -> None:
    """The command that killed llama.cpp's server: what it sends has no bound above the cap."""
    build_chain(repo)
    server.push(chat(json.dumps({"requirements": [REQUIREMENT]})))
    proc = subprocess.run([sys.executable, "-m", "aidlc", "--repo", str(repo), "draft", "requirements", "1",
                           "--base-url", server.url], capture_output=True, text=True,
                          env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(repo), "CI": "1"})
    assert proc.returncode == 0, proc.stderr
    (body,) = server.bodies()
    assert body["response_format"]["type"] == "json_schema"
    sent = body["response_format"]["json_schema"]["schema"]
    assert_relaxed_for_grammars(sent)
    assert set(sent["$defs"]["RequirementDraft"]["required"]) == {"kind", "title", "priority", "acceptance_criteria"}
    assert sent["$defs"]["Priority"]["enum"] == ["must", "should", "could"]
