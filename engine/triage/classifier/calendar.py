"""Where a calendar event happens: in person at a place, or on a video call."""

from __future__ import annotations

import re

from engine.events import Event

VIDEO_LINK = re.compile(
    r"(meet\.google\.com|zoom\.us|teams\.microsoft\.com|teams\.live\.com|webex\.com|"
    r"whereby\.com|jit\.si|gotomeeting|bluejeans|chime\.aws|facetime|https?://)",
    re.I,
)
VIDEO_WORDS = re.compile(
    r"\b(zoom|teams|google meet|meet|webex|skype|hangouts?|whereby|"
    r"jitsi|video ?call|online|virtual)\b",
    re.I,
)


def is_video_call(e: Event) -> bool:
    cal = e.calendar
    if cal is None:
        return False
    location = cal.location or ""
    return bool(
        VIDEO_LINK.search(location)
        or VIDEO_WORDS.search(location)
        or (not location.strip() and VIDEO_LINK.search(e.text))
        or any(k in e.refs for k in ("hangout_link", "conference_uri", "video_link"))
    )


def is_in_person(e: Event) -> bool:
    cal = e.calendar
    return cal is not None and bool((cal.location or "").strip()) and not is_video_call(e)
