"""Deciding an event by the user's compiled rules, in DESIGN.md's order: Never is a hard
filter; Always surfaces unless clearly spam; custom rules apply strictly; when no rule
matches, the built-in heuristics decide. Conflicts resolve the same way every time and the
reason says so."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from engine.events import Event
from engine.triage.classifier import categories, is_spam
from engine.triage.rules.compile import CompiledRule
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER

SOON = timedelta(days=7)


@dataclass(frozen=True)
class PolicyDecision:
    notify: bool
    reason: str
    rule: str | None
    by: str  # never | always | custom | heuristic


def decide_by_rules(
    event: Event, now: datetime, rules: list[CompiledRule]
) -> PolicyDecision | None:
    """The decision of the first rule section that has a say, or None (heuristics next)."""
    applying = [r for r in rules if r.understood and r.applies(event, now)]
    never = [r for r in applying if r.rule.section == NEVER]
    always = [r for r in applying if r.rule.section == ALWAYS]
    if never:
        reason = f"matches the Never rule \u201c{never[0].rule.text}\u201d"
        if always:
            reason += (
                f" (it also matches the Always rule \u201c{always[0].rule.text}\u201d; "
                "Never wins: it is a hard filter)"
            )
        return PolicyDecision(False, reason, never[0].rule.text, NEVER)
    if always:
        if is_spam(event):
            return PolicyDecision(
                False, "matches an Always rule but is clearly spam", always[0].rule.text, ALWAYS
            )
        return PolicyDecision(
            True,
            f"matches the Always rule \u201c{always[0].rule.text}\u201d",
            always[0].rule.text,
            ALWAYS,
        )
    custom = [r for r in applying if r.rule.section == CUSTOM]
    verdicts = [(r, r.verdict(event, now)) for r in custom]
    for rule, ok in verdicts:  # a custom rule that says no wins over one that says yes
        if not ok:
            return PolicyDecision(False, _custom_reason(rule, False), rule.rule.text, CUSTOM)
    for rule, ok in verdicts:
        if ok:
            return PolicyDecision(True, _custom_reason(rule, True), rule.rule.text, CUSTOM)
    return None


def _custom_reason(rule: CompiledRule, ok: bool) -> str:
    if rule.action == "only":
        verb = "meets" if ok else "does not meet"
        return f"{verb} the condition of the custom rule \u201c{rule.rule.text}\u201d"
    return f"the custom rule \u201c{rule.rule.text}\u201d says to {'notify' if ok else 'drop'} it"


def heuristic(event: Event, now: datetime) -> PolicyDecision:
    """TIC's built-in judgement when no rule decides (AGENT.md's heuristics, in code)."""

    def say(notify: bool, reason: str) -> PolicyDecision:
        return PolicyDecision(notify, reason, None, "heuristic")

    if event.source == "cron":
        return say(True, "a reminder the user set up")
    if event.source == "email":
        cats = categories(event)
        if is_spam(event):
            return say(False, "spam")
        for cat, reason in (
            ("promotion", "marketing or a promotion"),
            ("newsletter", "a newsletter or digest"),
            ("social", "a social network notification"),
            ("shipping", "an automated shipping notice"),
            ("receipt", "a receipt or order confirmation"),
            ("automated", "an automated notice"),
            ("bulk", "bulk mail"),
        ):
            if cat in cats:
                return say(False, reason)
        who = event.sender.name or event.sender.address if event.sender else "someone"
        return say(True, f"{who} wrote to the user directly")
    if event.source == "whatsapp":
        who = event.sender.name if event.sender and event.sender.name else "someone"
        if event.chat is not None and event.chat.is_group:
            if event.mentions_me:
                return say(True, f"{who} mentioned the user in a group")
            return say(False, "group chatter that does not mention the user")
        return say(True, f"a direct WhatsApp message from {who}")
    cal = event.calendar
    start = cal.start if cal else None
    soon = start is not None and now - timedelta(hours=1) <= start <= now + SOON
    if event.event_type == "calendar.reminder":
        if cal is not None and cal.recurring:
            return say(False, "a reminder for a recurring event the user already knows")
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
