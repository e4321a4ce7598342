"""Creating files from the jinja2 templates: `aidlc init` and `aidlc new`."""
