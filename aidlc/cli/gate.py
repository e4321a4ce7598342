"""aidlc gate approve|reject|escalate|defer SUBJECT --stage STAGE: record a human decision."""

from __future__ import annotations

from pathlib import Path

import click

from aidlc.aidlc_docs.model import RecordsWorkspace
from aidlc.bank.config import load_config
from aidlc.cli import complete
from aidlc.cli.app import App, output_options
from aidlc.events.canonical import plain
from aidlc.gates.actor import actor_from
from aidlc.gates.decide import Recorded, decide, decide_docs
from aidlc.gates.effects import reconcile
from aidlc.gates.resolve import resolve_docs, resolve_record
from aidlc.model.config import Config
from aidlc.model.events import Actor, Decision
from aidlc.names import gate_command
from aidlc.workspace import layout_of, open_bank, open_docs, open_records, records_folder

# What each decision means, for `aidlc gate --help` and each decision's own help.
SHORT = {
    Decision.approve: "The gate passes: the artifact is right as it is.",
    Decision.reject: "The artifact is not right: the gate waits for its rework.",
    Decision.escalate: "Someone else must decide: the gate waits.",
    Decision.defer: "Not decided now: the gate waits.",
}
MEANING = {
    Decision.approve: "The artifact is right as it is: the gate passes and the next one opens. Approving a bolt "
                      "plan starts the bolt, its walkthrough completes the bolt and its stories, an intent's "
                      "bolt-plan moves it to construction. Goes stale if what it judged changes.",
    Decision.reject: "The artifact is not right: recorded with the reason, nothing changes, and the gate waits "
                     "for a new decision once the artifact is reworked.",
    Decision.escalate: "Someone else must decide (a lead, an owner, compliance): recorded with the reason, "
                       "nothing changes, and the gate waits.",
    Decision.defer: "Not decided now: recorded with the reason (why, until when), nothing changes, and the gate "
                    "waits.",
}


@output_options
@click.group("gate")
def gate_group() -> None:
    """Record a human decision at a gate, bound to the bytes it judged.

    \b
    SUBJECT: an intent or a bolt, named as `aidlc new` names them (001, checkout,
    001-checkout; intent:ID or bolt:ID when a name is both), release:ID, or
    policy (a change of the rules pull requests are judged by: --stage change).
    In the aidlc-docs layout: inception, a unit's folder under construction/,
    or construction (build and test), with the stage's slug. On aidlc-workflows
    v2 records (aidlc/spaces/SPACE/intents/INTENT/): [SPACE/]INTENT for the
    stages of its aidlc-state.md, [SPACE/]INTENT/UNIT for a unit's (a folder
    under its construction/), in the order of its state rows.
    Only the first gate still waiting for a person can be decided; only a person
    decides (an agent or a CI run is refused, and nothing is recorded).
    Only an approve passes a gate; the other decisions keep it waiting.
    """


def _decision_command(decision: Decision) -> click.Command:
    @click.command(decision.value, help=f"{MEANING[decision]}\n\nRecords '{decision.value}' for SUBJECT (an intent, "
                   "a bolt, release:ID or policy) at --stage.", short_help=SHORT[decision])
    @click.argument("subject", shell_complete=complete.subjects)
    @click.option("--stage", required=True, shell_complete=complete.stages,
                  help="intent: requirements|units|stories|bolt-plan; "
                  "bolt: plan|walkthrough (DDD: plan|model|design|adr|walkthrough); release: deploy; policy: change. "
                  "aidlc-docs: inception: reverse-engineering|requirements-analysis|user-stories|workflow-planning|"
                  "application-design|units-generation; a unit: functional-design|nfr-requirements|nfr-design|"
                  "infrastructure-design|code-generation; construction: build-and-test. v2 records: a slug of a "
                  "row of the intent's aidlc-state.md (a unit: its per-unit rows).")
    @click.option("--reason", help="Why; recorded in the ledger.")
    @click.option("--as", "as_actor", metavar='"NAME <EMAIL>"', help="Decide as this person (default: git config).")
    @output_options
    @click.pass_obj
    def command(app: App, subject: str, stage: str, reason: str | None, as_actor: str | None) -> None:
        root = app.root()
        config = load_config(root)
        if layout_of(root, config) == "aidlc-docs":
            actor = actor_from(root, as_actor)
            records = open_records(root)
            target = resolve_record(records, subject, stage) if isinstance(records, RecordsWorkspace) \
                else resolve_docs(open_docs(root, config), subject, stage)
            recorded = decide_docs(target, records_folder(root, config), config, subject, stage, decision, reason,
                                   actor)
        else:
            actor, recorded = _decide_in_bank(app, config, subject, stage, decision, reason, as_actor)
        event = recorded.event
        if recorded.completed:
            app.note("the ledger's last line lacked its newline (it was complete and intact); the newline was added")
        if recorded.recovered:
            app.note(f"the ledger's last line was torn (an interrupted write); it was moved to {recorded.recovered} "
                     "and a ledger.tail_recovered event records its sha256")
        if app.json:
            app.emit_json({"event": plain(event), "changed": recorded.changed, "recovered": recorded.recovered,
                           "waiting": recorded.waiting})
            raise click.exceptions.Exit(3 if recorded.waiting else 0)
        assert event.subject is not None and event.fingerprint is not None, "a decision names its gate and bytes"
        app.out(f"recorded: {event.subject.kind} {event.subject.id} {stage} -> {decision.value} "
                f"by {actor.name} (seq {event.seq}, {event.fingerprint.path} "
                f"sha256 {event.fingerprint.sha256[:12]})")
        for path in recorded.changed:
            app.out(f"  ~ {path}")
        if recorded.waiting:
            app.out(f"{recorded.waiting}: {gate_command(event.subject.id, stage)}")
            raise click.exceptions.Exit(3)

    return command


def _decide_in_bank(app: App, config: Config, subject: str, stage: str, decision: Decision, reason: str | None,
                    as_actor: str | None) -> tuple[Actor, Recorded]:
    bank = open_bank(app.root(), config=config)  # aidlc.yaml as the command read it, once
    repaired = reconcile(bank)
    if repaired:
        app.note(f"applied the status changes of the previous decision: {', '.join(repaired)}")
        bank = open_bank(app.root(), config=config)
    actor = actor_from(Path(bank.repo_root), as_actor)
    return actor, decide(bank, subject, stage, decision, reason, actor)


for _decision in Decision:
    gate_group.add_command(_decision_command(_decision))
