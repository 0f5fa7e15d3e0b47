"""The OpenAI-compatible backend against a real HTTP server of the test's own on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from engine.errors import ModelError
from engine.llm.loading import load_model
from engine.llm.openai_compat import OpenAICompatModel
from engine.llm.servers import secret_name
from engine.settings import Settings
from tests import keyring_memory
from tests.keyring_memory import LockedKeyring, MemoryKeyring
from tests.serving import serving_thread

pytestmark = pytest.mark.server  # real requests, to a fake server of its own
memory_keyring = keyring_memory.memory_keyring
locked_keyring = keyring_memory.locked_keyring


class FakeServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.pieces = ['{"action": "reply", ', '"text": "Hello ', 'Mario"}']
        self.status = 200
        self.key: str | None = None  # when set, a request without it is refused (401)
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
                refused = outer.key and self.headers.get("Authorization") != f"Bearer {outer.key}"
                if refused or outer.status != 200:
                    self.send_response(401 if refused else outer.status)
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
        self.thread = serving_thread(self.httpd)

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


class CountingKeyring(MemoryKeyring):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.reads += 1
        return super().get_password(service, username)


async def test_the_key_is_read_only_when_the_server_asks_for_it(server: FakeServer, workspace):
    server.key = "sk-local"
    with keyring_memory.use_memory_keyring():
        counting = CountingKeyring()
        counting.secrets[("tic-desktop", secret_name(server.url))] = "sk-local"
        import keyring

        keyring.set_keyring(counting)  # use_memory_keyring puts the previous one back
        model = load_model(workspace, Settings(model_path=server.url), None)
        await model.load()
        assert counting.reads == 0  # making and loading the model never asks the keyring

        first = await model.complete([{"role": "user", "content": "hi"}])
        again = await model.complete([{"role": "user", "content": "hi"}])

    assert first.text == again.text == '{"action": "reply", "text": "Hello Mario"}'
    assert [r["auth"] for r in server.requests] == [None, "Bearer sk-local", "Bearer sk-local"]
    assert counting.reads == 1


async def test_a_locked_keyring_costs_a_request_its_time_limit_and_says_so(
    server: FakeServer, workspace, locked_keyring: LockedKeyring
):
    server.key = "sk-local"
    model = load_model(workspace, Settings(model_path=server.url), None)
    await model.load()
    assert not locked_keyring.asked.is_set()

    with pytest.raises(ModelError) as got:
        await model.complete([{"role": "user", "content": "hi"}])

    assert str(got.value) == (
        f"model server {server.url} asks for its API key: the keyring is locked \u2014 "
        "unlock it, or TIC continues without the server's key"
    )
    assert locked_keyring.asked.is_set() and len(server.requests) == 1


async def test_a_server_that_needs_no_key_never_makes_the_keyring_ask(
    server: FakeServer, workspace, locked_keyring: LockedKeyring
):
    model = load_model(workspace, Settings(model_path=server.url), None)
    await model.load()
    await model.complete([{"role": "user", "content": "hi"}])
    assert not locked_keyring.asked.is_set()
