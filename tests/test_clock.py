"""Times of day: the one clock parser (strict for the times people ask for, lenient for a
rule's words), the day names, and windows that may wrap midnight."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, tzinfo

import pytest

from engine.clock import (
    CLOCK,
    DAY_NAMES,
    clock_time,
    in_window,
    parse_instant,
    parse_when,
    rule_clock_time,
)
from engine.triage.rules.compile import Window


def groups(text: str) -> tuple[str, str | None, str | None]:
    m = re.fullmatch(CLOCK, text, re.I)
    assert m is not None, text
    return m.group(1), m.group(2), m.group(3)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("9", time(9)),
        ("17:30", time(17, 30)),
        ("17.30", time(17, 30)),
        ("17h30", time(17, 30)),
        ("5pm", time(17)),
        ("5:15 PM", time(17, 15)),
        ("5.30 p.m.", time(17, 30)),
        ("12pm", time(12)),
        ("12am", time(0)),
        ("12 a.m.", time(0)),
        ("25", None),
        ("17:75", None),
    ],
)
def test_clock_time(text: str, expected: time | None) -> None:
    assert clock_time(*groups(text)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("9pm", time(21)), ("25", time(1)), ("7:75", time(7, 59))],
)
def test_rule_clock_time_reads_what_it_can(text: str, expected: time) -> None:
    assert rule_clock_time(*groups(text)) == expected


@pytest.mark.parametrize("text", ["17.30", "17h30", "5.30 p.m."])
def test_parse_when_reads_the_clock_as_rules_do(text: str) -> None:
    now = datetime(2026, 11, 10, 9, tzinfo=UTC)
    assert parse_when(text, now, UTC) == datetime(2026, 11, 10, 17, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "naive_zone", "expected"),
    [
        ("2026-11-10T17:00+01:00", None, datetime(2026, 11, 10, 16, tzinfo=UTC)),
        ("2026-11-10T17:00", None, None),  # no offset, no zone given: no instant
        ("2026-11-10T17:00", UTC, datetime(2026, 11, 10, 17, tzinfo=UTC)),
        ("tomorrow", UTC, None),
        ("", UTC, None),
        (None, UTC, None),
    ],
)
def test_parse_instant(
    text: str | None, naive_zone: tzinfo | None, expected: datetime | None
) -> None:
    assert parse_instant(text, naive_zone=naive_zone) == expected


def test_day_names_start_on_monday() -> None:
    assert DAY_NAMES[datetime(2026, 11, 9).weekday()] == "monday"
    assert len(DAY_NAMES) == 7


def test_a_window_may_wrap_midnight() -> None:
    night = (time(22), time(7))
    assert in_window(time(23, 30), *night)
    assert in_window(time(0, 10), *night)
    assert in_window(time(6, 59), *night)
    assert not in_window(time(7), *night)
    assert not in_window(time(12), *night)
    assert in_window(time(13), time(12), time(14))
    assert not in_window(time(14), time(12), time(14))
    assert not in_window(time(9), time(9), time(9))


FRIDAY = frozenset({4})


@pytest.mark.parametrize(
    ("window", "moment", "inside"),
    [
        (Window(time(22), time(7), FRIDAY), datetime(2026, 11, 13, 23), True),  # Fri night
        (Window(time(22), time(7), FRIDAY), datetime(2026, 11, 14, 6), True),  # its morning
        (Window(time(22), time(7), FRIDAY), datetime(2026, 11, 13, 6), False),  # Thu's night
        (Window(time(22), time(7), FRIDAY), datetime(2026, 11, 14, 23), False),  # Sat night
        (Window(time(9), time(17), FRIDAY), datetime(2026, 11, 13, 12), True),
        (Window(time(9), time(17), FRIDAY), datetime(2026, 11, 13, 17), False),
        (Window(days=FRIDAY), datetime(2026, 11, 13, 3), True),  # start == end: all day
        (Window(days=FRIDAY), datetime(2026, 11, 14, 3), False),
    ],
)
def test_a_rule_window_counts_its_night_to_the_day_it_started(
    window: Window, moment: datetime, inside: bool
) -> None:
    assert window.contains(moment) is inside
