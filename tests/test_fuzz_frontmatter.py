"""Property-based: random bytes and random YAML-ish front matter never make aidlc raise.

Fed to the front-matter reader (decode, split, parse), to the schema check of each artifact,
and through a whole `aidlc validate` of a bank built from them, rendered as text and as JSON,
under both YAML parsers: every outcome is data or a finding, never a traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aidlc.bank import frontmatter, yamlio
from aidlc.bank.config import load_config
from aidlc.bank.items import validate_front_matter
from aidlc.bank.loader import load_bank
from aidlc.model.artifacts import Bolt, Project, Requirements, Story, UnitBrief
from aidlc.report import validation as render
from aidlc.report.style import Style
from aidlc.rules import validate
from tests.helpers import BOLT1, PROJECT, REQUIREMENTS, STORY1, STORY2, UNIT_BRIEF, build_clean_bank

FUZZ = settings(deadline=None, max_examples=150, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BANK_FUZZ = settings(FUZZ, max_examples=40)  # each example loads and validates a whole bank

KEYS = ["id", "unit", "intent", "status", "priority", "created", "updated", "started", "completed", "assigned_bolt",
        "implemented", "requirements", "stories", "stages_completed", "requires_bolts", "enables_bolts",
        "requires_units", "type", "risk", "scope", "complexity", "phase", "name", "project_type", "blocks"]
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**30, max_value=10**60), st.floats(),
    TEXT, st.sampled_from(["draft", "complete", "in-progress", "must", "FR-1", "001-checkout", "2026-11-30",
                           "2026-11-30T08:00:00Z", "2026-13-45T99:00:00", "yes", "~", "010", ".nan"]),
    st.dates().map(date.isoformat),
    st.datetimes(timezones=st.just(timezone(timedelta(hours=2)))).map(datetime.isoformat),
)
STRUCTURES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.sampled_from(KEYS), TEXT), inner, max_size=4)),
    max_leaves=12,
)
META = st.dictionaries(st.sampled_from(KEYS), STRUCTURES, max_size=10)
# Pieces that make YAML interesting: indicators, anchors, tags, flow collections, odd characters.
TOKENS = st.sampled_from([": ", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "!!binary ", "!foo ", "? ", "|", ">",
                          "'", '"', "#", "\t", "\n", "\n  ", "---\n", "...\n", "%YAML 1.2\n", "\x00", "\x85",
                          "\u2028", "\ufeff", "\\", "\r\n", "9" * 40, "<<: *a\n"])


def dump(meta: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=60)


@st.composite
def front_matter(draw: st.DrawFn) -> str:
    """YAML text: a valid dump, a dump with random tokens spliced in, or tokens alone."""
    text = draw(st.one_of(META.map(dump), st.lists(TOKENS | TEXT, max_size=12).map("".join)))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(TOKENS) + text[at:]
    return text


BODY = st.lists(st.sampled_from([
    "# Story: x", "## Acceptance Criteria", "- [ ] **Given** a, **When** b, **Then** c", "- [x] done", "* [X] y",
    "**Related Requirements**: FR-1 / NFR-2", "### FR-1: Pay", "**Priority**: Must", "```", "~~~~", "---", "",
    "**Acceptance Criteria**:", "- FR-1.2: sub", "\t- [ ] tabbed", "text \r\x0b\x1c odd breaks",
]) | TEXT, max_size=12).map("\n".join)


@st.composite
def markdown_file(draw: st.DrawFn) -> bytes:
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return draw(st.binary(max_size=400))
    text = f"---\n{draw(front_matter())}---\n{draw(BODY)}\n" if choice < 3 else draw(front_matter())
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):  # a stray byte that is not UTF-8, somewhere
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe9", b"\xed\xa0\x80"])) + data[at:]
    return data


def _with(parser: str) -> str:
    if parser == "yaml-rs":
        pytest.importorskip("yaml_rs")
    return yamlio.use(parser)


@pytest.mark.parametrize("parser", yamlio.PARSERS)
@FUZZ
@given(data=st.binary(max_size=600) | markdown_file())
def test_the_front_matter_reader_never_raises(parser: str, data: bytes) -> None:
    before = yamlio.parser()
    try:
        _with(parser)
        text, problem = frontmatter.decode(data, "x.md")
        assert (text is None) != (problem is None)
        if text is None:
            return
        doc = frontmatter.split(text, "x.md")
        assert doc.problem is None or doc.problem.message
        if doc.meta is not None:
            assert isinstance(doc.meta, dict)
            for model in (Story, Bolt, UnitBrief, Requirements, Project):
                _instance, problems = validate_front_matter(model, doc.meta)
                assert all(problem.message for problem in problems)
            for key in doc.meta:
                doc.line_of(key if isinstance(key, str) else None)
    finally:
        yamlio.use(before)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_clean_bank(tmp_path_factory.mktemp("fuzz") / "repo").root


@pytest.mark.parametrize("parser", yamlio.PARSERS)
@BANK_FUZZ
@given(files=st.fixed_dictionaries({rel: markdown_file() for rel in (STORY1, STORY2, BOLT1, UNIT_BRIEF,
                                                                     REQUIREMENTS, PROJECT)}),
       keep=st.sets(st.sampled_from([STORY1, STORY2, BOLT1, UNIT_BRIEF, REQUIREMENTS, PROJECT])))
def test_validate_never_raises_on_a_bank_of_fuzzed_files(parser: str, clean: Path, files: dict[str, bytes],
                                                         keep: set[str]) -> None:
    before = yamlio.parser()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        shutil.copytree(clean, root, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        for rel, data in files.items():
            if rel not in keep:  # some files stay clean, so rules that need a sane neighbour run too
                (root / rel).write_bytes(data)
        try:
            _with(parser)
            report = validate(load_bank(root, load_config(root)))
            document = json.loads(render.render_json(report).encode("utf-8"))
            render.render_text(report, Style(False))
        finally:
            yamlio.use(before)
    assert document["summary"]["errors"] == sum(f["severity"] == "error" for f in document["findings"])


def test_the_cli_never_prints_a_traceback_on_fuzzed_files(tmp_path: Path) -> None:
    """One real `aidlc validate` process over a bank of many fuzzed stories, JSON and text."""
    bank = build_clean_bank(tmp_path / "repo")
    stories = bank.path(STORY1).parent
    examples: list[bytes] = []

    @settings(deadline=None, max_examples=60, database=None)
    @given(markdown_file())
    def collect(data: bytes) -> None:
        examples.append(data)

    collect()
    for number, data in enumerate(examples, start=3):
        (stories / f"{number:03d}-fuzz.md").write_bytes(data)
    for args in (("validate", "--format", "json"), ("validate",), ("status", "--format", "json")):
        env = {**os.environ, "NO_COLOR": "1"}
        env.pop("CI", None)
        proc = subprocess.run([sys.executable, "-m", "aidlc", *args], cwd=bank.root, capture_output=True, env=env,
                              timeout=300)
        assert proc.returncode in (0, 1), proc.stderr.decode("utf-8", "replace")
        assert b"Traceback" not in proc.stderr
        if "json" in args:
            json.loads(proc.stdout.decode("utf-8"))
