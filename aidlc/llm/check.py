"""`aidlc llm check`: does the configured provider answer, and does structured output work?

Two tiny calls through the same stack every command uses (aidlc.llm.factory): a plain prompt
(templates/prompts/check_plain.md.j2) and a structured one (check_structured.md.j2 into
`CheckReply`). The report says who answered, latency, token usage and which JSON mode the
server accepted; any LLMError becomes `ok: false` with its reason and next steps.

Each part also says whether the model did what it was asked (`instruction_followed`, with what was
asked and what came back): a server that answers is not yet a model that follows instructions ("I'm
sorry for any confusion" for "pong"). That is a warning, not a failure: the connection works, and
whether the model is good enough is the user's call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from aidlc.llm.base import Completion, Message, Provider
from aidlc.llm.errors import LLMConfigError, LLMError
from aidlc.llm.factory import provider_from_config, resolve_targets
from aidlc.llm.prompts import render_prompt, system_message
from aidlc.llm.structured import complete_structured
from aidlc.model.config import LLMConfig
from aidlc.redaction import without_password

PLAIN_MAX_TOKENS = 16
STRUCTURED_MAX_TOKENS = 128
STRUCTURED_MAX_TOKENS_LIMIT = 512  # small local models ramble; one retry may use this much
PLAIN_WORD = "pong"  # what check_plain.md.j2 asks for
STRUCTURED_VALUE = {"answer": "pong", "number": 42}  # what check_structured.md.j2 asks for


class CheckReply(BaseModel):
    answer: str
    number: int


@dataclass
class CheckReport:
    provider: str
    model: str
    base_url: str | None
    fallback: list[str]
    ok: bool = False
    plain: dict[str, Any] | None = None
    structured: dict[str, Any] | None = None
    error: str | None = None
    next_steps: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_check(llm: LLMConfig, *, provider: str | None = None, model: str | None = None,
              base_url: str | None = None, api_key_env: str | None = None, record: str | Path | None = None,
              replay: str | Path | None = None, timeout_s: float | None = None, root: Path | None = None,
              env: Mapping[str, str] | None = None,
              wrap: Callable[[Provider], Provider] = lambda provider: provider) -> CheckReport:
    """Raises LLMConfigError when the configuration cannot work (exit 2); any other failure is in the report.
    A `base_url` given is the server checked, alone: no fallback answers for it. `wrap`: around the provider
    (the command line shows there how long a call has been waiting)."""
    with_fallback = base_url is None
    target, *fallback = resolve_targets(llm, provider=provider, model=model, base_url=base_url,
                                        api_key_env=api_key_env, env=env, fallback=with_fallback)
    stack = wrap(provider_from_config(llm, provider=provider, model=model, base_url=base_url, api_key_env=api_key_env,
                                      record=record, replay=replay, timeout_s=timeout_s, root=root, env=env,
                                      fallback=with_fallback))
    report = CheckReport(target.provider, target.model, target.base_url and without_password(target.base_url),
                         [f"{f.provider}:{f.model}" for f in fallback])
    try:
        system = system_message("answer connection checks exactly as asked")
        answer = stack.complete([system, Message("user", render_prompt("check_plain.md.j2", word=PLAIN_WORD))],
                                max_tokens=PLAIN_MAX_TOKENS)
        text = answer.text.strip()[:200]
        followed = re.search(rf"\b{PLAIN_WORD}\b", answer.text, re.IGNORECASE) is not None
        report.plain = {"ok": True, "text": text, "instruction_followed": followed, "asked": PLAIN_WORD,
                        **_facts(answer)}
        if not followed:
            report.warnings.append(f"the model did not follow a trivial instruction: asked to reply with the single "
                                   f"word {PLAIN_WORD!r}, it answered {text[:80]!r}; it may be too small to follow "
                                   "the instructions of aidlc draft")
        structured_ask = render_prompt("check_structured.md.j2", **STRUCTURED_VALUE)
        result = complete_structured(stack, [system, Message("user", structured_ask)], CheckReply,
                                     max_tokens=STRUCTURED_MAX_TOKENS, max_tokens_limit=STRUCTURED_MAX_TOKENS_LIMIT)
    except LLMConfigError:
        raise  # found only once asked (a broken cassette): a configuration error all the same
    except LLMError as exc:
        report.error, report.next_steps = exc.message, exc.next_steps
        failed = {"ok": False, "error": exc.message, "kind": type(exc).__name__, "raw": getattr(exc, "raw", None)}
        if report.plain is None:
            report.plain = failed  # structured stays None: not run
        else:
            report.structured = failed
        return report
    value = result.value.model_dump()
    followed = value["answer"].strip().lower() == STRUCTURED_VALUE["answer"] \
        and value["number"] == STRUCTURED_VALUE["number"]
    report.structured = {"ok": True, "mode": result.mode, "refused_modes": list(result.refused),
                         "attempts": result.attempts, "value": value, "instruction_followed": followed,
                         "asked": STRUCTURED_VALUE, **_facts(result.completion), "usage": result.usage.to_dict()}
    if not followed:
        report.warnings.append(f"the model's JSON had the right shape but not the values asked for: asked for "
                               f"{json.dumps(STRUCTURED_VALUE)}, it gave {json.dumps(value, ensure_ascii=False)[:120]}")
    report.ok = True
    return report


def _facts(answer: Completion) -> dict[str, Any]:
    return {"answered_by": answer.target, "server_model": answer.model, "degraded": answer.degraded,
            "finish_reason": answer.finish_reason, "latency_s": answer.latency_s, "usage": answer.usage.to_dict()}

