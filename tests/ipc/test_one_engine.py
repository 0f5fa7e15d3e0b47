"""One engine per workspace, whichever front end starts first: two ``tic tick`` at once, a
tick during a long ingest, a tick beside a chat, a chat beside the app, the app beside a
chat. Nothing is delivered twice, nothing fails with "database is locked"."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from engine.ipc.lock import WorkspaceLock, holder
from engine.workspace import Workspace
from tests.cli_helpers import ROOT, write_jsonl
from tests.deliveries import SHOP, add_events, ledger, new_workspace, start_tic, tic_env
from tests.factories import event_dict, reply
from tests.model_server import ScriptedServer
from tic_cli import cli

pytestmark = pytest.mark.slow  # many tic-desktop processes, a 15 000-event ingest

NOTE = "Anna Berg asks you to call her back."


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(default=reply(NOTE), delay=0.2) as fake:
        yield fake


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def test_two_ticks_at_once_deliver_each_notification_once(tmp_path, server):
    home = new_workspace(tmp_path / "home")
    expected: list[str] = []
    for run in range(8):
        expected += add_events(home, anna=3, shop=1)[:3]
        ticks = [start_tic(home, "--model", server.url, "tick") for _ in range(2)]
        results = [finish(t) for t in ticks]
        for status, out, err in results:
            assert status == 0, (run, out, err)
            assert "locked" not in out + err and "Traceback" not in out + err, (run, out, err)
        handed = [out for _status, out, _err in results if "(in the running app:" in out]
        assert len(handed) <= 1, results  # at most one ran the engine at a time
    book = ledger(home)
    assert book.notified == set(expected)
    assert book.delivered == {event_id: 1 for event_id in expected}
    assert book.statuses == {"done": 8 * 4} and book.undelivered == 0


def test_a_tick_during_a_long_ingest_waits_for_it(tmp_path, server):
    home = new_workspace(tmp_path / "home")
    events = write_jsonl(tmp_path / "many.jsonl", [event_dict(**SHOP) for _ in range(15_000)])
    ingest = start_tic(home, "ingest", str(events))
    workspace = Workspace(home)
    deadline = time.monotonic() + 60
    while holder(workspace).role != "tic-desktop ingest":
        assert time.monotonic() < deadline and ingest.poll() is None, "ingest never held"
        time.sleep(0.01)
    tick = start_tic(home, "--model", server.url, "tick")
    ingested, ticked = finish(ingest), finish(tick, timeout=300)
    assert ingested[0] == 0 and ingested[1].startswith("15000 new event(s) added"), ingested
    assert ticked[0] == 0, ticked
    assert "TIC checked 15000 event(s), notified 0" in ticked[1]
    assert "locked" not in ticked[1] + ticked[2] and "Traceback" not in ticked[2]
    assert ledger(home).statuses == {"done": 15_000}


def test_a_tick_beside_a_terminal_chat_is_handed_to_it(tmp_path, server):
    home = new_workspace(tmp_path / "home")
    chat = start_tic(home, "--model", server.url, "chat", stdin=subprocess.PIPE)
    try:
        assert chat.stdout is not None and chat.stdin is not None
        assert chat.stdout.readline().startswith("TIC chat: type a message")
        [event_id] = add_events_via_cli(home, tmp_path)
        status, out, err = finish(start_tic(home, "--model", server.url, "tick"))
        assert status == 0, (out, err)
        # the ingest woke the chat's own check, which may have taken the event already
        assert re.match(r"TIC checked ([01]) event\(s\), notified \1", out), out
        assert "(in the running app: tic-desktop chat (pid" in out
        chat.stdin.write("/quit\n")
        chat.stdin.flush()
        rest, chat_err = chat.communicate(timeout=60)
    finally:
        if chat.poll() is None:
            chat.kill()
            chat.wait()
    assert chat.returncode == 0, chat_err
    assert f"assistant (notification): {NOTE}" in rest  # shown in the chat that ran it
    assert ledger(home).delivered == {event_id: 1}


def add_events_via_cli(home: Any, tmp_path: Any) -> list[str]:
    """Handed to whoever holds the workspace, as a user's `tic ingest` would be."""
    event = event_dict()
    status, out, err = finish(
        start_tic(home, "ingest", str(write_jsonl(tmp_path / "a.jsonl", [event])))
    )
    assert status == 0 and "handed to the running app: tic-desktop chat" in out, (out, err)
    return [event["id"]]


async def test_a_terminal_chat_beside_the_app_runs_its_turns_in_the_app(engine, model):
    """`tic chat` beside a running app attaches to it: the app's model answers (one model
    per user), the reply streams back, and the turn is in the app's history."""
    lock = WorkspaceLock.try_acquire(engine.workspace, "the test's app")
    assert lock is not None
    model.add(reply("Hello from the app's model."))
    await engine.serve({})
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tic_cli",
            "chat",
            cwd=ROOT,
            env=dict(tic_env(engine.workspace.root), TIC_ALLOW_MODEL_REQUESTS="0"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(b"hi there\n/tick\n/quit\n"), 120)
    finally:
        await engine.stop_serving()
        lock.release()
    assert proc.returncode == 0, err.decode()
    assert out.decode().splitlines() == [
        f"TIC chat (attached to the running app: the test's app (pid {os.getpid()})): "
        "type a message; /tick checks now, /quit leaves.",
        "assistant: Hello from the app's model.",
        "checked 0 event(s), notified 0",
    ]
    assert err == b""
    assert len(model.calls) == 1 and "hi there" in str(model.calls[0]["messages"])
    rows = engine.history()
    assert [(r["role"], r["content"]) for r in rows[-2:]] == [
        ("user", "hi there"),
        ("assistant", "Hello from the app's model."),
    ]


async def test_an_attached_chat_says_so_in_one_line_when_the_app_quits(engine, model):
    lock = WorkspaceLock.try_acquire(engine.workspace, "the test's app")
    assert lock is not None
    await engine.serve({})
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tic_cli",
            "chat",
            cwd=ROOT,
            env=dict(tic_env(engine.workspace.root), TIC_ALLOW_MODEL_REQUESTS="0"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdout is not None
        first = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert first.startswith(b"TIC chat (attached to the running app")
    finally:
        await engine.stop_serving()
        lock.release()
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 1, err.decode()
    assert err.decode().splitlines() == [
        f"tic-desktop: the test's app (pid {os.getpid()}) quit; the chat ends here"
    ]


def test_the_app_beside_a_terminal_chat_refuses_in_one_line(tmp_path, server, capsys):
    home = new_workspace(tmp_path / "home")
    chat = start_tic(home, "--model", server.url, "chat", stdin=subprocess.PIPE)
    try:
        assert chat.stdout is not None
        assert chat.stdout.readline().startswith("TIC chat: type a message")
        from desktop.app import main as desktop_main

        assert desktop_main(home) == 1
    finally:
        chat.kill()
        chat.communicate()
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"tic-desktop: error: TIC runs in tic-desktop chat (pid {chat.pid}) on this "
        "workspace: quit it first"
    ]


def test_history_reads_beside_a_holder(tmp_path, server):
    home = new_workspace(tmp_path / "home")
    chat = start_tic(home, "--model", server.url, "chat", stdin=subprocess.PIPE)
    try:
        assert chat.stdout is not None
        assert chat.stdout.readline().startswith("TIC chat")
        assert cli.main(["--home", str(home), "history"]) == 0
    finally:
        chat.kill()
        chat.communicate()
