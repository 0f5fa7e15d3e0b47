"""The engine's one façade. The front ends (the desktop, the command line) use the engine
through ``Engine``'s use-case methods and its bus (``engine.bus``) only; behind it, the store,
the model, TIC, the chat hub, the jobs, the sources and the workspace's channel (its endpoint,
``engine.ipc.endpoint``) are wired here and owned by it. The plain data and the fixed words
its methods take and return, where a subsystem defines them, are named here too (``__all__``),
so a front end imports them from the façade rather than from the subsystem.

Whoever owns the event loop (CLI, tray app, tests) creates the engine, starts it and stops it.
The model lives in one ``ModelHolder`` that the agent loop and the triage decider both call,
so a settings change swaps it in one place."""

from __future__ import annotations

import asyncio
import errno
import logging
import sqlite3
from collections.abc import Callable, Collection, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import peewee as pw

from engine.accounts.registry import LABELS as ACCOUNT_LABELS
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
from engine.agent.draft import NotificationDraft
from engine.agent.loop import AgentLoop, MemoryTranscript
from engine.agent.tools.builtin import build_registry
from engine.bus import (
    EventBus,
    EventsStored,
    ModelFailed,
    ModelLoading,
    ModelReady,
    ReplyFinished,
    UnexpectedError,
    WhatsAppQrCode,
)
from engine.chat.answers import EXAMPLE_PROMPTS
from engine.chat.firstrun import (
    BUILTIN_CAN,
    BUILTIN_CANNOT,
    offer_button,
    offer_text,
    terminal_welcome,
)
from engine.chat.history import history_rows
from engine.chat.hub import ChatHub
from engine.chat.labels import tool_label, tool_labels
from engine.chat.places import Place, notifications_of, open_reply, titles_of
from engine.chat.wording import SOURCE_LABELS
from engine.clock import utcnow
from engine.errors import ModelError, StoreError, TicError, WorkspaceReadOnly
from engine.events import Event
from engine.ipc.endpoint import APP_ROLE, EngineEndpoint
from engine.ipc.server import Handler as RequestHandler
from engine.jobs.scheduler import AGAIN, JobScheduler
from engine.llm.base import LanguageModel
from engine.llm.holder import ModelHolder
from engine.llm.loading import load_model, load_model_or_stand_in, model_settings_changed
from engine.llm.unavailable import UnavailableModel
from engine.model_service import ModelService, check_choice
from engine.modeltypes import Capability
from engine.settings import Settings
from engine.sources.mail.providers import MailProvider, mail_providers, provider_for_address
from engine.sources.sync import SourceRunner
from engine.sources.whatsapp.live import UNOFFICIAL_WARNING
from engine.store import chat as chat_store
from engine.store.backup import daily_backup
from engine.store.db import close_database, describe_store_error, open_database, rescue_deleted_wal
from engine.store.inbox import ingest, recover_events
from engine.store.recent import recent_events
from engine.tasks import Periodic, one_line
from engine.triage.decider import RULES_FILE, TriageDecider
from engine.triage.holds import CONFIRMED_FILE, Hold, accept, confirm
from engine.triage.holds import SAMPLE as HOLD_SAMPLE
from engine.triage.preview import PreviewedEvent, RulesPreview, preview_rules
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.explain import (
    LEFT_TO_MODEL,
    NOT_UNDERSTOOD,
    FileNote,
    LineExplanation,
    explain,
    explain_rule,
    file_notes,
    unreadable_notes,
)
from engine.triage.rules.suggest import RuleSuggestion, suggest
from engine.triage.runner import TicRunner
from engine.triage.tools import rule_tools
from engine.types import CheckResult, IngestResult, MutePreview, Reply, SettingsApplied
from engine.workspace import Workspace
from engine.workspace.disk import full_disk, is_full_error
from engine.workspace.rulesfile import RulesFile, RulesFileChanged

__all__ = [  # the façade, and the vocabulary of its methods that the subsystems define
    "ACCOUNT_LABELS",
    "AGAIN",
    "BUILTIN_CAN",
    "BUILTIN_CANNOT",
    "EXAMPLE_PROMPTS",
    "LEFT_TO_MODEL",
    "NOT_UNDERSTOOD",
    "RULES_FILE",
    "SOURCE_LABELS",
    "UNOFFICIAL_WARNING",
    "AccountConfig",
    "AccountState",
    "Engine",
    "FileNote",
    "Hold",
    "Kind",
    "LineExplanation",
    "MailProvider",
    "Place",
    "PreviewedEvent",
    "RequestHandler",
    "RuleSuggestion",
    "RulesPreview",
    "check_choice",
    "describe_failure",
    "mail_providers",
    "missing_extra",
    "offer_button",
    "offer_text",
    "provider_for_address",
    "terminal_welcome",
    "tool_label",
    "tool_labels",
]

log = logging.getLogger(__name__)

GOOGLE_KINDS: tuple[Kind, ...] = ("gmail", "gcal")
STORE_GUARD_SECONDS = 15.0  # how often the engine looks for a deleted write-ahead log
LATER_DELAY = timedelta(hours=1)  # "Remind me in 1 hour" on a notification


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
        self.bus.subscribe(self._wake_on_new_events)
        self.jobs = JobScheduler(
            self._notify_from_job, self._run_task, clock=self.clock, bus=self.bus
        )
        self.registry = build_registry(self.jobs, extra=rule_tools())
        self.loop = AgentLoop(
            self._model,
            self.registry,
            self.workspace,
            max_steps=settings.max_tool_steps,
            clock=self.clock,
        )
        self.hub = ChatHub(
            self.loop,
            self.bus,
            clock=self.clock,
            retry_delays=retry_delays,
            calendar_connected=self._calendar_connected,
        )
        self.decider = TriageDecider(self._model, self.workspace)
        self.tic = TicRunner(
            self.decider,
            self.hub.notify,
            self.bus,
            batch_size=settings.batch_size,
            max_attempts=settings.max_event_attempts,
            clock=self.clock,
        )
        self.sources = SourceRunner(bus=self.bus)
        self._store_guard = Periodic(
            "store-guard", self._guard_store, interval=STORE_GUARD_SECONDS, logger=log, bus=self.bus
        )
        # catalog, downloads, model servers: Settings → Model and `tic-desktop model`
        self.models = ModelService(
            self.workspace,
            self._model,
            self.bus,
            settings=lambda: self._settings,
            apply_settings=self.apply_settings,
            load_model=self.load_model,
        )
        self._endpoint = EngineEndpoint(self, self.workspace)  # answers while ``serve`` runs
        self._started = False

    def _calendar_connected(self) -> bool:
        """Whether a calendar account is set up (the chat says how to connect one if not)."""
        return any(a.kind == "gcal" and a.enabled for a in self._settings.accounts)

    def _count_unexpected(self, message: object) -> None:
        if isinstance(message, UnexpectedError):
            self.unexpected_errors += 1

    def _wake_on_new_events(self, message: object) -> None:
        """Whatever stored them (a sync, an ingest handed over, a live message), new events
        are checked within seconds once the schedule runs, not at its next tick."""
        if isinstance(message, EventsStored):
            self.tic.wake_soon()

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
        try:
            daily_backup(self.db, self.workspace.db_path)
        except (OSError, sqlite3.Error) as exc:
            log.warning("cannot back up the store: %s", one_line(exc))
        self._store_guard.start()
        self.hub.start()
        self._started = True
        if schedule:
            self.models.start()
            self.jobs.start()
            self.tic.start(self._settings.tick_interval_minutes)
            for config in self._settings.accounts:
                if config.enabled:
                    self._start_source(config)

    async def stop(self) -> None:
        await self.stop_serving()
        await self.models.stop()
        await self.sources.stop()
        await self.tic.stop()
        await self.jobs.stop()
        await self.hub.stop()
        await self._store_guard.stop()
        await self._model.close()
        close_database()
        self._started = False

    # chat -----------------------------------------------------------------------------------

    async def send(self, text: str) -> Reply:
        """A user message; returns the assistant's reply (streamed on the bus meanwhile)."""
        reply = await self.hub.send(text)
        return Reply(reply.id, reply.content, isinstance((reply.meta or {}).get("proposed"), dict))

    def mute_preview(self, message_id: int) -> MutePreview:
        """What ``mute`` would do on this notification reply, before it does: the rules it
        adds (keyed on the sender's address or the chat's id) and the notifications of the
        last 30 days they would have silenced."""
        return self.hub.mute_preview(message_id)

    async def mute(self, message_id: int) -> Reply:
        """ "Don't notify me about this" on a notification's reply; returns the confirmation."""
        reply = await self.hub.mute(message_id)
        return Reply(reply.id, reply.content)

    def open_notification(self, message_id: int) -> list[Place]:
        """ "Open" on a notification's reply (its toast or the chat): where each of its
        messages is (the Gmail thread, the calendar event, the WhatsApp chat, the email by
        its Message-ID, or TIC's own view), and the reply is marked read. Raises TicError
        when the message is no notification's reply."""
        return open_reply(message_id, self.clock())

    def remind_later(self, message_id: int, delay: timedelta = LATER_DELAY) -> datetime:
        """ "Remind me in 1 hour" on a notification's reply: its notifications are delivered
        again after ``delay`` (a job in the store: a restart keeps it). Returns when."""
        notes = notifications_of(message_id)
        payloads = [{k: v for k, v in n.as_payload().items() if k != "id"} for n in notes]
        at = self.clock() + delay
        self.jobs.later(payloads, at, "; ".join(titles_of(notes)))
        return at

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """The last ``limit`` chat messages as plain rows, oldest first, with tool calls."""
        return history_rows(limit)

    def print_replies_here(self) -> None:
        """This front end prints the replies itself, as they are stored (``tic-desktop
        tick``): each notification reply is stored marked unprinted, in the same transaction
        that marks its notifications delivered, until ``printed`` takes the mark off. A kill
        between the two reprints that one reply, and loses none."""
        self.hub.delivery.marks[chat_store.UNPRINTED] = True

    def unprinted_replies(self) -> list[ReplyFinished]:
        """The replies a killed tick stored but never printed, oldest first, as the bus
        announces a reply."""
        return [
            ReplyFinished(m.session_id, m.id, m.content, str((m.meta or {}).get("kind", "")))
            for m in chat_store.unprinted_replies()
        ]

    def printed(self, message_id: int) -> None:
        """The reply has been printed: its unprinted mark goes."""
        chat_store.mark_printed(message_id)

    # TIC ------------------------------------------------------------------------------------

    @property
    def checking(self) -> bool:
        """Whether a check (TIC's tick over the pending events) is running now."""
        return self.tic.running

    async def check_now(
        self, *, timeout: float | None = None, after_current: bool = False
    ) -> CheckResult:
        """Run TIC over the pending events now and wait (up to ``timeout`` seconds) until
        what it notified has been delivered as chat replies. A check under way makes this
        one skipped, or with ``after_current`` run once that one has ended."""
        tick = await self.tic.tick(after_current=after_current)
        delivered = await self.hub.drain(timeout=timeout)
        return CheckResult(
            events=tick.events,
            notified=tick.notified,
            failed=tick.failed,
            skipped=tick.skipped,
            error=tick.error,
            delivered=delivered,
        )

    def rules_report(self, text: str | None = None) -> list[LineExplanation]:
        """Each line of the rules file (or of ``text``) with how it is understood, in plain
        words; lines code could not read say whether the model in use may judge them.
        Raises RulesFileError when the workspace's file exists but cannot be read."""
        rules = self.decider.read_rules() if text is None else text
        capable = self._model.capability == "capable"
        return explain(rules, capable_model=capable, readings=self.decider.shown_readings)

    def rules_notes(self, text: str | None = None) -> list[FileNote]:
        """The lines of the rules file (or of ``text``) that are no rule: definitions ("my
        assistant means …") and sentences read as talk, with what TIC made of them; and the
        file's lines that are not valid UTF-8, skipped."""
        if text is not None:
            return file_notes(text)
        found = self.decider.read_rules_file()
        return sorted(
            file_notes(found.text) + unreadable_notes(found.unreadable),
            key=lambda n: n.line_number,
        )

    def rules_text(self) -> str:
        """The rules file's text ("" when there is none), for editing. Raises RulesFileError
        when it exists but cannot be read, or a line of it is not valid UTF-8."""
        return self.decider.read_rules(strict=True)

    def save_rules(self, text: str, *, replacing: str | None = None) -> bool:
        """Write the rules file atomically (a reader sees the old text or the new, never
        half); the next check uses it. With ``replacing``, the text the editor started from:
        when the file no longer holds it (a rule was added from the chat, or the file saved
        elsewhere, before or during this save) nothing is written and False is returned.
        A rules file that is a link is written through it (see ``RulesFile``)."""
        rules = RulesFile(self.workspace.rules_file)
        try:
            if replacing is None:
                rules.write(text, rules.current())
                return True
            current, version = rules.read()
            if current != replacing:
                return False
            rules.write(text, version)
        except RulesFileChanged:
            return False
        except OSError as exc:
            raise TicError(f"cannot save {RULES_FILE}: {exc.strerror or exc}") from None
        return True

    async def preview_rules(self, text: str, limit: int = 50) -> RulesPreview:
        """What ``text`` would have decided for the ``limit`` latest events, each at the
        moment TIC decided it: the store is only read, no model is asked (lines a capable
        model would judge are left out and named), nothing is notified. The decisions run
        off the event loop."""
        stored = recent_events(limit)
        capable = self._model.capability == "capable"
        held = await self.rule_holds(text)
        return await asyncio.to_thread(
            preview_rules,
            stored,
            text,
            self.clock(),
            capable_model=capable,
            held=held,
            accepted=self.decider.accepted(),
        )

    def rule_suggestions(self, text: str | None = None) -> list[RuleSuggestion]:
        """For each line read only in part, the nearest readings the user may accept."""
        rules = self.decider.read_rules() if text is None else text
        accepted = self.decider.accepted()
        out = []
        for rule in compile_rules_text(rules):
            if rule.rule.text in accepted:
                continue
            for s in suggest(rule):
                read = explain_rule(s.rule)
                out.append(
                    RuleSuggestion(rule.rule.line_number, rule.rule.text, s.kind, read.reading)
                )
        return out

    def accept_suggestion(self, line: str, kind: str) -> None:
        """Read ``line`` as the suggestion of ``kind`` ("sender" or "topic") from the next
        check on; kept beside the rules file. Raises TicError when it cannot be kept."""
        if kind not in ("sender", "topic"):
            raise TicError(f"no such suggestion: {kind}")
        try:
            accept(self.workspace.root / CONFIRMED_FILE, line, kind)
        except OSError as exc:
            raise TicError(f"cannot keep the reading: {exc.strerror or exc}") from None

    async def rule_holds(self, text: str | None = None) -> list[Hold]:
        """The lines of the rules file (or of ``text``) held for the user's yes: each would
        silence most of the latest messages (``engine.triage.holds``). Measured off the
        event loop; the store is only read."""
        now = self.clock()
        sample = [(s.event, s.decided_at or now) for s in recent_events(HOLD_SAMPLE)]
        rules = self.decider.read_rules() if text is None else text
        return await asyncio.to_thread(self.decider.holds, sample, rules)

    def confirm_rule(self, line: str) -> None:
        """The user's yes to a held line, kept beside the rules file: the next check applies
        it. Raises TicError when it cannot be kept."""
        try:
            confirm(self.workspace.root / CONFIRMED_FILE, line)
        except OSError as exc:
            raise TicError(f"cannot keep the confirmation: {exc.strerror or exc}") from None

    def ingest(self, events: list[Event]) -> IngestResult:
        """Add events to the store (ids already there are ignored); with the schedule running
        a check starts within seconds, else the next check sees them."""
        added = ingest(events)
        if added:
            self.bus.publish(EventsStored("ingest", added))
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
        """Use another model from now on, everywhere; the old one is closed once the calls
        running on it have finished (a turn in progress is not cut short)."""
        old = self._model.swap(model)
        self._model_error = model.error if isinstance(model, UnavailableModel) else None
        await self._model.retire(old)
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

    async def warm_up(self) -> None:
        """On a capable model, read what the next notification reply and the next chat turn
        open with into the model's cache now (the backend saves each kind's state and reads
        it back in milliseconds), so neither starts with seconds of prompt reading. A tiny
        model's replies are composed in code: nothing to warm. Errors are logged, not raised:
        a warm-up is only a head start."""
        if self._model.capability == "tiny":
            return
        try:
            for messages in self.hub.openings():
                await self._model.prefill(messages)
        except TicError as exc:
            log.info("model warm-up skipped: %s", exc)

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

    # the workspace's channel ----------------------------------------------------------------

    async def serve(
        self,
        handlers: Mapping[str, RequestHandler],
        *,
        role: str = APP_ROLE,
        busy: Collection[str] = (),
    ) -> None:
        """Become the workspace's running engine: answer the engine's requests, the ``chat``
        session (a terminal chat attached to this engine) and the front end's own
        ``handlers`` (e.g. show, status, quit) on the socket until ``stop_serving``
        (``engine.ipc.endpoint``). The commands in ``busy`` are answered "wait": this front
        end cannot do them, and will soon let the asker take the workspace."""
        await self._endpoint.serve(handlers, role=role, busy=busy)

    async def stop_serving(self, grace: float | None = 10.0) -> None:
        """Stop answering; requests under way get ``grace`` seconds (None: all they need)."""
        await self._endpoint.stop(grace)

    async def _guard_store(self) -> None:
        rescue_deleted_wal(self.workspace.db_path)

    # work the engine gives itself -----------------------------------------------------------

    async def _notify_from_job(self, payload: dict[str, Any]) -> object:
        """A job's notification (a stored payload: checked once, here, as it becomes a draft)."""
        again = AGAIN in (payload.get("refs") or {})
        reason = "you asked to be reminded of it" if again else "a scheduled job you set up is due"
        return await self.hub.notify(NotificationDraft.from_payload(payload, reason=reason))

    async def _run_task(self, task: str) -> str:
        definition = load_agent(self.workspace.agents_dir, "main")
        return await self.loop.run(definition, MemoryTranscript(task), depth=1, read_only=True)


def describe_failure(exc: BaseException, workspace: Workspace) -> TicError | None:
    """An error the engine let by, in the one line a front end shows, when it is a fault of
    where TIC keeps its files rather than a bug: the store's own (SQLite's) errors, a full
    disk, a workspace TIC may not write. None for anything else."""
    if isinstance(exc, pw.DatabaseError | sqlite3.DatabaseError):
        return StoreError(describe_store_error(exc, workspace.db_path))
    if not isinstance(exc, OSError):
        return None
    what = f"cannot write {exc.filename}" if exc.filename else "cannot write"
    if is_full_error(exc):
        return TicError(f"{what}: {full_disk(workspace.root)}; free some space, then try again")
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) and not workspace.writable:
        return WorkspaceReadOnly.at(workspace.root, f"{what} ({exc.strerror})")
    return None
