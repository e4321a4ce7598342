"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, scripted per test.

    with ScriptedServer() as server:
        server.push(chat("pong"), error(429, headers={"Retry-After": "3"}), ...)
        ... drive it through the real openai SDK at server.url ...
        server.requests  # the JSON bodies it received, in order

POST /v1/chat/completions (and any other POST, e.g. Anthropic's /v1/messages) answers with the next
scripted Reply (as an HTTP proxy, HTTP_PROXY, it also answers requests meant for any other host);
an unscripted request gets HTTP 429 "no scripted response" with `Retry-After: 3600`, longer than aidlc
waits for a server (aidlc/llm/retry.py), so a test that asks more than it expects fails loudly, and a bolt
run out of script pauses at once rather than after its back-off. GET /v1/models lists one model (or
`server.models`, the whole body), GET /props answers `server.props` when set (llama-server's shape), else
404. A Reply with `delay_s` holds the answer that long (a hang past the client's timeout); closing the
server releases it. A Reply from `hang_up()` answers nothing: it closes or resets the connection, before or in the
middle of the answer, and (by default) stops listening first, so every later connection is refused,
as when a server crashes on a request. As an HTTPS proxy (HTTPS_PROXY) it records each CONNECT (where
the request was going) and refuses the tunnel.

Hostile answers: a Reply with `drip_s` sends its body one byte every `drip_s` seconds (with `drip_headers`,
the status line and headers too), so no single read ever waits long; `huge_chat(size, tokens)` is a chat
completion of `size` bytes of text that reports `tokens` completion tokens, written in chunks as the client
reads (never built whole); `server.sent` counts the bytes of its body that went out.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Cut = Literal["close", "reset", "mid-answer"]


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON; str/bytes sent as is (malformed bodies)
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    cut: Cut | None = None  # hang up instead of answering (see hang_up)
    stop_listening: bool = False  # ... after refusing every new connection
    drip_s: float = 0.0  # send the body one byte at a time, this long apart
    drip_headers: bool = False  # ... the status line and headers too
    padding: int = 0  # huge_chat: bytes of text written into the answer's content as the client reads


@dataclass
class Received:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, or the raw text if it was not JSON


def chat(content: str | None, *, finish_reason: str = "stop", model: str = "test-model",
         prompt_tokens: int | None = 11, completion_tokens: int | None = 7,
         tool_calls: list[dict[str, Any]] | None = None) -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {"id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000,
                            "model": model,
                            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}]}
    if prompt_tokens is not None:
        body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                         "total_tokens": prompt_tokens + (completion_tokens or 0)}
    return Reply(body=body)


def huge_chat(size: int, *, completion_tokens: int) -> Reply:
    """A chat completion whose content is `size` bytes of "x" and whose usage claims `completion_tokens`."""
    reply = chat("", completion_tokens=completion_tokens)
    reply.padding = size
    return reply


def error(status: int, message: str = "error", headers: dict[str, str] | None = None) -> Reply:
    return Reply(status=status, body={"error": {"message": message, "type": "test_error", "code": None}},
                 headers=headers or {})


def hang_up(how: Cut = "close", *, stop_listening: bool = True) -> Reply:
    """No answer: "close" ends the connection cleanly (FIN) before a byte of the answer, "reset" aborts it
    (RST), "mid-answer" sends the status line, headers and half of a chat completion, then resets."""
    return Reply(body=chat("pong").body, cut=how, stop_listening=stop_listening)


def anthropic_message(text: str, *, stop_reason: str = "end_turn", model: str = "claude-test",
                      tool_use: dict[str, Any] | None = None) -> Reply:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    if tool_use:
        content.append({"type": "tool_use", **tool_use})
    return Reply(body={"id": "msg_test", "type": "message", "role": "assistant", "model": model,
                       "content": content, "stop_reason": stop_reason, "stop_sequence": None,
                       "usage": {"input_tokens": 13, "output_tokens": 5}})


class ScriptedServer:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Received] = []
        self.models: Any = {"object": "list", "data": [{"id": "test-model", "object": "model"}]}
        self.props: Any = None  # GET /props (llama-server); None: 404
        self.sent = 0  # bytes of answer bodies that went out (huge_chat)
        self._lock = threading.Lock()
        self._closing = threading.Event()
        # Open keep-alive connections and their handler threads: closing the server ends them too, so no
        # thread outlives its test (a client that keeps its pool open would otherwise hold one forever).
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (with /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root(self) -> str:
        """Without /v1 (the Anthropic SDK adds it)."""
        return f"http://127.0.0.1:{self.port}"

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def bodies(self) -> list[Any]:
        """The JSON bodies of the POSTs received, in order."""
        return [r.body for r in self.requests if r.path not in ("/v1/models", "/props")]

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._thread.is_alive():  # shutdown() waits for serve_forever, which a never-started server never ran
            self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            open_now = dict(self._connections)
        for connection, handler in open_now.items():
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            handler.join(timeout=5)

    def stop_listening(self) -> None:
        """Close the listening socket: connections made from now on are refused (open ones go on)."""
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _next(self, received: Received) -> Reply:
        with self._lock:
            self.requests.append(received)
            if self.replies:
                return self.replies.popleft()
        return error(429, "no scripted response", headers={"Retry-After": "3600"})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                pass

            def setup(self) -> None:
                super().setup()
                with server._lock:
                    server._connections[self.connection] = threading.current_thread()

            def finish(self) -> None:
                try:
                    super().finish()
                finally:
                    with server._lock:
                        server._connections.pop(self.connection, None)

            def do_GET(self) -> None:
                path = self.path.rstrip("/")
                if path.endswith("/models") or path == "/props":
                    with server._lock:
                        server.requests.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()},
                                                        None))
                if path.endswith("/models"):
                    self._send(Reply(body=server.models))
                elif path == "/props" and server.props is not None:
                    self._send(Reply(body=server.props))
                else:
                    self._send(error(404, "not found"))

            def do_CONNECT(self) -> None:
                received = Received(f"CONNECT {self.path}", {k.lower(): v for k, v in self.headers.items()}, None)
                with server._lock:
                    server.requests.append(received)
                self._send(error(403, "no tunnels here"))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace")
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw
                reply = server._next(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if reply.delay_s and server._closing.wait(reply.delay_s):
                    return
                if reply.cut is not None:
                    self._hang_up(reply)
                    return
                try:
                    if reply.drip_s:
                        self._drip(reply)
                    elif reply.padding:
                        self._send_huge(reply)
                    else:
                        self._send(reply)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up: nothing more to answer

            def _drip(self, reply: Reply) -> None:
                payload = json.dumps(reply.body).encode()
                head = (f"HTTP/1.1 {reply.status} OK\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(payload)}\r\n\r\n").encode()
                dripped = head + payload if reply.drip_headers else payload
                if not reply.drip_headers:
                    self.wfile.write(head)
                    self.wfile.flush()
                for byte in dripped:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    if server._closing.wait(reply.drip_s):
                        return

            def _send_huge(self, reply: Reply) -> None:
                before, after = json.dumps(reply.body).encode().split(b'"content": ""')
                before += b'"content": "'
                after = b'"' + after
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(before) + reply.padding + len(after)))
                self.end_headers()
                chunk = b"x" * 65536
                self.wfile.write(before)
                for start in range(0, reply.padding, len(chunk)):
                    piece = chunk[: min(len(chunk), reply.padding - start)]
                    self.wfile.write(piece)
                    with server._lock:
                        server.sent += len(piece)
                self.wfile.write(after)

            def _hang_up(self, reply: Reply) -> None:
                if reply.stop_listening:
                    server.stop_listening()  # first: the client's retries must find nothing listening
                self.close_connection = True
                if reply.cut == "mid-answer":
                    payload = json.dumps(reply.body).encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload[: len(payload) // 2])
                    self.wfile.flush()
                if reply.cut in ("reset", "mid-answer"):  # SO_LINGER 0: close() sends RST, not FIN
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()

            def _send(self, reply: Reply) -> None:
                if isinstance(reply.body, dict | list):
                    payload = json.dumps(reply.body).encode()
                    content_type = "application/json"
                else:
                    payload = reply.body if isinstance(reply.body, bytes) else str(reply.body or "").encode()
                    content_type = reply.headers.get("Content-Type", "application/json")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        if name.lower() != "content-type":
                            self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

        return Handler
