"""The JSON Schema sent to a server as `response_format`: the structure of the full one, without
the constraints local grammar engines choke on.

A server that constrains its output with a schema (llama.cpp, vLLM, Ollama) compiles it into a
grammar. llama.cpp turns `maxLength: n` (and `maxItems: n`) into n nested optional groups and refuses
any n above 1,000 (llama-cpp-python 0.3.36's server then dies: "number of rules that are going to be
repeated ... exceeds sane defaults"); it needs a `pattern` anchored with ^...$, knows few `format`s,
and builds one rule per branch of every union. So the server gets a relaxation of the full schema,
one that accepts every answer the full schema accepts, and the full pydantic validation still runs
on the answer and feeds every violation back (aidlc.llm.structured).

Kept: `type`, `properties`, `required`, `additionalProperties`, `items`, `prefixItems`, `enum`,
`const`, `$defs` and `$ref`, `description` (servers that read it guide the model with it), numeric
bounds (a handful of rules), one level of `anyOf`/`oneOf`/`allOf`.

Dropped or capped:
* `maxLength` / `maxItems` above the cap: dropped (a lower bound on a maximum would refuse good
  answers); below it they stay: a short field's bound (a title of 80 characters) is what stops a
  small model writing a paragraph there, while the text is generated.
* `minLength` / `minItems` above the cap: lowered to the cap (still a true lower bound).
* `pattern`, `format`, `title`, `default`, `examples` and any keyword not listed above: dropped.
  Titles and defaults are annotations; titles carry class names ("UnitDraft") a small model copies
  into its answer.
* `anyOf: [{"type": t}, {"type": "null"}]` (an optional scalar): `{"type": [t, "null"]}`, the same
  meaning without a union; a union nested inside another union: `{}` (anything; checked locally).

The caps (256 characters, 32 items) sit a factor of 4 below the measured limit of 1,000, so an
engine that counts a little differently, or a schema with several bounded fields, still compiles.
"""

from __future__ import annotations

from typing import Any

MAX_LENGTH_BOUND = 256  # string length bounds kept up to this
MAX_ITEMS_BOUND = 32  # array length bounds kept up to this

_UNIONS = ("anyOf", "oneOf", "allOf")
_SCHEMA_MAPS = ("properties", "$defs", "definitions")  # name -> schema
_SCHEMA_LISTS = ("prefixItems",)
_KEPT = {"type", "required", "enum", "const", "$ref", "description", "minimum", "maximum", "exclusiveMinimum",
         "exclusiveMaximum"}
_SCALARS = ("string", "integer", "number", "boolean")
_ANNOTATIONS = {"title", "description", "default", "examples"}
_UPPER_BOUNDS = {"maxLength": MAX_LENGTH_BOUND, "maxItems": MAX_ITEMS_BOUND}
_LOWER_BOUNDS = {"minLength": MAX_LENGTH_BOUND, "minItems": MAX_ITEMS_BOUND}


def server_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A new schema: `schema` relaxed for grammar engines (see the module docstring); `schema` is not changed."""
    return _node(schema, unions=0)


def _node(node: Any, unions: int) -> Any:
    if not isinstance(node, dict):
        return node  # `items: true` and the like
    if unions > 1:
        return {}
    flat = _without_null_union(node)
    if flat is not None:
        return _node(flat, unions)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _KEPT:
            out[key] = value
        elif key in _UPPER_BOUNDS:
            if isinstance(value, int) and value <= _UPPER_BOUNDS[key]:
                out[key] = value
        elif key in _LOWER_BOUNDS:
            if isinstance(value, int):
                out[key] = min(value, _LOWER_BOUNDS[key])
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _node(child, unions) for name, child in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_node(child, unions) for child in value]
        elif key in ("items", "additionalProperties"):
            out[key] = _node(value, unions)
        elif key in _UNIONS and isinstance(value, list):
            out[key] = [_node(child, unions + 1) for child in value]
    if "patternProperties" in node:  # dropped: its keys would now meet additionalProperties: false
        out.pop("additionalProperties", None)
    return out


def _without_null_union(node: dict[str, Any]) -> dict[str, Any] | None:
    """`{anyOf: [{type: t}, {type: null}]}` as `{type: [t, "null"]}`: no union, the same meaning in every
    engine. Only for a bare scalar: llama.cpp reads a list of types as a union of bare types, so a
    bound or a structure beside it would be lost there; those keep their one-level union."""
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not (isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches):
            continue
        other = branches[0] if branches[1] == {"type": "null"} else branches[1]
        if isinstance(other, dict) and other.get("type") in _SCALARS and set(other) <= _ANNOTATIONS | {"type"}:
            merged = {k: v for k, v in node.items() if k != key}
            return {**merged, **other, "type": [other["type"], "null"]}
    return None
