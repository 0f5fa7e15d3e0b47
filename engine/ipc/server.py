"""Answering requests on the workspace's socket, each by the handler registered for its
``cmd``. A failing handler answers with its error's first line; the app keeps running.

The channel is bounded so that no client can take the app down: a request is one line of at
most ``max_request`` bytes (a longer one gets an error answer); at most ``max_connections``
are open at once (a new one pushes out the oldest idle one); a connection that sends no
request within ``idle_seconds`` is closed. A *session* command (``sessions``, e.g. a terminal
chat attached to the app) keeps its connection for more lines both ways; there are at most
``max_sessions`` of those."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from engine.ipc.client import MAX_REQUEST, socket_path, too_large
from engine.tasks import one_line
from engine.workspace import Workspace

log = logging.getLogger(__name__)

Request = dict[str, Any]
Handler = Callable[[Request], Awaitable[dict[str, Any]]]
MAX_CONNECTIONS = 64
MAX_SESSIONS = 8
IDLE_SECONDS = 10.0


class Channel:
    """A session's connection: more requests in, any number of messages out."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self._reader = reader
        self._writer = writer

    async def send(self, message: dict[str, Any]) -> None:
        self._writer.write(json.dumps(message, default=str).encode() + b"\n")
        await self._writer.drain()

    async def receive(self) -> Request | None:
        """The client's next request, or None when it has gone (or sent garbage)."""
        try:
            line = await self._reader.readline()
            request = json.loads(line) if line else None
        except (ValueError, RecursionError, ConnectionError):
            return None
        return request if isinstance(request, dict) else None


SessionHandler = Callable[[Request, Channel], Awaitable[None]]


class _Connection:
    def __init__(self, writer: asyncio.StreamWriter):
        self.writer = writer
        self.opened = time.monotonic()
        self.state = "idle"  # "busy" while a handler runs, "session" while one is attached


class IpcServer:
    def __init__(
        self,
        workspace: Workspace,
        handlers: Mapping[str, Handler],
        sessions: Mapping[str, SessionHandler] | None = None,
        *,
        max_request: int = MAX_REQUEST,
        max_connections: int = MAX_CONNECTIONS,
        max_sessions: int = MAX_SESSIONS,
        idle_seconds: float = IDLE_SECONDS,
    ):
        self.path = socket_path(workspace)
        self.handlers = dict(handlers)
        self.sessions = dict(sessions or {})
        self.max_request = max_request
        self.max_connections = max_connections
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._server: asyncio.AbstractServer | None = None
        self._connections: dict[asyncio.Task[None], _Connection] = {}

    @property
    def open_connections(self) -> int:
        return len(self._connections)

    async def start(self) -> None:
        """Listen. The caller holds the workspace's lock: a socket file left behind is stale."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(self.path), limit=self.max_request
        )
        os.chmod(self.path, 0o600)

    async def stop(self, grace: float | None = 10.0) -> None:
        """Stop listening, close idle connections and sessions, and let the requests being
        answered finish (up to ``grace`` seconds; None: however long they take)."""
        if self._server is not None:
            self._server.close()
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        for conn in list(self._connections.values()):
            if conn.state != "busy":
                conn.writer.close()  # its reader sees the end: the idle wait or session ends
        tasks = list(self._connections)
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending)

    async def answer(self, request: Request) -> dict[str, Any]:
        cmd = request.get("cmd")
        handler = self.handlers.get(cmd) if isinstance(cmd, str) else None
        if handler is None:
            return {"ok": False, "error": f"unknown command {cmd!r}"}
        return await handler(request)

    # connections ------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        conn = _Connection(writer)
        self._connections[task] = conn
        try:
            if self._make_room():
                await self._converse(reader, writer, conn)
            else:
                await self._write(writer, {"ok": False, "error": "busy: too many requests"})
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away: nothing to answer
        except asyncio.CancelledError:
            pass  # stopped past its grace: the connection task ends here, quietly
        finally:
            self._connections.pop(task, None)
            writer.close()

    def _make_room(self) -> bool:
        """Over the limit, the oldest idle connection goes; if all are busy, the new one."""
        open_now = sum(c.state != "closing" for c in self._connections.values())
        if open_now <= self.max_connections:
            return True
        current = asyncio.current_task()
        idle = [c for t, c in self._connections.items() if c.state == "idle" and t is not current]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c.opened)
        oldest.state = "closing"
        oldest.writer.close()  # its reader sees the end and its task finishes
        log.debug("IPC: closed an idle connection to make room")
        return True

    async def _converse(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: _Connection
    ) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), self.idle_seconds)
        except TimeoutError:
            log.debug("IPC: closed a connection that sent nothing for %ss", self.idle_seconds)
            return
        except ValueError:  # over the limit (asyncio's LimitOverrunError, as readline raises it)
            log.warning("IPC request refused: over %d bytes", self.max_request)
            await self._write(writer, {"ok": False, "error": too_large(self.max_request)})
            return
        if not line:
            return
        conn.state = "busy"
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("request must be a JSON object")
            cmd = request.get("cmd")
            session = self.sessions.get(cmd) if isinstance(cmd, str) else None
            if session is not None:
                await self._attach(session, request, Channel(reader, writer), conn)
                return
            answer = await self.answer(request)
        except ConnectionError:
            raise
        except Exception as exc:  # the client gets the error, the app keeps running
            log.warning("IPC request failed: %s", one_line(exc))
            answer = {"ok": False, "error": one_line(exc)}
        await self._write(writer, answer)

    async def _attach(
        self, session: SessionHandler, request: Request, channel: Channel, conn: _Connection
    ) -> None:
        sessions = sum(c.state == "session" for c in self._connections.values())
        if sessions >= self.max_sessions:
            await channel.send({"ok": False, "error": f"busy: {sessions} sessions attached"})
            return
        conn.state = "session"
        await session(request, channel)

    @staticmethod
    async def _write(writer: asyncio.StreamWriter, answer: dict[str, Any]) -> None:
        writer.write(json.dumps(answer).encode() + b"\n")
        await writer.drain()
