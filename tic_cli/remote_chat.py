"""``tic-desktop chat`` beside a running engine (the desktop app, another chat): the terminal
attaches to it over the workspace's channel. The turns run there, with its model (one model
per user), and its chat's messages (replies as they stream, tool calls, notifications) are
printed here by the same ``ChatConsole`` a chat with its own engine uses."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from engine.bus import ReplyFinished, ReplyStarted, ReplyToken, ToolCalled, TurnFailed
from engine.chatconsole import ChatConsole
from engine.errors import TicError
from engine.ipc.client import MAX_REQUEST, encode, socket_path
from engine.ipc.handover import WAIT_NOTE_AFTER, WAIT_SECONDS
from engine.ipc.lock import Holder, WorkspaceLock, holder
from engine.workspace import Workspace

PROG = "tic-desktop"
MESSAGES: dict[str, type] = {
    cls.__name__: cls for cls in (ReplyStarted, ReplyToken, ToolCalled, ReplyFinished, TurnFailed)
}


class AttachedChat:
    """A chat session in another process's engine."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        who: Holder,
    ):
        self._reader = reader
        self._writer = writer
        self.holder = who
        self._done: asyncio.Future[dict[str, Any]] | None = None

    @classmethod
    async def open(cls, workspace: Workspace) -> AttachedChat | dict[str, Any] | None:
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

    async def run(self, console: ChatConsole) -> int:
        """The terminal chat until /quit or the end of input (0), or until the engine it is
        attached to quits (1, with one line saying so)."""
        listener = asyncio.create_task(self._listen(console), name="attached-chat-listen")
        console.say(
            f"TIC chat (attached to the running app: {self.holder.describe()}): "
            "type a message; /tick checks now, /quit leaves."
        )
        try:
            while True:
                line = await _first(console.next_line(), listener)
                if line is None:
                    break
                text = line.strip()
                if text in ("/quit", "/exit"):
                    return 0
                if not text:
                    continue
                request = {"cmd": "tick"} if text == "/tick" else {"cmd": "send", "text": text}
                done = await self._ask(request, listener)
                if done is None:
                    break
                if done.get("done") == "tick":
                    console.say(
                        f"checked {done.get('events', 0)} event(s), "
                        f"notified {done.get('notified', 0)}"
                    )
                elif done.get("error"):
                    console.say(f"{PROG}: error: {done['error']}", error=True)
        except EOFError:
            return 0
        finally:
            self._writer.close()
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await listener
        console.say(f"{PROG}: {self.holder.describe()} quit; the chat ends here", error=True)
        return 1

    async def _ask(
        self, request: dict[str, Any], listener: asyncio.Task[None]
    ) -> dict[str, Any] | None:
        self._done = asyncio.get_running_loop().create_future()
        try:
            self._writer.write(encode(request))
            await self._writer.drain()
        except ConnectionError:
            return None
        return await _first(self._done, listener)

    async def _listen(self, console: ChatConsole) -> None:
        """Print what the engine's chat says; hand the answers to the waiting request."""
        while message := _parse(await self._reader.readline()):
            if "event" in message:
                event = _rebuild(message)
                if event is not None:
                    console.on_event(event)
            elif "done" in message and self._done is not None and not self._done.done():
                self._done.set_result(message)


async def _first(awaitable: Any, listener: asyncio.Task[None]) -> Any:
    """The awaitable's result, or None if the connection ends first."""
    task = asyncio.ensure_future(awaitable)
    await asyncio.wait({task, listener}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        return task.result()
    task.cancel()
    return None


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
        return cls(**data)
    except TypeError:
        return None


async def run_here_or_attach(
    workspace: Workspace,
    role: str,
    *,
    wait: float = WAIT_SECONDS,
    on_wait: Callable[[Holder], None] | None = None,
) -> WorkspaceLock | AttachedChat:
    """The workspace's lock (this chat runs the engine), else a session in the engine that
    holds it. A holder that will soon finish (a tick, an ingest) is waited for."""
    started = time.monotonic()
    delay = 0.05
    noted = False
    while True:
        lock = WorkspaceLock.try_acquire(workspace, role)
        if lock is not None:
            return lock
        opened = await AttachedChat.open(workspace)
        if isinstance(opened, AttachedChat):
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
