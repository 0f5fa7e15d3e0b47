"""Wiring: one Engine owns the store, the model, the tools, ChatHub, TIC and the jobs.
Whoever owns the event loop (CLI, tray app, tests) creates it, starts it and stops it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from engine.accounts.registry import AccountConfig, build_source, forget_secrets
from engine.agent.definitions import load_agent
from engine.agent.loop import AgentLoop, MemoryTranscript
from engine.agent.tools.builtin import build_registry
from engine.bus import EventBus, UnexpectedError
from engine.chat.hub import ChatHub
from engine.clock import utcnow
from engine.errors import ModelError, TicError
from engine.jobs.scheduler import JobScheduler
from engine.llm.base import LanguageModel
from engine.llm.llama import LlamaCppModel
from engine.llm.openai_compat import OpenAICompatModel, is_server_url
from engine.llm.select import resolve_model_path
from engine.llm.unavailable import UnavailableModel
from engine.settings import Settings
from engine.sources.sync import SourceRunner
from engine.store.db import close_database, open_database
from engine.store.inbox import recover_events
from engine.triage.decider import TriageDecider
from engine.triage.runner import TicRunner
from engine.workspace import Workspace

log = logging.getLogger(__name__)


def load_model(
    workspace: Workspace, settings: Settings, explicit: str | Path | None
) -> LanguageModel:
    """The configured GGUF on llama.cpp, or a model server when given its URL; raises
    ModelError with one clear line."""
    chosen = explicit or settings.model_path
    if is_server_url(str(chosen) if chosen else None):
        return OpenAICompatModel(str(chosen), model=settings.server_model)
    path = resolve_model_path(explicit, settings, workspace)
    return LlamaCppModel(path, context_size=settings.context_size, threads=settings.model_threads)


def load_model_or_stand_in(
    workspace: Workspace, settings: Settings, explicit: str | Path | None
) -> tuple[LanguageModel, str | None]:
    """For the long-running app: a broken model setting must not stop it starting."""
    try:
        return load_model(workspace, settings, explicit), None
    except ModelError as exc:
        return UnavailableModel(str(exc)), str(exc)


@dataclass
class Engine:
    workspace: Workspace
    settings: Settings
    model: LanguageModel
    clock: Callable[[], datetime] = utcnow
    bus: EventBus = field(default_factory=EventBus)
    retry_delays: tuple[float, ...] = (5.0, 30.0)

    def __post_init__(self) -> None:
        self.db = open_database(self.workspace.db_path)
        self.unexpected_errors = 0  # bugs (not TicErrors) caught in the background, logged
        self.bus.subscribe(self._count_unexpected)
        self.jobs = JobScheduler(
            self._notify_from_job, self._run_task, clock=self.clock, bus=self.bus
        )
        self.registry = build_registry(self.jobs)
        self.loop = AgentLoop(
            self.model,
            self.registry,
            self.workspace,
            max_steps=self.settings.max_tool_steps,
            clock=self.clock,
        )
        self.hub = ChatHub(self.loop, self.bus, clock=self.clock, retry_delays=self.retry_delays)
        self.decider = TriageDecider(self.model, self.workspace)
        self.tic = TicRunner(
            self.decider,
            self.registry,
            self.hub.notify,
            self.bus,
            batch_size=self.settings.batch_size,
            max_attempts=self.settings.max_event_attempts,
            clock=self.clock,
        )
        self.sources = SourceRunner(bus=self.bus)
        self.on_whatsapp_qr: Callable[[str], None] | None = None
        self._started = False

    def _count_unexpected(self, message: object) -> None:
        if isinstance(message, UnexpectedError):
            self.unexpected_errors += 1

    def start_sources(self) -> None:
        for config in self.settings.accounts:
            if config.enabled:
                self._start_source(config)

    def _start_source(self, config: AccountConfig) -> None:
        try:
            self.sources.add(build_source(config, self.workspace, self._qr))
        except (TicError, KeyError, ValueError) as exc:
            log.warning("account %s cannot start: %s", config.key, exc)

    def _qr(self, payload: str) -> None:
        if self.on_whatsapp_qr is not None:
            self.on_whatsapp_qr(payload)

    def save_settings(self, settings: Settings) -> None:
        settings.save(self.workspace.settings_file)
        self.settings = settings

    async def add_account(self, config: AccountConfig) -> None:
        """Remember the account and start reading it."""
        self.save_settings(self.settings.with_account(config))
        if self._started:
            self._start_source(config)

    async def remove_account(self, key: str) -> None:
        """Stop reading the account, forget it and its secrets (its events stay)."""
        config = next((a for a in self.settings.accounts if a.key == key), None)
        for source_key in [k for k in self.sources.active_keys() if k == key or k.startswith(key)]:
            await self.sources.remove(source_key)
        if config is not None:
            forget_secrets(config)
        self.save_settings(self.settings.without_account(key))

    async def swap_model(self, model: LanguageModel) -> None:
        """Use another model from now on (a settings change); the old one is closed."""
        old, self.model = self.model, model
        self.loop.model = model
        self.decider.model = model
        await old.close()

    async def _notify_from_job(self, payload: dict) -> object:
        return await self.hub.notify(payload, reason="a scheduled job you set up is due")

    async def _run_task(self, task: str) -> str:
        definition = load_agent(self.workspace.agents_dir, "main")
        return await self.loop.run(definition, MemoryTranscript(task), depth=1, read_only=True)

    async def start(self, *, schedule: bool = True) -> None:
        """Recover whatever a crash interrupted, then start delivery (and the schedules)."""
        recovered = recover_events()
        if recovered:
            log.info("%d event(s) interrupted by a crash will be retried", recovered)
        self.hub.start()
        self._started = True
        if schedule:
            self.jobs.start()
            self.tic.start(self.settings.tick_interval_minutes)
            self.start_sources()

    async def stop(self) -> None:
        await self.sources.stop()
        await self.tic.stop()
        await self.jobs.stop()
        await self.hub.stop()
        await self.model.close()
        close_database()
        self._started = False
