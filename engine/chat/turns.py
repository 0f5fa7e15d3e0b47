"""Running the main agent on a chat session: one turn at a time per session (user turns and
notification deliveries never overlap), its tokens and tool calls on the bus, its reply
announced with the notifications it delivered."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime

from engine.agent.actions import Action, reply_chars
from engine.agent.definitions import AgentDefinition, load_agent
from engine.agent.loop import AgentLoop
from engine.agent.taint import Sources
from engine.agent.tools.base import ToolContext
from engine.agent.transcript import HistoryWindow, StoredTranscript
from engine.bus import EventBus, ReplyFinished, ReplyStarted, ReplyToken, ToolCalled
from engine.chat.wording import sender_of
from engine.events import Event
from engine.store.inbox import stored_events
from engine.store.models import ChatMessage, Notification


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
        self._locks: dict[int, asyncio.Lock] = {}
        self.history = HistoryWindow()  # where each session's prompt history starts

    def lock(self, session_id: int) -> asyncio.Lock:
        """Held for the whole of a turn on that session."""
        return self._locks.setdefault(session_id, asyncio.Lock())

    def agent(self) -> AgentDefinition:
        return load_agent(self.loop.workspace.agents_dir, self.agent_name)

    async def run(
        self,
        transcript: StoredTranscript,
        *,
        delivered: list[Notification] | None = None,
        reply_only: bool = False,
        propose: Callable[[Action, Sources], str] | None = None,
    ) -> ChatMessage:
        """Run the main agent on the transcript's session as it stands (the caller holds the
        lock); ``delivered`` are the notifications the reply delivers (its bound grows with
        them); with ``propose`` a change the model chooses is put to the user instead of
        run. The reply's time to first token and total time go out with ``ReplyFinished``."""
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
            reply_max_chars=reply_chars(len(delivered or [])),
        )
        first_token_ms = _ms(first_token[0] - started) if first_token else None
        total_ms = _ms(time.monotonic() - started)
        self.finished(
            reply, kind, delivered or [], first_token_ms=first_token_ms, total_ms=total_ms
        )
        return reply

    def finished(
        self,
        reply: ChatMessage,
        kind: str,
        delivered: list[Notification],
        *,
        first_token_ms: int | None = None,
        total_ms: int | None = None,
    ) -> None:
        """Announce a reply (and the notifications it delivered) on the bus."""
        events = stored_events(n.event_id for n in delivered if n.event_id is not None)
        self.bus.publish(
            ReplyFinished(
                session_id=reply.session_id,
                message_id=reply.id,
                text=reply.content,
                kind=kind,
                notifications=[
                    dict(
                        n.as_payload(),
                        reason=n.reason,
                        rule=n.rule,
                        sender=sender_of(n),
                        notes=_notes(events, n.event_id),
                    )
                    for n in delivered
                ],
                fallback=bool((reply.meta or {}).get("fallback")),
                composed=bool((reply.meta or {}).get("composed")),
                first_token_ms=first_token_ms,
                total_ms=total_ms,
            )
        )


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _notes(events: dict[str, Event], event_id: str | None) -> list[str]:
    """What bounding changed in a notified event on ingest (its originals are kept)."""
    event = events.get(event_id) if event_id is not None else None
    return list(event.notes) if event is not None else []
