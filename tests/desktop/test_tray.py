"""Tray logic: state icons and tooltips, the menu's actions, pausing."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from datetime import datetime, timedelta

from desktop.tray import TrayController, tomorrow_morning, until_text


def actions(tray: TrayController) -> dict[str, object]:
    found = {}
    for action in tray.menu.actions():
        if action.menu():
            for sub in action.menu().actions():
                found[sub.text()] = sub
        found[action.text()] = action
    return found


def test_states_show_in_the_tooltip(qtbot):
    tray = TrayController()
    assert tray.tooltip() == "TIC — all quiet"
    tray.set_state("checking")
    assert "checking" in tray.tooltip()
    tray.set_state("error", "model file not found: /m.gguf")
    assert tray.tooltip() == "TIC — model file not found: /m.gguf"
    tray.set_state("unread")
    assert tray.error is None and "new notification" in tray.tooltip()
    tray.set_state("idle")
    tray.set_paused(True)
    assert tray.tooltip() == "TIC — notifications paused until you turn them back on"
    assert actions(tray)["Turn notifications back on"].isEnabled()


def test_a_failure_line_goes_at_the_next_check_or_success(qtbot):
    tray = TrayController()
    failed = "SmolLM2 135M: download failed: no internet connection"
    tray.set_activity(failed, passing=True)
    assert tray.tooltip() == f"TIC — all quiet\n{failed}"
    tray.set_state("unread")  # not a new check: the failure still stands
    assert failed in tray.tooltip()
    tray.set_state("checking")
    assert tray.activity is None and failed not in tray.tooltip()
    tray.set_activity(failed, passing=True)
    tray.end_passing()
    assert tray.activity is None
    tray.set_activity("Downloading SmolLM2 135M: 5 %")  # not a failure: it stays
    tray.set_state("checking")
    tray.end_passing()
    assert tray.activity == "Downloading SmolLM2 135M: 5 %"


def test_the_paused_tooltip_says_until_when(qtbot):
    tray = TrayController()
    soon = datetime.now().astimezone() + timedelta(minutes=5)
    tray.set_paused(True, soon)
    assert tray.tooltip() == f"TIC — notifications paused {until_text(soon)}"
    assert until_text(soon).startswith("until ")
    tray.set_paused(False)
    assert tray.tooltip() == "TIC — all quiet" and tray.paused_until is None


def test_until_text():
    now = datetime.fromisoformat("2026-11-10T21:00:00").astimezone()
    assert until_text(None, now) == "until you turn them back on"
    assert until_text(now.replace(hour=22, minute=30), now) == "until 22:30"
    assert until_text(tomorrow_morning(now, 9), now) == "until 09:00 tomorrow"
    later = (now + timedelta(days=3)).replace(hour=9, minute=0)
    assert until_text(later, now) == f"until {later:%a} 13 Nov, 09:00"


def test_menu_actions_emit_their_signals(qtbot):
    tray = TrayController()
    menu = actions(tray)
    for label, signal in (
        ("Open chat", tray.openChat),
        ("Check now", tray.checkNow),
        ("Settings…", tray.openSettings),
        ("Edit notification rules…", tray.editRules),
        ("Quit", tray.quitRequested),
    ):
        with qtbot.waitSignal(signal, timeout=1000):
            menu[label].trigger()
    with qtbot.waitSignal(tray.pauseRequested, timeout=1000) as paused:
        menu["For 1 hour"].trigger()
    assert paused.args[0] > datetime.now().astimezone()
    with qtbot.waitSignal(tray.pauseRequested, timeout=1000) as forever:
        menu["Until I turn them back on"].trigger()
    assert forever.args == [None]


def test_clicking_the_icon_opens_the_chat(qtbot):
    tray = TrayController()
    with qtbot.waitSignal(tray.openChat, timeout=1000) as opened:
        tray.icon.activated.emit(tray.icon.ActivationReason.Trigger)
    assert opened.signal_triggered


def test_tomorrow_morning():
    evening = datetime.fromisoformat("2026-11-10T21:00:00").astimezone()
    assert tomorrow_morning(evening).date() > evening.date()
    assert tomorrow_morning(evening).hour == 8
    early = datetime.fromisoformat("2026-11-10T03:00:00").astimezone()
    assert tomorrow_morning(early).date() == early.date()
