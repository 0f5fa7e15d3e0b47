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
# "Tell me about the weather" and "remind me about the dentist tomorrow" are a question and
# a reminder, not rules: tell/show/remind/inform/send make a rule only with "always" or an
# event to wait for (when/if); notify/alert/ping/... make one with "about" too.
_NOTIFY_VERB = (
    r"(?:notify|alert|ping|bug|bother|let me know|i want to (?:know|be told)|"
    r"keep me (?:posted|informed|updated))"
)
ALWAYS_TRIGGER = re.compile(
    rf"^(?:please\s+)?(?:(?:always\s+{_VERB}{_ME}|{_NOTIFY_VERB}{_ME})\s*(?:always\s+)?"
    r"(?:about|of|for|on|when|whenever|if)|"
    rf"{_VERB}{_ME}\s*(?:always\s+)?(?:when|whenever|if))\s+(?P<what>.+)$",
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
    rf"^(?:please\s+)?remind me\s+(?:to\s+)?(?P<what>.+?)\s+(?P<when>{_WHEN})$", re.I
)
EVERY = re.compile(
    r"^(?:please\s+)?every\s+(?P<unit>day|weekday|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|hour|month)s?\s+(?:at\s+(?P<clock>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)\s*,?\s*)?"
    r"(?P<what>.+)$",
    re.I,
)
WHO = r"(?P<who>[\w .'’&@-]{2,60}?)"
WHAT_DID = re.compile(
    r"^(?:what|did|has|have)\s+(?:did|has|have)?\s*" + WHO + r"\s+"
    r"(?:write|wrote|written|send|sent|say|said|email|emailed|message|messaged|text|texted)\b",
    re.I,
)
ANY_FROM = re.compile(
    r"^(?:(?:are there|did i get|have i got|do i have|show(?: me)?|find|list)\s+)?"
    r"(?:any(?:thing)?\s+)?(?:new\s+|recent\s+|the\s+|my\s+)?(?:emails?|messages?|mails?|"
    r"whatsapps?|news)?\s*from\s+" + WHO + r"\s*\??$",
    re.I,
)
WHATS_NEW = re.compile(
    r"^(?:what'?s new|what is new|anything new|any news|what did i miss|"
    r"(?:show(?: me)?|what are) (?:my )?(?:latest|recent|new) (?:messages|emails|events))"
    r"\s*[?!.]*$",
    re.I,
)
PERIOD = r"(?P<period>today|tonight|tomorrow|this week|next week|the week|this weekend)"
CALENDAR = re.compile(
    r"\b(?:what'?s|what is|anything|is there anything|what do i have)\s+(?:on\s+)?(?:in\s+)?"
    r"(?:my\s+)?(?:calendar|agenda|schedule|diary)\b|"
    r"\b(?:what|which|any) (?:meetings|events|appointments)\b|"
    r"\b(?:when is|when's|what is|what's) my next (?:meeting|event|appointment)\b|"
    rf"^(?:what'?s|what is|anything|what do i have)\s+(?:on\s+|planned\s+|for\s+)?{PERIOD}\b",
    re.I,
)
CALENDAR_PERIOD = re.compile(rf"\b{PERIOD}\b", re.I)
JOBS = re.compile(
    r"^(?:(?:what|which|any|show(?: me)?|list)\s+(?:are\s+)?(?:my\s+)?"
    r"(?:reminders|scheduled (?:jobs|tasks)|jobs)|(?:my\s+)?reminders)"
    r"(?:\s+(?:do i have|have i set|are set|are there))?\s*[?!.]*$",
    re.I,
)
PRONOUNS = ("you", "i", "me", "we", "they", "he", "she", "it", "anyone", "someone", "everyone")


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


@dataclass(frozen=True)
class Lookup:
    """A read-only look-up a question obviously needs: the tool, its arguments, and what the
    answer is about (who for ``search_events``, the period for ``upcoming_calendar``)."""

    tool: str
    arguments: dict[str, object]
    about: str = ""


# Hours of calendar to fetch for each period asked about (the answer keeps only that period).
PERIOD_HOURS = {
    "": 48,
    "today": 24,
    "tomorrow": 48,
    "this week": 24 * 7,
    "next week": 24 * 14,
    "next": 24 * 14,  # "when is my next meeting?": the first one in the next two weeks
}
NEXT_ONE = re.compile(r"\bnext (?:meeting|event|appointment)\b", re.I)


def _period(text: str) -> str:
    if NEXT_ONE.search(text):
        return "next"
    m = CALENDAR_PERIOD.search(text)
    if m is None:
        return ""
    period = m.group("period").lower()
    return {"tonight": "today", "the week": "this week", "this weekend": "this week"}.get(
        period, period
    )


def lookup_request(message: str) -> Lookup | None:
    """A read-only look-up the question obviously needs ("what did Mario write?", "what's on
    my calendar tomorrow?", "any reminders?")."""
    text = " ".join(message.split())
    if WHATS_NEW.match(text):
        return Lookup("search_events", {"query": "", "source": "any", "limit": 5})
    m = WHAT_DID.match(text) or ANY_FROM.match(text)
    if m:
        who = re.sub(r"^(?:me|i|my)\s+", "", m.group("who").strip(), flags=re.I)
        if who and who.lower() not in PRONOUNS:
            return Lookup("search_events", {"query": who[:100], "source": "any", "limit": 5}, who)
    if CALENDAR.search(text):
        period = _period(text)
        return Lookup("upcoming_calendar", {"hours": PERIOD_HOURS[period]}, period)
    if JOBS.match(text):
        return Lookup("list_jobs", {})
    return None


_SURE = (
    r"(?:yes|y|yeah|yep|yup|sure|please|please do|do it|go ahead|confirm(?:ed)?|"
    r"s[ií]|sì|ja|jawohl|oui|sim|claro|certo|natürlich|bien s[uû]r|klopt)"
)
"""An explicit yes on its own, in the languages TIC reads."""
_OK = r"(?:ok|okay|alright|all right|fine|sounds good|correct|right)"
"""A yes on its own or with what to do ("ok, do it"); with thanks ("ok thanks") it only
acknowledges what was said."""
_GO = r"(?:please|please do|do it|do that|do so|add it|go ahead|go for it|yes|confirm(?:ed)?)"
_POLITE = (
    r"(?:please|thanks|thank you|bitte|danke|por favor|gracias|per favore|grazie|merci|"
    r"s'il (?:te|vous) pla[iî]t|obrigad[oa]|alsjeblieft|graag|bedankt)"
)
_NOPE = (
    r"(?:no|n|nope|nah|don[’']?t|do not|cancel|stop|never mind|nevermind|leave it|nein|non|"
    r"não|nao|nee)"
)
_APART = r"[\s,.!]+"
YES = re.compile(
    rf"^(?:{_SURE}(?:{_APART}(?:{_GO}|{_POLITE}))*|{_OK}(?:{_APART}{_GO})*)[\s.!]*$", re.I
)
NO = re.compile(rf"^{_NOPE}(?:{_APART}(?:{_NOPE}|{_POLITE}))*[\s.!]*$", re.I)


def yes_or_no(message: str) -> bool | None:
    """True for an explicit yes (a short affirmation and nothing else: "yes", "yes, add
    it", "sí", "ok, do it"), False for a plain "no", None for anything else: "ok thanks"
    acknowledges, it agrees to nothing."""
    text = " ".join(message.split())
    if YES.match(text):
        return True
    if NO.match(text):
        return False
    return None


GREETING = r"(?:hi|hello|hey|hiya|howdy|good (?:morning|afternoon|evening)|greetings|yo)"
HELP = re.compile(
    rf"^(?:{GREETING}\b[\s,.!]*(?:there\b)?[\s,.!]*)?(?:(?:tic|assistant)\b[\s,.!]*)?"
    r"(?:help(?: me)?|what can (?:you|i) (?:do|ask)(?: here| for me)?|"
    r"what (?:can|could) you help (?:me )?with|what do you do|how do(?:es)? (?:this|you|it) work|"
    r"who are you|what are you)?[\s?!.]*$",
    re.I,
)
THANKS = re.compile(
    r"^(?:(?:ok|okay|alright)[\s,.!]+)?(?:thanks|thank you|thx|cheers|great|perfect|nice|cool)"
    r"\b[\w\s,.!]{0,20}$",
    re.I,
)


def social_request(message: str) -> str | None:
    """ "help" for a greeting or a question about what TIC can do, "thanks" for thanks."""
    text = " ".join(message.split())
    if not text:
        return None
    if HELP.match(text):
        return "help"
    if THANKS.match(text):
        return "thanks"
    return None
