"""Turning "Don't notify me about this" into a well-formed Never-notify rule.

The rule names who sent the event by what identifies them, never by the display name,
which any sender chooses ("Tomas Herrera <offers@pills-cheap.example>", a group named
"Marco", "My Bank" from a phishing address): an email by its sender's address, a WhatsApp
message by its chat's id (group or direct chat: a group named like a person never mutes
that person's direct chat), a calendar event by its series or its own id (never by its
title, which any invitation can copy or leave empty). The chat's name is shown in
quotes for the reader; rules match the id alone (``engine.triage.rules.identity``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from engine.events import Event
from engine.triage.policy import decide_by_rules
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.identity import calendar_rule, chat_rule

_ADDRESS = re.compile(r"[^\s@<>()\"“”,;:\[\]]+@[^\s@<>()\"“”,;:\[\]]+\.[^\s@<>()\"“”,;:\[\]]+")


def _quoted(text: str | None, limit: int = 80) -> str:
    text = " ".join((text or "").split())
    return f"\u201c{text[:limit]}\u201d"


def sender_address(event: Event) -> str | None:
    """The sender's address when it is one (lower case), else None."""
    address = (event.sender.address or "").strip().lower() if event.sender else ""
    return address if _ADDRESS.fullmatch(address) else None


def never_rule_for(event: Event) -> str | None:
    """The Never rule for this kind of event, or None when nothing in it identifies its
    sender (an email with no address, a WhatsApp message with no chat id)."""
    if event.source == "email":
        address = sender_address(event)
        return f"Emails from {address}" if address else None
    if event.source == "whatsapp":
        chat = event.chat
        if chat is None or not chat.id:
            return None
        return chat_rule(chat.id, chat.name or "", group=chat.is_group)
    if event.source == "calendar":
        return _calendar_rule(event)
    return f"{event.source} events like {_quoted(event.subject or event.text)}"


def _calendar_rule(event: Event) -> str | None:
    """A calendar event by its series (a recurring one) or its own id, never by its title:
    anyone can send an invitation titled like another, or with no title at all."""
    series = event.refs.get("recurring_event_id")
    own = event.refs.get("event_id")
    organiser = event.calendar.organizer if event.calendar else None
    by = (organiser.address or None) if organiser else None
    reminders = event.event_type == "calendar.reminder"  # muting a reminder mutes reminders
    title = event.subject or ""
    if isinstance(series, str) and series:
        return calendar_rule(series, title, series=True, organiser=by, reminders=reminders)
    if isinstance(own, str) and own:
        return calendar_rule(own, title, series=False, organiser=by, reminders=reminders)
    return None


def would_silence(rules: list[str], events: Iterable[Event], now: datetime) -> list[Event]:
    """The events that these Never rules would have dropped."""
    if not rules:
        return []
    compiled = compile_rules_text("## Never notify\n" + "".join(f"- {r}\n" for r in rules))
    silenced = []
    for event in events:
        verdict = decide_by_rules(event, now, compiled)
        if verdict is not None and not verdict.notify:
            silenced.append(event)
    return silenced


def identities(event: Event) -> frozenset[str]:
    """What identifies the thing an event comes from, as a mute keys it: an email's sender
    address, a WhatsApp chat's id, a calendar event's own and series id."""
    if event.source == "email":
        address = sender_address(event)
        return frozenset({address}) if address else frozenset()
    if event.source == "whatsapp":
        chat_id = event.chat.id if event.chat else None
        return frozenset({chat_id}) if chat_id else frozenset()
    if event.source == "calendar":
        ids = (event.refs.get("event_id"), event.refs.get("recurring_event_id"))
        return frozenset(i for i in ids if isinstance(i, str) and i)
    return frozenset()


def beyond(rule: str, muted: Event, recent: Iterable[Event], now: datetime) -> list[Event]:
    """The recent events ``rule`` would silence that are not the muted thing: another
    sender, chat or event. A mute that would reach them says more than "this"."""
    own = identities(muted)
    return [
        e
        for e in would_silence([rule], recent, now)
        if e.source != muted.source or not (identities(e) & own)
    ]
