"""Does the running app answer while TIC works? The engine's IPC server is started as the tray
app starts it, a 5 000-event tick runs (a mix: promotions, group chatter, calendar changes and
some mail worth a notification, so deliveries run too), and another process pings the socket
every 20 ms throughout (``bench.pinger``), as a ``tic-desktop`` command would. Reported:
ping latency when idle and during the tick."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import TYPE_CHECKING

from bench.common import ROOT, Options, Row, env_for, scratch_home
from bench.events import mixed_events

if TYPE_CHECKING:
    from engine.workspace import Workspace

TICK_EVENTS = 5000


async def _pings_while(
    workspace: Workspace, work: asyncio.Future[object] | None, seconds: float = 1.0
) -> list[float]:
    """Ping from another process (``bench.pinger``) until ``work`` is done (or for
    ``seconds`` when there is none): a thread of this process would wait for the GIL too."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.pinger",
        str(workspace.root),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env_for(workspace.root),
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        if (await asyncio.wait_for(proc.stdout.readline(), 60)).strip() != b"ready":
            raise RuntimeError("the pinger did not start")
        if work is None:
            await asyncio.sleep(seconds)
        else:
            await work
    finally:
        proc.stdin.close()
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
    latencies: list[float] = json.loads(out.decode() or "[]")
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
