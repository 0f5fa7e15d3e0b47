"""Google Calendar: created, updated (moved) and cancelled events, and reminders.

Sync is Google's incremental protocol: a full listing (``timeMin`` = a day ago,
``singleEvents``, ``showDeleted``) that ends with a ``syncToken``, then listings of what
changed since it; a 410 (token invalidated) starts a full listing again. Every change
becomes one event, id ``gcal:<eventId>:<updated>``:

- not seen before → ``calendar.created``;
- seen before → ``calendar.updated``, with ``calendar.previous_start`` when it moved (the
  previous copy is the latest stored event whose ``refs.event_id`` matches);
- ``status: cancelled`` → ``calendar.cancelled``, also for an event TIC never stored (one
  created before the first sync, or an occurrence that came into the horizon since).

A cancelled item often carries nothing but its id. Its details come from the stored copy;
else from the item itself (Google keeps them on the organizer's calendar); else, for one
occurrence of a recurring event (id ``<series>_<original start>``, ``recurringEventId``,
``originalStartTime``), from the series (a stored occurrence, or the series read with
``events.get``) at the occurrence's original start; else from ``events.get`` of the event
(at most ``MAX_LOOKUPS`` reads a page). An occurrence moved on its own (an exception whose
start differs from ``originalStartTime``) that TIC never stored is ``calendar.updated`` with
its original start as ``previous_start``, in an incremental listing (in a full one it is
simply there: created).

Changes to events that start beyond ``horizon_days`` or ended before the sync window are not
reported (a new weekly series would otherwise flood TIC with every future instance).

After each completed sync, events starting within ``reminder_minutes`` are read live from
the calendar and become ``calendar.reminder`` events with the stable id
``gcal-reminder:<eventId>:<start, UTC ISO>``: re-polls never duplicate one, a moved event gets
a new one. Needs the poll interval (300 s) to be shorter than the reminder lead.

The cursor is JSON: ``{"sync_token": ...}`` between syncs; in the middle of a paged listing
also ``page_token`` (and ``time_min`` of a full listing)."""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, TypeVar

from peewee import fn

from engine.clock import parse_instant, utcnow, zone
from engine.events import CalendarInfo, Event, Person
from engine.sources.base import Batch, Source, SourceError
from engine.sources.google.auth import GoogleApiError, GoogleSession
from engine.store.models import EventRecord
from engine.tasks import report

log = logging.getLogger(__name__)
_T = TypeVar("_T")

CREATED, UPDATED = "calendar.created", "calendar.updated"
CANCELLED, REMINDER = "calendar.cancelled", "calendar.reminder"
SYNC_WINDOW = timedelta(days=1)  # how far back a full listing starts
MAX_LOOKUPS = 20
"""Events read one by one (``events.get``) in a page: details of cancellations nothing else
tells about. More in one page (a mass deletion) are reported from what is known, or not."""
# An occurrence of a recurring event: <series id>_<original start, UTC> (all-day: the date).
_OCCURRENCE_ID = re.compile(r"(?P<series>.+)_(?P<day>\d{8})(?:T(?P<clock>\d{6})Z)?")


@dataclass(frozen=True)
class CalendarCursor:
    sync_token: str | None = None
    page_token: str | None = None
    time_min: str | None = None

    def dumps(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if v}, sort_keys=True)

    @classmethod
    def loads(cls, text: str | None) -> CalendarCursor | None:
        if not text:
            return None
        try:
            data = json.loads(text)
            return cls(data.get("sync_token"), data.get("page_token"), data.get("time_min"))
        except (ValueError, AttributeError):
            log.info("unreadable calendar cursor %r: starting a full sync", text)
            return None


@dataclass
class _Page:
    items: list[dict[str, Any]]
    time_zone: str | None
    cursor: CalendarCursor
    more: bool
    upcoming: list[dict[str, Any]]  # events starting soon (last page only)
    incremental: bool = False  # changes since a sync token (else a full listing)


@dataclass
class _Known:
    """What converting one page knows beside its items: the stored copies (each read once)
    and the resources read with ``events.get``."""

    looked_up: dict[str, dict[str, Any]] = field(default_factory=dict)
    listed: dict[str, dict[str, Any]] = field(default_factory=dict)  # series → an occurrence
    _copies: dict[str, Event | None] = field(default_factory=dict)
    _series: dict[str, Event | None] = field(default_factory=dict)

    def copy(self, event_id: str) -> Event | None:
        if event_id not in self._copies:
            self._copies[event_id] = latest_copy(event_id)
        return self._copies[event_id]

    def stored_series(self, series_id: str) -> Event | None:
        if series_id not in self._series:
            self._series[series_id] = latest_series_copy(series_id)
        return self._series[series_id]


class CalendarSource(Source):
    kind = "gcal"
    poll_seconds = 300.0

    def __init__(
        self,
        account: str,
        *,
        calendar_id: str = "primary",
        reminder_minutes: float = 15,
        horizon_days: float | None = 90,
        clock: Callable[[], datetime] = utcnow,
        api_endpoint: str | None = None,
        page_size: int = 250,
        timeout: float = 30.0,
    ):
        super().__init__(account)
        self.calendar_id = calendar_id
        self.reminder_minutes = reminder_minutes
        self.reminder_lead = timedelta(minutes=reminder_minutes)
        self.horizon = timedelta(days=horizon_days) if horizon_days is not None else None
        self.clock = clock
        # Google's discovery base for Calendar includes the service path.
        self.api_endpoint = api_endpoint.rstrip("/") + "/calendar/v3/" if api_endpoint else None
        self.page_size = page_size
        self.session = GoogleSession(account, timeout=timeout)

    @property
    def key(self) -> str:
        base = super().key
        return base if self.calendar_id == "primary" else f"{base}:{self.calendar_id}"

    async def fetch(self, cursor: str | None) -> Batch:
        now = self.clock()
        page = await asyncio.to_thread(self._fetch_page, CalendarCursor.loads(cursor), now)
        known = _Known()
        wanted = self._to_look_up(page.items, page.time_zone, now, known)
        if wanted:
            known.looked_up = await asyncio.to_thread(self._look_up, wanted)
        events = self._changes(page, now, known)
        for item in page.upcoming:
            reminder = self._safely(
                "remind", item, lambda i: self._reminder(i, page.time_zone, now)
            )
            if reminder is not None:
                events.append(reminder)
        return Batch(events, page.cursor.dumps(), more=page.more)

    async def close(self) -> None:
        self.session.close()

    # blocking part, run in a worker thread ------------------------------------------------

    def _events_api(self) -> Any:
        return self.session.service("calendar", "v3", self.api_endpoint).events()

    def _fetch_page(self, cursor: CalendarCursor | None, now: datetime) -> _Page:
        if cursor is None or not (cursor.sync_token or cursor.time_min):
            cursor = self._full(now)
        try:
            response = self._list(cursor)
        except GoogleApiError as exc:
            if exc.status == 410:
                log.info("%s: calendar sync token expired; full sync", self.key)
                cursor = self._full(now)
            elif exc.status == 400 and cursor.page_token:  # a stale page token: start over
                cursor = replace(cursor, page_token=None)
            else:
                raise
            response = self._list(cursor)
        token = response.get("nextPageToken")
        if token:
            nxt, more, upcoming = replace(cursor, page_token=token), True, []
        elif response.get("nextSyncToken"):
            nxt = CalendarCursor(sync_token=response["nextSyncToken"])
            more, upcoming = False, self._upcoming(now)
        else:
            raise SourceError("Google Calendar ended a listing without a sync token")
        items, tz = response.get("items", []), response.get("timeZone")
        return _Page(items, tz, nxt, more, upcoming, incremental=bool(cursor.sync_token))

    def _full(self, now: datetime) -> CalendarCursor:
        return CalendarCursor(time_min=_rfc3339(now - SYNC_WINDOW))

    def _list(self, cursor: CalendarCursor) -> dict[str, Any]:
        return self.session.execute(
            self._events_api().list(
                calendarId=self.calendar_id,
                singleEvents=True,
                showDeleted=True,
                maxResults=self.page_size,
                syncToken=cursor.sync_token,
                timeMin=None if cursor.sync_token else cursor.time_min,
                pageToken=cursor.page_token,
            )
        )

    def _look_up(self, event_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Each event as ``events.get`` returns it (deleted ones too, while Google keeps
        them); one Google no longer has is left out."""
        found = {}
        for event_id in event_ids:
            request = self._events_api().get(calendarId=self.calendar_id, eventId=event_id)
            try:
                found[event_id] = self.session.execute(request)
            except GoogleApiError as exc:
                log.info("%s: calendar event %s not read: %s", self.key, event_id, exc)
        return found

    def _upcoming(self, now: datetime) -> list[dict[str, Any]]:
        response = self.session.execute(
            self._events_api().list(
                calendarId=self.calendar_id,
                singleEvents=True,
                orderBy="startTime",
                timeMin=_rfc3339(now),
                timeMax=_rfc3339(now + self.reminder_lead + timedelta(seconds=1)),
                maxResults=100,
            )
        )
        return response.get("items", [])

    # conversion, on the event loop's thread (reads the store) -----------------------------

    def _to_look_up(
        self, items: list[dict[str, Any]], tz: str | None, now: datetime, known: _Known
    ) -> list[str]:
        """The events to read with ``events.get``: for each cancellation in the window that
        neither the store, nor the item, nor the page can detail, the event itself or (for
        an occurrence) its series."""
        for item in items:
            series = self._safely("read", item, series_of)
            if series is not None and item.get("status") != "cancelled":
                known.listed.setdefault(series, item)
        wanted: list[str] = []
        for item in items:
            target = self._safely("read", item, lambda i: self._look_up_target(i, tz, now, known))
            if target is not None and target not in wanted:
                wanted.append(target)
        if len(wanted) > MAX_LOOKUPS:
            log.info(
                "%s: %d cancelled events to read; reading the first %d",
                self.key,
                len(wanted),
                MAX_LOOKUPS,
            )
        return wanted[:MAX_LOOKUPS]

    def _look_up_target(
        self, item: dict[str, Any], tz: str | None, now: datetime, known: _Known
    ) -> str | None:
        if item.get("status") != "cancelled" or item.get("start") or known.copy(item["id"]):
            return None
        series = series_of(item)
        if series is None:
            return str(item["id"])
        start = original_start(item, tz)
        if start is None or not self._relevant(start, start, now):
            return None
        if series in known.listed or known.stored_series(series) is not None:
            return None
        return series

    def _safely(self, what: str, item: Any, read: Callable[[Any], _T]) -> _T | None:
        """``read(item)``, or None when this item cannot be read: one broken item (a
        missing field, a date that is no date) is reported and loses only itself."""
        try:
            return read(item)
        except Exception as exc:
            where = item.get("id") if isinstance(item, dict) else None
            report(exc, f"{self.key}: calendar item {where!r} skipped ({what})", logger=log)
            return None

    def _changes(self, page: _Page, now: datetime, known: _Known) -> list[Event]:
        events: list[Event] = []
        seen: dict[str, Event] = {}
        tz = page.time_zone
        for item in page.items:
            event = self._safely(
                "change", item, lambda i: self._change(i, tz, now, page.incremental, known, seen)
            )
            if event is not None:
                seen[event.refs.get("event_id", event.id)] = event
                events.append(event)
        return events

    def _change(
        self,
        item: dict[str, Any],
        tz: str | None,
        now: datetime,
        incremental: bool,
        known: _Known,
        seen: dict[str, Event],
    ) -> Event | None:
        """The event one listed item makes, or None (out of the window, or nothing new)."""
        event_id = item["id"]
        previous = seen.get(event_id) or known.copy(event_id)
        if previous is None and item.get("status") == "cancelled" and not item.get("start"):
            item = {**known.looked_up.get(event_id, {}), **item}
        if previous is None:
            previous = self._occurrence(item, tz, now, incremental, known)
        event = calendar_change(item, previous, self._refs(item), tz, now)
        if event is None or not self._in_window(event, previous, now):
            return None
        return event

    def _occurrence(
        self,
        item: dict[str, Any],
        tz: str | None,
        now: datetime,
        incremental: bool,
        known: _Known,
    ) -> Event | None:
        """What an occurrence of a recurring event that TIC never stored is compared with:
        the series' details at its original start. For a cancelled occurrence (its item says
        little more than its id), and for one moved on its own that an incremental listing
        brings (it is then "moved", from its original start); None for anything else."""
        series_id = series_of(item)
        start = original_start(item, tz)
        if series_id is None or start is None:
            return None
        if item.get("status") != "cancelled":
            if not incremental or event_time(item.get("start"), tz) == start:
                return None
        elif item.get("start"):
            return None  # the item's own details say it all
        series = known.stored_series(series_id)
        other = known.listed.get(series_id) or known.looked_up.get(series_id)
        if series is None and other is not None:
            series = calendar_change(other, None, self._refs(other), tz, now)
        refs = self._refs(item)
        if series is None:
            bare = CalendarInfo(start=start, recurring=True)
            return Event(
                id=f"gcal:{item['id']}",
                source="calendar",
                event_type=CREATED,
                time=now,
                calendar=bare,
                refs=refs,
            )
        return at_start(series, start, refs)

    def _in_window(self, event: Event, previous: Event | None, now: datetime) -> bool:
        def relevant(e: Event | None) -> bool:
            cal = e.calendar if e else None
            if cal is None or cal.start is None:
                return False
            return self._relevant(cal.start, cal.end, now)

        return relevant(event) or relevant(previous)

    def _relevant(self, start: datetime, end: datetime | None, now: datetime) -> bool:
        """Whether an event from ``start`` to ``end`` is in the sync window and the horizon."""
        if end is not None and end < now - SYNC_WINDOW:
            return False
        return self.horizon is None or start <= now + self.horizon

    def _reminder(self, item: dict[str, Any], tz: str | None, now: datetime) -> Event | None:
        if item.get("status") == "cancelled" or "dateTime" not in item.get("start", {}):
            return None
        if any(a.get("self") and a.get("responseStatus") == "declined" for a in _attendees(item)):
            return None
        event = calendar_change(item, None, self._refs(item), tz, now)
        start = event.calendar.start if event and event.calendar else None
        if event is None or start is None or not now < start <= now + self.reminder_lead:
            return None
        start_utc = start.astimezone(UTC).isoformat()
        return event.model_copy(
            update={
                "id": f"gcal-reminder:{item['id']}:{start_utc}",
                "event_type": REMINDER,
                "time": start - self.reminder_lead,
                "refs": {**event.refs, "minutes_before": self.reminder_minutes},
            }
        )

    def _refs(self, item: dict[str, Any]) -> dict[str, Any]:
        refs = {
            "event_id": item["id"],
            "calendar_id": self.calendar_id,
            "account": self.account,
            "html_link": item.get("htmlLink"),
            "ical_uid": item.get("iCalUID"),
            "recurring_event_id": series_of(item),
            "video_link": video_link(item),
            "all_day": "date" in item.get("start", {}),
        }
        return {k: v for k, v in refs.items() if v}


def latest_copy(event_id: str) -> Event | None:
    """The latest stored created/updated/cancelled event of a calendar event id."""
    row = (
        EventRecord.select(EventRecord.payload)
        .where(
            (EventRecord.source == "calendar")
            & (EventRecord.event_type != REMINDER)
            & (fn.json_extract(EventRecord.payload, "$.refs.event_id") == event_id)
        )
        .order_by(EventRecord.id.desc())
        .first()
    )
    return Event.model_validate_json(row.payload) if row is not None else None


def latest_series_copy(series_id: str) -> Event | None:
    """The latest stored created/updated/cancelled event of a recurring event's series: one
    of its occurrences (or the series itself, when a listing had it)."""
    row = (
        EventRecord.select(EventRecord.payload)
        .where(
            (EventRecord.source == "calendar")
            & (EventRecord.event_type != REMINDER)
            & (
                (fn.json_extract(EventRecord.payload, "$.refs.recurring_event_id") == series_id)
                | (fn.json_extract(EventRecord.payload, "$.refs.event_id") == series_id)
            )
        )
        .order_by(EventRecord.id.desc())
        .first()
    )
    return Event.model_validate_json(row.payload) if row is not None else None


def series_of(item: dict[str, Any]) -> str | None:
    """The series id of an occurrence of a recurring event (None: not one). Google names an
    occurrence ``<series>_<original start>``; a cancelled one may carry nothing else."""
    if item.get("recurringEventId"):
        return str(item["recurringEventId"])
    match = _OCCURRENCE_ID.fullmatch(str(item.get("id", "")))
    return match["series"] if match else None


def original_start(item: dict[str, Any], tz: str | None) -> datetime | None:
    """When an occurrence was due before it was moved or cancelled: ``originalStartTime``,
    else the start its id is named after."""
    start = event_time(item.get("originalStartTime"), tz)
    match = _OCCURRENCE_ID.fullmatch(str(item.get("id", "")))
    if start is not None or match is None:
        return start
    if match["clock"]:
        return datetime.strptime(match["day"] + match["clock"], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    return datetime.combine(datetime.strptime(match["day"], "%Y%m%d").date(), time(), zone(tz))


def at_start(series: Event, start: datetime, refs: dict[str, Any]) -> Event:
    """``series`` (one of its occurrences, or the series) as the occurrence due at ``start``:
    its title, people and place, its duration, the occurrence's own refs."""
    cal = series.calendar or CalendarInfo()
    length = cal.end - cal.start if cal.start is not None and cal.end is not None else None
    calendar = cal.model_copy(
        update={
            "start": start,
            "end": start + length if length is not None else None,
            "previous_start": None,
            "recurring": True,
        }
    )
    shared = {k: v for k, v in series.refs.items() if k != "html_link"}
    return series.model_copy(update={"calendar": calendar, "refs": {**shared, **refs}})


def calendar_change(
    item: dict[str, Any],
    previous: Event | None,
    refs: dict[str, Any],
    tz: str | None,
    now: datetime,
) -> Event | None:
    """One Calendar API event resource as a canonical event (None: nothing to report)."""
    updated_raw = item.get("updated")
    updated = parse_instant(updated_raw, naive_zone=UTC)
    version = f"gcal:{item['id']}:{updated_raw or item.get('status', 'unknown')}"
    if item.get("status") == "cancelled":
        if (previous is None or previous.calendar is None) and item.get("start"):
            previous = calendar_change({**item, "status": "confirmed"}, None, refs, tz, now)
        if previous is None or previous.calendar is None:
            return None
        calendar = previous.calendar.model_copy(
            update={"status": "cancelled", "updated": updated, "previous_start": None}
        )
        return previous.model_copy(
            update={
                "id": version,
                "event_type": CANCELLED,
                "time": updated or now,
                "calendar": calendar,
                "refs": {**previous.refs, **refs},
            }
        )
    calendar = calendar_info(item, tz)
    old_start = previous.calendar.start if previous and previous.calendar else None
    if old_start is not None and calendar.start is not None and old_start != calendar.start:
        calendar.previous_start = old_start
    return Event(
        id=version,
        source="calendar",
        event_type=CREATED if previous is None else UPDATED,
        time=updated or calendar.created or now,
        sender=calendar.organizer,
        subject=item.get("summary"),
        text=plain_text(item.get("description")),
        calendar=calendar,
        refs=refs,
    )


def calendar_info(item: dict[str, Any], tz: str | None) -> CalendarInfo:
    organizer = item.get("organizer") or {}
    attendees = [
        {
            k: v
            for k, v in {
                "address": a.get("email"),
                "name": a.get("displayName"),
                "response_status": a.get("responseStatus"),
                "self": a.get("self"),
            }.items()
            if v
        }
        for a in _attendees(item)
        if a.get("email")
    ]
    return CalendarInfo(
        start=event_time(item.get("start"), tz),
        end=event_time(item.get("end"), tz),
        created=parse_instant(item.get("created"), naive_zone=UTC),
        updated=parse_instant(item.get("updated"), naive_zone=UTC),
        recurring=bool(item.get("recurringEventId") or item.get("recurrence")),
        recurrence=list(item.get("recurrence") or []),
        status=item.get("status"),
        organizer=Person(name=organizer.get("displayName"), address=organizer.get("email"))
        if organizer
        else None,
        attendees=attendees,
        location=item.get("location"),
    )


def event_time(value: dict[str, Any] | None, tz: str | None) -> datetime | None:
    """A Calendar ``start``/``end``: ``dateTime``, or an all-day ``date`` as local midnight."""
    if not value:
        return None
    where = zone(value.get("timeZone") or tz)
    if value.get("dateTime"):
        parsed = datetime.fromisoformat(value["dateTime"])
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=where)
    if value.get("date"):
        return datetime.combine(date.fromisoformat(value["date"]), time(), tzinfo=where)
    return None


def video_link(item: dict[str, Any]) -> str | None:
    if item.get("hangoutLink"):
        return item["hangoutLink"]
    for entry in (item.get("conferenceData") or {}).get("entryPoints", []):
        if entry.get("entryPointType") == "video" and entry.get("uri"):
            return entry["uri"]
    return None


_BREAKS = re.compile(r"<\s*/?\s*(br|p|div|li|ul|ol|tr|h\d)\b[^>]*>", re.IGNORECASE)
_TAGS = re.compile(r"<[^>]+>")


def plain_text(description: str | None, limit: int = 4000) -> str:
    """Calendar descriptions are often HTML: keep the text, one line per block."""
    if not description:
        return ""
    text = html.unescape(_TAGS.sub("", _BREAKS.sub("\n", description)))
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)[:limit]


def _attendees(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in item.get("attendees", []) if isinstance(a, dict)]


def _rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
