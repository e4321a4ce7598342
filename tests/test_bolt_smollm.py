"""Optional: `aidlc bolt start` against SmolLM2-135M-Instruct on llama-cpp-python's server (set-up commands:
tests/test_llm_smollm.py). Skipped unless AIDLC_SMOLLM_URL is set; .ci/smollm runs it. Whatever a 135M model
manages, the run ends in a clear state (paused, failed with a partial walkthrough, or done), never a
traceback, and `aidlc bolt trace` explains it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.bolt_sample import BOLT, BOLT_DIR, build_sample, copy, git, run, set_config

URL = os.environ.get("AIDLC_SMOLLM_URL", "")
pytestmark = [pytest.mark.smollm, pytest.mark.skipif(not URL, reason="set AIDLC_SMOLLM_URL to a llama.cpp server")]


def test_a_bolt_against_a_tiny_real_model_ends_in_a_clear_state(tmp_path: Path, _initialised: Path) -> None:
    shop = copy(_initialised, tmp_path / "shop")
    build_sample(shop)
    set_config(shop, "auto_approve_plan: []", "auto_approve_plan: [low, medium]")
    git(shop, "commit", "-qam", "low and medium risk plans approve themselves")
    # At about 20 tokens/s a long plan takes minutes: a 30 s call limit makes a slow model a provider pause
    # (exit 3), one of the clear states, instead of minutes of waiting.
    proc = run(shop, "--format", "json", "bolt", "start", BOLT, "--base-url", URL, "--model", "smollm2",
               extra_env={"AIDLC_LLM_TIMEOUT": "30"})
    assert proc.returncode in (0, 1, 2, 3) and "Traceback" not in proc.stderr, proc.stderr
    if proc.returncode == 2:  # refused before it started: said why
        assert "Next steps:" in proc.stderr
        return
    doc = json.loads(proc.stdout)
    print(f"bolt start: exit {proc.returncode}, {doc['run']['status']}, pause: {doc['run']['pause']}")
    assert doc["run"]["status"] in ("AWAIT_PLAN_APPROVAL", "AWAIT_ACCEPTANCE", "FAILED", "COMPLETED") \
        or doc["run"]["pause"] is not None
    if doc["run"]["status"] == "FAILED" and doc["run"]["commits"]:
        assert (shop / BOLT_DIR / "implementation-walkthrough.md").is_file()
    trace = run(shop, "bolt", "trace", BOLT)
    assert trace.returncode == 0 and doc["run"]["status"] in trace.stdout
