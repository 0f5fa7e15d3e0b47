"""The tray app on a virtual desktop (Xvfb, a private D-Bus session with a notification
server, trayer as the tray host; see ``tests/desktop/session.py``): start → tray icon visible
(the app's IPC ``status`` says when), its memory once the icon shows and once the model is
loaded, and its CPU use while idle (60 s; 10 s with --quick)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, Options, Row, cpu_seconds, env_for, rss_mb, scratch_home

START_LIMIT = 60.0
TOOLS = ("Xvfb", "dbus-daemon", "trayer", "xdotool")


def _status(workspace: Any) -> dict[str, Any] | None:
    import engine.ipc.client as ipc

    try:
        return ipc.request(workspace, {"cmd": "status"}, timeout=5)
    except (OSError, ValueError):
        return None


async def _until(check: Any, limit: float, what: str) -> Any:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = await asyncio.to_thread(check)
        if value:
            return value
        await asyncio.sleep(0.02)
    raise TimeoutError(f"{what} did not happen within {limit:.0f}s")


async def _one_start(opts: Options, session: Any, idle_seconds: float) -> dict[str, float]:
    from desktop.chat import welcome
    from engine.workspace import Workspace

    with scratch_home({"model_path": str(opts.model_path())}) as home:
        workspace = Workspace(home)
        welcome.remember_first_start(workspace)  # an ordinary start: straight to the tray
        env = env_for(home, QT_QPA_PLATFORM="xcb")
        env.update(
            {
                k: v
                for k, v in session.env.items()
                if k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")
            }
        )
        for key in ("WAYLAND_DISPLAY",):
            env.pop(key, None)
        log = (Path(session.tmp) / "app.log").open("ab")
        started = time.perf_counter()
        app = subprocess.Popen(  # noqa: ASYNC220 - started, not waited for
            [sys.executable, "-m", "tic_desktop"], env=env, cwd=ROOT, stdout=log, stderr=log
        )
        try:
            await _until(
                lambda: (s := _status(workspace)) is not None and s.get("tray_visible"),
                START_LIMIT,
                "the tray icon",
            )
            out = {"start_ms": (time.perf_counter() - started) * 1000, "rss_start": rss_mb(app.pid)}
            await _until(
                lambda: (s := _status(workspace)) is not None and s.get("model_ready"),
                START_LIMIT,
                "the model load",
            )
            out["rss_loaded"] = rss_mb(app.pid)
            await asyncio.sleep(2.0)  # let start-up work settle
            cpu0, t0 = cpu_seconds(app.pid), time.perf_counter()
            await asyncio.sleep(idle_seconds)
            cpu1, t1 = cpu_seconds(app.pid), time.perf_counter()
            out["idle_cpu_pct"] = (cpu1 - cpu0) / (t1 - t0) * 100
            out["rss_idle"] = rss_mb(app.pid)
        finally:
            import engine.ipc.client as ipc

            if app.poll() is None:
                try:
                    await asyncio.to_thread(ipc.request, workspace, {"cmd": "quit"}, 10)
                    await asyncio.to_thread(app.wait, 30)
                except (OSError, subprocess.TimeoutExpired):
                    app.kill()
                    app.wait()
            log.close()
        return out


async def desktop_figures(opts: Options) -> list[Row]:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        return [Row("desktop", "start → tray icon", "ms", error=f"needs {', '.join(missing)}")]
    from tests.desktop.session import isolated_session

    runs = opts.repeat(full=3, quick=1)
    idle = 10.0 if opts.quick else 60.0
    found: list[dict[str, float]] = []
    with isolated_session() as session:
        session.start_fake_notifications()
        session.start_trayer()
        for _ in range(runs):
            found.append(await _one_start(opts, session, idle))

    def col(key: str) -> list[float]:
        return [f[key] for f in found]

    return [
        Row("desktop", "start → tray icon visible", "ms", col("start_ms")),
        Row("desktop", "RSS when the tray icon shows", "MB", col("rss_start")),
        Row("desktop", "RSS once the model is loaded", "MB", col("rss_loaded")),
        Row(
            "desktop",
            f"idle CPU over {idle:.0f} s (model loaded)",
            "% of a core",
            col("idle_cpu_pct"),
        ),
        Row("desktop", "RSS after the idle window", "MB", col("rss_idle")),
    ]
