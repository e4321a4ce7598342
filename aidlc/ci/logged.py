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
    approved: dict[tuple[str, int], dict[tuple[str, str | None], None]] = {}  # per entry, its (stage, unit)s in order
    said: dict[tuple[str, int], str] = {}
    for claim in claims:
        entry, log = claim.approval, claim.log
        if entry is None or log is None or entry.text in held.get(log, ""):
            continue
        approved.setdefault((log, entry.line), {})[(claim.line.stage or "", claim.unit)] = None
        words = " ".join(entry.fields.get("user_input", "").split())
        said[(log, entry.line)] = words[:_SAID] + ("..." if len(words) > _SAID else "")
    return [LoggedApproval(path=log, line=line, stages=_names(list(pairs)), said=said[(log, line)])
            for (log, line), pairs in sorted(approved.items())]


def _names(approved: list[tuple[str, str | None]]) -> list[str]:
    """`Functional Design of unit 1`, each stage once: a line naming no unit that stands on a unit's approval (a
    change-request cycle's `- [x] Functional Design`, Janeeffect/aidlc-demo-showcase) adds no stage to it."""
    named = {stage for stage, unit in approved if unit is not None}
    return [BY_SLUG[stage].name + (f" of unit {unit}" if unit is not None else "")
            for stage, unit in approved if unit is not None or stage not in named]
