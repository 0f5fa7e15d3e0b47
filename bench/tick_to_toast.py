"""Tick → toast on the embedded model: how long after a tick commits its notifications the
composed reply is there (``ReplyFinished``, the moment the desktop toasts), and, with
``--dbus``, how long until a real notification server on a private D-Bus session has the
toast (the desktop's own Notifier sends it).

    python -m bench.tick_to_toast [--runs 10] [--events 1 10] [--dbus] [--json PATH]

Each run ingests fresh notifiable events (direct emails, WhatsApp messages, a cancelled
meeting; an empty rules file, so the built-in judgement decides) into a temporary workspace
and runs one tick through the Engine façade, the model loaded beforehand as the app does.
Prints median [min–max] per figure and writes them as JSON (default
``bench/results/tick_to_toast.json``). Figures depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # ``python bench/tick_to_toast.py`` from anywhere
    sys.path.insert(0, str(ROOT))

DEFAULT_JSON = ROOT / "bench" / "results" / "tick_to_toast.json"
PEOPLE = ["Tomas Herrera", "Nadia Kim", "Grace Okoye", "Joana Pires", "Ravi Shah"]


def notifiable_events(run: int, count: int) -> list[dict[str, Any]]:
    """``count`` events the built-in judgement notifies, unique to this run."""
    from engine.clock import utcnow

    now = utcnow()
    events: list[dict[str, Any]] = []
    for i in range(count):
        who = PEOPLE[i % len(PEOPLE)]
        base = {
            "id": f"bench:{run}:{i}",
            "time": (now - timedelta(minutes=count - i)).isoformat(),
            "sender": {"name": who, "address": f"{who.split()[0].lower()}@example.org"},
            "refs": {},
        }
        if i % 3 == 0:
            events.append(
                base
                | {
                    "source": "email",
                    "event_type": "email.received",
                    "subject": f"Contract draft {i}",
                    "text": "Could you sign it by Friday?",
                }
            )
        elif i % 3 == 1:
            events.append(
                base
                | {
                    "source": "whatsapp",
                    "event_type": "whatsapp.message",
                    "text": "Are we still on for dinner tonight at 8?",
                    "chat": {"id": who, "name": who, "is_group": False},
                }
            )
        else:
            start = now + timedelta(days=1)
            events.append(
                base
                | {
                    "source": "calendar",
                    "event_type": "calendar.cancelled",
                    "subject": f"Design review {i}",
                    "calendar": {
                        "start": start.isoformat(),
                        "end": (start + timedelta(hours=1)).isoformat(),
                        "status": "cancelled",
                        "organizer": base["sender"],
                    },
                }
            )
    return events


@dataclass
class Run:
    tick_ms: float  # the tick itself, start to commit
    to_reply_ms: float  # tick commit → ReplyFinished (what the desktop toasts)
    to_bus_ms: float | None = None  # tick commit → the notification server has the toast
    composed: bool = False


@dataclass
class Timings:
    events: int
    runs: list[Run] = field(default_factory=list)
    model: str = ""
    capability: str = ""


class Toaster:
    """The desktop's Notifier on a private session bus with the fake notification server."""

    def __init__(self) -> None:
        from tests.desktop.session import isolated_session

        self._session_cm = isolated_session(xvfb=False)
        self.session = self._session_cm.__enter__()
        self.server = self.session.start_fake_notifications()
        self._env = self.session.applied()
        self._env.__enter__()
        from desktop.notify.notifier import Notifier

        self.notifier = Notifier(app_name="TIC bench")

    async def show(self, ev: Any) -> str:
        from desktop.notify.notifier import toast_for

        return await self.notifier.show(toast_for(ev))

    async def close(self) -> None:
        await self.notifier.aclose()
        self._env.__exit__(None, None, None)
        self._session_cm.__exit__(None, None, None)


async def measure(
    count: int,
    runs: int,
    toaster: Toaster | None,
    first_run: int,
    model_path: Path | None = None,
) -> Timings:
    from engine.bus import ReplyFinished, TickFinished, TickStarted
    from engine.engine import Engine
    from engine.events import parse_event
    from engine.workspace import Workspace

    timings = Timings(count)
    with tempfile.TemporaryDirectory(prefix="tic-bench-") as home:
        workspace = Workspace.open(Path(home))
        engine = Engine.open(workspace, model_path)
        await engine.start(schedule=False)
        error = await engine.load_model()
        if error:
            raise SystemExit(f"the embedded model cannot be loaded: {error}")
        timings.model, timings.capability = engine.model_name, engine.capability
        marks: dict[str, float] = {}
        delivered: list[int] = []
        shows: list[asyncio.Task[str]] = []

        def on_bus(message: object) -> None:
            now = time.perf_counter()
            if isinstance(message, TickStarted):
                marks.setdefault("started", now)
            elif isinstance(message, TickFinished):
                marks["committed"] = now
            elif isinstance(message, ReplyFinished) and message.kind == "notification":
                delivered.extend(n.id for n in message.notifications)
                marks["replied"] = now
                marks["composed"] = float(message.composed)
                if toaster is not None:
                    shows.append(asyncio.ensure_future(_timed(toaster.show(message), marks)))

        engine.bus.subscribe(on_bus)
        try:
            for run in range(first_run, first_run + runs):
                marks.clear()
                delivered.clear()
                shows.clear()
                engine.ingest([parse_event(e) for e in notifiable_events(run, count)])
                result = await engine.check_now(timeout=30)
                # check_now returns once every reply is delivered (and announced)
                if result.notified != count or len(delivered) != count:
                    raise SystemExit(f"run {run}: notified {result.notified} of {count}")
                if shows:
                    await asyncio.gather(*shows)
                committed = marks["committed"]
                timings.runs.append(
                    Run(
                        tick_ms=(committed - marks["started"]) * 1000,
                        to_reply_ms=(marks["replied"] - committed) * 1000,
                        to_bus_ms=(marks["shown"] - committed) * 1000 if shows else None,
                        composed=bool(marks["composed"]),
                    )
                )
        finally:
            await engine.stop()
    return timings


async def _timed(show: Any, marks: dict[str, float]) -> str:
    channel: str = await show
    marks["shown"] = time.perf_counter()
    if channel != "native":
        raise SystemExit(f"the toast went to {channel!r}, not the notification server")
    return channel


def spread(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 1),
        "min": round(min(values), 1),
        "max": round(max(values), 1),
    }


def fmt(values: list[float]) -> str:
    s = spread(values)
    return f"{s['median']:.0f} [{s['min']:.0f}\u2013{s['max']:.0f}]"


async def main(args: argparse.Namespace) -> None:
    toaster = Toaster() if args.dbus else None
    results: list[Timings] = []
    try:
        first = 0
        for count in args.events:
            results.append(await measure(count, args.runs, toaster, first))
            first += args.runs
    finally:
        if toaster is not None:
            await toaster.close()

    print(f"model {results[0].model} ({results[0].capability}), {os.cpu_count()} CPUs")
    header = "events  runs  tick (ms)         tick commit → reply (ms)"
    header += "  tick commit → toast on D-Bus (ms)" if args.dbus else ""
    print(header)
    for t in results:
        row = f"{t.events:>6}  {len(t.runs):>4}  {fmt([r.tick_ms for r in t.runs]):<16}  "
        row += f"{fmt([r.to_reply_ms for r in t.runs]):<24}"
        if args.dbus:
            row += f"  {fmt([r.to_bus_ms for r in t.runs if r.to_bus_ms is not None])}"
        print(row.rstrip())
    composed = all(r.composed for t in results for r in t.runs)
    print(f"median [min\u2013max]; composed with no model call in every run: {composed}")
    report = {
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "model": results[0].model,
        "capability": results[0].capability,
        "batch_window_ms": 200,
        "results": [
            {
                "events": t.events,
                "runs": len(t.runs),
                "tick_ms": spread([r.tick_ms for r in t.runs]),
                "tick_commit_to_reply_ms": spread([r.to_reply_ms for r in t.runs]),
                **(
                    {
                        "tick_commit_to_dbus_toast_ms": spread(
                            [r.to_bus_ms for r in t.runs if r.to_bus_ms is not None]
                        )
                    }
                    if args.dbus
                    else {}
                ),
                "composed": all(r.composed for r in t.runs),
            }
            for t in results
        ],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {args.json}")


async def figures(opts: Any) -> list[Any]:
    """For ``python -m bench``: tick commit → reply and → toast on a private D-Bus (when
    dbus-daemon is installed), for 1 and 10 notified events."""
    import shutil

    from bench.common import Row

    runs = opts.repeat(full=10, quick=3)
    toaster = Toaster() if shutil.which("dbus-daemon") else None
    rows: list[Row] = []
    try:
        first = 0
        for count in (1, 10):
            t = await measure(count, runs, toaster, first, opts.model)
            first += runs
            label = f"{count} event{'s' if count > 1 else ''}"
            note = "composed, no model call" if all(r.composed for r in t.runs) else ""
            rows.append(
                Row(
                    "tick_to_toast",
                    f"{label}: tick (start → commit)",
                    "ms",
                    [r.tick_ms for r in t.runs],
                )
            )
            rows.append(
                Row(
                    "tick_to_toast",
                    f"{label}: tick commit → reply",
                    "ms",
                    [r.to_reply_ms for r in t.runs],
                    note=note,
                )
            )
            shown = [r.to_bus_ms for r in t.runs if r.to_bus_ms is not None]
            if shown:
                rows.append(
                    Row("tick_to_toast", f"{label}: tick commit → toast on D-Bus", "ms", shown)
                )
    finally:
        if toaster is not None:
            await toaster.close()
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--events", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--dbus", action="store_true", help="also toast on a private D-Bus")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    asyncio.run(main(parser.parse_args()))
