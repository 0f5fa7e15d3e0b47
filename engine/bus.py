"""In-process event bus: the engine publishes, any UI (terminal, Qt) subscribes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.modeltypes import DownloadState

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplyStarted:
    session_id: int
    kind: str


@dataclass(frozen=True)
class UserMessageAdded:
    """A user message the engine wrote on the user's behalf (e.g. "Don't notify me...")."""

    session_id: int
    message_id: int
    text: str


@dataclass(frozen=True)
class ReplyToken:
    session_id: int
    text: str


@dataclass(frozen=True)
class ToolCalled:
    session_id: int
    name: str
    status: str  # "running", then how it ended ("done", "failed", ...)
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DeliveredNotification:
    """A notification a reply delivered, as the front ends show it (a toast's title, the
    chat's "why?"): what ``notify`` took, why TIC chose it, who it came from and what
    bounding changed in its event on arrival."""

    id: int
    source: str
    event_type: str
    summary: str
    event_time: str | None = None  # ISO 8601, as read_notification gives it
    refs: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    rule: str | None = None
    sender: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ReplyFinished:
    session_id: int
    message_id: int
    text: str
    kind: str
    notifications: list[DeliveredNotification] = field(default_factory=list)
    fallback: bool = False  # worded by TIC itself because the model failed repeatedly
    composed: bool = False  # composed in code from the facts, not written by the model
    # How long the model took, from the turn's start (None: no model wrote it, or no tokens).
    first_token_ms: int | None = None
    total_ms: int | None = None


@dataclass(frozen=True)
class TurnFailed:
    session_id: int
    kind: str
    error: str


CHAT_MESSAGES = (ReplyStarted, ReplyToken, ToolCalled, ReplyFinished, TurnFailed)
"""What a chat shows of a turn: what a terminal chat attached to the running engine is sent
(``engine.ipc.endpoint``) and rebuilds (``engine.ipc.attach``)."""


@dataclass(frozen=True)
class NotificationQueued:
    notification_id: int
    source: str
    summary: str


@dataclass(frozen=True)
class EventsStored:
    """A source (a sync, an ingest handed over, a live message) stored ``added`` new events:
    TIC checks them within seconds, whatever its schedule."""

    source: str
    added: int


@dataclass(frozen=True)
class TickStarted:
    events: int


@dataclass(frozen=True)
class TickFinished:
    events: int
    notified: int
    error: str | None = None
    failed: int = 0  # events given up on (attempts exhausted, corrupt): kept, never silent


@dataclass(frozen=True)
class ModelLoading:
    """The model's weights are being loaded (``Engine.load_model``)."""

    name: str


@dataclass(frozen=True)
class ModelReady:
    name: str


@dataclass(frozen=True)
class ModelFailed:
    """The model could not be loaded; every turn fails with ``error`` until another is chosen."""

    error: str


@dataclass(frozen=True)
class ModelDownloadProgress:
    """A model download moved on (at most a few times a second): bytes, rate, time left."""

    state: DownloadState


@dataclass(frozen=True)
class ModelDownloadEnded:
    """A model download ended: ``state.phase`` is finished, failed (``state.error`` says why,
    in one line) or cancelled (the bytes so far are kept to resume)."""

    state: DownloadState


@dataclass(frozen=True)
class ModelServerDown:
    """The model server in use does not answer: turns fail until it is back."""

    url: str
    error: str


@dataclass(frozen=True)
class ModelServerUp:
    """The model server in use answers again."""

    url: str


@dataclass(frozen=True)
class WhatsAppQrCode:
    """WhatsApp asks to link this computer: show ``payload`` as a QR code for the phone to
    scan. A newer code replaces the previous one."""

    payload: str | bytes


@dataclass(frozen=True)
class UnexpectedError:
    """Something failed that is not an expected :class:`~engine.errors.TicError`: a bug. It is
    logged with its traceback; the engine counts these."""

    where: str
    error: str


Subscriber = Callable[[Any], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: Any) -> None:
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:
                log.exception("bus subscriber failed on %s", type(event).__name__)

    def queue(self) -> tuple[asyncio.Queue[Any], Callable[[], None]]:
        """An asyncio queue receiving every event from now on, and its unsubscribe."""
        q: asyncio.Queue[Any] = asyncio.Queue()
        return q, self.subscribe(q.put_nowait)
