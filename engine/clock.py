"""Time helpers: the user's local zone and parsing of the times people and models write."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, time, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DAY_NAMES = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

# A time of day as people write it: "5", "17:30", "5pm", "5.30 p.m.", "17h30" (hour, minute,
# am/pm are its groups; see ``clock_time``).
CLOCK = r"(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|h|uhr|uur)?"


EARLIEST = datetime(2, 1, 1, tzinfo=UTC)
LATEST = datetime(9998, 12, 31, tzinfo=UTC)
"""The instants an event may hold: a day more or less than these, in any zone, is still a
``datetime`` (years 1 and 9999 are not, once shifted)."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def clamp_instant(moment: datetime) -> datetime:
    """``moment`` itself when it is between EARLIEST and LATEST, else the nearer of the two
    (an instant a zone shift cannot even represent counts as beyond)."""
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:
        return EARLIEST if moment.year < 5000 else LATEST
    if utc < EARLIEST:
        return EARLIEST
    if utc > LATEST:
        return LATEST
    return moment


def add_clamped(moment: datetime, delta: timedelta) -> datetime:
    """``moment + delta``, held at the largest or smallest ``datetime`` instead of failing."""
    try:
        return moment + delta
    except OverflowError:
        edge = datetime.max if delta > timedelta(0) else datetime.min
        return edge.replace(tzinfo=moment.tzinfo)


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


def parse_instant(text: str | None, *, naive_zone: tzinfo | None = None) -> datetime | None:
    """An ISO 8601 instant; None when empty or unreadable. A time without an offset is in
    ``naive_zone``, or no instant at all when that is None."""
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        return parsed
    return parsed.replace(tzinfo=naive_zone) if naive_zone is not None else None


def zone(name: str | None) -> tzinfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


_WHOLE_CLOCK = re.compile(rf"^{CLOCK}$", re.IGNORECASE)


def _hour_minute(hour: str, minute: str | None, suffix: str | None) -> tuple[int, int]:
    h, m = int(hour), int(minute or 0)
    s = (suffix or "").replace(".", "").lower()
    if s == "pm" and h < 12:
        h += 12
    if s == "am" and h == 12:
        h = 0
    return h, m


def clock_time(hour: str, minute: str | None, suffix: str | None) -> time | None:
    """The time of day a ``CLOCK`` match names (its three groups); None when out of range."""
    h, m = _hour_minute(hour, minute, suffix)
    return time(h, m) if h <= 23 and m <= 59 else None


def rule_clock_time(hour: str, minute: str | None, suffix: str | None) -> time:
    """``clock_time`` for a rule's words, read as well as they can be: an hour past 23
    wraps, minutes past 59 are capped."""
    h, m = _hour_minute(hour, minute, suffix)
    return time(h % 24, min(m, 59))


def _clock_time(text: str) -> time | None:
    m = _WHOLE_CLOCK.match(text.strip())
    return clock_time(*m.groups()) if m else None


def in_window(moment: time, start: time, end: time) -> bool:
    """Whether ``moment`` is in [start, end); a window may wrap midnight (start > end);
    start == end is empty."""
    if start <= end:
        return start <= moment < end
    return moment >= start or moment < end


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
        for i, name in enumerate(DAY_NAMES):
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
