"""Growth: the tick's cost per event and the store's size at 1 000, 10 000 and (without
--quick) 50 000 events, and ``tic-desktop history`` on a chat of 10 000 messages."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from bench.common import Options, Row, env_for, run_process, scratch_home
from bench.events import mixed_events

INGEST_CHUNK = 5000


def _db_mb(home: Path) -> float:
    return sum(p.stat().st_size for p in home.glob("tic.db*") if p.is_file()) / 1e6


async def _tick_at(opts: Options, count: int, seed: int) -> tuple[float, float, float]:
    """(tick ms per event, delivery ms, store MB) for ``count`` pending events."""
    from engine.clock import utcnow
    from engine.engine import Engine
    from engine.events import parse_event
    from engine.workspace import Workspace

    with scratch_home({"model_path": str(opts.model_path())}) as home:
        workspace = Workspace.open(home)
        engine = Engine.open(workspace)
        await engine.start(schedule=False)
        try:
            start = utcnow()
            for first in range(0, count, INGEST_CHUNK):
                chunk = mixed_events(
                    min(INGEST_CHUNK, count - first), seed=seed * 1000 + first, start=start
                )
                engine.ingest([parse_event(e) for e in chunk])
            started = time.perf_counter()
            result = await engine.tic.tick()
            tick_ms = (time.perf_counter() - started) * 1000
            if result.events != count:
                raise RuntimeError(f"the tick saw {result.events} of {count} events")
            started = time.perf_counter()
            await engine.hub.drain(timeout=1800)
            drain_ms = (time.perf_counter() - started) * 1000
        finally:
            await engine.stop()
        return tick_ms / count, drain_ms, _db_mb(home)


def _fill_chat(home: Path, messages: int) -> None:
    from datetime import timedelta

    from engine.clock import utcnow
    from engine.store.base import database
    from engine.store.db import close_database, open_database
    from engine.store.models import ChatMessage, ChatSession, ChatToolCall

    open_database(home / "tic.db")
    try:
        session = ChatSession.create(title="Chat")
        start = utcnow() - timedelta(days=30)
        with database.atomic():
            for i in range(messages):
                user = i % 2 == 0
                msg = ChatMessage.create(
                    session=session,
                    role="user" if user else "assistant",
                    content=f"message {i}: " + ("what did Nadia write?" if user else "Nothing."),
                    created_at=start + timedelta(minutes=i),
                    meta={} if user else {"kind": "user", "composed": True},
                )
                if not user and i % 10 == 1:
                    ChatToolCall.create(
                        message=msg,
                        name="search_events",
                        arguments={"query": "Nadia"},
                        status="done",
                        result_type="json",
                        result="[]",
                    )
    finally:
        close_database()


async def scale_figures(opts: Options) -> list[Row]:
    sizes = (1000, 10000) if opts.quick else (1000, 10000, 50000)
    runs = opts.repeat(full=2, quick=1)
    rows: list[Row] = []
    for size in sizes:
        per_event, drain, size_mb = [], [], []
        for run in range(runs if size < 50000 else 1):
            a, b, c = await _tick_at(opts, size, run)
            per_event.append(a)
            drain.append(b)
            size_mb.append(c)
        rows.append(Row("scale", f"tick cost per event at {size} events", "ms", per_event))
        rows.append(Row("scale", f"delivering the notifications of {size} events", "ms", drain))
        rows.append(Row("scale", f"store size at {size} events", "MB", size_mb))
    with scratch_home() as home:
        _fill_chat(home, 10000)
        env = env_for(home)
        for args, what in (
            (["history"], "tic-desktop history at 10 000 messages"),
            (["history", "--json"], "tic-desktop history --json at 10 000 messages"),
        ):
            took = []
            for _ in range(opts.repeat(full=5, quick=3)):
                ms, done = run_process(
                    [sys.executable, "-m", "tic_desktop", *args], env=env, timeout=120
                )
                if done.returncode != 0:
                    raise RuntimeError(f"{what} failed: {done.stderr.strip()[-300:]}")
                took.append(ms)
            rows.append(Row("scale", what, "ms", took))
    return rows
