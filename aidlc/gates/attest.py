"""The evidence report as an in-toto Statement v1 (https://github.com/in-toto/attestation, spec v1): the
subjects are the files the bolt's own commits (those carrying its `Aidlc-Bolt` trailer) changed, as the head holds
them, with their sha256; every other commit between the bolt's base and head is named in the predicate as a
deviation, never attested as the bolt's. The predicate carries the report's digest, its checks and its
verification.

Signed (`--sign`), the Statement is the payload of a DSSE envelope (https://github.com/secure-systems-lab/dsse):
its signature is an SSH signature (namespace `aidlc`, the key git signs with, as a signed approval) over DSSE's
PAE of the payload, so `ssh-keygen -Y verify` checks it against the records' allowed_signers.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc import vcs
from aidlc.errors import UsageError
from aidlc.gates.facts import TRAILER
from aidlc.model.evidence import EvidenceReport
from aidlc.names import arg

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://aidlc.dev/evidence-report/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"


@dataclass(frozen=True)
class Attestation:
    text: str  # the Statement, or its signed DSSE envelope, as JSON
    deviations: list[str]  # each commit between base and head that is not the bolt's, one line for a person


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's pre-authentication encoding: what the signature covers."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def statement(repo: Path, report: EvidenceReport, digest: str) -> tuple[dict[str, Any], list[vcs.Commit]]:
    """The Statement, and the commits between base and head that are not the bolt's."""
    own = vcs.commits_with_trailer(repo, TRAILER, report.bolt, ref=report.head, files=True)
    mine = {commit.sha for commit in own}
    in_range = vcs.commits_in(repo, report.head) if report.base == vcs.EMPTY_TREE else \
        vcs.commits_between(repo, report.base, report.head)
    others = [commit for commit in in_range if commit.sha not in mine]
    by_bolt = {path for commit in own for path in commit.paths}
    subjects = []
    for change in report.changes:
        if change.status == "D" or change.path not in by_bolt:
            continue  # nothing at the head to name, or no commit of the bolt's changed it
        data = vcs.show_file(repo, report.head, change.path)
        if data is not None:
            subjects.append({"name": change.path, "digest": {"sha256": hashlib.sha256(data).hexdigest()}})
    document = {
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "bolt": report.bolt, "base": report.base, "head": report.head, "risk": report.risk,
            "report": {"sha256": digest},
            "commits": [commit.sha for commit in own],
            # Not the bolt's: a file both changed is a subject as the head holds it, with their change in it.
            "deviations": [{"commit": commit.sha, "author": f"{commit.author} <{commit.email}>",
                            "subject": commit.subject, "bolts": list(commit.bolts), "paths": list(commit.paths)}
                           for commit in others],
            "checks": [c.model_dump(mode="json", exclude={"excerpt"}) for c in report.checks],
            "verification": report.verification.model_dump(mode="json"),
        },
    }
    return document, others


def attestation(repo: Path, report: EvidenceReport, digest: str, signed_in: str | None = None) -> Attestation:
    """The Statement as JSON text, or (`signed_in`: the records' folder, whose allowed_signers lists the key) its
    DSSE envelope signed as git's user.email; a UsageError when it would have no subject (the spec asks for one)."""
    document, others = statement(repo, report, digest)
    if not document["subject"]:
        raise UsageError(f"--attest: the commits of bolt {report.bolt} changed no file its head holds, so a "
                         "statement would have no subject; nothing was written",
                         [f"aidlc walkthrough {arg(report.bolt)}    # the report alone"])
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    if signed_in is not None:
        text = json.dumps(envelope(repo, text.encode("utf-8"), signed_in), indent=2) + "\n"
    lines = [f"{commit.sha[:12]} by {commit.author} <{commit.email}> ({commit.subject!r}"
             + (f", for {', '.join(commit.bolts)})" if commit.bolts else ", no Aidlc-Bolt trailer)")
             for commit in others]
    return Attestation(text, lines)


def envelope(repo: Path, payload: bytes, bank_rel: str) -> dict[str, Any]:
    from aidlc.gates.signing import fingerprint, public_key, sign_as  # ssh-keygen: only where one is signed

    email = vcs.identity(repo)[1]
    sig = sign_as(repo, bank_rel, email, pae(PAYLOAD_TYPE, payload), "--sign", "the statement")
    return {"payloadType": PAYLOAD_TYPE, "payload": base64.b64encode(payload).decode("ascii"),
            "signatures": [{"keyid": fingerprint(public_key(sig)), "sig": sig}]}
