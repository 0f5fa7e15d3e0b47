"""Rules from feedback: the rules-file editor, the rule for an event, and the mute round trip."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from engine.events import Event
from engine.store.inbox import ingest
from engine.store.models import ChatMessage, ChatToolCall, Job
from engine.triage.feedback import never_rule_for, would_silence
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.edit import add_rule
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER, parse_rules
from engine.workspace.rulesfile import RulesFile
from tests.factories import make_event, reply

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


def test_add_rule_goes_under_the_right_section_and_keeps_the_rest(tmp_path):
    path = tmp_path / "notifications.md"
    path.write_text(
        "# Notification preferences\n\nMy own words stay.\n\n## Always notify\n- Mum\n\n"
        "## Never notify\n\n## Custom rules\n- Only family after 22:00\n"
    )
    assert add_rule(RulesFile(path), NEVER, "Emails from Shop (news@shop.example)")
    assert add_rule(RulesFile(path), ALWAYS, "Emails from Mario")
    assert not add_rule(RulesFile(path), ALWAYS, "emails from mario")
    text = path.read_text()
    assert "My own words stay." in text
    rules = parse_rules(text)
    assert [r.text for r in rules.section(ALWAYS)] == ["Mum", "Emails from Mario"]
    assert [r.text for r in rules.section(NEVER)] == ["Emails from Shop (news@shop.example)"]
    assert [r.text for r in rules.section(CUSTOM)] == ["Only family after 22:00"]


def test_add_rule_creates_a_missing_file_or_section(tmp_path):
    path = tmp_path / "data" / "notifications.md"
    add_rule(RulesFile(path), CUSTOM, "Only WhatsApp groups when I am mentioned")
    assert parse_rules(path.read_text()).section(CUSTOM)[0].text.startswith("Only WhatsApp")
    other = tmp_path / "other.md"
    other.write_text("# Notification preferences\n\n## Always notify\n- Mum\n")
    add_rule(RulesFile(other), NEVER, "Anything from Initrode")
    assert [r.text for r in parse_rules(other.read_text()).section(NEVER)] == [
        "Anything from Initrode"
    ]
    with pytest.raises(ValueError):
        add_rule(RulesFile(other), "sometimes", "x")


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
        refs={"event_id": "s1_20261202T090000Z", "recurring_event_id": "s1"},
    )
    assert never_rule_for(standup) == (
        "Reminders of the calendar series \u201cDaily standup\u201d (id s1)"
    )


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


ORGANISER = "ana@quillon-partners.example"


def calendar_event(event_id: str, title: str, *, series: str | None = None, **more: Any) -> Event:
    refs = {"event_id": event_id, **({"recurring_event_id": series} if series else {})}
    event_type = more.pop("event_type", "calendar.created")
    return make_event(
        id=f"gcal:{event_id}:{event_type}",
        source="calendar",
        event_type=event_type,
        subject=title,
        sender=None,
        refs=refs,
        calendar={
            "start": "2026-12-03T09:00:00+00:00",
            "organizer": {"name": "Ana", "address": more.pop("organiser", ORGANISER)},
        },
        **more,
    )


def test_a_calendar_mute_silences_the_event_and_nothing_else():
    """By its id or its series', never by its title: an invitation titled like the muted
    one, or with no title at all, is another event."""
    dentist = calendar_event("d41", "Dentist")
    rule = never_rule_for(dentist)
    assert rule == (
        "The calendar event \u201cDentist\u201d organised by ana@quillon-partners.example (id d41)"
    )
    moved = calendar_event("d41", "Dentist", event_type="calendar.updated")
    same_title = calendar_event("x99", "Dentist", organiser="desk@other.example")
    assert [e.id for e in would_silence([rule], [dentist, moved, same_title], NOW)] == [
        dentist.id,
        moved.id,
    ]


def test_an_untitled_invitation_mutes_only_itself():
    untitled = calendar_event("u7", "")
    rule = never_rule_for(untitled)
    assert rule == f"The calendar event \u201cuntitled\u201d organised by {ORGANISER} (id u7)"
    others = [calendar_event("a1", ""), calendar_event("a2", "Lunch"), untitled]
    assert [e.id for e in would_silence([rule], others, NOW)] == [untitled.id]


def test_muting_a_series_reminder_silences_that_series_reminders_only():
    reminder = calendar_event("g1_20261203", "Gym", series="g1", event_type="calendar.reminder")
    rule = never_rule_for(reminder)
    assert rule is not None and rule.startswith("Reminders of the calendar series")
    next_week = calendar_event("g1_20261210", "Gym", series="g1", event_type="calendar.reminder")
    cancelled = calendar_event("g1_20261217", "Gym", series="g1", event_type="calendar.cancelled")
    other = calendar_event("h2", "Gym", event_type="calendar.reminder")
    silenced = would_silence([rule], [next_week, cancelled, other], NOW)
    assert [e.id for e in silenced] == [next_week.id]


def test_a_calendar_identity_line_is_read_as_understood():
    (compiled,) = compile_rules_text(
        "## Never notify\n- The calendar event \u201cDentist\u201d organised by a@b.example "
        "(id d41)\n"
    )
    assert compiled.understood
