"""The status report of a project in the layout it keeps its records in: what `aidlc status --format json` prints
and the `status` tool of `aidlc mcp` returns."""

from __future__ import annotations

from pathlib import Path

from aidlc.aidlc_docs.model import DocsProject, RecordsWorkspace
from aidlc.bank.config import load_config
from aidlc.events.ledger import Ledger
from aidlc.model.config import Config
from aidlc.model.status import DocsStatusReport, RecordsStatusReport, StatusReport
from aidlc.status.build import build_status
from aidlc.status.docs import build_docs_status, build_records_status
from aidlc.workspace import layout_of, open_bank, open_records

ProjectStatus = StatusReport | DocsStatusReport | RecordsStatusReport


def docs_status(root: Path, config: Config) -> DocsStatusReport | RecordsStatusReport:
    """The aidlc-docs layout's status: its own document; where aidlc/ holds v2 intent records (they supersede a
    flat aidlc-docs/ the migration left), one part per record."""
    records = open_records(root)
    if isinstance(records, RecordsWorkspace):
        return build_records_status(records)
    assert isinstance(records, DocsProject)  # open_records on the aidlc-docs layout
    return build_docs_status(records, Ledger.of_bank(root.resolve(), config.aidlc_docs), config.governance.bot_emails)


def project_status(root: Path) -> ProjectStatus:
    """The whole status report of the project at `root`, either layout."""
    config = load_config(root)
    if layout_of(root, config) == "aidlc-docs":
        return docs_status(root, config)
    return build_status(open_bank(root, config=config))
