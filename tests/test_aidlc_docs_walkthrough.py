"""aidlc walkthrough UNIT on the aidlc-docs layout: the evidence report of a unit's code generation, through the real
CLI on the clean sample project (tests/aidlc_docs_sample.py) adopted by `aidlc init`, with a verify command that
really runs the unit's code at HEAD."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc.events.ledger import Ledger
from aidlc.events.view import open_view
from aidlc.model.events import Subject
from aidlc.model.unit_evidence import UnitEvidenceReport
from tests.aidlc_docs_sample import CODE_PLAN, DOCS, UNITS, DocsRepo, build_docs_repo
from tests.helpers import run_cli

UNIT = UNITS[0]
SUMMARY = f"{DOCS}/construction/{UNIT}/code/code-summary.md"
WALKTHROUGH = f"{DOCS}/construction/{UNIT}/code/walkthrough.md"
CHECK = ("python -c \\\"import sys; sys.path.insert(0, 'src'); from shop.orders import place_order; "
         "assert place_order() == 'ok'\\\"")


@pytest.fixture
def docs(tmp_path: Path) -> DocsRepo:
    """The clean project adopted by `aidlc init`, with a verify command, the unit's code summary naming its file,
    a commit changing another file whose subject names the unit, and one that is no unit's."""
    repo = build_docs_repo(tmp_path / "shop")
    assert run_cli("init", cwd=repo.root).returncode == 0
    repo.replace("aidlc.yaml", "verify: []", f'verify:\n  - {{name: orders, run: "{CHECK}"}}')
    repo.write(SUMMARY, "# Code summary\n\n- `src/shop/orders.py`: places an order\n")
    repo.commit("adopt the docs with aidlc init")
    repo.write("src/shop/totals.py", "TOTAL = 0\n")
    repo.commit(f"{UNIT}: order totals")
    repo.write("README.md", "# Shop\n")
    repo.commit("a readme")
    return repo


def walkthrough(repo: DocsRepo, *args: str) -> tuple[int, UnitEvidenceReport]:
    proc = run_cli("walkthrough", *args, "--format", "json", cwd=repo.root)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, UnitEvidenceReport.model_validate(json.loads(proc.stdout))


def test_the_report_of_a_clean_unit_is_complete_and_written_beside_its_code_summary(docs: DocsRepo) -> None:
    proc = run_cli("walkthrough", UNIT, cwd=docs.root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{UNIT}: evidence report written to {WALKTHROUGH}" in proc.stdout
    text = docs.read(WALKTHROUGH)
    assert "- [x] Step 4: do part 4 (line 7)" in text
    assert "PASS `orders`" in text
    assert "code-generation at 2026-11-30T09:08:14Z: \"Continue to Next Stage\"" in text  # audit.md, as history
    code, report = walkthrough(docs, UNIT, "--no-run")
    assert code == 0 and report.satisfied and report.checks_passed
    assert report.plan is not None and (report.plan.done, report.plan.open) == (4, 0)
    assert report.code_paths == ["src/shop/orders.py"]
    found = {c.commit.subject: c.found_by for c in report.commits}
    assert found == {"aidlc-docs: inception and construction of the shop": ["path"],
                     f"{UNIT}: order totals": ["message"]}
    assert [a.stage for a in report.audit_approvals] == ["functional-design", "nfr-requirements", "code-generation"]
    assert report.findings == [] and report.decisions == []
    # The check ran once, at HEAD, and is recorded in the ledger beside the docs about the unit.
    checks = [e for _, e in open_view(Ledger.of_bank(docs.root, DOCS)).events if e.type == "check.recorded"]
    assert [(e.subject, e.datum("name"), e.datum("passed")) for e in checks] == \
        [(Subject(kind="unit", id=UNIT), "orders", True)]
    # The report breaks no rule of the layout.
    assert run_cli("validate", cwd=docs.root).returncode == 0


def test_a_persons_notes_that_are_not_utf8_stop_the_rewrite_and_stay(docs: DocsRepo) -> None:
    assert run_cli("walkthrough", UNIT, cwd=docs.root).returncode == 0
    notes = docs.path(WALKTHROUGH).read_bytes() + "\nRevis\xe9 avec l'\xe9quipe.\n".encode("latin-1")
    docs.path(WALKTHROUGH).write_bytes(notes)
    proc = run_cli("walkthrough", UNIT, cwd=docs.root)
    assert proc.returncode == 2 and "not rewritten: byte 0xe9" in proc.stderr and "Traceback" not in proc.stderr
    assert f"save {WALKTHROUGH} as UTF-8 text, then run aidlc walkthrough" in proc.stderr
    assert docs.path(WALKTHROUGH).read_bytes() == notes


def test_a_persons_notes_survive_and_a_code_generation_approval_stays_current(docs: DocsRepo) -> None:
    assert run_cli("walkthrough", UNIT, cwd=docs.root).returncode == 0
    docs.write(WALKTHROUGH, docs.read(WALKTHROUGH) + "\nReviewed with the team.\n")
    docs.commit("walkthrough of unit 1")
    stages = [("inception", s) for s in ("requirements-analysis", "user-stories", "workflow-planning",
                                         "application-design", "units-generation")]
    for subject, stage in [*stages, *((UNIT, s) for s in ("functional-design", "nfr-requirements", "code-generation"))]:
        decided = run_cli("gate", "approve", subject, "--stage", stage, "--as", "Ana Lima <ana@shop.example>",
                          cwd=docs.root)
        assert decided.returncode == 0, decided.stdout + decided.stderr
    code, report = walkthrough(docs, UNIT)
    assert code == 0
    assert [(d.stage, d.decision, d.current) for d in report.decisions] == [
        ("functional-design", "approve", True), ("nfr-requirements", "approve", True),
        ("code-generation", "approve", True)]
    assert run_cli("walkthrough", UNIT, cwd=docs.root).returncode == 0
    assert docs.read(WALKTHROUGH).endswith("\nReviewed with the team.\n")
    # Rewriting the walkthrough leaves the approval it reports current: nothing is stale (the other unit's ticked
    # stages, undecided in the ledger, are its findings, not this unit's).
    assert report.findings == []
    assert "AIDLC-DOCS-040" not in {f.code for f in docs.findings()}


def test_a_failing_check_and_an_open_plan_step_leave_the_evidence_incomplete(docs: DocsRepo) -> None:
    docs.replace("src/shop/orders.py", "return 'ok'", "return 'broken'")
    docs.replace(CODE_PLAN, "- [x] Step 4", "- [ ] Step 4")
    docs.commit(f"{UNIT}: break the order")
    code, report = walkthrough(docs, UNIT)
    assert code == 1 and not report.satisfied and not report.checks_passed
    assert report.checks[0].excerpt and "AssertionError" in report.checks[0].excerpt
    assert report.plan is not None and [s.text for s in report.plan.steps if not s.done] == ["Step 4: do part 4"]
    # The state file ticks the unit's code generation while its plan has a step open; Build and Test's own finding
    # on the same plan is the construction's, not the unit's.
    assert [(f.code, f.line) for f in report.findings] == \
        [("AIDLC-DOCS-005", docs.line(f"{DOCS}/aidlc-state.md", "Code Generation - EXECUTE (Unit 1"))]
    assert "AIDLC-DOCS-006" in {f.code for f in docs.findings()}
    text = run_cli("walkthrough", UNIT, "--no-run", cwd=docs.root).stdout
    assert "NO  orders" in text and "Evidence incomplete" in text


def test_findings_about_another_unit_are_not_the_units(docs: DocsRepo) -> None:
    other = f"{DOCS}/construction/plans/{UNITS[1]}-code-generation-plan.md"
    docs.replace(other, "- [x] Step 3", "- [ ] Step 3")
    docs.commit(f"{UNITS[1]}: reopen a step")
    assert {f.code for f in docs.findings()} == {"AIDLC-DOCS-005", "AIDLC-DOCS-006"}
    code, report = walkthrough(docs, UNIT)
    assert code == 0 and report.findings == []
    assert f"{UNITS[1]}: reopen a step" not in {c.commit.subject for c in report.commits}


def test_no_run_records_nothing_and_output_writes_elsewhere(docs: DocsRepo, tmp_path: Path) -> None:
    out = tmp_path / "out" / "unit.md"
    assert run_cli("walkthrough", UNIT, "--no-run", "--output", str(out), cwd=docs.root).returncode == 1
    assert out.read_text(encoding="utf-8").startswith("<!-- aidlc:evidence begin head=")
    assert not docs.path(WALKTHROUGH).exists()
    code, report = walkthrough(docs, UNIT, "--no-run")
    assert code == 1 and report.checks == [] and not report.checks_passed
    assert not [e for _, e in open_view(Ledger.of_bank(docs.root, DOCS)).events if e.type == "check.recorded"]


def test_an_unknown_unit_and_bolt_only_options_are_refused(docs: DocsRepo) -> None:
    proc = run_cli("walkthrough", "unit-9-payments", cwd=docs.root)
    assert proc.returncode == 2
    assert f"no unit 'unit-9-payments' in {DOCS}/construction/ (the units: {', '.join(UNITS)})" in proc.stderr
    proc = run_cli("walkthrough", UNIT, "--html", "x.html", cwd=docs.root)
    assert proc.returncode == 2 and "--html: a bolt's report only" in proc.stderr
    assert not docs.path(WALKTHROUGH).exists()


def test_commits_are_found_by_the_units_name_number_and_scope_and_shared_paths_are_nobodys(docs: DocsRepo) -> None:
    # Both units' code summaries name the root package.json and the orders-api module; only unit 1's spells its name.
    docs.write(SUMMARY, "# Code summary\n\n- `src/shop/orders.py`\n- `orders-api/` (the module)\n- `package.json`\n")
    docs.write(f"{DOCS}/construction/{UNITS[1]}/code/code-summary.md",
               "# Code summary\n\nUses `orders-api/` and `package.json`; its code is in `web/`.\n")
    docs.write("package.json", "{}\n")
    docs.write("orders-api/handler.py", "HANDLER = 1\n")
    docs.write("web/app.js", "export {}\n")
    docs.commit("docs: code summaries")
    for rel, subject in [("orders-api/handler.py", "fix: handler"),            # a path only unit 1 spells
                         ("package.json", "chore: bump the dependencies"),     # shared: nobody's
                         ("src/shop/cart.py", "feat(orders): the cart"),       # scope: the name's first word
                         ("src/shop/tax.py", "Unit 1 tax rules"),              # its number
                         ("src/shop/refund.py", "Orders API refunds"),         # its name, in words
                         ("web/page.js", "feat(web): a page")]:                # another unit's
        docs.write(rel, f"# {subject}\n")
        docs.commit(subject)
    docs.write(CODE_PLAN, docs.read(CODE_PLAN) + "\nNotes for unit 1.\n")
    docs.commit("docs: unit 1 code generation plan notes")  # names unit 1, changes no code
    _, report = walkthrough(docs, UNIT, "--no-run")
    found = {c.commit.subject: c.found_by for c in report.commits}
    assert "orders-api" in report.code_paths and "package.json" not in report.code_paths
    assert found == {"aidlc-docs: inception and construction of the shop": ["path"],
                     f"{UNIT}: order totals": ["message"], "docs: code summaries": ["path"], "fix: handler": ["path"],
                     "feat(orders): the cart": ["message"], "Unit 1 tax rules": ["message"],
                     "Orders API refunds": ["message"]}
    _, other = walkthrough(docs, UNITS[1], "--no-run")
    assert {c.commit.subject for c in other.commits} == {"docs: code summaries", "feat(web): a page"}


def test_the_tdd_variant_of_the_plan_named_by_the_units_number_is_the_units_plan(docs: DocsRepo) -> None:
    # The rules' TDD variant, named by the unit's number only: unit-1-tdd-code-generation-plan.md.
    tdd = f"{DOCS}/construction/plans/unit-1-tdd-code-generation-plan.md"
    docs.write(tdd, docs.read(CODE_PLAN).replace("- [x] Step 4", "- [ ] Step 4"))
    (docs.root / CODE_PLAN).unlink()
    docs.commit("aidlc-docs: the TDD plan")
    _, report = walkthrough(docs, UNIT, "--no-run")
    assert report.plan is not None and (report.plan.path, report.plan.open) == (tdd, 1)


def test_an_approval_logged_with_an_ide_s_context_shows_the_person_s_words(docs: DocsRepo) -> None:
    # Codex's IDE extension puts its context before the request; agents log both as the raw input (jin-101/SPA-BRIDGE).
    said = '"Continue to Next Stage"'
    wrapped = ('"# Context from my IDE setup:\n\n## Active file: src/shop/orders.py\n\n## Open tabs:\n'
               '- src/shop/orders.py: src/shop/orders.py\n\n## My request for Codex:\nContinue to Next Stage"')
    assert docs.read(f"{DOCS}/audit.md").count(said) >= 1
    docs.write(f"{DOCS}/audit.md", docs.read(f"{DOCS}/audit.md").replace(said, wrapped))
    _, report = walkthrough(docs, UNIT, "--no-run")
    assert [a.user_input for a in report.audit_approvals][-1] == "Continue to Next Stage"


def test_the_lines_the_units_commits_added_that_silence_a_check_are_listed(docs: DocsRepo) -> None:
    """A `# noqa` and a `# pylint: disable` the unit's commit added: before, the report said nothing of them."""
    docs.write("src/shop/totals.py", "import os  # noqa: F401\n\nTOTAL = 0  # pylint: disable=invalid-name\n")
    docs.commit(f"{UNIT}: quiet the linters")
    _, report = walkthrough(docs, UNIT, "--no-run")
    assert [(s.path, s.lines) for s in report.silenced] == [
        ("src/shop/totals.py", ["1: import os # noqa: F401", "3: TOTAL = 0 # pylint: disable=invalid-name"])]
    run_cli("walkthrough", UNIT, "--no-run", cwd=docs.root)
    text = docs.read(WALKTHROUGH)
    assert "- `src/shop/totals.py` in " in text and "1: import os # noqa: F401" in text
