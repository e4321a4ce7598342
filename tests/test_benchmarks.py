"""Both benchmarks run end to end at a tiny size: they stay runnable, and what they report is coherent.

No timing is asserted (numbers depend on the machine); the structure and the validator's verdict are.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole-program runs: .ci/run runs them with -m slow

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def run(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--runs", "1", "--json", *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_validate_benchmark_measures_a_clean_generated_bank(tmp_path: Path) -> None:
    report = run("validate.py", "--sizes", "200", "--workdir", str(tmp_path))
    (size,) = report["sizes"]
    assert size["stories"] == 200 and size["summary"]["errors"] == 0
    shape = size["shape"]  # every story, unit brief and bolt is read, and nothing the floor does not read
    assert shape["stories"] + shape["units"] + shape["bolts"] <= size["summary"]["files"] <= size["floor_files"]
    for row in ("cli", "in_process", "floor_yaml_rs", "floor_pyyaml", "floor_libraries", "floor_reading"):
        assert size[row]["runs"] == 1 and size[row]["median"] > 0
    assert size["cpu"]["cli"] > 0 and size["cpu"]["yaml-rs"] > 0  # the children's own CPU time, beside wall time
    # loading click and pydantic costs more than a 200-story bank's reading: the libraries' floor takes longer
    assert size["cpu"]["libraries"] > size["cpu"]["yaml-rs"]
    assert size["cpu"]["reading"] > size["cpu"]["yaml-rs"]  # the floor with aidlc's reading read every story
    assert {goal["passed"] for goal in report["goals"][:3]} == {None}  # neither 10,000 nor 1,000 stories measured
    assert set(report["startup"]) == {"aidlc --version", "aidlc --help", "python -c pass"}
    assert "aidlc --help under 2x aidlc --version" in [goal["name"] for goal in report["goals"]]


def test_the_ledger_benchmark_verifies_appends_and_decides(tmp_path: Path) -> None:
    report = run("ledger.py", "--sizes", "50,200", "--appends", "20", "--gate", "200", "--gate-runs", "1",
                 "--workdir", str(tmp_path))
    _, size = report["sizes"]
    assert size["events"] == 200 and size["verify"]["events"] == 200 and size["verify_eps"] > 0
    # Each baseline read every event. Which is faster is what the benchmark measures and prints, not a property a
    # test can hold: at 200 events, one run on a busy machine, the floor and the bare chain swap places.
    assert size["floor"]["events"] == size["bare"]["events"] == 200 and size["floor_eps"] > 0 and size["bare_eps"] > 0
    assert report["appends"]
    gate = report["gate"]
    assert (gate["small_events"], gate["large_events"]) == (10, 200) and gate["ratio"] > 0
    assert {goal["name"] for goal in report["goals"]} >= {"aidlc log verify in constant memory",
                                                          "gate decision, 200 vs 10 events"}


def test_the_id_filter_benchmark_counts_the_slots_an_id_is_compared_with() -> None:
    report = run("id_filter.py", "--ids", "20000")
    assert (report["ids"], report["runs"], report["wrong_maybes"]) == (20000, 1, 0)
    # 20,000 ids in 2**22 slots: an id meets a taken slot about once in 400 (half the load, 0.0024)
    assert 0 < report["compared_per_id"] < 0.02 and report["one_verification_in"] > 1e6


def test_the_audit_growth_benchmark_reads_every_entry_and_judges_it_by_the_rules() -> None:
    report = run("audit_growth.py", "--lines", "2000")
    assert report["lines"] == 2000 and len(report["stats"]) == 5
    assert "rules, one entry of 8,000 lines" in report["stats"]
    assert [goal["name"] for goal in report["goals"]] == [
        "reading: 4x the lines of one entry within 6x the time", "rules: 4x the lines of one entry within 6x the time"]
    assert all(goal["ratio"] > 0 for goal in report["goals"])


def test_the_aidlc_docs_benchmark_measures_a_clean_generated_history(tmp_path: Path) -> None:
    report = run("aidlc_docs_validate.py", "--units", "10", "--entries", "250", "--commits", "100",
                 "--workdir", str(tmp_path))
    result = report["result"]
    shape = result["shape"]
    assert (shape["units"], shape["commits"], shape["merges"]) == (10, 100, 1) and shape["entries"] >= 250
    summary = result["summary"]  # the generated repository follows every rule, and aidlc read what the floor read
    assert (summary["errors"], summary["warnings"], summary["infos"]) == (0, 0, 0)
    assert summary["files"] == result["floor_files"] == shape["files"] and result["log_bytes"] > 0
    for row in ("cli", "floor"):
        assert result[row]["runs"] == 1 and result[row]["median"] > 0
    assert report["goal"]["passed"] is None  # not the goal's size


def test_the_house_benchmark_measures_the_package_against_its_goals() -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "house.py"), "--json", "--no-mypy"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    code = report["code"]
    assert code["files"] > 100 and code["lines"] > 10_000
    largest_path, largest_lines = code["largest_files"][0]
    assert (Path(__file__).resolve().parent.parent / largest_path).read_text(encoding="utf-8").count("\n") == \
        largest_lines
    assert code["files_over_400"] == sum(1 for _, lines in code["largest_files"] if lines > 400) or \
        code["files_over_400"] > len(code["largest_files"])
    for cycle in code["module_cycles"]:
        assert len(cycle) > 1 and all(name.startswith("aidlc") for name in cycle)
    names = [goal["name"] for goal in report["goals"]]
    assert "no upward import" in names and "mypy reports no error" in names
    assert report["mypy_errors"] is None and report["suite_seconds"] is None  # neither asked for


def test_the_house_benchmark_finds_every_cycle_and_only_cycles() -> None:
    spec = importlib.util.spec_from_file_location("house", BENCHMARKS / "house.py")
    assert spec is not None and spec.loader is not None
    house = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(house)
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}, "g": {"g", "a"}}
    assert sorted(house.strongly_connected(graph)) == [["a", "b", "c"], ["e", "f"]]
    assert house.strongly_connected({"x": {"y"}, "y": set()}) == []


def test_the_mcp_benchmark_compares_a_warm_status_with_a_fresh_process(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "mcp_status.py"), "--stories", "60", "--runs", "1",
                           "--json", "--workdir", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["stories"] == 60 and report["same_document"] is True
    assert report["fresh"]["runs"] == report["warm"]["runs"] == report["warm_validated"]["runs"] == 1
    changed = report["after_change"]
    assert changed["reflected"] is True and changed["stories_after"] != changed["stories_before"]
    assert report["ratio"] == report["warm"]["median"] / report["fresh"]["median"]


def test_the_aidlc_docs_compare_lists_the_findings_one_version_reports_and_the_other_does_not(tmp_path: Path) -> None:
    from tests.aidlc_docs_sample import AUDIT, ENTRIES, audit_text, build_docs_repo

    clean = build_docs_repo(tmp_path / "checkouts" / "clean")
    unapproved = build_docs_repo(tmp_path / "checkouts" / "stories")
    unapproved.write(AUDIT, audit_text([entry for entry in ENTRIES if entry[0] != "User Stories - Approval"]))
    # the base: this code with AIDLC-DOCS-003's message worded otherwise
    base = tmp_path / "base"
    shutil.copytree(BENCHMARKS.parent / "aidlc", base / "aidlc", ignore=shutil.ignore_patterns("__pycache__"))
    rule = base / "aidlc" / "rules" / "docs_layout.py"
    rule.write_text(rule.read_text(encoding="utf-8").replace("holds no approval of it \"", "logs no approval of it \""),
                    encoding="utf-8")
    done = subprocess.run([sys.executable, str(BENCHMARKS / "aidlc_docs_compare.py"), str(tmp_path / "checkouts"),
                           "--base-code", str(base), "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert (result["checkouts"], list(result["changed"]), result["counts"]) == (2, ["stories"], {})
    [(code, _, line, gone)], [(_, _, _, added)] = result["changed"]["stories"].values()
    assert code == "AIDLC-DOCS-003" and "logs no approval of it" in gone and "holds no approval of it" in added
    text = subprocess.run([sys.executable, str(BENCHMARKS / "aidlc_docs_compare.py"), str(tmp_path / "checkouts"),
                           "--base-code", str(base)], capture_output=True, text=True, timeout=600).stdout
    assert text.endswith("2 checkouts, 1 with different findings\n")
    assert f"  - AIDLC-DOCS-003 aidlc-docs/aidlc-state.md:{line} " in text
    # --status: the approvals status cites, each one line further down on the base side
    status = base / "aidlc" / "status" / "docs.py"
    status.write_text(status.read_text(encoding="utf-8").replace("{claim.approval.line}", "{claim.approval.line + 1}"),
                      encoding="utf-8")
    done = subprocess.run([sys.executable, str(BENCHMARKS / "aidlc_docs_compare.py"), str(tmp_path / "checkouts" /
                           "clean"), "--base-code", str(base), "--status", "--json"], capture_output=True, text=True,
                          timeout=600)
    cited = json.loads(done.stdout)["changed"]["clean"]
    gone = {message for code, _, _, message in cited["gone"]}
    added = {message for code, _, _, message in cited["added"]}
    assert {code for code, *_ in cited["gone"] + cited["added"]} == {"cited"}
    line = clean.line(AUDIT, "## Workflow Planning - Approval")
    assert f"workflow-planning: aidlc-docs/audit.md:{line}" in added
    assert f"workflow-planning: aidlc-docs/audit.md:{line + 1}" in gone


@pytest.mark.parametrize(("args", "said"), [
    (["{tmp}/missing", "--base", "HEAD"], "no such folder: {tmp}/missing"),
    (["{tmp}/shop/aidlc-docs", "--base", "HEAD"], "no checkout holding aidlc-docs/ in {tmp}/shop/aidlc-docs"),
    (["{tmp}/shop", "--base", "no-such-revision"], "no-such-revision is no commit of"),
    (["{tmp}/shop", "--base-code", "{tmp}"], "{tmp} holds no aidlc package")])
def test_the_aidlc_docs_compare_refuses_what_it_cannot_run_with_the_reason(tmp_path: Path, args: list[str],
                                                                           said: str) -> None:
    (tmp_path / "shop" / "aidlc-docs").mkdir(parents=True)
    done = subprocess.run([sys.executable, str(BENCHMARKS / "aidlc_docs_compare.py"),
                           *(arg.format(tmp=tmp_path) for arg in args)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("aidlc_docs_compare: ") and said.format(tmp=tmp_path) in done.stderr
    assert "Traceback" not in done.stderr


def test_the_aidlc_docs_compare_reports_a_checkout_aidlc_cannot_read_as_such(tmp_path: Path) -> None:
    # an aidlc-docs folder holding neither records file: validate's error, on both sides, is no difference
    (tmp_path / "shop" / "aidlc-docs").mkdir(parents=True)
    spec = importlib.util.spec_from_file_location("aidlc_docs_compare", BENCHMARKS / "aidlc_docs_compare.py")
    assert spec is not None and spec.loader is not None
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    [(code, _, _, message)] = compare.findings(BENCHMARKS.parent, tmp_path / "shop")
    assert code == "unreadable" and message.endswith("holds neither aidlc-state.md nor audit.md"), message
    done = subprocess.run([sys.executable, str(BENCHMARKS / "aidlc_docs_compare.py"), str(tmp_path), "--base-code",
                           str(BENCHMARKS.parent), "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"checkouts": 1, "changed": {}, "counts": {}}


def test_the_aidlc_docs_repos_run_checks_out_a_listed_mirror_and_keeps_it_for_the_compare(tmp_path: Path) -> None:
    from tests.aidlc_docs_sample import build_docs_repo

    source = build_docs_repo(tmp_path / "source")
    mirror = tmp_path / "mirrors" / "acme+shop" / "repo"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(source.root), str(mirror)], check=True)
    # an aidlc-docs folder holding neither records file, as fusic/todo-ai-dlc's: validate's usage error, reported
    empty = tmp_path / "empty"
    (empty / "aidlc-docs").mkdir(parents=True)
    (empty / "aidlc-docs" / "notes.md").write_text("# notes\n", encoding="utf-8")
    subprocess.run(["git", "init", "--quiet", str(empty)], check=True)
    subprocess.run(["git", "-C", str(empty), "add", "."], check=True)
    subprocess.run(["git", "-C", str(empty), "-c", "user.name=a", "-c", "user.email=a@example.com", "commit",
                    "--quiet", "-m", "notes"], check=True)
    subprocess.run(["git", "clone", "--quiet", "--bare", str(empty), str(tmp_path / "mirrors" / "acme+empty" /
                                                                          "repo")], check=True)
    listed = tmp_path / "repos.txt"
    listed.write_text("# the public ones\nacme/shop\n../outside  # no owner/name: never a folder to replace\n"
                      "acme/gone\nacme/empty\n", encoding="utf-8")
    kept = tmp_path / "kept"
    (kept / "acme+shop").mkdir(parents=True)
    (kept / "acme+shop" / "stale.txt").write_text("an earlier checkout's", encoding="utf-8")
    done = subprocess.run([sys.executable, str(BENCHMARKS / "aidlc_docs_repos.py"), "--mirrors",
                           str(tmp_path / "mirrors"), "--list", str(listed), "--keep", str(kept)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("acme/shop @ HEAD: ") and " 0 errors, " in lines[0], done.stdout
    assert "'../outside': not an owner/name, skipped" in lines
    assert f"acme/gone: no mirror at {tmp_path / 'mirrors' / 'acme+gone' / 'repo'}, skipped" in lines
    assert lines[-2].startswith("acme/empty @ HEAD: not validated: no memory bank at ") and lines[-2].endswith(
        "holds neither aidlc-state.md nor audit.md"), done.stdout
    # the checkout stays, checked out afresh, where aidlc_docs_compare.py reads checkouts
    assert (kept / "acme+shop" / "aidlc-docs" / "aidlc-state.md").is_file()
    assert not (kept / "acme+shop" / "stale.txt").exists() and not (tmp_path / "outside").exists()
    done = subprocess.run([sys.executable, str(BENCHMARKS / "aidlc_docs_repos.py"), "--list", str(tmp_path / "none")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and f"--list {tmp_path / 'none'}: no such file" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
