"""`aidlc mcp`: the Model Context Protocol server a coding agent takes aidlc's tools from (server.py), on the same
Python API as the CLI commands (documents.py). Needs the optional extra: pip install "aidlc[mcp]"."""
