"""The LLM layer: the one place aidlc talks to a model (docs/design.md, The layers).

What a command needs, in the order it uses it:

    from aidlc.llm import (ContextPiece, Message, complete_structured, fit_context,
                           provider_from_config, system_message)

    provider = provider_from_config(config.llm, model=flag_model, record=flag_record, root=repo_root)
    context = fit_context([ContextPiece("memory-bank/standards/tech-stack.md", text, priority=5), ...],
                          budget_tokens=6000)          # repo text wrapped as untrusted data, trimmed to fit
    messages = [system_message("propose the units of intent 001-checkout"),
                Message("user", render_prompt("draft_units.md.j2", context=context.render(), ...))]
    result = complete_structured(provider, messages, UnitsProposal, max_tokens=2048)
    result.value, result.completion.model, result.usage, result.mode, result.completion.degraded

Modules, one job each:
    base          Message, ToolCall, Usage, Completion, the Provider protocol
    errors        LLMError and its typed subclasses (what is retried, what falls back, what is final)
    retry         backoff with jitter, Retry-After, bounded attempts (injectable sleep for tests)
    bounds        what a server can make a call do: a deadline connect to last byte, an answer size limit, sane usage
    httperrors    SDK HTTP failures -> typed errors
    diagnosis     what a failure was: a server that stopped on the request, which limit cut an answer
    window        a server's context window, from its /models or /props answer
    openai_provider, anthropic_provider   the SDK-backed providers (SDKs imported lazily)
    replay        cassettes: Recorder (record any provider) and ReplayProvider (answer exactly or ReplayMiss)
    chain         FallbackChain: next target once one is exhausted, answers marked degraded
    settings      flags > AIDLC_LLM_* > user config > aidlc.yaml, each checked, each remembering who set it
    userconfig    the user-level config file ($XDG_CONFIG_HOME/aidlc/config.yaml): read, written
    trust         which key may go to which server: never where only a repository said
    factory       provider_from_config: settings + keys -> Redacting(Recorder(FallbackChain(...)))
    files         cassettes and the user config are regular files (a FIFO is an error, never a hang)
    redact        secrets out of everything sent, recorded or logged
    context       token estimate (chars/4), fit_context within a budget (untrusted: aidlc/untrusted.py)
    jsonparse     the JSON inside a model's answer (fences, prose, trailing commas, comments)
    structured    complete_structured: schema modes, validation, corrective retries, truncation
    prompts       templates/prompts/*.md.j2 rendered with jinja2
    check         `aidlc llm check`

No module here imports openai or anthropic at import time.
"""

from aidlc.llm.base import Completion, Message, Provider, ToolCall, Usage
from aidlc.llm.chain import Degradation, FallbackChain
from aidlc.llm.context import ContextPiece, Fitted, check_budget, estimate_tokens, fit_context
from aidlc.llm.errors import (
    LLMAnswerTooLarge,
    LLMBadOutput,
    LLMBudgetExceeded,
    LLMConfigError,
    LLMContextExceeded,
    LLMError,
    LLMFormatRejected,
    LLMRateLimited,
    LLMRejected,
    LLMServerStopped,
    LLMTimeout,
    LLMTransient,
    LLMTruncated,
    LLMUnavailable,
    LLMUnreachable,
    ReplayMiss,
)
from aidlc.llm.factory import provider_from_config, resolve_target
from aidlc.llm.prompts import render_prompt, system_message
from aidlc.llm.replay import request_digest
from aidlc.llm.structured import Structured, complete_structured
from aidlc.redaction import Redactor
from aidlc.untrusted import untrusted

__all__ = [
    "Completion", "ContextPiece", "Degradation", "FallbackChain", "Fitted", "LLMAnswerTooLarge", "LLMBadOutput",
    "LLMBudgetExceeded",
    "LLMConfigError", "LLMContextExceeded", "LLMError", "LLMFormatRejected", "LLMRateLimited", "LLMRejected",
    "LLMServerStopped", "LLMTimeout", "LLMTransient", "LLMTruncated", "LLMUnavailable", "LLMUnreachable", "Message",
    "Provider", "Redactor", "ReplayMiss", "Structured", "ToolCall", "Usage", "check_budget", "complete_structured",
    "estimate_tokens", "fit_context", "provider_from_config", "render_prompt", "request_digest", "resolve_target",
    "system_message", "untrusted",
]
