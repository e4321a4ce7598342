"""The aidlc-docs rules git history decides (aidlc/rules/docs_history_scan.py finds their hits): the audit log only
grows, its timestamps agree with the commits that added them, a stage is ticked only once its approval is logged.

`aidlc validate` judges HEAD's whole history with them, `aidlc ci --base REF` the pull request's commits.
"""

from __future__ import annotations

from aidlc.model.types import Severity
from aidlc.rules.catalogue import docs_rule

E, W = Severity.error, Severity.warning

ENTRY_DELETED = docs_rule(
    "AIDLC-DOCS-020", E, "an audit entry that a commit added was deleted by a later commit; one finding for "
    "the entries one commit deleted from a log",
    "restore the entries as the commit before held them (`git show COMMIT^:aidlc-docs/audit.md`) and commit them; "
    "the audit log only grows: a correction is a new entry at the end")
ENTRY_EDITED = docs_rule(
    "AIDLC-DOCS-021", E, "an audit entry that a commit added was edited by a later commit (lines appended at the "
    "end of the log, which read as part of a last entry no `---` closes, are no edit, nor are bytes appended after a "
    "`---` the log ended on without a line end)",
    "put the entry back as it was committed (`git show COMMIT^:aidlc-docs/audit.md`) and record the correction as "
    "a new entry at the end of the log")
ENTRY_REFORMATTED = docs_rule(
    "AIDLC-DOCS-022", W, "an audit entry was re-formatted by a later commit (whitespace only: "
    "indentation, spaces, blank lines; line ends alone are not a change)",
    "keep committed entries as written: leave the audit log out of formatters (e.g. .prettierignore, "
    ".editorconfig) and restore the entry's committed form")
ENTRY_INSERTED = docs_rule(
    "AIDLC-DOCS-023", W, "an audit entry was inserted above entries that earlier commits added (one finding for "
    "the entries one commit inserted), or an entry was moved",
    "append new entries at the end of the audit log, oldest first; never insert above or reorder committed ones (a "
    "squash merge of a branch that appended entries while others were committed leaves this too: say so in a new "
    "entry)")
LOG_REMOVED = docs_rule(
    "AIDLC-DOCS-024", E, "an audit log that commits tracked was deleted, emptied (no entry left in it) or "
    "git-ignored (its next version starting with every entry it held, in order, nothing was lost; a merge that kept "
    "the version of a side whose log held no entry dropped the other side's entries, AIDLC-DOCS-020)",
    "restore the file from the commit before (`git checkout COMMIT^ -- aidlc-docs/audit.md`), remove the ignore "
    "rule that matches it, and commit it: the audit log is the record of every approval; where a log stands at that "
    "path again, put the entries back above its own (`git show COMMIT^:aidlc-docs/audit.md`) instead: a checkout "
    "would overwrite it")
STAMP_AFTER_COMMIT = docs_rule(
    "AIDLC-DOCS-025", E, "an audit entry's timestamp is later than the commit that added it (beyond "
    "5 minutes of clock difference): git proves the time false; one finding for all the entries one commit added, "
    "and one for all those of the commits whose times read true as one zone's local time written as UTC",
    "record each entry with the time it is written (`date -u +%Y-%m-%dT%H:%M:%SZ`), never a planned or guessed "
    "time; correct a wrong one with a new entry that says so")
STAMP_BEFORE_REPOSITORY = docs_rule(
    "AIDLC-DOCS-026", W, "an audit entry's timestamp is more than a day before the repository's first "
    "commit: a placeholder, or work logged before the repository existed (git cannot tell which); one finding for "
    "all the entries one commit added",
    "record each entry with the time it is written (`date -u +%Y-%m-%dT%H:%M:%SZ`), never a counter or a "
    "placeholder; correct a wrong one with a new entry that says so, and say so too of a log kept before the "
    "repository existed")
STAMP_SHARED = docs_rule(
    "AIDLC-DOCS-027", W, "entries that different commits added carry one timestamp; one finding per timestamp",
    "record each entry with the time it is written (`date -u +%Y-%m-%dT%H:%M:%SZ`): two moments of work are not "
    "one instant")
TICKED_UNAPPROVED = docs_rule(
    "AIDLC-DOCS-028", W, "a commit ticks a stage in aidlc-state.md while the audit log, as that "
    "commit holds it, has no approval of the stage (a stage still ticked with no approval is AIDLC-DOCS-003's); a "
    "stage ticked again (a next feature's line beside the first's, or ticked after it was unticked) needs an approval "
    "logged since the commit that ticked it before",
    "ask the person to approve the stage and log their answer in the audit log (an entry naming the stage, with "
    "their raw input) before the stage is ticked; or untick it")
STATE_REMOVED = docs_rule(
    "AIDLC-DOCS-029", E, "a state file that commits tracked was deleted, or moved where aidlc reads no state file "
    "(renamed, or split into several state/ files), and the folder is still there, or went with it and no audit "
    "log's loss is charged (AIDLC-DOCS-024): no stage's tick or approval is checked any more (one HEAD holds again, "
    "written by a later commit, is no deletion)",
    "restore the state file from the commit before (`git checkout COMMIT^ -- aidlc-docs/aidlc-state.md`) and commit "
    "it: aidlc-state.md (or the one state/<branch>.md) is the record of which stages ran")
TICKED_RENAMED = docs_rule(
    "AIDLC-DOCS-031", E, "a commit put a ticked line naming no stage aidlc knows (or one that waits for no approval, "
    "Workspace Detection or Operations) in place of the unticked line of a stage that waits for approval, no line "
    "naming that stage any more (`- [ ] Build and Test` became `- [x] Builds and Tests`), while the audit log, as "
    "that commit holds it, has no approval of the stage: the stage was ticked under a name no rule reads",
    "write the stage's line as the rules name it (`- [ ] Build and Test - EXECUTE`), and tick it once the person's "
    "approval of it is logged in the audit log")
