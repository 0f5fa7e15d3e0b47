"""Rules about one WhatsApp chat, by its id: what "Don't notify me about this" writes.

    - WhatsApp messages in the group “Book club” (id 120363041234567890@g.us)
    - WhatsApp messages in the chat with “Marco” (id 34600111222@s.whatsapp.net)

The quoted name is for the reader; such a line matches the chat's id, and its kind (group or
direct chat), alone: a group renamed "Marco" is not Marco's direct chat, and no display
name can stand in for the id."""

from __future__ import annotations

import re

from engine.triage.rules.match import Match

MAX_ID = 200

_LINE = re.compile(
    r"WhatsApp messages in the (group|chat with) \u201c([^\u201d]*)\u201d \(id ([^\s()]{1,200})\)",
    re.IGNORECASE,
)


def _name(text: str) -> str:
    cleaned = " ".join(text.replace("\u201c", " ").replace("\u201d", " ").split())
    return cleaned[:60]


def chat_rule(chat_id: str, name: str, *, group: bool) -> str | None:
    """The rule line for one chat; None when its id cannot be written in one."""
    if not chat_id or len(chat_id) > MAX_ID or re.search(r"[\s()]", chat_id):
        return None
    kind = "group" if group else "chat with"
    return f"WhatsApp messages in the {kind} \u201c{_name(name)}\u201d (id {chat_id})"


def chat_scope(text: str) -> Match | None:
    """What an identity line matches, or None when ``text`` is not one."""
    m = _LINE.fullmatch(text.strip())
    if m is None:
        return None
    group = m.group(1).lower() == "group"
    return Match(sources=frozenset({"whatsapp"}), addresses=(m.group(3),), group=group)
