"""The single-instance channel, and the CLI handing its work to a running app."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from typing import Any

import pytest

import engine.ipc.channel as ipc
from tests.cli_helpers import ROOT, write_jsonl
from tests.factories import event_dict


async def test_request_reaches_the_running_app_and_gets_its_answer(workspace):
    seen: list[dict[str, Any]] = []

    async def handler(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"ok": True, "echo": request.get("x")}

    server = ipc.IpcServer(workspace, handler)
    await server.start()
    try:
        assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o600
        answer = await asyncio.to_thread(ipc.request, workspace, {"cmd": "t", "x": 42})
        assert answer == {"ok": True, "echo": 42}
        assert await asyncio.to_thread(ipc.app_running, workspace)
    finally:
        await server.stop()
    assert seen[0] == {"cmd": "t", "x": 42}
    assert not server.path.exists()
    assert ipc.request(workspace, {"cmd": "ping"}) is None


async def test_a_stale_socket_means_no_app(workspace):
    ipc.socket_path(workspace).write_text("")
    assert not ipc.app_running(workspace)


@pytest.mark.allow_log_warnings
async def test_a_failing_handler_answers_with_the_error(workspace):
    async def handler(request: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("bad event\nsecond line")

    server = ipc.IpcServer(workspace, handler)
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

    server = ipc.IpcServer(workspace, handler)
    await server.start()
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict(), event_dict()])
    env = dict(os.environ, TIC_HOME=str(workspace.root), TIC_ALLOW_MODEL_REQUESTS="0")
    try:
        outputs = []
        for args in (("ingest", str(events)), ("tick",)):
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "engine",
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
    assert "2 new event(s) added" in outputs[0] and "running app" in outputs[0]
    assert "checked 3 event(s), notified 1" in outputs[1]
    assert [r["cmd"] for r in requests if r["cmd"] != "ping"] == ["ingest", "tick"]
    ingested = next(r for r in requests if r["cmd"] == "ingest")
    expected = [json.loads(line)["id"] for line in events.read_text().splitlines()]
    assert [e["id"] for e in ingested["events"]] == expected
