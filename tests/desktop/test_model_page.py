"""Settings → Model's library: the catalog as it fits a faked computer, a download from a fake
Hugging Face endpoint with its progress, using and deleting a model, the model servers found
(a fake Ollama), and the tray's tooltip while a download runs. A real engine and store."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.app import DesktopApp
from desktop.bridge import EngineBridge
from desktop.qt import QtGui, QtWidgets
from desktop.settings.dialog import SettingsDialog
from desktop.settings.model_page import STATUS, ModelLibraryPanel
from desktop.tray import TrayController
from engine.bus import ModelDownloadEnded, ModelDownloadProgress, ModelServerDown, ModelServerUp
from engine.llm.select import default_model_path
from engine.modeltypes import GB, DownloadState, MachineInfo
from tests import keyring_memory
from tests.llm.fake_hub import FakeHub, Served
from tests.llm.fake_servers import FakeModelServer

recording_keyring = keyring_memory.recording_keyring

SAMPLE = Path(__file__).parents[1] / "llm" / "catalog_sample.toml"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LAPTOP = MachineInfo(8 * GB, int(3 * GB), cores=2, disk_free=100 * GB)


@pytest.fixture
def tasks() -> list[asyncio.Task[Any]]:
    return []


@pytest.fixture
def panel(qtbot, engine, tasks) -> Iterator[ModelLibraryPanel]:
    """The library in a Settings dialog (qtbot closes the dialog, and the panel with it)."""

    def spawn(coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        tasks.append(task)
        return task

    engine.models.machine_probe = lambda: LAPTOP
    widget = ModelLibraryPanel(engine, spawn)
    dialog = SettingsDialog(engine.settings, model_library=widget)
    qtbot.addWidget(dialog)
    yield widget  # the dialog lives until the test ends
    del dialog


def dialog_of(panel: ModelLibraryPanel) -> SettingsDialog:
    dialog = panel.window()
    assert isinstance(dialog, SettingsDialog)
    return dialog


@pytest.fixture
def hub(monkeypatch, tmp_path) -> Iterator[FakeHub]:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


@pytest.fixture
def smol(hub, engine, tmp_path) -> Served:
    served = hub.serve(
        "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF",
        "0123456789abcdef0123456789abcdef01234567",
        FILE,
        default_model_path(),
    )
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        SAMPLE.read_text()
        .replace('sha256 = ""', f'sha256 = "{served.sha256}"')
        .replace("size = 100", f"size = {served.size}")
    )
    engine.models.catalog_path = catalog
    return served


def rows(panel: ModelLibraryPanel) -> dict[str, list[str]]:
    found = {}
    for index in range(panel.catalog.topLevelItemCount()):
        item = panel.catalog.topLevelItem(index)
        assert item is not None
        found[item.data(0, 256)] = [item.text(c) for c in range(4)]
    return found


async def ended(engine) -> DownloadState:
    for _ in range(600):
        state = engine.models.downloads.get("smol")
        if state is not None and state.phase in ("finished", "failed", "cancelled"):
            return state
        await asyncio.sleep(0.05)
    raise AssertionError("the download did not end")


async def test_the_catalog_fits_the_computer_and_marks_the_recommended_one(panel):
    shown = rows(panel)
    assert shown["qwen2.5-3b"][0] == "★ Qwen2.5 3B Instruct"
    assert shown["qwen2.5-3b"][3] == "recommended for this computer"
    assert shown["llama3.2-3b"][3] == "needs 3.3 GB of free memory, 3.0 GB is free"
    assert panel.selected_name() == "qwen2.5-3b"  # the recommended one is selected
    assert panel.download_button.isEnabled() and not panel.use_button.isEnabled()
    assert "This computer: 3.0 GB of 8.0 GB memory free, 2 CPU cores" in panel.machine_label.text()
    panel.select("llama3.2-3b")
    assert not panel.download_button.isEnabled()  # it does not fit


async def test_download_shows_progress_then_use_fills_the_model_field(
    qtbot, engine, panel, smol, tasks
):
    dialog = dialog_of(panel)
    panel.refresh()  # the catalog is the fake hub's now
    panel.select("smol")
    progress: list[str] = []
    engine.bus.subscribe(
        lambda m: (
            progress.append(panel.progress_label.text())
            if isinstance(m, ModelDownloadProgress)
            else None
        )
    )
    panel.download_button.click()
    assert not panel.download_button.isEnabled() and panel.pause_button.isEnabled()

    state = await ended(engine)
    assert state.phase == "finished"
    assert any(text.startswith("SmolLM2 135M: ") and " of 98.4 MB" in text for text in progress)
    assert rows(panel)["smol"][3] == "downloaded"
    assert panel.message.text().startswith("SmolLM2 135M: downloaded and verified")

    panel.use_button.click()
    assert dialog.model_page.path() == str(engine.workspace.models_dir / FILE)
    with (
        qtbot.waitSignal(dialog.settingsAccepted, timeout=5000) as accepted,
        qtbot.waitSignal(dialog.model_page.checked, timeout=5000),
    ):
        dialog.accept()
    assert accepted.args[0].model_path == str(engine.workspace.models_dir / FILE)


async def test_pause_keeps_the_bytes_and_delete_removes_them(engine, panel, smol, hub, monkeypatch):
    hub.stall_after = 30_000_000
    panel.refresh()
    panel.select("smol")
    panel.download_button.click()
    await asyncio.to_thread(hub.stalled.wait, 30)
    panel.pause_button.click()
    hub.release.set()
    state = await ended(engine)
    assert state.phase == "cancelled"
    assert panel.progress_label.text().startswith("SmolLM2 135M: download paused (")
    assert panel.download_button.text() == "Resume download"
    assert rows(panel)["smol"][3].endswith("of 98.4 MB downloaded")

    monkeypatch.setattr(
        QtWidgets.QMessageBox,
        "question",
        lambda *_a, **_k: QtWidgets.QMessageBox.StandardButton.Yes,
    )
    panel.delete_button.click()
    assert panel.message.text() == f"Deleted {FILE}.part."
    assert list(engine.workspace.models_dir.glob("*.part")) == []


async def test_a_failed_download_says_why_in_one_line(engine, panel, smol, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    panel.refresh()
    panel.select("smol")
    panel.download_button.click()
    await ended(engine)
    await asyncio.sleep(0)  # the background task logs its failure
    text = panel.message.text()
    assert text.startswith("SmolLM2 135M: download failed: cannot reach 127.0.0.1:9")
    assert "\n" not in text


async def test_the_page_scrolls_as_a_whole_and_the_table_shows_every_row_whole(panel):
    dialog = dialog_of(panel)
    dialog.tabs.setCurrentWidget(dialog.model_page)
    dialog.resize(760, 720)
    dialog.show()
    await asyncio.sleep(0.05)  # the table fits its rows once laid out
    scrolls = dialog.model_page.findChildren(QtWidgets.QScrollArea)
    assert len(scrolls) == 1 and panel.isAncestorOf(panel.catalog)
    assert scrolls[0].widget().isAncestorOf(panel)  # the library scrolls with the page
    catalog = panel.catalog
    rows = [catalog.topLevelItem(i) for i in range(catalog.topLevelItemCount())]
    bottom = max(catalog.visualItemRect(item).bottom() for item in rows if item is not None)
    assert bottom <= catalog.viewport().height()  # no row hidden below a scroll
    metrics = QtGui.QFontMetrics(catalog.font())
    for item in rows:
        assert item is not None
        text = item.text(STATUS)
        lines = catalog.visualItemRect(item).height() // metrics.lineSpacing()
        width = catalog.columnWidth(STATUS) * max(lines, 1)
        assert metrics.horizontalAdvance(text) <= width, text  # wrapped, never cut


async def test_opening_the_page_and_downloading_leave_the_keyring_closed(
    qtbot, engine, panel, smol, tasks, recording_keyring, monkeypatch
):
    """A new user's keyring asks for a password to create it the first time it is opened:
    neither a server on a usual port that wants a key nor a public model's download opens it."""
    with FakeModelServer("lmstudio", api_key="sk-local") as server:
        monkeypatch.setattr("engine.llm.servers.KNOWN_SERVERS", ((server.port, "LM Studio"),))
        dialog = dialog_of(panel)
        dialog.tabs.setCurrentWidget(dialog.model_page)
        dialog.show()  # the page's first show asks the usual ports
        await until_done(tasks)
        top = panel.servers.topLevelItem(0)
        assert top is not None and top.text(1) == "it asks for an API key"
    panel.refresh()
    panel.select("smol")
    panel.download_button.click()
    assert (await ended(engine)).phase == "finished"
    assert recording_keyring.calls == []


async def until_done(tasks: list[asyncio.Task[Any]]) -> None:
    for _ in range(200):
        if tasks and all(t.done() for t in tasks):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the page's tasks did not finish")


pytestmark = pytest.mark.allow_log_warnings  # failed downloads are logged as warnings


async def test_a_server_model_is_found_and_chosen(qtbot, engine, panel, tasks):
    dialog = dialog_of(panel)
    with FakeModelServer("ollama") as ollama:
        servers = await panel.look_for_servers([ollama.url])
    assert any(s.url == ollama.url for s in servers)
    assert panel.servers.isVisible() or not dialog.isVisible()
    top = next(
        panel.servers.topLevelItem(i)
        for i in range(panel.servers.topLevelItemCount())
        if ollama.url in panel.servers.topLevelItem(i).text(0)
    )
    assert top.text(0) == f"Ollama at {ollama.url}"
    assert top.child(0).text(0) == "llama3.2:latest" and top.childCount() == 1
    panel.servers.setCurrentItem(top.child(0))
    panel.use_server_button.click()
    assert dialog.model_page.path() == ollama.url
    result = dialog.result_settings()
    assert (result.model_path, result.server_model) == (ollama.url, "llama3.2:latest")


def test_the_tray_says_how_a_download_goes_and_when_the_server_is_down(qtbot, engine):
    app = DesktopApp.__new__(DesktopApp)  # only the handlers under test
    app.tray = TrayController()
    app.model_error = None
    bridge = EngineBridge(engine.bus)
    bridge.modelDownload.connect(app._on_model_download)
    bridge.modelServer.connect(app._on_model_server)
    going = DownloadState("smol", "SmolLM2 135M", 49_000_000, 98_000_000, 2e6, 24.5, "downloading")

    engine.bus.publish(ModelDownloadProgress(going))
    assert app.tray.tooltip() == (
        "TIC — all quiet\nDownloading SmolLM2 135M: 50 % — 49.0 MB of 98.0 MB, 2.0 MB/s, 24 s left"
    )
    engine.bus.publish(ModelDownloadEnded(DownloadState("smol", "SmolLM2 135M", phase="finished")))
    assert app.tray.tooltip() == "TIC — all quiet"
    offline = "no internet connection: cannot reach huggingface.co"
    failed = DownloadState("smol", "SmolLM2 135M", phase="failed", error=offline)
    engine.bus.publish(ModelDownloadEnded(failed))
    assert app.tray.tooltip() == f"TIC — all quiet\nSmolLM2 135M: download failed: {offline}"
    app.tray.set_state("checking")  # the next check: the old failure is no longer news
    assert app.tray.tooltip() == "TIC — checking for new messages…"
    app.tray.set_state("idle")

    url = "http://127.0.0.1:11434/v1"
    engine.bus.publish(ModelServerDown(url, "nothing answers there (connection refused)"))
    assert app.tray.tooltip() == (
        f"TIC — model server {url} does not answer: nothing answers there (connection refused)"
    )
    engine.bus.publish(ModelServerUp(url))
    assert app.tray.state == "idle"
    bridge.detach()
