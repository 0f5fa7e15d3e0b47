"""``tic-desktop chat`` beside a running engine (the desktop app, another chat): the terminal
attaches to it over the workspace's channel (``engine.ipc.attach``). The turns run there, with
its model (one model per user), and its chat's messages (replies as they stream, tool calls,
notifications) are printed here by the same ``ChatConsole`` a chat with its own engine uses."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from engine.ipc.attach import ChatSession
from tic_cli.chatconsole import ChatConsole

PROG = "tic-desktop"


class AttachedChat:
    """The terminal chat over a session in another process's engine."""

    def __init__(self, session: ChatSession):
        self._session = session
        self.holder = session.holder
        self._done: asyncio.Future[dict[str, Any]] | None = None

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
            self._session.close()
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await listener
        console.say(f"{PROG}: {self.holder.describe()} quit; the chat ends here", error=True)
        return 1

    async def _ask(
        self, request: dict[str, Any], listener: asyncio.Task[None]
    ) -> dict[str, Any] | None:
        self._done = asyncio.get_running_loop().create_future()
        if not await self._session.send(request):
            return None
        return await _first(self._done, listener)

    async def _listen(self, console: ChatConsole) -> None:
        """Print what the engine's chat says; hand the answers to the waiting request."""
        while (message := await self._session.receive()) is not None:
            if not isinstance(message, dict):
                console.on_event(message)
            elif self._done is not None and not self._done.done():
                self._done.set_result(message)


async def _first(awaitable: Any, listener: asyncio.Task[None]) -> Any:
    """The awaitable's result, or None if the connection ends first."""
    task = asyncio.ensure_future(awaitable)
    await asyncio.wait({task, listener}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        return task.result()
    task.cancel()
    return None
