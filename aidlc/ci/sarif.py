"""SARIF 2.1.0 (OASIS): the findings for code scanning, with the whole rule catalogue as the tool's rules."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from aidlc import __version__
from aidlc.model.ci import CiReport
from aidlc.model.types import Severity
from aidlc.rules import CATALOGUE

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.info: "note"}


def document(report: CiReport) -> dict[str, Any]:
    codes = list(CATALOGUE)
    rules = [{"id": rule.code, "name": rule.code.title().replace("-", ""),
              "shortDescription": {"text": rule.summary},
              "help": {"text": f"{rule.summary}. Fix: {rule.fix}"},
              "defaultConfiguration": {"level": _LEVEL[rule.severity]},
              "properties": {"family": rule.family}} for rule in CATALOGUE.values()]
    results = []
    for finding in report.findings:
        region = {"region": {"startLine": finding.line}} if finding.line else {}
        uri = quote(report.prefix + finding.path, safe="/")  # from the top of the repository, as code scanning reads it
        results.append({
            "ruleId": finding.code, "ruleIndex": codes.index(finding.code), "level": _LEVEL[finding.severity],
            "message": {"text": f"{finding.message}\nfix: {finding.fix}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}, **region}}],
            "partialFingerprints": {"aidlcFinding/v1": finding.fingerprint},
            **({"baselineState": "unchanged" if finding.baseline == "known" else "new"} if report.baseline else {}),
            **({"properties": {"adopted": finding.adopted}} if finding.adopted else {}),
        })
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "aidlc", "version": __version__, "semanticVersion": __version__,
                            "rules": rules}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render(report: CiReport) -> str:
    return json.dumps(document(report), ensure_ascii=False, indent=2) + "\n"
