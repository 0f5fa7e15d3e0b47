"""The engine's one façade. The desktop and the CLI use the engine through ``Engine``'s
use-case methods and its bus (``engine.bus``) only; behind it, the store, the model, TIC, the
chat hub, the jobs and the sources are wired here and owned by it.

Whoever owns the event loop (CLI, tray app, tests) creates the engine, starts it and stops it.
The model lives in one ``ModelHolder`` that the agent loop and the triage decider both call,
so a settings change swaps it in one place."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.accounts.registry import (
    AccountConfig,
    AccountState,
    Kind,
    build_source,
    connect_imap,
    forget_secrets,
    imap_config,
    missing_extra,
    states,
)
from engine.agent.definitions import load_agent
from engine.agent.loop import AgentLoop, MemoryTranscript
from engine.agent.tools.builtin import build_registry
from engine.bus import (
    EventBus,
    ModelFailed,
    ModelLoading,
    ModelReady,
    UnexpectedError,
    WhatsAppQrCode,
)
from engine.chat.history import history_rows
from engine.chat.hub import ChatHub
from engine.clock import utcnow
from engine.errors import ModelError, TicError
from engine.events import Event, parse_event
from engine.ipc import client as ipc_client
from engine.ipc.server import Handler, IpcServer, Request
from engine.jobs.scheduler import JobScheduler
from engine.llm.base import LanguageModel
from engine.llm.capability import Capability, gguf_capability
from engine.llm.holder import ModelHolder
from engine.llm.loading import (
    check_model_choice,
    load_model,
    load_model_or_stand_in,
    model_settings_changed,
)
from engine.llm.openai_compat import is_server_url
from engine.llm.unavailable import UnavailableModel
from engine.settings import Settings
from engine.sources.sync import SourceRunner
from engine.store.db import close_database, open_database
from engine.store.inbox import ingest, recover_events
from engine.triage.decider import TriageDecider
from engine.triage.runner import TicRunner
from engine.types import CheckResult, IngestResult, MutePreview, Reply, SettingsApplied
from engine.workspace import Workspace

log = logging.getLogger(__name__)

GOOGLE_KINDS: tuple[Kind, ...] = ("gmail", "gcal")


class Engine:
    def __init__(
        self,
        workspace: Workspace,
        settings: Settings,
        model: LanguageModel,
        *,
        clock: Callable[[], datetime] = utcnow,
        bus: EventBus | None = None,
        retry_delays: tuple[float, ...] = (5.0, 30.0),
    ):
        self.workspace = workspace
        self.clock = clock
        self.bus = bus if bus is not None else EventBus()
        self._settings = settings
        self._model = ModelHolder(model, settings.model_capability)
        self._model_error = model.error if isinstance(model, UnavailableModel) else None
        self.db = open_database(self.workspace.db_path)
        self.unexpected_errors = 0  # bugs (not TicErrors) caught in the background, logged
        self.bus.subscribe(self._count_unexpected)
        self.jobs = JobScheduler(
            self._notify_from_job, self._run_task, clock=self.clock, bus=self.bus
        )
        self.registry = build_registry(self.jobs)
        self.loop = AgentLoop(
            self._model,
            self.registry,
            self.workspace,
            max_steps=settings.max_tool_steps,
            clock=self.clock,
        )
        self.hub = ChatHub(self.loop, self.bus, clock=self.clock, retry_delays=retry_delays)
        self.decider = TriageDecider(self._model, self.workspace)
        self.tic = TicRunner(
            self.decider,
            self.registry,
            self.hub.notify,
            self.bus,
            batch_size=settings.batch_size,
            max_attempts=settings.max_event_attempts,
            clock=self.clock,
        )
        self.sources = SourceRunner(bus=self.bus)
        self._ipc: IpcServer | None = None
        self._started = False

    def _count_unexpected(self, message: object) -> None:
        if isinstance(message, UnexpectedError):
            self.unexpected_errors += 1

    # opening --------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        workspace: Workspace,
        model_path: str | Path | None = None,
        *,
        settings: Settings | None = None,
        stand_in: bool = False,
    ) -> Engine:
        """The engine for a workspace with its saved settings and the chosen model (``--model``,
        else the settings'). A model that cannot be made raises ModelError, or with
        ``stand_in`` is replaced by one that fails every call with the reason (``model_error``),
        so a long-running app still starts."""
        settings = settings if settings is not None else Settings.load(workspace.settings_file)
        if stand_in:
            model, _error = load_model_or_stand_in(workspace, settings, model_path)
        else:
            model = load_model(workspace, settings, model_path)
        return cls(workspace, settings, model)

    @classmethod
    def without_model(cls, workspace: Workspace) -> Engine:
        """For what needs only the store (ingest, history): no model is made or loaded."""
        return cls(
            workspace,
            Settings.load(workspace.settings_file),
            UnavailableModel("this command runs no model"),
        )

    # lifecycle ------------------------------------------------------------------------------

    async def start(self, *, schedule: bool = True) -> None:
        """Recover whatever a crash interrupted, then start delivery (and with ``schedule``
        the periodic check, the jobs and the accounts' sources)."""
        recovered = recover_events()
        if recovered:
            log.info("%d event(s) interrupted by a crash will be retried", recovered)
        self.hub.start()
        self._started = True
        if schedule:
            self.jobs.start()
            self.tic.start(self._settings.tick_interval_minutes)
            for config in self._settings.accounts:
                if config.enabled:
                    self._start_source(config)

    async def stop(self) -> None:
        await self.stop_serving()
        await self.sources.stop()
        await self.tic.stop()
        await self.jobs.stop()
        await self.hub.stop()
        await self._model.close()
        close_database()
        self._started = False

    # chat -----------------------------------------------------------------------------------

    async def send(self, text: str) -> Reply:
        """A user message; returns the assistant's reply (streamed on the bus meanwhile)."""
        reply = await self.hub.send(text)
        return Reply(reply.id, reply.content)

    def mute_preview(self, message_id: int) -> MutePreview:
        """What ``mute`` would do on this notification reply, before it does: the rules it
        adds (keyed on the sender's address or the chat's id) and the notifications of the
        last 30 days they would have silenced."""
        return self.hub.mute_preview(message_id)

    async def mute(self, message_id: int) -> Reply:
        """ "Don't notify me about this" on a notification's reply; returns the confirmation."""
        reply = await self.hub.mute(message_id)
        return Reply(reply.id, reply.content)

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """The last ``limit`` chat messages as plain rows, oldest first, with tool calls."""
        return history_rows(limit)

    # TIC ------------------------------------------------------------------------------------

    async def check_now(self, *, timeout: float | None = None) -> CheckResult:
        """Run TIC over the pending events now and wait (up to ``timeout`` seconds) until
        what it notified has been delivered as chat replies."""
        tick = await self.tic.tick()
        delivered = await self.hub.drain(timeout=timeout)
        return CheckResult(
            events=tick.events,
            notified=tick.notified,
            failed=tick.failed,
            skipped=tick.skipped,
            error=tick.error,
            delivered=delivered,
        )

    def ingest(self, events: list[Event]) -> IngestResult:
        """Add events to the store (ids already there are ignored); the next check sees them."""
        added = ingest(events)
        return IngestResult(added=added, known=len(events) - added)

    # settings and model ---------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The settings in use (a copy to edit and hand to ``apply_settings``)."""
        return self._settings

    @property
    def model_name(self) -> str:
        return self._model.name

    @property
    def capability(self) -> Capability:
        """What the current model may be trusted with, the user's override applied."""
        return self._model.capability

    @property
    def detected_capability(self) -> Capability:
        """What the backend judges its model to be (what "Automatic" in Settings means)."""
        return self._model.current.capability

    @property
    def model_error(self) -> str | None:
        """Why the model cannot be used (it could not be made or loaded), else None."""
        return self._model_error

    def _save_settings(self, settings: Settings) -> None:
        settings.save(self.workspace.settings_file)
        self._settings = settings

    async def apply_settings(self, new: Settings) -> SettingsApplied:
        """Save the settings and use them from now on: the check interval, the batch limits,
        the agent's step limit, and a new model when a model setting changed (its load is
        ``load_model``'s job). Accounts are kept as they are: they are saved as they are
        connected, so an edited copy's accounts are stale."""
        old = self._settings
        new = new.model_copy(update={"accounts": old.accounts})
        self._save_settings(new)
        self.tic.set_interval(new.tick_interval_minutes)
        self.tic.batch_size = new.batch_size
        self.tic.max_attempts = new.max_event_attempts
        self.loop.max_steps = new.max_tool_steps
        self._model.override = new.model_capability
        if not model_settings_changed(old, new):
            return SettingsApplied(model_changed=False, model_error=self._model_error)
        model, _error = load_model_or_stand_in(self.workspace, new, None)
        await self.swap_model(model)
        return SettingsApplied(model_changed=True, model_error=self._model_error)

    async def swap_model(self, model: LanguageModel) -> None:
        """Use another model from now on, everywhere; the old one is closed."""
        old = self._model.swap(model)
        self._model_error = model.error if isinstance(model, UnavailableModel) else None
        await old.close()

    async def load_model(self) -> str | None:
        """Load the model's weights now rather than on first use. Publishes ModelLoading,
        then ModelReady or ModelFailed; returns the error (kept as ``model_error``) or None."""
        name = self._model.name
        self.bus.publish(ModelLoading(name))
        try:
            await self._model.load()
        except ModelError as exc:
            self._model_error = str(exc)
            self.bus.publish(ModelFailed(str(exc)))
            return str(exc)
        self._model_error = None
        self.bus.publish(ModelReady(name))
        return None

    @staticmethod
    def missing_extra(kind: Kind) -> str | None:
        """One line naming the pip extra an account of ``kind`` needs, if not installed."""
        return missing_extra(kind)

    @staticmethod
    def check_model(choice: str) -> None:
        """Raise ModelError unless ``choice`` is a usable GGUF file or a model server's URL.
        Blocking (reads the file's header): call it off the UI thread."""
        check_model_choice(choice)

    @staticmethod
    def judge_model(choice: str) -> Capability:
        """What a model choice could be trusted with: a model server is capable, a GGUF file
        is judged by its header. Blocking: call it off the UI thread."""
        if is_server_url(choice):
            return "capable"
        return gguf_capability(Path(choice).expanduser())

    # accounts -------------------------------------------------------------------------------

    def account_states(self) -> list[AccountState]:
        """Each connected account with its health, as the store last recorded it."""
        return states(self._settings.accounts)

    def _account(self, key: str) -> AccountConfig | None:
        return next((a for a in self._settings.accounts if a.key == key), None)

    async def add_account(self, config: AccountConfig) -> None:
        """Remember the account and start reading it."""
        self._save_settings(self._settings.with_account(config))
        if self._started:
            self._start_source(config)

    async def remove_account(self, key: str) -> None:
        """Stop reading the account, forget it and its secrets (its events stay)."""
        config = self._account(key)
        for source_key in [k for k in self.sources.active_keys() if k == key or k.startswith(key)]:
            await self.sources.remove(source_key)
        if config is not None:
            forget_secrets(config)
        self._save_settings(self._settings.without_account(key))

    async def connect_imap(
        self,
        host: str,
        port: int | None,
        username: str,
        password: str,
        *,
        ssl: bool = True,
        starttls: bool = False,
        folders: list[str] | None = None,
    ) -> AccountConfig:
        """Check the login; only then keep the password (keyring) and the account."""
        config = imap_config(host, port, username, ssl=ssl, starttls=starttls, folders=folders)
        await connect_imap(config, password, self.workspace)
        await self.add_account(config)
        return config

    async def connect_google(
        self, client_file: str | Path, open_browser: Callable[[str], object]
    ) -> str:
        """Sign in in the browser with the user's OAuth client, then read that account's
        Gmail and Calendar. Returns the account's address."""
        import engine.sources.google.auth as google_auth

        email = await google_auth.sign_in(client_file, open_browser)
        for kind in GOOGLE_KINDS:
            old = self._account(f"{kind}:{email}")
            options = {**(old.options if old else {}), "client_file": str(client_file)}
            await self.add_account(AccountConfig(kind=kind, account=email, options=options))
        return email

    async def add_whatsapp_export(self, folder: Path, user_name: str) -> AccountConfig:
        """Watch a folder of WhatsApp chat exports (``user_name``'s own messages are skipped)."""
        config = AccountConfig(
            kind="whatsapp-export", account=str(folder), options={"user_name": user_name}
        )
        await self.add_account(config)
        return config

    async def connect_whatsapp_live(self) -> AccountConfig:
        """Link this computer to WhatsApp (after the user accepted the unofficial-client
        warning). Pairing publishes ``WhatsAppQrCode`` messages for the phone to scan."""
        from engine.sources.whatsapp.live import session_db_path

        old = self._account("whatsapp-live:default")
        options = {
            **(old.options if old else {}),
            "accepted_unofficial_warning": True,
            "session_db": str(session_db_path(self.workspace.root)),
        }
        config = AccountConfig(kind="whatsapp-live", account="default", options=options)
        await self.add_account(config)
        return config

    def _start_source(self, config: AccountConfig) -> None:
        try:
            self.sources.add(build_source(config, self.workspace, self._qr))
        except (TicError, KeyError, ValueError) as exc:
            log.warning("account %s cannot start: %s", config.key, exc)

    def _qr(self, payload: str | bytes) -> None:
        self.bus.publish(WhatsAppQrCode(payload))

    # the single-instance channel ------------------------------------------------------------

    def ipc_handlers(self) -> dict[str, Handler]:
        """The engine's requests on the workspace's socket: ping, tick, ingest."""
        return {"ping": self._on_ping, "tick": self._on_tick, "ingest": self._on_ingest}

    async def serve(self, handlers: Mapping[str, Handler]) -> None:
        """Become the workspace's running app: answer the engine's requests and the front
        end's own ``handlers`` (e.g. show, status, quit) on the socket until ``stop_serving``."""
        own = self.ipc_handlers()
        clash = own.keys() & handlers.keys()
        if clash:
            raise ValueError(f"the engine already answers {sorted(clash)}")
        self._ipc = IpcServer(self.workspace, {**own, **handlers})
        await self._ipc.start()

    async def stop_serving(self) -> None:
        if self._ipc is not None:
            await self._ipc.stop()
            self._ipc = None

    @staticmethod
    def ask_running_app(
        workspace: Workspace, request: Request, timeout: float = 10.0
    ) -> dict[str, Any] | None:
        """Hand a request to the app already running on ``workspace``; None when none answers."""
        try:
            return ipc_client.request(workspace, request, timeout=timeout)
        except OSError:
            return None

    async def _on_ping(self, _request: Request) -> dict[str, Any]:
        return {"ok": True, "pid": os.getpid()}

    async def _on_tick(self, _request: Request) -> dict[str, Any]:
        return (await self.check_now(timeout=600)).to_json()

    async def _on_ingest(self, request: Request) -> dict[str, Any]:
        result = self.ingest([parse_event(obj) for obj in request.get("events", [])])
        return {"ok": True, "added": result.added, "known": result.known}

    # work the engine gives itself -----------------------------------------------------------

    async def _notify_from_job(self, payload: dict[str, Any]) -> object:
        return await self.hub.notify(payload, reason="a scheduled job you set up is due")

    async def _run_task(self, task: str) -> str:
        definition = load_agent(self.workspace.agents_dir, "main")
        return await self.loop.run(definition, MemoryTranscript(task), depth=1, read_only=True)
