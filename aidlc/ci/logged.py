"""The approvals a pull request logs in an aidlc-docs project's audit logs: the entries it adds on which a ticked
stage stands (as AIDLC-DOCS-003 reads approvals, aidlc/rules/docs_standing.py). A log's diff may be folded away or
too long for a review page; `aidlc ci --base` lists them so the reviewer reads each. Listing one judges nothing."""

from __future__ import annotations

from aidlc import vcs
from aidlc.aidlc_docs.model import DocsProject
from aidlc.aidlc_docs.stages import BY_SLUG
from aidlc.model.ci import LoggedApproval
from aidlc.rules.docs_standing import approval_claims

_SAID = 200  # characters of the person's words shown


def approvals_logged(project: DocsProject, history: vcs.History, base: str) -> list[LoggedApproval]:
    """The approvals the ticked stages stand on that the base's audit logs did not hold, in the logs' order, each
    with the stages it is read as approving."""
    claims = [claim for claim in approval_claims(project) if claim.approval is not None and claim.log is not None]
    before = history.read(base, sorted({claim.log for claim in claims if claim.log is not None}))
    held = {path: (data or b"").decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
            for path, data in before.items()}
    stages: dict[tuple[str, int], list[str]] = {}
    said: dict[tuple[str, int], str] = {}
    for claim in claims:
        entry, log = claim.approval, claim.log
        if entry is None or log is None or entry.text in held.get(log, ""):
            continue
        name = BY_SLUG[claim.line.stage or ""].name + (f" of unit {claim.unit}" if claim.unit else "")
        stages.setdefault((log, entry.line), [])
        if name not in stages[(log, entry.line)]:
            stages[(log, entry.line)].append(name)
        words = " ".join(entry.fields.get("user_input", "").split())
        said[(log, entry.line)] = words[:_SAID] + ("..." if len(words) > _SAID else "")
    return [LoggedApproval(path=log, line=line, stages=names, said=said[(log, line)])
            for (log, line), names in sorted(stages.items())]
