"""Calendar captures through ``CalendarSource`` against the fake Calendar: captures that are
steps of one scenario (``all-1``, ``all-2``; ``delete.single``, ``delete.single-2``) are
served in order to one calendar, each step's items put as changes and read by an incremental
``sync_once``; every other capture is a calendar of its own. Items are listed as captured (a
capture made without ``singleEvents`` lists a recurring event's series item too), and whatever
the fake Calendar holds answers ``events.get``. The source's clock is set an hour before the
scenario's earliest start, so its events fall in TIC's window."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.events import Event
from engine.sources.base import SourceError
from engine.sources.google.calendar import SYNC_WINDOW, CalendarSource, event_time
from engine.sources.sync import sync_once
from engine.tasks import one_line
from tests.sources.fake_google import ACCOUNT, running_google
from tests.sources.real_fixtures.report import Section, last_row_id, stored_events, temp_store

HORIZON = timedelta(days=90)  # CalendarSource's default horizon_days
COLUMNS = [
    "file",
    "items",
    "cancelled",
    "single occ.",
    "out of window",
    "created",
    "updated",
    "cancel events",
    "reminders",
    "error",
]


def capture_items(path: Path) -> list[dict[str, Any]]:
    """Event resources of a capture: an ``events.list`` page, a list of events, one event, or
    an object holding a list of them."""
    data = json.loads(path.read_text(encoding="utf-8"))
    items: Any = data
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        items = data.get("items") if "items" in data else [data] if "id" in data else lists[:1]
        items = items[0] if items and isinstance(items[0], list) else items
    return [i for i in items or [] if isinstance(i, dict) and "id" in i]


def scenarios(folder: Path) -> list[tuple[str, list[Path]]]:
    """Captures grouped into scenarios (same name but for a trailing step number), in order."""
    groups: dict[str, list[tuple[int, str, Path]]] = {}
    for path in sorted(folder.rglob("*.json")):
        stem = path.stem
        m = re.fullmatch(r"(?P<base>.*?)[-.]?(?P<step>\d+)", stem)
        base, step = (m["base"], int(m["step"])) if m else (stem, 0)
        key = f"{path.parent.relative_to(folder).as_posix()}/{base}"
        groups.setdefault(key, []).append((step, stem, path))
    return [(key, [p for _, _, p in sorted(found)]) for key, found in sorted(groups.items())]


def _start(item: dict[str, Any]) -> datetime | None:
    try:
        return event_time(item.get("start"), "UTC")
    except (ValueError, TypeError):
        return None


def _original_start(item: dict[str, Any]) -> datetime | None:
    """When a cancelled occurrence was due: ``originalStartTime``, else its id's suffix."""
    start = event_time(item.get("originalStartTime"), "UTC")
    m = re.search(r"_(\d{8})(?:T(\d{6})Z)?$", str(item.get("id", "")))
    if start is None and m:
        start = datetime.strptime(m[1] + (m[2] or "000000"), "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    return start


def _in_window(item: dict[str, Any], now: datetime) -> bool:
    start, end = _start(item), event_time(item.get("end"), "UTC") if item.get("end") else None
    if start is None:
        return False
    if end is not None and end < now - SYNC_WINDOW:
        return False
    return start <= now + HORIZON


async def run_calendar(root: Path, work: Path, section: Section) -> None:
    folder = root / "gcal"
    section.columns = COLUMNS
    totals: Counter[str] = Counter()
    found = scenarios(folder) if folder.is_dir() else []
    for index, (name, files) in enumerate(found):
        try:
            await _scenario(root, files, work / f"gcal-{index:02}.db", section, totals)
        except Exception as exc:
            section.failed(name, exc)
    section.add("scenarios", "scenarios (captures served in order to one calendar)", len(found))
    section.add("files", "capture files", sum(len(f) for _, f in found))
    section.add("items", "event items in the captures", totals["items"])
    section.add("polls_failed", "syncs that raised", totals["errors"])
    section.add("tracebacks", "  of them tracebacks (not a SourceError)", totals["bugs"])
    section.add(
        "outside", "items outside TIC's window (not reported, by design)", totals["outside"]
    )
    section.add("unreported", "changes in the window with no event", totals["unreported"])
    section.add("cancelled", "cancelled items in the captures", totals["cancelled"])
    section.add("cancel_events", "cancellation events emitted", totals["cancel_events"])
    section.add(
        "cancel_outside",
        "  cancellations of occurrences outside TIC's window (by design)",
        totals["cancel_outside"],
    )
    dropped = totals["cancelled"] - totals["matched"] - totals["cancel_outside"]
    section.add("cancel_dropped", "cancellations dropped (in the window)", dropped)
    section.add("lookups", "events.get reads (details of cancelled events)", totals["lookups"])
    section.add("found", "  of them answered with the event", totals["found"])
    section.add(
        "single", "deleted single occurrences (recurringEventId, cancelled)", totals["single"]
    )
    section.add("single_emitted", "  of them emitted as a cancellation", totals["single_emitted"])
    section.add(
        "series_known", "  dropped although TIC had seen their series", totals["series_known"]
    )


async def _scenario(
    root: Path, files: list[Path], db: Path, section: Section, totals: Counter[str]
) -> None:
    captures = [(p.relative_to(root).as_posix(), capture_items(p)) for p in files]
    listed = [i for _, items in captures for i in items]
    starts = [s for i in listed if i.get("status") != "cancelled" and (s := _start(i))]
    if not starts:  # only cancellations: when the cancelled occurrences were due
        starts = [s for i in listed if (s := event_time(i.get("originalStartTime"), "UTC"))]
    now = min(starts) - timedelta(hours=1) if starts else datetime(2025, 3, 25, tzinfo=UTC)
    with pytest.MonkeyPatch.context() as patch, running_google(patch) as google, temp_store(db):
        google.sign_in()
        source = CalendarSource(ACCOUNT, api_endpoint=google.url, clock=lambda: now, timeout=30)
        try:
            await sync_once(source)  # the account is added: an empty calendar, a sync token
            seen: set[str] = set()
            for rel, items in captures:
                if not items:
                    section.problem(rel, "no event resource in the capture")
                before = last_row_id()
                for item in items:
                    google.put_event(item)
                error = ""
                try:
                    await sync_once(source)
                except Exception as exc:
                    error = f"{type(exc).__name__}: {one_line(exc)}"
                    totals["errors"] += 1
                    totals["bugs"] += not isinstance(exc, SourceError)
                    section.problem(rel, "sync failed", error)
                events = [e for _, e in stored_events(before)]
                section.rows.append(_count(rel, items, events, now, seen, error, section, totals))
                seen |= {i["id"] for i in items if i.get("status") != "cancelled"}
            for call in google.calls("/events/"):  # events.get of an event or a series
                wanted = call.path.rsplit("/", 1)[-1]
                totals["lookups"] += 1
                held = wanted in google.events or wanted in getattr(google, "series", {})
                totals["found"] += held
        finally:
            await source.close()


def _count(
    rel: str,
    items: list[dict[str, Any]],
    events: list[Event],
    now: datetime,
    seen: set[str],
    error: str,
    section: Section,
    totals: Counter[str],
) -> list[Any]:
    kinds = Counter(e.event_type for e in events)
    reported = {e.refs.get("event_id") for e in events if e.event_type != "calendar.reminder"}
    cancelled_ids = {e.refs.get("event_id") for e in events if e.event_type == "calendar.cancelled"}
    cancelled = [i for i in items if i.get("status") == "cancelled"]
    single = [i for i in cancelled if i.get("recurringEventId")]
    outside = [i for i in items if i not in cancelled and not _in_window(i, now)]
    known = seen | {i["id"] for i in items if i not in cancelled}
    for item in cancelled:
        series = item.get("recurringEventId")
        if item["id"] in cancelled_ids:
            totals["matched"] += 1
            totals["single_emitted"] += bool(series)
            continue
        due = _original_start(item)
        if due is not None and not now - SYNC_WINDOW <= due <= now + HORIZON:
            totals["cancel_outside"] += 1
            section.problem(
                rel, f"cancellation of {item['id']} not reported", "outside TIC's window"
            )
            continue
        why = "never seen before (no stored copy)"
        if series and series in known:
            totals["series_known"] += 1
            why = f"an occurrence of the series {series}, which TIC has seen"
        section.problem(rel, f"cancellation of {item['id']} dropped", why)
    for item in items:
        if item not in cancelled and item not in outside and item["id"] not in reported:
            totals["unreported"] += 1
            section.problem(rel, f"change of {item['id']} not reported", str(item.get("summary")))
    totals["items"] += len(items)
    totals["cancelled"] += len(cancelled)
    totals["single"] += len(single)
    totals["outside"] += len(outside)
    totals["cancel_events"] += kinds["calendar.cancelled"]
    return [
        rel,
        len(items),
        len(cancelled),
        len(single),
        len(outside),
        kinds["calendar.created"],
        kinds["calendar.updated"],
        kinds["calendar.cancelled"],
        kinds["calendar.reminder"],
        error or None,
    ]
