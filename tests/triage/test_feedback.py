"""Rules from feedback: the rules-file editor, the rule for an event, and the mute round trip."""

from __future__ import annotations

import pytest

from engine.store.inbox import ingest
from engine.store.models import ChatMessage, ChatToolCall, Job
from engine.triage.feedback import never_rule_for
from engine.triage.rules.edit import add_rule
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER, parse_rules
from tests.factories import make_event, reply


def test_add_rule_goes_under_the_right_section_and_keeps_the_rest(tmp_path):
    path = tmp_path / "notifications.md"
    path.write_text(
        "# Notification preferences\n\nMy own words stay.\n\n## Always notify\n- Mum\n\n"
        "## Never notify\n\n## Custom rules\n- Only family after 22:00\n"
    )
    assert add_rule(path, NEVER, "Emails from Shop (news@shop.example)")
    assert add_rule(path, ALWAYS, "Emails from Mario")
    assert not add_rule(path, ALWAYS, "emails from mario")
    text = path.read_text()
    assert "My own words stay." in text
    rules = parse_rules(text)
    assert [r.text for r in rules.section(ALWAYS)] == ["Mum", "Emails from Mario"]
    assert [r.text for r in rules.section(NEVER)] == ["Emails from Shop (news@shop.example)"]
    assert [r.text for r in rules.section(CUSTOM)] == ["Only family after 22:00"]


def test_add_rule_creates_a_missing_file_or_section(tmp_path):
    path = tmp_path / "data" / "notifications.md"
    add_rule(path, CUSTOM, "Only WhatsApp groups when I am mentioned")
    assert parse_rules(path.read_text()).section(CUSTOM)[0].text.startswith("Only WhatsApp")
    other = tmp_path / "other.md"
    other.write_text("# Notification preferences\n\n## Always notify\n- Mum\n")
    add_rule(other, NEVER, "Anything from Initrode")
    assert [r.text for r in parse_rules(other.read_text()).section(NEVER)] == [
        "Anything from Initrode"
    ]
    with pytest.raises(ValueError):
        add_rule(other, "sometimes", "x")


def test_never_rule_names_what_identifies_the_event():
    shop = make_event(
        sender={"name": "Shop", "address": "news@shop.example"},
        headers={"List-Unsubscribe": "<mailto:u@shop.example>"},
    )
    assert never_rule_for(shop) == "Emails from news@shop.example"
    group = make_event(
        id="whatsapp:1",
        source="whatsapp",
        event_type="whatsapp.message",
        chat={"id": "g1", "name": "Book club", "is_group": True},
    )
    assert never_rule_for(group) == "WhatsApp messages in the group \u201cBook club\u201d (id g1)"
    standup = make_event(
        id="gcal:1",
        source="calendar",
        event_type="calendar.reminder",
        subject="Daily standup",
        sender=None,
    )
    assert never_rule_for(standup) == "Reminders for the calendar event \u201cDaily standup\u201d"


async def test_mute_adds_a_never_rule_and_confirms_what_changed(engine, model, workspace):
    workspace.rules_file.write_text("## Always notify\n- Emails from Shop\n\n## Never notify\n")
    event = make_event(sender={"name": "Shop", "address": "news@shop.example"})
    ingest([event])
    model.add(reply("Shop has a sale."))
    await engine.tic.tick()
    await engine.hub.drain(timeout=5)
    answer = ChatMessage.select().where(ChatMessage.content != "").get()

    calls = len(model.calls)
    confirmation = await engine.hub.mute(answer.id)
    assert confirmation.content == (  # composed from what changed: no model call
        "Done — I won't notify you about emails from news@shop.example any more "
        "(Never notify: Emails from news@shop.example). "
        "I read it as \u201cNever notify: emails from news@shop.example\u201d.\n"
        "In the last 30 days it would have silenced 1 notification."
    )
    assert len(model.calls) == calls
    never = parse_rules(workspace.rules_file.read_text()).section(NEVER)
    assert [r.text for r in never] == ["Emails from news@shop.example"]
    call = ChatToolCall.get(ChatToolCall.name == "add_notification_rule")
    assert call.status == "done"


async def test_mute_on_a_reminder_cancels_the_job(engine, model):
    job = Job.create(text="stretch", next_run_at=engine.clock(), recurrence="daily")
    model.add(reply("Time to stretch."))
    await engine.jobs.run_due()
    await engine.hub.drain(timeout=5)
    answer = ChatMessage.select().where(ChatMessage.content != "").get()
    confirmation = await engine.hub.mute(answer.id)
    assert Job.get_by_id(job.id).status == "cancelled"
    assert confirmation.content == f"Done — scheduled job {job.id} is cancelled."
