"""Record and replay: cassettes of request digest -> answer, so tests and demos need no live model.

A cassette is JSONL, one canonical JSON object per line (sorted keys, UTF-8):

    {"digest": "<sha256>", "request": {...}, "response": {<Completion.to_dict()>}}
    {"digest": "<sha256>", "request": {...}, "error": {"kind": "LLMFormatRejected", "message": ..., "status": 500}}

* The digest is sha256 of the canonical {messages, response_format, tools}: *what was asked*,
  not who was asked nor how long it could answer. It leaves out model, base_url, max_tokens and
  temperature on purpose, so a cassette recorded against one server or model replays under any
  configuration, and a changed prompt, context or schema is a miss (re-record), never a wrong answer.
* The same digest asked again gets the next recording made for it, in order (a truncated answer
  retried with a larger max_tokens asks the same question twice); past the last, the last repeats.
* Refusals that are properties of the server (LLMRejected, e.g. llama.cpp refusing json_schema)
  are recorded too, so replay walks the same structured-output steps as the recording did.
  Transient failures are not recorded: the recorder sits outside the retry loop and the fallback chain.
* Everything written is redacted (aidlc.redaction) even when the caller forgot to.
* Replay never invents an answer: an unknown digest raises ReplayMiss naming digest and cassette.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aidlc.llm.base import Completion, Message, Provider
from aidlc.llm.errors import LLMConfigError, LLMContextExceeded, LLMFormatRejected, LLMRejected, ReplayMiss
from aidlc.llm.files import open_regular, read_regular
from aidlc.llm.redact import redacted_completion, redacted_message
from aidlc.names import arg
from aidlc.redaction import Redactor

_RECORD_FIX = "point AIDLC_LLM_RECORD / --record at a file you can write"
_RECORDED_ERRORS: dict[str, type[LLMRejected]] = {"LLMRejected": LLMRejected, "LLMFormatRejected": LLMFormatRejected,
                                                  "LLMContextExceeded": LLMContextExceeded}


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def request_digest(messages: list[Message], response_format: dict[str, Any] | None = None,
                   tools: list[dict[str, Any]] | None = None) -> str:
    asked = {"messages": [m.to_dict() for m in messages], "response_format": response_format, "tools": tools or None}
    return hashlib.sha256(canonical(asked).encode("utf-8")).hexdigest()


class Recorder:
    """Wraps any provider; appends every answer (and every refusal) to the cassette at `path`."""

    def __init__(self, inner: Provider, path: Path, redactor: Redactor | None = None) -> None:
        self.inner = inner
        self.path = Path(path)
        self.redactor = redactor or Redactor()
        try:  # refuse an unwritable cassette (or a FIFO, a folder) now, before a model is asked (and paid for)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.close(self._open())
        except OSError as exc:
            raise LLMConfigError(f"cannot record to {self.path} ({exc.strerror or exc})", [_RECORD_FIX]) from None

    @property
    def key(self) -> str:
        return self.inner.key

    def complete(self, messages: list[Message], *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: dict[str, Any] | None = None, tools: list[dict[str, Any]] | None = None,
                 timeout_s: float | None = None) -> Completion:
        messages = [redacted_message(self.redactor, m) for m in messages]
        response_format, tools = self.redactor.value(response_format), self.redactor.value(tools)
        entry: dict[str, Any] = {
            "digest": request_digest(messages, response_format, tools),
            "request": {"messages": [m.to_dict() for m in messages], "response_format": response_format,
                        "tools": tools or None, "max_tokens": max_tokens, "temperature": temperature,
                        "target": self.inner.key},
        }
        try:
            answer = self.inner.complete(messages, max_tokens=max_tokens, temperature=temperature,
                                         response_format=response_format, tools=tools, timeout_s=timeout_s)
        except LLMRejected as exc:
            entry["error"] = {"kind": type(exc).__name__ if type(exc).__name__ in _RECORDED_ERRORS else "LLMRejected",
                              "message": self.redactor(exc.message), "status": exc.status}
            self._append(entry)
            raise
        entry["response"] = redacted_completion(self.redactor, answer).to_dict()
        self._append(entry)
        return answer

    def _append(self, entry: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = (canonical(entry) + "\n").encode("utf-8")
        fd = self._open()
        try:
            os.write(fd, line)  # one write on O_APPEND: concurrent recorders never interleave a line
        finally:
            os.close(fd)


    def _open(self) -> int:
        return open_regular(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "the cassette to record", _RECORD_FIX)


class ReplayProvider:
    """Answers exactly what a cassette recorded, or raises ReplayMiss."""

    name = "replay"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._entries = load_cassette(self.path)  # a missing or broken cassette fails now, not at the first question
        self._served: dict[str, int] = {}

    @property
    def key(self) -> str:
        return f"replay:{self.path}"

    def complete(self, messages: list[Message], *, max_tokens: int, temperature: float | None = 0.0,
                 response_format: dict[str, Any] | None = None, tools: list[dict[str, Any]] | None = None,
                 timeout_s: float | None = None) -> Completion:
        digest = request_digest(messages, response_format, tools)
        recorded = self._entries.get(digest)
        if not recorded:
            raise ReplayMiss(digest, str(self.path))
        index = min(self._served.get(digest, 0), len(recorded) - 1)
        self._served[digest] = index + 1
        answer = recorded[index]
        if isinstance(answer, Refusal):
            raise answer.kind(answer.message, answer.status)
        return replace(answer, latency_s=0.0)


@dataclass(frozen=True)
class Refusal:
    """A recorded refusal: replayed as the same error."""

    kind: type[LLMRejected]
    message: str
    status: int | None


Recorded = Completion | Refusal


def load_cassette(path: Path) -> dict[str, list[Recorded]]:
    """digest -> its recordings in file order. A broken line is a configuration error naming the line."""
    try:
        text = read_regular(path, "replay cassette", "point AIDLC_LLM_REPLAY / --replay at a cassette file").decode()
    except FileNotFoundError:
        raise LLMConfigError(f"replay cassette {path} does not exist",
                             [f"record one: AIDLC_LLM_RECORD={arg(str(path))} aidlc llm check",
                              "or point AIDLC_LLM_REPLAY / --replay at an existing cassette"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LLMConfigError(f"replay cassette {path} cannot be read ({getattr(exc, 'strerror', None) or exc})") \
            from None
    entries: dict[str, list[Recorded]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            entries.setdefault(str(entry["digest"]), []).append(_recorded(entry))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise LLMConfigError(f"{path}:{number}: not a cassette entry ({type(exc).__name__}: {exc})",
                                 [f"remove line {number} of {path}, or delete the file and record again: "
                                  f"AIDLC_LLM_RECORD={path} aidlc ..."]) from None
    return entries


def _recorded(entry: dict[str, Any]) -> Recorded:
    """The answer or refusal of a cassette entry; any other shape raises (the caller names the line)."""
    if "error" in entry:
        error = entry["error"]
        message, status = error["message"], error.get("status")
        if not isinstance(message, str) or not (status is None or isinstance(status, int)):
            raise TypeError("error.message must be text and error.status a number")
        return Refusal(_RECORDED_ERRORS.get(error.get("kind"), LLMRejected), message, status)
    return Completion.from_dict(entry["response"])
