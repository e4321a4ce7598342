"""The evidence report as an in-toto Statement v1 (https://github.com/in-toto/attestation, spec v1): the
subjects are the files the bolt changed, as the head holds them, with their sha256; the predicate carries the
report's digest, its checks and its verification."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.errors import UsageError
from aidlc.model.evidence import EvidenceReport

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://aidlc.dev/evidence-report/v1"


def statement(repo: Path, report: EvidenceReport, digest: str) -> dict[str, Any]:
    subjects = []
    for change in report.changes:
        if change.status == "D":
            continue  # nothing at the head to name
        data = vcs.show_file(repo, report.head, change.path)
        if data is not None:
            subjects.append({"name": change.path, "digest": {"sha256": hashlib.sha256(data).hexdigest()}})
    return {
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "bolt": report.bolt, "base": report.base, "head": report.head, "risk": report.risk,
            "report": {"sha256": digest},
            "checks": [c.model_dump(mode="json", exclude={"excerpt"}) for c in report.checks],
            "verification": report.verification.model_dump(mode="json"),
        },
    }


def statement_text(repo: Path, report: EvidenceReport, digest: str) -> str:
    """The statement as JSON text; a UsageError when it would have no subject (the spec asks for one)."""
    document = statement(repo, report, digest)
    if not document["subject"]:
        raise UsageError(f"--attest: bolt {report.bolt} changed no file its head holds, so a statement would have "
                         "no subject; nothing was written",
                         [f"aidlc walkthrough {report.bolt}    # the report alone"])
    return json.dumps(document, indent=2, sort_keys=True) + "\n"
