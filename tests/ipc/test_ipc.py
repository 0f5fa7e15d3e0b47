"""The single-instance channel (a client, a server answering from a handler table, the
engine's own handlers), and the CLI handing its work to a running app."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from typing import Any

import pytest

import engine.ipc.client as ipc
from engine.ipc.lock import WorkspaceLock
from engine.ipc.server import IpcServer
from engine.store.models import EventRecord
from tests.cli_helpers import ROOT, write_jsonl
from tests.factories import event_dict

NEWSLETTER = {
    "sender": {"name": "Shop", "address": "news@shop.example"},
    "headers": {"List-Unsubscribe": "<mailto:u@shop.example>", "Precedence": "bulk"},
}


async def test_request_reaches_its_handler_in_the_running_app(workspace):
    seen: list[dict[str, Any]] = []

    async def handler(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"ok": True, "echo": request.get("x")}

    async def ping(request: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True}

    server = IpcServer(workspace, {"t": handler, "ping": ping})
    await server.start()
    try:
        assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o600
        answer = await asyncio.to_thread(ipc.request, workspace, {"cmd": "t", "x": 42})
        assert answer == {"ok": True, "echo": 42}
        assert await asyncio.to_thread(ipc.app_running, workspace)
        unknown = await asyncio.to_thread(ipc.request, workspace, {"cmd": "nope"})
        assert unknown == {"ok": False, "error": "unknown command 'nope'"}
    finally:
        await server.stop()
    assert seen == [{"cmd": "t", "x": 42}]
    assert not server.path.exists()
    assert ipc.request(workspace, {"cmd": "ping"}) is None


async def test_a_stale_socket_means_no_app(workspace):
    ipc.socket_path(workspace).write_text("")
    assert not ipc.app_running(workspace)


@pytest.mark.allow_log_warnings
async def test_a_failing_handler_answers_with_the_error(workspace):
    async def handler(request: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("bad event\nsecond line")

    server = IpcServer(workspace, {"x": handler})
    await server.start()
    try:
        answer = await asyncio.to_thread(ipc.request, workspace, {"cmd": "x"})
    finally:
        await server.stop()
    assert answer == {"ok": False, "error": "bad event"}


async def test_cli_ingest_and_tick_are_handed_to_the_running_app(workspace, tmp_path):
    requests: list[dict[str, Any]] = []

    async def handler(request: dict[str, Any]) -> dict[str, Any]:
        requests.append(request)
        if request["cmd"] == "ingest":
            return {"ok": True, "added": len(request["events"]), "known": 0}
        if request["cmd"] == "tick":
            return {"ok": True, "events": 3, "notified": 1, "skipped": False, "error": None}
        return {"ok": True}

    lock = WorkspaceLock.try_acquire(workspace, "the test's app")
    server = IpcServer(workspace, {cmd: handler for cmd in ("ping", "ingest", "tick")})
    await server.start()
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict(), event_dict()])
    env = dict(os.environ, TIC_HOME=str(workspace.root), TIC_ALLOW_MODEL_REQUESTS="0")
    try:
        outputs = []
        for args in (("ingest", str(events)), ("tick",)):
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tic_cli",
                *args,
                cwd=ROOT,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
            assert proc.returncode == 0, err.decode()
            outputs.append(out.decode())
    finally:
        await server.stop()
        lock.release()
    assert "2 new event(s) added" in outputs[0] and "the test's app" in outputs[0]
    assert "checked 3 event(s), notified 1" in outputs[1] and "running app" in outputs[1]
    assert [r["cmd"] for r in requests if r["cmd"] != "ping"] == ["ingest", "tick"]
    ingested = next(r for r in requests if r["cmd"] == "ingest")
    expected = [json.loads(line)["id"] for line in events.read_text().splitlines()]
    assert [e["id"] for e in ingested["events"]] == expected


async def test_the_engine_answers_ping_ingest_and_tick_and_the_front_end_adds_its_own(engine):
    async def show(request: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "shown": True}

    workspace = engine.workspace
    with pytest.raises(ValueError, match="already answers"):
        await engine.serve({"tick": show})
    await engine.serve({"show": show})
    try:
        ping = await asyncio.to_thread(ipc.request, workspace, {"cmd": "ping"})
        assert ping == {"ok": True, "pid": os.getpid(), "role": "the TIC desktop app"}
        events = [event_dict(**NEWSLETTER), event_dict(**NEWSLETTER)]  # decided by code
        answer = await asyncio.to_thread(
            ipc.request, workspace, {"cmd": "ingest", "events": [*events, events[0]]}
        )
        assert answer == {"ok": True, "added": 2, "known": 1}
        assert EventRecord.select().count() == 2
        ticked = await asyncio.to_thread(ipc.request, workspace, {"cmd": "tick"})
        assert ticked == {
            "ok": True,
            "events": 2,
            "notified": 0,
            "failed": 0,
            "skipped": False,
            "error": None,
            "waited": False,
        }
        shown = await asyncio.to_thread(ipc.request, workspace, {"cmd": "show"})
        assert shown == {"ok": True, "shown": True}
    finally:
        await engine.stop_serving()
    assert not ipc.socket_path(workspace).exists()
    assert ipc.request(workspace, {"cmd": "ping"}, timeout=10.0) is None
