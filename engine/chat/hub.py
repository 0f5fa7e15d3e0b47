"""ChatHub: the chat as the rest of the engine sees it. User turns (a recognised preference
change, reminder or lookup is applied as the agent's own tool call first, so it works the same
with any model), "Don't notify me about this" (mute), and notifications handed on to
:class:`~engine.chat.delivery.Delivery`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from engine.agent.loop import AgentLoop, render_result
from engine.agent.tools.base import ToolContext
from engine.agent.transcript import StoredTranscript
from engine.bus import EventBus, ToolCalled, TurnFailed, UserMessageAdded
from engine.chat.delivery import BATCH_WINDOW_SECONDS, Delivery
from engine.chat.intents import lookup_request, preference_change, reminder_request
from engine.chat.turns import Turns
from engine.chat.wording import confirmed_reply, describe_job_outcome
from engine.clock import utcnow
from engine.errors import TicError
from engine.store import chat
from engine.store.inbox import stored_event
from engine.store.models import ChatMessage, ChatSession, Notification
from engine.tasks import one_line
from engine.triage.feedback import never_rule_for

log = logging.getLogger(__name__)


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
        self.clock = clock
        self.turns = Turns(loop, bus, agent_name=agent_name, clock=clock)
        self.delivery = Delivery(
            self.turns, bus, batch_window=batch_window, retry_delays=retry_delays, clock=clock
        )

    # lifecycle and notifications ----------------------------------------------------------

    def start(self) -> None:
        """Recover from a crash mid-delivery, then start delivering notifications."""
        self.delivery.start()

    async def stop(self) -> None:
        await self.delivery.stop()

    async def notify(
        self, payload: dict[str, Any], *, reason: str | None = None, rule: str | None = None
    ) -> Notification | None:
        """Persist a notification and have it delivered (see :meth:`Delivery.notify`)."""
        return await self.delivery.notify(payload, reason=reason, rule=rule)

    def pending_count(self) -> int:
        return self.delivery.pending_count()

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every pending notification has been delivered (True) or timeout."""
        return await self.delivery.drain(timeout)

    # turns --------------------------------------------------------------------------------

    def default_session(self) -> ChatSession:
        return chat.default_session()

    async def send(self, text: str, session_id: int | None = None) -> ChatMessage:
        """A user turn: store the user's message, then run the main agent to its reply.
        A recognised preference change ("stop telling me about X") is applied as the agent's
        ``add_notification_rule`` call first, so it works the same with any model."""
        sid = session_id if session_id is not None else self.default_session().id
        change = preference_change(text)
        reminder = reminder_request(text) if change is None else None
        lookup = lookup_request(text) if change is None and reminder is None else None
        async with self.turns.lock(sid):
            chat.add_message(sid, "user", text)
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
                return await self.turns.run(StoredTranscript(sid, "user"))
            except Exception as exc:  # the caller reports it; the chat shows it
                self.bus.publish(TurnFailed(sid, "user", one_line(exc)))
                raise

    async def resume(self, session_id: int | None = None, kind: str = "user") -> ChatMessage:
        sid = session_id if session_id is not None else self.default_session().id
        async with self.turns.lock(sid):
            return await self.turns.run(StoredTranscript(sid, kind))

    async def mute(self, reply_message_id: int) -> ChatMessage:
        """ "Don't notify me about this" on a notification reply: the main agent's turn gets a
        Never-notify rule for that kind of event, applied through ``add_notification_rule``
        (a recurring reminder is cancelled instead), then confirms in its own words."""
        reply = chat.get_message(reply_message_id)
        notes = chat.notifications_of_reply(reply_message_id)
        if reply is None or not notes:
            raise TicError(f"message {reply_message_id} is not a notification")
        actions: list[tuple[str, dict[str, Any]]] = []
        for note in notes:
            event = stored_event(note.event_id) if note.event_id is not None else None
            if event is not None:
                actions.append(
                    ("add_notification_rule", {"section": "never", "rule": never_rule_for(event)})
                )
            elif note.source == "cron" and note.refs.get("job_id"):
                actions.append(("cancel_job", {"job_id": int(note.refs["job_id"])}))
        unique = list({json.dumps(a, sort_keys=True): a for a in actions}.values())
        about = "; ".join(n.summary for n in notes)[:300]
        sid = reply.session_id
        async with self.turns.lock(sid):
            request = chat.add_message(
                sid,
                "user",
                f"Don't notify me about this: {about}",
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
            transcript = StoredTranscript(
                session_id,
                kind,
                complete_reply=confirmed_reply(outcomes),
                window=1 + len(outcomes),  # the request and the change made for it
            )
            return await self.turns.run(transcript, reply_only=True)
        except TicError as exc:
            log.warning("confirming a preference change failed: %s", one_line(exc))
            message = chat.add_message(
                session_id,
                "assistant",
                ("Done: " + "; ".join(outcomes) + ".") if outcomes else "Noted.",
                meta={"kind": kind, "fallback": True},
            )
            self.turns.finished(message, kind, [])
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
            result, status = one_line(exc), "failed"
        chat.add_tool_message(
            session_id,
            {"kind": "feedback"},
            name=name,
            arguments=args,
            status=status,
            result_type=result_type,
            result=result,
            finished_at=self.clock(),
        )
        self.bus.publish(ToolCalled(session_id, name, status, args))
        return result
