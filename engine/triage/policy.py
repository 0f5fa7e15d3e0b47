"""Deciding an event by the user's compiled rules, in DESIGN.md's order: Never is a hard
filter; Always surfaces unless clearly spam; custom rules apply strictly; when no rule
matches, the built-in heuristics decide. Conflicts resolve the same way every time and the
reason says so.

Which lines have a say: every line the event falls under, except that a line naming only a
generic kind ("automated alerts") gives way to a line naming the event's specific kind
("receipts", "security alerts"), and a catch-all ("anything that fits no other category")
speaks only when no other line does."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from engine.events import Event
from engine.triage.classifier import GENERIC, KIND_NAMES, Classification, classify, fold, is_spam
from engine.triage.rules.compile import CompiledRule
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER

SOON = timedelta(days=7)


DecidedBy = Literal["never", "always", "custom", "heuristic", "model"]
"""What decided: a rule of that section, the built-in heuristics, or the model judging a rule
code could not read."""


@dataclass(frozen=True)
class PolicyDecision:
    notify: bool
    reason: str
    rule: str | None
    by: DecidedBy


PROTECTED = frozenset({"security", "billing_problem"})
"""Kinds a line about automated mail in general never silences: only a line that names them
(or their sender) does."""


def _generic_hit(rule: CompiledRule, event: Event, now: datetime, kinds: Classification) -> bool:
    """The line takes this event only because a system sent it ("automated alerts")."""
    if rule.scope.identity_hit(event, now, kinds):
        return False
    hit = rule.scope.hit_kinds(event, now, kinds)
    return bool(hit) and hit <= GENERIC


def _specific_hit(rule: CompiledRule, event: Event, now: datetime, kinds: Classification) -> bool:
    return bool(rule.scope.hit_kinds(event, now, kinds) - GENERIC - {"person"})


def applicable(
    event: Event, now: datetime, rules: list[CompiledRule], kinds: Classification
) -> tuple[list[CompiledRule], list[CompiledRule]]:
    """(the lines that have a say on this event, the Never lines whose stated exception it
    is and that say to notify it)."""
    understood = [r for r in rules if r.understood]
    applying = [r for r in understood if not r.catch_all and r.applies(event, now, kinds)]
    exceptions = [r for r in understood if r.exception(event, now, kinds)]
    specific = any(_specific_hit(r, event, now, kinds) for r in applying)
    if specific or kinds.names & PROTECTED:
        applying = [r for r in applying if not _generic_hit(r, event, now, kinds)]
    if not applying and not exceptions:
        # "everything else" is read against the other lines: with one of them unread, what
        # is "else" is a guess, and the catch-all is not applied, unless every unread line
        # would decide as it does (a Never catch-all beside unread Never lines)
        unread = {r.rule.section for r in rules if not r.understood}
        applying = [
            r
            for r in understood
            if r.catch_all and unread <= {r.rule.section} and r.applies(event, now, kinds)
        ]
    return applying, exceptions


def decide_by_rules(
    event: Event,
    now: datetime,
    rules: list[CompiledRule],
    kinds: Classification | None = None,
) -> PolicyDecision | None:
    """The decision of the first rule section that has a say, or None (heuristics next)."""
    kinds = kinds if kinds is not None else classify(event)
    applying, exceptions = applicable(event, now, rules, kinds)
    never = [r for r in applying if r.rule.section == NEVER and r.action == "drop"]
    always = [r for r in applying if r.rule.section == ALWAYS and r.action == "notify"]
    if never:
        reason = f"matches the Never rule \u201c{never[0].rule.text}\u201d"
        if always:
            reason += (
                f" (it also matches the Always rule \u201c{always[0].rule.text}\u201d; "
                "Never wins: it is a hard filter)"
            )
        return PolicyDecision(False, reason, never[0].rule.text, NEVER)
    if always:
        if is_spam(kinds):
            return PolicyDecision(
                False,
                "matches an Always rule but is clearly spam "
                f"({'; '.join(kinds.evidence('phishing'))})",
                always[0].rule.text,
                ALWAYS,
            )
        return PolicyDecision(
            True,
            f"matches the Always rule \u201c{always[0].rule.text}\u201d",
            always[0].rule.text,
            ALWAYS,
        )
    custom = [r for r in applying if r not in always and r not in never]
    verdicts = [(r, r.verdict(event, now, kinds)) for r in custom]
    for rule, ok in verdicts:  # a custom rule that says no wins over one that says yes
        if not ok:
            return PolicyDecision(False, _custom_reason(rule, False), rule.rule.text, CUSTOM)
    for rule, ok in verdicts:
        if ok and not is_spam(kinds):
            return PolicyDecision(True, _custom_reason(rule, True), rule.rule.text, CUSTOM)
    for rule in exceptions:
        if not is_spam(kinds):
            reason = f"the rule \u201c{rule.rule.text}\u201d says to notify it (its exception)"
            return PolicyDecision(True, reason, rule.rule.text, CUSTOM)
    return None


def _custom_reason(rule: CompiledRule, ok: bool) -> str:
    if rule.action == "only":
        verb = "meets" if ok else "does not meet"
        return f"{verb} the condition of the rule \u201c{rule.rule.text}\u201d"
    return f"the rule \u201c{rule.rule.text}\u201d says to {'notify' if ok else 'drop'} it"


DROPPED_KINDS: tuple[str, ...] = (
    "auto_reply",
    "promotion",
    "newsletter",
    "mailing_list",
    "social",
    "shipping",
    "receipt",
    "product_update",
    "event_invite",
    "sales",
    "hiring",
    "review",
    "publishing",
    "dev",
    "tracker",
    "monitoring",
    "account",
)


def heuristic(event: Event, now: datetime, kinds: Classification | None = None) -> PolicyDecision:
    """TIC's built-in judgement when no rule decides: notify only on evidence."""
    kinds = kinds if kinds is not None else classify(event)

    def say(notify: bool, reason: str) -> PolicyDecision:
        return PolicyDecision(notify, reason, None, "heuristic")

    if event.source == "cron":
        return say(True, "a reminder you set up")
    if is_spam(kinds):
        return say(False, f"clearly spam ({'; '.join(kinds.evidence('phishing'))})")
    if event.source == "email":
        return _email(event, kinds, say)
    if event.source == "whatsapp":
        return _whatsapp(event, kinds, say)
    return _calendar(event, now, say)


Say = Callable[[bool, str], PolicyDecision]


def _asks_or_urgent(kinds: Classification) -> str | None:
    if kinds.has("asks"):
        return "asks you something"
    if kinds.has("urgent"):
        return "is time-sensitive"
    return None


def _email(event: Event, kinds: Classification, say: Say) -> PolicyDecision:
    if kinds.has("security"):
        alert = kinds.evidence("security")[0]
        return say(True, f"a security alert on your account ({alert})")
    if kinds.has("billing_problem"):
        return say(True, f"a billing problem ({kinds.evidence('billing_problem')[0]})")
    if kinds.has("travel_change") and not kinds.has("promotion") and _your_trip(event):
        # a delay, a cancellation or a gate change on the user's own trip: time-sensitive
        return say(True, f"a change to your trip ({kinds.evidence('travel_change')[0]})")
    who = (event.sender.name or event.sender.address) if event.sender else "someone"
    direct = kinds.has("person") and not (
        kinds.has("automated") or kinds.has("mailing_list") or kinds.has("bulk")
    )
    for kind in DROPPED_KINDS:
        if kinds.has(kind):
            return say(False, f"{KIND_NAMES[kind]} ({kinds.evidence(kind)[0]})")
    if direct:
        ask = _asks_or_urgent(kinds)
        if ask:
            return say(True, f"{who} wrote to you directly and {ask}")
        return say(False, f"{who} wrote, but there is nothing to answer or act on")
    if kinds.has("person"):
        return say(False, f"{who} wrote through a service or a list, not to you directly")
    sent = kinds.evidence("automated")[:1] or kinds.evidence("organisation")[:1]
    return say(False, f"an automated notice ({sent[0] if sent else 'not a person'})")


_YOUR_TRIP = re.compile(
    r"\b(?:your|uw|je|jouw|ihre?n?|votre|vos|tu|tus|su|sus|seu|sua|tuo|tua)\s+(?:\w+\s+)?"
    r"(?:flights?|trains?|trips?|bookings?|journey|connection|gate|vlucht|trein|reis|flug|zug|fahrt|"
    r"ruckfahrt|verbindung|reise|vol|voyage|billet|vuelo|tren|viaje|reserva|voo|trem|viagem|"
    r"volo|treno|viaggio|prenotazione)\b"
)
"""A trip that is the user's own ("your flight", "Ihre Rückfahrt", "il tuo treno"), not a
disruption on a line they may not travel on."""


def _your_trip(event: Event) -> bool:
    return bool(_YOUR_TRIP.search(fold(f"{event.subject or ''}\n{event.text}")))


def _whatsapp(event: Event, kinds: Classification, say: Say) -> PolicyDecision:
    who = event.sender.name if event.sender and event.sender.name else "someone"
    why = _asks_or_urgent(kinds)
    if event.chat is not None and event.chat.is_group:
        if event.mentions_me and why:
            return say(True, f"{who} mentioned you in a group and {why}")
        if event.mentions_me:
            return say(False, f"{who} mentioned you in a group, with nothing to answer")
        if kinds.has("group_alert"):
            alert = kinds.evidence("group_alert")[0]
            return say(True, f"{who} told the group of an emergency or a change ({alert})")
        return say(False, "group chatter that does not mention you")
    if why:
        return say(True, f"a direct WhatsApp message from {who} that {why}")
    return say(False, f"a WhatsApp message from {who} with nothing to answer")


def _calendar(event: Event, now: datetime, say: Say) -> PolicyDecision:
    cal = event.calendar
    start = cal.start if cal else None
    soon = start is not None and now - timedelta(hours=1) <= start <= now + SOON
    if event.event_type == "calendar.reminder":
        if cal is not None and cal.recurring:
            return say(False, "a reminder for a recurring event you already know")
        return say(True, "an event starts soon")
    if event.event_type == "calendar.cancelled" or (cal and cal.status == "cancelled"):
        return say(True, "an event was cancelled")
    if cal is not None and cal.previous_start is not None and cal.previous_start != start:
        return say(True, "an event was moved")
    if event.event_type == "calendar.created":
        if soon:
            return say(True, "a new event in the coming days")
        return say(False, "a new event far ahead; no need to interrupt now")
    if soon:
        return say(True, "an upcoming event changed")
    return say(False, "a change to an event far ahead")
