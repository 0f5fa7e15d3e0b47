"""Plain data the front ends exchange with the engine: what the façade's methods take and
return, and the fixed words shown next to it. No behaviour here; the desktop may import this
module (see tests/test_layering.py for the whole allowed set)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.accounts.registry import LABELS as ACCOUNT_LABELS
from engine.accounts.registry import AccountConfig, AccountState, Kind
from engine.chat.answers import EXAMPLE_PROMPTS
from engine.chat.firstrun import BUILTIN_CAN, BUILTIN_CANNOT, offer_button, offer_text
from engine.chat.labels import tool_labels
from engine.chat.places import Place
from engine.chat.wording import SOURCE_LABELS
from engine.ipc.handover import HandedOver
from engine.ipc.lock import WorkspaceLock
from engine.ipc.server import Handler as RequestHandler
from engine.jobs.scheduler import AGAIN
from engine.llm.capability import Capability, CapabilitySetting, model_label
from engine.llm.capability import describe as describe_capability
from engine.sources.whatsapp.live import UNOFFICIAL_WARNING
from engine.triage.preview import PreviewedEvent, RulesPreview
from engine.triage.rules.explain import LEFT_TO_MODEL, NOT_UNDERSTOOD, LineExplanation
from engine.triage.rules.suggest import RuleSuggestion

__all__ = [
    "ACCOUNT_LABELS",
    "AGAIN",
    "BUILTIN_CAN",
    "BUILTIN_CANNOT",
    "EXAMPLE_PROMPTS",
    "LEFT_TO_MODEL",
    "NOT_UNDERSTOOD",
    "SOURCE_LABELS",
    "UNOFFICIAL_WARNING",
    "AccountConfig",
    "AccountState",
    "Capability",
    "CapabilitySetting",
    "CheckResult",
    "HandedOver",
    "IngestResult",
    "Kind",
    "LineExplanation",
    "MutePreview",
    "Place",
    "PreviewedEvent",
    "Reply",
    "RequestHandler",
    "RuleSuggestion",
    "RulesPreview",
    "SettingsApplied",
    "SilencedEvent",
    "WorkspaceLock",
    "describe_capability",
    "model_label",
    "offer_button",
    "offer_text",
    "tool_labels",
]


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
