"""aidlc walkthrough BOLT: write the bolt's evidence report into its implementation-walkthrough.md."""

from __future__ import annotations

from pathlib import Path

import click

from aidlc.cli import complete
from aidlc.cli.app import App, echo, output_options, write_output
from aidlc.cli.modelflags import ModelFlags, model_options
from aidlc.errors import UsageError
from aidlc.model.config import Config
from aidlc.names import arg, command, gate_command


@click.command("walkthrough")
@click.argument("bolt", metavar="BOLT|UNIT", shell_complete=complete.bolts)
@click.option("--no-run", is_flag=True, help="Run no check and ask no model: report what is recorded.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the report as one self-contained HTML page.")
@click.option("--attest", "attest_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write an in-toto Statement v1: the files the bolt's own commits changed, as the head holds "
              "them, with the report's digest; other commits between base and head named as deviations.")
@click.option("--sign", is_flag=True, help="With --attest: wrap the Statement in a DSSE envelope signed with the "
              "SSH key git signs with, as signed approvals are (verifiable with ssh-keygen -Y verify against "
              "allowed_signers).")
@click.option("--output", "output_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write the report to FILE instead of the bolt's implementation-walkthrough.md.")
@model_options
@output_options
@click.pass_obj
def walkthrough_cmd(app: App, bolt: str, no_run: bool, html_file: Path | None, attest_file: Path | None, sign: bool,
                    output_file: Path | None, model_flags: ModelFlags) -> None:
    """Write the evidence report of BOLT into its implementation-walkthrough.md (on the aidlc-docs layout: of
    UNIT's code generation, a folder under construction/, into its code/walkthrough.md).

    Traceability, changes, deviations from the plan, checks, the verification its risk requires, rollback,
    cost and the decision needed, from git and the ledger. Notes outside the generated block survive.
    A walkthrough a person approved is never rewritten: the report is printed instead (or written to --output).
    Files named by --html, --attest and --output get their missing folders.
    Exit 0: the evidence the bolt's risk requires before the gate is complete; 1: the report is written, and
    the walkthrough gate would refuse an approval (aidlc-docs: no passing check at HEAD, or an error finding about
    the unit)."""
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.bank.config import load_config
    from aidlc.bolt.walkthrough import write_walkthrough
    from aidlc.gates.attest import attestation
    from aidlc.report.pages import render_html
    from aidlc.workspace import layout_of, open_bank

    if sign and attest_file is None:
        raise UsageError("--sign signs the statement --attest writes: name its file",
                         [f"aidlc walkthrough {arg(bolt)} --attest {arg(bolt)}.intoto.json --sign"])
    config = load_config(app.root())
    if layout_of(app.root(), config) == "aidlc-docs":
        refused = [option for option, value in (("--html", html_file), ("--attest", attest_file)) if value]
        if refused:
            raise UsageError(f"{' and '.join(refused)}: a bolt's report only; on the aidlc-docs layout the unit's "
                             "report is Markdown or JSON", [f"aidlc walkthrough {arg(bolt)} --format json"])
        _unit_walkthrough(app, config, bolt, no_run, output_file)
    bank = open_bank(app.root())
    root = Path(bank.repo_root)
    reviewer = None if no_run else model_flags.builder(app, root)
    written = write_walkthrough(root, bank, bolt, run=not no_run, reviewer=reviewer, note=app.note,
                                write=output_file is None)
    report = written.report
    named: list[tuple[Path, str, str]] = []  # each file made first, then all written: a refusal writes none
    if output_file is not None:
        named.append((output_file, "--output", written.block))
    if html_file is not None:
        named.append((html_file, "--html", render_html(report, written.digest)))
    if attest_file is not None:
        attested = attestation(root, report, written.digest, bank.rel_root if sign else None)
        named.append((attest_file, "--attest", attested.text))
        for line in attested.deviations:
            app.note(f"--attest: commit {line} lies between the bolt's base and head and is not the bolt's: not "
                     "attested as its work, named as a deviation in the statement")
    for path, option, text in named:
        write_output(path, text, option, command("walkthrough", report.bolt, f"{option} PATH"))
    code = 0 if report.verification.satisfied else 1  # written either way; 1: the gate would refuse it
    kept = written.kept if output_file is None else None
    if app.json:
        if kept:
            app.note(f"{kept} (--output FILE writes the report to a file)")
        app.emit_json(report.model_dump(mode="json"))
        raise click.exceptions.Exit(code)
    if kept:
        echo(written.block, nl=False)
        app.note(f"{kept}; the report above is as of now (--output FILE writes it to a file)")
        raise click.exceptions.Exit(code)
    verification = report.verification
    app.out(f"{report.bolt}: evidence report written to {output_file or written.rel} "
            f"(digest {written.digest[:12]})")
    app.out(f"  head {report.head[:12]}, base {report.base[:12]}, risk {report.risk or 'not set'}, "
            f"{len(report.commits)} commit(s), {len(report.changes)} file(s) changed, "
            f"{len(report.deviations)} deviation(s) from the plan")
    for item in verification.items:
        mark = "ok " if item.satisfied else ("..." if item.at_gate else "NO ")
        app.out(f"  {mark} {item.requirement}: {item.detail}")
    for line in report.notes:
        app.out(f"  note: {line}")
    if verification.satisfied:
        app.out(f"Evidence complete. Next: {report.decision.command}")
    else:
        app.out("Evidence incomplete: the walkthrough gate refuses an approval until each NO above is met.")
    raise click.exceptions.Exit(code)


def _unit_walkthrough(app: App, config: Config, unit: str, no_run: bool, output_file: Path | None) -> None:
    # Loaded when the command runs: --help and shell completion import this file too.
    from aidlc.aidlc_docs.model import RecordsWorkspace
    from aidlc.report.unit_evidence import record_unit, write_unit_walkthrough
    from aidlc.workspace import open_docs, open_records

    records = open_records(app.root())
    if isinstance(records, RecordsWorkspace):  # v2: the unit of one of its intent records
        target = record_unit(records, unit)
        assert target.docs is not None
        written = write_unit_walkthrough(target.docs, config, unit, run=not no_run, note=app.note,
                                         write=output_file is None, target=target)
    else:
        written = write_unit_walkthrough(open_docs(app.root(), config), config, unit, run=not no_run,
                                         note=app.note, write=output_file is None)
    report = written.report
    unit = report.unit
    if output_file is not None:
        write_output(output_file, written.block, "--output", command("walkthrough", unit, "--output PATH"))
    code = 0 if report.satisfied else 1  # written either way; 1: the evidence is not complete
    if app.json:
        app.emit_json(report.model_dump(mode="json"))
        raise click.exceptions.Exit(code)
    plan = f"plan {report.plan.done} done, {report.plan.open} open" if report.plan else "no plan"
    app.out(f"{unit}: evidence report written to {output_file or written.rel} (digest {written.digest[:12]})")
    app.out(f"  head {report.head[:12]}, {plan}, {len(report.commits)} commit(s), {len(report.decisions)} gate "
            f"decision(s), {len(report.audit_approvals)} approval(s) in the audit log (history), "
            f"{len(report.findings)} finding(s)")
    for check in report.checks:
        mark = "ok " if check.passed and check.current else "NO "
        app.out(f"  {mark} {check.name}{'' if check.current else ' (recorded for older code)'}")
    for finding in report.findings:
        app.out(f"  {finding.severity} {finding.code} {finding.path}:{finding.line or ''} {finding.message}")
    for line in report.notes:
        app.out(f"  note: {line}")
    if report.satisfied:
        app.out("Evidence complete. Next: " + gate_command(unit, "code-generation", options="--reason '...'"))
    else:
        app.out("Evidence incomplete: no passing check at HEAD, or an error finding about the unit (above).")
    raise click.exceptions.Exit(code)
