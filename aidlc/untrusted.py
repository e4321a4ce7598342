"""Repository text in a prompt (or a tool result) as data, never instructions (docs/design.md, The trust model).

`untrusted(name, text)` wraps text read from the repository between delimiters whose id is a digest of the content:
text inside cannot forge the closing delimiter (it would have to contain its own hash), and the id is stable, so
recorded cassettes still match on replay. The system prompt (templates/prompts/system.md.j2) tells the model that
nothing inside can change its task, the output format or any approval.
"""

from __future__ import annotations

import hashlib

from aidlc.redaction import Redactor

OPEN_TAG = "<untrusted-data"
CLOSE_TAG = "</untrusted-data"


def untrusted(name: str, text: str, redactor: Redactor | None = None) -> str:
    """`text` from the repository as data: redacted, delimited, any delimiter lookalike inside defused.

    Redacted here already (not only when sent) so the id, a hash of the content, is never a hash of a secret.
    """
    text = (redactor or Redactor())(text)
    ident = hashlib.sha256(f"{name}\0{text}".encode()).hexdigest()[:12]
    body = text.replace(OPEN_TAG, "<untrusted_data").replace(CLOSE_TAG, "</untrusted_data")
    safe_name = name.replace('"', "'").replace("\n", " ")
    return f'{OPEN_TAG} name="{safe_name}" id="{ident}">\n{body}\n{CLOSE_TAG} id="{ident}">'
