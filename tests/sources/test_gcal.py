"""CalendarSource through google-api-python-client against the fake Calendar over real HTTP,
with the store: full and incremental sync, created / updated / moved / cancelled events,
410 resync, paging, crash safety, reminders once per occurrence, and failures."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from engine.events import Event, Person
from engine.sources.base import Batch, NeedsSignIn, TransientError
from engine.sources.google.calendar import (
    CalendarSource,
    calendar_change,
    event_time,
    original_start,
    plain_text,
    series_of,
)
from engine.sources.sync import load_cursor, sync_once
from tests.sources.fake_google import ACCOUNT, FakeGoogle, running_google
from tests.sources.stored import stored, stored_ids

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
KEY = f"gcal:{ACCOUNT}"
MADRID = ZoneInfo("Europe/Madrid")


class Clock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def google(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGoogle]:
    with running_google(monkeypatch) as fake:
        fake.sign_in()
        yield fake


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def make_source(google: FakeGoogle, clock: Clock) -> Iterator[Callable[..., CalendarSource]]:
    made: list[CalendarSource] = []

    def make(**options: object) -> CalendarSource:
        source = CalendarSource(
            ACCOUNT,
            api_endpoint=google.url,
            clock=clock,
            timeout=5,
            **options,  # type: ignore[arg-type]
        )
        made.append(source)
        return source

    yield make
    for source in made:
        source.session.close()


def version(event: dict) -> str:
    return f"gcal:{event['id']}:{event['updated']}"


def listings(google: FakeGoogle) -> list:
    """The sync listings (not the look-ahead for reminders, which orders by start time, nor
    the reads of one event)."""
    return [
        r
        for r in google.calls("/events")
        if r.path.endswith("/events") and r.arg("orderBy") is None
    ]


def cursor() -> dict:
    return json.loads(load_cursor(KEY) or "null")


async def fetch_all(source: CalendarSource, position: str | None) -> list[Batch]:
    batches = []
    while True:
        batch = await source.fetch(position)
        batches.append(batch)
        position = batch.cursor
        if not batch.more:
            return batches


# full sync -------------------------------------------------------------------------------


async def test_first_sync_reports_upcoming_events_with_their_details(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    review = google.timed_event(
        "review",
        "Design review",
        NOW + timedelta(hours=2),
        minutes=60,
        description="<p>Agenda:</p><ul><li>Q1 &amp; Q2</li></ul>",
        location="Room 4",
        hangoutLink="https://meet.google.com/abc-defg-hij",
        attendees=[
            {"email": ACCOUNT, "self": True, "responseStatus": "accepted"},
            {"email": "bob@example.org", "displayName": "Bob", "responseStatus": "needsAction"},
        ],
    )
    holiday = google.put_event(
        {"id": "holiday", "summary": "Holiday", "start": {"date": "2026-03-05"}}
        | {"end": {"date": "2026-03-06"}}
    )
    standup = google.timed_event(
        "standup_20260303T083000Z",
        "Standup",
        NOW + timedelta(days=1, minutes=-30),
        recurringEventId="standup",
        conferenceData={
            "entryPoints": [
                {"entryPointType": "phone", "uri": "tel:+1-555"},
                {"entryPointType": "video", "uri": "https://zoom.example/j/1"},
            ]
        },
    )
    google.timed_event("past", "Over long ago", NOW - timedelta(days=3))
    google.timed_event("ghost", "Deleted before we looked", NOW + timedelta(hours=5))
    ghost = google.cancel_event("ghost")
    google.timed_event("gone", "Deleted and over", NOW - timedelta(days=3))
    google.cancel_event("gone")
    google.timed_event("far", "Next autumn", NOW + timedelta(days=200))

    assert await sync_once(make_source()) == 4

    assert sorted(stored_ids()) == sorted(version(e) for e in (review, holiday, standup, ghost))
    cancelled = stored(version(ghost))  # listed with its id only: read with events.get
    assert cancelled.event_type == "calendar.cancelled"
    assert cancelled.subject == "Deleted before we looked"
    assert cancelled.calendar and cancelled.calendar.start == NOW + timedelta(hours=5)
    assert [r.path.rsplit("/", 1)[-1] for r in google.calls("/events/")] == ["ghost", "gone"]
    event = stored(version(review))
    assert event.source == "calendar" and event.event_type == "calendar.created"
    assert event.time == datetime.fromisoformat(review["updated"])
    assert event.sender == Person(name="The Boss", address="boss@example.org")
    assert event.subject == "Design review"
    assert event.text == "Agenda:\nQ1 & Q2"
    cal = event.calendar
    assert cal is not None
    assert (cal.start, cal.end) == (NOW + timedelta(hours=2), NOW + timedelta(hours=3))
    assert cal.created == cal.updated == datetime.fromisoformat(review["updated"])
    assert (cal.recurring, cal.recurrence, cal.status) == (False, [], "confirmed")
    assert cal.organizer == Person(name="The Boss", address="boss@example.org")
    assert cal.attendees == [
        {"address": ACCOUNT, "response_status": "accepted", "self": True},
        {"address": "bob@example.org", "name": "Bob", "response_status": "needsAction"},
    ]
    assert cal.location == "Room 4" and cal.previous_start is None
    assert event.refs == {
        "event_id": "review",
        "calendar_id": "primary",
        "account": ACCOUNT,
        "html_link": "https://calendar.example/review",
        "ical_uid": "review@google.com",
        "video_link": "https://meet.google.com/abc-defg-hij",
    }

    all_day = stored(version(holiday))
    assert all_day.calendar and all_day.calendar.start == datetime(2026, 3, 5, tzinfo=MADRID)
    assert all_day.refs["all_day"] is True

    recurring = stored(version(standup))
    assert recurring.calendar and recurring.calendar.recurring is True
    assert recurring.refs["recurring_event_id"] == "standup"
    assert recurring.refs["video_link"] == "https://zoom.example/j/1"

    assert cursor() == {"sync_token": f"sync-{google.seq}"}
    listing = listings(google)[0]
    assert listing.arg("singleEvents") == "true" and listing.arg("showDeleted") == "true"
    assert listing.arg("timeMin") == "2026-03-01T09:00:00Z"


# incremental sync ------------------------------------------------------------------------


async def test_changes_become_updated_moved_cancelled_and_created_events(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    source = make_source()
    lunch = google.timed_event("lunch", "Lunch", NOW + timedelta(hours=3))
    review = google.timed_event("review", "Review", NOW + timedelta(days=1))
    party = google.timed_event("party", "Party", NOW + timedelta(days=2), location="Bar")
    await sync_once(source)
    token = cursor()["sync_token"]

    renamed = google.put_event({**google.events["lunch"], "summary": "Team lunch"})
    moved = google.move_event("review", NOW + timedelta(days=1, hours=2))
    cancelled = google.cancel_event("party")
    new = google.timed_event("new", "Fresh", NOW + timedelta(days=4))

    assert await sync_once(source) == 4

    changed = stored(version(renamed))
    assert changed.event_type == "calendar.updated" and changed.subject == "Team lunch"
    assert changed.calendar and changed.calendar.previous_start is None

    shifted = stored(version(moved))
    assert shifted.event_type == "calendar.updated"
    assert shifted.calendar and shifted.calendar.start == NOW + timedelta(days=1, hours=2)
    assert shifted.calendar.previous_start == NOW + timedelta(days=1)

    gone = stored(version(cancelled))
    assert gone.event_type == "calendar.cancelled" and gone.subject == "Party"
    assert gone.calendar and gone.calendar.status == "cancelled"
    assert gone.calendar.start == NOW + timedelta(days=2) and gone.calendar.location == "Bar"
    assert gone.time == datetime.fromisoformat(cancelled["updated"])

    assert stored(version(new)).event_type == "calendar.created"
    assert len(stored_ids()) == 7  # 3 + 4: nothing replaced, nothing repeated

    incremental = listings(google)[-1]
    assert incremental.arg("syncToken") == token and incremental.arg("timeMin") is None
    assert incremental.arg("showDeleted") == "true"

    again = google.move_event("review", NOW + timedelta(days=3))
    await sync_once(source)
    later = stored(version(again))
    assert later.calendar and later.calendar.previous_start == NOW + timedelta(days=1, hours=2)
    assert {lunch["id"], review["id"], party["id"]} <= {
        stored(i).refs["event_id"] for i in stored_ids()
    }


async def test_moving_an_event_out_of_the_horizon_is_still_reported(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    source = make_source(horizon_days=30)
    google.timed_event("trip", "Trip", NOW + timedelta(days=10))
    await sync_once(source)

    moved = google.move_event("trip", NOW + timedelta(days=60))
    google.timed_event("later", "Far away", NOW + timedelta(days=45))

    assert await sync_once(source) == 1
    event = stored(version(moved))
    assert event.calendar and event.calendar.previous_start == NOW + timedelta(days=10)


async def test_an_invalid_sync_token_starts_a_full_sync_without_duplicates(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    source = make_source()
    google.timed_event("a", "A", NOW + timedelta(hours=1))
    google.timed_event("b", "B", NOW + timedelta(hours=2))
    await sync_once(source)
    renamed = google.put_event({**google.events["a"], "summary": "A, renamed"})
    google.invalidate_sync_tokens()

    assert await sync_once(source) == 1

    assert stored(version(renamed)).event_type == "calendar.updated"
    assert len(stored_ids()) == 3
    gone, full = listings(google)[-2:]
    assert gone.arg("syncToken") is not None
    assert full.arg("syncToken") is None and full.arg("timeMin") == "2026-03-01T09:00:00Z"
    assert cursor() == {"sync_token": f"sync-{google.seq}"}


async def test_pages_are_returned_one_batch_each(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    source = make_source(page_size=2)
    for n in range(5):
        google.timed_event(f"e{n}", f"Event {n}", NOW + timedelta(hours=n + 1))

    batches = await fetch_all(source, None)

    assert [len(b.events) for b in batches] == [2, 2, 1]
    assert [b.more for b in batches] == [True, True, False]
    assert json.loads(batches[0].cursor or "") == {
        "page_token": "5:2",
        "time_min": "2026-03-01T09:00:00Z",
    }
    assert json.loads(batches[-1].cursor or "") == {"sync_token": "sync-5"}

    for n in range(3):
        google.put_event({**google.events[f"e{n}"], "summary": f"Changed {n}"})
    changes = await fetch_all(source, batches[-1].cursor)
    assert [len(b.events) for b in changes] == [2, 1]
    assert json.loads(changes[0].cursor or "") == {"sync_token": "sync-5", "page_token": "8:2"}


async def test_a_stale_page_token_restarts_the_listing(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    source = make_source()
    google.timed_event("a", "A", NOW + timedelta(hours=1))
    await sync_once(source)
    changed = google.put_event({**google.events["a"], "summary": "A2"})
    token = cursor()["sync_token"]

    batch = await source.fetch(json.dumps({"sync_token": token, "page_token": "stale"}))

    assert [e.id for e in batch.events] == [version(changed)]
    assert [(r.arg("syncToken"), r.arg("pageToken")) for r in listings(google)[-2:]] == [
        (token, "stale"),
        (token, None),
    ]


async def test_a_crash_mid_sync_loses_and_duplicates_nothing(
    db: object,
    google: FakeGoogle,
    make_source: Callable[..., CalendarSource],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events = [
        google.timed_event(f"e{n}", f"Event {n}", NOW + timedelta(hours=n + 1)) for n in range(5)
    ]
    source = make_source(page_size=2)
    fetch = source.fetch
    calls = 0

    async def crash_on_the_second_page(position: str | None) -> Batch:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("power cut")
        return await fetch(position)

    monkeypatch.setattr(source, "fetch", crash_on_the_second_page)
    with pytest.raises(RuntimeError):
        await sync_once(source)
    assert len(stored_ids()) == 2 and "page_token" in cursor()

    assert await sync_once(make_source(page_size=2)) == 3  # after a restart

    assert Counter(stored_ids()) == Counter(version(e) for e in events)
    assert len(listings(google)) == 3  # page 1 once, then pages 2 and 3


# recurring events and cancellations never stored ------------------------------------------


def occurrence_id(series: str, start: datetime) -> str:
    return f"{series}_{start.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}"


async def test_a_cancelled_occurrence_tic_never_stored_takes_the_series_title(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource], clock: Clock
) -> None:
    source = make_source(horizon_days=30)
    first = NOW + timedelta(days=1, minutes=-30)
    google.recurring_event("standup", "Standup", first, count=60)
    await sync_once(source)
    assert len(stored_ids()) == 30  # the occurrences in the horizon
    clock.now = NOW + timedelta(days=20)  # 20 more occurrences came into the horizon since
    late = first + timedelta(days=40)
    gone = google.cancel_event(occurrence_id("standup", late))
    assert (
        set(gone) == {"kind", "id", "status", "updated", "recurringEventId"} | {"originalStartTime"}
        or gone["status"] == "cancelled"
    )

    assert await sync_once(source) == 1

    event = stored(version(gone))
    assert event.event_type == "calendar.cancelled" and event.subject == "Standup"
    assert event.calendar and event.calendar.start == late
    assert event.calendar.end == late + timedelta(minutes=30)
    assert event.calendar.status == "cancelled" and event.calendar.recurring
    assert event.refs["event_id"] == occurrence_id("standup", late)
    assert event.refs["recurring_event_id"] == "standup"
    assert "html_link" not in event.refs  # another occurrence's link is not this one's
    assert event.sender == Person(name="The Boss", address="boss@example.org")
    assert google.calls("/events/") == []  # the store knew the series


async def test_a_cancelled_occurrence_of_a_series_never_stored_reads_the_series(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource], clock: Clock
) -> None:
    source = make_source(horizon_days=30)
    first = NOW + timedelta(days=40, hours=6)
    google.recurring_event("retro", "Sprint retro", first, count=5, every=timedelta(days=7))
    assert await sync_once(source) == 0  # all beyond the horizon
    clock.now = NOW + timedelta(days=30)
    when = first + timedelta(days=7)
    # Only its id, as Google lists some deletions: the series and start are read from it.
    gone = google.put_event({"id": occurrence_id("retro", when), "status": "cancelled"})

    assert await sync_once(source) == 1

    event = stored(version(gone))
    assert event.event_type == "calendar.cancelled" and event.subject == "Sprint retro"
    assert event.calendar and event.calendar.start == when
    assert event.refs["recurring_event_id"] == "retro"
    assert [r.path for r in google.calls("/events/")] == [
        "/calendar/v3/calendars/primary/events/retro"
    ]


async def test_a_cancelled_occurrence_out_of_the_window_is_not_reported(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    source = make_source(horizon_days=30)
    first = NOW + timedelta(days=50)
    google.recurring_event("later", "Quarterly", first, count=2, every=timedelta(days=90))
    await sync_once(source)
    google.cancel_event(occurrence_id("later", first))

    assert await sync_once(source) == 0
    assert google.calls("/events/") == []  # its original start said enough


async def test_an_occurrence_moved_on_its_own_is_a_moved_event_from_its_original_start(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource], clock: Clock
) -> None:
    source = make_source(horizon_days=30)
    first = NOW + timedelta(days=1)
    google.recurring_event("sync", "Team sync", first, count=60)
    await sync_once(source)
    clock.now = NOW + timedelta(days=20)
    stored_one, never_stored = first + timedelta(days=25), first + timedelta(days=40)
    moved_stored = google.move_event(
        occurrence_id("sync", stored_one), stored_one + timedelta(hours=3)
    )
    moved_new = google.move_event(
        occurrence_id("sync", never_stored), never_stored + timedelta(hours=2)
    )

    assert await sync_once(source) == 2

    for moved, original in ((moved_stored, stored_one), (moved_new, never_stored)):
        event = stored(version(moved))
        assert event.event_type == "calendar.updated" and event.subject == "Team sync"
        assert event.calendar and event.calendar.start == original + timedelta(
            hours=3 if original == stored_one else 2
        )
        assert event.calendar.previous_start == original


async def test_an_exception_in_the_first_sync_is_simply_there(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    first = NOW + timedelta(days=1)
    google.recurring_event("sync", "Team sync", first, count=3)
    moved = google.move_event(occurrence_id("sync", first), first + timedelta(hours=2))

    await sync_once(make_source())

    event = stored(version(moved))
    assert event.event_type == "calendar.created"
    assert event.calendar and event.calendar.previous_start is None


async def test_deletions_listed_with_their_details_need_no_read(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    google.detailed_cancellations = True  # the organizer's own calendar
    google.timed_event("offsite", "Offsite", NOW + timedelta(days=3), location="Lodge")
    offsite = google.cancel_event("offsite")

    assert await sync_once(make_source()) == 1

    event = stored(version(offsite))
    assert event.event_type == "calendar.cancelled" and event.subject == "Offsite"
    assert event.calendar and event.calendar.location == "Lodge"
    assert event.calendar.status == "cancelled"
    assert google.calls("/events/") == []


async def test_a_cancellation_of_an_event_never_stored_is_read_and_reported(
    db: object,
    google: FakeGoogle,
    make_source: Callable[..., CalendarSource],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = make_source()
    await sync_once(source)
    google.timed_event("quick", "Quick chat", NOW + timedelta(hours=4))
    quick = google.cancel_event("quick")  # created and deleted between two syncs
    google.cancel_event("purged")
    google.fail("/events/purged", 404)  # Google no longer has it
    google.timed_event("other", "Other", NOW + timedelta(hours=5))
    google.cancel_event("other")
    monkeypatch.setattr("engine.sources.google.calendar.MAX_LOOKUPS", 2)

    assert await sync_once(source) == 1  # "other" is one read too many: not reported

    event = stored(version(quick))
    assert event.event_type == "calendar.cancelled" and event.subject == "Quick chat"
    assert [r.path.rsplit("/", 1)[-1] for r in google.calls("/events/")] == ["quick", "purged"]


# reminders -------------------------------------------------------------------------------


async def test_reminders_fire_once_per_occurrence(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource], clock: Clock
) -> None:
    source = make_source(reminder_minutes=15)
    soon = google.timed_event("soon", "Call with Bob", NOW + timedelta(minutes=10))
    google.timed_event("later", "Planning", NOW + timedelta(minutes=40))
    google.timed_event(
        "declined",
        "Optional sync",
        NOW + timedelta(minutes=5),
        attendees=[{"email": ACCOUNT, "self": True, "responseStatus": "declined"}],
    )
    google.timed_event("dropped", "Cancelled chat", NOW + timedelta(minutes=12))
    google.cancel_event("dropped")
    google.put_event(
        {"id": "today", "summary": "Holiday", "start": {"date": "2026-03-02"}}
        | {"end": {"date": "2026-03-03"}}
    )

    await sync_once(source)

    soon_start = "2026-03-02T09:10:00+00:00"
    reminders = [i for i in stored_ids() if i.startswith("gcal-reminder:")]
    assert reminders == [f"gcal-reminder:soon:{soon_start}"]
    reminder = stored(reminders[0])
    assert reminder.event_type == "calendar.reminder" and reminder.subject == "Call with Bob"
    assert reminder.time == NOW - timedelta(minutes=5)  # 15 minutes before the start
    assert reminder.calendar and reminder.calendar.start == NOW + timedelta(minutes=10)
    assert reminder.refs["event_id"] == "soon" and reminder.refs["minutes_before"] == 15
    assert stored(version(soon)).event_type == "calendar.created"

    clock.now = NOW + timedelta(minutes=5)
    assert await sync_once(source) == 0  # a re-poll in the window repeats nothing

    clock.now = NOW + timedelta(minutes=26)  # "Planning" now starts in 14 minutes
    assert await sync_once(source) == 1
    assert stored_ids()[-1] == "gcal-reminder:later:2026-03-02T09:40:00+00:00"

    moved = google.move_event("later", NOW + timedelta(minutes=35))  # a new occurrence time
    assert await sync_once(source) == 2
    assert stored_ids()[-2:] == [
        version(moved),
        "gcal-reminder:later:2026-03-02T09:35:00+00:00",
    ]
    upcoming = google.calls("/events")[-1]
    assert upcoming.arg("orderBy") == "startTime" and upcoming.arg("timeMax") is not None


# failures --------------------------------------------------------------------------------


async def test_server_errors_are_transient_and_the_next_poll_succeeds(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    source = make_source()
    google.timed_event("a", "A", NOW + timedelta(hours=1))
    google.fail("/events", 500)

    with pytest.raises(TransientError, match="500"):
        await sync_once(source)
    assert stored_ids() == [] and load_cursor(KEY) is None

    assert await sync_once(source) == 1


async def test_revoked_access_needs_sign_in(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    source = make_source()
    await sync_once(source)
    google.revoke_refresh_tokens()

    with pytest.raises(NeedsSignIn):
        await sync_once(source)


# conversion ------------------------------------------------------------------------------


def test_a_cancelled_event_without_details_takes_them_from_the_previous_copy() -> None:
    item = {"id": "x", "status": "cancelled"}
    previous = Event(
        id="gcal:x:1",
        source="calendar",
        event_type="calendar.created",
        time=NOW,
        subject="Dentist",
        calendar={"start": NOW + timedelta(days=1), "status": "confirmed"},
        refs={"event_id": "x"},
    )

    event = calendar_change(item, previous, {"event_id": "x"}, None, NOW)
    never_seen = calendar_change(item, None, {"event_id": "x"}, None, NOW)

    assert event is not None and event.id == "gcal:x:cancelled"
    assert event.event_type == "calendar.cancelled" and event.subject == "Dentist"
    assert event.time == NOW and event.calendar and event.calendar.status == "cancelled"
    assert never_seen is None


def test_an_occurrence_is_known_by_its_fields_or_by_its_id() -> None:
    timed = {"id": "abc_20260105T090000Z", "status": "cancelled"}
    all_day = {"id": "abc_20260105", "status": "cancelled"}
    fields = {
        "id": "abc_20260105T090000Z",
        "recurringEventId": "abc",
        "originalStartTime": {"dateTime": "2026-01-05T10:00:00+01:00"},
    }
    split = {"id": "abc_R20260105T090000", "recurrence": ["RRULE:FREQ=DAILY"]}

    assert series_of(timed) == series_of(all_day) == series_of(fields) == "abc"
    assert series_of({"id": "abc"}) is None and series_of(split) is None
    assert original_start(timed, None) == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    assert original_start(all_day, "Europe/Madrid") == datetime(2026, 1, 5, tzinfo=MADRID)
    assert original_start(fields, None) == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    assert original_start({"id": "abc"}, None) is None


def test_times_without_an_offset_use_the_event_or_calendar_zone() -> None:
    assert event_time({"dateTime": "2026-03-02T10:00:00", "timeZone": "Europe/Madrid"}, None) == (
        datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    )
    assert event_time({"date": "2026-07-01"}, "America/New_York") == datetime(
        2026, 7, 1, 4, 0, tzinfo=UTC
    )
    assert event_time({}, None) is None


def test_html_descriptions_become_plain_text() -> None:
    assert plain_text("Line 1<br>Line&nbsp;2<div>Link: <a href='x'>here</a></div>") == (
        "Line 1\nLine\xa02\nLink: here"
    )
    assert plain_text(None) == "" and plain_text("plain & simple") == "plain & simple"


def _mutated(rng: random.Random, item: dict) -> dict:
    """A Calendar item with one thing broken the way a server, a sync or another client
    can break it: a missing or mistyped field, a nonsense date or zone."""
    out = json.loads(json.dumps(item))
    key = rng.choice(
        [
            "start",
            "end",
            "summary",
            "status",
            "recurringEventId",
            "attendees",
            "organizer",
            "originalStartTime",
            "updated",
            "created",
            "description",
        ]
    )
    choice = rng.randrange(6)
    if choice == 0:
        out.pop(key, None)
    elif choice == 1:
        out[key] = None
    elif choice == 2:
        out[key] = rng.choice([42, [], "", "not a date", {"dateTime": "2026-13-45T99:00:00Z"}])
    elif choice == 3:
        out[key] = {"dateTime": "2026-03-02T10:00:00", "timeZone": "Mars/Olympus_Mons"}
    elif choice == 4:
        out[key] = {"date": "0000-00-00"}
    else:
        out[key] = "\ud800\x00" * rng.randrange(1, 4)
    return out


@pytest.mark.allow_log_warnings
async def test_fuzzed_items_lose_only_themselves(
    db: object, google: FakeGoogle, make_source: Callable[..., CalendarSource]
) -> None:
    """No listed item stops a sync: a broken one is reported and skipped, and every good
    one beside it is stored (seeded, 60 mutated items between two good ones each time)."""
    rng = random.Random(19)
    base = {
        "summary": "Planning",
        "status": "confirmed",
        "start": {"dateTime": "2026-03-02T12:00:00Z"},
        "end": {"dateTime": "2026-03-02T13:00:00Z"},
        "organizer": {"email": "ana@quillon-partners.example"},
    }
    good = [
        google.timed_event(f"good{i}", f"Good {i}", NOW + timedelta(hours=1 + i)) for i in range(2)
    ]
    for i in range(60):
        google.put_event(_mutated(rng, {"id": f"fz{i}", **base}))
    source = make_source()
    batch = await sync_once(source)
    assert batch is not None
    ids = stored_ids()
    for event in good:
        assert version(event) in ids
    assert await sync_once(source) is not None  # and the next poll works as well
