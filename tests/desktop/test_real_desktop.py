"""The real app on a real (virtual) desktop: Xvfb, a private D-Bus session, a notification
server and a tray host, all started by the test. The app runs the embedded model."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine.ipc.client as ipc
from desktop.chat import welcome
from engine.triage.rules.parse import NEVER, parse_rules
from engine.workspace import Workspace
from tests.cli_helpers import ROOT, TRIAGE_DEV, write_jsonl
from tests.desktop.session import isolated_session

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(
        not all(shutil.which(t) for t in ("Xvfb", "dbus-daemon", "trayer", "xdotool")),
        reason="needs Xvfb, dbus-daemon, trayer and xdotool (.ci/run installs them)",
    ),
]

README_SHOT = ROOT / "docs" / "chat-window.png"
FIRST_RUN_SHOT = ROOT / "docs" / "first-run.png"


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def distinct_colours(png: Path) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from desktop.qt import QtGui

    image = QtGui.QImage(str(png))
    assert not image.isNull()
    step = max(1, image.width() // 200)
    return len(
        {
            image.pixel(x, y)
            for x in range(0, image.width(), step)
            for y in range(0, image.height(), step)
        }
    )


def dev_event(event_id: str) -> dict:
    for line in (TRIAGE_DEV / "cases.jsonl").read_text().splitlines():
        event = json.loads(line)["event"]
        if event["id"] == event_id:
            return event
    raise KeyError(event_id)


def tic(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tic_desktop", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def accept_mute_confirmation(env: dict[str, str]) -> None:
    """Press "Add rule" (the default button) in the app's mute confirmation."""
    found = subprocess.run(
        ["xdotool", "search", "--sync", "--onlyvisible", "--name", "Don't notify me about this"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    window = found.stdout.split()[0]
    for args in (["windowfocus", "--sync", window], ["key", "--clearmodifiers", "Return"]):
        subprocess.run(["xdotool", *args], env=env, check=True, timeout=30)


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[tuple[object, object, dict[str, str], Workspace]]:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "notifications.md").write_text((TRIAGE_DEV / "rules-family.md").read_text())
    welcome.remember_first_start(Workspace(home))  # not the first start: it opens in the tray
    browser = tmp_path / "browser"  # a fake browser: "Open" is recorded, not shown
    browser.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "browser.log"}\n')
    browser.chmod(0o755)
    with isolated_session() as session:
        server = session.start_fake_notifications()
        session.start_trayer()
        env = dict(
            session.env,
            TIC_HOME=str(home),
            QT_QPA_PLATFORM="xcb",
            TIC_ALLOW_MODEL_REQUESTS="1",
            BROWSER=str(browser),  # where Qt sends a URL on a desktop it does not know
        )
        log = (tmp_path / "app.out").open("w")
        app = subprocess.Popen(
            [sys.executable, "-m", "tic_desktop"],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        workspace = Workspace(home)
        try:
            wait_for(lambda: ipc.app_running(workspace), 60, "the app to start")
            yield app, server, env, workspace
        finally:
            if app.poll() is None:
                ipc.request(workspace, {"cmd": "quit"}, timeout=30)
                try:
                    app.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    app.kill()
            log.close()


def test_tray_toast_feedback_and_chat_on_a_real_desktop(desktop, tmp_path):
    app, server, env, workspace = desktop
    status = ipc.request(workspace, {"cmd": "status"})
    assert status["tray_available"] and status["tray_visible"]
    _, _, width, height = status["tray_geometry"]
    assert width > 0 and height > 0  # embedded in trayer's panel

    accountant, husband = (dev_event("gmail:1"), dev_event("whatsapp:9"))
    events = write_jsonl(tmp_path / "events.jsonl", [accountant])
    ingested = tic("ingest", str(events), env=env)
    assert "handed to the running app" in ingested.stdout, ingested.stderr

    (toast,) = server.wait_for_notifications(1, timeout=60)  # no tick: the ingest woke TIC
    assert toast["summary"] == "Email from Tomas Herrera"
    # the body begins with the facts: who, then what (composed: the embedded model is tiny)
    assert re.match(
        r"Tomas Herrera emailed you [\w ]*at \d\d:\d\d: \u201cQ3 VAT return\u201d", toast["body"]
    )
    assert {"default", "open", "later", "mute"} <= set(toast["actions"][::2])

    rules_file = workspace.root / "data" / "notifications.md"
    assert not ipc.request(workspace, {"cmd": "status"})["window_visible"]
    server.invoke(toast["id"], "mute")
    accept_mute_confirmation(env)  # it shows the rule and what it would have silenced first

    def muted() -> bool:
        never = parse_rules(rules_file.read_text()).section(NEVER)
        return any(r.text == "Emails from tomas@herrera-lutz.es" for r in never)

    wait_for(muted, 120, "a Never rule in data/notifications.md")

    tic("ingest", str(write_jsonl(tmp_path / "more.jsonl", [husband])), env=env)
    toast = server.wait_for_notifications(2, timeout=60)[-1]
    assert toast["summary"] == "WhatsApp from Marco"
    assert re.match(
        r"Marco wrote on WhatsApp [\w ]*at \d\d:\d\d: \u201cPicked up the kids, all good\u201d",
        toast["body"],
    )
    server.invoke(toast["id"], "default")  # "Open": the chat with Marco, in WhatsApp
    opened = tmp_path / "browser.log"
    wait_for(opened.exists, 30, "the browser to be asked")
    assert opened.read_text().split() == ["https://wa.me/34600111222"]

    second = tic(env=env)
    assert second.returncode == 0 and "already running" in second.stdout
    wait_for(
        lambda: ipc.request(workspace, {"cmd": "status"})["window_visible"],
        30,
        "the chat window to open",
    )

    taken = ipc.request(workspace, {"cmd": "screenshot"})
    assert taken["ok"]
    shot = Path(taken["path"])
    assert shot.parent == workspace.root / "screenshots"
    rules = rules_file.read_bytes()  # a path from a client is not taken: nothing is overwritten
    pointed = ipc.request(workspace, {"cmd": "screenshot", "path": str(rules_file)})
    assert Path(pointed["path"]).parent == shot.parent and rules_file.read_bytes() == rules
    assert distinct_colours(shot) > 20
    if os.environ.get("TIC_UPDATE_SCREENSHOT"):  # refresh the README's picture on purpose
        shutil.copyfile(shot, README_SHOT)

    assert ipc.request(workspace, {"cmd": "quit"})["ok"]
    assert app.wait(timeout=60) == 0
    log = (workspace.root / "logs" / "tic.log").read_text()
    assert "TIC quit cleanly" in log
    for path in (workspace.root / "tic.db", workspace.root / "logs" / "tic.log", shot):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path  # the user's only


def test_without_a_tray_host_the_app_says_so_and_shows_the_chat(tmp_path):
    home = tmp_path / "home"
    with isolated_session() as session:
        session.start_fake_notifications()
        env = dict(
            session.env, TIC_HOME=str(home), QT_QPA_PLATFORM="xcb", TIC_ALLOW_MODEL_REQUESTS="1"
        )
        app = subprocess.Popen(
            [sys.executable, "-m", "tic_desktop"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        workspace = Workspace(home)
        try:
            wait_for(lambda: ipc.app_running(workspace), 60, "the app to start")
            status = wait_for(
                lambda: (
                    (s := ipc.request(workspace, {"cmd": "status"}))
                    and "No system tray" in s["chat_status"]
                    and s
                ),
                60,
                "the no-tray notice",
            )
            assert status["tray_available"] is False
            assert status["window_visible"] is True
            assert ipc.request(workspace, {"cmd": "quit"})["ok"]
            assert app.wait(timeout=60) == 0
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()


def test_the_first_start_opens_the_welcome_once(tmp_path):
    home = tmp_path / "home"
    workspace = Workspace(home)
    with isolated_session() as session:
        session.start_fake_notifications()
        session.start_trayer()
        env = dict(
            session.env, TIC_HOME=str(home), QT_QPA_PLATFORM="xcb", TIC_ALLOW_MODEL_REQUESTS="1"
        )
        for start in ("first", "second"):
            app = subprocess.Popen(
                [sys.executable, "-m", "tic_desktop"],
                env=env,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                wait_for(lambda: ipc.app_running(workspace), 60, "the app to start")
                status = wait_for(
                    lambda: (
                        (s := ipc.request(workspace, {"cmd": "status"}))
                        and s["tray_visible"]
                        and s["model_ready"]
                        and s
                    ),
                    120,
                    "the app to be ready",
                )
                assert status["messages"] == [] and not status["model_error"]
                assert status["chat_status"] == ""
                assert status["chat_model"] == "SmolLM2-135M · small built-in model"
                assert status["welcome_visible"]  # in an empty chat, always
                if start == "first":
                    assert status["first_start"] and status["window_visible"]
                    taken = ipc.request(workspace, {"cmd": "screenshot"})
                    assert taken["ok"]
                    shot = Path(taken["path"])
                    assert distinct_colours(shot) > 20
                    if os.environ.get("TIC_UPDATE_SCREENSHOT"):
                        shutil.copyfile(shot, FIRST_RUN_SHOT)
                    history = tic("history", "--json", env=env)
                    assert history.returncode == 0 and history.stdout == ""  # nothing stored
                else:  # once only: later starts stay in the tray
                    assert not status["first_start"] and not status["window_visible"]
                assert ipc.request(workspace, {"cmd": "quit"})["ok"]
                assert app.wait(timeout=60) == 0
            finally:
                if app.poll() is None:
                    app.kill()
                    app.wait()
