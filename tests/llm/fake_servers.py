"""Model servers of the test's own on 127.0.0.1, answering like Ollama, LM Studio or
llama.cpp's server do: their model listings (``/v1/models``, Ollama's ``/api/tags``, LM
Studio's ``/api/v0/models``) and a streamed ``/v1/chat/completions``."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.serving import serving_thread

OLLAMA_TAGS = {
    "models": [
        {
            "name": "llama3.2:latest",
            "model": "llama3.2:latest",
            "size": 2019393189,
            "digest": "a80c4f17acd5",
            "details": {
                "format": "gguf",
                "family": "llama",
                "parameter_size": "3.2B",
                "quantization_level": "Q4_K_M",
            },
        },
        {
            "name": "nomic-embed-text:latest",
            "model": "nomic-embed-text:latest",
            "size": 274302450,
            "details": {"family": "nomic-bert", "parameter_size": "137M"},
        },
    ]
}
LMSTUDIO_MODELS = {
    "object": "list",
    "data": [
        {
            "id": "qwen2.5-7b-instruct",
            "object": "model",
            "type": "llm",
            "quantization": "Q4_K_M",
            "state": "loaded",
            "max_context_length": 32768,
        },
        {
            "id": "text-embedding-nomic-embed-text-v1.5",
            "object": "model",
            "type": "embeddings",
            "state": "not-loaded",
        },
    ],
}


class FakeModelServer:
    def __init__(self, flavour: str, *, api_key: str | None = None, port: int = 0) -> None:
        self.flavour = flavour
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []  # replies to chat completions, in order
        self.hold = threading.Event()  # while clear, chat completions wait
        self.hold.set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server._get(self)

            def do_POST(self) -> None:
                server._post(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = serving_thread(self.httpd)

    def _authorised(self, handler: BaseHTTPRequestHandler) -> bool:
        if self.api_key is None or handler.headers.get("Authorization") == f"Bearer {self.api_key}":
            return True
        self._json(handler, {"error": "invalid api key"}, 401)
        return False

    @staticmethod
    def _json(handler: BaseHTTPRequestHandler, body: object, status: int = 200) -> None:
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def listing(self) -> dict[str, Any]:
        if self.flavour == "ollama":
            ids = [m["name"] for m in OLLAMA_TAGS["models"]]
            owner = "library"
        elif self.flavour == "lmstudio":
            ids = [m["id"] for m in LMSTUDIO_MODELS["data"]]
            owner = "organization_owner"
        else:
            ids, owner = ["Qwen2.5-3B-Instruct-Q4_K_M.gguf"], "llamacpp"
        return {
            "object": "list",
            "data": [{"id": i, "object": "model", "created": 1, "owned_by": owner} for i in ids],
        }

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        self.requests.append({"method": "GET", "path": handler.path})
        if not self._authorised(handler):
            return
        if handler.path == "/v1/models":
            self._json(handler, self.listing())
        elif handler.path == "/api/tags" and self.flavour == "ollama":
            self._json(handler, OLLAMA_TAGS)
        elif handler.path == "/api/v0/models" and self.flavour == "lmstudio":
            self._json(handler, LMSTUDIO_MODELS)
        else:
            self._json(handler, {"error": "not found"}, 404)

    def _post(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers["Content-Length"])
        body = json.loads(handler.rfile.read(length))
        self.requests.append({"method": "POST", "path": handler.path, "body": body})
        if not self._authorised(handler):
            return
        self.hold.wait(30)
        answer = self.answers.pop(0) if self.answers else {"action": "reply", "text": "ok"}
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        text = json.dumps(answer)
        for i in range(0, len(text), 6):
            chunk = {"choices": [{"delta": {"content": text[i : i + 6]}}]}
            handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        handler.wfile.write(b"data: [DONE]\n\n")

    def chats(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["method"] == "POST"]

    def __enter__(self) -> FakeModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.hold.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()
