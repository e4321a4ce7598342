"""JSON Schemas are generated from the models; the shipped copies must be current."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from aidlc.cli import cli
from aidlc.formats import all_schemas, dump
from tests.helpers import run_cli

SHIPPED = Path(__file__).resolve().parent.parent / "aidlc" / "schemas"


def test_shipped_schemas_are_current() -> None:
    generated = all_schemas()
    shipped = {p.name: p.read_text(encoding="utf-8") for p in SHIPPED.glob("*.schema.json")}
    assert set(shipped) == set(generated), "run: aidlc schema export aidlc/schemas"
    for name, schema in generated.items():
        assert shipped[name] == dump(schema), f"{name} is stale: run `aidlc schema export aidlc/schemas`"


def test_export_writes_valid_schemas(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["schema", "export", str(tmp_path / "out")])
    assert result.exit_code == 0
    story = json.loads((tmp_path / "out/story.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(story)
    validator = jsonschema.Draft202012Validator(story)
    good = {"id": "001-a", "unit": "u", "intent": "i", "status": "ready", "requirements": ["FR-1"], "x-own": 1}
    assert list(validator.iter_errors(good)) == []
    bad = {"id": "001-a", "unit": "u", "intent": "i", "status": "done"}
    assert [e.validator for e in validator.iter_errors(bad)] == ["enum"]
    report = json.loads((tmp_path / "out/validate-report.schema.json").read_text())
    assert report["$defs"]["Finding"]["properties"]["severity"] == {"$ref": "#/$defs/Severity"}
    assert report["$defs"]["Severity"]["enum"] == ["error", "warning", "info"]


def test_export_to_a_path_that_cannot_be_written_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("in the way\n")
    proc = run_cli("schema", "export", str(tmp_path / "a-file" / "schemas"), cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"error: schema export {tmp_path / 'a-file' / 'schemas'}/" in proc.stderr
    assert f"cannot be written ({tmp_path / 'a-file'} is a file, not a folder)" in proc.stderr
    assert "aidlc schema export PATH" in proc.stderr
