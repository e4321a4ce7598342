"""One meaning for YAML: yaml-rs and the PyYAML fallback read every fixture the same way.

The table is the meaning aidlc documents (docs/configuration.md, "What YAML means in aidlc's files"):
the core schema of YAML 1.2, timestamps as text, and every tag refused. Each row runs against both
parsers in this process, switched with `yamlio.use` (the fallback is the real code path of
platforms without a yaml-rs wheel, and of `AIDLC_YAML=pyyaml`).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aidlc.bank import frontmatter, yamlio
from aidlc.bank.frontmatter import ProblemKind
from tests.helpers import STORY1, Bank

REFUSED = object()  # the text is bad YAML for aidlc: a FILE-002 finding, never data

NAN = float("nan")
BILLION_LAUGHS = "".join(
    [f"{chr(97 + n)}: &{chr(97 + n)} [" + ", ".join([f"*{chr(96 + n)}"] * 10 if n else ["x"] * 10) + "]\n"
     for n in range(7)])

TABLE: list[tuple[str, str, Any]] = [
    # numbers: YAML 1.2 core, plus `_` separators and 0b (as yaml-rs reads them)
    ("leading-zero", "a: 010", {"a": 10}),
    ("leading-zero-9", "a: 09", {"a": 9}),
    ("octal", "a: 0o10", {"a": 8}),
    ("hex", "a: 0x1F", {"a": 31}),
    ("binary", "a: 0b101", {"a": 5}),
    ("separators", "a: 1_000", {"a": 1000}),
    ("plus", "a: +12", {"a": 12}),
    ("big", "a: 99999999999999999999", {"a": 99999999999999999999}),
    ("exponent", "a: 1e3", {"a": 1000.0}),
    ("float", "a: 1.5", {"a": 1.5}),
    ("dot-five", "a: -.5", {"a": -0.5}),
    ("inf", "a: .inf", {"a": math.inf}),
    ("minus-inf", "a: -.Inf", {"a": -math.inf}),
    ("nan", "a: .nan", {"a": NAN}),
    ("sexagesimal", "a: 1:30", {"a": "1:30"}),
    ("quoted-number", "a: '010'", {"a": "010"}),
    # booleans and null: only true/false; yes/no/on/off are words
    ("yes", "a: yes", {"a": "yes"}),
    ("no", "a: no", {"a": "no"}),
    ("on", "a: on", {"a": "on"}),
    ("off", "a: Off", {"a": "Off"}),
    ("y", "a: y", {"a": "y"}),
    ("true", "a: True", {"a": True}),
    ("false", "a: FALSE", {"a": False}),
    ("tilde", "a: ~", {"a": None}),
    ("null", "a: Null", {"a": None}),
    ("empty", "a:", {"a": None}),
    # timestamps are text; the models read ISO 8601 text (quoted or not: the same)
    ("date", "a: 2026-11-30", {"a": "2026-11-30"}),
    ("datetime-zone", "a: 2026-11-30T08:00:00Z", {"a": "2026-11-30T08:00:00Z"}),
    ("datetime-no-zone", "a: 2026-11-30T08:00:00", {"a": "2026-11-30T08:00:00"}),
    ("datetime-space", "a: 2026-11-30 08:00:00", {"a": "2026-11-30 08:00:00"}),
    ("fraction", "a: 2026-11-30T08:00:00.123456+01:00", {"a": "2026-11-30T08:00:00.123456+01:00"}),
    ("quoted-date", 'a: "2026-11-30"', {"a": "2026-11-30"}),
    ("time-of-day", "a: 08:00:00", {"a": "08:00:00"}),
    ("impossible-date", "a: 2026-02-30", {"a": "2026-02-30"}),
    # tags: refused, every one
    ("binary-tag", "a: !!binary aGVsbG8=", REFUSED),
    ("python-object", "a: !!python/object:os.system x", REFUSED),
    ("python-apply", "a: !!python/object/apply:os.system [echo hi]", REFUSED),
    ("local-tag", "a: !foo bar", REFUSED),
    ("str-tag", "a: !!str 10", REFUSED),
    ("int-tag", "a: !!int '10'", REFUSED),
    ("set-tag", "a: !!set {x}", REFUSED),
    ("non-specific-tag", "a: ! 10", REFUSED),
    ("verbatim-tag", "a: !<tag:yaml.org,2002:str> 10", REFUSED),
    ("tag-directive", "%TAG !e! tag:e.com,2000:\n---\na: !e!x 1", REFUSED),
    ("tag-in-a-list", "a: [1, !x 2]", REFUSED),
    ("bang-in-text", "a: Ship it! now", {"a": "Ship it! now"}),
    ("bang-quoted", "a: '!!binary'", {"a": "!!binary"}),
    # keys and documents
    ("duplicate-key", "a: 1\nb: 2\na: 3", REFUSED),
    ("duplicate-equal-keys", "1: a\n1.0: b", REFUSED),
    ("merge-key-is-a-key", "<<: {b: 1}\nc: 2", {"<<": {"b": 1}, "c": 2}),
    ("equals", "a: =", {"a": "="}),
    ("sequence-key", "? [a, b]\n: 1", {("a", "b"): 1}),
    ("mapping-key", "? {a: 1}\n: 2", {frozenset({("a", 1)}): 2}),
    ("unhashable-key", "? {a: [1]}\n: 2", REFUSED),
    ("documents", "---\na: 1\n---\nb: 2", [{"a": 1}, {"b": 2}]),
    ("anchors", "a: &x [1]\nb: *x", {"a": [1], "b": [1]}),
    ("billion-laughs", BILLION_LAUGHS, REFUSED),
    ("deep-nesting", "a: " + "[" * 5000 + "]" * 5000, REFUSED),
    ("huge-int", "a: " + "9" * 5000, REFUSED),
    # characters YAML does not allow, and the ones its two versions read differently
    ("bell", "a: x\x07", REFUSED),
    ("nul", "a: b\x00c", REFUSED),
    ("nul-and-a-bang", "a: b!\x00", REFUSED),  # read by the pure-Python loader, whose reader refuses it at once
    ("delete", "a: \x7f", REFUSED),
    ("c1-control", "a: \x9f", REFUSED),
    ("next-line", "a: x\x85y", REFUSED),
    ("line-separator", "a: x\u2028y", REFUSED),
    ("byte-order-mark", "\ufeffa: 1", {"a": 1}),
    ("non-ascii", "a: café ✓", {"a": "café ✓"}),
]


@pytest.fixture(params=yamlio.PARSERS)
def parser(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "yaml-rs":
        pytest.importorskip("yaml_rs")
    before = yamlio.parser()
    assert yamlio.use(request.param) == request.param
    yield request.param
    yamlio.use(before)


def _same(got: Any, expected: Any) -> bool:
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(got, float) and math.isnan(got)
    if isinstance(expected, dict):
        return isinstance(got, dict) and got.keys() == expected.keys() and all(
            _same(got[key], value) for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(got, list) and len(got) == len(expected) and all(map(_same, got, expected))
    return type(got) is type(expected) and got == expected


@pytest.mark.parametrize(("text", "expected"), [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_both_parsers_give_the_table_meaning(parser: str, text: str, expected: Any) -> None:
    if expected is REFUSED:
        with pytest.raises(yamlio.YAMLError) as caught:
            yamlio.load(text)
        assert str(caught.value).startswith("invalid YAML: ") and "\n" not in str(caught.value)
    else:
        assert _same(yamlio.load(text), expected)


def test_a_tag_is_a_file_002_finding_with_its_line(parser: str, bank: Bank) -> None:
    line = bank.add_key(STORY1, "note", "!!binary aGVsbG8=")
    found = bank.findings("AIDLC-FILE-002")
    assert [(f.path, f.line) for f in found] == [(STORY1, line)]
    assert "tags are not allowed (found !!binary)" in found[0].message


def test_timestamps_read_as_text_validate_as_timestamps(parser: str, bank: Bank) -> None:
    """Text timestamps reach the models, which read them: a bare date and a missing zone are still found."""
    bank.set_key(STORY1, "created", '"2026-11-30"')
    assert [f.path for f in bank.findings("AIDLC-SCHEMA-005")] == [STORY1]
    bank.set_key(STORY1, "created", "2026-11-30T08:00:00")
    assert [f.path for f in bank.findings("AIDLC-SCHEMA-004")] == [STORY1]
    bank.set_key(STORY1, "created", "2026-11-30T08:00:00.5+01:00")
    assert bank.findings() == []


PLAIN_SCALAR = st.text(alphabet="0123456789_.eE+-xXoObBaAfFinINltrueTRUE~:", min_size=1, max_size=12)


@settings(deadline=None, max_examples=400, database=None)
@given(PLAIN_SCALAR)
def test_plain_scalars_mean_the_same_to_both_parsers(value: str) -> None:
    """The PyYAML loader's resolver is a port of yaml-rs's: any plain scalar resolves alike."""
    yaml_rs = pytest.importorskip("yaml_rs")
    text = f"a: {value}\n"
    try:
        fast = yaml_rs.loads(text, parse_datetime=False)
    except (ValueError, TypeError):
        fast = REFUSED
    try:
        slow = yamlio._load_pyyaml(text)
    except (yamlio.YAMLError, yamlio.LoadError):
        slow = REFUSED
    if fast is REFUSED or slow is REFUSED:
        assert fast is slow, f"{text!r}: yaml-rs {fast!r}, PyYAML {slow!r}"
    else:
        assert _same(slow, fast), f"{text!r}: yaml-rs {fast!r}, PyYAML {slow!r}"


def test_the_setting_chooses_pyyaml_in_a_new_process() -> None:
    code = "from aidlc.bank import yamlio; print(yamlio.parser())"
    env = {**os.environ, yamlio.SETTING: "pyyaml"}
    chosen = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert chosen.stdout.strip() == "pyyaml"
    env.pop(yamlio.SETTING)
    default = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert default.stdout.strip() in yamlio.PARSERS


def test_a_bad_front_matter_line_is_the_same_under_both(parser: str) -> None:
    doc = frontmatter.split("---\nid: x\nstatus: draft\nid: y\n---\n", "s.md")
    assert doc.problem is not None and doc.problem.kind == ProblemKind.bad_yaml and doc.problem.line == 4
