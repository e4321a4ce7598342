"""aidlc audit append: one entry at the end of the aidlc-docs audit log, with the real time, recorded in the ledger."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from aidlc.aidlc_docs.records import active_record, record_folders
from aidlc.aidlc_docs.stages import STAGES
from aidlc.bank.config import V2_SPACES, load_config
from aidlc.cli.app import App, output_options
from aidlc.errors import UsageError
from aidlc.events.audit import Texts, append_entry, append_event
from aidlc.gates.actor import writer
from aidlc.names import arg
from aidlc.workspace import layout_of, reads_workspace, records_folder

_TEXT = "TEXT verbatim, never a summary; @FILE reads it from a UTF-8 file, - from stdin, @@... is a text starting @."


@output_options
@click.group("audit")
def audit_group() -> None:
    """The aidlc-docs audit log: append entries with the real time, recorded in the ledger."""


@audit_group.command("append")
@click.option("--stage", required=True, metavar="STAGE", help="A stage slug (" + ", ".join(s.slug for s in STAGES)
              + "): the heading is its title; or a heading of your own, e.g. 'Requirements Analysis - Approval'.")
@click.option("--user-input", required=True, metavar="TEXT", help=f"The person's input: {_TEXT}")
@click.option("--ai-response", required=True, metavar="TEXT", help=f"The agent's response or action: {_TEXT}")
@click.option("--context", metavar="TEXT", help=f"The stage, action or decision (default: the phase and stage): "
              f"{_TEXT}")
@click.option("--intent", "intent", metavar="[SPACE/]INTENT", help="aidlc-workflows v2 records: the intent record "
              "whose shard takes the entry (default: the one v2's active-intent cursor names, or the only one).")
@output_options
@click.pass_obj
def append_cmd(app: App, stage: str, user_input: str, ai_response: str, context: str | None,
               intent: str | None) -> None:
    """Append one entry to aidlc-docs/audit.md in the aidlc-workflows format, with the time now (UTC).

    On aidlc-workflows v2 records (aidlc/spaces/SPACE/intents/INTENT/), one DECISION_RECORDED block (Stage, User
    Input, AI Response, Context) at the end of this clone's shard, audit/<host>-<clone>.md, as v2 writes them.
    The file is never rewritten: one write at its end, under a lock, then fsync; the ledger records the entry's
    line and the sha256 of its bytes, so `aidlc log verify` catches a later edit or deletion. A line break in a
    text is written as the two characters \\n. Agents call this instead of `date` and a file write.
    """
    root = app.root()
    config = load_config(root)
    if layout_of(root, config) != "aidlc-docs":
        raise UsageError(f"{root} keeps its records in {config.memory_bank}/, not in an aidlc-docs folder: "
                         "`aidlc audit append` writes aidlc-docs/audit.md",
                         ["set `layout: aidlc-docs` (and `aidlc_docs:`) in aidlc.yaml if the project uses it"])
    given = {"--user-input": user_input, "--ai-response": ai_response, "--context": context}
    if sum(value == "-" for value in given.values()) > 1:
        raise UsageError("only one text can come from stdin (-)", ["--user-input - --ai-response @FILE"])
    records = record_folders(root)
    # The workspace's records, none yet: a flat aidlc-docs/audit.md beside it would be read by no one.
    if not records and reads_workspace(root, config):
        raise UsageError(f"{root / V2_SPACES} is an aidlc-workflows v2 workspace with no intent record yet: v2 logs "
                         "an intent's entries in its record (aidlc/spaces/SPACE/intents/INTENT/audit/), and an "
                         "aidlc-docs/audit.md beside it would be read by no one; nothing was written",
                         ["start the intent with the AI-DLC workflow, which makes its record; then: "
                          "aidlc audit append --stage STAGE ...", "aidlc status    # the workspace as aidlc reads it"])
    if intent is not None and not records:
        raise UsageError(f"--intent is for aidlc-workflows v2 records, and {root} has none under aidlc/spaces/",
                         ["aidlc audit append --stage STAGE ...    # to aidlc-docs/audit.md"])
    target = _record(root, records, intent) if records else None
    texts = {option: None if value is None else _read(option, value) for option, value in given.items()}
    said = Texts(stage=stage, user_input=texts["--user-input"] or "", ai_response=texts["--ai-response"] or "",
                 context=texts["--context"])
    folder = records_folder(root, config)
    appended = append_event(root, folder, target, said, writer(root)) if target is not None \
        else append_entry(root, folder, said, writer(root))
    record = appended.record
    if appended.settled:
        app.note(f"note: {appended.settled}")
    if app.json:
        app.emit_json({**record.model_dump(mode="json", exclude_none=True), "stage": appended.stage,
                       "seq": appended.seq, "settled": appended.settled})
        return
    app.out(f"appended to {record.path}:{record.line}: ## {record.heading}  (ledger seq {appended.seq}, "
            f"sha256 {record.sha256[:12]})")


def _record(root: Path, records: list[str], intent: str | None) -> str:
    """The intent record an entry goes to: the one --intent names (INTENT or SPACE/INTENT), else the one v2's
    cursors name, else the only one."""
    named = {rel: f"{rel.split('/')[2]}/{rel.split('/')[4]}" for rel in records}  # aidlc/spaces/S/intents/I
    listed = ", ".join(named.values())
    if intent is not None:
        found = [rel for rel, name in named.items() if intent in (name, name.split("/")[1])]
        if len(found) == 1:
            return found[0]
        raise UsageError(f"--intent {intent}: names {'more than one' if found else 'no'} intent record of "
                         f"aidlc/spaces/ (they are: {listed})", ["aidlc audit append --intent SPACE/INTENT ..."])
    active = active_record(root, records)
    if active is not None:
        return active
    if len(records) == 1:
        return records[0]
    raise UsageError(f"{len(records)} intent records and no active-intent cursor naming one: say which ({listed})",
                     [f"aidlc audit append --intent {arg(next(iter(named.values())))} ..."])


def _read(option: str, value: str) -> str:
    """The text of an option: as given, from stdin (-) or from a file (@FILE); one final line break of a file or
    stdin is dropped (files end with one)."""
    if value.startswith("@@"):
        return value[1:]
    if value != "-" and not value.startswith("@"):
        return value
    name = "stdin" if value == "-" else value[1:]
    try:
        data = sys.stdin.buffer.read() if value == "-" else Path(name).read_bytes()
    except OSError as exc:
        raise UsageError(f"{option} {value}: cannot be read ({exc.strerror or exc}); nothing was written",
                         [f"{option} @FILE    # a file that exists", f"{option} -    # the text from stdin"]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise UsageError(f"{option} {value}: line {line} is not UTF-8; nothing was written",
                         [f"iconv -t utf-8 {name if value != '-' else 'FILE'} > text.txt && {option} @text.txt"]
                         ) from None
    return text.removesuffix("\n").removesuffix("\r")
