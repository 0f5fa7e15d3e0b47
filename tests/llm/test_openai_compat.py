"""The OpenAI-compatible backend against a real HTTP server of the test's own on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from engine.errors import ModelError
from engine.llm.loading import load_model
from engine.llm.openai_compat import OpenAICompatModel
from engine.settings import Settings

pytestmark = pytest.mark.real_model  # real requests (to a local fake), not a real GGUF


class FakeServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.pieces = ['{"action": "reply", ', '"text": "Hello ', 'Mario"}']
        self.status = 200
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                outer.requests.append(
                    {
                        "path": self.path,
                        "auth": self.headers.get("Authorization"),
                        "body": json.loads(self.rfile.read(length)),
                    }
                )
                if outer.status != 200:
                    self.send_response(outer.status)
                    self.end_headers()
                    self.wfile.write(b"model not loaded")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for piece in outer.pieces:
                    chunk = {"choices": [{"delta": {"content": piece}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                usage = {"choices": [], "usage": {"prompt_tokens": 42, "completion_tokens": 3}}
                self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


async def test_streams_tokens_and_sends_the_schema(server: FakeServer):
    model = OpenAICompatModel(server.url, model="qwen", api_key="k")
    seen: list[str] = []
    schema = {"type": "object"}
    out = await model.complete(
        [{"role": "user", "content": "hi"}], schema=schema, on_token=seen.append
    )
    assert out.text == '{"action": "reply", "text": "Hello Mario"}'
    assert "".join(seen) == out.text
    assert (out.prompt_tokens, out.completion_tokens) == (42, 3)
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k"
    assert request["body"]["model"] == "qwen" and request["body"]["stream"] is True
    assert request["body"]["response_format"]["json_schema"]["schema"] == schema


async def test_server_errors_are_one_clear_line(server: FakeServer):
    server.status = 503
    with pytest.raises(ModelError, match="answered 503: model not loaded"):
        await OpenAICompatModel(server.url).complete([{"role": "user", "content": "hi"}])


async def test_an_unreachable_server_is_one_clear_line():
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAICompatModel(f"http://127.0.0.1:{port}/v1", timeout=5)
    with pytest.raises(ModelError, match="unreachable"):
        await model.complete([{"role": "user", "content": "hi"}])


def test_a_url_as_model_selects_the_server(workspace):
    model = load_model(workspace, Settings(server_model="qwen"), "http://127.0.0.1:9/v1")
    assert isinstance(model, OpenAICompatModel) and model.model == "qwen"


async def test_a_chat_turn_runs_on_a_model_server(server: FakeServer, workspace):
    from engine.engine import Engine

    engine = Engine.open(workspace, settings=Settings(model_path=server.url))
    await engine.start(schedule=False)
    try:
        answer = await engine.send("Say hello to Mario")
    finally:
        await engine.stop()
    assert answer.text == "Hello Mario"
    last = server.requests[0]["body"]["messages"][-1]
    assert last["role"] == "user"
    assert last["content"].startswith("Say hello to Mario\n\nCurrent time: ")
