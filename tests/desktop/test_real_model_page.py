"""Settings → Model in the real app on a real (virtual) desktop: a catalog model downloads
from a fake Hugging Face endpoint (``HF_ENDPOINT``) while the tray's tooltip says how it goes,
the Model page shows the catalog for this computer and the model servers found, and quitting
keeps the partial download. Also: a model server that is down is named in the tray.

``TIC_UPDATE_SCREENSHOT=1`` refreshes the README's picture of the page (docs/model-page.png)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine.ipc.client as ipc
from desktop.chat import welcome
from engine.llm.catalog import find_entry, load_catalog
from engine.llm.library import part_path
from engine.llm.select import default_model_path
from engine.settings import Settings
from engine.workspace import Workspace
from tests.cli_helpers import ROOT
from tests.desktop.session import isolated_session
from tests.desktop.test_real_desktop import distinct_colours, wait_for
from tests.llm.fake_hub import FakeHub
from tests.llm.fake_servers import FakeModelServer

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(
        not all(shutil.which(t) for t in ("Xvfb", "dbus-daemon", "trayer")),
        reason="needs Xvfb, dbus-daemon and trayer (.ci/run installs them)",
    ),
]

MODEL_PAGE_SHOT = ROOT / "docs" / "model-page.png"
PROGRESS = (
    r"Downloading Llama 3\.2 3B Instruct: (\d+) % — [\d.]+ [MG]B of 2\.0 GB, "
    r"[\d.]+ MB/s, (\d+ min )?\d+ s left"
)
SPEED = 60e6  # bytes per second: a 2 GB download is still going when the test looks


def free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the fake server does
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def big_file(tmp_path: Path) -> Iterator[Path]:
    """A sparse file of Llama 3.2 3B's size that starts like a GGUF (the embedded model's
    header): it streams like the real one without 2 GB on disk."""
    entry = find_entry(load_catalog(), "llama3.2-3b")
    path = tmp_path / "served.gguf"
    with default_model_path().open("rb") as source, path.open("wb") as target:
        target.write(source.read(1 << 20))
        target.truncate(entry.size)
    yield path


def start_app(home: Path, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    out = log.open("w")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "tic_desktop"], env=env, cwd=ROOT, stdout=out, stderr=out
        )
    finally:
        out.close()


def quit_app(app: subprocess.Popen[bytes], workspace: Workspace) -> int:
    if app.poll() is None:
        ipc.request(workspace, {"cmd": "quit"}, timeout=30)
        try:
            return app.wait(timeout=60)
        except subprocess.TimeoutExpired:
            app.kill()
    return app.wait()


def test_a_download_in_the_tray_and_the_model_page(tmp_path, big_file):
    entry = find_entry(load_catalog(), "llama3.2-3b")
    home = tmp_path / "home"
    workspace = Workspace.open(home)
    welcome.remember_first_start(workspace)
    ollama = FakeModelServer("ollama", port=11434) if free(11434) else None
    with FakeHub() as hub, isolated_session() as session:
        hub.serve(entry.repo, entry.revision, entry.file, big_file, sha256="0" * 64)
        hub.throttle = SPEED
        session.start_fake_notifications()
        session.start_trayer()
        env = dict(
            session.env,
            TIC_HOME=str(home),
            QT_QPA_PLATFORM="xcb",
            TIC_ALLOW_MODEL_REQUESTS="1",
            HF_ENDPOINT=hub.url,
            HF_HOME=str(tmp_path / "hf-home"),
        )
        app = start_app(home, env, tmp_path / "app.out")
        try:
            if ollama is not None:
                ollama.__enter__()
            wait_for(lambda: ipc.app_running(workspace), 60, "the app to start")
            assert ipc.request(workspace, {"cmd": "settings", "page": "model"})["ok"]
            if ollama is not None:  # asked for its models, then for its own listing
                wait_for(lambda: len(ollama.requests) >= 2, 30, "the page to ask the servers")
                time.sleep(1)  # the answers reach the page
            assert ipc.request(workspace, {"cmd": "model-pull", "name": entry.name})["ok"]

            def progress() -> re.Match[str] | None:
                lines = str(ipc.request(workspace, {"cmd": "status"})["tooltip"]).splitlines()
                return re.fullmatch(PROGRESS, lines[-1]) if len(lines) == 2 else None

            line = wait_for(progress, 60, "the tooltip to show the progress")
            assert int(line.group(1)) < 50  # a line in the tooltip, moving
            wait_for(lambda: (m := progress()) and int(m.group(1)) >= 15, 60, "15 %")

            def settings_shot() -> Path | None:
                taken = ipc.request(workspace, {"cmd": "screenshot", "window": "settings"})
                return Path(taken["path"]) if taken and taken.get("ok") else None

            shot = wait_for(settings_shot, 30, "a screenshot of Settings")
            assert distinct_colours(shot) > 20
            if os.environ.get("TIC_UPDATE_SCREENSHOT"):
                shutil.copyfile(shot, MODEL_PAGE_SHOT)
        finally:
            code = quit_app(app, workspace)
            if ollama is not None:
                ollama.__exit__(None, None, None)
    assert code == 0, (tmp_path / "app.out").read_text()
    kept = part_path(workspace.models_dir, entry.file).stat().st_size
    assert 0 < kept < entry.size  # quitting paused it: the next start resumes from there


def test_a_model_server_that_is_down_is_named_in_the_tray(tmp_path):
    home = tmp_path / "home"
    workspace = Workspace.open(home)
    welcome.remember_first_start(workspace)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    Settings(model_path=url, server_model="llama3.2").save(workspace.settings_file)
    with isolated_session() as session:
        session.start_fake_notifications()
        session.start_trayer()
        env = dict(session.env, TIC_HOME=str(home), QT_QPA_PLATFORM="xcb")
        app = start_app(home, env, tmp_path / "app.out")
        try:
            wait_for(lambda: ipc.app_running(workspace), 60, "the app to start")
            status = wait_for(
                lambda: (s := ipc.request(workspace, {"cmd": "status"})) and s["model_ready"] and s,
                60,
                "the model check",
            )
            assert status["tray_state"] == "error"
            # said by the model's load, or by the watch on the server, whichever came last
            assert status["tooltip"] in (
                f"TIC — model server {url} unreachable: [Errno 111] Connection refused",
                f"TIC — model server {url} does not answer: "
                "nothing answers there (connection refused)",
            )
            assert status["model"] == f"llama3.2 at {url}"
        finally:
            code = quit_app(app, workspace)
    assert code == 0
