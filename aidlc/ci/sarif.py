"""SARIF 2.1.0 (OASIS): the findings for code scanning, with the whole rule catalogue as the tool's rules.

Each rule carries what GitHub code scanning reads: `fullDescription`, `help` (the rule's fix, as text and Markdown),
`helpUri`, `properties.tags`, `properties.precision` and `properties.problem.severity`. Every result points at a
file that exists.

`helpUri` is the rule's row in the rule catalogue (docs/rules.md) at this version's tag, under the repository the
installed package names as its home (`[project.urls] Repository` in pyproject.toml). A package that names no home gets
no `helpUri` and no `informationUri`: a link is written only where it leads somewhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aidlc import __version__
from aidlc.model.ci import CiFinding, CiReport
from aidlc.model.types import Severity
from aidlc.rules import every_rule
from aidlc.rules.catalogue import Rule

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.info: "note"}
_PROBLEM = {Severity.error: "error", Severity.warning: "warning", Severity.info: "recommendation"}


def anchor(code: str) -> str:
    """The id of the rule's row in the rule catalogue, docs/rules.md (`<a id="...">`)."""
    return code.lower()


def published_home() -> str | None:
    """The repository the installed aidlc names as its home in its package metadata, if any."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("aidlc").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    named = dict(url.split(", ", 1) for url in urls if ", " in url)
    home = named.get("Repository") or named.get("Homepage")
    return home.rstrip("/") if home and home.startswith("https://") else None


def help_uri(home: str, code: str) -> str:
    return f"{home}/blob/v{__version__}/docs/rules.md#{anchor(code)}"


def _rule(rule: Rule, home: str | None) -> dict[str, Any]:
    described = rule.summary[:1].upper() + rule.summary[1:] + "."
    uri = help_uri(home, rule.code) if home else None
    link = f"\n\n[{rule.code} in the rule catalogue]({uri})" if uri else ""
    return {
        "id": rule.code, "name": rule.code.title().replace("-", ""),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": described},
        **({"helpUri": uri} if uri else {}),
        "help": {"text": f"{described} Fix: {rule.fix}",
                 "markdown": f"{described}\n\n**Fix:** {rule.fix}{link}"},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        # Each rule checks a fact of the files or of the history; none is a guess.
        "properties": {"tags": ["aidlc", "governance", rule.family], "precision": "very-high",
                       "problem.severity": _PROBLEM[rule.severity], "family": rule.family},
    }


def _location(root: Path, prefix: str, finding: CiFinding) -> tuple[dict[str, Any], str | None]:
    """The finding's file, or (a finding about a file that does not exist, such as a missing requirements.md)
    the nearest file that does: the first in its folder, else in the folder above. With it, what is missing."""
    rel = finding.path
    if not (root / rel).is_file():
        folder = (root / rel).parent
        while not (folder.is_dir() and _first_file(folder)) and root in folder.parents:
            folder = folder.parent
        first = _first_file(folder) if folder.is_dir() else None
        if first is not None:
            missing = rel
            rel = first.relative_to(root).as_posix()
            return _physical(prefix + rel, None), missing
    return _physical(prefix + rel, finding.line), None


def _first_file(folder: Path) -> Path | None:
    return next((path for path in sorted(folder.iterdir()) if path.is_file() and not path.is_symlink()), None)


def _physical(uri: str, line: int | None) -> dict[str, Any]:
    region = {"region": {"startLine": line}} if line else {}
    # from the top of the repository, as code scanning reads it
    return {"physicalLocation": {"artifactLocation": {"uri": quote(uri, safe="/"), "uriBaseId": "%SRCROOT%"},
                                 **region}}


def document(report: CiReport, home: str | None) -> dict[str, Any]:
    """The SARIF document of `report`; `home` is the repository rules link to (see the module's docstring)."""
    rules = every_rule()
    codes = list(rules)
    root = Path(report.root)
    results = []
    for finding in report.findings:
        location, missing = _location(root, report.prefix, finding)
        where = f"\n({report.prefix}{missing} does not exist: shown at the nearest file)" if missing else ""
        results.append({
            "ruleId": finding.code, "ruleIndex": codes.index(finding.code), "level": _LEVEL[finding.severity],
            "message": {"text": f"{finding.message}\nfix: {finding.fix}{where}"},
            "locations": [location],
            "partialFingerprints": {"aidlcFinding/v1": finding.fingerprint},
            **({"baselineState": "unchanged" if finding.baseline == "known" else "new"} if report.baseline else {}),
            **({"properties": {"adopted": finding.adopted}} if finding.adopted else {}),
        })
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "aidlc", "version": __version__, "semanticVersion": __version__,
                            **({"informationUri": home} if home else {}),
                            "rules": [_rule(rule, home) for rule in rules.values()]}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render(report: CiReport) -> str:
    return json.dumps(document(report, published_home()), ensure_ascii=False, indent=2) + "\n"
