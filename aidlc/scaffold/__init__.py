"""Creating files from the jinja2 templates: `aidlc init` and `aidlc new`."""

# The intent statement `aidlc new intent` writes when none is given: a requirements gate refuses it.
STATEMENT_PLACEHOLDER = "Why this intent exists, for whom, and what success looks like."
