"""A small fake Ollama server speaking the real HTTP API on 127.0.0.1, run in its own thread,
so tests drive the real `ollama` client (and llama-index's Ollama classes) over HTTP.

Routes: /api/chat, /api/generate (NDJSON streaming and `stream: false`), /api/embed,
/api/tags, /api/show. Replies come from functions the test sets (without one, a JSON-schema
`format` is answered with a valid instance of it); every request is recorded."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

Reply = Callable[[dict[str, Any]], str]


def _default_reply(_request: dict[str, Any]) -> str:
    return "This is the fake model's reply."


def schema_instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A minimal instance of a JSON schema (what Ollama's `format` makes the model write):
    every property, `minItems` items (at least one), `minLength` characters, the first
    enum value or `anyOf` branch."""
    defs = schema.get("$defs", {}) if defs is None else defs
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for branch in ("anyOf", "oneOf", "allOf"):
        if branch in schema:
            options = [o for o in schema[branch] if o.get("type") != "null"] or schema[branch]
            return schema_instance(options[0], defs)
    kind = schema.get("type", "object")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: schema_instance(sub, defs) for name, sub in properties.items()}
    if kind == "array":
        count = max(schema.get("minItems", 1), 1)
        return [schema_instance(schema.get("items", {}), defs) for _ in range(count)]
    if kind == "string":
        return "x" * max(schema.get("minLength", 1), 1)
    if kind == "integer":
        return int(schema.get("minimum", 0))
    if kind == "number":
        return float(schema.get("minimum", 0))
    if kind == "boolean":
        return True
    return None


def scripted(*replies: str) -> Reply:
    """A reply function answering `replies` in turn, then repeating the last one."""
    queue = list(replies)

    def reply(_request: dict[str, Any]) -> str:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return reply


def _reply_for(reply: Reply, body: dict[str, Any]) -> str:
    """The test's reply; with none set, a JSON-schema `format` gets a valid instance."""
    schema = body.get("format")
    if reply is _default_reply and isinstance(schema, dict):
        return json.dumps(schema_instance(schema))
    return reply(body)


def hashed_vector(text: str, dimensions: int) -> list[float]:
    """A deterministic unit vector per text (same text, same vector)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dimensions)
    return (vector / np.linalg.norm(vector)).tolist()


@dataclass
class FakeOllama:
    chat_reply: Reply = _default_reply
    generate_reply: Reply = _default_reply
    embed_dimensions: int = 16
    delay_s: float = 0.0
    models: tuple[str, ...] = ("llama3.1:8b", "llava:7b", "nomic-embed-text")
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    url: str = ""

    def requests_to(self, path: str) -> list[dict[str, Any]]:
        return [body for route, body in self.requests if route == path]


def _stamp() -> str:
    return "2026-01-01T00:00:00Z"


def _handler_for(fake: FakeOllama) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Replies go out in several small writes: without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to each.
        disable_nagle_algorithm = True

        def log_message(self, *_args: Any) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            if self.path == "/api/tags":
                models = [
                    {
                        "name": name,
                        "model": name,
                        "modified_at": _stamp(),
                        "size": 1,
                        "digest": "0" * 64,
                        "details": {"family": "fake", "parameter_size": "1B"},
                    }
                    for name in fake.models
                ]
                self._json({"models": models})
            else:
                self._json({"error": "not found"}, status=404)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            fake.requests.append((self.path, body))
            if fake.delay_s:
                time.sleep(fake.delay_s)
            if self.path == "/api/chat":
                content = _reply_for(fake.chat_reply, body)
                self._answer(
                    body,
                    lambda text, done: {"message": {"role": "assistant", "content": text}},
                    content,
                )
            elif self.path == "/api/generate":
                content = _reply_for(fake.generate_reply, body)
                self._answer(body, lambda text, done: {"response": text}, content)
            elif self.path == "/api/embed":
                inputs = body.get("input", [])
                inputs = [inputs] if isinstance(inputs, str) else inputs
                vectors = [hashed_vector(text, fake.embed_dimensions) for text in inputs]
                self._json({"model": body.get("model"), "embeddings": vectors})
            elif self.path == "/api/show":
                self._json(
                    {
                        "modelfile": "",
                        "parameters": "",
                        "template": "{{ .Prompt }}",
                        "details": {"family": "fake", "parameter_size": "1B"},
                        "model_info": {"general.architecture": "fake", "fake.context_length": 8192},
                        "capabilities": ["completion", "vision", "embedding"],
                    }
                )
            else:
                self._json({"error": "not found"}, status=404)

        def _answer(
            self, body: dict[str, Any], shape: Callable[[str, bool], dict[str, Any]], content: str
        ) -> None:
            base = {"model": body.get("model"), "created_at": _stamp()}
            final = {"done": True, "done_reason": "stop", "total_duration": 1, "eval_count": 1}
            if body.get("stream", True) is False:
                self._json(base | shape(content, True) | final)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in _pieces(content):
                self._chunk(base | shape(piece, False) | {"done": False})
            self._chunk(base | shape("", True) | final)
            self.wfile.write(b"0\r\n\r\n")

        def _chunk(self, payload: dict[str, Any]) -> None:
            data = (json.dumps(payload) + "\n").encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

        def _json(self, payload: dict[str, Any], status: int = 200) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _pieces(text: str, size: int = 12) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


@contextmanager
def running_fake_ollama(fake: FakeOllama | None = None) -> Iterator[FakeOllama]:
    fake = fake or FakeOllama()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(fake))
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
