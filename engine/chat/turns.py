"""Running the main agent on a chat session: one turn at a time per session (user turns and
notification deliveries never overlap), its tokens and tool calls on the bus, its reply
announced with the notifications it delivered (typed, as the front ends show them)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from types import TracebackType

from engine.agent.actions import Action, reply_chars
from engine.agent.definitions import AgentDefinition, load_agent
from engine.agent.loop import AgentLoop
from engine.agent.taint import Sources
from engine.agent.tools.base import ToolContext
from engine.agent.transcript import HistoryWindow, StoredTranscript
from engine.bus import (
    DeliveredNotification,
    EventBus,
    ReplyFinished,
    ReplyStarted,
    ReplyToken,
    ToolCalled,
)
from engine.chat.wording import sender_of
from engine.events import Event
from engine.store.models import ChatMessage, Notification

Events = Mapping[str, Event]
"""The events a batch of notifications came from, by id (each parsed once)."""


class TurnLock:
    """A session's turn lock: one turn at a time, re-entered by the task that holds it (a
    delivery holds it from its synthetic message to the reply, and resumes the session
    within it: ``ChatHub.resume`` takes the same lock)."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[object] | None = None
        self._depth = 0

    def locked(self) -> bool:
        return self._lock.locked()

    async def __aenter__(self) -> TurnLock:
        task = asyncio.current_task()
        if task is None or self._owner is not task:
            await self._lock.acquire()
            self._owner = task
        self._depth += 1
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
            self._lock.release()


class Turns:
    def __init__(
        self,
        loop: AgentLoop,
        bus: EventBus,
        *,
        agent_name: str,
        clock: Callable[[], datetime],
    ):
        self.loop = loop
        self.bus = bus
        self.agent_name = agent_name
        self.clock = clock
        self._locks: dict[int, TurnLock] = {}
        self.history = HistoryWindow()  # where each session's prompt history starts

    def lock(self, session_id: int) -> TurnLock:
        """Held for the whole of a turn on that session."""
        return self._locks.setdefault(session_id, TurnLock())

    def agent(self) -> AgentDefinition:
        return load_agent(self.loop.workspace.agents_dir, self.agent_name)

    async def run(
        self,
        transcript: StoredTranscript,
        *,
        delivered: Sequence[Notification] = (),
        events: Events | None = None,
        reply_only: bool = False,
        propose: Callable[[Action, Sources], str] | None = None,
    ) -> ChatMessage:
        """Run the main agent on the transcript's session as it stands (the caller holds the
        lock); ``delivered`` are the notifications the reply delivers (its bound grows with
        them), ``events`` the events they came from; with ``propose`` a change the model
        chooses is put to the user instead of run. The reply's time to first token and
        total time go out with ``ReplyFinished``."""
        session_id, kind = transcript.session_id, transcript.kind
        definition = self.agent()
        ctx = ToolContext(
            workspace=self.loop.workspace,
            now=self.clock(),
            depth=0,
            agent=definition.name,
            session_id=session_id,
        )
        self.bus.publish(ReplyStarted(session_id, kind))
        started = time.monotonic()
        first_token: list[float] = []

        def on_token(piece: str) -> None:
            if not first_token:
                first_token.append(time.monotonic())
            self.bus.publish(ReplyToken(session_id, piece))

        reply: ChatMessage = await self.loop.run(
            definition,
            transcript,
            depth=0,
            # Event content is untrusted: a turn the user did not start changes nothing.
            read_only=kind != "user",
            reply_only=reply_only,
            context=ctx,
            on_token=on_token,
            on_tool=lambda name, status, args: self.bus.publish(
                ToolCalled(session_id, name, status, args)
            ),
            propose=propose,
            reply_max_chars=reply_chars(len(delivered)),
        )
        first_token_ms = _ms(first_token[0] - started) if first_token else None
        total_ms = _ms(time.monotonic() - started)
        self.finished(
            reply,
            kind,
            delivered,
            events or {},
            first_token_ms=first_token_ms,
            total_ms=total_ms,
        )
        return reply

    def finished(
        self,
        reply: ChatMessage,
        kind: str,
        delivered: Sequence[Notification] = (),
        events: Events | None = None,
        *,
        first_token_ms: int | None = None,
        total_ms: int | None = None,
    ) -> None:
        """Announce a reply (and the notifications it delivered, with the ``events`` they
        came from) on the bus."""
        self.bus.publish(
            ReplyFinished(
                session_id=reply.session_id,
                message_id=reply.id,
                text=reply.content,
                kind=kind,
                notifications=[delivered_notification(n, events or {}) for n in delivered],
                fallback=bool((reply.meta or {}).get("fallback")),
                composed=bool((reply.meta or {}).get("composed")),
                first_token_ms=first_token_ms,
                total_ms=total_ms,
            )
        )


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def delivered_notification(note: Notification, events: Events) -> DeliveredNotification:
    """A stored notification as the bus announces it, with who sent its event and what
    bounding changed in the event on ingest (its originals are kept)."""
    event = events.get(note.event_id) if note.event_id is not None else None
    return DeliveredNotification(
        id=note.id,
        source=note.source,
        event_type=note.event_type,
        summary=note.summary,
        event_time=note.event_time.isoformat() if note.event_time else None,
        refs=dict(note.refs or {}),
        reason=note.reason,
        rule=note.rule,
        sender=sender_of(note),
        notes=list(event.notes) if event is not None else [],
    )
