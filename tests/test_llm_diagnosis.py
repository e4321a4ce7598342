"""Accurate diagnosis against real server behaviours (the scripted server, the real openai SDK, the CLI):
a server that dies on our request, an answer cut by the server's context window rather than max_tokens,
and a server that refuses a prompt longer than its context."""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

import pytest
from pydantic import BaseModel

from aidlc.llm import FallbackChain, Message, complete_structured, provider_from_config
from aidlc.llm.base import ContextWindow
from aidlc.llm.errors import (
    LLMContextExceeded,
    LLMServerStopped,
    LLMTransient,
    LLMTruncated,
    LLMUnreachable,
)
from aidlc.llm.openai_provider import OpenAIProvider
from aidlc.llm.replay import request_digest
from aidlc.llm.retry import RetryPolicy
from aidlc.model.config import LLMConfig
from tests.helpers import in_process
from tests.openai_server import ScriptedServer, anthropic_message, chat, error, hang_up
from tests.test_llm_cli import clean_env
from tests.test_new import aidlc

HI = [Message("system", "be brief"), Message("user", "hi")]
STOPPED = "stopped while answering this request (it may have crashed on it)"
LLAMA_CPP_PYTHON_REFUSAL = "Requested tokens (2100) exceed context window of 2048"
LLAMA_SERVER_REFUSAL = "request (2100 tokens) exceeds the available context size (2048 tokens), try increasing it"


class Reply(BaseModel):
    answer: str
    number: int


def make(server: ScriptedServer, *, key: str | None = "test-key", attempts: int = 4) -> OpenAIProvider:
    policy = RetryPolicy(attempts=attempts, sleep=lambda _s: None, rng=random.Random(7))
    return OpenAIProvider("test-model", api_key=key, base_url=server.url, timeout_s=10, retry=policy)


def asked_digest(body: dict) -> str:
    """The digest of what the server received, computed as a cassette would."""
    return request_digest([Message.from_dict(m) for m in body["messages"]], body.get("response_format"),
                          body.get("tools"))


# --- a server that dies on our request ---------------------------------------------------------------------

@pytest.mark.parametrize("how", ["close", "reset", "mid-answer"])
def test_a_server_that_dies_on_the_request_stopped_it_did_not_go_unreachable(server: ScriptedServer,
                                                                            how: str) -> None:
    server.push(hang_up(how))  # dies on the request, then nothing listens: every retry is refused
    with pytest.raises(LLMServerStopped) as caught:
        make(server).complete(HI, max_tokens=8)
    error = caught.value
    assert isinstance(error, LLMTransient)  # a fallback target is still tried
    assert error.message.startswith(f"the server at {server.url} (model test-model) {STOPPED}: the connection was "
                                    "closed or reset before a complete answer (")
    assert "; the 3 attempts since found nothing listening. The request: digest " in error.message
    (body,) = server.bodies()  # one request reached it; the three retries found the port closed
    assert f"digest {asked_digest(body)} (as a cassette recorded with AIDLC_LLM_RECORD names it)" in error.message
    assert re.search(r", \d{2,3} bytes: 2 messages of ~\d+ tokens$", error.message)
    assert "cannot reach" not in error.message
    assert error.next_steps[0].startswith("read the server's log for why it stopped")
    assert error.next_steps[-1].startswith("aidlc llm check")


def test_the_digest_is_the_one_a_recording_of_the_request_holds(server: ScriptedServer, tmp_path: Path) -> None:
    cassette = tmp_path / "run.jsonl"
    server.push(chat("pong"), hang_up("close"))  # answered once (and recorded), then the server dies on it
    stack = provider_from_config(LLMConfig(model="test-model", base_url=server.url),
                                 env={"OPENAI_API_KEY": "sk-test-secret-00000000000000000000"}, record=cassette,
                                 retry=RetryPolicy(attempts=2, sleep=lambda _s: None))
    secret = [Message("user", "deploy with sk-test-secret-00000000000000000000")]  # redacted before it is sent
    stack.complete(secret, max_tokens=8)
    with pytest.raises(LLMServerStopped) as caught:
        stack.complete(secret, max_tokens=8)
    (recorded,) = [json.loads(line) for line in cassette.read_text().splitlines()]
    assert f"digest {recorded['digest']} " in caught.value.message
    assert "the 1 attempt since found nothing listening" in caught.value.message


def test_a_connection_dropped_once_is_retried_and_the_answer_used(server: ScriptedServer) -> None:
    server.push(hang_up("reset", stop_listening=False), chat("pong"))
    assert make(server).complete(HI, max_tokens=8).text == "pong"
    assert len(server.bodies()) == 2


def test_a_server_that_dies_on_every_attempt_is_still_a_server_that_stopped(server: ScriptedServer) -> None:
    server.push(*[hang_up("close", stop_listening=False)] * 2)
    with pytest.raises(LLMServerStopped) as caught:
        make(server, attempts=2).complete(HI, max_tokens=8)
    assert "found nothing listening" not in caught.value.message and len(server.bodies()) == 2


def test_a_server_refused_from_the_first_attempt_is_cannot_reach(server: ScriptedServer) -> None:
    server.stop_listening()
    with pytest.raises(LLMUnreachable, match=f"^cannot reach {re.escape(server.url)} ") as caught:
        make(server).complete(HI, max_tokens=8)
    assert "start the server" in caught.value.next_steps[0]


def test_the_next_steps_name_what_is_large_in_the_request(server: ScriptedServer) -> None:
    server.push(hang_up("close"))
    schema = {"type": "json_schema", "json_schema": {"name": "Reply", "schema": Reply.model_json_schema()}}
    long_prompt = [Message("user", "word " * 3000)]
    with pytest.raises(LLMServerStopped) as caught:
        make(server).complete(long_prompt, max_tokens=8, response_format=schema)
    (body,) = server.bodies()
    assert f"digest {asked_digest(body)}" in caught.value.message
    assert re.search(r"1 messages of ~3,\d{3} tokens, and a \d+-byte response_format \(json_schema\)$",
                     caught.value.message)
    steps = "\n".join(caught.value.next_steps)
    assert "structured output with a" in steps and "llama.cpp" in steps and "aidlc draft --budget N" in steps


def test_the_fallback_chain_moves_on_from_a_server_that_stopped(server: ScriptedServer) -> None:
    with ScriptedServer() as second:
        server.push(hang_up("reset"))
        second.push(chat("from the second"))
        chain = FallbackChain([make(server), make(second)])
        answer = chain.complete(HI, max_tokens=8)
    assert answer.text == "from the second" and answer.degraded


def test_the_anthropic_provider_tells_the_same(server: ScriptedServer) -> None:
    server.push(hang_up("mid-answer", stop_listening=False), anthropic_message("ok"))
    llm = LLMConfig.model_validate({"provider": "anthropic", "model": "claude-x", "base_url": server.root})
    stack = provider_from_config(llm, env={"ANTHROPIC_API_KEY": "sk-ant-test-000000000000000000"},
                                 retry=RetryPolicy(attempts=1))
    with pytest.raises(LLMServerStopped, match=STOPPED.replace("(", r"\(").replace(")", r"\)")):
        stack.complete(HI, max_tokens=8)


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return in_process(["--repo", str(root), *args], clean_env())


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def test_llm_check_reports_a_server_that_stopped_on_the_request(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(hang_up("close"))
    proc = cli(tmp_path, "llm", "check", "--base-url", server.url, "--model", "tiny", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    (body,) = server.bodies()
    assert doc["plain"]["kind"] == "LLMServerStopped" and doc["structured"] is None
    assert doc["error"].startswith(
        f"the server at {server.url} (model tiny) {STOPPED}: the connection was closed or reset before a complete "
        "answer (Server disconnected without sending a response.); the 3 attempts since found nothing listening. "
        f"The request: digest {asked_digest(body)} (as a cassette recorded with AIDLC_LLM_RECORD names it), ")
    assert doc["next_steps"][0].startswith("read the server's log") and "Traceback" not in proc.stderr


def test_draft_reports_a_server_that_stopped_and_writes_nothing(server: ScriptedServer, repo: Path) -> None:
    assert aidlc(repo, "new", "intent", "Checkout & Payments!")[0] == 0
    before = snapshot(repo)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    server.push(hang_up("reset"))
    proc = cli(repo, "draft", "requirements", "1", "--base-url", server.url, "--model", "tiny")
    assert proc.returncode == 1
    (body,) = server.bodies()
    assert body["response_format"]["type"] == "json_schema"
    assert (f"error: the server at {server.url} (model tiny) {STOPPED}: the connection was closed or reset "
            "before a complete answer (") in proc.stderr
    assert f"The request: digest {asked_digest(body)} " in proc.stderr and "-byte response_format (json_schema)" \
        in proc.stderr
    assert "read the server's log" in proc.stderr and "cannot reach" not in proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(repo) == before
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == status
    assert cli(repo, "log", "verify").returncode == 0


# --- truncation: which limit cut the answer -----------------------------------------------------------------

ASK = [Message("user", 'Give "pong" as answer and 42 as number.')]
CUT = '{"answer": "po'


def cut(prompt_tokens: int, completion_tokens: int) -> object:
    return chat(CUT, finish_reason="length", prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def truncation(server: ScriptedServer, *, max_tokens: int = 8192, key: str | None = "test-key") -> LLMTruncated:
    with pytest.raises(LLMTruncated) as caught:
        complete_structured(make(server, key=key), ASK, Reply, max_tokens=max_tokens, max_tokens_limit=max_tokens)
    return caught.value


def probes(server: ScriptedServer) -> list[str]:
    return [r.path for r in server.requests if r.path in ("/v1/models", "/props")]


def test_usage_that_fills_the_context_says_raise_the_servers_context(server: ScriptedServer) -> None:
    server.push(cut(2012, 36))  # llama-cpp-python with its default 2,048: /models and /props tell nothing
    error = truncation(server)
    assert error.message == (
        "the server stopped the answer after 36 tokens, below the max_tokens=8192 asked, before finishing its "
        f"Reply JSON (openai:test-model@{server.url}): a limit other than the token budget was hit, most likely "
        "the server's context window (the prompt took 2,012 tokens; prompt + answer = 2,048)")
    steps = "\n".join(error.next_steps)
    assert "llama-server -c 4096" in steps and "--n_ctx 4096" in steps and "num_ctx 4096" in steps
    assert "--max-tokens" not in steps
    assert probes(server) == ["/v1/models", "/props"] and error.raw == CUT and error.max_tokens == 8192


def test_props_give_the_window(server: ScriptedServer) -> None:
    server.props = {"default_generation_settings": {"n_ctx": 2048, "params": {}}, "total_slots": 1}
    server.push(cut(2012, 36))
    error = truncation(server)
    assert error.message == (
        "the server's context window is full: 2,048 tokens (GET /props default_generation_settings.n_ctx); the "
        "prompt took 2,012 of them, so the model generated only 36 of the max_tokens=8192 asked, before finishing "
        f"its Reply JSON (openai:test-model@{server.url})")
    assert error.next_steps[0].startswith("raise the server's context size, e.g. to 4096: llama-server -c 4096")


def test_models_meta_gives_the_window(server: ScriptedServer) -> None:
    server.models = {"object": "list", "data": [
        {"id": "other", "object": "model", "meta": {"n_ctx_train": 131072}},
        {"id": "test-model", "object": "model", "meta": {"n_ctx_train": 8192, "n_ctx": 4096}}]}
    server.push(cut(4000, 96))
    error = truncation(server)
    assert error.message.startswith("the server's context window is full: 4,096 tokens (GET /models meta.n_ctx); "
                                    "the prompt took 4,000 of them, so the model generated only 96 of the")
    assert "llama-server -c 8192" in error.next_steps[0]
    assert probes(server) == ["/v1/models"]  # the server's own window found: /props is not asked


def test_the_models_trained_context_is_said_for_what_it_is(server: ScriptedServer) -> None:
    server.models = {"object": "list", "data": [{"id": "any", "meta": {"n_ctx_train": 8192}}]}
    server.push(cut(2012, 36))
    error = truncation(server)
    assert error.message.endswith("prompt + answer = 2,048); the model was trained for 8,192 tokens (GET /models "
                                  "meta.n_ctx_train), the server may run with less")
    assert "llama-server -c 4096" in error.next_steps[0]


def test_vllm_max_model_len_and_a_window_not_reached(server: ScriptedServer) -> None:
    server.models = {"object": "list", "data": [{"id": "test-model", "max_model_len": 32768}]}
    server.push(cut(900, 128))
    error = truncation(server)
    assert "below the max_tokens=8192 asked and its context window (32,768 tokens (GET /models max_model_len); " \
           "prompt 900 + answer 128 = 1,028)" in error.message
    assert error.message.endswith("a limit of the server's own cut it, such as a cap on generated tokens")
    assert "llama-server -n N" in error.next_steps[0]


def test_a_true_budget_truncation_says_raise_the_budget_and_asks_nothing_more(server: ScriptedServer) -> None:
    server.props = {"default_generation_settings": {"n_ctx": 4096}}
    server.push(cut(40, 100))
    error = truncation(server, max_tokens=100)
    assert error.message == ("the model stopped at max_tokens=100 before finishing its Reply JSON "
                             f"(openai:test-model@{server.url}): it generated 100 tokens after a prompt of 40")
    assert "raise the token budget (aidlc draft --max-tokens N)" in error.next_steps[1]
    assert probes(server) == []


def test_the_window_is_asked_once_per_target_with_its_key_and_garbage_tells_nothing(server: ScriptedServer) -> None:
    server.models = "<html>not json</html>"
    server.push(cut(2012, 36), cut(2012, 36))
    provider = make(server)
    for _ in range(2):
        with pytest.raises(LLMTruncated, match="most likely the server's context window"):
            complete_structured(provider, ASK, Reply, max_tokens=8192, max_tokens_limit=8192)
    assert probes(server) == ["/v1/models", "/props"]  # once, for both truncations
    asked = [r for r in server.requests if r.path in ("/v1/models", "/props")]
    assert all(r.headers.get("authorization") == "Bearer test-key" for r in asked)  # the host of base_url only
    assert all(r.headers.get("host") == f"127.0.0.1:{server.port}" for r in asked)


def test_without_a_key_the_probe_sends_none(server: ScriptedServer) -> None:
    server.push(cut(2012, 36))
    truncation(server, key=None)
    assert [r.headers.get("authorization") for r in server.requests] == [None, None, None]


def test_the_diagnosis_replays_offline(server: ScriptedServer, tmp_path: Path) -> None:
    cassette = tmp_path / "cut.jsonl"
    server.props = {"default_generation_settings": {"n_ctx": 2048}}
    server.push(cut(2012, 36))
    llm = LLMConfig(model="test-model", base_url=server.url)
    with pytest.raises(LLMTruncated) as live:
        complete_structured(provider_from_config(llm, env={}, record=cassette), ASK, Reply, max_tokens=8192,
                            max_tokens_limit=8192)
    server.close()
    with pytest.raises(LLMTruncated) as replayed:
        complete_structured(provider_from_config(llm, env={}, replay=cassette), ASK, Reply, max_tokens=8192,
                            max_tokens_limit=8192)
    assert replayed.value.message == live.value.message and "context window is full: 2,048" in live.value.message


def test_an_answer_without_usage_gives_both_possibilities(server: ScriptedServer) -> None:
    server.push(chat(CUT, finish_reason="length", prompt_tokens=None))
    error = truncation(server)
    assert "the server reported no token counts (estimated: a prompt of ~" in error.message
    steps = "\n".join(error.next_steps)
    assert "--max-tokens" in steps and "llama-server -c" in steps


def test_an_anthropic_context_stop_is_a_truncation_too(server: ScriptedServer) -> None:
    server.push(anthropic_message(CUT, stop_reason="model_context_window_exceeded"))
    llm = LLMConfig.model_validate({"provider": "anthropic", "model": "claude-x", "base_url": server.root})
    stack = provider_from_config(llm, env={"ANTHROPIC_API_KEY": "sk-ant-test-000000000000000000"})
    with pytest.raises(LLMTruncated, match="most likely the server's context window"):
        complete_structured(stack, ASK, Reply, max_tokens=8192, max_tokens_limit=8192)


# --- a prompt the server refuses as longer than its context ---------------------------------------------------

@pytest.mark.parametrize("words", [LLAMA_CPP_PYTHON_REFUSAL, LLAMA_SERVER_REFUSAL])
def test_a_refused_long_prompt_is_the_context_diagnosis(server: ScriptedServer, words: str) -> None:
    server.push(error(400, words))
    with pytest.raises(LLMContextExceeded) as caught:
        complete_structured(make(server), ASK, Reply, max_tokens=512)
    assert caught.value.message == ("the prompt does not fit the server's context window (the prompt is 2,100 "
                                    f"tokens, the window 2,048): {server.url} (model test-model) answered HTTP 400: "
                                    f"{words}")
    assert caught.value.status == 400 and len(server.bodies()) == 1  # not retried, no mode stepped down
    assert caught.value.next_steps[0].startswith("raise the server's context size, e.g. to 8192: llama-server -c")


def test_an_older_llama_server_refusal_without_numbers(server: ScriptedServer) -> None:
    server.push(error(400, "the request exceeds the available context size, try increasing it"))
    with pytest.raises(LLMContextExceeded, match=r"^the prompt does not fit the server's context window: ") as caught:
        make(server).complete(HI, max_tokens=8)
    assert "llama-server -c 4096" in caught.value.next_steps[0]


def test_a_refusal_replays_as_the_same_diagnosis(server: ScriptedServer, tmp_path: Path) -> None:
    cassette = tmp_path / "refused.jsonl"
    server.push(error(400, LLAMA_CPP_PYTHON_REFUSAL))
    llm = LLMConfig(model="test-model", base_url=server.url)
    with pytest.raises(LLMContextExceeded):
        provider_from_config(llm, env={}, record=cassette).complete(HI, max_tokens=8)
    with pytest.raises(LLMContextExceeded) as replayed:
        provider_from_config(llm, env={}, replay=cassette).complete(HI, max_tokens=8)
    assert "the window 2,048" in replayed.value.message and "llama-server -c" in replayed.value.next_steps[0]


def test_draft_through_the_cli_says_to_raise_the_context_and_writes_nothing(server: ScriptedServer,
                                                                            repo: Path) -> None:
    assert aidlc(repo, "new", "intent", "Checkout & Payments!")[0] == 0
    before = snapshot(repo)
    server.props = {"default_generation_settings": {"n_ctx": 2048}}
    server.push(cut(2012, 36))  # one call: a larger budget cannot help, so none is asked for
    proc = cli(repo, "draft", "requirements", "1", "--base-url", server.url, "--model", "tiny")
    assert proc.returncode == 1
    assert ("error: the server's context window is full: 2,048 tokens (GET /props default_generation_settings.n_ctx); "
            "the prompt took 2,012 of them, so the model generated only 36 of the max_tokens=4096 asked, before "
            "finishing its RequirementsProposal JSON") in proc.stderr
    assert "llama-server -c 4096" in proc.stderr and "--max-tokens" not in proc.stderr
    assert snapshot(repo) == before


def test_a_window_round_trips_through_a_completion() -> None:
    from aidlc.llm.base import Completion

    answer = Completion("x", context_window=ContextWindow(2048, "GET /props default_generation_settings.n_ctx"))
    assert Completion.from_dict(json.loads(json.dumps(answer.to_dict()))) == answer
    assert Completion.from_dict({"text": "old cassette"}).context_window is None
