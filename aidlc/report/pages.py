"""The evidence report as one self-contained HTML page: inline CSS, no script, font or image from anywhere."""

from __future__ import annotations

from pathlib import Path

from aidlc.model.evidence import EvidenceReport


def render_html(report: EvidenceReport, digest: str) -> str:
    from aidlc.templating import render

    return render("artifacts/evidence-report.html.j2", r=report, digest=digest)


def write_html(report: EvidenceReport, digest: str, target: Path) -> None:
    target.write_text(render_html(report, digest), encoding="utf-8")
