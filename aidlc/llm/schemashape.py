"""How the answer's schema is shown to a model: the shape of the JSON, not the JSON Schema.

    {
      "units": [  // 1 to 12 items
        {
          "title": string,  // 3 to 80 characters
          "requirements": [string]  // at least 1 item; requirement IDs of this intent, e.g. FR-1
        }
      ]
    }

A small model copies what it reads, and a JSON Schema is full of words that look like data: class
titles ("UnitDraft"), `$defs`, `properties`, `type`, `string`. The shape shows only the keys an answer
has, each value's type, and every constraint of the full schema as a `//` note (lengths, counts,
allowed values, patterns, whether a key may be left out), references written out in place. It is not
JSON: an answer that copies it as it is does not parse and is sent back with the reason.

`schema_words()` is that vocabulary, for the callers that check what a model referred to: a reference
that is a word of the schema (a requirement id "description") is an echo of the schema, not a typo.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

# JSON Schema's own words, which a model may copy from a schema it was shown elsewhere.
SCHEMA_KEYWORDS = frozenset({
    "$defs", "$ref", "$schema", "additionalProperties", "allOf", "anyOf", "array", "boolean", "const", "default",
    "definitions", "description", "enum", "format", "integer", "items", "maxItems", "maxLength", "minItems",
    "minLength", "null", "number", "object", "oneOf", "pattern", "properties", "required", "schema", "string",
    "title", "type",
})

Line = tuple[str, str]  # (text, note)
INDENT = "  "


def shape(schema: dict[str, Any]) -> str:
    """The annotated skeleton of the JSON that `schema` (a JSON Schema with `$defs`) describes."""
    lines = _value(schema, schema.get("$defs", {}), ())
    return "\n".join(f"{text}  // {note}" if note else text for text, note in lines)


def shape_notes(schema: dict[str, Any]) -> frozenset[str]:
    """Each `//` note of `shape(schema)` ("1 to 20 items"), normalised as `schema_words` are: text a model
    copied from the shape into a value."""
    lines = _value(schema, schema.get("$defs", {}), ())
    return frozenset(_normal(part) for _text, note in lines for part in note.split("; ") if _normal(part))


def schema_objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every object of a JSON Schema document, each before its children (a caller may change it as it goes)."""
    if isinstance(node, dict):
        yield node
        for child in list(node.values()):
            yield from schema_objects(child)
    elif isinstance(node, list):
        for child in node:
            yield from schema_objects(child)


def schema_words(schema: dict[str, Any]) -> frozenset[str]:
    """Every property name, definition name and title in `schema`, and JSON Schema's keywords: normalised
    (`words_of`), so "UnitDraft", "unit_draft" and "unit-draft" are the same word."""
    found: set[str] = set(SCHEMA_KEYWORDS)
    for node in schema_objects(schema):
        for key in ("properties", "$defs"):
            found.update(node.get(key) or {})  # a JSON Schema node: free-form by nature, no model of aidlc's
        if isinstance(node.get("title"), str):
            found.add(node["title"])
    return frozenset(_normal(word) for word in found)


def is_schema_word(text: str, words: frozenset[str], *, whole: bool = False) -> bool:
    """Whether `text` is a word of the schema or, unless `whole`, made only of such words
    ("$defs/UnitDraft", "units[0].title"; "FR-1" is not: "FR" is no word of a schema)."""
    if _normal(text) in words:
        return True
    parts = re.findall(r"[A-Za-z_]+", text)
    return not whole and bool(parts) and all(_normal(part) in words for part in parts)


def _normal(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", word.lower())


def _value(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> list[Line]:
    """The lines of one value; the caller puts the key before the first and a comma after the last."""
    if not isinstance(node, dict) or not node:
        return [("any JSON value", "")]
    notes = _notes(node)
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            return [("{...}", _join("the same shape as the one it is inside", *notes))]
        lines = _value(defs.get(name, {}), defs, (*seen, name))
        return _noted(lines, notes)
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            return _noted(_union(node[key], defs, seen), notes)
    if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
        return _noted(_value(node["allOf"][0], defs, seen), notes)
    if "const" in node:
        return [(json.dumps(node["const"], ensure_ascii=False), _join(*notes))]
    if isinstance(node.get("enum"), list):
        return [(" | ".join(json.dumps(v, ensure_ascii=False) for v in node["enum"]), _join(*notes))]
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        return _noted(_object(node, defs, seen), notes)
    if kind == "array":
        return _array(node, defs, seen, notes)
    kinds = kind if isinstance(kind, list) else [kind or "any JSON value"]
    text = " | ".join("true | false" if k == "boolean" else str(k) for k in kinds)
    return [(text, _join(*notes))]


def _object(node: dict[str, Any], defs: dict[str, Any], seen: tuple[str, ...]) -> list[Line]:
    properties = node.get("properties") or {}
    required = set(node.get("required") or [])
    extra = node.get("additionalProperties")
    if not properties and isinstance(extra, dict):
        inner = _value(extra, defs, seen)
        return [("{", "any keys"), *_indented(_keyed('"<key>"', inner, last=True)), ("}", "")]
    if not properties:
        return [("{}" if extra is False else "object", "")]
    lines: list[Line] = [("{", "")]
    for n, (name, child) in enumerate(properties.items(), start=1):
        inner = _value(child, defs, seen)
        if name not in required:
            default = f", default {json.dumps(child['default'], ensure_ascii=False)}" if "default" in child else ""
            inner = _noted(inner, [f"optional{default}"], first=True)
        lines += _indented(_keyed(json.dumps(name, ensure_ascii=False), inner, last=n == len(properties)))
    return [*lines, ("}", "")]


def _array(node: dict[str, Any], defs: dict[str, Any], seen: tuple[str, ...], notes: list[str]) -> list[Line]:
    items = _value(node.get("items", {}), defs, seen)
    count = _range(node.get("minItems"), node.get("maxItems"), "item", "items")
    if len(items) == 1:
        text, note = items[0]
        return [(f"[{text}]", _join(count, f"each {note}" if note else "", *notes))]
    return [("[", _join(count, *notes)), *_indented(items), ("]", "")]


def _union(branches: list[Any], defs: dict[str, Any], seen: tuple[str, ...]) -> list[Line]:
    rendered = [_value(branch, defs, seen) for branch in branches]
    if all(len(lines) == 1 for lines in rendered):
        return [(" | ".join(lines[0][0] for lines in rendered), _join(*(lines[0][1] for lines in rendered)))]
    out: list[Line] = [("one of:", "")]
    for lines in rendered:
        out += _indented(lines)
    return out


def _keyed(key: str, lines: list[Line], *, last: bool) -> list[Line]:
    (first, note), *rest = lines
    keyed = [(f"{key}: {first}", note), *rest]
    if not last:
        text, note = keyed[-1]
        keyed[-1] = (f"{text},", note)
    return keyed


def _notes(node: dict[str, Any]) -> list[str]:
    notes = [
        _range(node.get("minLength"), node.get("maxLength"), "character", "characters"),
        _range(node.get("minimum"), node.get("maximum"), "", ""),
        f"matching the regular expression {node['pattern']}" if "pattern" in node else "",
        f"format {node['format']}" if "format" in node else "",
        node.get("description") or "",
    ]
    return [note for note in notes if note]


def _range(low: Any, high: Any, one: str, many: str) -> str:
    unit = f" {many}" if many else ""
    if low is not None and high is not None:
        return f"{low} to {high}{unit}" if low != high else f"exactly {low}{unit}"
    if low is not None:
        return f"at least {low}" + (f" {one if low == 1 else many}" if many else "")
    if high is not None:
        return f"at most {high}" + (f" {one if high == 1 else many}" if many else "")
    return ""


def _noted(lines: list[Line], notes: list[str], *, first: bool = False) -> list[Line]:
    """`notes` added to the line that carries a value's note: the first (its opening line)."""
    if not notes:
        return lines
    (text, note), *rest = lines
    joined = _join(*notes, note) if first else _join(note, *notes)
    return [(text, joined), *rest]


def _indented(lines: list[Line]) -> list[Line]:
    return [(INDENT + text, note) for text, note in lines]


def _join(*notes: str) -> str:
    return "; ".join(note for note in notes if note)
