"""ChatHub: the chat as the rest of the engine sees it. User turns (a recognised preference
change, reminder or look-up is applied as the agent's own tool call and answered from its
result in code, so it works the same with any model), "Don't notify me about this" (mute),
and notifications handed on to :class:`~engine.chat.delivery.Delivery`.

Writes happen only on the user's word: on a tiny model only what code recognises changes
anything (the model is never asked), on a capable model a change the model chooses is put
to the user and runs on their explicit "yes". What quotes outside content is stored marked
(``engine.agent.taint``), so a model turn that sees it later is read-only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engine.agent import taint
from engine.agent.actions import Action
from engine.agent.draft import NotificationDraft
from engine.agent.loop import AgentLoop, render_result
from engine.agent.taint import Sources
from engine.agent.tools.base import ToolContext
from engine.agent.tools.notify import ReadNotificationTool
from engine.agent.transcript import Proposal, StoredTranscript, pending_proposal
from engine.bus import EventBus, ReplyStarted, ToolCalled, TurnFailed, UserMessageAdded
from engine.chat.answers import (
    DECLINED,
    READ_AS,
    cannot_answer,
    help_answer,
    lookup_answer,
    nothing_pending,
    proposal,
    read_rule_answer,
    refused_answer,
    reminder_answer,
    rule_answer,
    silenced_answer,
    thanks,
    told_answer,
    tool_answer,
    unidentified_answer,
    unread_request_answer,
)
from engine.chat.calendar_answer import (
    CalendarQuestion,
    calendar_question,
    calendar_reply,
    no_calendar,
)
from engine.chat.delivery import BATCH_WINDOW_SECONDS, Delivery
from engine.chat.digest import DigestRequest, digest_request
from engine.chat.digest_answer import digest_reply
from engine.chat.intents import (
    RuleChange,
    lookup_request,
    preference_change,
    reminder_request,
    social_request,
    yes_or_no,
)
from engine.chat.removal import (
    Narrowing,
    Removal,
    asks_removal,
    contradicted,
    narrowed,
    narrowed_answer,
    proposed_answer,
    read_removal,
    removed_answer,
    which_answer,
)
from engine.chat.requests import ReadRequest, read_request, section_text
from engine.chat.said_in import language_of
from engine.chat.turns import Turns
from engine.chat.wording import outside_source
from engine.clock import utcnow
from engine.errors import TicError
from engine.llm.base import Message
from engine.modeltypes import is_builtin
from engine.store import chat, inbox
from engine.store.digest import DIGEST_UNTIL, has_calendar_events
from engine.store.inbox import stored_event
from engine.store.models import ChatMessage, ChatSession, Notification
from engine.tasks import one_line
from engine.triage.feedback import beyond, never_rule_for, would_silence
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.parse import CUSTOM
from engine.triage.summary import summarize
from engine.triage.tools import HELD, RemoveNotificationRuleTool
from engine.types import MutePreview, SilencedEvent

READ_NOTIFICATION = ReadNotificationTool.name
PREVIEW_DAYS = 30
PREVIEW_LIMIT = 20  # silenced notifications listed in a preview (the total is counted)

REMOVE = RemoveNotificationRuleTool.name


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
        calendar_connected: Callable[[], bool] = lambda: False,
    ):
        self.loop = loop
        self.bus = bus
        self.clock = clock
        self.calendar_connected = calendar_connected  # a calendar account is set up
        self.turns = Turns(loop, bus, agent_name=agent_name, clock=clock)
        self.delivery = Delivery(
            self.turns,
            bus,
            resume=self.resume,
            batch_window=batch_window,
            retry_delays=retry_delays,
            clock=clock,
        )

    # lifecycle and notifications ----------------------------------------------------------

    def start(self) -> None:
        """Recover from a crash mid-delivery, then start delivering notifications."""
        self.delivery.start()

    async def stop(self) -> None:
        await self.delivery.stop()

    async def notify(self, draft: NotificationDraft) -> Notification | None:
        """Persist a notification and have it delivered (see :meth:`Delivery.notify`)."""
        return await self.delivery.notify(draft)

    def pending_count(self) -> int:
        return self.delivery.pending_count()

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every pending notification has been delivered (True) or timeout."""
        return await self.delivery.drain(timeout)

    # turns --------------------------------------------------------------------------------

    def default_session(self) -> ChatSession:
        return chat.default_session()

    @property
    def tiny(self) -> bool:
        """A tiny model writes no sentence shown as fact and chooses no change."""
        return self.loop.model.capability == "tiny"

    async def send(self, text: str, session_id: int | None = None) -> ChatMessage:
        """A user turn: store the user's message, then answer it. What code recognises (a
        rule change, a reminder, a look-up, a yes to a proposed change) is done with the
        tool and answered from its result; on a tiny model everything else gets an honest
        composed answer, on a capable model the main agent answers (a change it chooses is
        put to the user first)."""
        sid = session_id if session_id is not None else self.default_session().id
        async with self.turns.lock(sid):
            proposed = pending_proposal(sid)
            chat.add_message(sid, "user", text)
            try:
                return await self._answer(sid, text, proposed)
            except Exception as exc:  # the caller reports it; the chat shows it
                self.bus.publish(TurnFailed(sid, "user", one_line(exc)))
                raise

    async def _answer(self, sid: int, text: str, proposed: Proposal | None) -> ChatMessage:
        now = self.clock().astimezone()
        decision = yes_or_no(text)
        if proposed is not None and decision is not None:
            return await self._answer_proposal(sid, proposed, decision, now)
        digest = digest_request(text, now)
        if digest is not None and "digest" in self.loop.registry.names():
            return await self._digest(sid, digest, now)
        question = calendar_question(text, now)
        if question is not None and "upcoming_calendar" in self.loop.registry.names():
            return await self._calendar(sid, question, now)
        request = read_request(text, self._rules_text())
        changed = await self._rules_change(sid, text, request)
        if changed is not None:
            return changed
        reminder = reminder_request(text)
        if reminder is None and request.unread and self.tiny and lookup_request(text) is None:
            return self._composed(
                sid, "user", unread_request_answer(request.unread, request.language)
            )
        if reminder is not None:
            status, result = await self._run_tool_for_user(sid, "schedule_job", dict(reminder))
            return self._composed(sid, "user", reminder_answer(reminder, status, result, now, text))
        looked_up = await self._lookup(sid, text, now)
        if looked_up is not None:
            return looked_up
        if self.tiny:
            return self._composed(sid, "user", self._tiny_answer(text, decision))
        transcript = StoredTranscript(sid, "user", history=self.turns.history)
        return await self.turns.run(transcript, propose=_proposal)

    async def _answer_proposal(
        self, sid: int, proposed: Proposal, decision: bool, now: datetime
    ) -> ChatMessage:
        """The user's yes or no to the change last put to them."""
        if not decision:
            return self._composed(sid, "user", DECLINED)
        name, args, outside = proposed.tool, proposed.arguments, proposed.outside
        status, result = await self._run_tool_for_user(sid, name, args, outside)
        if name == REMOVE and status == "done":
            answer = removed_answer(proposed.language, args["section"], args["rule"])
        else:
            answer = tool_answer(name, args, status, result, now)
        return self._composed(sid, "user", answer, outside=outside)

    async def _rules_change(self, sid: int, text: str, request: ReadRequest) -> ChatMessage | None:
        """A change to the rules the message asks for: a line read in full is added, a line
        of the file it names is put to the user for removal, a known phrasing is added; None
        when it asks for none."""
        narrowing = self._narrowed(text)
        if narrowing is not None:
            return await self._narrow(sid, narrowing)
        read_whole = bool(request.read) and not request.unread
        removal = self._contradicted(text) if read_whole else None
        if removal is None and (not read_whole or asks_removal(text)):
            removal = self._removal(text)  # "pode voltar a me avisar do vôlei": the Never line
        if removal is not None:
            return self._put_removal(sid, removal)
        change = preference_change(text)
        if (change is None or not self._reads(change)) and read_whole:
            return await self._read_request(sid, request)  # the reader read all of it
        if change is None:
            return None
        if request.unread and self.tiny and not self._reads(change):
            return self._composed(
                sid, "user", unread_request_answer(request.unread, request.language)
            )
        args = {"section": change.section, "rule": change.rule}
        status, result = await self._run_tool_for_user(sid, "add_notification_rule", args)
        read = READ_AS.search(result) if status == "done" else None
        written = " ".join(change.rule.split()).lstrip("-*• ").strip()
        follow_up = None
        if read is not None and read.group(2) is not None and HELD in result:
            follow_up = {"tool": "confirm_notification_rule", "arguments": {"rule": written}}
        elif read is not None and read.group(3):
            arguments = {"rule": written, "kind": read.group(3)}
            follow_up = {"tool": "accept_rule_reading", "arguments": arguments}
        answer = rule_answer(args, status, result)
        return self._composed(sid, "user", answer, proposed=follow_up)

    async def _lookup(self, sid: int, text: str, now: datetime) -> ChatMessage | None:
        """A question about what arrived or what is on the calendar, answered from a read
        tool; None when the message asks none."""
        lookup = lookup_request(text)
        if lookup is None or lookup.tool not in self.loop.registry.names():
            return None
        if lookup.tool == "upcoming_calendar" and not self._has_calendar():
            return self._composed(sid, "user", no_calendar("en"))
        status, result = await self._run_tool_for_user(sid, lookup.tool, lookup.arguments)
        answer = lookup_answer(lookup.tool, lookup.about, status, result, now)
        return self._composed(sid, "user", answer, outside=self._brings(lookup.tool))

    def _removal(self, text: str) -> Removal | None:
        """The line of the rules file the message asks to take out, if it asks for one."""
        if REMOVE not in self.loop.registry.names():
            return None
        return read_removal(text, self._rules_text())

    def _narrowed(self, text: str) -> Narrowing | None:
        """The Always line a request makes conditional, if it names one alone."""
        if REMOVE not in self.loop.registry.names():
            return None
        return narrowed(text, self._rules_text())

    async def _narrow(self, sid: int, narrowing: Narrowing) -> ChatMessage:
        """The conditional line is added as read; the Always line it narrows, which would
        still let everything through, is put to the user for removal."""
        code = narrowing.language
        args = {"section": CUSTOM, "rule": narrowing.line}
        status, result = await self._run_tool_for_user(sid, "add_notification_rule", args)
        (read,) = compile_rules_text(section_text(CUSTOM, narrowing.line))
        reading = explain_rule(read, language=code).reading
        answer = read_rule_answer(args, status, result, language=code, reading=reading)
        if status != "done":
            return self._composed(sid, "user", answer)
        old = narrowing.rule
        arguments = {"section": old.section, "rule": old.text}
        proposal = {"tool": REMOVE, "arguments": arguments, "language": code}
        return self._composed(
            sid, "user", f"{answer}\n{narrowed_answer(narrowing)}", proposed=proposal
        )

    def _contradicted(self, text: str) -> Removal | None:
        """The line of the rules file a request read in full takes back, if any."""
        if REMOVE not in self.loop.registry.names():
            return None
        return contradicted(text, self._rules_text())

    def _rules_text(self) -> str:
        """The rules file as it is now; empty when there is none or it cannot be read (the
        file tools say why when asked)."""
        try:
            return self.loop.workspace.rules_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def _put_removal(self, sid: int, removal: Removal) -> ChatMessage:
        """The line found is put to the user, to be taken out after their yes; lines alike
        are listed and none is removed."""
        if removal.rule is None:
            return self._composed(sid, "user", which_answer(removal))
        arguments = {"section": removal.rule.section, "rule": removal.rule.text}
        proposal = {"tool": REMOVE, "arguments": arguments, "language": removal.language}
        return self._composed(sid, "user", proposed_answer(removal), proposed=proposal)

    async def _digest(self, sid: int, request: DigestRequest, now: datetime) -> ChatMessage:
        """What arrived, from the ``digest`` tool, in the question's language; the reply
        keeps the moment it covers up to: the user has looked until then."""
        status, result = await self._run_tool_for_user(sid, "digest", request.arguments())
        answer = digest_reply(request, status, result, now)
        looked = None
        if status == "done":
            looked = {DIGEST_UNTIL: (request.period.end if request.period else now).isoformat()}
        return self._composed(sid, "user", answer, outside=self._brings("digest"), marks=looked)

    async def _calendar(self, sid: int, question: CalendarQuestion, now: datetime) -> ChatMessage:
        """A calendar question by any day, answered from ``upcoming_calendar`` in its
        language; with no calendar at all, how to connect one."""
        if not self._has_calendar():
            return self._composed(sid, "user", no_calendar(question.language))
        args = {"hours": question.hours(now)}
        status, result = await self._run_tool_for_user(sid, "upcoming_calendar", args)
        answer = calendar_reply(question, status, result, now)
        return self._composed(sid, "user", answer, outside=self._brings("upcoming_calendar"))

    def _has_calendar(self) -> bool:
        """A calendar account is connected, or calendar events were ever stored."""
        return self.calendar_connected() or has_calendar_events()

    @staticmethod
    def _reads(change: RuleChange) -> bool:
        """Whether the rule a phrasing asks for is read in full in its section."""
        return all(
            c.understood for c in compile_rules_text(section_text(change.section, change.rule))
        )

    async def _read_request(self, sid: int, request: ReadRequest) -> ChatMessage:
        """A rule change the rules reader read in full: each instruction is added to its
        section as the user said it."""
        answers = []
        for definition in request.defines:  # "my landlord = Mr Adeyemi": read with the rule
            args = {"section": request.read[0][0], "rule": definition}
            await self._run_tool_for_user(sid, "add_notification_rule", args)
        for section, said, reading in request.read:
            args = {"section": section, "rule": said}
            status, result = await self._run_tool_for_user(sid, "add_notification_rule", args)
            answers.append(
                read_rule_answer(args, status, result, language=request.language, reading=reading)
            )
        if request.talk:
            answers.append(told_answer(request.talk, request.language))
        return self._composed(sid, "user", "\n".join(answers))

    def _tiny_answer(self, text: str, decision: bool | None) -> str:
        """What a tiny model cannot do is said honestly, with the way out."""
        builtin = is_builtin(self.loop.model.name)
        social = social_request(text)
        if social == "help":
            return help_answer(builtin=builtin)
        code = language_of(text)
        if social == "thanks":
            return thanks(code)
        if decision is not None:
            return nothing_pending(code)
        return cannot_answer(builtin=builtin, language=code)

    def _composed(
        self,
        session_id: int,
        kind: str,
        text: str,
        *,
        outside: Sources = (),
        proposed: dict[str, Any] | None = None,
        marks: dict[str, Any] | None = None,
    ) -> ChatMessage:
        """A reply composed in code from the facts, recorded as such (``outside``: where the
        outside content it quotes came from, see ``engine.agent.taint``; ``proposed``: the
        change it asks the user's yes for; ``marks``: more for its meta)."""
        self.bus.publish(ReplyStarted(session_id, kind))
        meta: dict[str, Any] = {"kind": kind, "composed": True, **(marks or {})}
        if proposed is not None:
            meta["proposed"] = proposed
        message = chat.add_message(session_id, "assistant", text, meta=taint.marked(meta, outside))
        self.turns.finished(message, kind, [])
        return message

    def openings(self) -> list[list[Message]]:
        """What the next notification reply and the next user turn on a capable model will
        open with (see ``LanguageModel.prefill``); the user turn's last, so its opening is
        the one left in the model's cache."""
        sid = self.default_session().id
        user_turn = StoredTranscript(sid, "user", history=self.turns.history)
        return [
            self.delivery.opening(),
            self.loop.opening(self.turns.agent(), user_turn),
        ]

    async def resume(self, session_id: int | None = None, kind: str = "user") -> ChatMessage:
        """The session's next turn, from where it stands (``resume_turn``). A delivery calls
        it after its synthetic message and completed ``read_notification``, holding the
        session's lock (which this re-enters)."""
        sid = session_id if session_id is not None else self.default_session().id
        async with self.turns.lock(sid):
            return await self.resume_turn(sid, kind)

    async def resume_turn(self, session_id: int, kind: str = "user") -> ChatMessage:
        """Run the turn the session's last message calls for (the caller holds the lock): a
        completed ``read_notification`` call on the last assistant message, its
        notifications still pending, is a notification turn (on a tiny model the composer,
        on a capable one the LLM loop: :meth:`Delivery.notification_turn`); otherwise the
        main agent answers the session as it stands."""
        for last, calls in chat.recent_messages(1, session_id):
            completed = any(c.name == READ_NOTIFICATION and c.status == "done" for c in calls)
            batch = chat.notifications_of_message(last.id) if completed else []
            if last.role == "assistant" and batch:
                return await self.delivery.notification_turn(last, batch)
        return await self.turns.run(StoredTranscript(session_id, kind, history=self.turns.history))

    def mute_plan(self, reply_message_id: int) -> MutePlan:
        """What "Don't notify me about this" on a notification reply would do: a Never rule
        per kind of event, keyed on who sent it (``never_rule_for``); a recurring reminder
        cancelled instead; nothing for an event nothing identifies."""
        reply = chat.get_message(reply_message_id)
        notes = chat.notifications_of_reply(reply_message_id)
        if reply is None or not notes:
            raise TicError(f"message {reply_message_id} is not a notification")
        plan = MutePlan(reply, notes)
        now = self.clock()
        recent = inbox.notified_since(now - timedelta(days=PREVIEW_DAYS))
        muted = {n.event_id for n in notes}  # what the reply is about: all of it is "this"
        for note in notes:
            event = stored_event(note.event_id) if note.event_id is not None else None
            if event is not None:
                rule = never_rule_for(event)
                if rule is None:
                    plan.unidentified.append(note)
                    continue
                others = [e for e in beyond(rule, event, recent, now) if e.id not in muted]
                if others:
                    if rule not in [r for r, _, _ in plan.refused]:
                        plan.refused.append((rule, len(others), summarize(others[0])))
                    continue
                plan.add("add_notification_rule", {"section": "never", "rule": rule})
            elif note.source == "cron" and note.refs.get("job_id"):
                plan.add("cancel_job", {"job_id": int(note.refs["job_id"])})
        return plan

    def mute_preview(self, reply_message_id: int, days: int = PREVIEW_DAYS) -> MutePreview:
        """The rules a mute would add, and the notifications of the last ``days`` days they
        would have silenced (newest first), before anything changes."""
        plan = self.mute_plan(reply_message_id)
        rules = [
            str(args["rule"]) for name, args in plan.actions if name == "add_notification_rule"
        ]
        jobs = [int(args["job_id"]) for name, args in plan.actions if name == "cancel_job"]
        now = self.clock()
        silenced = would_silence(rules, inbox.notified_since(now - timedelta(days=days)), now)
        return MutePreview(
            rules=rules,
            cancelled_jobs=jobs,
            silenced=[
                SilencedEvent(
                    e.id, e.source, e.sender.display() if e.sender else "", e.time, summarize(e)
                )
                for e in silenced[:PREVIEW_LIMIT]
            ],
            silenced_total=len(silenced),
            unidentified=[n.summary for n in plan.unidentified],
            days=days,
            refused=[refused_answer(rule, n, eg, PREVIEW_DAYS) for rule, n, eg in plan.refused],
        )

    async def mute(self, reply_message_id: int) -> ChatMessage:
        """ "Don't notify me about this" on a notification reply: a Never-notify rule for
        that kind of event, keyed on who sent it, applied through ``add_notification_rule``
        (a recurring reminder is cancelled instead), confirmed in words composed from what
        changed and what it would have silenced in the last days.

        The user's click is the order, so code runs the tools (no model turn, which the
        outside content would make read-only); what it stores quotes the notifications (their
        summaries, the sender in the rule) and is marked with them."""
        preview = self.mute_preview(reply_message_id)
        plan = self.mute_plan(reply_message_id)
        about = "; ".join(n.summary for n in plan.notes)[:300]
        outside = taint.merge(outside_source(n) for n in plan.notes)
        sid = plan.reply.session_id
        now = self.clock().astimezone()
        async with self.turns.lock(sid):
            request = chat.add_message(
                sid,
                "user",
                f"Don't notify me about this: {about}",
                meta=taint.marked({"kind": "feedback", "reply_to": reply_message_id}, outside),
            )
            self.bus.publish(UserMessageAdded(sid, request.id, request.content))
            answers = []
            for name, args in plan.actions:
                status, result = await self._run_tool_for_user(sid, name, args, outside)
                answers.append(tool_answer(name, args, status, result, now))
            answers += [unidentified_answer(summary) for summary in preview.unidentified]
            answers += preview.refused
            if preview.rules:
                answers.append(silenced_answer(preview.silenced_total, preview.days))
            text = "\n".join(answers) or "Noted."
            return self._composed(sid, "feedback", text, outside=outside)

    def _brings(self, name: str) -> Sources:
        """Where the outside content the tool's result holds comes from (none for most)."""
        tool = self.loop.registry.get(name)
        return (tool.outside_label,) if tool.outside_content else ()

    async def _run_tool_for_user(
        self, session_id: int, name: str, args: dict[str, Any], outside: Sources = ()
    ) -> tuple[str, str]:
        """Run a tool the user's words clearly ask for, recorded as the agent's completed call
        (so a later turn of any model continues from a correct step); returns its status
        ("done" or "failed") and its result (or the error). ``outside``: where the outside
        content its arguments quote came from (a yes to a marked proposal, a mute)."""
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
            taint.marked({"kind": "feedback"}, taint.merge(outside, self._brings(name))),
            name=name,
            arguments=args,
            status=status,
            result_type=result_type,
            result=result,
            finished_at=self.clock(),
        )
        self.bus.publish(ToolCalled(session_id, name, status, args))
        return status, result


def _proposal(action: Action, outside: Sources) -> str:
    return proposal(action.tool, action.arguments, outside)


@dataclass
class MutePlan:
    reply: ChatMessage
    notes: list[Notification]
    actions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    unidentified: list[Notification] = field(default_factory=list)
    refused: list[tuple[str, int, str]] = field(default_factory=list)
    """Rules not added: they would silence more than the muted thing (the rule, how many
    others, the first of them)."""

    def add(self, name: str, args: dict[str, Any]) -> None:
        if (name, args) not in self.actions:
            self.actions.append((name, args))
