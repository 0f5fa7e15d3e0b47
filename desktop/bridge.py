"""Adapts the engine's event bus to Qt signals (the engine itself never sees Qt).

Each signal carries the bus event object unchanged (see ``engine.bus``)."""

from __future__ import annotations

from typing import Any

from desktop.qt import QtCore, Signal
from engine.bus import (
    EventBus,
    ModelDownloadEnded,
    ModelDownloadProgress,
    ModelFailed,
    ModelLoading,
    ModelReady,
    ModelServerDown,
    ModelServerUp,
    NotificationQueued,
    ReplyFinished,
    ReplyStarted,
    ReplyToken,
    TickFinished,
    TickStarted,
    ToolCalled,
    TurnFailed,
    UserMessageAdded,
    WhatsAppQrCode,
)


class EngineBridge(QtCore.QObject):
    replyStarted = Signal(object)  # ReplyStarted
    replyToken = Signal(object)  # ReplyToken
    replyFinished = Signal(object)  # ReplyFinished
    turnFailed = Signal(object)  # TurnFailed
    toolCalled = Signal(object)  # ToolCalled
    tickStarted = Signal(object)  # TickStarted
    tickFinished = Signal(object)  # TickFinished
    notificationQueued = Signal(object)  # NotificationQueued
    userMessageAdded = Signal(object)  # UserMessageAdded
    modelLoading = Signal(object)  # ModelLoading
    modelReady = Signal(object)  # ModelReady
    modelFailed = Signal(object)  # ModelFailed
    whatsAppQrCode = Signal(object)  # WhatsAppQrCode
    modelDownload = Signal(object)  # ModelDownloadProgress | ModelDownloadEnded
    modelServer = Signal(object)  # ModelServerDown | ModelServerUp

    def __init__(self, bus: EventBus, parent: QtCore.QObject | None = None):
        super().__init__(parent)
        self._routes = {
            ReplyStarted: self.replyStarted,
            ReplyToken: self.replyToken,
            ReplyFinished: self.replyFinished,
            TurnFailed: self.turnFailed,
            ToolCalled: self.toolCalled,
            TickStarted: self.tickStarted,
            TickFinished: self.tickFinished,
            NotificationQueued: self.notificationQueued,
            UserMessageAdded: self.userMessageAdded,
            ModelLoading: self.modelLoading,
            ModelReady: self.modelReady,
            ModelFailed: self.modelFailed,
            WhatsAppQrCode: self.whatsAppQrCode,
            ModelDownloadProgress: self.modelDownload,
            ModelDownloadEnded: self.modelDownload,
            ModelServerDown: self.modelServer,
            ModelServerUp: self.modelServer,
        }
        self._unsubscribe = bus.subscribe(self._route)

    def _route(self, event: Any) -> None:
        signal = self._routes.get(type(event))
        if signal is not None:
            signal.emit(event)

    def detach(self) -> None:
        self._unsubscribe()
