"""The TIC runner: claims, decisions, notify, retries and no duplicates."""

from __future__ import annotations

import asyncio

import pytest

from engine.agent.draft import NotificationDraft
from engine.errors import ModelError
from engine.store.inbox import ingest, recover_events
from engine.store.models import AgentRun, EventRecord, Notification
from engine.triage.decider import RulesFileError
from engine.triage.runner import TickResult
from tests.factories import LEFT_TO_EACH_MESSAGE, make_event, reply

NEWSLETTER = {
    "sender": {"name": "Shop", "address": "news@shop.example"},
    "headers": {"List-Unsubscribe": "<mailto:u@shop.example>", "Precedence": "bulk"},
}
UNCLEAR_RULES = "## Custom rules\n- whatever my boss would care about\n"


def boom(messages, schema):
    raise ModelError("out of memory")


async def test_empty_tick_makes_no_model_call(engine, model):
    result = await engine.tic.tick()
    assert result.events == 0
    assert model.calls == []
    assert AgentRun.select().count() == 0


async def test_tick_notifies_what_tic_decides_and_marks_events_done(engine, model):
    a, b = make_event(), make_event(**NEWSLETTER)
    ingest([a, b])
    model.add(reply("Anna Berg would like you to call her back today."))
    result = await engine.tic.tick()
    assert (result.events, result.notified, result.error) == (2, 1, None)
    await engine.hub.drain(timeout=5)
    note = Notification.get()
    assert note.event_id == a.id
    assert note.summary == f"Anna Berg sent an email about \u201c{a.subject}\u201d."
    assert note.reason.startswith("Anna Berg wrote to you directly")
    assert note.refs["thread_id"] == a.refs["thread_id"]
    rows = {r.event_id: r for r in EventRecord.select()}
    assert rows[a.id].status == rows[b.id].status == "done"
    assert rows[b.id].decision_notify is False
    assert rows[b.id].decision_reason.startswith("newsletters and digests")
    run = AgentRun.get()
    assert (run.status, run.events_in, run.notifications_out) == ("ok", 2, 1)
    assert len(model.calls) == 1  # only the main agent's reply: code decided both events


async def test_events_are_claimed_oldest_first_in_batches(engine, model):
    engine.tic.batch_size = 2
    ingest([make_event(time=f"2026-11-10T0{h}:00:00+00:00", **NEWSLETTER) for h in (5, 3, 4)])
    seen: list[list[str]] = []
    original = engine.decider.decide_each

    async def spy(events, now, **kwargs):
        events = list(events)
        seen.append([e.time.strftime("%H") for e in events])
        return await original(events, now, **kwargs)

    engine.decider.decide_each = spy
    result = await engine.tic.tick()
    assert result.events == 3
    assert seen == [["03", "04"], ["05"]]
    assert AgentRun.select().count() == 2


async def _tick_held_in_deciding(engine) -> tuple[asyncio.Task[TickResult], asyncio.Event]:
    """A tick over one newsletter, started and held while it decides until the event the
    caller gets is set."""
    ingest([make_event(**NEWSLETTER)])
    gate, deciding = asyncio.Event(), asyncio.Event()
    original = engine.decider.decide_each

    async def gated(events, now, **kwargs):
        deciding.set()
        await gate.wait()
        return await original(events, now, **kwargs)

    engine.decider.decide_each = gated
    first = asyncio.create_task(engine.tic.tick())
    await deciding.wait()
    return first, gate


async def test_ticks_never_overlap(engine, model):
    first, gate = await _tick_held_in_deciding(engine)
    second = await engine.tic.tick()
    assert second.skipped is True
    gate.set()
    assert (await first).events == 1


async def test_a_tick_after_the_current_one_waits_for_it_instead_of_skipping(engine, model):
    first, gate = await _tick_held_in_deciding(engine)
    second = asyncio.create_task(engine.tic.tick(after_current=True))
    assert (await engine.tic.tick()).skipped  # without it, a tick under way skips this one
    gate.set()
    result = await second
    assert first.done() and (await first).events == 1
    assert not result.skipped and result.error is None


@pytest.mark.allow_log_warnings
async def test_model_error_leaves_events_pending_for_retry(engine, model, workspace):
    workspace.rules_file.write_text(UNCLEAR_RULES)
    ingest([make_event(), make_event()])
    model.add(LEFT_TO_EACH_MESSAGE, boom, boom)
    result = await engine.tic.tick()
    assert result.error == "out of memory (2 events failed)"
    assert {r.status for r in EventRecord.select()} == {"pending"}
    assert {r.attempts for r in EventRecord.select()} == {1}
    assert Notification.select().count() == 0

    model.add({"rule": None, "reason": "not about it"}, {"rule": None, "reason": "no"})
    model.default = reply("Anna asked you to call.")
    result = await engine.tic.tick()
    assert (result.events, result.notified, result.error) == (2, 2, None)
    assert {r.status for r in EventRecord.select()} == {"done"}
    await engine.hub.drain(timeout=5)


async def test_unclear_rule_is_judged_by_the_model(engine, model, workspace):
    workspace.rules_file.write_text("## Never notify\n- whatever my boss would not care about\n")
    ingest([make_event()])
    model.add(
        LEFT_TO_EACH_MESSAGE,
        {"rule": "whatever my boss would not care about", "reason": "routine"},
    )
    result = await engine.tic.tick()
    assert result.notified == 0
    record = EventRecord.get()
    assert record.decision_rule == "whatever my boss would not care about"
    assert "the model judged" in record.decision_reason
    prompt = model.calls[1]["messages"]
    assert "whatever my boss would not care about" in prompt[0]["content"]


@pytest.mark.allow_log_warnings
async def test_crash_after_notify_never_notifies_twice(engine, model):
    # times of their own: which comes first does not hang on the factory's shared counter
    a = make_event(time="2026-11-10T07:01:00+00:00")
    b = make_event(time="2026-11-10T07:02:00+00:00")
    ingest([a, b])
    calls = {"n": 0}
    real_notify = engine.tic.notify

    async def crash_on_second(draft: NotificationDraft) -> object:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("power cut")
        return await real_notify(draft)

    engine.tic.notify = crash_on_second
    model.default = reply("ok")
    result = await engine.tic.tick()
    assert result.error == "power cut"
    assert Notification.select().count() == 1
    rows = {r.event_id: r for r in EventRecord.select()}
    assert (rows[a.id].status, rows[b.id].status) == ("done", "pending")  # b failed alone

    # a crash between a's notify and its mark: a is pending again, as after a kill
    EventRecord.update(status="pending").where(EventRecord.event_id == a.id).execute()
    engine.tic.notify = real_notify
    result = await engine.tic.tick()
    assert result.error is None
    assert result.notified == 1  # only b is new; a was already notified
    assert sorted(n.event_id for n in Notification.select()) == sorted([a.id, b.id])
    await engine.hub.drain(timeout=5)


async def test_events_left_processing_by_a_crash_are_retried(engine, model):
    ingest([make_event(**NEWSLETTER)])
    EventRecord.update(status="processing", attempts=1).execute()
    assert recover_events() == 1
    result = await engine.tic.tick()
    assert result.events == 1
    assert EventRecord.get().attempts == 1  # the crash is not counted, nor the success


@pytest.mark.allow_log_warnings
async def test_attempts_are_bounded_and_the_last_decides_without_the_model(
    engine, model, settings, workspace
):
    workspace.rules_file.write_text(UNCLEAR_RULES)
    ingest([make_event()])
    model.default = boom
    for _ in range(settings.max_event_attempts - 1):
        await engine.tic.tick()
    record = EventRecord.get()
    assert (record.status, record.attempts) == ("pending", settings.max_event_attempts - 1)
    assert record.last_error == "out of memory"
    # each tick: the line's reading fails, then the message's question
    assert len(model.calls) == 2 * (settings.max_event_attempts - 1)

    result = await engine.tic.tick()  # the last try: decided without the line

    assert (result.events, result.notified, result.failed, result.error) == (1, 1, 0, None)
    record = EventRecord.get()
    assert record.status == "done" and record.decision_notify is True
    assert record.decision_reason.startswith("Anna Berg wrote to you directly")
    assert record.decision_reason.endswith(
        " (the line \u201cwhatever my boss would care about\u201d needs the model, which was"
        " unreachable: decided without it)"
    )
    assert (await engine.tic.tick()).events == 0
    await engine.hub.drain(timeout=5)


@pytest.mark.allow_log_warnings
async def test_a_model_server_down_for_every_try_leaves_no_event_undecided(workspace, settings):
    from engine.engine import Engine
    from engine.llm.openai_compat import OpenAICompatModel
    from tests.model_server import ScriptedServer

    with ScriptedServer() as stopped:
        url = stopped.url  # nothing answers there once it has stopped
    workspace.rules_file.write_text(UNCLEAR_RULES)
    engine = Engine(workspace, settings, OpenAICompatModel(url, timeout=5), retry_delays=(0.05,))
    await engine.start(schedule=False)
    try:
        question, newsletter = make_event(), make_event(**NEWSLETTER)
        ingest([question, newsletter])
        ticks = [await engine.tic.tick() for _ in range(settings.max_event_attempts)]

        assert [(t.events, t.notified, t.failed) for t in ticks] == [(2, 0, 0)] * 2 + [(2, 1, 0)]
        assert "unreachable" in (ticks[0].error or "") and ticks[-1].error is None
        rows = {r.event_id: r for r in EventRecord.select()}
        assert {r.status for r in rows.values()} == {"done"}
        skipped = "needs the model, which was unreachable: decided without it"
        assert rows[newsletter.id].decision_notify is False
        assert skipped in rows[newsletter.id].decision_reason
        decided = rows[question.id]
        assert decided.decision_notify is True and decided.attempts == 2
        assert decided.decision_reason.startswith("Anna Berg wrote to you directly")
        assert skipped in decided.decision_reason
        assert await engine.hub.drain(timeout=10)
        note = Notification.get()
        assert note.event_id == question.id and note.reason == decided.decision_reason
    finally:
        await engine.stop()


async def test_rules_file_is_reread_on_every_tick(engine, model, workspace):
    model.default = reply("ok")
    ingest([make_event()])
    await engine.tic.tick()
    workspace.rules_file.write_text(
        "# Notification preferences\n\n## Never notify\n- Emails from Anna Berg\n"
    )
    ingest([make_event()])
    await engine.tic.tick()
    first, second = EventRecord.select().order_by(EventRecord.id)
    assert first.decision_notify is True and first.decision_rule is None
    assert second.decision_notify is False
    assert second.decision_rule == "Emails from Anna Berg"
    await engine.hub.drain(timeout=5)


async def test_decision_rule_and_reason_are_stored(engine, model, workspace):
    workspace.rules_file.write_text("## Always notify\n- Emails from Shop\n")
    ingest([make_event(**NEWSLETTER)])
    model.add(reply("ok"))
    await engine.tic.tick()
    await engine.hub.drain(timeout=5)
    record = EventRecord.get()
    assert record.decision_rule == "Emails from Shop"
    note = Notification.get()
    assert note.rule == "Emails from Shop"
    assert note.reason == "matches the Always rule \u201cEmails from Shop\u201d"


@pytest.mark.allow_log_warnings
async def test_an_unreadable_rules_file_stops_the_tick_and_loses_nothing(engine, model, workspace):
    ingest([make_event()])
    workspace.rules_file.unlink(missing_ok=True)
    workspace.rules_file.mkdir()  # there, but no file to read
    result = await engine.tic.tick()
    assert result.error.startswith("data/notifications.md cannot be read (")
    record = EventRecord.get()
    assert (record.status, record.attempts) == ("pending", 0)
    workspace.rules_file.rmdir()
    workspace.rules_file.write_text("## Never notify\n- Emails from Anna Berg\n")
    assert (await engine.tic.tick()).events == 1
    assert EventRecord.get().decision_rule == "Emails from Anna Berg"


@pytest.mark.allow_log_warnings
async def test_a_line_that_is_not_utf8_is_skipped_and_the_rest_applies(engine, model, workspace):
    ingest([make_event(), make_event(**NEWSLETTER)])
    workspace.rules_file.write_bytes(
        b"# Notification preferences\n\n## Always notify\n- Emails from Shop\n\n"
        b"## Never notify\n- caf\xe9 people\n- Emails from Anna Berg\n"
    )
    model.default = reply("ok")

    result = await engine.tic.tick()

    assert (result.events, result.notified, result.error) == (2, 1, None)
    rules = {r.decision_rule for r in EventRecord.select()}
    assert rules == {"Emails from Shop", "Emails from Anna Berg"}
    assert engine.rules_report()[-1].line_number == 8  # numbers stay as in the file
    (note,) = engine.rules_notes()
    assert (note.line_number, note.text) == (7, "caf\\xe9 people")
    with pytest.raises(RulesFileError, match="line 7 is not valid UTF-8"):
        engine.rules_text()  # the editor: saving must not drop the line unseen
    await engine.hub.drain(timeout=5)


@pytest.mark.allow_log_warnings
async def test_a_corrupt_stored_event_does_not_hold_up_its_batch(engine, model):
    good, bad = make_event(**NEWSLETTER), make_event(**NEWSLETTER)
    ingest([good, bad])
    EventRecord.update(payload='{"id": "broken"}').where(EventRecord.event_id == bad.id).execute()
    seen: list = []
    engine.bus.subscribe(seen.append)
    result = await engine.tic.tick()
    assert (result.error, result.events, result.failed) == (None, 2, 1)
    from engine.bus import TickFinished

    assert [e.failed for e in seen if isinstance(e, TickFinished)] == [1]
    rows = {r.event_id: r for r in EventRecord.select()}
    assert rows[good.id].status == "done"
    assert rows[bad.id].status == "failed" and rows[bad.id].last_error.startswith("corrupt event")


# the error policy ----------------------------------------------------------------------------


@pytest.mark.allow_log_warnings
async def test_a_model_error_is_one_line_and_not_counted_as_a_bug(engine, model, workspace, caplog):
    workspace.rules_file.write_text(UNCLEAR_RULES)
    event = make_event()
    ingest([event])
    model.add(LEFT_TO_EACH_MESSAGE, boom)
    result = await engine.tic.tick()
    assert result.error == "out of memory"
    (record,) = [r for r in caplog.records if r.name == "engine.triage.runner"]
    assert record.getMessage() == f"TIC could not handle event {event.id}: out of memory"
    assert record.exc_info is None
    assert engine.unexpected_errors == 0


@pytest.mark.allow_log_warnings
async def test_a_bug_in_the_decider_is_logged_with_its_traceback_and_counted(engine, model, caplog):
    ingest([make_event()])

    async def buggy(events, now, **kwargs):
        return [event.no_such_field for event in events]  # a programming error

    engine.decider.decide_each = buggy
    result = await engine.tic.tick()
    assert result.error is not None and "no_such_field" in result.error
    (record,) = [r for r in caplog.records if r.name == "engine.triage.runner"]
    assert record.levelname == "ERROR"
    assert record.exc_info is not None and record.exc_info[0] is AttributeError
    assert engine.unexpected_errors == 1
    record = EventRecord.get()  # still retried, boundedly, like any failed run
    assert (record.status, record.attempts) == ("pending", 1)


async def test_a_big_tick_hands_the_loop_over_while_it_works(engine, model):
    """Triage runs on the loop (the store is used on its thread only), in slices: whatever
    else waits (a click, an IPC request) runs between them, at least once a batch."""
    ingest([make_event(**NEWSLETTER) for _ in range(300)])
    engine.tic.batch_size = 50
    turns = 0
    done = asyncio.Event()

    async def meanwhile() -> None:
        nonlocal turns
        while not done.is_set():
            await asyncio.sleep(0)
            turns += 1

    other = asyncio.ensure_future(meanwhile())
    result = await engine.tic.tick()
    done.set()
    await other
    assert result.events == 300 and model.calls == []
    assert turns >= 6


@pytest.mark.allow_log_warnings
async def test_when_marking_a_batch_at_once_fails_each_event_is_marked_alone(
    engine, model, monkeypatch
):
    """Decisions are stored together; should that fail, one by one, so only the event at
    fault goes back to pending."""
    from engine.store import inbox as store_inbox

    events = [make_event(**NEWSLETTER) for _ in range(3)]
    ingest(events)
    real = store_inbox.mark_done

    def all_at_once(*args, **kwargs):
        raise RuntimeError("the batch could not be stored")

    def one_by_one(record, *args):
        if record.event_id == events[1].id:
            raise RuntimeError("this one cannot be stored")
        return real(record, *args)

    monkeypatch.setattr(store_inbox, "mark_all_done", all_at_once)
    monkeypatch.setattr(store_inbox, "mark_done", one_by_one)
    result = await engine.tic.tick()
    status = {r.event_id: r.status for r in EventRecord.select()}
    assert status[events[0].id] == status[events[2].id] == "done"
    assert status[events[1].id] == "pending" and result.events == 3
