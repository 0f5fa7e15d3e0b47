"""The single-instance channel: the running app listens on a Unix socket in the workspace;
a second launch, or ``tic tick`` / ``tic ingest`` from a terminal, hands its work to it so one
process owns the store's writes. Newline-delimited JSON, one request and one answer."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from engine.tasks import one_line
from engine.workspace import Workspace

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
MAX_REQUEST = 64 * 1024 * 1024


def socket_path(workspace: Workspace) -> Path:
    return workspace.root / "tic.sock"


class IpcServer:
    def __init__(self, workspace: Workspace, handler: Handler):
        self.path = socket_path(workspace)
        self.handler = handler
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

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("request must be a JSON object")
                answer = await self.handler(request)
            except Exception as exc:  # the client gets the error, the app keeps running
                log.warning("IPC request failed: %s", exc)
                answer = {"ok": False, "error": one_line(exc)}
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
        finally:
            writer.close()


def request(
    workspace: Workspace, payload: dict[str, Any], timeout: float = 600.0
) -> dict[str, Any] | None:
    """Send one request to the running app; None when no app is running."""
    path = socket_path(workspace)
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        try:
            sock.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            return None
        sock.sendall(json.dumps(payload).encode() + b"\n")
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            if chunk.endswith(b"\n"):
                break
    finally:
        sock.close()
    data = b"".join(chunks)
    return json.loads(data) if data else None


def app_running(workspace: Workspace) -> bool:
    try:
        return request(workspace, {"cmd": "ping"}, timeout=5.0) is not None
    except OSError:
        return False
