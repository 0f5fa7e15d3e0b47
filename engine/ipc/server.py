"""Answering requests on the workspace's socket, each by the handler registered for its
``cmd``. A failing handler answers with its error's first line; the app keeps running."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from engine.ipc.client import socket_path
from engine.tasks import one_line
from engine.workspace import Workspace

log = logging.getLogger(__name__)

Request = dict[str, Any]
Handler = Callable[[Request], Awaitable[dict[str, Any]]]
MAX_REQUEST = 64 * 1024 * 1024


class IpcServer:
    def __init__(self, workspace: Workspace, handlers: Mapping[str, Handler]):
        self.path = socket_path(workspace)
        self.handlers = dict(handlers)
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        if self.path.exists():
            self.path.unlink()  # a stale socket: the caller checked nobody answers on it
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(self.path), limit=MAX_REQUEST
        )
        os.chmod(self.path, 0o600)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def answer(self, request: Request) -> dict[str, Any]:
        cmd = request.get("cmd")
        handler = self.handlers.get(cmd) if isinstance(cmd, str) else None
        if handler is None:
            return {"ok": False, "error": f"unknown command {cmd!r}"}
        return await handler(request)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("request must be a JSON object")
                answer = await self.answer(request)
            except Exception as exc:  # the client gets the error, the app keeps running
                log.warning("IPC request failed: %s", exc)
                answer = {"ok": False, "error": one_line(exc)}
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
        finally:
            writer.close()
