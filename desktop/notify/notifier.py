"""Toasts for the main agent's replies: native (D-Bus) first, the tray balloon next, else none.

``toast_for`` turns a finished reply into a :class:`Toast` (who/what in the title, the agent's
wording in the body). :class:`Notifier` shows it through the best channel available and turns
the user's clicks into signals: ``openRequested(message_id)`` ("Open": the message in its own
place), ``laterRequested(message_id)`` ("Remind me in 1 hour") and
``muteRequested(message_id)`` ("Don't notify me about this"). While notifications are paused
or within quiet hours, toasts are held, except reminders the user set themselves (a setting,
on by default); when the hold ends, one "While you were away" summary toast names what was
held ("2 reminders: Call Mario, Pay rent; 5 messages from Anna"). The chat window has every
message regardless.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import re
import time as monotonic_time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from datetime import datetime, time
from email.utils import parseaddr
from functools import partial
from pathlib import Path
from typing import Any

from desktop_notifier import Button, DesktopNotifier, Icon

from desktop.qt import Qt, QtCore, QtWidgets, Signal, Slot
from engine.bus import DeliveredNotification, ReplyFinished
from engine.clock import in_window
from engine.engine import AGAIN, SOURCE_LABELS
from engine.tasks import TaskSet

log = logging.getLogger(__name__)

BODY_LIMIT = 200
CALENDAR_TITLE_LIMIT = 60
SUMMARY_LINES = 4
OPEN_ACTION = "open"
LATER_ACTION = "later"
MUTE_ACTION = "mute"
OPEN_LABEL = "Open"
LATER_LABEL = "Remind me in 1 hour"
MUTE_LABEL = "Don't notify me about this"
REMINDER_TITLE_LIMIT = 60
NATIVE_TIMEOUT_S = 5.0
NATIVE_RETRY_S = 60.0
TRAY_MESSAGE_MS = 10_000
CHECK_INTERVAL_MS = 60_000
MAX_TIMER_MS = 2**31 - 1


@dataclass
class Toast:
    title: str
    body: str
    message_id: int
    notification_ids: list[int] = field(default_factory=list)
    notes: list[DeliveredNotification] = field(default_factory=list)  # the reply's

    @property
    def reminder(self) -> bool:
        """Only reminders the user set themselves: a reminder, or a "Remind me in 1 hour"."""
        return bool(self.notes) and all(is_reminder(n) for n in self.notes)


# -- wording -------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~).*$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_QUOTE = re.compile(r"^\s*(>\s?)+")
_BULLET = re.compile(r"^\s*[-*+]\s+(\[[ xX]\]\s+)?")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)|\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_CODE = re.compile(r"`+([^`]+?)`+")
_STARS = re.compile(r"(\*{1,3})(?=\S)(.+?)(?<=\S)\1")
_UNDERSCORES = re.compile(r"(?<!\w)(_{1,3})(?=\S)(.+?)(?<=\S)\1(?!\w)")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_SPACES = re.compile(r"[ \t]+")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_HIDDEN = 0xE000  # escaped characters wait in the private-use area while markers go


def _hide_escaped(line: str) -> str:
    return _ESCAPED.sub(lambda m: chr(_HIDDEN + ord(m.group(1))), line)


def _restore_escaped(line: str) -> str:
    return "".join(chr(ord(c) - _HIDDEN) if _HIDDEN <= ord(c) < _HIDDEN + 128 else c for c in line)


def strip_markdown(text: str) -> str:
    """Markdown as plain text: markers and link targets gone, escaped characters shown as
    themselves, one line per non-empty line."""
    lines: list[str] = []
    for raw in text.splitlines():
        if _FENCE.match(raw) or _RULE.match(raw):
            continue
        line = _HEADING.sub(r"\1", _hide_escaped(raw))
        line = _QUOTE.sub("", line)
        line = _BULLET.sub("• ", line)
        line = _IMAGE.sub(r"\1", line)
        line = _LINK.sub(lambda m: m.group(1) or m.group(2), line)
        line = _AUTOLINK.sub(r"\1", line)
        line = _CODE.sub(r"\1", line)
        line = _STRIKE.sub(r"\1", line)
        line = _STARS.sub(r"\2", line)
        line = _UNDERSCORES.sub(r"\2", line)
        line = _restore_escaped(_SPACES.sub(" ", line).strip())
        if line:
            lines.append(line)
    return "\n".join(lines)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters on a word boundary, ending with "…"."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" \n\t,;:.-–—•") + "…"


def _display_name(sender: str) -> str:
    """The name in "Tomas Herrera <tomas@example.com>"; a bare name or address as is."""
    name, address = parseaddr(sender)
    return (name or address or sender).strip() if "<" in sender else sender.strip()


def _label(source: str) -> str:
    return SOURCE_LABELS.get(source, source.replace("_", " ").capitalize() or "Notification")


def is_reminder(notification: DeliveredNotification) -> bool:
    """A reminder the user set themselves (not a scheduled task's result), or a
    notification delivered again on their "Remind me in 1 hour"."""
    return bool(notification.refs.get(AGAIN)) or notification.event_type == "cron.reminder"


def reminder_text(notification: DeliveredNotification) -> str:
    """What a reminder reminds of: "Call Mario" for the reminder "Reminder: Call Mario",
    the message's title for one delivered again."""
    if notification.source != "cron":
        return _plain_title(notification)
    return notification.summary.strip().removeprefix("Reminder:").strip()


def _plain_title(notification: DeliveredNotification) -> str:
    source, sender = notification.source, notification.sender
    if source == "calendar":
        summary = notification.summary.strip()
        return f"Calendar: {shorten(summary, CALENDAR_TITLE_LIMIT)}" if summary else "Calendar"
    if source == "cron":
        text = reminder_text(notification)
        return f"Reminder: {shorten(text, REMINDER_TITLE_LIMIT)}" if text else "Reminder"
    label = _label(source)
    return f"{label} from {_display_name(sender)}" if sender else label


def title_for(notification: DeliveredNotification) -> str:
    """The title for one notification: its source, and who sent it or what it is about (a
    reminder: its text; one delivered again on "later": "Reminder: " and its title)."""
    title = _plain_title(notification)
    if notification.refs.get(AGAIN) and notification.source != "cron":
        return f"Reminder: {title}"
    return title


def toast_for(ev: ReplyFinished) -> Toast:
    """The toast for a finished reply: title from its notifications, body from its text."""
    notes = ev.notifications
    if len(notes) == 1:
        title = title_for(notes[0])
    elif notes:
        labels = dict.fromkeys(_label(n.source) for n in notes)
        title = f"{len(notes)} notifications · {', '.join(labels)}"
    else:
        title = "TIC"
    body = strip_markdown(ev.text)
    if not body:
        body = " ".join(n.summary.strip() for n in notes).strip()
    ids = [n.id for n in notes]
    return Toast(title, shorten(body, BODY_LIMIT), ev.message_id, ids, list(notes))


def reminders_of(toast: Toast) -> Toast | None:
    """The reminders of a toast that also holds other notifications, as a toast of their
    own (worded from their texts: the reply's words cover the rest too); None if none."""
    notes = [n for n in toast.notes if is_reminder(n)]
    if not notes:
        return None
    title = title_for(notes[0]) if len(notes) == 1 else f"{len(notes)} reminders"
    body = "; ".join(reminder_text(n) for n in notes)
    ids = [n.id for n in notes]
    return Toast(title, shorten(body, BODY_LIMIT), toast.message_id, ids, notes)


_KINDS = {"email": ("email", "emails"), "whatsapp": ("message", "messages")}


def _held_group(notification: DeliveredNotification) -> tuple[str, str]:
    """(the group a held notification is counted in, what it adds to the group's list)."""
    source = notification.source
    if is_reminder(notification):
        return "reminder", reminder_text(notification)
    if source == "calendar":
        return "calendar", shorten(notification.summary, CALENDAR_TITLE_LIMIT)
    sender = notification.sender
    who = _display_name(sender) if sender else ""
    return f"{source}\0{who}", ""


def _group_line(key: str, count: int, items: list[str]) -> str:
    named = ", ".join(dict.fromkeys(i for i in items if i))
    if key == "reminder":
        head = f"{count} reminder{'' if count == 1 else 's'}"
        return f"{head}: {named}" if named else head
    if key == "calendar":
        head = f"{count} calendar change{'' if count == 1 else 's'}"
        return f"{head}: {named}" if named else head
    source, who = key.split("\0")
    one, many = _KINDS.get(source, ("notification", "notifications"))
    head = f"{count} {one if count == 1 else many}"
    if source not in _KINDS:
        head += f" ({_label(source)})"
    return f"{head} from {who}" if who else head


def summary_for(held: list[Toast]) -> Toast:
    """One toast standing for everything held, naming what it was ("2 reminders: Call
    Mario, Pay rent; 5 messages from Anna; …"); opens the newest."""
    count = sum(max(1, len(t.notification_ids)) for t in held)
    title = f"While you were away: {count} notification{'' if count == 1 else 's'}"
    groups: dict[str, list[str]] = {}
    for t in held:
        if not t.notes:  # a toast that names no notification: by its title
            groups.setdefault(f"title\0{t.title}", []).append("")
        for n in t.notes:
            key, item = _held_group(n)
            groups.setdefault(key, []).append(item)
    lines = []
    for key, items in groups.items():
        if key.startswith("title\0"):
            name, times = key.split("\0", 1)[1], len(items)
            lines.append(f"{name} (×{times})" if times > 1 else name)
        else:
            lines.append(_group_line(key, len(items), items))
    if len(lines) > SUMMARY_LINES:
        more = len(lines) - SUMMARY_LINES + 1
        lines = [*lines[: SUMMARY_LINES - 1], f"and {more} more"]
    ids = [nid for t in held for nid in t.notification_ids]
    notes = [n for t in held for n in t.notes]
    return Toast(title, shorten("; ".join(lines), BODY_LIMIT), held[-1].message_id, ids, notes)


# -- time ----------------------------------------------------------------------------------


def _local_now() -> datetime:
    return datetime.now().astimezone()


def _aware(moment: datetime) -> datetime:
    """Naive datetimes are local time; everything is compared as aware datetimes."""
    return moment if moment.tzinfo is not None else moment.astimezone()


# -- the notifier --------------------------------------------------------------------------


class Notifier(QtCore.QObject):
    """Shows toasts and reports the user's clicks; holds them while paused or quiet."""

    openRequested = Signal(int)  # message_id: "Open" (the message in its own place)
    laterRequested = Signal(int)  # message_id: "Remind me in 1 hour"
    muteRequested = Signal(int)  # message_id: "Don't notify me about this"
    delivered = Signal(object, str)  # (Toast, channel) for every toast that left the hold

    def __init__(
        self,
        app_name: str = "TIC",
        tray: QtWidgets.QSystemTrayIcon | None = None,
        use_native: bool = True,
        *,
        clock: Callable[[], datetime] = _local_now,
        icon: Path | str | None = None,
        check_interval_ms: int = CHECK_INTERVAL_MS,
        parent: QtCore.QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._app_name = app_name
        self._tray = tray
        self._use_native = use_native
        self._clock = clock
        self._icon = icon
        self._native: DesktopNotifier | None = None
        self._markup = False
        self._native_retry_at = 0.0
        self._native_reported = False
        self._tray_message_id: int | None = None
        self._held: list[Toast] = []
        self._paused = False
        self._paused_until: datetime | None = None
        self._quiet: tuple[time, time] | None = None
        self.reminders_through = True  # reminders the user set come through a pause
        self._tasks = TaskSet(logger=log)
        self._check_timer = QtCore.QTimer(self)
        self._check_timer.setInterval(check_interval_ms)
        self._check_timer.timeout.connect(self._check_release)
        self._pause_timer = QtCore.QTimer(self)
        self._pause_timer.setSingleShot(True)
        self._pause_timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._pause_timer.timeout.connect(self._check_release)
        if tray is not None:
            tray.messageClicked.connect(self._on_tray_message_clicked)

    # -- showing ---------------------------------------------------------------------------

    async def show(self, toast: Toast) -> str:
        """Show ``toast``; returns the channel: "native", "tray", "chat" or "held". Never
        raises. While paused or quiet a toast is held, but with ``reminders_through`` the
        reminders the user set come through (those of a mixed reply as a toast of their
        own, the rest held)."""
        if self._holding(self._now()):
            reminders = reminders_of(toast) if self.reminders_through else None
            if reminders is None:
                self._hold(toast)
                return "held"
            rest = [n for n in toast.notes if not is_reminder(n)]
            if not rest:
                return await self._deliver(toast, can_mute=True)
            ids = [n.id for n in rest]
            self._hold(replace(toast, notes=rest, notification_ids=ids))
            return await self._deliver(reminders, can_mute=True)
        await self.flush_held()
        return await self._deliver(toast, can_mute=True)

    def _hold(self, toast: Toast) -> None:
        self._held.append(toast)
        if not self._check_timer.isActive():
            self._check_timer.start()

    async def flush_held(self) -> str | None:
        """Send the one "While you were away" toast once the hold is over.

        Returns its channel, or None when nothing is held or a pause/quiet hours still hold.
        """
        if not self._held or self._holding(self._now()):
            return None
        held, self._held = self._held, []
        self._check_timer.stop()
        return await self._deliver(summary_for(held), can_mute=False)

    @property
    def held(self) -> list[Toast]:
        return list(self._held)

    async def aclose(self) -> None:
        """Stop timers and pending releases, and close the D-Bus connection."""
        self._check_timer.stop()
        self._pause_timer.stop()
        self._tasks.cancel()
        native, self._native = self._native, None
        if native is not None:
            await _disconnect(native)

    async def _deliver(self, toast: Toast, *, can_mute: bool) -> str:
        if await self._show_native(toast, can_mute):
            channel = "native"
        elif self._show_tray(toast):
            channel = "tray"
        else:
            channel = "chat"
        self.delivered.emit(toast, channel)
        return channel

    async def _show_native(self, toast: Toast, can_mute: bool) -> bool:
        notifier = await self._native_notifier()
        if notifier is None:
            return False
        open_chat = partial(self.openRequested.emit, toast.message_id)
        buttons = [Button(OPEN_LABEL, on_pressed=open_chat, identifier=OPEN_ACTION)]
        if can_mute:
            later = partial(self.laterRequested.emit, toast.message_id)
            mute = partial(self.muteRequested.emit, toast.message_id)
            buttons.append(Button(LATER_LABEL, on_pressed=later, identifier=LATER_ACTION))
            buttons.append(Button(MUTE_LABEL, on_pressed=mute, identifier=MUTE_ACTION))
        dispatched: list[bool] = []
        try:
            await asyncio.wait_for(
                notifier.send(
                    toast.title,
                    html.escape(toast.body, quote=False) if self._markup else toast.body,
                    buttons=buttons,
                    on_clicked=open_chat,
                    on_dispatched=lambda: dispatched.append(True),
                ),
                NATIVE_TIMEOUT_S,
            )
        except Exception as exc:  # the library logs most failures itself and returns
            reason = f"{type(exc).__name__}: {exc}"
        else:
            reason = "the notification server did not take the toast"
        if dispatched:
            self._native_reported = False
            return True
        self._native = None
        await _disconnect(notifier)
        self._native_unavailable(reason)
        return False

    async def _native_notifier(self) -> DesktopNotifier | None:
        """The connected D-Bus notifier, or None (disabled, no server, or retrying later)."""
        if not self._use_native:
            return None
        if self._native is not None:
            return self._native
        if monotonic_time.monotonic() < self._native_retry_at:
            return None
        candidate = DesktopNotifier(self._app_name, app_icon=self._icon_resource())
        try:
            await asyncio.wait_for(candidate.get_capabilities(), NATIVE_TIMEOUT_S)
            self._markup = await _server_has_body_markup(candidate)
        except Exception as exc:  # no bus, no server, a broken server: all mean "not native"
            await _disconnect(candidate)
            self._native_unavailable(f"{type(exc).__name__}: {exc}")
            return None
        self._native = candidate
        return candidate

    def _native_unavailable(self, reason: str) -> None:
        self._native_retry_at = monotonic_time.monotonic() + NATIVE_RETRY_S
        if not self._native_reported:
            self._native_reported = True
            fallback = "the tray" if self._tray is not None else "the chat window only"
            log.info("native notifications unavailable (%s); using %s", reason, fallback)

    def _icon_resource(self) -> Icon | None:
        if isinstance(self._icon, Path):
            return Icon(path=self._icon)
        return Icon(name=self._icon) if self._icon else None

    def _show_tray(self, toast: Toast) -> bool:
        tray = self._tray
        if tray is None or not tray.isVisible():
            return False
        self._tray_message_id = toast.message_id
        info = QtWidgets.QSystemTrayIcon.MessageIcon.Information
        tray.showMessage(toast.title, toast.body, info, TRAY_MESSAGE_MS)
        return True

    @Slot()
    def _on_tray_message_clicked(self) -> None:
        if self._tray_message_id is not None:
            self.openRequested.emit(self._tray_message_id)

    # -- pause and quiet hours -------------------------------------------------------------

    def pause(self, until: datetime | None = None) -> None:
        """Hold toasts until ``until`` (None: until resume())."""
        self._paused = True
        self._paused_until = _aware(until) if until is not None else None
        self._arm_pause_timer()

    def _arm_pause_timer(self) -> None:
        """Wake up when a timed pause ends (again later if the timer fired early)."""
        self._pause_timer.stop()
        if self._paused and self._paused_until is not None:
            ms = (self._paused_until - self._now()).total_seconds() * 1000
            self._pause_timer.start(min(max(0, int(ms) + 1), MAX_TIMER_MS))

    def resume(self) -> None:
        """End the pause; held toasts go out as one summary (unless in quiet hours)."""
        self._paused = False
        self._paused_until = None
        self._pause_timer.stop()
        self._check_release()

    @property
    def paused(self) -> bool:
        return self._pause_active(self._now())

    @property
    def paused_until(self) -> datetime | None:
        """When the pause ends; None when not paused or paused until resumed."""
        return self._paused_until if self._pause_active(self._now()) else None

    def set_quiet_hours(self, start: time | None, end: time | None) -> None:
        """Hold toasts every day from ``start`` to ``end`` (may wrap midnight); None: off."""
        self._quiet = (start, end) if start is not None and end is not None else None
        self._check_release()

    @property
    def quiet_hours(self) -> tuple[time, time] | None:
        return self._quiet

    def is_quiet(self, now: datetime | None = None) -> bool:
        """Whether ``now`` (default: the clock) is within quiet hours."""
        if self._quiet is None:
            return False
        local = _aware(now if now is not None else self._now()).astimezone()
        return in_window(local.time(), *self._quiet)

    def _now(self) -> datetime:
        return _aware(self._clock())

    def _pause_active(self, now: datetime) -> bool:
        if self._paused and self._paused_until is not None and now >= self._paused_until:
            self._paused = False
            self._paused_until = None
        return self._paused

    def _holding(self, now: datetime) -> bool:
        return self._pause_active(now) or self.is_quiet(now)

    @Slot()
    def _check_release(self) -> None:
        """Timer tick, resume() or new quiet hours: send the summary if the hold is over."""
        if not self._held:
            self._check_timer.stop()
        elif not self._holding(self._now()):
            self._spawn(self.flush_held())
        elif self._paused_until is not None and not self._pause_timer.isActive():
            self._arm_pause_timer()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop yet: the next show() or tick releases them
            coro.close()
            return
        self._tasks.spawn(coro, "notifier-flush")


async def _server_has_body_markup(notifier: DesktopNotifier) -> bool:
    """Whether the server reads bodies as markup (then "&" and "<" must be escaped).

    desktop-notifier does not expose this capability; ask its D-Bus proxy directly."""
    interface = getattr(getattr(notifier, "_backend", None), "interface", None)
    get_capabilities = getattr(interface, "call_get_capabilities", None)
    if get_capabilities is None:
        return False
    return "body-markup" in await asyncio.wait_for(get_capabilities(), NATIVE_TIMEOUT_S)


async def _disconnect(notifier: DesktopNotifier) -> None:
    """Close the notifier's D-Bus connection, if it opened one (bounded wait)."""
    bus = getattr(getattr(notifier, "_backend", None), "bus", None)
    if bus is None:
        return
    bus.disconnect()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(bus.wait_for_disconnect(), NATIVE_TIMEOUT_S)
