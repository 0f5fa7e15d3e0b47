"""Does the running app answer while TIC works? The engine's IPC server is started as the tray
app starts it, a 5 000-event tick runs (a mix: promotions, group chatter, calendar changes and
some mail worth a notification, so deliveries run too), and a client thread pings the socket
every 20 ms throughout. Reported: ping latency when idle and during the tick."""

from __future__ import annotations

import asyncio
import threading
import time

from bench.common import Options, Row, scratch_home
from bench.events import mixed_events

TICK_EVENTS = 5000
PING_EVERY = 0.02


def _pinger(workspace: object, stop: threading.Event, out: list[float]) -> None:
    import engine.ipc.client as ipc

    while not stop.is_set():
        started = time.perf_counter()
        answer = ipc.request(workspace, {"cmd": "ping"}, timeout=60)  # type: ignore[arg-type]
        if answer is not None:
            out.append((time.perf_counter() - started) * 1000)
        stop.wait(PING_EVERY)


async def _pings_while(
    workspace: object, work: asyncio.Future[object] | None, seconds: float = 1.0
) -> list[float]:
    """Ping from a thread until ``work`` is done (or for ``seconds`` when there is none)."""
    stop = threading.Event()
    latencies: list[float] = []
    thread = threading.Thread(target=_pinger, args=(workspace, stop, latencies), daemon=True)
    thread.start()
    try:
        if work is None:
            await asyncio.sleep(seconds)
        else:
            await work
    finally:
        stop.set()
        await asyncio.to_thread(thread.join, 60)
    return latencies


async def ping_figures(opts: Options) -> list[Row]:
    from engine.clock import utcnow
    from engine.engine import Engine
    from engine.events import parse_event
    from engine.workspace import Workspace

    runs = opts.repeat(full=3, quick=1)
    idle: list[float] = []
    busy_max: list[float] = []
    busy_median: list[float] = []
    tick_ms: list[float] = []
    for run in range(runs):
        with scratch_home({"model_path": str(opts.model_path())}) as home:
            workspace = Workspace.open(home)
            engine = Engine.open(workspace)
            await engine.start(schedule=False)
            try:
                error = await engine.load_model()
                if error:
                    raise RuntimeError(error)
                await engine.serve({})
                idle += await _pings_while(workspace, None, 1.0)
                events = mixed_events(TICK_EVENTS, seed=run, start=utcnow())
                engine.ingest([parse_event(e) for e in events])
                started = time.perf_counter()
                tick = asyncio.ensure_future(engine.check_now(timeout=900))
                during = await _pings_while(workspace, tick)
                tick_ms.append((time.perf_counter() - started) * 1000)
                if during:
                    busy_max.append(max(during))
                    busy_median.append(sorted(during)[len(during) // 2])
            finally:
                await engine.stop()
    return [
        Row("ping", "ping to the app, idle", "ms", idle),
        Row("ping", f"ping during a {TICK_EVENTS}-event tick: median", "ms", busy_median),
        Row("ping", f"ping during a {TICK_EVENTS}-event tick: worst", "ms", busy_max),
        Row("ping", f"the {TICK_EVENTS}-event tick and its deliveries", "ms", tick_ms),
    ]
