"""aidlc ci's outputs: baselines for brownfield banks, GitHub workflow commands and job summary, SARIF 2.1.0.

The SARIF document is checked against the official OASIS schema (tests/data/sarif/, licence in NOTICE.md);
the workflow-command tests read the output as the runner does: a line starting with `::` is a command, and
`::stop-commands::TOKEN` silences every command until `::TOKEN::`."""

from __future__ import annotations

import csv
import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest

from aidlc import __version__
from aidlc.ci.github import annotation, escape_data, escape_property
from aidlc.ci.sarif import document as sarif_document
from aidlc.ci.sarif import published_home
from aidlc.model.ci import CiFinding, CiReport
from aidlc.rules import every_rule
from tests.helpers import console_script, run_cli
from tests.test_ci import (  # noqa: F401 - pr is a fixture
    BOB,
    CODE,
    approved_plan,
    ci,
    code_change,
    commit,
    document,
    pr,
    to_base,
)
from tests.test_gate import REQUIREMENTS, STORY, edit, read, write

SCHEMA = Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json"
CATALOGUE_PAGE = Path(__file__).parent.parent / "docs" / "rules.md"


def _broken_link(root: Path, extra: str = "FR-9") -> None:
    """AIDLC-REF-001 on the story's `requirements:` line, a finding with a line."""
    edit(root, STORY, "requirements: [FR-1]", f"requirements: [FR-1, {extra}]")


# -- baselines ---------------------------------------------------------------------------------------------
def test_a_baseline_passes_old_findings_fails_a_new_one_and_reports_the_fixed(pr: Path) -> None:  # noqa: F811
    _broken_link(pr)
    code_change(pr, trailer=None)
    assert ci(pr, "--base", "main").returncode == 1
    written = ci(pr, "--base", "main", "--write-baseline")
    assert written.returncode == 0 and "wrote .aidlc-baseline.json: 2 findings" in written.stdout
    baseline = json.loads(read(pr, ".aidlc-baseline.json"))
    assert sorted(f["code"] for f in baseline["findings"]) == ["AIDLC-CI-005", "AIDLC-REF-001"]
    to_base(pr, ".aidlc-baseline.json")  # a pull request is judged by its base's baseline

    doc = document(pr, "--base", "main")
    assert doc["passed"] and doc["baseline"] == ".aidlc-baseline.json"
    assert [f["baseline"] for f in doc["findings"]] == ["known", "known"] and doc["summary"]["known"] == 2

    # The finding moves down two lines: still the same finding.
    text = read(pr, STORY)
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("requirements:"))
    moved = lines[:1] + [lines[at]] + [line for i, line in enumerate(lines[1:], 1) if i != at]
    write(pr, STORY, "\n".join(moved))
    doc = document(pr, "--base", "main")
    ref = next(f for f in doc["findings"] if f["code"] == "AIDLC-REF-001")
    assert ref["line"] == 2 and ref["baseline"] == "known" and doc["passed"]

    code_change(pr, trailer=None, path="src/new.py")
    proc = ci(pr, "--base", "main", "--format", "json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert [(f["path"], f["baseline"]) for f in doc["findings"] if f["baseline"] == "new"] == [("src/new.py", "new")]

    edit(pr, STORY, "requirements: [FR-1, FR-9]", "requirements: [FR-1]")
    doc = document(pr, "--base", "main")
    assert [f["code"] for f in doc["fixed"]] == ["AIDLC-REF-001"] and doc["summary"]["fixed"] == 1
    assert "fixed since the baseline" in ci(pr, "--base", "main").stdout


def test_the_next_steps_of_a_failing_run_against_a_base_carry_that_base(pr: Path) -> None:  # noqa: F811
    """docs/ci.md writes the baseline with `--base`: the next steps of `ci --base REF` named `aidlc ci
    --write-baseline` without it (Janeeffect/aidlc-demo-showcase, `--base` its root commit), and the JSON of the
    findings without it, whose findings differ. They carry REF, quoted as one shell argument, and pasted they write
    the baseline of the run's findings."""
    import shlex

    from tests.test_gate import git

    git(pr, "branch", "main&co", "main")  # a ref a shell would split
    _broken_link(pr)
    code_change(pr, trailer=None)
    failed = ci(pr, "--base", "main&co")
    assert failed.returncode == 1
    steps = [line.strip().split("    #", 1)[0] for line in failed.stdout.split("Next steps:\n")[1].splitlines()]
    assert "aidlc ci --base 'main&co' --format json" in steps
    assert "aidlc ci --base 'main&co' --write-baseline" in steps
    no_base = ci(pr)
    assert no_base.returncode == 1 and "  aidlc ci --write-baseline    #" in no_base.stdout  # no base to carry
    assert "  aidlc ci --write-baseline    # only to accept today's findings of a bank adopted as it is" \
        in no_base.stdout
    written = ci(pr, *shlex.split("aidlc ci --base 'main&co' --write-baseline")[2:])
    assert written.returncode == 0 and "wrote .aidlc-baseline.json: 2 findings" in written.stdout


def test_a_known_finding_counts_once(pr: Path) -> None:  # noqa: F811
    code_change(pr, trailer=None)
    ci(pr, "--base", "main", "--write-baseline", "--baseline", "ci/known.json")
    to_base(pr, "ci/known.json")
    write(pr, CODE, "print('again')\n")
    commit(pr, "the same file again, another commit: a second finding, new", paths=(CODE,))
    doc = document(pr, "--base", "main", "--baseline", "ci/known.json")
    assert sorted(f["baseline"] for f in doc["findings"]) == ["known", "new"] and not doc["passed"]


@pytest.mark.parametrize(("content", "expected"), [
    (b'{"version": 1,\n "findings": [}', ".aidlc-baseline.json:2: not JSON"),
    (b'{"version": 1, "findings": [{"code": "X"}]}', ".aidlc-baseline.json: findings.0.severity: Field required"),
    (b"\xff\xfe", "is not UTF-8"),
])
def test_a_broken_baseline_is_a_usage_error_naming_the_file(pr: Path, content: bytes,  # noqa: F811
                                                            expected: str) -> None:
    (pr / ".aidlc-baseline.json").write_bytes(content)
    proc = ci(pr)
    assert proc.returncode == 2 and expected in proc.stderr and "aidlc ci --write-baseline" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_baseline_named_but_missing_is_a_usage_error(pr: Path) -> None:  # noqa: F811
    proc = ci(pr, "--baseline", "nope.json")
    assert proc.returncode == 2 and "nope.json: cannot be read" in proc.stderr


@pytest.mark.parametrize("args", [("--sarif",), ("--write-baseline", "--baseline")])
def test_an_output_path_under_a_file_is_a_usage_error_naming_it(pr: Path, tmp_path: Path,  # noqa: F811
                                                                 args: tuple[str, ...]) -> None:
    (tmp_path / "a-file").write_text("in the way\n")
    blocked = tmp_path / "a-file" / "out.json"
    proc = ci(pr, *args, str(blocked))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{args[-1]} {blocked}: cannot be written ({tmp_path / 'a-file'} is a file, not a folder)" in proc.stderr
    assert f"{args[-1]} PATH    # a path in a folder you can write" in proc.stderr


# -- GitHub workflow commands --------------------------------------------------------------------------------
def test_values_are_escaped_as_github_requires() -> None:
    assert escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert escape_property("a:b,c%\nd") == "a%3Ab%2Cc%25%0Ad"
    finding = CiFinding(code="AIDLC-REF-001", severity="error", path="x,y:z%.md", line=3, message="50%\nnew:line",
                        fix="a, b", fingerprint="0" * 32)
    assert annotation(finding) == ("::error file=x%2Cy%3Az%25.md,line=3,title=AIDLC-REF-001::50%25%0Anew:line%0A"
                                   "fix: a, b")


def runner_commands(output: str) -> list[tuple[str, str]]:
    """(command, rest) for each line the runner would execute, honouring stop-commands."""
    executed, stopped = [], None
    for line in output.splitlines():
        if not line.startswith("::"):
            continue
        name, _, rest = line[2:].partition("::")
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            continue
        if name == "stop-commands":
            stopped = rest
            continue
        executed.append((name.split(" ")[0], rest))
    assert stopped is None, "stop-commands never resumed"
    return executed


HOSTILE = '"FR-9\\n::add-mask::hunter2\\n::set-env name=EVIL::1"'


def test_hostile_text_from_a_story_cannot_inject_a_workflow_command(pr: Path, tmp_path: Path) -> None:  # noqa: F811
    _broken_link(pr, HOSTILE)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    proc = ci(pr, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 1
    # the text is there, its line break escaped: no line of the report starts with it (and it is silenced besides)
    assert "\\x0a::add-mask::hunter2" in proc.stdout and "\n::add-mask::hunter2" not in proc.stdout
    executed = runner_commands(proc.stdout)
    assert [name for name, _ in executed] == ["error"]
    assert "%0A::add-mask::hunter2%0A::set-env name=EVIL::1" in executed[0][1]
    table = summary.read_text()
    assert table.startswith("earlier step\n### aidlc ci failed")
    row = next(line for line in table.splitlines() if "AIDLC-REF-001" in line)
    assert "::add-mask::hunter2 ::set-env name=EVIL::1" in row and row.count(" | ") == 3


def test_at_most_ten_annotations_per_level_and_the_rest_counted(pr: Path, tmp_path: Path) -> None:  # noqa: F811
    for n in range(12):
        write(pr, f"src/m{n:02}.py", "x = 1\n")
    commit(pr, "twelve modules, no bolt", BOB)
    summary = tmp_path / "summary.md"
    proc = ci(pr, "--base", "main", env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    errors = [name for name, _ in runner_commands(proc.stdout) if name == "error"]
    assert len(errors) == 10
    text = summary.read_text()
    assert "2 more not annotated (GitHub shows 10 of each level): 2 errors" in text
    assert text.count("| error | AIDLC-CI-005 |") == 12


def test_json_under_github_actions_keeps_stdout_one_document(pr: Path) -> None:  # noqa: F811
    code_change(pr, trailer=None)
    proc = ci(pr, "--base", "main", "--format", "json", env={"GITHUB_ACTIONS": "true"})
    assert json.loads(proc.stdout)["summary"]["errors"] == 1
    assert proc.stderr.startswith(f"::error file={CODE},title=AIDLC-CI-005::")


# -- SARIF -----------------------------------------------------------------------------------------------------
def test_sarif_validates_against_the_official_schema(pr: Path, tmp_path: Path) -> None:  # noqa: F811
    _broken_link(pr)
    code_change(pr, trailer=None, path="src/with space,comma.py")
    out = tmp_path / "out" / "aidlc.sarif"
    out.parent.mkdir()
    proc = ci(pr, "--base", "main", "--sarif", str(out))
    assert proc.returncode == 1
    sarif = json.loads(out.read_text())
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(sarif)
    run = sarif["runs"][0]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == list(every_rule())
    assert all(rule["help"]["text"] and rule["shortDescription"]["text"] for rule in run["tool"]["driver"]["rules"])
    results = {r["ruleId"]: r for r in run["results"]}
    ref = results["AIDLC-REF-001"]["locations"][0]["physicalLocation"]
    assert ref["artifactLocation"] == {"uri": STORY, "uriBaseId": "%SRCROOT%"} and ref["region"]["startLine"] > 1
    untraced = results["AIDLC-CI-005"]
    assert untraced["level"] == "error" and run["tool"]["driver"]["rules"][untraced["ruleIndex"]]["id"] == \
        "AIDLC-CI-005"
    assert untraced["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/with%20space%2Ccomma.py"
    assert "region" not in untraced["locations"][0]["physicalLocation"]
    # What code scanning reads of each rule (GitHub lists fullDescription.text as required).
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["fullDescription"]["text"].endswith(".")
        assert rule["help"]["markdown"].count("**Fix:** ") == 1
        assert rule["properties"]["precision"] == "very-high" and "aidlc" in rule["properties"]["tags"]
        assert rule["properties"]["problem.severity"] in ("error", "warning", "recommendation")
    assert run["tool"]["driver"]["rules"][untraced["ruleIndex"]]["properties"]["problem.severity"] == "error"
    # A link only where the package names its home; this package names none, so the rules carry none.
    assert published_home() is None and all("helpUri" not in rule for rule in run["tool"]["driver"]["rules"])
    assert "informationUri" not in run["tool"]["driver"]


def test_sarif_rules_link_to_their_catalogue_row_under_the_packages_home(pr: Path) -> None:  # noqa: F811
    _broken_link(pr)
    report = CiReport.model_validate_json(ci(pr, "--base", "main", "--format", "json").stdout)
    home = "https://code.example.org/aidlc"
    sarif = sarif_document(report, home)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(sarif)
    driver = sarif["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == home
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', CATALOGUE_PAGE.read_text(encoding="utf-8")))
    for rule in driver["rules"]:
        page, _, fragment = rule["helpUri"].partition("#")
        assert page == f"{home}/blob/v{__version__}/docs/rules.md" and fragment in anchors, rule["helpUri"]
        assert rule["help"]["markdown"].endswith(f"]({rule['helpUri']})")


def test_sarif_tools_reads_every_result(pr: Path, tmp_path: Path) -> None:  # noqa: F811
    """sarif-tools (the `sarif` command) reads the document as a SARIF consumer does: every result, with its
    rule, level and location."""
    _broken_link(pr)
    code_change(pr, trailer=None)
    out = tmp_path / "aidlc.sarif"
    ci(pr, "--base", "main", "--sarif", str(out))
    results = json.loads(out.read_text())["runs"][0]["results"]
    for result in results:  # each region is a line of the file it names
        located = result["locations"][0]["physicalLocation"]
        lines = (pr / located["artifactLocation"]["uri"]).read_text().count("\n")
        assert 1 <= located.get("region", {}).get("startLine", 1) <= lines
    binary = console_script("sarif")
    summary = subprocess.run([binary, "summary", str(out)], capture_output=True, text=True, check=True).stdout
    assert f"error: {len(results)}" in summary.splitlines(), summary
    csv_file = tmp_path / "aidlc.csv"
    subprocess.run([binary, "csv", "--output", str(csv_file), str(out)], capture_output=True, text=True, check=True)
    rows = list(csv.DictReader(csv_file.read_text().splitlines()))
    assert sorted(row["Code"] for row in rows) == ["AIDLC-CI-005", "AIDLC-REF-001"]
    assert {row["Location"] for row in rows} == {STORY, CODE}
    assert int(next(row["Line"] for row in rows if row["Location"] == STORY)) > 1
    failing = subprocess.run([binary, "--check", "error", "summary", str(out)], capture_output=True, text=True)
    assert failing.returncode != 0  # its own gate sees the errors


def test_a_missing_requirements_file_is_shown_at_a_file_that_exists(pr: Path, tmp_path: Path) -> None:  # noqa: F811
    """AIDLC-FILE-006 is about a file that is not there: code scanning needs a file that is."""
    (pr / REQUIREMENTS).unlink()
    out = tmp_path / "aidlc.sarif"
    ci(pr, "--sarif", str(out))
    result = next(r for r in json.loads(out.read_text())["runs"][0]["results"] if r["ruleId"] == "AIDLC-FILE-006")
    located = result["locations"][0]["physicalLocation"]
    uri = located["artifactLocation"]["uri"]
    assert uri.startswith(REQUIREMENTS.rsplit("/", 1)[0] + "/") and (pr / uri).is_file()
    assert "region" not in located and f"{REQUIREMENTS} does not exist" in result["message"]["text"]


def test_sarif_to_stdout_holds_only_the_document(pr: Path) -> None:  # noqa: F811
    code_change(pr, trailer=None)
    proc = ci(pr, "--base", "main", "--sarif", "-")
    assert proc.returncode == 1  # the verdict is the same
    sarif = json.loads(proc.stdout)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(sarif)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["AIDLC-CI-005"]
    assert "AIDLC-CI-005" in proc.stderr  # the report, for the person reading the log
    both = ci(pr, "--base", "main", "--sarif", "-", "--format", "json")
    assert both.returncode == 2 and "both write to stdout" in both.stderr


def test_a_schema_violation_is_caught(tmp_path: Path) -> None:
    """The check above can fail: a result without its message is not SARIF."""
    schema = json.loads(SCHEMA.read_text())
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "aidlc"}}, "results": [{"ruleId": "X"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(broken)


def test_sarif_marks_baseline_state(pr: Path, tmp_path: Path) -> None:  # noqa: F811
    code_change(pr, trailer=None)
    ci(pr, "--base", "main", "--write-baseline")
    to_base(pr, ".aidlc-baseline.json")
    code_change(pr, trailer=None, path="src/b.py")
    out = tmp_path / "a.sarif"
    ci(pr, "--base", "main", "--sarif", str(out))
    results = json.loads(out.read_text())["runs"][0]["results"]
    assert sorted(r["baselineState"] for r in results) == ["new", "unchanged"]


def test_sarif_is_never_written_through_a_symbolic_link(pr: Path, tmp_path: Path) -> None:  # noqa: F811
    """A pull request may commit `aidlc.sarif` as a link to a file of the runner: the write is refused."""
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    (pr / "aidlc.sarif").symlink_to(outside)
    proc = ci(pr, "--sarif", "aidlc.sarif")
    assert proc.returncode == 2 and "symbolic link" in proc.stderr and "Traceback" not in proc.stderr
    assert outside.read_text() == "keep me\n"


def test_the_decisions_a_pull_request_adds_are_listed_for_the_reviewer(pr: Path, tmp_path: Path) -> None:  # noqa: F811
    """However the ledger's diff is shown (folded, too long to render), the reviewer reads every gate decision the pull
    request adds in CI's report, its text and its job summary, each with who made it and the commit that added it."""
    approved_plan(pr)  # the inception's gates and the plan, approved by Ada in one commit
    sha = subprocess.run(["git", "-C", str(pr), "rev-parse", "HEAD"], check=True, capture_output=True,
                         text=True).stdout.strip()
    decisions = document(pr, "--base", "main")["decisions"]
    assert len(decisions) > 1 and [d["line"] for d in decisions] == sorted(d["line"] for d in decisions)
    assert {(d["path"], d["actor_kind"], d["signed"], d["commit"]) for d in decisions} == {
        ("memory-bank/events.jsonl", "human", False, sha[:12])}
    last = decisions[-1]
    assert re.fullmatch(r"seq \d+: bolt \S+ plan \(approve\) by Ada Lovelace <ada@x\.org>", last["decision"])
    summary = tmp_path / "summary.md"
    proc = ci(pr, "--base", "main", env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert f"decisions this pull request adds ({len(decisions)}), each for a reviewer to read:" in proc.stdout
    assert f"  memory-bank/events.jsonl:{last['line']}  {last['decision']}: human, not signed, commit {sha[:12]}\n" \
        in proc.stdout
    rows = [row for row in summary.read_text().splitlines() if row.startswith("| memory-bank/events.jsonl:")]
    assert len(rows) == len(decisions) and "Ada Lovelace &lt;ada@x.org&gt;: human, not signed" in rows[-1]
    assert document(pr)["decisions"] == []  # without a base there is no pull request to read them from


def test_the_decisions_added_beside_aidlc_docs_are_listed_too(tmp_path: Path) -> None:
    from tests.test_ci_attributes import docs_pull_request
    from tests.test_gate import set_identity

    repo = docs_pull_request(tmp_path / "shop")
    set_identity(repo.root)
    approved = run_cli("--repo", str(repo.root), "gate", "approve", "inception", "--stage", "requirements-analysis")
    assert approved.returncode == 0, approved.stderr
    repo.commit("requirements approved")
    [decision] = document(repo.root, "--base", "base")["decisions"]
    assert decision["path"] == "aidlc-docs/events.jsonl" and "requirements-analysis (approve)" in decision["decision"]


def test_the_approvals_a_pull_request_logs_in_the_audit_log_are_listed_too(tmp_path: Path) -> None:
    """An aidlc-docs project keeps its approvals in the audit log: the entry the pull request adds, on which the stage
    it ticks stands, is listed with the person's words, whatever the log's diff shows."""
    from tests.aidlc_docs_sample import AUDIT, ENTRIES, STATE, audit_text, stamp
    from tests.test_ci_attributes import docs_pull_request

    repo = docs_pull_request(tmp_path / "shop")
    before = document(repo.root, "--base", "base")
    assert before["logged_approvals"] == []  # the base's approvals are the base's
    repo.write(AUDIT, audit_text(ENTRIES))
    repo.replace(STATE, "- [ ] Build and Test", "- [x] Build and Test")
    repo.commit("build and test approved", stamp(len(ENTRIES)))
    [logged] = document(repo.root, "--base", "base")["logged_approvals"]
    line = repo.read(AUDIT).splitlines().index(next(text for text in repo.read(AUDIT).splitlines()
                                                    if text.startswith("## Build and Test - Approval"))) + 1
    assert (logged["path"], logged["line"], logged["stages"]) == (AUDIT, line, ["Build and Test"])
    summary = tmp_path / "summary.md"
    proc = ci(repo.root, "--base", "base", env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert logged["said"] == '"approved"'  # as the log quotes it, and shown so, not quoted again
    assert f"approvals this pull request logs (1), each for a reviewer to read:\n  {AUDIT}:{line}  Build and Test: " \
        '"approved"\n' in proc.stdout
    assert any(row.startswith(f"| {AUDIT}:{line} | Build and Test: ") for row in summary.read_text().splitlines())


def test_a_logged_approval_is_listed_once_and_the_person_s_quotes_shown_once(tmp_path: Path) -> None:
    """Janeeffect/aidlc-demo-showcase's shapes: the log quotes the person's input itself (`"b" (approved - ...)`),
    and a change-request cycle's `Functional Design` line names no unit, so it stands on unit 1's approval too.
    `ci` showed `""b" (...)"` and `Functional Design of unit 1, Functional Design`: the entry is named once, and
    the quotes are the log's own; words the log does not quote are quoted."""
    from tests.aidlc_docs_sample import AUDIT, ENTRIES, STATE, audit_text, build_docs_repo, iso, stamp
    from tests.test_gate import git

    repo = build_docs_repo(tmp_path / "shop")
    designs = [entry for entry in ENTRIES if entry[0].startswith("Functional Design")]
    rest = [entry for entry in ENTRIES if entry not in designs]
    designed = [f"Functional Design - EXECUTE ({unit})" for unit in ("Unit 1: orders-api", "Unit 2: shop-web")]
    repo.write(AUDIT, audit_text(rest))
    for line in designed:
        repo.replace(STATE, f"- [x] {line}", f"- [ ] {line}")
    repo.commit("designs still open", stamp(len(rest)))
    assert run_cli("init", cwd=repo.root).returncode == 0
    repo.commit("adopt aidlc", stamp(len(rest)))
    git(repo.root, "branch", "base")
    git(repo.root, "checkout", "-q", "-b", "pr")
    said = ['"b" (approved - on to Code Generation)', "승인"]  # the second as a log that quotes nothing has it
    with repo.path(AUDIT).open("a", encoding="utf-8") as log:
        for n, (unit, words) in enumerate(zip((1, 2), said, strict=True)):
            log.write(f"## Functional Design - Unit {unit} Approval\n**Timestamp**: {iso(stamp(len(rest) + n))}\n"
                      f"**User Input**: {words}\n**AI Response**: Unit {unit} design approved.\n"
                      f"**Context**: CONSTRUCTION - Unit {unit}\n\n---\n\n")
    for line in designed:
        repo.replace(STATE, f"- [ ] {line}", f"- [x] {line}")
    repo.replace(STATE, "## Current Status", "### CR CYCLE 2\n- [x] Functional Design - COMPLETED\n\n## Current Status")
    repo.commit("designs approved; a change request designed", stamp(len(rest) + 2))

    logged = document(repo.root, "--base", "base")["logged_approvals"]
    assert [(entry["stages"], entry["said"]) for entry in logged] == [
        (["Functional Design of unit 1"], said[0]), (["Functional Design of unit 2"], said[1])]
    out = ci(repo.root, "--base", "base").stdout
    first, second = (entry["line"] for entry in logged)
    assert f"approvals this pull request logs (2), each for a reviewer to read:\n" \
        f"  {AUDIT}:{first}  Functional Design of unit 1: {said[0]}\n" \
        f"  {AUDIT}:{second}  Functional Design of unit 2: \"승인\"\n" in out


def test_an_approval_a_pull_request_claims_by_a_writer_s_note_is_listed_for_the_reviewer(tmp_path: Path) -> None:
    """A model that writes the log can claim an approval with a note beside words it makes up (`"ok" (Code
    Generation approval)` under a heading naming no stage) as it could with a heading: what stops it is the
    reviewer, to whom `ci --base` lists every approval the pull request logs, with the words it stands on."""
    from tests.aidlc_docs_sample import AUDIT, ENTRIES, STATE, audit_text, build_docs_repo, iso, stamp
    from tests.test_gate import git

    repo = build_docs_repo(tmp_path / "shop")
    rest = [entry for entry in ENTRIES if entry[0] != "Code Generation - Unit 2 Approval"]
    repo.write(AUDIT, audit_text(rest))
    repo.replace(STATE, "- [x] Code Generation - EXECUTE (Unit 2: shop-web)",
                 "- [ ] Code Generation - EXECUTE (Unit 2: shop-web)")
    repo.commit("unit 2's code open", stamp(len(rest)))
    assert run_cli("init", cwd=repo.root).returncode == 0
    repo.commit("adopt aidlc", stamp(len(rest)))
    git(repo.root, "branch", "base")
    git(repo.root, "checkout", "-q", "-b", "pr")
    with repo.path(AUDIT).open("a", encoding="utf-8") as log:
        log.write(f"## Session notes\n**Timestamp**: {iso(stamp(len(rest)))}\n"
                  '**User Input**: "ok" (Code Generation approval)\n**AI Response**: Noted.\n'
                  "**Context**: CONSTRUCTION - Unit 2 shop-web\n\n---\n\n")
    repo.replace(STATE, "- [ ] Code Generation - EXECUTE (Unit 2: shop-web)",
                 "- [x] Code Generation - EXECUTE (Unit 2: shop-web)")
    repo.commit("unit 2's code done", stamp(len(rest) + 1))

    logged = document(repo.root, "--base", "base")["logged_approvals"]
    assert [(entry["stages"], entry["said"]) for entry in logged] == [
        (["Code Generation of unit 2"], '"ok" (Code Generation approval)')]
    line = logged[0]["line"]
    assert (f"  {AUDIT}:{line}  Code Generation of unit 2: \"ok\" (Code Generation approval)\n"
            in ci(repo.root, "--base", "base").stdout)
