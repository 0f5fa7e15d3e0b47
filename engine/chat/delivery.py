"""Notification delivery: from ``notify()`` to the main agent's words in the chat.

``notify()`` commits the notification (a typed draft) before returning. The consumer waits
for the first one, keeps collecting for a 200 ms batch window, appends a synthetic assistant
message with a completed ``read_notification`` call holding the batch (at most ``MAX_BATCH``
notifications: the rest follow in the next reply), and calls ``ChatHub.resume()``: the
resumed turn sees the completed call on the last assistant message and runs
:meth:`Delivery.notification_turn`, whose reply is what the user sees. On a tiny model that
turn's reply is composed in code from the facts (:mod:`engine.chat.compose`), with no model
call; a capable model writes it in one call, and a reply that leaves out who or what, or
states a fact the notifications do not hold, is replaced by the composed one. Notifications
are marked delivered in the same transaction as that reply; if the turn fails they stay
pending and are retried with backoff (and after repeated failures delivered in plain words),
so none is ever dropped. A delivery a crash interrupted is undone on start and made again.

The events TIC notified arrive parsed with their drafts and are kept until delivered, so an
event's JSON is parsed once on its way from the store to the toast (an event read back after
a restart, or a job's, is parsed here).
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta, tzinfo
from typing import Any

from engine.agent import taint
from engine.agent.draft import NotificationDraft
from engine.agent.taint import OUTSIDE, Sources
from engine.agent.transcript import StoredTranscript, prompt_messages
from engine.bus import EventBus, NotificationQueued, ReplyStarted, TurnFailed
from engine.chat.compose import compose_facts
from engine.chat.factcheck import check_reply
from engine.chat.facts import NoteFacts, batch_facts, events_of
from engine.chat.turns import Events, Turns
from engine.chat.wording import fallback_text, outside_source
from engine.clock import local_zone_name, zone
from engine.errors import StoreDamaged
from engine.events import Event
from engine.llm.base import Completion, Message
from engine.store import chat
from engine.store.base import database
from engine.store.models import ChatMessage, Notification
from engine.tasks import Periodic, report

log = logging.getLogger(__name__)

BATCH_WINDOW_SECONDS = 0.2
MAX_BATCH = 20  # notifications a reply carries; the rest come in the next reply
SYNTHETIC_REASONING = (
    "The system signaled pending notifications. "
    "Let me read them and surface anything relevant to the user."
)

Resume = Callable[[int, str], Awaitable[ChatMessage]]
"""``ChatHub.resume(session_id, kind)``: the session's next turn, as its last message asks."""


class Delivery:
    def __init__(
        self,
        turns: Turns,
        bus: EventBus,
        *,
        resume: Resume,
        batch_window: float = BATCH_WINDOW_SECONDS,
        retry_delays: tuple[float, ...] = (5.0, 30.0),
        clock: Callable[[], datetime],
        user_zone: Callable[[], tzinfo] = lambda: zone(local_zone_name()),
    ):
        self.turns = turns
        self.bus = bus
        self.resume = resume
        self.retry_delays = retry_delays
        self.clock = clock
        self.user_zone = user_zone
        self.marks: dict[str, Any] = {}  # added to each reply's meta (a tick's "unprinted")
        self._damage_said: set[str] = set()
        self._events: dict[str, Event] = {}  # of pending notifications, as TIC parsed them
        self._consumer = Periodic(
            "chathub-notifications",
            self._deliver_and_wait,
            interval=None,  # only when woken: by notify(), or when a retry is due
            wait_first=True,
            settle=batch_window,
            retry_after=retry_delays[-1],
            logger=log,
            bus=bus,
        )

    # lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Recover from a crash mid-delivery, then start the consumer."""
        self.recover()
        self._consumer.start()
        if chat.pending_count():
            self._consumer.wake()

    async def stop(self) -> None:
        await self._consumer.stop()

    def recover(self) -> None:
        """Undo a delivery that a crash interrupted: its synthetic message (and anything after
        it) goes, its notifications stay pending and are delivered again."""
        for message_id in chat.interrupted_deliveries():
            chat.delete_from(message_id)

    # notify -----------------------------------------------------------------------------

    async def notify(self, draft: NotificationDraft) -> Notification | None:
        """Persist a notification and wake the consumer. Returns None when the same event
        was already notified (its ``refs.event_id`` is the key; a notification delivered
        again on the user's "later" is keyed by its ``refs.again``)."""
        record = chat.add_notification(
            dedup_key=draft.dedup_key or f"adhoc:{uuid.uuid4()}",
            event_id=draft.event_id,
            source=draft.source,
            event_type=draft.event_type,
            summary=draft.summary,
            event_time=draft.event_time,
            refs=draft.refs,
            reason=draft.reason,
            rule=draft.rule,
            created_at=self.clock(),
        )
        if record is None:
            return None
        if draft.event is not None and record.event_id is not None:
            self._events[record.event_id] = draft.event
        self.bus.publish(NotificationQueued(record.id, record.source, record.summary))
        self._consumer.wake()
        return record

    def pending_count(self) -> int:
        return chat.pending_count()

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every pending notification has been delivered (True) or timeout."""

        async def settled() -> None:
            while self.pending_count() or self._consumer.busy:
                await self._consumer.next_step()

        try:
            await asyncio.wait_for(settled(), timeout)
        except TimeoutError:
            return False
        return True

    # the consumer -----------------------------------------------------------------------

    async def _deliver_and_wait(self) -> float | None:
        """One delivery; returns how long until the next one is due: right away (after the
        batch window) while more are due, else when a retry is (None: wait for notify)."""
        delivered = await self.deliver_pending()
        if delivered is not None and chat.any_due(self.clock()):
            return 0.0
        retry_at = chat.next_retry_at()
        if retry_at is None:
            return None
        return max(0.0, (retry_at - self.clock()).total_seconds())

    async def deliver_pending(self) -> ChatMessage | None:
        """Deliver the oldest due notifications (at most ``MAX_BATCH``) in one reply."""
        batch = chat.due_notifications(self.clock(), limit=MAX_BATCH)
        if not batch:
            return None
        session = chat.default_session()
        async with self.turns.lock(session.id):  # until the reply: ``resume`` re-enters it
            if max(n.attempts for n in batch) >= len(self.retry_delays) + 1:
                return self._deliver_plainly(session.id, batch)
            synthetic = self._append_synthetic(session.id, batch)
            try:
                return await self.resume(session.id, "notification")
            except StoreDamaged as exc:  # every try would fail the same: no retries
                chat.delete_from(synthetic.id)
                self._say_damage(session.id, exc)
                return self._deliver_plainly(session.id, batch)
            except Exception as exc:
                chat.delete_from(synthetic.id)
                error = self._record_failure(batch, exc)
                self.bus.publish(TurnFailed(session.id, "notification", error))
                return None

    async def notification_turn(
        self, synthetic: ChatMessage, batch: Sequence[Notification]
    ) -> ChatMessage:
        """The turn resumed on a completed ``read_notification`` (``synthetic`` holds it, for
        ``batch``): its reply tells the user, and marks the batch delivered. On a tiny model
        the reply is composed from the facts and no model is asked; on a capable one the main
        agent's LLM loop writes it, checked against the facts."""
        session_id = synthetic.session_id
        events = self._events_of(batch)
        facts = batch_facts(batch, events)
        if self.turns.loop.model.capability == "tiny":
            return self._deliver_composed(session_id, batch, facts, events)
        # Only the synthetic message: announcing needs no older context, and small models
        # would copy their earlier replies. One model call: everything the reply needs is in
        # the completed read_notification, so the step may only reply (no tool list in the
        # prompt, nothing to call again).
        transcript = CheckedTranscript(
            session_id,
            facts,
            now=self.clock(),
            tz=self.user_zone(),
            reply_meta=self._meta(batch),
            on_reply=self._mark_delivered(batch),
        )
        return await self.turns.run(transcript, delivered=batch, events=events, reply_only=True)

    def opening(self) -> list[Message]:
        """What a capable model's notification reply opens with: the agent's system message
        with no tools (the turn may only reply), as ``notification_turn`` runs it."""
        return [self.turns.loop.system_message(self.turns.agent(), [])]

    def _events_of(self, batch: Sequence[Notification]) -> Events:
        """The batch's events: those TIC handed over parsed, the rest read from the store."""
        kept = {n.event_id: self._events[n.event_id] for n in batch if n.event_id in self._events}
        missing = [n for n in batch if n.event_id is not None and n.event_id not in kept]
        return {**kept, **events_of(missing)} if missing else kept

    def _deliver_composed(
        self,
        session_id: int,
        batch: Sequence[Notification],
        facts: list[NoteFacts],
        events: Events,
    ) -> ChatMessage:
        """The resumed turn on a tiny model: its reply is composed from the facts, and no
        model is asked (the reply's meta says so, for "why?" and the history)."""
        self.bus.publish(ReplyStarted(session_id, "notification"))
        text = compose_facts(facts, self.clock(), self.user_zone())
        transcript = StoredTranscript(
            session_id,
            "notification",
            reply_meta={**self._meta(batch), "composed": True},
            on_reply=self._mark_delivered(batch),
        )
        reply: ChatMessage = transcript.add_reply(text, Completion(text))
        self.turns.finished(reply, "notification", batch, events)
        return reply

    def _append_synthetic(self, session_id: int, batch: list[Notification]) -> ChatMessage:
        with database.atomic():
            msg = chat.add_tool_message(
                session_id,
                {
                    "kind": "notification",
                    "notification_ids": [n.id for n in batch],
                    OUTSIDE: list(taint.merge(outside_source(n) for n in batch)),
                },
                name="read_notification",
                arguments={},
                status="done",
                result_type="json",
                result=json.dumps([n.as_payload() for n in batch], ensure_ascii=False),
                finished_at=self.clock(),
                is_synthetic=True,
                reasoning_content=SYNTHETIC_REASONING,
            )
            chat.attach([n.id for n in batch], msg.id)
        return msg

    def _meta(self, batch: Sequence[Notification]) -> dict[str, Any]:
        return {**_reply_meta(batch), **self.marks}

    def _say_damage(self, session_id: int, exc: StoreDamaged) -> None:
        """A damaged table is reported once (it would fail every try the same way); the
        notifications go out in plain words meanwhile."""
        if exc.table in self._damage_said:
            return
        self._damage_said.add(exc.table)
        log.error("%s", exc)
        self.bus.publish(TurnFailed(session_id, "notification", str(exc)))

    def _mark_delivered(self, batch: Sequence[Notification]) -> Callable[[ChatMessage], None]:
        ids = [n.id for n in batch]

        def mark(reply: ChatMessage) -> None:
            chat.mark_delivered(ids, reply.id, self.clock())
            for n in batch:  # delivered: their events are the store's alone again
                if n.event_id is not None:
                    self._events.pop(n.event_id, None)

        return mark

    def _deliver_plainly(self, session_id: int, batch: list[Notification]) -> ChatMessage:
        """Last resort when the model keeps failing: the user still gets every notification,
        in the composed words (or a bare list should composing fail too)."""
        meta: dict[str, Any] = {"kind": "notification", "fallback": True, **self._meta(batch)}
        events: Events = {}
        try:
            events = self._events_of(batch)
            text = compose_facts(batch_facts(batch, events), self.clock(), self.user_zone())
            meta["composed"] = True
        except Exception:
            log.exception("composing a notification reply failed; listing the summaries")
            text = fallback_text(batch)
        with database.atomic():
            reply = chat.add_message(session_id, "assistant", text, meta=meta)
            self._mark_delivered(batch)(reply)
        self.turns.finished(reply, "notification", batch, events)
        return reply

    def _record_failure(self, batch: list[Notification], exc: BaseException) -> str:
        """Each notification's next try is set back (5 s, then 30 s by default); a failure
        that is not an expected TicError is a bug and reported as one."""
        error = report(
            exc, f"delivering {len(batch)} notification(s) failed", logger=log, bus=self.bus
        )
        now = self.clock()
        for n in batch:
            delay = self.retry_delays[min(n.attempts, len(self.retry_delays) - 1)]
            chat.record_attempt(n.id, error, now + timedelta(seconds=delay))
        return error


def _reply_meta(batch: Sequence[Notification]) -> dict[str, Any]:
    return {
        OUTSIDE: list(taint.merge(outside_source(n) for n in batch)),
        "notification_ids": [n.id for n in batch],
        "sources": sorted({n.source for n in batch}),
        "why": [
            {"event_id": n.event_id, "summary": n.summary, "reason": n.reason, "rule": n.rule}
            for n in batch
        ],
    }


class CheckedTranscript(StoredTranscript):
    """A capable model's notification turn: the reply is checked against the facts (the
    notifications and their events) before it is stored, and replaced by the composed reply
    when it fails, with the failure logged in one line."""

    def __init__(
        self,
        session_id: int,
        facts: list[NoteFacts],
        *,
        now: datetime,
        tz: tzinfo,
        reply_meta: dict[str, Any],
        on_reply: Callable[[ChatMessage], None],
    ):
        super().__init__(session_id, "notification", reply_meta=reply_meta, on_reply=on_reply)
        self.facts = facts
        self.now = now
        self.tz = tz

    def messages(self, budget: int | None = None) -> list[Message]:
        return prompt_messages(self.session_id, 1)  # the synthetic message only

    def outside_content(self, budget: int | None = None) -> Sources:
        rows = chat.recent_messages(1, self.session_id)  # what ``messages`` shows
        return taint.merge(*(taint.sources(row.meta) for row, _ in rows))

    def add_reply(self, text: str, completion: Completion, outside: Sources = ()) -> ChatMessage:
        problems = check_reply(text, self.facts, now=self.now, tz=self.tz)
        if problems:
            log.info(
                "the model's notification reply was replaced by the composed one: %s",
                "; ".join(problems),
            )
            text = compose_facts(self.facts, self.now, self.tz)
            self.reply_meta = {**self.reply_meta, "composed": True, "replaced": problems}
        return super().add_reply(text, completion, outside)
