"""Cutting what an outside sender controls to a working size, on ingest: the limits, and the
cutting of text and JSON that every event's fields go through as it is built (``Event`` in
:mod:`engine.events` applies them, field by field).

Anyone who can send the user an email or a WhatsApp message chooses the sender's display
name, the subject, the text, a group's name, labels and headers; a calendar invitation adds
its times. Nothing downstream (the rules, the summary, ``notify``'s schema, the store, the
prompt) may fail because of their size or shape, so every event is bounded once, as it is
read: long strings are cut, long lists shortened, deep structures flattened, invalid
characters (a lone UTF-16 surrogate) replaced, a time with no UTC offset read in the user's
zone and an instant beyond what can be shifted between zones brought back within range.

The working copy is what everything reads; what it changed is kept in the event itself
(``Event.original``: each changed field's full original value, ``Event.notes``: one line
each) for "why?". Bounding an event twice changes nothing more.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

ID = 200
EVENT_TYPE = 60
NAME = 80
ADDRESS = 254  # the longest address SMTP carries
SUBJECT = 300
TEXT = 20_000
CHAT_ID = 200
LABELS = 50
LABEL = 100
HEADERS = 50
HEADER_NAME = 100
HEADER_VALUE = 2_000
REFS = 30
REF_STRING = 500
REF_ITEMS = 20
DEPTH = 4
"""How deep refs and attendees may nest in the working copy; deeper becomes a string."""
CALENDAR_TEXT = 300
RECURRENCE = 20
ATTENDEES = 100
NOTES = 50

MAX_INPUT_DEPTH = 64
"""A line nested deeper than this is no event (refused with a one-line error, see
``engine.events.parse_event``); within it, deep parts are cut as above."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone UTF-16 surrogate (it cannot be stored as it is)."""
    return _SURROGATE.search(text) is not None


def clean(text: str) -> str:
    """``text`` that can be stored and shown: a lone surrogate becomes U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def cut(text: str, limit: int) -> str:
    """At most ``limit`` characters, the last one an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def one_line(text: str, limit: int) -> str:
    """A single-line field (a name, a subject): control characters and line breaks become
    one space, then cut."""
    return cut(_CONTROL.sub(" ", clean(text)).strip(), limit)


def nesting(value: Any) -> int:
    """How deep lists and objects nest in a decoded JSON value (iteratively: a value nested
    deeper than Python's recursion limit is measured too)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            depth += 1
            stack.extend((v, depth) for v in item.values())
        elif isinstance(item, list | tuple):
            depth += 1
            stack.extend((v, depth) for v in item)
        deepest = max(deepest, depth)
    return deepest


def short_id(value: str) -> str:
    """An id too long to keep: its start and a digest, so distinct ids stay distinct."""
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{clean(value)[: ID - 17]}#{digest}"


def bounded_json(value: Any, depth: int = DEPTH) -> Any:
    """A JSON-like value with strings, lists and objects cut, nesting at most ``depth``."""
    if isinstance(value, str):
        return cut(clean(value), REF_STRING)
    if isinstance(value, bool | int | float) or value is None:
        return value
    if depth <= 0:
        return "\u2026"
    if isinstance(value, dict):
        items = list(value.items())[:REFS]
        return {cut(clean(str(k)), LABEL): bounded_json(v, depth - 1) for k, v in items}
    if isinstance(value, list | tuple):
        return [bounded_json(v, depth - 1) for v in list(value)[:REF_ITEMS]]
    return cut(clean(str(value)), REF_STRING)


def _cleaned(value: Any) -> Any:
    """A decoded JSON value as it can be stored: every string's lone surrogates replaced
    (the caller bounds its nesting)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(str(k)): _cleaned(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cleaned(v) for v in value]
    return value


def cleaned(value: Any) -> Any:
    """``value`` (decoded JSON, nested at most MAX_INPUT_DEPTH deep) with every lone
    surrogate in its strings and keys replaced: what an event is validated from."""
    return _cleaned(value)
