"""The channel is bounded: a request over the size limit gets an error answer (and the
command line says so and fails), idle connections are closed, a flood of idle connections
cannot stop the app answering, and garbage gets an error line, never a crash (nor a flood of
log lines)."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import socket
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

import engine.ipc.client as ipc
from engine.ipc.lock import WorkspaceLock
from engine.ipc.server import IpcServer
from engine.logs import setup as logsetup
from engine.store.db import close_database, open_database
from engine.store.models import EventRecord
from tests.cli_helpers import ROOT, write_jsonl
from tests.factories import event_dict
from tic_cli import cli

FLOOD = """
import resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
held = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            s.connect(sys.argv[1])
        except BlockingIOError:  # the backlog is full: the app is accepting, try again
            time.sleep(0.001)
            continue
        held.append(s)
        break
print(len(held), flush=True)
time.sleep(120)
"""


async def ping(_request: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True}


def raw_request(path: str, data: bytes, timeout: float = 30.0) -> bytes:
    """Send bytes as they are (no size check on this side) and read the answer line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(path)
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return ipc._read_line(sock)


@pytest.fixture
def held(workspace) -> Iterator[WorkspaceLock]:
    """This test process is the workspace's running app."""
    lock = WorkspaceLock.try_acquire(workspace, "the test's app")
    assert lock is not None
    yield lock
    lock.release()


@pytest.mark.allow_log_warnings
async def test_a_request_over_the_limit_gets_an_error_answer_and_the_app_goes_on(workspace):
    server = IpcServer(workspace, {"ping": ping})  # the real limit, 64 MB
    await server.start()
    try:
        line = b'{"cmd": "ping", "pad": "' + b"x" * (ipc.MAX_REQUEST + 10) + b'"}\n'
        answer = await asyncio.to_thread(raw_request, str(server.path), line)
        assert json.loads(answer) == {"ok": False, "error": "request too large (over 64 MB)"}
        assert await asyncio.to_thread(ipc.request, workspace, {"cmd": "ping"}) == {"ok": True}
    finally:
        await server.stop()


@pytest.mark.allow_log_warnings
async def test_garbage_gets_one_error_line(workspace):
    server = IpcServer(workspace, {"ping": ping})
    await server.start()
    try:
        for data in (b"not json\n", b"[1, 2]\n", b"[" * 100_000 + b"\n", b'"\\ud800"\n'):
            answer = json.loads(await asyncio.to_thread(raw_request, str(server.path), data))
            assert answer["ok"] is False and "\n" not in answer["error"]
    finally:
        await server.stop()


def test_the_client_refuses_a_request_over_the_limit_before_sending(workspace, monkeypatch):
    monkeypatch.setattr(ipc, "MAX_REQUEST", 100)
    with pytest.raises(ipc.RequestTooLarge, match=r"over 100 bytes"):
        ipc.request(workspace, {"cmd": "ingest", "events": ["x" * 200]})


@pytest.mark.allow_log_warnings
def test_ingest_too_big_for_the_running_app_fails_in_one_line_and_imports_nothing(
    workspace, held, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(ipc, "MAX_REQUEST", 2000)
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict() for _ in range(10)])
    status = cli.main(["--home", str(workspace.root), "ingest", str(events)])
    err = capsys.readouterr().err
    assert status == 1
    assert err.strip().splitlines() == [
        "tic-desktop: error: cannot hand this to the test's app "
        f"(pid {os.getpid()}): request too large (over 2000 bytes)"
    ]


@pytest.mark.allow_log_warnings
async def test_a_real_ingest_over_64_mb_beside_the_app_fails_loudly(workspace, held, tmp_path):
    """The issue's case: a `tic ingest` over 64 MB with the app running exited 0, nothing
    imported. Now the app's answer (or the client's own check) fails it in one line."""
    server = IpcServer(workspace, {"ping": ping, "ingest": ping})
    await server.start()
    big = [event_dict(text="é" * 600_000) for _ in range(60)]  # ~70 MB as JSON
    events = write_jsonl(tmp_path / "big.jsonl", big)
    env = dict(os.environ, TIC_HOME=str(workspace.root), TIC_ALLOW_MODEL_REQUESTS="0")
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tic_cli",
            "ingest",
            str(events),
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    finally:
        await server.stop()
    assert proc.returncode == 1
    assert out == b""
    assert err.decode().strip().splitlines() == [
        "tic-desktop: error: cannot hand this to the test's app "
        f"(pid {os.getpid()}): request too large (over 64 MB)"
    ]
    open_database(workspace.db_path)
    try:
        assert EventRecord.select().count() == 0
    finally:
        close_database()


async def test_a_connection_that_sends_nothing_is_closed(workspace):
    server = IpcServer(workspace, {"ping": ping}, idle_seconds=0.3)
    await server.start()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            await asyncio.to_thread(sock.connect, str(server.path))
            started = time.monotonic()
            assert await asyncio.to_thread(sock.recv, 100) == b""  # closed by the app
            assert time.monotonic() - started < 3
        assert server.open_connections == 0
    finally:
        await server.stop()


async def test_an_app_flooded_with_idle_connections_keeps_answering(engine):
    """1 100 idle connections against an app whose open-file limit is 1 024: the oldest idle
    ones are closed to make room, and a real request is still answered at once."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
    await engine.serve({})
    flood = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        FLOOD,
        str(ipc.socket_path(engine.workspace)),
        "1100",
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert flood.stdout is not None
        opened = int(await asyncio.wait_for(flood.stdout.readline(), 60))
        assert opened == 1100
        started = time.monotonic()
        answer = await asyncio.to_thread(ipc.request, engine.workspace, {"cmd": "ping"}, 10.0)
        assert answer is not None and answer["ok"]
        assert time.monotonic() - started < 5
        server = engine._endpoint._server
        assert server is not None and server.open_connections <= 65
    finally:
        flood.kill()
        await flood.wait()
        await engine.stop_serving()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.allow_log_warnings
async def test_a_flood_of_bad_requests_writes_a_few_log_lines_not_one_each(workspace):
    """1 100 connections, each with garbage: each gets its error line, and the log holds
    ten of the warning and one line counting the rest, not 1 100 warnings."""
    path = logsetup.setup_logging(workspace)
    server = IpcServer(workspace, {"ping": ping})
    await server.start()
    try:
        answers = await asyncio.to_thread(
            lambda: [raw_request(str(server.path), b"not json\n") for _ in range(1100)]
        )
    finally:
        await server.stop()
        logsetup.teardown_logging()
    assert all(json.loads(a)["ok"] is False for a in answers) and len(answers) == 1100
    warnings = [line for line in path.read_text().splitlines() if " WARNING " in line]
    assert len(warnings) == 11, warnings[:3]
    assert "IPC request failed: Expecting value" in warnings[0]
    assert warnings[-1].endswith("(1090 more like this)")
