"""The baseline of the pull request that adopts aidlc. The base has no ledger, so the pull request brings the rules
and its own baseline with them (aidlc/ci/rulebook.py); a baseline records the findings the default branch already
had, so this one covers only findings the base had too. A pull request that deleted an approval from the audit log
and listed what that caused in the baseline it brought passed `aidlc ci`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from aidlc import vcs
from aidlc.bank.walk import CONFIG_FILE
from aidlc.ci.baseline import fingerprint, taken
from aidlc.ci.rulebook import Rulebook
from aidlc.errors import AidlcError
from aidlc.model.ci import Baseline
from aidlc.rules import validate
from aidlc.workspace import open_records


def known_at_base(root: Path, rulebook: Rulebook, baseline: Baseline) -> Baseline:
    """The entries of `baseline` that a finding of the base covers: the base checked out (its history the base's),
    judged by the pull request's aidlc.yaml as `aidlc validate` judges it. The findings of the history rules under
    `--base` are about the pull request's own commits, so none of them is among these. Each finding covers one
    entry."""
    return Baseline(findings=taken(baseline.findings, _standing(root, rulebook)))


def _standing(root: Path, rulebook: Rulebook) -> Counter[tuple[str, str, str]]:
    history = vcs.history(root)
    if history is None:
        return Counter()
    config = rulebook.rules.files.get(CONFIG_FILE)
    with history.checkout(rulebook.base) as there:
        try:
            if config is not None:
                (there / CONFIG_FILE).write_bytes(config)
            findings = validate(open_records(there)).findings
        except (AidlcError, OSError):  # records the base holds that no command reads: they cover nothing
            return Counter()
    return Counter((finding.code, finding.path, fingerprint(finding)) for finding in findings)
