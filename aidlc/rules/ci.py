"""The rules `aidlc ci` checks against a pull request's base and commits (aidlc/ci/checks.py and
aidlc/ci/bolt_checks.py find their hits).

They stand in the catalogue with every other rule, so `aidlc rules`, the catalogue in docs/rules.md and SARIF's rule
list name them; `aidlc validate` has no base and no commits to judge, and never reports them.
"""

from __future__ import annotations

from aidlc.model.types import Severity
from aidlc.rules.catalogue import ci_rule

E = Severity.error

LEDGER_DELETED = ci_rule(
    "AIDLC-CI-001", E, "the base of the pull request holds the ledger, and the branch deleted it",
    "restore it from the base: `git restore --source=BASE --staged --worktree -- memory-bank/events.jsonl`; "
    "the ledger is never removed")
BASE_EVENT_MISSING = ci_rule(
    "AIDLC-CI-002", E, "an event of the base's ledger is missing or changed on the branch",
    "restore the ledger from the base and append again: the ledger is append-only "
    "(`aidlc log verify --against BASE` names the event)")
APPROVAL_AUTHOR = ci_rule(
    "AIDLC-CI-003", E, "a human decision added by the pull request was committed by someone other than the person "
    "it names", "the person who decided commits their own decision (git config user.email must be the email the "
    "decision names); a decision committed for someone else does not count")
APPROVAL_BOT = ci_rule(
    "AIDLC-CI-004", E, "a human decision added by the pull request was committed by a bot (governance.bot_emails, a "
    "[bot] name or a bot's address)", "the person who decided commits their own decision from their own account; "
    "a bot may not carry a person's approval into the ledger")
UNTRACED = ci_rule(
    "AIDLC-CI-005", E, "a commit changes governed code (governance.paths) without an `Aidlc-Bolt:` trailer",
    "name the approved bolt the change belongs to in the commit message (`Aidlc-Bolt: BOLT` as its last "
    "paragraph, e.g. `git commit --amend` or an interactive rebase), or plan one: `aidlc new bolt`")
UNKNOWN_BOLT = ci_rule(
    "AIDLC-CI-006", E, "a commit's `Aidlc-Bolt:` trailer names a bolt the memory bank does not have",
    "correct the trailer to an existing bolt id (`aidlc status` lists them), or plan the bolt: `aidlc new bolt`")
PLAN_NOT_APPROVED = ci_rule(
    "AIDLC-CI-007", E, "a commit changes governed code for a bolt whose plan was not approved in the ledger that "
    "commit holds", "a person approves the plan first (`aidlc gate approve BOLT --stage plan`), and the code is "
    "committed after it")
WALKTHROUGH_MISSING = ci_rule(
    "AIDLC-CI-008", E, "a bolt the pull request's commits name is marked complete without an approved walkthrough",
    "a person reviews the walkthrough: `aidlc gate approve BOLT --stage walkthrough`, or set the bolt back to "
    "in-progress")
WALKTHROUGH_EVIDENCE = ci_rule(
    "AIDLC-CI-009", E, "a walkthrough approval the pull request adds stands without the evidence its bolt's risk "
    "requires (re-derived from git and the ledger, as the gate does), or without two distinct people where the "
    "risk asks for them", "a person writes the report and meets each missing item (`aidlc walkthrough BOLT`), then "
    "approves through the gate: `aidlc gate approve BOLT --stage walkthrough` (an approval written around the gate "
    "does not count)")
OUTSIDE_SCOPE = ci_rule(
    "AIDLC-CI-010", E, "a commit changes governed code outside the `scope` of every approved bolt it names",
    "move the change to a commit for a bolt whose scope covers the file, or widen the bolt's scope and have its plan "
    "approved again (`aidlc gate approve BOLT --stage plan`)")
UNSIGNED_COMMIT = ci_rule(
    "AIDLC-CI-011", E, "governance.require_signed_commits is on and a commit the pull request adds carries no "
    "signature", "sign the commit (`git commit --amend -S`, or `git rebase --exec 'git commit --amend --no-edit -S' "
    "BASE` for several) with the key git is set up to sign with (`user.signingkey`)")
RULES_CHANGED = ci_rule(
    "AIDLC-CI-012", E, "the pull request changes the rules it is judged by (aidlc.yaml's layout, memory_bank, "
    "aidlc_docs, verify, policy, governance or evidence; the bank's allowed_signers; the CI baseline; the "
    "attributes git gives the ledger; an aidlc workflow) without a valid approval of that change: it is judged by the "
    "base's rules",
    "a person other than the change's authors (listed in the base's allowed_signers, signing when the base "
    "requires it) reviews the change and approves it: `aidlc gate approve policy --stage change`, then commits the "
    "ledger (aidlc docs/ci.md, Changing the rules)")
RULES_CHANGE_APPROVED = ci_rule(
    "AIDLC-CI-013", Severity.info, "the pull request changes the rules it is judged by, and a person other than its "
    "authors approved that change: it is judged by its own rules", "nothing to do: the approval is recorded")
BOLT_CLOSED = ci_rule(
    "AIDLC-CI-014", E, "a commit changes governed code for a bolt whose walkthrough was already approved: a closed "
    "bolt covers no new change", "plan a new bolt for the change (`aidlc new bolt`), have its plan approved, and "
    "name it in the commit's `Aidlc-Bolt:` trailer")
POLICY_NOT_ALLOWED = ci_rule(
    "AIDLC-CI-015", E, "a plan approval recorded by policy (policy.auto_approve_plan) is one the base's policy does "
    "not allow for the bolt's risk", "a person approves the plan: `aidlc gate approve BOLT --stage plan` (the "
    "policy that counts is the base's, and only for low or medium risk it lists)")
APPROVED_DELETED = ci_rule(
    "AIDLC-CI-016", Severity.warning, "the pull request deletes a file that a person's standing approval judged (an "
    "intent's requirements, a bolt's plan, ...): the approval stays in the ledger, the record it approved is gone",
    "restore the file if its deletion was not meant (`git checkout BASE -- PATH`); a record retired on purpose "
    "needs nothing more than the reviewer's eye")
LEDGER_NOT_COMMITTED = ci_rule(
    "AIDLC-CI-017", E, "the ledger in the work tree is not the one HEAD holds (beyond lines appended since): a "
    ".gitattributes conversion (working-tree-encoding, a filter, ident, eol) makes git keep other bytes than the "
    "checkout shows, or a change was not committed; aidlc ci reads both, and would judge two ledgers",
    "remove the attribute that converts the ledger (`git check-attr -a -- LEDGER` names it), then `git add "
    "--renormalize LEDGER` and commit; or commit (or `git restore`) the ledger's change")
RECORD_CONVERTED = ci_rule(
    "AIDLC-CI-018", E, "git converts a records file between the commit and the checkout (a .gitattributes "
    "working-tree-encoding, filter or ident): the history rules and a reviewer read what git keeps, the other checks "
    "what the checkout shows, and the two can differ (a line that becomes a code fence in the checkout hides the "
    "stages below it)",
    "remove the attribute (`git check-attr -a -- PATH` names it), then `git add -u -- '*.gitattributes' && git add "
    "--renormalize PATH` and commit")
RECORD_TWINS = ci_rule(
    "AIDLC-CI-019", E, "two paths the pull request's HEAD holds differ only in letter case or Unicode form, one of "
    "them a records file or folder (the records' folder, the v2 workspace, aidlc.yaml): a checkout on macOS or "
    "Windows keeps one file for both, so a reviewer or teammate there reads, and appends to, another record than "
    "aidlc ci judges", "keep one of them: `git rm --cached -- PATH` the other (or `git mv` it to a name of its own) "
    "and commit")
RECORD_HIDDEN = ci_rule(
    "AIDLC-CI-020", E, "the pull request's .gitattributes gives records files an attribute that hides their change "
    "from the reviewer (`-diff` or `binary`: git and GitHub show only that a binary file changed; "
    "`linguist-generated`: GitHub folds the diff away), where the base's did not", "remove the attribute from "
    ".gitattributes (`git check-attr -a -- PATH` names it) and commit: a record a person approves is one they were "
    "shown")
