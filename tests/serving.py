"""A fake HTTP server's thread. ``shutdown`` waits for the serving loop's next poll, every
0.5 s by default: polling every 20 ms lets each fake server stop at once, instead of adding
up to half a second to every test that starts one."""

from __future__ import annotations

import socketserver
import threading

POLL_SECONDS = 0.02


def serving_thread(server: socketserver.BaseServer) -> threading.Thread:
    """A daemon thread (not started) that serves ``server`` until its ``shutdown``."""
    return threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
    )
