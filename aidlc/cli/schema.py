"""aidlc schema export: write the JSON Schemas of every file format aidlc reads or writes."""

from __future__ import annotations

from pathlib import Path

import click

from aidlc.cli.app import App, output_options, write_output
from aidlc.formats import all_schemas, dump


@output_options
@click.group("schema")
def schema_group() -> None:
    """JSON Schemas of aidlc's file formats (generated from its models)."""


@schema_group.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@output_options
@click.pass_obj
def export_cmd(app: App, directory: Path) -> None:
    """Write one NAME.schema.json per format into DIRECTORY (made if missing)."""
    written = []
    for name, schema in all_schemas().items():
        write_output(directory / name, dump(schema), "schema export", "aidlc schema export PATH")
        written.append(str(directory / name))
    if app.json:
        app.emit_json({"written": written})
    else:
        for path in written:
            app.out(f"  + {path}")
        app.out(f"wrote {len(written)} schemas")
