"""Recognising a notification-preference change in what the user says ("stop telling me
about group chats", "notify me when I get an email from Mario", "only tell me about X if Y")
and turning it into a well-formed rule for the right section, so the change works the same
with any model. Anything not recognised is left to the main agent."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER

_VERB = (
    r"(?:notify|notifying|tell|telling|alert|alerting|ping|pinging|bug|bugging|bother|"
    r"bothering|remind|reminding|show|showing|inform|informing|send)"
)
_ME = r"(?:\s+me)?"
NEVER_TRIGGER = re.compile(
    rf"^(?:please\s+)?(?:(?:stop|quit)\s+{_VERB}{_ME}|(?:don'?t|do not|never)\s+"
    rf"(?:ever\s+)?{_VERB}{_ME}|no more(?: notifications| alerts)?|mute|silence|ignore)"
    r"\s*(?:about|of|for|on|when|whenever|if)?\s+(?P<what>.+)$",
    re.I,
)
ALWAYS_TRIGGER = re.compile(
    rf"^(?:please\s+)?(?:always\s+)?(?:{_VERB}{_ME}|let me know|i want to (?:know|be told))"
    r"\s*(?:always\s+)?(?:about|of|for|on|when|whenever|if)\s+(?P<what>.+)$",
    re.I,
)
ONLY_TRIGGER = re.compile(rf"^(?:please\s+)?only\s+{_VERB}{_ME}\b", re.I)
CONDITIONAL = re.compile(r"\b(only|unless|between|after \d|before \d|at night)\b", re.I)
LEADING = re.compile(
    r"^(?:(?:i|we)\s+(?:get|receive|have)\s+|there(?:'s| is| are)\s+|someone\s+sends?\s+me\s+|"
    r"anyone\s+sends?\s+me\s+|i'm\s+|i am\s+)",
    re.I,
)


@dataclass(frozen=True)
class RuleChange:
    section: str
    rule: str


def _clean(what: str) -> str:
    what = what.strip().rstrip(".!?").strip()
    what = re.sub(r"\s+(please|anymore|any more|from now on|again)$", "", what, flags=re.I)
    what = LEADING.sub("", what)
    what = re.sub(r"^(?:a|an|the|any)\s+", "", what, flags=re.I)
    acts = re.match(
        r"^(?P<who>[A-Z][\w'’.& -]{0,60}?)\s+(?P<verb>writes|emails|messages|texts|"
        r"sends|calls|mails)(?:\s+me)?(?:\s+(?:anything|something))?$",
        what,
    )
    if acts:
        kind = "Emails" if acts.group("verb") in ("emails", "mails") else "Messages"
        return f"{kind} from {acts.group('who')}"
    return what[:1].upper() + what[1:] if what else what


def preference_change(message: str) -> RuleChange | None:
    """The rule a message asks for, or None when it asks for no rule change."""
    text = " ".join(message.split())
    if not text or len(text) > 300 or "?" in text.rstrip("?"):
        return None
    if text.endswith("?") and not re.match(r"^(can|could|would|will) you", text, re.I):
        return None
    text = re.sub(r"^(?:can|could|would|will) you\s+", "", text, flags=re.I).rstrip("?")
    if ONLY_TRIGGER.match(text) or (
        CONDITIONAL.search(text) and (NEVER_TRIGGER.match(text) or ALWAYS_TRIGGER.match(text))
    ):
        rule = re.sub(r"^please\s+", "", text, flags=re.I).rstrip(".!")
        return RuleChange(CUSTOM, rule[:1].upper() + rule[1:])
    m = NEVER_TRIGGER.match(text)
    if m:
        what = _clean(m.group("what"))
        return RuleChange(NEVER, what) if what else None
    m = ALWAYS_TRIGGER.match(text)
    if m:
        what = _clean(m.group("what"))
        return RuleChange(ALWAYS, what) if what else None
    return None


_WHEN = (
    r"(?:at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)?|in\s+\d+\s*(?:minutes?|mins?|hours?|days?)|"
    r"tomorrow(?:\s+(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm)?)?|"
    r"(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"(?:\s+(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm)?)?)"
)
REMIND_BEFORE = re.compile(
    rf"^(?:please\s+)?remind me\s+(?P<when>{_WHEN})\s+(?:to\s+)?(?P<what>.+)$", re.I
)
REMIND_AFTER = re.compile(
    rf"^(?:please\s+)?remind me\s+to\s+(?P<what>.+?)\s+(?P<when>{_WHEN})$", re.I
)
EVERY = re.compile(
    r"^(?:please\s+)?every\s+(?P<unit>day|weekday|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|hour|month)s?\s+(?:at\s+(?P<clock>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)\s*,?\s*)?"
    r"(?P<what>.+)$",
    re.I,
)
WHAT_DID = re.compile(
    r"^(?:what|did)\s+(?:did|has|have)?\s*(?P<who>[\w .'’&@-]{2,60}?)\s+"
    r"(?:write|wrote|send|sent|say|said|email|emailed|message|messaged)\b",
    re.I,
)
ANY_FROM = re.compile(
    r"^(?:any|are there any|did i get any)\s+(?:new\s+)?(?P<kind>emails?|"
    r"messages?|mail)\s+from\s+(?P<who>[\w .'’&@-]{2,60}?)\s*\??$",
    re.I,
)
CALENDAR = re.compile(
    r"\b(?:what'?s|what is|anything)\s+(?:on\s+)?(?:my\s+)?(?:calendar|"
    r"agenda|schedule)\b|\bwhat (?:meetings|events) do i have\b",
    re.I,
)


def reminder_request(message: str) -> dict[str, str] | None:
    """schedule_job arguments for "remind me at 17:00 to call Mario", "remind me to call
    Mario tomorrow 9:00" or "every Monday at 9 tell me what this week holds"."""
    text = " ".join(message.split()).rstrip(".!")
    for pattern in (REMIND_BEFORE, REMIND_AFTER):
        m = pattern.match(text)
        if m:
            when = re.sub(r"^(?:at|on)\s+", "", m.group("when"), flags=re.I)
            what = m.group("what").strip()
            return {
                "text": what[:1].upper() + what[1:],
                "at": when,
                "repeat": "none",
                "kind": "reminder",
            }
    m = EVERY.match(text)
    if m:
        unit = m.group("unit").lower()
        clock = m.group("clock") or "09:00"
        repeat = {"day": "daily", "weekday": "weekdays", "hour": "hourly", "month": "monthly"}.get(
            unit, "weekly"
        )
        at = f"{unit} {clock}" if repeat == "weekly" else clock
        raw = m.group("what").strip()
        if re.match(r"^remind me", raw, re.I):
            what, kind = re.sub(r"^remind me(?:\s+to)?\s+", "", raw, flags=re.I), "reminder"
        else:
            what, kind = raw, "task"
        return {
            "text": what[:1].upper() + what[1:],
            "at": at.strip(),
            "repeat": repeat,
            "kind": kind,
        }
    return None


def lookup_request(message: str) -> tuple[str, dict[str, object]] | None:
    """A read-only look-up the question obviously needs ("what did Mario write?")."""
    text = " ".join(message.split())
    m = WHAT_DID.match(text) or ANY_FROM.match(text)
    if m:
        who = re.sub(r"^(?:me|i|my)\s+", "", m.group("who").strip(), flags=re.I)
        if who and who.lower() not in ("you", "i", "we", "they", "he", "she"):
            return "search_events", {"query": who[:100], "source": "any", "limit": 5}
    if CALENDAR.search(text):
        hours = 24 * 7 if re.search(r"\bweek\b", text, re.I) else 48
        return "upcoming_calendar", {"hours": hours}
    return None
