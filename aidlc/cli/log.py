"""aidlc log show|verify|merge: read, check and merge the ledger."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path

import click

from aidlc import vcs
from aidlc.bank.config import load_config
from aidlc.bank.walk import find_bank
from aidlc.cli.app import App, echo, output_options
from aidlc.errors import UsageError
from aidlc.events.audit_records import RecordProblem, check_records
from aidlc.events.canonical import plain
from aidlc.events.ledger import Ledger, no_ledger
from aidlc.events.merge import merge_files
from aidlc.events.verify import CHAIN_KINDS, TIME_KINDS, Problem, Verification, split_lines, verify_lines
from aidlc.events.view import NotAnEvent, event_checks, read_events
from aidlc.gates import signatures
from aidlc.names import arg
from aidlc.workspace import records_folder


@output_options
@click.group("log")
def log_group() -> None:
    """The ledger: memory-bank/events.jsonl (aidlc-docs/events.jsonl in the aidlc-docs layout)."""


def ledger_at(root: Path) -> Ledger:
    """The ledger of the project under `root` (beside its memory bank, or in its aidlc-docs folder), found from
    aidlc.yaml alone: reading it needs no artifact loaded."""
    config = load_config(root)
    folder = records_folder(root, config)
    repo_root, bank_dir = find_bank(root.resolve(), folder)
    if not bank_dir.is_dir():
        bank = folder == config.memory_bank
        adopt = "scaffold aidlc.yaml and memory-bank/" if bank else "adopt the aidlc-docs folder"
        raise UsageError(f"no {'memory bank' if bank else 'aidlc-docs folder'} at {bank_dir}",
                         [f"aidlc init {arg(str(root))}    # {adopt}"])
    return Ledger.of_bank(repo_root, bank_dir.relative_to(repo_root).as_posix())


@log_group.command("show")
@click.option("--subject", help="Only events about this intent, bolt or release id.")
@click.option("--type", "event_type", help="Only events of this type, e.g. gate.decided.")
@output_options
@click.pass_obj
def show_cmd(app: App, subject: str | None, event_type: str | None) -> None:
    """List ledger events, oldest first."""
    ledger = ledger_at(app.root())
    if not ledger.exists():
        raise no_ledger(ledger)
    damaged: list[int] = []
    events = [e for e in ledger.events(damaged)
              if (subject is None or (e.subject is not None and e.subject.id == subject))
              and (event_type is None or e.type == event_type)]
    if damaged:
        many = len(damaged) > 1
        app.note(f"{ledger.rel}: line{'s' if many else ''} {', '.join(map(str, damaged[:10]))} "
                 f"{'hold' if many else 'holds'} no readable event and {'are' if many else 'is'} not shown; "
                 "run `aidlc log verify`")
    if app.json:
        app.emit_json({"events": [plain(e) for e in events]})
        return
    for e in events:
        about = f" {e.subject.kind}:{e.subject.id}" if e.subject else ""
        stage = f" {e.stage}" if e.stage else ""
        decision = f" -> {e.decision}" if e.decision else ""
        echo(f"{e.seq:>6} {e.ts} {e.type:<16}{about}{stage}{decision}  "
             f"[{e.actor.kind}: {e.actor.name}]" + (f"  {e.reason}" if e.reason else ""))
    if not events:
        app.note("no matching events")


@log_group.command("verify")
@click.option("--against", "ref", metavar="GIT-REF", help="Also check every event of the ledger at this ref "
              "is still present, byte for byte (e.g. origin/main).")
@output_options
@click.pass_obj
def verify_cmd(app: App, ref: str | None) -> None:
    """Check the hash chain and every event's time and commit; exit 1 at the first problem, naming its line."""
    ledger = ledger_at(app.root())
    if not ledger.exists():
        raise no_ledger(ledger)
    against = None
    if ref is not None:  # an empty --against (an unset CI variable) must not silently skip the check
        old = _file_at(ledger.repo_root, ref, ledger.rel)
        against = split_lines(old) if old else []
    result = verify_lines(ledger.lines, against=against, stop_at_first=True, checks=event_checks(ledger.repo_root))
    problem = result.first_error
    notices = [p for p in result.problems if not p.is_error]
    signed, audit, not_events = _beyond_the_chain(ledger) if problem is None else ([], [], [])
    if app.json:
        app.emit_json({"path": ledger.rel, "ok": result.ok and not signed and not audit and not not_events,
                       "events": result.events, "not_events": [asdict(found) for found in not_events],
                       "against": ref, "problem": None if problem is None else _problem_json(problem),
                       "notices": [_problem_json(p) | {"severity": p.severity} for p in notices],
                       "signatures": [asdict(p) for p in signed], "audit": [asdict(p) for p in audit]})
    else:
        _print_result(ledger.rel, ref, result, signed, audit, not_events)
    if problem is not None or signed or audit or not_events:
        raise click.exceptions.Exit(1)


def _print_result(rel: str, ref: str | None, result: Verification, signed: list[signatures.Problem],
                  audit: list[RecordProblem], not_events: list[NotAnEvent]) -> None:
    """The verification as text: its notices, then the first thing wrong (or that all is well)."""
    problem = result.first_error
    for notice in (p for p in result.problems if not p.is_error):
        echo(f"{notice.severity}: {rel}:{notice.line} seq {notice.seq}: {notice.kind}: {notice.message}")
    if signed:
        _print_signature_problems(signed)
    elif audit:
        for found in audit:
            echo(f"✗ {found.path}:{found.line}: {found.message} (recorded by {rel} seq {found.seq})")
        echo(f"Next steps:\n  git log -p -- {arg(audit[0].path)}    # who changed the audit log, and how\n"
             "  restore the entry as it was written: the audit log is append-only")
    elif not_events:
        _print_not_events(rel, not_events)
    elif problem is None:
        echo(f"ledger verified: {rel}, {result.events} events" + (f", all of {ref} present" if ref else ""))
    else:
        where = f"{rel}:{problem.line}" if problem.kind != "missing" else f"{rel} at {ref}"
        seq = "?" if problem.seq is None else problem.seq  # an unreadable line has no seq to name
        echo(f"✗ {where} seq {seq}: {problem.kind}: {problem.message}")
        echo("Next steps:\n" + "\n".join(f"  {step}" for step in _next_steps(problem, rel)))


def _beyond_the_chain(ledger: Ledger) -> tuple[list[signatures.Problem], list[RecordProblem], list[NotAnEvent]]:
    """What an intact chain is checked for beyond it: its signatures; then the digests of the audit entries it
    records (are the entries still as written?), in the same pass that reads every line as an event (a line the
    chain holds must be one, else no reader sees it)."""
    signed = signatures.ledger_problems(ledger)
    if signed:
        return signed, [], []
    not_events: list[NotAnEvent] = []  # complete once check_records has read every event
    events = (event for _, event in read_events(ledger.lines(), not_events))
    audit = check_records(ledger.repo_root, ledger.rel, events)
    return signed, audit, not_events


def _print_not_events(rel: str, not_events: list[NotAnEvent]) -> None:
    more = f" (and {len(not_events) - 1} more such lines)" if len(not_events) > 1 else ""
    echo(f"✗ {rel}:{not_events[0].line}: {not_events[0].message}{more}")
    echo(f"Next steps:\n  {NotAnEvent.next_step(rel)}")


def _print_signature_problems(problems: list[signatures.Problem]) -> None:
    for found in problems:
        echo(f"✗ {found.path}{f':{found.line}' if found.line else ''}: {found.message}")
    echo(f"Next steps:\n  {problems[0].fix}")


def _problem_json(problem: Problem) -> dict[str, object]:
    return {"line": problem.line, "seq": problem.seq, "kind": str(problem.kind), "message": problem.message}


def _next_steps(problem: Problem, rel: str) -> list[str]:
    who = f"git log -p -- {arg(rel)}    # who changed the ledger, and how"
    if problem.kind in CHAIN_KINDS:
        return [who, "restore the file from the last good commit; the ledger is append-only"]
    if problem.kind in TIME_KINDS:
        return [who, "an event's time is part of its hash: restore the file from the last good commit, and check "
                "the clock of the machine that wrote the line"]
    return ["git fetch --all    # the commit may be on a branch this clone has not fetched", who]


def _file_at(repo: Path, ref: str, rel: str) -> bytes | None:
    if not ref.strip():
        raise UsageError("--against needs a git ref, e.g. origin/main", ["git branch -a    # the refs that exist"])
    return vcs.show_file(repo, ref, rel)


@log_group.command("merge")
@click.argument("base", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def merge_cmd(base: Path, ours: Path, theirs: Path) -> None:
    """Git merge driver (%O %A %B): the shared lines, then each side's new ones (the same either way)."""
    ok, message = merge_files(base, ours, theirs)
    echo(f"aidlc: {message}", err=True)
    sys.exit(0 if ok else 1)
