"""Asking the app that runs on a workspace (one request, one answer)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from engine.workspace import Workspace


def socket_path(workspace: Workspace) -> Path:
    return workspace.root / "tic.sock"


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
