"""Connecting an account end to end: check the login, keep the password in keyring only,
read its mail into the store, show its status; disconnecting forgets the secret."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from email.message import EmailMessage

import pytest

import engine.accounts.secrets as secrets
from engine.accounts.registry import connect_imap, imap_config, states
from engine.engine import Engine
from engine.errors import TicError
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.sources.mail.imap import secret_name
from engine.store.models import EventRecord
from tests import keyring_memory
from tests.sources.dovecot import Dovecot, dovecot_binary

memory_keyring = keyring_memory.memory_keyring
USER, PASSWORD = "carol", "pa55word"


@pytest.fixture
def server() -> Iterator[Dovecot]:
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd)")
    with Dovecot() as dovecot:
        dovecot.add_user(USER, PASSWORD)
        dovecot.start()
        yield dovecot


def mail(subject: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = "Anna Berg <anna@example.org>"
    msg["To"] = f"{USER}@example.org"
    msg["Subject"] = subject
    msg.set_content("Could you call me back today?")
    return bytes(msg)


async def test_connect_read_and_disconnect_an_imap_account(server, workspace, memory_keyring):
    server.append(USER, mail("Hello from Anna"))
    config = imap_config(server.host, server.port, USER, ssl=False)

    with pytest.raises(TicError, match="sign-in failed"):
        await connect_imap(config, "wrong", workspace)
    assert secrets.get_secret(secret_name(USER, server.host)) is None

    await connect_imap(config, PASSWORD, workspace)
    assert secrets.get_secret(secret_name(USER, server.host)) == PASSWORD
    engine = Engine(workspace, Settings(), ScriptedModel())
    await engine.start(schedule=True)
    try:
        await engine.add_account(config)
        assert PASSWORD not in workspace.settings_file.read_text()
        for _ in range(100):
            if EventRecord.select().count():
                break
            await asyncio.sleep(0.05)
        (event,) = EventRecord.select()
        assert event.subject == "Hello from Anna" and event.status == "pending"
        for _ in range(50):
            (state,) = states(engine.settings.accounts)
            if state.state == "ok":
                break
            await asyncio.sleep(0.05)
        assert state.label == "Email (IMAP)" and state.last_sync_at is not None

        await engine.remove_account(config.key)
        assert engine.settings.accounts == []
        assert Settings.load(workspace.settings_file).accounts == []
        assert secrets.get_secret(secret_name(USER, server.host)) is None
        assert engine.sources.active_keys() == []
    finally:
        await engine.stop()
