"""`aidlc validate` and `aidlc rules` as a person, an agent and CI run them: in-process and as a real process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from aidlc.cli import cli
from aidlc.cli.app import run_safely
from aidlc.rules import every_rule
from tests.helpers import BOLT2, REQUIREMENTS, STORY1, STORY2, UNIT_BRIEF, Bank, git_init, summary_line
from tests.helpers import run_cli_process as run_cli  # the real process: what a person and CI run

ANSI = re.compile(r"\x1b\[")


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def break_with_one_error(bank: Bank) -> int:
    return bank.set_key(STORY1, "status", "shipped")


def break_with_one_warning(bank: Bank) -> int:
    return bank.set_key(UNIT_BRIEF, "updated", "2026-12-01")


# --- text output ---------------------------------------------------------------------------------


def test_clean_bank_passes(bank: Bank) -> None:
    result = invoke("--repo", str(bank.root), "validate")
    assert result.exit_code == 0
    assert result.stdout.strip() == "validation passed: 8 files, 0 errors, 0 warnings, 0 notes"
    assert "Next steps" not in result.output


def test_path_argument_may_be_the_repo_or_its_memory_bank(bank: Bank) -> None:
    for target in (bank.root, bank.root / "memory-bank"):
        result = invoke("validate", str(target))
        assert result.exit_code == 0, result.output
        assert summary_line(result.stdout) == "validation passed: 8 files, 0 errors, 0 warnings, 0 notes"


def test_error_finding_line_fix_next_steps_and_summary(bank: Bank) -> None:
    line = break_with_one_error(bank)
    result = invoke("--repo", str(bank.root), "validate")
    assert result.exit_code == 1
    out = result.stdout.splitlines()
    head = (f"  ✗ [ERROR] {STORY1}:{line} AIDLC-SCHEMA-002 'status' is 'shipped', expected one of 'draft', 'ready', "
            "'in-progress', 'complete' or 'blocked'")
    assert out[0] == STORY1
    assert out[1] == head
    assert out[2] == "      fix: " + every_rule()["AIDLC-SCHEMA-002"].fix
    assert summary_line(result.stdout) == "validation failed: 8 files, 1 error, 0 warnings, 0 notes"
    steps = out[out.index("Next steps:") + 1 :]
    assert steps[0].startswith("  aidlc rules AIDLC-SCHEMA-002")
    assert any(step.startswith("  aidlc validate --format json") for step in steps)


def test_findings_without_a_line_show_only_the_path(bank: Bank) -> None:
    bank.remove(REQUIREMENTS)
    result = invoke("--repo", str(bank.root), "validate")
    assert f"  ! [WARNING] {REQUIREMENTS} AIDLC-FILE-006 intent 001-checkout has no requirements.md" in result.stdout


def test_warnings_only_exit_zero(bank: Bank) -> None:
    line = break_with_one_warning(bank)
    result = invoke("--repo", str(bank.root), "validate")
    assert result.exit_code == 0
    assert f"  ! [WARNING] {UNIT_BRIEF}:{line} AIDLC-SCHEMA-005 'updated' is the bare date 2026-12-01" in result.stdout
    assert summary_line(result.stdout) == "validation passed: 8 files, 0 errors, 1 warning, 0 notes"


def test_strict_makes_warnings_fail(bank: Bank) -> None:
    break_with_one_warning(bank)
    result = invoke("--repo", str(bank.root), "validate", "--strict")
    assert result.exit_code == 1
    assert summary_line(result.stdout) == (
        "validation failed: 8 files, 0 errors, 1 warning, 0 notes (--strict: warnings fail)")
    assert "Next steps:" in result.stdout


def test_notes_never_fail_even_with_strict(bank: Bank) -> None:
    bank.replace(REQUIREMENTS, "**Priority**: Should\n", "")
    result = invoke("--repo", str(bank.root), "validate", "--strict")
    assert result.exit_code == 0
    assert "  i [INFO] " in result.stdout and "AIDLC-STRUCT-006" in result.stdout
    quiet = invoke("-q", "--repo", str(bank.root), "validate")
    assert "AIDLC-STRUCT-006" not in quiet.stdout
    assert summary_line(quiet.stdout) == "validation passed: 8 files, 0 errors, 0 warnings, 1 note"


def test_text_output_has_no_colour_without_a_terminal(bank: Bank) -> None:
    break_with_one_error(bank)
    assert not ANSI.search(invoke("--repo", str(bank.root), "validate").output)


# --- JSON output ---------------------------------------------------------------------------------


def test_json_is_one_document_with_relative_posix_paths(bank: Bank) -> None:
    line = break_with_one_error(bank)
    bank.remove(REQUIREMENTS)
    result = invoke("--format", "json", "--repo", str(bank.root), "validate")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)  # the whole of stdout is one document
    assert set(doc) == {"version", "root", "findings", "summary"}
    assert doc["version"] == 1
    assert doc["root"] == str(bank.root.resolve())
    assert doc["summary"] == {"files": 7, "errors": 1, "warnings": 1, "infos": 0, "adopted": 0}
    assert [(f["code"], f["path"], f["line"]) for f in doc["findings"]] == [
        ("AIDLC-FILE-006", REQUIREMENTS, None), ("AIDLC-SCHEMA-002", STORY1, line)]
    for finding in doc["findings"]:
        assert set(finding) == {"code", "severity", "path", "line", "message", "fix", "adopted"}
        assert not finding["path"].startswith("/") and "\\" not in finding["path"]
        assert (bank.root / finding["path"]).parent.exists()
    assert doc["findings"][1]["severity"] == "error"


def test_json_clean(bank: Bank) -> None:
    result = invoke("--format", "json", "--repo", str(bank.root), "validate")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["findings"] == []


def test_json_verbose_keeps_prose_on_stderr(bank: Bank) -> None:
    result = invoke("-v", "--format", "json", "--repo", str(bank.root), "validate")
    assert json.loads(result.stdout)["summary"]["files"] == 8
    assert "validating memory-bank/" in result.stderr


def test_json_strict_with_warnings_exits_one(bank: Bank) -> None:
    break_with_one_warning(bank)
    result = invoke("--format", "json", "--repo", str(bank.root), "validate", "--strict")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["summary"]["warnings"] == 1


# --- validate never writes -----------------------------------------------------------------------


@pytest.mark.parametrize("args", [(), ("--strict",), ("--format", "json")], ids=["text", "strict", "json"])
def test_validate_writes_nothing(bank: Bank, args: tuple[str, ...]) -> None:
    break_with_one_error(bank)
    bank.write_bytes(STORY2, b"\xff\xfe broken")
    before = bank.snapshot()
    git_before = sorted(p.relative_to(bank.root).as_posix() for p in (bank.root / ".git").rglob("*"))
    fmt, rest = (list(args[:2]), list(args[2:])) if args[:1] == ("--format",) else ([], list(args))
    invoke(*fmt, "--repo", str(bank.root), "validate", *rest)
    assert bank.snapshot() == before
    assert sorted(p.relative_to(bank.root).as_posix() for p in (bank.root / ".git").rglob("*")) == git_before
    assert not (bank.root / ".aidlc").exists()


def test_validate_process_writes_nothing(bank: Bank) -> None:
    break_with_one_error(bank)
    before = bank.snapshot()
    proc = run_cli("validate", cwd=bank.root)
    assert proc.returncode == 1
    assert bank.snapshot() == before
    assert not (bank.root / ".aidlc").exists()


# --- unreadable files ----------------------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_chmod_000_file_is_a_finding(bank: Bank) -> None:
    bank.path(STORY2).chmod(0)
    try:
        result = invoke("--repo", str(bank.root), "validate")
    finally:
        bank.path(STORY2).chmod(0o644)
    assert result.exit_code == 1
    assert f"{STORY2} AIDLC-FILE-004" in result.stdout


def test_unreadable_file_is_a_finding_not_a_crash(bank: Bank, monkeypatch: pytest.MonkeyPatch) -> None:
    from aidlc.bank import frontmatter

    locked = str(bank.path(STORY2))

    real = frontmatter.read_bytes

    def refuse(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path) == locked:  # as a non-root user would see a chmod 000 file
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(frontmatter, "read_bytes", refuse)
    result = invoke("--repo", str(bank.root), "validate")
    assert result.exit_code == 1
    assert f"  ✗ [ERROR] {STORY2} AIDLC-FILE-004 Permission denied" in result.stdout


# --- a real process: exit codes, streams, no tracebacks ------------------------------------------


def test_process_clean_text(bank: Bank) -> None:
    proc = run_cli("validate", cwd=bank.root)
    assert proc.returncode == 0
    assert proc.stdout == "validation passed: 8 files, 0 errors, 0 warnings, 0 notes\n"
    assert proc.stderr == ""


def test_process_errors_exit_one_with_findings_on_stdout(bank: Bank) -> None:
    line = break_with_one_error(bank)
    proc = run_cli("validate", cwd=bank.root / "memory-bank" / "intents")  # found from a subfolder too
    assert proc.returncode == 1
    assert f"✗ [ERROR] {STORY1}:{line} AIDLC-SCHEMA-002" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_process_json_with_errors(bank: Bank) -> None:
    break_with_one_error(bank)
    proc = run_cli("validate", "--format", "json", str(bank.root))  # output flags after the command too
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["summary"]["errors"] == 1
    assert proc.stderr == ""


def test_process_warnings_only_and_strict(bank: Bank) -> None:
    break_with_one_warning(bank)
    assert run_cli("validate", cwd=bank.root).returncode == 0
    assert run_cli("validate", "--strict", cwd=bank.root).returncode == 1
    assert run_cli("--format=json", "validate", "--strict", cwd=bank.root).returncode == 1


def assert_usage_error(proc, *words: str) -> None:  # type: ignore[no-untyped-def]
    """Exit 2, `error: ...` and the next steps on stderr, no traceback: a process or a CliRunner result."""
    code = proc.returncode if hasattr(proc, "returncode") else proc.exit_code
    assert code == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert proc.stderr.startswith("error: ")
    assert "Next steps:" in proc.stderr
    for word in words:
        assert word in proc.stderr


def test_process_no_memory_bank(tmp_path: Path) -> None:
    git_init(tmp_path / "empty")
    proc = run_cli("validate", cwd=tmp_path / "empty")
    assert_usage_error(proc, "no memory bank at", "aidlc init")
    assert proc.stdout == ""


def test_process_no_memory_bank_json(tmp_path: Path) -> None:
    git_init(tmp_path / "empty")
    proc = run_cli("--format", "json", "validate", str(tmp_path / "empty"))
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert doc["version"] == 1 and doc["error"]["exit_code"] == 2
    assert "no memory bank" in doc["error"]["message"]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("config", "words"),
    [("version: 1\nmemory_bank: [memory-bank\n", ("aidlc.yaml:2", "invalid YAML")),
     ("version: 7\n", ("aidlc.yaml:1", "version")),
     ("- memory_bank\n", ("aidlc.yaml:1", "mapping")),
     ("version: 1\nunknown_key: x\n", ("aidlc.yaml:2", "unknown_key")),
     ("version: 1\nmemory_bank: elsewhere\n", ("no memory bank",)),
     ("version: 1\nmemory_bank: /etc\n", ("aidlc.yaml:2", "memory_bank", "inside the repository")),
     ("version: 1\nmemory_bank: ../other-repo/memory-bank\n", ("aidlc.yaml:2", "inside the repository")),
     ("version: 1\nmemory_bank: .git\n", ("aidlc.yaml:2", "not in .git")),
     # the file system's limits (it raised "File name too long" from every command that read the bank)
     (f"version: 1\nmemory_bank: {'m' * 256}\n", ("aidlc.yaml:2", "255 bytes a name")),
     (f"version: 1\nlayout: aidlc-docs\naidlc_docs: {'/'.join(['d' * 200] * 45)}\n",
      ("aidlc.yaml:3", "1024 characters")),
     # no process argument or path holds a NUL (it raised from the check's run, after the plan was approved)
     ("version: 1\nverify:\n  - name: t\n    run: \"true\\0x\"\n", ("aidlc.yaml:4", "verify.0.run", "NUL")),
     ("version: 1\nverify:\n  - name: t\n    run: pytest\n    junit: \"a\\0b\"\n", ("verify.0.junit", "NUL")),
     (f"version: 1\nverify:\n  - name: t\n    run: {'x' * 40_000}\n", ("verify.0.run", "32768")),
     ("version: 1\nverify:\n" + "  - {name: t, run: 'true'}\n" * 101, ("aidlc.yaml:2", "verify", "at most 100"))],
    ids=["bad-yaml", "bad-version", "not-a-mapping", "unknown-key", "bank-elsewhere", "bank-absolute",
         "bank-outside", "bank-in-git", "bank-name-too-long", "docs-path-too-long", "run-nul", "junit-nul",
         "run-too-long", "too-many-checks"],
)
def test_malformed_config(bank: Bank, config: str, words: tuple[str, ...]) -> None:
    bank.write("aidlc.yaml", config)
    assert_usage_error(CliRunner().invoke(cli, ["--repo", str(bank.root), "validate"]), *words)


def test_process_malformed_config(bank: Bank) -> None:
    bank.write("aidlc.yaml", "version: 1\nmemory_bank: [memory-bank\n")
    proc = run_cli("validate", cwd=bank.root)
    assert_usage_error(proc, "aidlc.yaml:2", "invalid YAML")
    assert proc.stdout == ""


def test_process_config_not_utf8(bank: Bank) -> None:
    bank.write_bytes("aidlc.yaml", b"version: 1\nmemory_bank: m\xe9moire\n")
    assert_usage_error(run_cli("validate", cwd=bank.root), "aidlc.yaml:2", "not UTF-8")


@pytest.mark.parametrize(
    "args",
    [("validate", "--bogus"), ("--format", "xml", "validate"), ("validate", "a", "b"),
     ("--repo", "/nonexistent/x", "validate"), ("validate", "nope"), ("validate", "memory-bank/project.yaml"),
     ("validate", "--format", "yaml")],
    ids=["unknown-option", "bad-format", "extra-argument", "missing-repo", "missing-path", "path-is-a-file",
         "bad-format-after-command"],
)
def test_bad_options(bank: Bank, args: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    # Through run_safely, as the console script runs it: click's own usage errors are rendered there.
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(bank.root)
        patch.setattr(sys, "argv", ["aidlc", *args])
        with pytest.raises(SystemExit) as stopped:
            run_safely(cli)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Next steps:" in err and "Traceback" not in err


def test_process_bad_option(bank: Bank) -> None:
    assert_usage_error(run_cli("validate", "--bogus", cwd=bank.root), "--bogus")


def test_process_broken_bank_never_tracebacks(bank: Bank) -> None:
    bank.write_bytes(STORY1, b"\xff")
    bank.write(STORY2, "---\n- a\n---\n")
    bank.write(BOLT2, "---\nid: [\n---\n")
    bank.write("memory-bank/project.yaml", "1: 2\nnull: x\n")
    bank.set_key(UNIT_BRIEF, "created", "9" * 5000)
    proc = run_cli("--format", "json", "validate", cwd=bank.root)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert {"AIDLC-FILE-001", "AIDLC-FILE-002", "AIDLC-FILE-003"} <= codes


# --- aidlc rules ---------------------------------------------------------------------------------


def test_rules_lists_the_whole_catalogue() -> None:
    result = invoke("rules")
    assert result.exit_code == 0
    rows = [line.split(None, 3) for line in result.stdout.splitlines()]
    assert [row[0] for row in rows] == list(every_rule())
    for code, severity, family, summary in rows:
        rule = every_rule()[code]
        assert (severity, family, summary) == (rule.severity.value, rule.family, rule.summary)


def test_rules_verbose_shows_fixes() -> None:
    lines = invoke("-v", "rules").stdout.splitlines()
    assert len(lines) == 2 * len(every_rule())
    assert lines[1].strip() == "fix: " + next(iter(every_rule().values())).fix


@pytest.mark.parametrize("code", ["AIDLC-REF-001", "aidlc-ref-001"])
def test_rules_explains_one_code(code: str) -> None:
    result = invoke("rules", code)
    assert result.exit_code == 0
    first, second = result.stdout.splitlines()
    assert first.split(None, 3) == ["AIDLC-REF-001", "error", "references", every_rule()["AIDLC-REF-001"].summary]
    assert second.strip() == "fix: " + every_rule()["AIDLC-REF-001"].fix


def test_rules_json() -> None:
    result = invoke("--format", "json", "rules")
    doc = json.loads(result.stdout)
    assert doc["version"] == 1
    assert [r["code"] for r in doc["rules"]] == list(every_rule())
    assert set(doc["rules"][0]) == {"code", "severity", "family", "checks", "fix"}
    one = json.loads(invoke("--format", "json", "rules", "AIDLC-STATE-005").stdout)
    rule = every_rule()["AIDLC-STATE-005"]
    assert one["rules"] == [{"code": "AIDLC-STATE-005", "severity": "error", "family": "state",
                             "checks": rule.summary, "fix": rule.fix}]


# A process that imports the given rule modules first, then prints the catalogue's codes (and whether a memory
# bank's validation, when asked, imported any aidlc-docs rule).
CATALOGUE_PROBE = """
import importlib, sys
from pathlib import Path
for name in sys.argv[2:]:
    importlib.import_module("aidlc.rules." + name)
if sys.argv[1] != "-":
    from aidlc.rules import validate
    from aidlc.workspace import open_records
    validate(open_records(Path(sys.argv[1])))
    print(sorted(name for name in sys.modules if name.startswith("aidlc.rules.docs")))
from aidlc.rules import every_rule
print(" ".join(every_rule()))
"""


def probe_catalogue(*args: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", CATALOGUE_PROBE, *args], capture_output=True, text=True, check=True)
    return proc.stdout.splitlines()


def test_the_catalogue_keeps_its_order_whichever_rule_modules_load_first() -> None:
    listed = [line.split(None, 1)[0] for line in run_cli("rules").stdout.splitlines()]
    assert probe_catalogue("-") == [" ".join(listed)]
    # The aidlc-docs rules, which load only where that layout is validated, imported first and backwards.
    assert probe_catalogue("-", "docs_history", "docs_gates", "docs_layout", "docs_records") == [" ".join(listed)]
    assert probe_catalogue("-", "structure", "docs_history", "files") == [" ".join(listed)]


def test_a_memory_banks_validation_imports_no_aidlc_docs_rule(bank: Bank) -> None:
    imported, codes = probe_catalogue(str(bank.root))
    assert imported == "[]"
    assert codes.split() == list(every_rule())


# A process that validates the repository at argv[1] through the CLI's own modules and prints which of the ledger's
# modules it imported.
LEDGER_MODULES_PROBE = """
import sys
from pathlib import Path
import aidlc.cli.validate
from aidlc.rules import validate
from aidlc.workspace import open_records
validate(open_records(Path(sys.argv[1])))
print(sorted(name for name in ("aidlc.events.ledger", "aidlc.events.view", "aidlc.gates.catalogue",
                               "aidlc.gates.signatures", "aidlc.model.events") if name in sys.modules))
"""


def test_a_bank_without_a_ledger_is_validated_without_importing_the_ledgers_modules(bank: Bank) -> None:
    ledger = bank.path("memory-bank/events.jsonl")
    assert not ledger.exists()

    def imported() -> str:
        return subprocess.run([sys.executable, "-c", LEDGER_MODULES_PROBE, str(bank.root)], capture_output=True,
                              text=True, check=True).stdout.strip()

    assert imported() == "[]"
    ledger.write_text("")  # an empty ledger: the ledger rules read it, through those modules
    assert imported() == str(sorted(["aidlc.events.ledger", "aidlc.events.view", "aidlc.gates.catalogue",
                                     "aidlc.gates.signatures", "aidlc.model.events"]))


def test_rules_process_text_json_and_unknown_code(tmp_path: Path) -> None:
    text = run_cli("rules", cwd=tmp_path)
    assert text.returncode == 0 and len(text.stdout.splitlines()) == len(every_rule())
    doc = run_cli("--format", "json", "rules", "AIDLC-REF-001", cwd=tmp_path)
    assert doc.returncode == 0 and json.loads(doc.stdout)["rules"][0]["code"] == "AIDLC-REF-001"
    unknown = run_cli("rules", "AIDLC-NOPE-001", cwd=tmp_path)
    assert_usage_error(unknown, "no rule AIDLC-NOPE-001", "aidlc rules")


def test_every_code_a_finding_names_is_explained_by_rules(bank: Bank) -> None:
    break_with_one_error(bank)
    doc = json.loads(invoke("--format", "json", "--repo", str(bank.root), "validate").stdout)
    for finding in doc["findings"]:
        assert invoke("rules", finding["code"]).exit_code == 0


def test_module_entry_point_matches_console_script() -> None:
    import shutil

    script = Path(sys.executable).with_name("aidlc")
    script = script if script.exists() else Path(shutil.which("aidlc") or "aidlc")
    by_script = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    by_module = run_cli("--version")  # python -m aidlc
    assert by_module.returncode == by_script.returncode == 0
    assert by_module.stdout == by_script.stdout and by_script.stdout.startswith("aidlc, version ")


def test_an_opinion_word_disguised_with_a_long_s_is_reported_by_aidlc_validate(bank: Bank) -> None:
    # A criterion that reads "easily" to a reviewer: the rule ignores case as Unicode does, so 'ſ' is an s.
    bank.replace(STORY2, "with the full amount", "eaſily")
    result = run_cli("validate", "--format", "json", cwd=bank.root)
    found = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "AIDLC-STRUCT-002"]
    assert len(found) == 1 and "is vague ('eaſily')" in found[0]["message"], result.stdout
    assert found[0]["path"] == STORY2 and found[0]["line"] == bank.line(STORY2, "eaſily")
