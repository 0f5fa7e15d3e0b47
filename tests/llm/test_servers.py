"""Finding the model servers already running on this machine, against fake ones on
127.0.0.1 that answer like Ollama, LM Studio and llama.cpp's server."""

from __future__ import annotations

import socket

import pytest

from engine.llm.servers import discover, normalize_url, probe, server_api_key, set_server_api_key
from engine.modeltypes import ServerModel
from tests import keyring_memory
from tests.llm.fake_servers import FakeModelServer

memory_keyring = keyring_memory.memory_keyring
locked_keyring = keyring_memory.locked_keyring


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("localhost:11434", "http://localhost:11434/v1"),
        ("http://127.0.0.1:1234/", "http://127.0.0.1:1234/v1"),
        ("http://127.0.0.1:8080/v1/models", "http://127.0.0.1:8080/v1"),
        ("https://gpu.example/v1/chat/completions", "https://gpu.example/v1"),
    ],
)
def test_a_server_url_is_normalised_to_its_openai_base(text, url):
    assert normalize_url(text) == url


def test_ollama_lists_its_chat_models_with_what_its_own_listing_says():
    with FakeModelServer("ollama") as server:
        found = probe(server.url)
    assert (found.kind, found.error) == ("Ollama", None)
    assert found.models == (ServerModel("llama3.2:latest", "3.2B, Q4_K_M, 2.0 GB"),)


def test_lm_studio_lists_its_chat_models_and_which_is_loaded():
    with FakeModelServer("lmstudio") as server:
        found = probe(server.url)
    assert found.kind == "LM Studio"
    assert found.models == (ServerModel("qwen2.5-7b-instruct", "Q4_K_M, loaded, 32k context"),)


def test_llama_cpp_server_is_recognised_by_its_listing():
    with FakeModelServer("llamacpp") as server:
        found = probe(f"127.0.0.1:{server.port}")
    assert found.kind == "llama.cpp server"
    assert [m.id for m in found.models] == ["Qwen2.5-3B-Instruct-Q4_K_M.gguf"]


def test_a_server_that_wants_a_key_says_so_and_the_key_lives_in_the_keyring(memory_keyring):
    with FakeModelServer("lmstudio", api_key="sk-local") as server:
        assert probe(server.url).error == "it asks for an API key"
        assert probe(server.url, "wrong").error == "it refused the API key"
        set_server_api_key(server.url, "sk-local")
        assert memory_keyring.secrets == {("tic-desktop", f"model-server:{server.url}"): "sk-local"}
        assert probe(server.url, server_api_key(server.url + "/")).error is None
        set_server_api_key(server.url, None)
        assert server_api_key(server.url) is None


def test_the_key_is_read_only_when_the_server_asks_for_one(memory_keyring):
    asked: list[str] = []

    def key_for(url: str) -> str | None:
        asked.append(url)
        return server_api_key(url)

    with FakeModelServer("ollama") as open_server:
        assert probe(open_server.url, key_for=key_for).error is None
    assert asked == []
    with FakeModelServer("lmstudio", api_key="sk-local") as server:
        set_server_api_key(server.url, "sk-local")
        assert probe(server.url, key_for=key_for).error is None
    assert asked == [server.url]


def test_a_locked_keyring_is_said_in_one_line(locked_keyring):
    with FakeModelServer("lmstudio", api_key="sk-local") as server:
        found = probe(server.url, key_for=server_api_key)
    assert found.error == (
        "it asks for an API key: the keyring is locked \u2014 unlock it, or TIC continues "
        "without the server's key"
    )
    assert found.needs_key and locked_keyring.asked.is_set()


async def test_discovery_finds_the_running_servers_and_reports_the_given_url_that_is_down():
    down = f"http://127.0.0.1:{closed_port()}/v1"
    with FakeModelServer("ollama") as ollama, FakeModelServer("lmstudio") as lmstudio:
        found = await discover(
            [down],
            ports=((ollama.port, "Ollama"), (lmstudio.port, "LM Studio"), (closed_port(), "x")),
            key_for=lambda _url: None,
        )
    assert [(s.kind, s.url) for s in found] == [
        ("Ollama", ollama.url),
        ("LM Studio", lmstudio.url),
        ("OpenAI-compatible server", down),
    ]
    assert found[2].error == "nothing answers there (connection refused)"


async def test_discovery_reads_a_key_only_for_a_server_the_user_named():
    """Something on a usual port that asks for a key is listed as asking: the keyring stays
    closed (it may ask for a new keyring's password) until the user names that server."""
    asked: list[str] = []

    def key_for(url: str) -> str | None:
        asked.append(url)
        return "sk-local"

    with FakeModelServer("lmstudio", api_key="sk-local") as server:
        ports = ((server.port, "LM Studio"),)
        (found,) = await discover(ports=ports, key_for=key_for)
        assert asked == [] and found.needs_key and found.error == "it asks for an API key"
        (named,) = await discover([server.url], ports=ports, key_for=key_for)
        assert asked == [server.url] and named.error is None and named.models
        asked.clear()
        (in_use,) = await discover(keyed=[server.url], ports=ports, key_for=key_for)
        assert asked == [server.url] and in_use.error is None
