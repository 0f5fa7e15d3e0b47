"""ChatHub: the chat sessions, user turns, and the notification delivery chain.

``notify()`` commits the notification before returning. The consumer waits for the first
one, keeps collecting for a 200 ms batch window, appends a synthetic assistant message with a
completed ``read_notification`` call holding the batch, and resumes the main agent, whose reply
is what the user sees. Notifications are marked delivered in the same transaction as that
reply; if the turn fails they stay pending and are retried (and after repeated failures
delivered with plain wording), so none is ever dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import jsonschema
import peewee as pw

from engine.agents import AgentDefinition, load_agent
from engine.bus import (
    EventBus,
    NotificationQueued,
    ReplyFinished,
    ReplyStarted,
    ReplyToken,
    ToolCalled,
    TurnFailed,
    UserMessageAdded,
)
from engine.clock import utcnow
from engine.errors import TicError
from engine.events import Event
from engine.feedback import never_rule_for
from engine.intents import lookup_request, preference_change, reminder_request
from engine.runner import AgentLoop, render_result
from engine.store.db import database
from engine.store.models import ChatMessage, ChatSession, ChatToolCall, EventRecord, Notification
from engine.tools.base import ToolContext
from engine.tools.notify import NOTIFICATION_SCHEMA
from engine.transcript import HISTORY_WINDOW, StoredTranscript
from engine.wording import (
    completed_reply,
    confirmed_reply,
    describe_job_outcome,
    fallback_text,
    sender_of,
)

log = logging.getLogger(__name__)

BATCH_WINDOW_SECONDS = 0.2
SYNTHETIC_REASONING = (
    "The system signaled pending notifications. "
    "Let me read them and surface anything relevant to the user."
)


class ChatHub:
    def __init__(
        self,
        loop: AgentLoop,
        bus: EventBus,
        *,
        agent_name: str = "main",
        batch_window: float = BATCH_WINDOW_SECONDS,
        retry_delays: tuple[float, ...] = (5.0, 30.0),
        clock: Callable[[], datetime] = utcnow,
    ):
        self.loop = loop
        self.bus = bus
        self.agent_name = agent_name
        self.batch_window = batch_window
        self.retry_delays = retry_delays
        self.clock = clock
        self._wake = asyncio.Event()
        self._locks: dict[int, asyncio.Lock] = {}
        self._consumer: asyncio.Task[None] | None = None
        self._busy = False
        self._retry_handle: asyncio.TimerHandle | None = None

    # sessions ---------------------------------------------------------------------------

    def default_session(self) -> ChatSession:
        session = ChatSession.select().order_by(ChatSession.id).first()
        return session if session is not None else ChatSession.create(title="Chat")

    def _lock(self, session_id: int) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    def agent(self) -> AgentDefinition:
        return load_agent(self.loop.workspace.agents_dir, self.agent_name)

    # lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Recover from a crash mid-delivery, then start the consumer (a named task)."""
        self.recover()
        if self._consumer is None:
            self._consumer = asyncio.create_task(self._consume(), name="chathub-notifications")
        if Notification.select().where(Notification.state == "pending").exists():
            self._wake.set()

    async def stop(self) -> None:
        if self._retry_handle is not None:
            self._retry_handle.cancel()
        if self._consumer is not None:
            self._consumer.cancel()
            try:
                await self._consumer
            except asyncio.CancelledError:
                pass
            self._consumer = None

    def recover(self) -> None:
        """Undo a delivery that a crash interrupted: its synthetic message (and anything after
        it) goes, its notifications stay pending and are delivered again."""
        stuck = Notification.select().where(
            (Notification.state == "pending") & Notification.message_id.is_null(False)
        )
        for message_id in {n.message_id for n in stuck}:
            self._rollback_from(message_id)

    def _rollback_from(self, message_id: int) -> None:
        with database.atomic():
            msg = ChatMessage.get_or_none(ChatMessage.id == message_id)
            if msg is not None:
                ChatMessage.delete().where(
                    (ChatMessage.session == msg.session_id) & (ChatMessage.id >= message_id)
                ).execute()
            Notification.update(message_id=None).where(
                (Notification.message_id == message_id) & (Notification.state == "pending")
            ).execute()

    # notify -----------------------------------------------------------------------------

    async def notify(
        self, payload: dict[str, Any], *, reason: str | None = None, rule: str | None = None
    ) -> Notification | None:
        """Persist a notification (``notify``'s structure) and wake the consumer. Returns
        None when the same event was already notified (its ``refs.event_id`` is the key)."""
        jsonschema.validate(payload, NOTIFICATION_SCHEMA)
        refs = dict(payload.get("refs") or {})
        event_id = refs.get("event_id")
        key = str(event_id) if event_id else f"adhoc:{uuid.uuid4()}"
        event_time = payload.get("event_time")
        when = None
        if event_time:
            try:
                when = datetime.fromisoformat(event_time)
                if when.tzinfo is None:
                    when = None
            except ValueError:
                when = None
        try:
            with database.atomic():
                record = Notification.create(
                    dedup_key=key,
                    event_id=str(event_id) if event_id else None,
                    source=payload["source"],
                    event_type=payload["event_type"],
                    summary=payload["summary"].strip(),
                    event_time=when,
                    refs=refs,
                    reason=reason,
                    rule=rule,
                    created_at=self.clock(),
                )
        except pw.IntegrityError:
            return None
        self.bus.publish(NotificationQueued(record.id, record.source, record.summary))
        self._wake.set()
        return record

    def pending_count(self) -> int:
        return Notification.select().where(Notification.state == "pending").count()

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every pending notification has been delivered (True) or timeout."""
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        while self.pending_count() or self._busy:
            if deadline is not None and asyncio.get_running_loop().time() > deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    # consumer ---------------------------------------------------------------------------

    async def _consume(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.batch_window)
            self._wake.clear()
            self._busy = True
            try:
                await self.deliver_pending()
            except Exception:
                log.exception("notification delivery failed; will retry")
                self._schedule_retry(self.retry_delays[-1])
            finally:
                self._busy = False

    def _schedule_retry(self, delay: float) -> None:
        if self._retry_handle is not None:
            self._retry_handle.cancel()
        self._retry_handle = asyncio.get_running_loop().call_later(delay, self._wake.set)

    async def deliver_pending(self) -> ChatMessage | None:
        now = self.clock()
        batch = list(
            Notification.select()
            .where(
                (Notification.state == "pending")
                & (Notification.next_attempt_at.is_null() | (Notification.next_attempt_at <= now))
            )
            .order_by(Notification.id)
        )
        if not batch:
            waiting = (
                Notification.select(Notification.next_attempt_at)
                .where(Notification.state == "pending")
                .order_by(Notification.next_attempt_at)
                .first()
            )
            if waiting is not None and waiting.next_attempt_at is not None:
                self._schedule_retry(max(0.0, (waiting.next_attempt_at - now).total_seconds()))
            return None
        session = self.default_session()
        async with self._lock(session.id):
            if max(n.attempts for n in batch) >= len(self.retry_delays) + 1:
                return self._deliver_plainly(session.id, batch)
            synthetic = self._append_synthetic(session.id, batch)
            try:
                # Only the synthetic message: announcing needs no older context, and small
                # models would copy their earlier replies.
                return await self._resume(session.id, "notification", batch, window=1)
            except Exception as exc:
                self._rollback_from(synthetic.id)
                self._record_failure(batch, exc)
                self.bus.publish(TurnFailed(session.id, "notification", _one_line(exc)))
                return None

    def _append_synthetic(self, session_id: int, batch: list[Notification]) -> ChatMessage:
        payloads = [n.as_payload() for n in batch]
        with database.atomic():
            msg = ChatMessage.create(
                session=session_id,
                role="assistant",
                content="",
                is_synthetic=True,
                reasoning_content=SYNTHETIC_REASONING,
                meta={"kind": "notification", "notification_ids": [n.id for n in batch]},
            )
            ChatToolCall.create(
                message=msg,
                name="read_notification",
                arguments={},
                status="done",
                result_type="json",
                result=json.dumps(payloads, ensure_ascii=False),
                finished_at=self.clock(),
            )
            Notification.update(message_id=msg.id).where(
                Notification.id.in_([n.id for n in batch])
            ).execute()
        return msg

    def _reply_meta(self, batch: list[Notification]) -> dict[str, Any]:
        return {
            "notification_ids": [n.id for n in batch],
            "sources": sorted({n.source for n in batch}),
            "why": [
                {"event_id": n.event_id, "summary": n.summary, "reason": n.reason, "rule": n.rule}
                for n in batch
            ],
        }

    def _mark_delivered(self, batch: list[Notification]) -> Callable[[ChatMessage], None]:
        ids = [n.id for n in batch]

        def mark(reply: ChatMessage) -> None:
            Notification.update(
                state="delivered", reply_message_id=reply.id, delivered_at=self.clock()
            ).where(Notification.id.in_(ids)).execute()

        return mark

    def _deliver_plainly(self, session_id: int, batch: list[Notification]) -> ChatMessage:
        """Last resort when the model keeps failing: the user still gets every notification."""
        with database.atomic():
            reply = ChatMessage.create(
                session=session_id,
                role="assistant",
                content=fallback_text(batch),
                meta={"kind": "notification", "fallback": True, **self._reply_meta(batch)},
            )
            self._mark_delivered(batch)(reply)
        self._publish_finished(reply, "notification", batch)
        return reply

    def _record_failure(self, batch: list[Notification], exc: BaseException) -> None:
        now = self.clock()
        for n in batch:
            delay = self.retry_delays[min(n.attempts, len(self.retry_delays) - 1)]
            Notification.update(
                attempts=Notification.attempts + 1,
                last_error=_one_line(exc),
                next_attempt_at=now + timedelta(seconds=delay),
            ).where(Notification.id == n.id).execute()
        self._schedule_retry(self.retry_delays[0])
        log.warning("delivering %d notification(s) failed: %s", len(batch), _one_line(exc))

    # turns ------------------------------------------------------------------------------

    async def _resume(
        self,
        session_id: int,
        kind: str,
        batch: list[Notification] | None = None,
        complete_reply: Callable[[str], str] | None = None,
        reply_only: bool = False,
        window: int = HISTORY_WINDOW,
    ) -> ChatMessage:
        """Run the main agent on the session as it stands (the caller holds the lock)."""
        definition = self.agent()
        meta = self._reply_meta(batch) if batch else {}
        transcript = StoredTranscript(
            session_id,
            kind,
            reply_meta=meta,
            on_reply=self._mark_delivered(batch) if batch else None,
            complete_reply=completed_reply(batch) if batch else complete_reply,
            window=window,
        )
        ctx = ToolContext(
            workspace=self.loop.workspace,
            now=self.clock(),
            depth=0,
            agent=definition.name,
            session_id=session_id,
        )
        self.bus.publish(ReplyStarted(session_id, kind))
        reply: ChatMessage = await self.loop.run(
            definition,
            transcript,
            depth=0,
            # Event content is untrusted: a turn the user did not start changes nothing.
            read_only=kind != "user",
            reply_only=reply_only,
            context=ctx,
            on_token=lambda piece: self.bus.publish(ReplyToken(session_id, piece)),
            on_tool=lambda name, status, args: self.bus.publish(
                ToolCalled(session_id, name, status, args)
            ),
        )
        self._publish_finished(reply, kind, batch or [])
        return reply

    def _publish_finished(self, reply: ChatMessage, kind: str, batch: list[Notification]) -> None:
        self.bus.publish(
            ReplyFinished(
                session_id=reply.session_id,
                message_id=reply.id,
                text=reply.content,
                kind=kind,
                notifications=[
                    dict(n.as_payload(), reason=n.reason, rule=n.rule, sender=sender_of(n))
                    for n in batch
                ],
                fallback=bool((reply.meta or {}).get("fallback")),
            )
        )

    async def resume(self, session_id: int | None = None, kind: str = "user") -> ChatMessage:
        sid = session_id if session_id is not None else self.default_session().id
        async with self._lock(sid):
            return await self._resume(sid, kind)

    async def mute(self, reply_message_id: int) -> ChatMessage:
        """ "Don't notify me about this" on a notification reply: the main agent's turn gets a
        Never-notify rule for that kind of event, applied through ``add_notification_rule``
        (a recurring reminder is cancelled instead), then confirms in its own words."""
        reply = ChatMessage.get_or_none(ChatMessage.id == reply_message_id)
        notes = list(Notification.select().where(Notification.reply_message_id == reply_message_id))
        if reply is None or not notes:
            raise TicError(f"message {reply_message_id} is not a notification")
        actions: list[tuple[str, dict[str, Any]]] = []
        for note in notes:
            event = _event_of(note)
            if event is not None:
                actions.append(
                    ("add_notification_rule", {"section": "never", "rule": never_rule_for(event)})
                )
            elif note.source == "cron" and note.refs.get("job_id"):
                actions.append(("cancel_job", {"job_id": int(note.refs["job_id"])}))
        unique = list({json.dumps(a, sort_keys=True): a for a in actions}.values())
        about = "; ".join(n.summary for n in notes)[:300]
        sid = reply.session_id
        async with self._lock(sid):
            request = ChatMessage.create(
                session=sid,
                role="user",
                content=f"Don't notify me about this: {about}",
                meta={"kind": "feedback", "reply_to": reply_message_id},
            )
            self.bus.publish(UserMessageAdded(sid, request.id, request.content))
            outcomes = [await self._run_tool_for_user(sid, name, args) for name, args in unique]
            return await self._confirm(sid, "feedback", *outcomes)

    async def _confirm(self, session_id: int, kind: str, *outcomes: str) -> ChatMessage:
        """The agent confirms a change already made (a reply-only turn); what it leaves out
        is added in plain words, and plain words stand in if the model fails, so the user
        always hears what changed."""
        try:
            return await self._resume(
                session_id,
                kind,
                complete_reply=confirmed_reply(outcomes),
                reply_only=True,
                window=1 + len(outcomes),  # the request and the change made for it
            )
        except TicError as exc:
            log.warning("confirming a preference change failed: %s", _one_line(exc))
            message = ChatMessage.create(
                session=session_id,
                role="assistant",
                content=("Done: " + "; ".join(outcomes) + ".") if outcomes else "Noted.",
                meta={"kind": kind, "fallback": True},
            )
            self._publish_finished(message, kind, [])
            return message

    async def _run_tool_for_user(self, session_id: int, name: str, args: dict[str, Any]) -> str:
        """Run a tool the user's words clearly ask for, recorded as the agent's completed call
        (so any model, however small, continues from a correct step)."""
        tool = self.loop.registry.get(name)
        ctx = ToolContext(workspace=self.loop.workspace, now=self.clock(), session_id=session_id)
        result_type = "string"
        try:
            value, status = await tool.call(args, ctx), "done"
            result_type = tool.result_type
            result = render_result(value, result_type)
        except TicError as exc:
            result, status = _one_line(exc), "failed"
        with database.atomic():
            msg = ChatMessage.create(
                session=session_id, role="assistant", content="", meta={"kind": "feedback"}
            )
            ChatToolCall.create(
                message=msg,
                name=name,
                arguments=args,
                status=status,
                result_type=result_type,
                result=result,
                finished_at=self.clock(),
            )
        self.bus.publish(ToolCalled(session_id, name, status, args))
        return result

    async def send(self, text: str, session_id: int | None = None) -> ChatMessage:
        """A user turn: store the user's message, then run the main agent to its reply.
        A recognised preference change ("stop telling me about X") is applied as the agent's
        ``add_notification_rule`` call first, so it works the same with any model."""
        sid = session_id if session_id is not None else self.default_session().id
        change = preference_change(text)
        reminder = reminder_request(text) if change is None else None
        lookup = lookup_request(text) if change is None and reminder is None else None
        async with self._lock(sid):
            ChatMessage.create(session=sid, role="user", content=text)
            if change is not None:
                outcome = await self._run_tool_for_user(
                    sid, "add_notification_rule", {"section": change.section, "rule": change.rule}
                )
                return await self._confirm(sid, "user", outcome)
            if reminder is not None:
                outcome = await self._run_tool_for_user(sid, "schedule_job", reminder)
                return await self._confirm(sid, "user", describe_job_outcome(outcome))
            if lookup is not None:  # the answer needs it: look it up first, then answer
                await self._run_tool_for_user(sid, *lookup)
            try:
                return await self._resume(sid, "user")
            except Exception as exc:
                self.bus.publish(TurnFailed(sid, "user", _one_line(exc)))
                raise


def _event_of(notification: Notification) -> Event | None:
    if notification.event_id is None:
        return None
    row = EventRecord.get_or_none(EventRecord.event_id == notification.event_id)
    return Event.model_validate_json(row.payload) if row is not None else None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
