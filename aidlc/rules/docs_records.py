"""The rules of aidlc-workflows v2 intent records (aidlc/aidlc_docs/records.py reads them): the evidence v2's hooks
leave in the audit shards, re-checked outside the agent's harness.

v2's `aidlc-state approve` refuses an approval unless a HUMAN_TURN (written by a hook on every prompt the person
submits) follows the previous gate resolution; a guard switched off or overridden leaves a row; a stage is completed
with a STAGE_COMPLETED row; the migration from the flat aidlc-docs/ moves audit.md into a shard byte for byte. A
shard is written by hand as easily as by the hooks, so each of these is checked here again. The shards' append-only
history is judged by aidlc/rules/docs_history_scan.py, as for any audit/*.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from aidlc import vcs
from aidlc.aidlc_docs.fingerprint import OLDER, V3, approval_fingerprint, has_review, read_testing_contract
from aidlc.aidlc_docs.model import DocsProject, Mark, RecordEvent, RecordsWorkspace
from aidlc.aidlc_docs.records import MIGRATED, WORKSPACE, before
from aidlc.bank.config import V2_SPACES, load_config
from aidlc.bank.frontmatter import MAX_FILE_BYTES, decode, read_bytes
from aidlc.model.findings import Finding
from aidlc.model.types import Severity
from aidlc.rules.catalogue import Hit, Rule, docs_rule
from aidlc.workspace import flat_records

E, W, I = Severity.error, Severity.warning, Severity.info  # noqa: E741 - the severities, as in the catalogue

RESOLUTIONS = frozenset({"GATE_APPROVED", "GATE_REJECTED", "QUESTION_ANSWERED"})
FLAT_AUDIT = "aidlc-docs/audit.md"
WORKSPACE_RECORDS = "aidlc/spaces/*/intents/*/audit/"

NO_HUMAN_TURN = docs_rule(
    "AIDLC-DOCS-060", E, "a v2 GATE_APPROVED row with no HUMAN_TURN row after the previous gate resolution "
    "(GATE_APPROVED, GATE_REJECTED, QUESTION_ANSWERED) across the record's shards, in timestamp order",
    "have the person approve the gate in the session (the human-turn hook records their prompt), then approve it "
    "again; a row written by hand or with the hook disabled is no person's decision")
UNORDERED_TURN = docs_rule(
    "AIDLC-DOCS-061", W, "a v2 GATE_APPROVED row whose only HUMAN_TURN shares its second with the approval or the "
    "previous resolution in another shard: causally unordered (v2 fails closed on it)",
    "approve the gate again after a new prompt of the person's, so that the human turn is ordered before it")
AUTONOMOUS = docs_rule(
    "AIDLC-DOCS-062", I, "a v2 GATE_APPROVED row without a human turn, in autonomous mode (AUTONOMY_MODE_SET Mode: "
    "autonomous): the engine approved it, no person",
    "nothing to fix if autonomous construction was the person's choice; review what was approved")
GUARD_OFF = docs_rule(
    "AIDLC-DOCS-063", W, "a v2 GUARD_DISABLED or GUARD_STOOD_ASIDE row: a hook that enforces the workflow (plan "
    "approval, review freeze, state transition, reviewer scope) was switched off or lowered",
    "turn the guard back on (unset AIDLC_DISABLE_*_GUARD, `config-change --guard.<fence> on`) and review what was "
    "done while it was off")
PLAN_OVERRIDDEN = docs_rule(
    "AIDLC-DOCS-064", W, "a v2 PLAN_APPROVAL_OVERRIDDEN row: code generation went ahead by break-glass, past failed "
    "plan approval checks",
    "have the person approve the code-generation plan (`[Answer]: Approve Plan` with its fingerprint) and review "
    "the code generated under the override")
PLAN_BLOCKED = docs_rule(
    "AIDLC-DOCS-065", I, "a v2 PLAN_APPROVAL_BLOCKED row: the plan-approval guard refused code generation (the "
    "guard worked; the attempt is on record)",
    "nothing to fix; approve the code-generation plan before generating code")
NOT_COMPLETED = docs_rule(
    "AIDLC-DOCS-066", E, "a v2 stage row is `[x]` (completed) and no STAGE_COMPLETED row of the record's shards names "
    "the stage",
    "complete the stage through the engine (`aidlc-orchestrate report --stage <slug> --result completed`), which "
    "writes the row, or set the row back to `[ ]`")
MIGRATION_DROPPED = docs_rule(
    "AIDLC-DOCS-067", E, "aidlc/.migrated says the flat aidlc-docs/ was migrated, and the last committed "
    "aidlc-docs/audit.md is not a byte prefix of any audit shard of the migrated record: the migration dropped or "
    "changed audit history",
    "restore the shard's start from the last committed audit.md (`git show COMMIT:aidlc-docs/audit.md`), keep the "
    "rows appended since after it, and commit")
STALE_APPROVAL = docs_rule(
    "AIDLC-DOCS-068", E, "a v2 PLAN_APPROVAL_RECORDED row whose Approval Fingerprint (sha256:v3) differs from the "
    "one recomputed over the code-generation plan, its Testing Contract and unit-test-instructions.md as HEAD holds "
    "them: the plan changed after its approval (ticked boxes and whitespace are no change), its contract is not one "
    "v2 accepts, or the row cannot be checked",
    "have the person review the plan as it stands and approve it again (`[Answer]: Approve Plan`), which records "
    "a new fingerprint; or restore the plan they approved")
OLD_FINGERPRINT = docs_rule(
    "AIDLC-DOCS-069", W, "a v2 PLAN_APPROVAL_RECORDED row with a `sha256:v2:` or bare `sha256:` fingerprint: v2 "
    "reads these as \"approve again\", and they cannot be recomputed",
    "have the person approve the code-generation plan again, which records a sha256:v3 fingerprint")
NOT_RECOMPUTED = docs_rule(
    "AIDLC-DOCS-072", I, "a v2 PLAN_APPROVAL_RECORDED row whose code-generation plan has a Review heading: v2 leaves "
    "a terminal `## Review` appendix out of the fingerprint by a rule aidlc does not reproduce, so the fingerprint is "
    "not recomputed",
    "nothing to fix; review the plan against its approval by hand, or move the review out of the plan (v2 keeps "
    "reviews in review records now) and have the person approve it again")
UNREGISTERED = docs_rule(
    "AIDLC-DOCS-070", W, "a v2 intent record's folder has no row in its space's intents/intents.json (v2 lists "
    "such a record as \"unknown\")",
    "add the record's row to intents.json (`{\"uuid\": ..., \"slug\": ..., \"dirName\": \"<folder>\", "
    "\"status\": \"in-flight\"}`), as v2's intent-create writes it, and commit")
BAD_REGISTRY = docs_rule(
    "AIDLC-DOCS-071", E, "a v2 space's intents/intents.json is not a JSON array of objects, each with a `uuid` and a "
    "`slug`",
    "restore intents.json from git (`git log -p -- <file>`) or fix the named line so that every row is "
    "`{\"uuid\": ..., \"slug\": ..., ...}`")

# The rows that report a guard, by event: (rule, what the row says happened).
GUARD_ROWS = {
    "GUARD_DISABLED": (GUARD_OFF, "disabled"),
    "GUARD_STOOD_ASIDE": (GUARD_OFF, "stood aside"),
    "PLAN_APPROVAL_OVERRIDDEN": (PLAN_OVERRIDDEN, "overridden"),
    "PLAN_APPROVAL_BLOCKED": (PLAN_BLOCKED, "blocked"),
}


def record_findings(project: DocsProject) -> list[tuple[Rule, Hit]]:
    """The hits of the v2 rules on one intent record (none on a flat aidlc-docs folder)."""
    if project.record is None:
        return []
    return [*_gates(project.record.events), *_guards(project.record.events), *_completed(project),
            *_approvals(project)]


def _gates(events: list[RecordEvent]) -> Iterator[tuple[Rule, Hit]]:
    """Each GATE_APPROVED against the HUMAN_TURN rows after the gate resolution before it (v2's
    humanActedSinceGate): one ordered between them suffices; one only tied with either is causally unordered."""
    autonomous = False
    previous: RecordEvent | None = None
    turns = [event for event in events if event.event == "HUMAN_TURN"]
    for event in events:
        if event.event == "AUTONOMY_MODE_SET":
            autonomous = event.entry.fields.get("mode", "").strip().lower() == "autonomous"
        if event.event not in RESOLUTIONS:
            continue
        if event.event == "GATE_APPROVED":
            yield from _without_turn(event, previous, turns, autonomous)
        previous = event


def _without_turn(event: RecordEvent, previous: RecordEvent | None, turns: list[RecordEvent],
                  autonomous: bool) -> Iterator[tuple[Rule, Hit]]:
    """The GATE_APPROVED `event` when no HUMAN_TURN of `turns` is ordered after `previous` (the resolution before
    it) and before it."""
    orders = [(True if previous is None else before(previous, turn), before(turn, event)) for turn in turns]
    if any(after and ahead for after, ahead in orders):
        return
    stage = event.entry.fields.get("stage", "?")
    since = "since the record began" if previous is None else \
        f"since the {previous.event} at {previous.path}:{previous.entry.line} ({previous.entry.timestamp})"
    if any(after is not False and ahead is not False for after, ahead in orders):
        yield UNORDERED_TURN, Hit(event.path, event.entry.line, f"GATE_APPROVED of stage {stage} "
                                  f"({event.entry.timestamp}): its only human turn {since} shares a "
                                  "second with it across shards, so which came first is unknown")
    elif autonomous:
        yield AUTONOMOUS, Hit(event.path, event.entry.line, f"GATE_APPROVED of stage {stage} "
                              f"({event.entry.timestamp}) in autonomous mode: no HUMAN_TURN {since}")
    else:
        # A record without any: the hook that writes one on each of the person's prompts never ran (another harness,
        # or it was not installed), and v2's own guard refuses such an approval unless it was switched off.
        none = "" if turns else "; no shard of the record holds a HUMAN_TURN row at all: the hook that writes one " \
            "for each of the person's prompts never ran here"
        yield NO_HUMAN_TURN, Hit(event.path, event.entry.line, f"GATE_APPROVED of stage {stage} "
                                 f"({event.entry.timestamp}) and no HUMAN_TURN row {since}{none}")


def _guards(events: list[RecordEvent]) -> Iterator[tuple[Rule, Hit]]:
    for event in events:
        if event.event in GUARD_ROWS:
            rule, what = GUARD_ROWS[event.event]
            fields = event.entry.fields
            said = "; ".join(f"{key}: {fields[key]}" for key in ("guard", "stage", "unit", "reason", "tool", "target")
                             if fields.get(key))
            yield rule, Hit(event.path, event.entry.line, f"{event.event} at {event.entry.timestamp}: a guard was "
                            f"{what}{f' ({said})' if said else ''}")


def _completed(project: DocsProject) -> Iterator[tuple[Rule, Hit]]:
    record = project.record
    if record is None or project.state is None:
        return
    done = {event.entry.fields.get("stage", "").strip() for event in record.events
            if event.event == "STAGE_COMPLETED"}
    for row in record.rows:
        if row.mark == Mark.done and row.slug not in done:
            shards = ", ".join(log.path for log in project.audits) or f"{project.rel}/audit/ (none)"
            yield NOT_COMPLETED, Hit(project.state.path, row.line,
                                     f"`{row.slug}` is [x] and no STAGE_COMPLETED row of {shards} names it")


def _approvals(project: DocsProject) -> Iterator[tuple[Rule, Hit]]:
    """Each PLAN_APPROVAL_RECORDED row's fingerprint against the one recomputed over the plan it names, as HEAD
    holds it (aidlc/aidlc_docs/fingerprint.py)."""
    rows = [event for event in project.record.events if event.event == "PLAN_APPROVAL_RECORDED"] \
        if project.record is not None else []
    history = vcs.history(Path(project.root)) if rows else None
    if history is None or history.head is None:
        return
    for event in rows:
        found = _approval_standing(project.rel, history, event)
        if found is not None:
            rule, message = found
            yield rule, Hit(event.path, event.entry.line, message)


def _approval_standing(rel: str, history: vcs.History, event: RecordEvent) -> tuple[Rule, str] | None:
    """(the rule, the message) when the PLAN_APPROVAL_RECORDED row's fingerprint is of an older format, cannot be
    checked, or differs from the one recomputed at HEAD; None when it stands."""
    fields = event.entry.fields
    written = fields.get("approval fingerprint", "").strip().strip("`")
    target = fields.get("plan target", "").strip().strip("`")
    where = f"PLAN_APPROVAL_RECORDED at {event.entry.timestamp} (Plan Target: {target or '?'})"
    if OLDER.match(written):
        return OLD_FINGERPRINT, f"{where}: fingerprint {written[:16]}... is of an older format that v2 reads as " \
            "\"approve again\""
    folder = _plan_folder(rel, target)
    if folder is None or not written.startswith(V3):
        return STALE_APPROVAL, f"{where}: cannot be checked: expected Plan Target `unit:<unit>` or " \
            f"`stage:code-generation` and Approval Fingerprint `{V3}<64 hex>`, found {written or 'no fingerprint'}"
    plan, instructions = f"{folder}/code-generation-plan.md", f"{folder}/unit-test-instructions.md"
    held = history.read("HEAD", [plan, instructions])
    missing = [path for path in (plan, instructions) if held[path] is None]
    if missing:
        return STALE_APPROVAL, f"{where}: HEAD holds no {', '.join(missing)}: the approved plan is not committed"
    texts = [held[path].decode("utf-8", errors="replace") for path in (plan, instructions)]  # type: ignore[union-attr]  # None was ruled out just above
    named = plan.removeprefix(f"{rel}/")
    if has_review(texts[0]):
        return NOT_RECOMPUTED, f"{where}: {named} has a Review heading; its fingerprint is not recomputed"
    contract, why = read_testing_contract(texts[0])
    if contract is None:
        return STALE_APPROVAL, f"{where}: {named} as HEAD holds it has {why}, so v2 itself would not take the " \
            "approval as current"
    recomputed = approval_fingerprint(texts[0], texts[1], contract, target, fields.get("intent", "").strip(),
                                      fields.get("run floor", "").strip())
    if recomputed != written:
        return STALE_APPROVAL, f"{where}: recorded {written[:22]}..., recomputed over {named} and its " \
            f"unit-test-instructions.md at HEAD {recomputed[:22]}...: the plan changed after its approval"
    return None


def _plan_folder(rel: str, target: str) -> str | None:
    """The folder of the plan a Plan Target names: `unit:<u>` -> construction/<u>/code-generation, the zero-unit
    `stage:code-generation` -> construction/code-generation; None for anything else (a unit must be one folder)."""
    if target == "stage:code-generation":
        return f"{rel}/construction/code-generation"
    unit = target.removeprefix("unit:")
    if target.startswith("unit:") and unit and "/" not in unit and "\\" not in unit and unit not in (".", ".."):
        return f"{rel}/construction/{unit}/code-generation"
    return None


# -- the intents registry of each space ------------------------------------------------------------------------------
REGISTRY = "intents/intents.json"


def registry_findings(workspace: RecordsWorkspace) -> list[tuple[Rule, Hit]]:
    """Each space's intents.json read as v2 reads it: a registry that is not an array of `{uuid, slug}` objects is
    an error; a record folder no row names (by `dirName`, or, for a row without one, the older `<slug>-<uuid's
    first 8>` naming) a warning. A broken registry's records are not judged against it."""
    root = Path(workspace.root)
    found: list[tuple[Rule, Hit]] = []
    spaces = {project.record.space for project in workspace.records if project.record is not None}
    spaces |= {path.parent.parent.name for path in (root / WORKSPACE / "spaces").glob(f"*/{REGISTRY}")}
    for space in sorted(spaces):
        rel = f"{WORKSPACE}/spaces/{space}/{REGISTRY}"
        exists = (root / rel).is_file()
        names: set[str] = set()
        if exists:
            rows, problem = _read_registry(root, rel)
            if problem is not None:
                found.append((BAD_REGISTRY, Hit(rel, problem[0], problem[1])))
                continue
            names = {_dir_name(row) for _, row in rows}
        for project in workspace.records:
            if project.record is not None and project.record.space == space and project.record.name not in names:
                held = "holds no row for it" if exists else "does not exist"
                found.append((UNREGISTERED, Hit(rel, None, f"intent record {project.rel}/: {rel} {held}, so v2 "
                                                "lists the record as \"unknown\"")))
    return found


def _read_registry(root: Path, rel: str) -> tuple[list[tuple[int, object]], tuple[int, str] | None]:
    """The registry's rows, each with the line it begins on; or where and why it is not an array of `{uuid, slug}`
    objects."""
    try:
        data = read_bytes(root / rel, MAX_FILE_BYTES)
    except OSError as exc:  # too large, or gone since listed
        return [], (1, f"not readable: {exc.strerror or exc}")
    text, unreadable = decode(data, rel)
    if text is None:
        return [], (unreadable.line or 1, unreadable.message) if unreadable else (1, "not text")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return [], (exc.lineno, f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")
    if not isinstance(value, list):
        return [], (1, f"a JSON {type(value).__name__}, not an array of intent rows")
    rows = _rows(text)
    for line, row in rows:
        if not isinstance(row, dict):
            return [], (line, f"a row that is a JSON {type(row).__name__}, not an object")
        missing = [key for key in ("uuid", "slug") if not (isinstance(row.get(key), str) and row[key].strip())]
        if missing:
            return [], (line, f"a row without {' or '.join(f'`{key}`' for key in missing)} (a non-empty string)")
    return rows, None


def _rows(text: str) -> list[tuple[int, object]]:
    """The rows of a well-formed JSON array, each with the line it begins on."""
    decoder = json.JSONDecoder()
    at = text.index("[") + 1
    rows: list[tuple[int, object]] = []
    while True:
        while text[at] in " \t\r\n,":  # whitespace and the comma between rows (json.loads has checked the rest)
            at += 1
        if text[at] == "]":
            return rows
        row, end = decoder.raw_decode(text, at)
        rows.append((text.count("\n", 0, at) + 1, row))
        at = end


def _dir_name(row: object) -> str:
    assert isinstance(row, dict)
    if isinstance(row.get("dirName"), str):
        return row["dirName"]
    return f"{row['slug']}-{row['uuid'][:8]}"


# -- the migration from the flat aidlc-docs/ ----------------------------------------------------------------------
def flat_folder(workspace: RecordsWorkspace) -> str | None:
    """The flat docs folder beside the workspace's records, where it holds records or HEAD's history held some
    (`workspace.flat_records`). Records that no migration marker says carry it on supersede nothing of it; a
    migration's records carry its log on, which `migration_findings` judges, and its history still holds. None when
    there is none."""
    root = Path(workspace.root)
    config = load_config(root)
    return config.aidlc_docs if workspace.records and flat_records(root, config) else None


def deleted_records(workspace: RecordsWorkspace, since: str | None = None) -> list[str]:
    """The intent record folders HEAD's history held (in `since..HEAD`, with `since`) that HEAD holds as no record:
    a record deleted with its shards is judged by its logs' history (their removal, AIDLC-DOCS-024), as a flat log
    deleted is; reading only the records HEAD holds passed a change that deleted one whole."""
    history = vcs.history(Path(workspace.root))
    if history is None or history.head is None:
        return []
    held = {record.rel for record in workspace.records}
    found = set()
    for revision in history.revisions([V2_SPACES], since):
        for path in revision.files:
            parts = path.split("/")  # aidlc/spaces/<space>/intents/<dir>/...
            if len(parts) > 5 and parts[3] == "intents":
                found.add("/".join(parts[:5]))
    return sorted(found - held)


def migration_findings(workspace: RecordsWorkspace) -> list[Finding]:
    """The migration check: with aidlc/.migrated present and aidlc-docs/audit.md once committed, the last committed
    audit.md must begin some shard of the migrated record, as HEAD holds it, byte for byte."""
    if workspace.migrated is None:
        return []
    history = vcs.history(Path(workspace.root))
    if history is None or history.head is None:
        return []
    last = history.last_holding(FLAT_AUDIT)
    if last is None:
        return []  # the flat audit.md was never committed: nothing to carry over
    flat = history.read(last, [FLAT_AUDIT])[FLAT_AUDIT]
    if flat is None:
        return []
    shards = _migrated_shards(workspace, workspace.migrated)
    held = history.read("HEAD", shards)
    if any(data is not None and data.startswith(flat) for data in held.values()):
        return []
    commit = "HEAD" if last == "HEAD" else last[:12]
    where = ", ".join(shards) or f"{WORKSPACE_RECORDS} (no shard committed)"
    return [Finding(code=MIGRATION_DROPPED.code, severity=MIGRATION_DROPPED.severity, path=MIGRATED, line=None,
                    message=f"{FLAT_AUDIT} as commit {commit} holds it ({len(flat)} bytes) begins none of the "
                    f"migrated record's shards at HEAD: {where}",
                    fix=f"git show {commit}:{FLAT_AUDIT}    # the history the shard must begin with; "
                    f"{MIGRATION_DROPPED.fix}")]


def _migrated_shards(workspace: RecordsWorkspace, migrated: str) -> list[str]:
    """The audit shards of the record aidlc/.migrated names (`... → <record>`), else of every record."""
    target = migrated.rsplit("→", 1)[-1].strip()
    records = [r for r in workspace.records if r.record is not None and r.record.name == target] or workspace.records
    return [log.path for record in records for log in record.audits]
