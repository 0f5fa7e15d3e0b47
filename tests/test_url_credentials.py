"""A password in a model server's URL (``http://user:pass@host/…``) is never logged or stored:
it reads ``http://user:***@host/…`` in the log, in the store's errors and in the model's
name, through one helper (``engine.urls``)."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.errors import ModelError
from engine.llm.openai_compat import OpenAICompatModel
from engine.logs import setup as logsetup
from engine.settings import Settings
from engine.store.models import Notification
from engine.urls import mask_credentials, masked_url
from tests.deliveries import ANNA_RULES
from tests.factories import make_event

SECRET = "s3cr3t-pw"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://alice:s3cr3t@host:8080/v1", "http://alice:***@host:8080/v1"),
        ("https://a:p@ss@host/v1", "https://a:***@host/v1"),  # an "@" in the password
        ("model server http://u:p@h/v1 unreachable", "model server http://u:***@h/v1 unreachable"),
        ("http://u:p@h/ and http://v:q@k:1/z", "http://u:***@h/ and http://v:***@k:1/z"),
        ("http://host:8080/v1", "http://host:8080/v1"),
        ("http://user@host/v1", "http://user@host/v1"),
        ("write to anna@example.org", "write to anna@example.org"),
    ],
)
def test_a_urls_password_is_masked_and_nothing_else_changes(text, shown):
    assert mask_credentials(text) == shown


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def store_bytes(root: Path) -> bytes:
    """The store as it is on disk: tic.db and whatever lies beside it (-wal, -shm)."""
    return b"".join(p.read_bytes() for p in root.glob("tic.db*"))


@pytest.fixture
def url() -> str:
    return f"http://alice:{SECRET}@127.0.0.1:{closed_port()}/v1"


@pytest.mark.server  # a real request, to a port where nothing answers
async def test_the_models_name_and_errors_say_the_url_without_its_password(url):
    model = OpenAICompatModel(url, model="llama3.2")
    assert model.name == f"llama3.2 at {masked_url(url)}" and SECRET not in model.name
    with pytest.raises(ModelError) as info:
        await model.load()
    assert SECRET not in str(info.value) and "alice:***@127.0.0.1" in str(info.value)


@pytest.mark.server  # real requests, to a port where nothing answers
@pytest.mark.allow_log_warnings
async def test_a_failing_model_server_leaves_no_password_in_the_log_or_the_store(
    workspace, url, caplog
):
    """The issue's case: ``--model http://user:pass@…`` put the password into tic.log and
    into the store (each notification's last error)."""
    caplog.set_level(logging.DEBUG)
    log = logsetup.setup_logging(workspace, verbose=True)
    workspace.rules_file.write_text(ANNA_RULES)
    engine = Engine(
        workspace, Settings(), OpenAICompatModel(url, model="m"), retry_delays=(0.05, 0.1)
    )
    await engine.start(schedule=False)
    try:
        engine.ingest([make_event() for _ in range(2)])
        assert (await engine.check_now(timeout=30)).delivered
        errors = [n.last_error for n in Notification.select()]
    finally:
        await engine.stop()
        logsetup.teardown_logging()
    assert errors and all(e and "alice:***@127.0.0.1" in e for e in errors), errors
    stored = store_bytes(workspace.root)
    text = log.read_text()
    assert SECRET.encode() not in stored
    assert SECRET not in text and "alice:***@127.0.0.1" in text


async def test_a_server_address_with_a_password_is_not_saved(workspace):
    """Settings are plain text: the address is refused with where the key goes instead."""
    engine = Engine.without_model(workspace)
    try:
        with pytest.raises(ModelError) as caught:
            await engine.models.use(f"http://alice:{SECRET}@127.0.0.1:9/v1")
    finally:
        await engine.stop()
    assert SECRET not in str(caught.value)
    assert "API key" in str(caught.value)
    assert SECRET not in (
        workspace.settings_file.read_text() if workspace.settings_file.exists() else ""
    )
