"""The evidence report as one self-contained HTML page: inline CSS, no script, font or image from anywhere."""

from __future__ import annotations

from aidlc.model.evidence import EvidenceReport
from aidlc.templating import render


def render_html(report: EvidenceReport, digest: str) -> str:
    return render("artifacts/evidence-report.html.j2", r=report, digest=digest)
