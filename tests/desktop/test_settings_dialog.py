"""The Settings dialog and the XDG autostart entry it drives."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import configparser
import sys
from pathlib import Path

import pytest

from desktop.qt import QtCore, QtGui, QtWidgets
from desktop.settings.dialog import SettingsDialog
from desktop.system import autostart, xdg
from engine.settings import Settings

CHECK_TIMEOUT_MS = 3000


@pytest.fixture
def make_dialog(qtbot):
    def make(settings: Settings | None = None, **kwargs) -> SettingsDialog:
        dialog = SettingsDialog(settings or Settings(), **kwargs)
        qtbot.addWidget(dialog)
        return dialog

    return make


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "my models" / "tiny.gguf"
    path.parent.mkdir()
    path.write_bytes(b"GGUF" + bytes(64))
    return path


def _set_model(qtbot, dialog: SettingsDialog, path: str | Path) -> str | None:
    """Set the model path and wait for its (off-thread) check; return the error."""
    with qtbot.waitSignal(dialog.model_page.checked, timeout=CHECK_TIMEOUT_MS) as blocker:
        dialog.model_page.set_path(path)
    return blocker.args[0]


def _press_ok(qtbot, dialog: SettingsDialog) -> None:
    """Accept and let the model check that OK triggers finish."""
    if dialog.model_page.path() is None:
        dialog.accept()
        return
    with qtbot.waitSignal(dialog.model_page.checked, timeout=CHECK_TIMEOUT_MS):
        dialog.accept()


# --- loading and editing ---------------------------------------------------------------


def test_values_load_from_settings(make_dialog, gguf):
    settings = Settings(
        tick_interval_minutes=42,
        start_on_login=True,
        model_path=str(gguf),
        quiet_hours_start="23:15",
        quiet_hours_end="06:45",
    )
    dialog = make_dialog(settings)
    assert dialog.general_page.tick_interval.value() == 42
    assert dialog.general_page.tick_interval.minimum() == 1
    assert dialog.general_page.tick_interval.maximum() == 1440
    if autostart.unsupported_reason() is None:
        assert dialog.general_page.start_on_login.isChecked()
    assert dialog.model_page.path_edit.text() == str(gguf)
    notes = dialog.notifications_page
    assert notes.quiet_enabled.isChecked()
    assert notes.quiet_from.time() == QtCore.QTime(23, 15)
    assert notes.quiet_to.time() == QtCore.QTime(6, 45)
    assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())] == [
        "General",
        "Model",
        "Notifications",
    ]


def test_unchanged_dialog_returns_equal_settings(make_dialog):
    settings = Settings(tick_interval_minutes=30, batch_size=7)
    dialog = make_dialog(settings)
    assert dialog.result_settings() == settings
    assert dialog.result_settings() is not settings


def test_edits_produce_new_settings_on_ok(qtbot, make_dialog):
    original = Settings(batch_size=9)
    dialog = make_dialog(original)
    dialog.general_page.tick_interval.setValue(5)
    dialog.general_page.start_on_login.setChecked(True)
    with qtbot.waitSignal(dialog.settingsAccepted, timeout=CHECK_TIMEOUT_MS) as blocker:
        qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    result = blocker.args[0]
    assert isinstance(result, Settings)
    assert result.tick_interval_minutes == 5
    assert result.start_on_login is True
    assert result.batch_size == 9  # settings the dialog does not show are kept
    assert original.tick_interval_minutes == 15  # the input is not mutated
    assert dialog.result() == QtWidgets.QDialog.DialogCode.Accepted


def test_cancel_emits_nothing(qtbot, make_dialog):
    dialog = make_dialog()
    dialog.general_page.tick_interval.setValue(99)
    with qtbot.assertNotEmitted(dialog.settingsAccepted):
        dialog.reject()
    assert dialog.result() == QtWidgets.QDialog.DialogCode.Rejected


# --- model file ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("missing.gguf", None, "model file not found"),
        ("notes.gguf", b"this is not a model", "not a GGUF model file"),
    ],
)
def test_bad_model_file_shows_error_and_ok_is_refused(
    qtbot, make_dialog, tmp_path, name, content, expected
):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    dialog = make_dialog()
    error = _set_model(qtbot, dialog, path)
    assert error is not None and expected in error
    message = dialog.model_page.message
    assert expected in message.text()
    assert not message.isHidden()
    assert "c62828" in message.styleSheet()  # red
    assert not dialog.ok_button.isEnabled()
    assert not dialog.tabs.tabIcon(dialog.tabs.indexOf(dialog.model_page)).isNull()

    with qtbot.assertNotEmitted(dialog.settingsAccepted, wait=50):
        _press_ok(qtbot, dialog)
    assert dialog.result() != QtWidgets.QDialog.DialogCode.Accepted


def test_gguf_file_is_accepted(qtbot, make_dialog, gguf):
    dialog = make_dialog()
    assert _set_model(qtbot, dialog, gguf) is None
    assert dialog.ok_button.isEnabled()
    assert "c62828" not in dialog.model_page.message.styleSheet()
    with qtbot.waitSignal(dialog.settingsAccepted, timeout=CHECK_TIMEOUT_MS) as blocker:
        dialog.accept()
    assert blocker.args[0].model_path == str(gguf)


def test_model_file_is_checked_again_on_ok(qtbot, make_dialog, gguf):
    dialog = make_dialog()
    assert _set_model(qtbot, dialog, gguf) is None
    gguf.unlink()  # gone between choosing it and pressing OK
    with qtbot.assertNotEmitted(dialog.settingsAccepted, wait=50):
        _press_ok(qtbot, dialog)
    assert "model file not found" in dialog.model_page.message.text()
    assert not dialog.ok_button.isEnabled()


def test_fixing_the_path_enables_ok_again(qtbot, make_dialog, tmp_path, gguf):
    dialog = make_dialog()
    assert _set_model(qtbot, dialog, tmp_path / "nope.gguf") is not None
    assert not dialog.ok_button.isEnabled()
    assert _set_model(qtbot, dialog, gguf) is None
    assert dialog.ok_button.isEnabled()


def test_invalid_model_in_settings_is_reported_when_opened(qtbot, make_dialog, tmp_path):
    dialog = make_dialog(Settings(model_path=str(tmp_path / "gone.gguf")))
    qtbot.waitUntil(lambda: dialog.model_page.state == "invalid", timeout=CHECK_TIMEOUT_MS)
    assert not dialog.ok_button.isEnabled()


def test_choose_button_uses_file_dialog(qtbot, make_dialog, gguf, monkeypatch):
    calls: list[tuple] = []

    def fake_open(*args):
        calls.append(args)
        return str(gguf), "GGUF models (*.gguf)"

    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", staticmethod(fake_open))
    dialog = make_dialog()
    with qtbot.waitSignal(dialog.model_page.checked, timeout=CHECK_TIMEOUT_MS) as blocker:
        qtbot.mouseClick(dialog.model_page.choose_button, QtCore.Qt.MouseButton.LeftButton)
    assert blocker.args == [None]
    assert "*.gguf" in calls[0][3]
    assert dialog.result_settings().model_path == str(gguf)


def test_cancelled_file_dialog_changes_nothing(qtbot, make_dialog, gguf, monkeypatch):
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", staticmethod(lambda *a: ("", "")))
    dialog = make_dialog(Settings(model_path=str(gguf)))
    qtbot.mouseClick(dialog.model_page.choose_button, QtCore.Qt.MouseButton.LeftButton)
    assert dialog.result_settings().model_path == str(gguf)


def test_use_embedded_clears_model_path(qtbot, make_dialog, tmp_path):
    dialog = make_dialog(Settings(model_path=str(tmp_path / "broken.gguf")))
    qtbot.waitUntil(lambda: dialog.model_page.state == "invalid", timeout=CHECK_TIMEOUT_MS)
    qtbot.mouseClick(dialog.model_page.embedded_button, QtCore.Qt.MouseButton.LeftButton)
    assert dialog.model_page.path_edit.text() == ""
    assert dialog.model_page.message.isHidden()
    assert dialog.ok_button.isEnabled()
    with qtbot.waitSignal(dialog.settingsAccepted, timeout=CHECK_TIMEOUT_MS) as blocker:
        dialog.accept()
    assert blocker.args[0].model_path is None


def test_typing_a_path_is_checked_when_editing_finishes(qtbot, make_dialog, tmp_path):
    dialog = make_dialog()
    edit = dialog.model_page.path_edit
    edit.setText(str(tmp_path / "typed.gguf"))
    edit.textEdited.emit(edit.text())
    with qtbot.waitSignal(dialog.model_page.checked, timeout=CHECK_TIMEOUT_MS) as blocker:
        edit.editingFinished.emit()
    assert "model file not found" in blocker.args[0]


def test_stale_check_result_is_ignored(qtbot, make_dialog, tmp_path, gguf):
    dialog = make_dialog()
    page = dialog.model_page
    page.set_path(tmp_path / "missing.gguf")  # its check is superseded at once
    with qtbot.waitSignal(page.checked, timeout=CHECK_TIMEOUT_MS) as blocker:
        page.set_path(gguf)
    assert blocker.args == [None]
    qtbot.wait(50)
    assert page.state == "valid"


# --- quiet hours ---------------------------------------------------------------------


@pytest.mark.parametrize(("start", "end"), [("09:30", "17:00"), ("22:00", "07:00")])
def test_quiet_hours_round_trip(make_dialog, start, end):
    dialog = make_dialog(Settings(quiet_hours_start=start, quiet_hours_end=end))
    result = dialog.result_settings()
    assert (result.quiet_hours_start, result.quiet_hours_end) == (start, end)
    again = make_dialog(result).result_settings()
    assert (again.quiet_hours_start, again.quiet_hours_end) == (start, end)


def test_quiet_hours_wrapping_midnight_from_edits(make_dialog):
    dialog = make_dialog()
    notes = dialog.notifications_page
    assert not notes.quiet_enabled.isChecked()
    assert not notes.quiet_from.isEnabled()
    notes.quiet_enabled.setChecked(True)
    assert notes.quiet_from.isEnabled()
    notes.quiet_from.setTime(QtCore.QTime(23, 30))
    notes.quiet_to.setTime(QtCore.QTime(6, 0))
    assert "next morning" in notes.summary.text()
    result = dialog.result_settings()
    assert (result.quiet_hours_start, result.quiet_hours_end) == ("23:30", "06:00")
    Settings.model_validate(result.model_dump())  # the values pass the settings' pattern


def test_disabled_quiet_hours_are_none(make_dialog):
    dialog = make_dialog(Settings(quiet_hours_start="22:00", quiet_hours_end="07:00"))
    dialog.notifications_page.quiet_enabled.setChecked(False)
    result = dialog.result_settings()
    assert result.quiet_hours_start is None
    assert result.quiet_hours_end is None


def test_equal_quiet_hours_refuse_ok(qtbot, make_dialog):
    dialog = make_dialog()
    notes = dialog.notifications_page
    notes.quiet_enabled.setChecked(True)
    notes.quiet_from.setTime(QtCore.QTime(8, 0))
    notes.quiet_to.setTime(QtCore.QTime(8, 0))
    assert not dialog.ok_button.isEnabled()
    assert not notes.message.isHidden()
    with qtbot.assertNotEmitted(dialog.settingsAccepted):
        dialog.accept()
    notes.quiet_enabled.setChecked(False)
    assert dialog.ok_button.isEnabled()


# --- the rules file ------------------------------------------------------------------


class Opened(list):
    """The URLs handed to the desktop to open, and what the desktop answers."""

    answer = True


@pytest.fixture
def opened(monkeypatch) -> Opened:
    """What the dialog hands to the desktop to open (nothing really opens)."""
    urls = Opened()

    def open_url(url: QtCore.QUrl) -> bool:
        urls.append(url)
        return urls.answer

    monkeypatch.setattr(QtGui.QDesktopServices, "openUrl", open_url)
    return urls


def test_edit_notification_rules_opens_the_file_in_the_users_editor(
    make_dialog, workspace, opened, qtbot
):
    dialog = make_dialog(rules_file=workspace.rules_file)
    notes = dialog.notifications_page
    assert notes.edit_rules_button.text() == "Edit notification rules…"
    qtbot.mouseClick(notes.edit_rules_button, QtCore.Qt.MouseButton.LeftButton)
    assert [url.toLocalFile() for url in opened] == [str(workspace.rules_file)]
    assert notes.rules_message.isHidden()


def test_when_no_app_opens_the_rules_the_dialog_says_where_they_are(
    make_dialog, workspace, opened, qtbot
):
    opened.answer = False
    dialog = make_dialog(rules_file=workspace.rules_file)
    notes = dialog.notifications_page
    notes.edit_rules()
    assert not notes.rules_message.isHidden()
    text = notes.rules_message.text()
    assert "\n" not in text and text.endswith(str(workspace.rules_file))


def test_a_missing_rules_file_is_named(make_dialog, tmp_path, opened):
    dialog = make_dialog(rules_file=tmp_path / "gone.md")
    dialog.notifications_page.edit_rules()
    assert opened == []
    assert dialog.notifications_page.rules_message.text() == (
        f"The rules file is missing: {tmp_path / 'gone.md'}"
    )


def test_without_a_rules_file_there_is_no_button(make_dialog):
    assert not hasattr(make_dialog().notifications_page, "edit_rules_button")


# --- accounts ------------------------------------------------------------------------


def test_no_accounts_tab_without_an_accounts_page(make_dialog):
    dialog = make_dialog()
    assert dialog.accounts_page is None
    assert "Accounts" not in [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]


def test_accounts_page_is_used_when_given(qtbot, make_dialog):
    page = QtWidgets.QLabel("my accounts")
    dialog = make_dialog(accounts_page=page)
    assert dialog.tabs.widget(dialog.tabs.indexOf(page)) is page
    assert dialog.tabs.tabText(dialog.tabs.indexOf(page)) == "Accounts"


# --- autostart -----------------------------------------------------------------------

linux_only = pytest.mark.skipif(
    autostart.unsupported_reason() is not None, reason="XDG autostart is Linux/BSD only"
)


def _read_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def _parse_exec(value: str) -> list[str]:
    """Decode an Exec value as the Desktop Entry spec says: key-file string escapes first,
    then arguments split on spaces, double quotes grouping, backslash escaping inside them."""
    escapes = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    text, i = "", 0
    while i < len(value):
        if value[i] == "\\":
            text += escapes[value[i + 1]]
            i += 2
        else:
            text += value[i]
            i += 1
    args: list[str] = []
    current: str | None = None
    quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                assert text[i + 1] in '"`$\\', f"bad escape in {text!r}"
                current = (current or "") + text[i + 1]
                i += 1
            elif ch == '"':
                quoted = False
            else:
                current = (current or "") + ch
        elif ch == '"':
            quoted, current = True, current or ""
        elif ch == " ":
            if current is not None:
                args.append(current)
            current = None
        else:
            assert ch not in xdg.RESERVED, f"unquoted reserved {ch!r} in {text!r}"
            current = (current or "") + ch
        i += 1
    assert not quoted, f"unterminated quote in {text!r}"
    if current is not None:
        args.append(current)
    return [arg.replace("%%", "%") for arg in args]


@pytest.fixture
def xdg_config(tmp_path, monkeypatch) -> Path:
    config = tmp_path / "xdg config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    return config


def test_autostart_path_follows_xdg_config_home(xdg_config):
    assert autostart.autostart_path() == xdg_config / "autostart" / "tic-desktop.desktop"


def test_autostart_path_defaults_to_dot_config(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert autostart.autostart_path() == tmp_path / ".config" / "autostart" / "tic-desktop.desktop"


@linux_only
def test_autostart_writes_and_removes_entry(xdg_config):
    command = ["/opt/My Apps/tic env/bin/python", "-m", "desktop"]
    assert not autostart.is_start_on_login()
    autostart.set_start_on_login(True, command)
    path = autostart.autostart_path()
    assert path.is_file()
    assert autostart.is_start_on_login()

    entry = _read_entry(path)
    assert entry["Type"] == "Application"
    assert entry["Name"] == "TIC Desktop"
    assert entry["Comment"]
    assert entry["Terminal"] == "false"
    assert entry["X-GNOME-Autostart-enabled"] == "true"
    assert entry["Exec"] == '"/opt/My Apps/tic env/bin/python" -m desktop'
    assert _parse_exec(entry["Exec"]) == command

    autostart.set_start_on_login(False, command)
    assert not path.exists()
    assert not autostart.is_start_on_login()
    autostart.set_start_on_login(False, command)  # removing twice is fine


@linux_only
def test_autostart_exec_quotes_special_characters(xdg_config):
    command = ['/home/a "b"/$HOME/py\\thon', "--label", "50%", "it's", "", "tab\there"]
    autostart.set_start_on_login(True, command)
    value = _read_entry(autostart.autostart_path())["Exec"]
    assert value == (
        r'"/home/a \\"b\\"/\\$HOME/py\\\\thon" --label 50%% "it' + "'" + r's" "" "tab\there"'
    )
    assert _parse_exec(value) == command


@linux_only
def test_autostart_disabled_entry_is_not_active(xdg_config):
    autostart.set_start_on_login(True, ["tic-desktop"])
    path = autostart.autostart_path()
    path.write_text(path.read_text().replace("enabled=true", "enabled=false"))
    assert not autostart.is_start_on_login()


def test_autostart_unsupported_platform_raises_clear_error(monkeypatch, xdg_config):
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(NotImplementedError, match="not supported on macOS"):
        autostart.set_start_on_login(True, ["tic"])
    autostart.set_start_on_login(False, ["tic"])  # nothing to remove: no error
    assert not autostart.is_start_on_login()
    assert not (xdg_config / "autostart").exists()


def test_dialog_disables_start_on_login_where_unsupported(monkeypatch, make_dialog):
    monkeypatch.setattr(sys, "platform", "win32")
    dialog = make_dialog()
    checkbox = dialog.general_page.start_on_login
    assert not checkbox.isEnabled()
    assert "Windows" in checkbox.toolTip()


# --- what the model is trusted with -------------------------------------------------------------


def test_the_capability_choice_says_what_automatic_means(make_dialog):
    dialog = make_dialog(model_label="SmolLM2-135M · small built-in model")
    combo = dialog.model_page.capability
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "Automatic (SmolLM2-135M · small built-in model)",
        "Small model: compose replies from the facts",
        "Capable model: let it write",
    ]
    assert combo.currentData() == "auto"
    combo.setCurrentIndex(combo.findData("capable"))
    assert dialog.result_settings().model_capability == "capable"


def test_the_capability_setting_is_shown_as_saved(make_dialog):
    dialog = make_dialog(Settings(model_capability="tiny"))
    assert dialog.model_page.capability.currentData() == "tiny"
    assert dialog.result_settings().model_capability == "tiny"


def test_keeping_the_model_in_memory_is_a_setting(make_dialog):
    dialog = make_dialog(Settings())
    box = dialog.model_page.keep_loaded
    assert box.isChecked() and dialog.result_settings().keep_model_loaded is True
    box.setChecked(False)
    assert dialog.result_settings().keep_model_loaded is False
    assert not make_dialog(Settings(keep_model_loaded=False)).model_page.keep_loaded.isChecked()


def test_choosing_a_model_file_says_what_it_is(qtbot, make_dialog, gguf):
    dialog = make_dialog(model_label="SmolLM2-135M · small built-in model")
    assert _set_model(qtbot, dialog, gguf) is None
    combo = dialog.model_page.capability
    assert combo.itemText(0) == "Automatic (tiny · small model)"  # a few bytes: small
    dialog.model_page.use_embedded()
    assert combo.itemText(0) == "Automatic (SmolLM2-135M · small built-in model)"
