"""docs/design.md is the design record the code cites: every citation names a heading that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CITATION = re.compile(r"docs/design\.md, ([A-Z][\w -]*?)[).]")


def headings() -> set[str]:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    return {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("## ")}


def citations() -> list[tuple[str, str]]:
    found = []
    for folder in ("aidlc", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for heading in CITATION.findall(path.read_text(encoding="utf-8")):
                found.append((str(path.relative_to(ROOT)), heading))
    return found


def test_every_citation_of_the_design_names_one_of_its_headings() -> None:
    cited = citations()
    assert len(cited) >= 10
    assert [(path, heading) for path, heading in cited if heading not in headings()] == []


def test_no_code_cites_a_design_document_outside_the_repository() -> None:
    outside = re.compile(r"DESIGN (section )?\d")
    assert [str(p.relative_to(ROOT)) for folder in ("aidlc", "tests", "benchmarks")
            for p in sorted((ROOT / folder).rglob("*.py")) if outside.search(p.read_text(encoding="utf-8"))] == []
