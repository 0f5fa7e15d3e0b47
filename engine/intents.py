"""Recognising a notification-preference change in what the user says ("stop telling me
about group chats", "notify me when I get an email from Mario", "only tell me about X if Y")
and turning it into a well-formed rule for the right section, so the change works the same
with any model. Anything not recognised is left to the main agent."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.rules import ALWAYS, CUSTOM, NEVER

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
