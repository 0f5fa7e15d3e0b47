"""ChatHub: the 200 ms batch window, the synthetic message, resume, failures and recovery."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from engine.chat.delivery import SYNTHETIC_REASONING
from engine.chat.history import history_rows
from engine.chat.hub import ChatHub
from engine.errors import ModelError
from engine.llm.scripted import ScriptedModel
from engine.store import chat
from engine.store.models import ChatMessage, ChatToolCall, Notification
from tests.factories import notification, reply


def payload(n: int, source: str = "email") -> dict[str, Any]:
    return {
        "source": source,
        "event_type": "email.received",
        "summary": f"Anna Berg sent message number {n}.",
        "event_time": "2026-11-10T07:00:00+00:00",
        "refs": {"event_id": f"gmail:{n}", "thread_id": f"t{n}"},
    }


async def test_burst_becomes_one_synthetic_message_with_done_tool_call(engine, model):
    model.add(reply("Anna Berg emailed you three times this morning."))
    for n in range(3):
        await engine.hub.notify(notification(payload(n)))
    assert await engine.hub.drain(timeout=5)

    rows = history_rows()
    assert [r["role"] for r in rows] == ["assistant", "assistant"]
    synthetic, answer = rows
    assert synthetic["is_synthetic"] is True
    assert synthetic["content"] == ""
    assert synthetic["reasoning_content"] == SYNTHETIC_REASONING
    (call,) = synthetic["tool_calls"]
    assert call["name"] == "read_notification"
    assert call["status"] == "done"
    assert call["result_type"] == "json"
    assert call["arguments"] == {}
    result = json.loads(call["result"])
    assert [n["summary"] for n in result] == [payload(n)["summary"] for n in range(3)]
    assert set(result[0]) == {"id", "source", "event_type", "summary", "event_time", "refs"}
    assert answer["is_synthetic"] is False
    assert answer["content"] == "Anna Berg emailed you three times this morning."
    assert answer["sources"] == ["email"]
    assert len(model.calls) == 1
    assert all(n.state == "delivered" for n in Notification.select())


async def test_resumed_turn_reads_the_completed_tool_call(engine, model):
    model.add(reply("News from Anna."))
    await engine.hub.notify(notification(payload(1)))
    await engine.hub.drain(timeout=5)
    messages = model.calls[0]["messages"]
    assert messages[-2]["role"] == "assistant"
    assert json.loads(messages[-2]["content"])["tool"] == "read_notification"
    assert messages[-1]["content"].startswith("[tool read_notification returned]")
    assert "message number 1" in messages[-1]["content"]


async def test_notifications_after_the_window_make_a_second_message(engine, model):
    model.add(reply("First."), reply("Second."))
    await engine.hub.notify(notification(payload(1)))
    await engine.hub.notify(notification(payload(2)))
    await engine.hub.drain(timeout=5)
    await engine.hub.notify(notification(payload(3)))
    await engine.hub.drain(timeout=5)
    synthetic = [r for r in history_rows() if r["is_synthetic"]]
    assert len(synthetic) == 2
    assert len(json.loads(synthetic[0]["tool_calls"][0]["result"])) == 2
    assert len(json.loads(synthetic[1]["tool_calls"][0]["result"])) == 1


async def test_notify_persists_before_returning_and_dedups_by_event(engine, model):
    model.default = reply("ok")
    first = await engine.hub.notify(notification(payload(7)))
    assert first is not None
    assert Notification.get_by_id(first.id).state == "pending"
    assert await engine.hub.notify(notification(payload(7))) is None
    assert Notification.select().count() == 1
    await engine.hub.drain(timeout=5)


@pytest.mark.allow_log_warnings
async def test_failed_resume_keeps_notifications_pending_then_delivers(engine, model):
    def boom(messages, schema):
        raise ModelError("model crashed")

    model.add(boom, reply("Anna wrote."))
    await engine.hub.notify(notification(payload(1)))
    assert await engine.hub.drain(timeout=5)
    rows = history_rows()
    assert [r["is_synthetic"] for r in rows] == [True, False]
    assert rows[1]["content"] == "Anna wrote."
    note = Notification.get()
    assert note.state == "delivered"
    assert note.attempts == 1


@pytest.mark.allow_log_warnings
async def test_a_model_that_keeps_failing_still_delivers_plainly(engine, model):
    def boom(messages, schema):
        raise ModelError("model file is gone")

    model.default = boom
    await engine.hub.notify(notification(payload(1, source="whatsapp")))
    assert await engine.hub.drain(timeout=10)
    rows = history_rows()
    assert len(rows) == 1
    assert rows[0]["fallback"] is True
    assert "WhatsApp: Anna Berg sent message number 1." in rows[0]["content"]
    assert Notification.get().state == "delivered"


async def test_crash_mid_delivery_is_recovered_on_start(engine, model):
    note = await engine.hub.notify(notification(payload(1)))
    await engine.hub.stop()  # the consumer never ran: simulate a crash right after this
    engine.hub.delivery._append_synthetic(engine.hub.default_session().id, [note])
    assert ChatMessage.select().count() == 1

    model.add(reply("Anna wrote."))
    fresh = ChatHub(engine.loop, engine.bus, retry_delays=(0.05,))
    fresh.start()
    try:
        assert await fresh.drain(timeout=5)
    finally:
        await fresh.stop()
    assert ChatMessage.select().where(ChatMessage.is_synthetic == True).count() == 1  # noqa: E712
    assert ChatToolCall.select().count() == 1
    assert Notification.get().state == "delivered"


class GatedModel(ScriptedModel):
    """Counts how many generations overlap; each waits for ``gate``."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.active = 0
        self.max_active = 0
        self.gate = asyncio.Event()
        self.generating = asyncio.Event()

    async def complete(self, messages, **kwargs):
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        self.generating.set()
        try:
            await self.gate.wait()
            return await super().complete(messages, **kwargs)
        finally:
            self.active -= 1


async def test_user_turn_and_resumed_turn_never_overlap(workspace, settings):
    from engine.engine import Engine

    model = GatedModel(default=reply("ok"))
    eng = Engine(workspace, settings, model, retry_delays=(0.05,))
    await eng.start(schedule=False)
    try:
        delivery, delivering = eng.hub.delivery, asyncio.Event()
        deliver = delivery.deliver_pending

        async def noted():  # the consumer runs on until it waits for the turn's lock
            delivering.set()
            return await deliver()

        delivery.deliver_pending = noted
        user_turn = asyncio.create_task(eng.hub.send("hello"))
        await model.generating.wait()
        await eng.hub.notify(notification(payload(1)))
        await delivering.wait()  # the delivery is under way while the user's turn generates
        model.gate.set()
        await user_turn
        assert await eng.hub.drain(timeout=5)
    finally:
        await eng.stop()
    assert model.max_active == 1
    assert len(model.calls) == 2


class RecordingModel(ScriptedModel):
    """Says in ``steps`` when it is asked."""

    def __init__(self, steps: list[tuple[str, object]], **kwargs: Any):
        super().__init__(**kwargs)
        self.steps = steps

    async def complete(self, messages, **kwargs):
        self.steps.append(("model", None))
        return await super().complete(messages, **kwargs)


class RecordingHub(ChatHub):
    """Says in ``steps`` what the session ends with when it is resumed, and the reply."""

    def __init__(self, *args: Any, steps: list[tuple[str, object]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.steps = steps

    async def resume(self, session_id: int | None = None, kind: str = "user") -> ChatMessage:
        ((last, calls),) = chat.recent_messages(1, session_id)
        if last.is_synthetic and last.reasoning_content == SYNTHETIC_REASONING:
            self.steps.append(("synthetic message", last.id))
        for call in calls:
            held = [n["id"] for n in json.loads(call.result or "null") or []]
            self.steps.append((f"{call.name} {call.status}", held))
        self.steps.append(("resume", kind))
        answer = await super().resume(session_id, kind)
        self.steps.append(("reply", answer.id))
        return answer


@pytest.mark.parametrize("capability", ["tiny", "capable"])
async def test_a_delivery_resumes_the_session_after_its_completed_call(
    workspace, settings, capability
):
    """The seed's path: the synthetic message, its completed read_notification, then
    ChatHub.resume(), whose turn (the composer on a tiny model, the model on a capable one)
    writes the reply."""
    from engine.engine import Engine

    steps: list[tuple[str, object]] = []
    model = RecordingModel(steps, default=reply("Anna Berg wrote."), capability=capability)
    eng = Engine(workspace, settings, model, retry_delays=(0.05,))
    await eng.start(schedule=False)
    await eng.hub.stop()  # the recording hub delivers instead
    hub = RecordingHub(eng.loop, eng.bus, retry_delays=(0.05,), steps=steps)
    hub.start()
    try:
        note = await hub.notify(notification(payload(1)))
        assert note is not None and await hub.drain(timeout=5)
    finally:
        await hub.stop()
        await eng.stop()
    synthetic, answer = ChatMessage.select().order_by(ChatMessage.id)
    asked = [("model", None)] if capability == "capable" else []
    assert steps == [
        ("synthetic message", synthetic.id),
        ("read_notification done", [note.id]),
        ("resume", "notification"),
        *asked,
        ("reply", answer.id),
    ]
    assert answer.content and Notification.get().reply_message_id == answer.id


async def test_resume_with_no_notification_pending_runs_the_agent(engine, model):
    model.add(reply("Hello again."))
    chat.add_message(engine.hub.default_session().id, "user", "hi")
    answer = await engine.hub.resume()
    assert answer.content == "Hello again." and len(model.calls) == 1


async def test_notification_turns_get_no_tools(engine, model):
    """Event content is untrusted and the turn needs nothing more: it may only reply."""
    model.add(reply("ok"))
    await engine.hub.notify(notification(payload(1)))
    await engine.hub.drain(timeout=5)
    offered = json.dumps(model.calls[0]["schema"])
    for name in ("search_events", "write_file", "edit_file", "schedule_job", "cancel_job"):
        assert f'"{name}"' not in offered
    assert len(model.calls) == 1


async def test_user_turn_streams_tokens_on_the_bus(engine, model):
    from engine.bus import ReplyFinished, ReplyToken

    seen: list[Any] = []
    engine.bus.subscribe(seen.append)
    model.add(reply('Hello "Mario"!\nBye'))
    answer = await engine.hub.send("hi")
    streamed = "".join(e.text for e in seen if isinstance(e, ReplyToken))
    assert streamed == 'Hello "Mario"!\nBye'
    finished = [e for e in seen if isinstance(e, ReplyFinished)]
    assert finished[-1].message_id == answer.id


async def test_a_reply_that_omits_what_arrived_is_replaced_by_the_composed_one(engine, model):
    from engine.store.inbox import ingest
    from tests.factories import make_event

    event = make_event(
        sender={"name": "Tomas Herrera", "address": "tomas@example.org"},
        subject="VAT return",
        text="Please sign the VAT return.",
    )
    ingest([event])
    note = dict(payload(1), refs={"event_id": event.id})
    note["summary"] = "Tomas Herrera sent an email about the VAT return."
    model.add(reply("This is a reminder."))
    await engine.hub.notify(notification(note))
    await engine.hub.drain(timeout=5)
    answer = history_rows()[-1]
    assert answer["content"].startswith("Tomas Herrera emailed you")
    assert "\u201cVAT return\u201d" in answer["content"]
    assert answer["composed"] is True
    assert "missing who: Tomas Herrera" in answer["replaced"]


async def test_a_reply_that_names_the_sender_is_kept_as_written(engine, model):
    from engine.store.inbox import ingest
    from tests.factories import make_event

    event = make_event(
        sender={"name": "Tomas Herrera", "address": "tomas@example.org"},
        subject="Q3 VAT return",
        text="Please sign the attached VAT return by Friday.",
    )
    ingest([event])
    model.add(reply("Tomas Herrera needs your signature on the VAT return by Friday."))
    await engine.hub.notify(notification(dict(payload(1), refs={"event_id": event.id})))
    await engine.hub.drain(timeout=5)
    assert history_rows()[-1]["content"] == (
        "Tomas Herrera needs your signature on the VAT return by Friday."
    )
    assert history_rows()[-1]["composed"] is False


@pytest.mark.allow_log_warnings
async def test_a_model_failure_in_delivery_is_one_line_and_not_a_bug(engine, model, caplog):
    def boom(messages, schema):
        raise ModelError("model crashed\nwith details")

    model.add(boom, reply("Anna wrote."))
    await engine.hub.notify(notification(payload(1)))
    assert await engine.hub.drain(timeout=5)
    (record,) = [r for r in caplog.records if r.name == "engine.chat.delivery"]
    assert record.getMessage() == "delivering 1 notification(s) failed: model crashed"
    assert record.exc_info is None
    assert Notification.get().last_error == "model crashed"
    assert engine.unexpected_errors == 0


@pytest.mark.allow_log_warnings
async def test_a_bug_in_delivery_is_logged_with_its_traceback_and_counted(engine, model, caplog):
    from engine.bus import UnexpectedError

    seen: list[Any] = []
    engine.bus.subscribe(seen.append)

    def bug(messages, schema):
        return messages[99]  # a programming error, not a model failure

    model.add(bug, reply("Anna wrote."))
    await engine.hub.notify(notification(payload(1)))
    assert await engine.hub.drain(timeout=5)
    (record,) = [r for r in caplog.records if r.name == "engine.chat.delivery"]
    assert record.levelname == "ERROR"
    assert record.exc_info is not None and record.exc_info[0] is IndexError
    assert engine.unexpected_errors == 1
    assert [type(e) for e in seen if isinstance(e, UnexpectedError)] == [UnexpectedError]
    assert Notification.get().state == "delivered"  # retried like any failure, not lost
