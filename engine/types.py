"""Plain data the front ends exchange with the engine: what the façade's own methods take and
return. No behaviour here, and nothing of the engine imported: the chat, TIC and the model
service return these, so this module sits below them all. The plain data a subsystem defines
beside its behaviour (a rules line's reading, an account, a place to open) is named by the
façade (``engine.engine``'s ``__all__``); the front ends may import either (see
tests/test_layering.py for the whole allowed set)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class CheckResult:
    """One "check now": TIC's tick over the pending events, then the wait for delivery."""

    events: int = 0
    notified: int = 0
    failed: int = 0  # events given up on (attempts exhausted, corrupt)
    skipped: bool = False  # a check was already running
    error: str | None = None
    delivered: bool = True  # False when the wait for the replies timed out

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "events": self.events,
            "notified": self.notified,
            "failed": self.failed,
            "skipped": self.skipped,
            "error": self.error,
        }


@dataclass(frozen=True)
class IngestResult:
    added: int
    known: int  # already in the store, ignored


@dataclass(frozen=True)
class Reply:
    """An assistant message the engine wrote (the id is what ``Engine.mute`` takes)."""

    message_id: int
    text: str
    awaits_yes: bool = False
    """The reply puts a change to the user: their yes (or no) is what the chat waits for."""


@dataclass(frozen=True)
class SettingsApplied:
    """What ``Engine.apply_settings`` changed that the front end reacts to."""

    model_changed: bool
    model_error: str | None  # the new model could not be made (a stand-in answers meanwhile)


@dataclass(frozen=True)
class SilencedEvent:
    """A notification a mute would have silenced."""

    event_id: str
    source: str
    sender: str  # "Name <address>", the address, or ""
    time: datetime
    summary: str


@dataclass(frozen=True)
class MutePreview:
    """What "Don't notify me about this" would do (``Engine.mute_preview``), before it does:
    the Never rules it adds (keyed on the sender's address or the chat's id), the reminders
    it cancels, and the notifications of the last ``days`` days the rules would have
    silenced (at most 20 listed, newest first; ``silenced_total`` counts them all)."""

    rules: list[str]
    cancelled_jobs: list[int]
    silenced: list[SilencedEvent]
    silenced_total: int
    unidentified: list[str]  # notifications nothing identifies the sender of: no rule
    days: int = 30
    refused: list[str] = field(default_factory=list)
    """Why a rule was not added: it would silence more than the muted thing."""
