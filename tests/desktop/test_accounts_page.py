"""The Accounts page, driven through the same steps its buttons run: a real engine and store,
a real Dovecot for IMAP, an in-memory keyring, and a fake Google sign-in."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import html
import sys
from collections.abc import Coroutine, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import engine.accounts.secrets as secrets
import engine.sources.google.auth as google_auth
from desktop.app import DesktopApp
from desktop.bridge import EngineBridge
from desktop.qt import QtGui, QtWidgets
from desktop.settings.accounts_page import (
    AccountsPage,
    UnofficialWarningBox,
    sign_in_problem,
    synced_text,
)
from desktop.settings.dialog import SettingsDialog
from desktop.tray import TrayController
from desktop.widgets.qr import qr_image, qr_presenter
from engine.accounts.registry import AccountConfig, AccountState, imap_config, states
from engine.bus import WhatsAppQrCode
from engine.clock import utcnow
from engine.settings import Settings
from engine.sources.base import SourceError
from engine.sources.mail.imap import secret_name
from engine.sources.mail.providers import mail_providers
from engine.sources.whatsapp.live import UNOFFICIAL_WARNING
from engine.store.models import SourceStatus
from tests import keyring_memory
from tests.sources.dovecot import Dovecot, dovecot_binary

memory_keyring = keyring_memory.memory_keyring
USER, PASSWORD = "carol", "pa55word"
ANNA = "anna@gmail.com"


@pytest.fixture
def server() -> Iterator[Dovecot]:
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd)")
    with Dovecot() as dovecot:
        dovecot.add_user(USER, PASSWORD)
        dovecot.start()
        yield dovecot


@pytest.fixture
def tasks() -> list[asyncio.Task[Any]]:
    return []


@pytest.fixture
def opened() -> list[str]:
    return []


@pytest.fixture
def page(qtbot, engine, tasks, opened) -> Iterator[AccountsPage]:
    def spawn(coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        tasks.append(task)
        return task

    widget = AccountsPage(engine, spawn, open_browser=opened.append)
    qtbot.addWidget(widget)
    yield widget
    qr_presenter().close()


@pytest.fixture
def started(engine, monkeypatch) -> list[AccountConfig]:
    """Record the sources the engine would start instead of starting them (no Google, no
    WhatsApp servers in tests)."""
    configs: list[AccountConfig] = []
    monkeypatch.setattr(engine, "_start_source", configs.append)
    return configs


def seed(engine, *configs: AccountConfig) -> None:
    engine._save_settings(Settings(accounts=list(configs)))


def status(config: AccountConfig, state: str, error: str | None = None, **extra: Any) -> None:
    SourceStatus.create(
        key=config.key,
        kind=config.kind,
        account=config.account,
        state=state,
        last_error=error,
        **extra,
    )


def gmail(account: str = ANNA) -> AccountConfig:
    return AccountConfig(kind="gmail", account=account)


def gcal(account: str = ANNA) -> AccountConfig:
    return AccountConfig(kind="gcal", account=account)


def fake_sign_in(email: str | None = None, error: str | None = None) -> Any:
    async def sign_in(path: str | Path, open_browser: Any) -> str:
        open_browser(f"https://accounts.google.com/o/oauth2/auth?client={Path(path).name}")
        if error is not None:
            raise SourceError(error)
        assert email is not None
        return email

    return sign_in


# --- rows -------------------------------------------------------------------------------


def test_synced_text_says_how_long_ago_in_local_time():
    now = datetime(2025, 3, 12, 15, 0, tzinfo=UTC)
    assert synced_text(None, now) == "Never synced"
    assert synced_text(now - timedelta(seconds=20), now) == "Synced just now"
    assert synced_text(now - timedelta(minutes=3, seconds=5), now) == "Synced 3 min ago"
    two_hours = now - timedelta(hours=2)
    local = two_hours.astimezone()
    if local.date() == now.astimezone().date():
        assert synced_text(two_hours, now) == f"Synced at {local:%H:%M}"
    last_week = (now - timedelta(days=7)).astimezone()
    assert synced_text(last_week, now) == f"Synced {last_week.day} {last_week:%b %H:%M}"


async def test_rows_show_each_account_with_state_last_sync_and_error(
    engine, page, tmp_path, monkeypatch
):
    monkeypatch.setenv("HOME", str(tmp_path))
    export = AccountConfig(
        kind="whatsapp-export", account=str(tmp_path / "WhatsApp"), options={"user_name": "Anna"}
    )
    imap = imap_config("imap.example", 993, "carol")
    seed(engine, gmail(), gcal(), imap, export)
    status(gmail(), "needs_sign_in", f"Google access for {ANNA} was revoked or expired")
    status(imap, "error", "sign-in failed: [AUTHENTICATIONFAILED]\nsecond line")
    status(export, "ok", last_sync_at=utcnow() - timedelta(minutes=3, seconds=1))

    page.refresh()

    assert page.rows() == [
        (
            f"Gmail — {ANNA}",
            "needs sign-in",
            f"Never synced · Google access for {ANNA} was revoked or expired",
        ),
        (f"Google Calendar — {ANNA}", "not synced yet", "Never synced"),
        (
            "Email (IMAP) — carol@imap.example",
            "error",
            "Never synced · sign-in failed: [AUTHENTICATIONFAILED]",
        ),
        ("WhatsApp exports — ~/WhatsApp", "ok", "Synced 3 min ago"),
    ]
    assert page.empty.isHidden() or not page.isVisible()
    assert not page.disconnect_button.isEnabled()
    page.select(imap.key)
    assert page.selected_key() == imap.key
    assert page.disconnect_button.isEnabled() and page.reconnect_button.isEnabled()
    page.refresh()
    assert page.selected_key() == imap.key  # a refresh keeps the selection


async def test_an_empty_page_says_how_to_start(page, qtbot):
    page.show()
    qtbot.waitExposed(page)
    assert page.rows() == []
    assert page.empty.isVisible() and not page.list.isVisible()
    assert page.timer.isActive()  # refreshes every 10 s while shown
    page.hide()
    assert not page.timer.isActive()


def test_sign_in_problem_names_the_account():
    def state(config: AccountConfig, value: str) -> AccountState:
        return AccountState(config, "", value, None, None)

    imap = imap_config("host", None, "carol")
    live = AccountConfig(kind="whatsapp-live", account="default")
    assert sign_in_problem([state(gmail(), "ok"), state(imap, "error")]) is None
    assert (
        sign_in_problem([state(gmail(), "needs_sign_in"), state(gcal(), "needs_sign_in")])
        == f"Google ({ANNA}) needs you to sign in again"
    )
    assert (
        sign_in_problem([state(imap, "needs_sign_in"), state(live, "needs_sign_in")])
        == "Email (IMAP) (carol@host) needs you to sign in again (and 1 more)"
    )
    assert sign_in_problem([state(live, "needs_sign_in")]) == (
        "WhatsApp (live) needs you to sign in again"
    )


async def test_the_tray_shows_an_account_that_needs_signing_in_again(engine, qtbot):
    tray = TrayController()
    app = SimpleNamespace(engine=engine, tray=tray, model_error=None, account_problem=None)
    seed(engine, gmail())

    DesktopApp.check_accounts(app)  # type: ignore[arg-type]
    assert tray.state == "idle"

    status(gmail(), "needs_sign_in", "revoked")
    DesktopApp.check_accounts(app)  # type: ignore[arg-type]
    assert tray.state == "error"
    assert tray.tooltip() == f"TIC — Google ({ANNA}) needs you to sign in again"

    SourceStatus.update(state="ok").execute()
    DesktopApp.check_accounts(app)  # type: ignore[arg-type]
    assert tray.state == "idle"


# --- IMAP -------------------------------------------------------------------------------


async def test_imap_connects_after_the_login_check(server, memory_keyring, engine, page):
    server.create_folder(USER, "Archive")
    error = await page.connect_imap_with(
        server.host, server.port, USER, PASSWORD, ssl=False, folders="INBOX, Archive"
    )

    assert error is None
    (config,) = engine.settings.accounts
    assert config.key == f"imap:{USER}@{server.host}"
    assert config.options["folders"] == ["INBOX", "Archive"]
    assert secrets.get_secret(secret_name(USER, server.host)) == PASSWORD
    assert PASSWORD not in engine.workspace.settings_file.read_text()
    assert engine.sources.active_keys() == [config.key]
    assert page.rows()[0][0] == f"Email (IMAP) — {USER}@{server.host}"


async def test_a_wrong_imap_password_is_shown_in_the_dialog_which_stays_open(
    server, memory_keyring, engine, page
):
    dialog = page.imap_dialog()
    dialog.show()
    dialog.host.setText(server.host)
    dialog.security.setCurrentIndex(2)  # none: the test server speaks plain IMAP
    assert dialog.port.value() == 143
    dialog.port.setValue(server.port)
    dialog.username.setText(USER)
    dialog.password.setText("wrong")

    error = await page.submit_imap(dialog)

    assert error is not None and "sign-in failed" in error
    assert dialog.isVisible() and dialog.error() == error
    assert dialog.ok_button.isEnabled() and dialog.body.isEnabled()
    assert engine.settings.accounts == []
    assert Settings.load(engine.workspace.settings_file).accounts == []
    assert memory_keyring.secrets == {}

    dialog.password.setText(PASSWORD)
    assert await page.submit_imap(dialog) is None
    assert not dialog.isVisible()
    assert [a.key for a in engine.settings.accounts] == [f"imap:{USER}@{server.host}"]


async def test_an_incomplete_imap_form_is_refused_before_connecting(engine, page):
    error = await page.connect_imap_with("imap.example", 993, "carol", "")
    assert error == "Enter the server, the user name and the password."
    assert engine.settings.accounts == []


async def test_signing_in_again_to_imap_prefills_the_dialog(engine, page):
    config = imap_config("imap.example", 1143, "carol", ssl=False, starttls=True)
    config.options["folders"] = ["INBOX", "Work"]
    dialog = page.imap_dialog(config)
    values = dialog.values()
    assert values == {
        "host": "imap.example",
        "port": 1143,
        "username": "carol",
        "password": "",
        "ssl": False,
        "folders": "INBOX, Work",
        "starttls": True,
    }


@pytest.mark.parametrize("preset", mail_providers(), ids=lambda p: p.name)
async def test_each_provider_fills_the_server_and_says_where_to_make_the_password(
    engine, page, preset
):
    dialog = page.imap_dialog()
    dialog.username.setText("kim@brightwave.test")
    dialog.choose_provider(preset.name)
    assert dialog.chosen_provider() == preset
    values = dialog.values()
    assert (values["host"], values["port"], values["ssl"], values["starttls"]) == (
        preset.host,
        preset.port,
        preset.ssl,
        preset.starttls,
    )
    assert values["username"] == "kim@brightwave.test"  # what the user typed stays
    assert dialog.provider_help.isVisibleTo(dialog)
    shown = dialog.provider_help.text()
    assert html.escape(preset.password) in shown
    assert preset.link is None or f'href="{preset.link}"' in shown


async def test_the_address_suggests_its_provider_and_a_typed_server_is_other(engine, page):
    dialog = page.imap_dialog()
    assert dialog.chosen_provider() is None and dialog.provider_help.isHidden()
    dialog.username.setText("anna.berg@gmail.com")
    dialog.username.editingFinished.emit()
    assert dialog.chosen_provider() is not None and dialog.chosen_provider().name == "Gmail"
    assert dialog.values()["host"] == "imap.gmail.com"
    dialog.host.clear()
    dialog.host.textEdited.emit("mail.brightwave.test")  # the user's own server
    dialog.host.setText("mail.brightwave.test")
    dialog.port.setValue(143)
    dialog.security.setCurrentIndex(1)
    assert dialog.chosen_provider() is None and dialog.provider_help.isHidden()
    assert dialog.values() == {
        "host": "mail.brightwave.test",
        "port": 143,
        "username": "anna.berg@gmail.com",
        "password": "",
        "ssl": False,
        "folders": "INBOX",
        "starttls": True,
    }
    dialog.username.editingFinished.emit()  # a server is typed: no suggestion over it
    assert dialog.chosen_provider() is None


async def test_signing_in_again_names_the_provider_of_the_saved_server(engine, page):
    dialog = page.imap_dialog(imap_config("imap.fastmail.com", 993, "kim@fastmail.com"))
    assert dialog.chosen_provider() is not None
    assert dialog.chosen_provider().name == "Fastmail"
    assert dialog.values()["host"] == "imap.fastmail.com"


async def test_disconnect_removes_the_account_and_its_password(
    server, memory_keyring, engine, page
):
    assert await page.connect_imap_with(server.host, server.port, USER, PASSWORD, ssl=False) is None
    key = f"imap:{USER}@{server.host}"
    question = page.disconnect_question(key)
    assert question.text() == f"Disconnect Email (IMAP) — {USER}@{server.host}?"

    assert await page.disconnect_account(key) is None

    assert engine.settings.accounts == []
    assert Settings.load(engine.workspace.settings_file).accounts == []
    assert secrets.get_secret(secret_name(USER, server.host)) is None
    assert engine.sources.active_keys() == []
    assert page.rows() == []


# --- Google -----------------------------------------------------------------------------


async def test_google_sign_in_adds_gmail_and_calendar(
    engine, page, started, opened, monkeypatch, tmp_path
):
    client = tmp_path / "client_secret_123.json"
    monkeypatch.setattr(google_auth, "sign_in", fake_sign_in(ANNA))
    dialog = page.google_dialog(str(client))
    dialog.show()

    assert await page.submit_google(dialog) is None

    assert not dialog.isVisible()
    assert opened == ["https://accounts.google.com/o/oauth2/auth?client=client_secret_123.json"]
    assert [a.key for a in engine.settings.accounts] == [f"gmail:{ANNA}", f"gcal:{ANNA}"]
    assert [c.key for c in started] == [f"gmail:{ANNA}", f"gcal:{ANNA}"]
    assert engine.settings.accounts[0].options == {"client_file": str(client)}
    assert [row[0] for row in page.rows()] == [f"Gmail — {ANNA}", f"Google Calendar — {ANNA}"]
    assert page.google_dialog().path() == str(client)  # remembered for signing in again


async def test_a_failed_google_sign_in_is_shown_inline(engine, page, started, monkeypatch):
    monkeypatch.setattr(
        google_auth, "sign_in", fake_sign_in(error="Google sign-in timed out: the browser never")
    )
    dialog = page.google_dialog("/tmp/client_secret.json")
    dialog.show()

    error = await page.submit_google(dialog)

    assert error == "Google sign-in timed out: the browser never"
    assert dialog.isVisible() and dialog.error() == error
    assert engine.settings.accounts == [] and started == []
    assert await page.connect_google_with("  ") == "Choose the OAuth client file first."


async def test_disconnecting_google_removes_mail_calendar_and_sign_in(memory_keyring, engine, page):
    other = AccountConfig(kind="gmail", account="bob@gmail.com")
    seed(engine, gmail(), gcal(), other)
    secrets.set_secret(google_auth.secret_name(ANNA), "{}")
    secrets.set_secret(google_auth.secret_name("bob@gmail.com"), "{}")
    assert "Gmail and Calendar" in page.disconnect_question(gcal().key).text()

    assert await page.disconnect_account(gcal().key) is None

    assert engine.settings.accounts == [other]
    assert secrets.get_secret(google_auth.secret_name(ANNA)) is None
    assert secrets.get_secret(google_auth.secret_name("bob@gmail.com")) == "{}"


# --- WhatsApp ---------------------------------------------------------------------------


async def test_whatsapp_exports_add_the_folder(engine, page, tmp_path):
    folder = tmp_path / "exports"
    dialog = page.export_dialog()
    dialog.show()
    dialog.folder.setText(str(folder))
    dialog.user_name.setText("Anna Berg")
    assert await page.submit_export(dialog) == f"{folder} is not a folder."
    assert dialog.isVisible()

    folder.mkdir()
    assert await page.add_whatsapp_export(folder, " ") == (
        "Enter your name as WhatsApp shows it, so your own messages are skipped."
    )
    assert await page.submit_export(dialog) is None

    assert not dialog.isVisible()
    assert engine.settings.accounts == [
        AccountConfig(
            kind="whatsapp-export", account=str(folder), options={"user_name": "Anna Berg"}
        )
    ]
    (state,) = states(engine.settings.accounts)
    assert state.config.key == f"whatsapp-export:{folder}"


async def test_live_whatsapp_connects_only_after_the_warning_is_accepted(
    engine, page, started, tasks
):
    page.confirm_whatsapp_live()
    (box,) = page.findChildren(UnofficialWarningBox)
    assert box.informativeText() == UNOFFICIAL_WARNING
    assert box.connect_button.text() == "I understand, connect"
    box.cancel_button.click()
    assert tasks == [] and engine.settings.accounts == []

    page.confirm_whatsapp_live()
    box = next(b for b in page.findChildren(UnofficialWarningBox) if b.isVisible())
    box.connect_button.click()
    await asyncio.gather(*tasks)

    (config,) = engine.settings.accounts
    assert config.key == "whatsapp-live:default"
    assert config.options["accepted_unofficial_warning"] is True
    assert config.options["session_db"] == str(engine.workspace.root / "whatsapp" / "session.db")
    assert started == [config]
    assert page.rows() == [("WhatsApp (live)", "not synced yet", "Never synced")]


@pytest.mark.parametrize(
    ("button", "module", "hint"),
    [
        ("google_button", "googleapiclient", "Google accounts need: pip install -e '.[google]'"),
        ("live_button", "neonize", "WhatsApp live needs: pip install -e '.[whatsapp]'"),
    ],
)
async def test_a_missing_extra_is_named_instead_of_connecting(
    engine, page, monkeypatch, button, module, hint
):
    monkeypatch.setitem(sys.modules, module, None)  # as if the extra were not installed
    getattr(page, button).click()
    assert page.message.text() == hint and not page.message.isHidden()
    assert page.findChildren(QtWidgets.QDialog) == []
    assert engine.settings.accounts == []


async def test_live_whatsapp_without_its_extra_says_which_to_install(
    engine, page, started, monkeypatch
):
    monkeypatch.setitem(sys.modules, "neonize", None)  # as if the extra were not installed
    error = await page.accept_whatsapp_live()
    assert error == "WhatsApp live needs: pip install -e '.[whatsapp]'"
    assert page.message.text() == error
    assert engine.settings.accounts == [] and started == []


async def test_the_pairing_qr_code_is_shown_and_updated_in_one_window(engine, page):
    payload = "2@Q0hBTkdFTUU=,aGVsbG8gd29ybGQ=,d2hhdHNhcHA=,dGlj"
    dialog = page.show_qr(payload)
    pixmap = dialog.pixmap()
    assert not pixmap.isNull() and pixmap.width() == pixmap.height() >= 200
    assert dialog.isVisible()

    seen: list[WhatsAppQrCode] = []
    engine.bus.subscribe(lambda ev: seen.append(ev) if isinstance(ev, WhatsAppQrCode) else None)
    bridge = EngineBridge(engine.bus)
    bridge.whatsAppQrCode.connect(DesktopApp.show_whatsapp_qr)  # as the app wires it
    try:
        engine._qr(payload + "x")  # the WhatsApp source asks again: a later code
    finally:
        bridge.detach()
    assert seen == [WhatsAppQrCode(payload + "x")]
    assert page.qr.dialog is dialog  # the same window, a new picture
    assert dialog.pixmap().toImage() != pixmap.toImage()


def test_qr_image_has_a_white_quiet_zone_around_a_dark_finder():
    image = qr_image("hello", module_pixels=4, border=4)
    assert image.width() == image.height() == (21 + 8) * 4
    white, black = QtGui.QColor("white").rgb(), QtGui.QColor("black").rgb()
    assert image.pixel(0, 0) == white and image.pixel(15, 15) == white
    assert image.pixel(16, 16) == black  # the top-left finder pattern starts after the zone


# --- in the Settings dialog -------------------------------------------------------------


async def test_the_page_is_the_settings_accounts_tab(engine, qtbot):
    page = AccountsPage(engine, lambda coro, name: asyncio.ensure_future(coro))
    dialog = SettingsDialog(engine.settings, accounts_page=page)
    qtbot.addWidget(dialog)  # the dialog owns the page now
    assert dialog.tabs.tabText(dialog.tabs.indexOf(page)) == "Accounts"
