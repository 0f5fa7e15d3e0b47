"""Asking the process that holds a workspace (one request, one answer)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from engine.errors import TicError
from engine.workspace import Workspace

MAX_REQUEST = 64 * 1024 * 1024  # bytes in one request line (a JSON object)


def socket_path(workspace: Workspace) -> Path:
    return workspace.root / "tic.sock"


def too_large(limit: int) -> str:
    mib = 1024 * 1024
    size = f"{limit // mib} MB" if limit % mib == 0 else f"{limit} bytes"
    return f"request too large (over {size})"


class RequestTooLarge(TicError):
    """The request is over the size the channel takes."""


def encode(payload: dict[str, Any], limit: int | None = None) -> bytes:
    data = json.dumps(payload).encode()
    limit = MAX_REQUEST if limit is None else limit
    if len(data) > limit:
        raise RequestTooLarge(too_large(limit))
    return data + b"\n"


def request(
    workspace: Workspace, payload: dict[str, Any], timeout: float = 600.0
) -> dict[str, Any] | None:
    """Send one request to the process holding the workspace and return its answer; None when
    nobody answered (no app runs, or it was closing). Raises RequestTooLarge before sending a
    request over the limit, and TimeoutError when the answer takes over ``timeout`` seconds."""
    data = encode(payload)
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
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # it stopped reading: its answer (e.g. "too large") may still be there
        answer = _read_line(sock)
    finally:
        sock.close()
    try:
        parsed = json.loads(answer) if answer.endswith(b"\n") else None
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _read_line(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)


def app_running(workspace: Workspace) -> bool:
    try:
        return request(workspace, {"cmd": "ping"}, timeout=5.0) is not None
    except OSError:
        return False
