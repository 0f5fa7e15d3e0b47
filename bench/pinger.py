"""Pings a running engine's IPC socket from a process of its own, as a ``tic-desktop``
command asking the app would, every 20 ms until its standard input closes; then prints the
latencies in ms as one JSON list. Usage: ``python -m bench.pinger WORKSPACE``."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

PING_EVERY = 0.02


def main() -> int:
    from engine.ipc import client
    from engine.workspace import Workspace

    workspace = Workspace.open(Path(sys.argv[1]))
    stop = threading.Event()

    def until_stdin_closes() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=until_stdin_closes, daemon=True).start()
    latencies: list[float] = []
    print("ready", flush=True)
    while not stop.is_set():
        started = time.perf_counter()
        answer = client.request(workspace, {"cmd": "ping"}, timeout=60)
        if answer is not None:
            latencies.append((time.perf_counter() - started) * 1000)
        stop.wait(PING_EVERY)
    print(json.dumps(latencies), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
