"""Time helpers: the user's local zone and parsing of the times people and models write."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, time, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def utcnow() -> datetime:
    return datetime.now(UTC)


def local_zone_name() -> str:
    """The IANA name of the user's zone (``TZ``, /etc/timezone, /etc/localtime), else UTC."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        candidates.append(Path("/etc/timezone").read_text().strip())
    except OSError:
        pass
    try:
        link = os.readlink("/etc/localtime")
        if "zoneinfo/" in link:
            candidates.append(link.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        if not name:
            continue
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            continue
        return name
    return "UTC"


def zone(name: str | None) -> tzinfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


_CLOCK = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$", re.IGNORECASE)


def _clock_time(text: str) -> time | None:
    m = _CLOCK.match(text.strip())
    if not m:
        return None
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    suffix = (m.group(3) or "").lower()
    if suffix == "pm" and hour < 12:
        hour += 12
    if suffix == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def parse_when(text: str, now: datetime, tz: tzinfo) -> datetime:
    """Parse ``2026-12-01T17:00[+01:00]``, ``17:00``, ``5pm``, ``tomorrow 9:00``,
    ``monday 09:00`` or ``in 20 minutes`` into an aware datetime (the next such moment)."""
    raw = text.strip()
    if not raw:
        raise ValueError("no time given; use e.g. 17:00 or 2026-12-01T17:00")
    low = raw.lower()
    m = re.match(r"^in\s+(\d+)\s*(minute|min|hour|day)s?$", low)
    if m:
        n, unit = int(m.group(1)), m.group(2)
        delta = {
            "minute": timedelta(minutes=n),
            "min": timedelta(minutes=n),
            "hour": timedelta(hours=n),
            "day": timedelta(days=n),
        }[unit]
        return now + delta
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        parsed = None
    if parsed is not None:
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)
    local_now = now.astimezone(tz)
    day_offset: int | None = None
    weekday: int | None = None
    rest = low
    if low.startswith("today"):
        day_offset, rest = 0, low[5:]
    elif low.startswith("tomorrow"):
        day_offset, rest = 1, low[8:]
    else:
        for i, name in enumerate(WEEKDAYS):
            if low.startswith(name) or low.startswith(name[:3] + " "):
                weekday = i
                rest = low.split(" ", 1)[1] if " " in low else ""
                break
    rest = rest.replace("at ", "").strip() or "09:00"
    clock = _clock_time(rest)
    if clock is None:
        raise ValueError(f"cannot understand the time {text!r}; use e.g. 17:00 or 2026-12-01T17:00")
    candidate = local_now.replace(hour=clock.hour, minute=clock.minute, second=0, microsecond=0)
    if day_offset is not None:
        return candidate + timedelta(days=day_offset)
    if weekday is not None:
        ahead = (weekday - local_now.weekday()) % 7
        candidate += timedelta(days=ahead)
        return candidate if candidate > local_now else candidate + timedelta(days=7)
    return candidate if candidate > local_now else candidate + timedelta(days=1)
