"""The running engine's end of the workspace's channel: the requests other front ends hand it
(``ping``, ``tick``, ``ingest``, and ``model-use``, ``model-remove``, ``model-pull``,
``model-downloads`` from ``tic-desktop model``) and the ``chat`` session a terminal chat
attaches with (``engine.ipc.attach``), answered while the engine serves (``Engine.serve``).

The front end that hosts the engine adds its own requests (the app's ``show``, ``status``,
``quit``); the ones it cannot do now are answered "wait", and the asker waits for the lock."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from engine.bus import CHAT_MESSAGES, EventBus
from engine.errors import TicError
from engine.events import Event, parse_event
from engine.ipc import handover
from engine.ipc.server import Channel, Handler, IpcServer, Request
from engine.tasks import one_line
from engine.types import CheckResult, IngestResult, Reply
from engine.workspace import Workspace

if TYPE_CHECKING:
    from engine.model_service import ModelService

APP_ROLE = "the TIC desktop app"


class Served(Protocol):
    """What the endpoint asks of the engine it answers for (``Engine`` is one)."""

    @property
    def bus(self) -> EventBus: ...

    @property
    def models(self) -> ModelService: ...

    @property
    def checking(self) -> bool: ...

    async def check_now(
        self, *, timeout: float | None = None, after_current: bool = False
    ) -> CheckResult: ...

    def ingest(self, events: list[Event]) -> IngestResult: ...

    async def send(self, text: str) -> Reply: ...


class EngineEndpoint:
    """Answers the channel's requests for one engine, from ``serve`` until ``stop``."""

    def __init__(self, engine: Served, workspace: Workspace):
        self._engine = engine
        self._workspace = workspace
        self._server: IpcServer | None = None
        self.role = APP_ROLE  # who answers, as ``ping`` and "wait" say it

    def handlers(self) -> dict[str, Handler]:
        """The engine's own requests (the ``chat`` session apart)."""
        return {
            "ping": self._on_ping,
            "tick": self._on_tick,
            "ingest": self._on_ingest,
            "model-use": self._on_model_use,
            "model-remove": self._on_model_remove,
            "model-pull": self._on_model_pull,
            "model-downloads": self._on_model_downloads,
        }

    async def serve(
        self,
        handlers: Mapping[str, Handler],
        *,
        role: str = APP_ROLE,
        busy: Collection[str] = (),
    ) -> None:
        """Answer the engine's requests, the ``chat`` session and the front end's own
        ``handlers`` on the socket until ``stop``. The commands in ``busy`` are answered
        "wait": this front end cannot do them, and will soon let the asker take the
        workspace."""
        own = self.handlers()
        clash = own.keys() & handlers.keys()
        if clash:
            raise ValueError(f"the engine already answers {sorted(clash)}")
        self.role = role
        table = {**own, **handlers}
        for cmd in busy:
            table[cmd] = self._on_busy
        sessions = {} if "chat" in busy else {"chat": self._chat_session}
        self._server = IpcServer(self._workspace, table, sessions)
        await self._server.start()

    async def stop(self, grace: float | None = 10.0) -> None:
        """Stop answering; requests under way get ``grace`` seconds (None: all they need)."""
        if self._server is not None:
            server, self._server = self._server, None
            await server.stop(grace)

    async def _on_ping(self, _request: Request) -> dict[str, Any]:
        return {"ok": True, "pid": os.getpid(), "role": self.role}

    async def _on_busy(self, _request: Request) -> dict[str, Any]:
        return handover.busy(self.role)

    async def _on_tick(self, _request: Request) -> dict[str, Any]:
        """A check asked by another front end; one under way is let finish first, so this
        one sees what arrived since (and the asker gets a real result, not "skipped")."""
        waited = self._engine.checking
        result = await self._engine.check_now(timeout=600, after_current=True)
        return {**result.to_json(), "waited": waited}

    async def _on_ingest(self, request: Request) -> dict[str, Any]:
        result = self._engine.ingest([parse_event(obj) for obj in request.get("events", [])])
        return {"ok": True, "added": result.added, "known": result.known}

    # ``tic-desktop model use/rm/pull`` beside the running app --------------------------------

    async def _on_model_use(self, request: Request) -> dict[str, Any]:
        models = self._engine.models
        try:
            applied = await models.use(str(request["choice"]), request.get("server_model"))
        except TicError as exc:
            return {"ok": False, "error": str(exc)}
        return {
            "ok": applied.model_error is None,
            "error": applied.model_error,
            "model": models.describe_current(),
        }

    async def _on_model_remove(self, request: Request) -> dict[str, Any]:
        try:
            deleted = self._engine.models.remove(str(request["name"]))
        except TicError as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True, "deleted": [str(p) for p in deleted]}

    async def _on_model_pull(self, request: Request) -> dict[str, Any]:
        try:
            self._engine.models.start_download(str(request["name"]))
        except TicError as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True}

    async def _on_model_downloads(self, _request: Request) -> dict[str, Any]:
        return {
            "ok": True,
            "downloads": {
                name: {"phase": s.phase, "done": s.done, "total": s.total, "text": s.describe()}
                for name, s in self._engine.models.downloads.items()
            },
        }

    # the terminal chat's session ------------------------------------------------------------

    async def _chat_session(self, _request: Request, channel: Channel) -> None:
        """A terminal chat attached to this engine: its turns run here (one model), and the
        chat's bus messages (replies, tokens, tool calls, notifications) stream back."""
        out, unsubscribe = self._engine.bus.queue()
        forward = asyncio.create_task(_forward_chat(out, channel), name="ipc-chat-forward")
        try:
            out.put_nowait({"ok": True, "session": "chat", "role": self.role})
            while (message := await channel.receive()) is not None:
                out.put_nowait(await self._session_command(message))
        finally:
            unsubscribe()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                out.put_nowait(None)
                await forward
            forward.cancel()

    async def _session_command(self, message: Request) -> dict[str, Any]:
        cmd = message.get("cmd")
        if cmd == "send":
            try:
                await self._engine.send(str(message.get("text", "")))
            except TicError as exc:  # TurnFailed has gone out on the bus already
                return {"done": "send", "error": one_line(exc)}
            return {"done": "send", "error": None}
        if cmd == "tick":
            return {"done": "tick", **(await self._engine.check_now()).to_json()}
        return {"done": cmd, "error": f"unknown command {cmd!r}"}


async def _forward_chat(out: asyncio.Queue[Any], channel: Channel) -> None:
    """The session's messages in order: bus messages the chat shows, the session's own
    answers (dicts); None ends it."""
    while (item := await out.get()) is not None:
        if isinstance(item, dict):
            await channel.send(item)
        elif isinstance(item, CHAT_MESSAGES):
            await channel.send({"event": type(item).__name__, "data": dataclasses.asdict(item)})
