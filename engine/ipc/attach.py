"""A terminal chat beside a running engine (the desktop app, another chat) attaches to it over
the workspace's channel: the turns run there, with its model (one model per user), and its
chat's messages (replies as they stream, tool calls, notifications) come back here, rebuilt as
the bus messages they were (``engine.ipc.endpoint`` sends them). The front end prints them
(``tic_cli.remote_chat``)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from engine.bus import CHAT_MESSAGES, DeliveredNotification, ReplyFinished
from engine.errors import TicError
from engine.ipc.client import MAX_REQUEST, encode, socket_path
from engine.ipc.handover import WAIT_NOTE_AFTER, WAIT_SECONDS
from engine.ipc.lock import Holder, WorkspaceLock, holder
from engine.workspace import Workspace

MESSAGES: dict[str, type] = {cls.__name__: cls for cls in CHAT_MESSAGES}


class ChatSession:
    """A chat session in another process's engine: requests go out (``send``), its chat's
    messages and the answers come in (``receive``)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, who: Holder):
        self._reader = reader
        self._writer = writer
        self.holder = who

    @classmethod
    async def open(cls, workspace: Workspace) -> ChatSession | dict[str, Any] | None:
        """Attach to the workspace's holder: the session, or its refusal (e.g. ``wait``), or
        None when nobody answers."""
        try:
            reader, writer = await asyncio.open_unix_connection(
                str(socket_path(workspace)), limit=MAX_REQUEST
            )
        except (ConnectionRefusedError, FileNotFoundError):
            return None
        try:
            writer.write(encode({"cmd": "chat"}))
            await writer.drain()
            first = _parse(await reader.readline())
        except (ConnectionError, ValueError):
            first = None
        if first is not None and first.get("session") == "chat":
            return cls(reader, writer, holder(workspace))
        writer.close()
        return first

    async def send(self, request: dict[str, Any]) -> bool:
        """Send a request (``{"cmd": "send", "text": …}`` or ``{"cmd": "tick"}``); False when
        the connection has gone."""
        try:
            self._writer.write(encode(request))
            await self._writer.drain()
        except ConnectionError:
            return False
        return True

    async def receive(self) -> object | None:
        """The engine's next message: one of its chat's bus messages (``ReplyToken``, …), or
        the answer to a request (a dict with ``done``); None once the connection has ended."""
        while message := _parse(await self._reader.readline()):
            if "event" in message:
                event = _rebuild(message)
                if event is not None:
                    return event
            elif "done" in message:
                return message
        return None

    def close(self) -> None:
        self._writer.close()


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line) if line else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _rebuild(message: dict[str, Any]) -> object | None:
    cls = MESSAGES.get(str(message.get("event")))
    data = message.get("data")
    if cls is None or not isinstance(data, dict):
        return None
    try:
        if cls is ReplyFinished:  # its notifications came as plain objects
            notes = [DeliveredNotification(**n) for n in data.get("notifications") or []]
            data = {**data, "notifications": notes}
        return cls(**data)
    except TypeError:
        return None


async def run_here_or_attach(
    workspace: Workspace,
    role: str,
    *,
    wait: float = WAIT_SECONDS,
    on_wait: Callable[[Holder], None] | None = None,
) -> WorkspaceLock | ChatSession:
    """The workspace's lock (this chat runs the engine), else a session in the engine that
    holds it. A holder that will soon finish (a tick, an ingest) is waited for."""
    started = time.monotonic()
    delay = 0.05
    noted = False
    while True:
        lock = WorkspaceLock.try_acquire(workspace, role)
        if lock is not None:
            return lock
        opened = await ChatSession.open(workspace)
        if isinstance(opened, ChatSession):
            return opened
        if opened is not None and not opened.get("wait"):
            raise TicError(f"{holder(workspace).describe()}: {opened.get('error')}")
        waited = time.monotonic() - started
        if not noted and on_wait is not None and waited >= WAIT_NOTE_AFTER:
            on_wait(holder(workspace))
            noted = True
        if waited > wait:
            raise TicError(f"{holder(workspace).describe()} holds this workspace and is busy")
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.5)
