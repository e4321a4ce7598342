"""AIDLC-DOCS-043 (aidlc/rules/docs_gates.py): on the aidlc-docs layout, a line of the ledger that is chained and
hashed but holds no event is refused by `aidlc validate` and `aidlc ci`, as AIDLC-LEDGER-018 refuses it on a memory
bank; the ledger is read, and each line parsed, once per run however many v2 intent records share it.

The repositories are real: the clean sample projects (tests/aidlc_docs_sample.py, tests/aidlc_v2_sample.py) adopted
by `aidlc init`, with lines forged onto the ledger as a forger writes them (tests/forge.py), committed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import aidlc.events.view as view_module
import aidlc.rules.docs_gates as docs_gates_module
from aidlc.events import canonical
from aidlc.events.ledger import Ledger
from aidlc.events.view import LedgerView
from tests import forge
from tests.aidlc_docs_sample import DocsRepo, build_docs_repo
from tests.aidlc_v2_sample import EVENTS_B, INTENTS, RECORD, at, build_v2_repo
from tests.helpers import run_cli

LEDGER = "aidlc-docs/events.jsonl"  # beside the docs; on a v2 workspace, the records folder's (`aidlc_docs:`)
RETURNS = "aidlc/spaces/default/intents/261201-returns"  # a second intent record
FIX = f"git log -p -- {LEDGER}    # who wrote the line; restore the file from the last good commit"


def adopt(repo: DocsRepo, when: datetime | None = None) -> DocsRepo:
    done = run_cli("init", str(repo.root))
    assert done.returncode == 0, done.stdout + done.stderr
    repo.commit("adopt aidlc", when)
    return repo


@pytest.fixture
def docs(tmp_path: Path) -> DocsRepo:
    """The clean aidlc-docs project with its ledger beside the docs (only `ledger.created` in it)."""
    return adopt(build_docs_repo(tmp_path / "shop"))


@pytest.fixture
def v2(tmp_path: Path) -> DocsRepo:
    """The clean v2 workspace with a second intent record, a copy of the first: the records folder's ledger is both
    records' ledger."""
    repo = build_v2_repo(tmp_path / "shop")
    for path in repo.path(RECORD).rglob("*"):
        if path.is_file():
            repo.write(f"{RETURNS}/{path.relative_to(repo.path(RECORD)).as_posix()}", path.read_text(encoding="utf-8"))
    repo.replace(INTENTS, "\n]", ',\n  {"uuid": "019a1f2e-3b4c-7d5e-8f60-718293a4b5c7", "slug": "returns", '
                 '"dirName": "261201-returns", "status": "in-flight"}\n]')
    return adopt(repo, at(EVENTS_B[-1][0] + 60))


def forge_lines(repo: DocsRepo, *fields: dict[str, object]) -> list[int]:
    """Chain and hash one line per `fields` (over an ordinary event's) onto the ledger and commit them; their lines."""
    first = len(repo.read(LEDGER).splitlines()) + 1
    now = forge.stamp(datetime.now(UTC))
    forge.append_events(repo.path(LEDGER), [forge.event(first + n, ts=now, **extra) for n, extra in enumerate(fields)])
    repo.commit("ledger: lines by hand")
    return list(range(first, first + len(fields)))


def errors(repo: DocsRepo, command: str) -> tuple[int, list[tuple[str, str, int | None]]]:
    """The exit code of `aidlc COMMAND --format json` and its errors: (code, path, line)."""
    done = run_cli(command, str(repo.root), "--format", "json")
    found = json.loads(done.stdout)["findings"]
    return done.returncode, [(f["code"], f["path"], f["line"]) for f in found if f["severity"] == "error"]


@pytest.mark.parametrize(("fields", "why"), forge.NOT_EVENTS)
def test_a_chained_line_that_holds_no_event_is_refused_by_validate_and_ci(docs: DocsRepo, fields: dict,
                                                                          why: str) -> None:
    assert errors(docs, "validate") == (0, [])
    [line] = forge_lines(docs, fields)
    validated = run_cli("validate", str(docs.root))
    assert validated.returncode == 1
    assert f"{LEDGER}:{line} AIDLC-DOCS-043 the line holds no ledger event ({why}" in validated.stdout, \
        validated.stdout
    assert f"fix: {FIX}" in validated.stdout
    assert errors(docs, "validate") == (1, [("AIDLC-DOCS-043", LEDGER, line)])
    refused = run_cli("ci", str(docs.root))
    assert refused.returncode == 1 and f"{LEDGER}:{line} AIDLC-DOCS-043 " in refused.stdout, refused.stdout
    assert errors(docs, "ci") == (1, [("AIDLC-DOCS-043", LEDGER, line)])


def test_only_the_lines_that_hold_no_event_are_named(docs: DocsRepo) -> None:
    lines = forge_lines(docs, {}, {"actor": None}, {"data": {"n": 3}}, {"type": "gate.forged"})
    assert errors(docs, "validate") == (1, [("AIDLC-DOCS-043", LEDGER, lines[1]), ("AIDLC-DOCS-043", LEDGER, lines[3])])


def test_a_valid_ledger_forged_or_written_by_aidlc_is_no_finding(docs: DocsRepo) -> None:
    forge_lines(docs, {}, {"data": {"note": "by hand"}})  # ordinary events, whoever chained them
    appended = run_cli("audit", "append", "--stage", "build-and-test", "--user-input", "Looks good",
                       "--ai-response", "Build and test recorded", cwd=docs.root)
    assert appended.returncode == 0, appended.stdout + appended.stderr
    docs.commit("audit: build and test")
    assert len(docs.read(LEDGER).splitlines()) == 4
    assert errors(docs, "validate") == (0, []) and errors(docs, "ci") == (0, [])


def test_an_edited_line_is_the_chains_alone(docs: DocsRepo) -> None:
    forged, after = forge_lines(docs, {"actor": None}, {})
    docs.replace(LEDGER, f'"data":{{"n":{forged}}}', '"data":{"n":0}')  # now the chain reports the line, once
    assert errors(docs, "validate") == (1, [("AIDLC-DOCS-042", LEDGER, forged)])
    docs.replace(LEDGER, '"data":{"n":0}', f'"data":{{"n":{forged}}}')
    docs.replace(LEDGER, f'"data":{{"n":{after}}}', '"data":{"n":0}')  # an event edited after the forged line
    assert errors(docs, "validate") == (1, [("AIDLC-DOCS-043", LEDGER, forged), ("AIDLC-DOCS-042", LEDGER, after)])


def test_on_v2_records_the_one_ledger_is_named_once_and_read_once(v2: DocsRepo,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert errors(v2, "validate") == (0, [])
    lines = forge_lines(v2, {}, {"actor": None}, {"approved_by": "Ada"})
    parsed: list[bytes] = []
    opened: list[Ledger] = []

    def counting_parse(lines: Iterable[bytes]) -> Iterator[tuple[bytes, object]]:
        for line, event in canonical.canonical_events(lines):
            parsed.append(line)
            yield line, event

    def counting_open(ledger: Ledger) -> LedgerView:
        opened.append(ledger)
        return view_module.readable_view(ledger)

    monkeypatch.setattr(view_module, "canonical_events", counting_parse)
    monkeypatch.setattr(docs_gates_module, "readable_view", counting_open)
    assert errors(v2, "validate") == (1, [("AIDLC-DOCS-043", LEDGER, lines[1]), ("AIDLC-DOCS-043", LEDGER, lines[2])])
    assert [ledger.rel for ledger in opened] == [LEDGER]  # two records, one view of their ledger
    assert len(parsed) == len(v2.read(LEDGER).splitlines())  # and every line of it parsed once
    refused = run_cli("ci", str(v2.root))
    assert refused.returncode == 1 and f"{LEDGER}:{lines[2]} AIDLC-DOCS-043 " in refused.stdout, refused.stdout
