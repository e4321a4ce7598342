"""`aidlc llm check` says whether the model did what a trivial instruction asked: a warning, never a failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.openai_server import ScriptedServer, chat
from tests.test_llm_cli import GOOD, invoke, run

SORRY = "I'm sorry for any confusion"


def test_a_model_that_follows_both_instructions_gets_no_warning(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(chat("Pong."), chat(GOOD))
    proc = run(["--base-url", server.url, "--format", "json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["plain"]["instruction_followed"] is True and doc["plain"]["asked"] == "pong"
    assert doc["structured"]["instruction_followed"] is True
    assert doc["structured"]["asked"] == {"answer": "pong", "number": 42}
    assert doc["warnings"] == []
    asked = server.bodies()[0]["messages"][-1]["content"]
    assert asked.endswith("Reply with the single word: pong")  # what the report says was asked


def test_a_plain_answer_that_ignores_the_instruction_is_a_warning_in_json(server: ScriptedServer,
                                                                          tmp_path: Path) -> None:
    server.push(chat(SORRY), chat(GOOD))
    proc = run(["--base-url", server.url, "--format", "json"], tmp_path)
    assert proc.returncode == 0, proc.stderr  # the connection works: not a failure
    doc = json.loads(proc.stdout)
    assert doc["ok"] is True and doc["error"] is None
    assert doc["plain"]["instruction_followed"] is False and doc["plain"]["text"] == SORRY
    assert doc["structured"]["instruction_followed"] is True
    (warning,) = doc["warnings"]
    assert f"asked to reply with the single word 'pong', it answered \"{SORRY}\"" in warning


def test_a_plain_answer_that_ignores_the_instruction_is_a_warning_in_text(server: ScriptedServer,
                                                                          tmp_path: Path) -> None:
    server.push(chat(SORRY), chat('{"answer": "ping", "number": 7}'))
    proc = run(["--base-url", server.url], tmp_path)
    assert proc.returncode == 0, proc.stderr
    plain = next(line for line in proc.stdout.splitlines() if line.startswith("plain"))
    assert plain.startswith("plain       ok") and plain.endswith("instruction not followed")
    structured = next(line for line in proc.stdout.splitlines() if line.startswith("structured"))
    assert structured.endswith("instruction not followed")
    warnings = [line for line in proc.stdout.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2
    assert "did not follow a trivial instruction" in warnings[0] and SORRY in warnings[0]
    assert 'asked for {"answer": "pong", "number": 42}, it gave {"answer": "ping", "number": 7}' in warnings[1]
    assert "error:" not in proc.stderr


@pytest.mark.parametrize(("answer", "followed"), [("pong", True), ("  PONG!\n", True), ("The word is: pong.", True),
                                                  ("ping", False), ("pongs", False), ("", False)])
def test_what_counts_as_following(server: ScriptedServer, tmp_path: Path, answer: str, followed: bool) -> None:
    server.push(chat(answer), chat(GOOD))
    doc = json.loads(invoke(["--base-url", server.url, "--format", "json"], tmp_path).stdout)
    assert doc["plain"]["instruction_followed"] is followed and bool(doc["warnings"]) is not followed
