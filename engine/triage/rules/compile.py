"""Compiling rule lines of ``data/notifications.md`` into conditions code can apply.

A rule's words are read against a vocabulary: sources (email, WhatsApp, calendar), who
(names, quoted names, organisations, domains, addresses, categories such as newsletters or
automated tools), where (a named group, group vs direct), @-mentions, subject phrases and
topics, calendar conditions (added today, starts within, recurring, cancelled, moved, in
person vs video) and time windows (hours, weekdays, weekends). "Only ... if ...", "... unless
...", "nothing except ..." rules become a scope and a condition. A rule whose words yield no
condition is left to the model (``understood`` False).

Each clause is read by ``extract.parse_fragment`` (one small extractor per aspect) into a
``match.Match``; this module splits a rule into its clauses and time window.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, time
from functools import lru_cache
from typing import Literal

from engine.clock import CLOCK, DAY_NAMES, rule_clock_time
from engine.events import Event
from engine.tasks import one_line
from engine.triage.rules.extract import QUOTED, parse_fragment
from engine.triage.rules.identity import chat_scope
from engine.triage.rules.match import Match, Window
from engine.triage.rules.parse import ALWAYS, NEVER, Rule, Section, parse_rules

log = logging.getLogger(__name__)

WINDOW = re.compile(rf"\b(?:between|from)\s+{CLOCK}\s*(?:and|to|until|till|-|–)\s*{CLOCK}", re.I)
AFTER = re.compile(rf"\bafter\s+{CLOCK}(?!\s*(?:minutes|hours|days))", re.I)
BEFORE = re.compile(rf"\bbefore\s+{CLOCK}(?!\s*(?:minutes|hours|days))", re.I)
NIGHT = re.compile(r"\b(at night|overnight|during the night|at nighttime)\b", re.I)
WEEKEND = re.compile(r"\b(?:on\s+)?(?:the\s+)?weekends?\b", re.I)
WEEKDAYS = re.compile(r"\b(?:on\s+)?(?:weekdays|work ?days|working days)\b", re.I)


def find_window(text: str) -> tuple[str, Window | None]:
    """Take a time window out of ``text``: hours, night, weekends, weekdays, named days."""
    days: frozenset[int] | None = None
    if WEEKEND.search(text):
        days, text = frozenset({5, 6}), WEEKEND.sub(" ", text)
    elif WEEKDAYS.search(text):
        days, text = frozenset(range(5)), WEEKDAYS.sub(" ", text)
    else:
        unquoted = QUOTED.sub(" ", text)
        day = rf"(?:{'|'.join(DAY_NAMES)})"
        named = re.findall(rf"\bon\s+({day})s?\b|\b({day})s\b", unquoted, re.I)
        if named and not re.search(r"\b(start|starts|starting)\b", text, re.I):
            days = frozenset(DAY_NAMES.index((a or b).lower()) for a, b in named)
            text = re.sub(rf"\bon\s+{day}s?\b|\b{day}s\b", " ", text, flags=re.I)
    text = re.sub(r"\(\s*(?:and|,|\s)*\)", " ", text)
    start = end = None
    m = WINDOW.search(text)
    if m:
        start, end = rule_clock_time(*m.group(1, 2, 3)), rule_clock_time(*m.group(4, 5, 6))
        text = text[: m.start()] + " " + text[m.end() :]
    elif (m := AFTER.search(text)) and not re.search(r"\bstart", text[: m.start()], re.I):
        start, end = rule_clock_time(*m.group(1, 2, 3)), time(0, 0)
        text = text[: m.start()] + " " + text[m.end() :]
    elif (m := BEFORE.search(text)) and not re.search(r"\bstart", text[: m.start()], re.I):
        start, end = time(0, 0), rule_clock_time(*m.group(1, 2, 3))
        text = text[: m.start()] + " " + text[m.end() :]
    elif NIGHT.search(text):
        start, end = time(22, 0), time(7, 0)
        text = NIGHT.sub(" ", text)
    if start is None and days is None:
        return text, None
    if start is None or end is None:
        return text, Window(days=days or frozenset(range(7)))
    if start == end:
        end = time((start.hour + 23) % 24, 59)
    return text, Window(start, end, days if days is not None else frozenset(range(7)))


Action = Literal["notify", "drop", "only"]
"""What a rule does to an event in its scope: notify, drop, or "only" (notify iff its
condition holds and nothing it excludes does)."""


@dataclass(frozen=True)
class CompiledRule:
    rule: Rule
    scope: Match
    action: Action
    condition: Match = field(default_factory=Match)
    negated: Match = field(default_factory=Match)
    window: Window | None = None
    understood: bool = True

    def applies(self, e: Event, now: datetime) -> bool:
        if self.window is not None and not self.window.contains(now.astimezone(e.time.tzinfo)):
            return False
        return self.scope.matches(e, now)

    def verdict(self, e: Event, now: datetime) -> bool:
        """For a rule that applies: notify (True) or drop (False)."""
        if self.action == "notify":
            return True
        if self.action == "drop":
            return False
        ok = self.condition.empty or self.condition.matches(e, now)
        if not self.negated.empty and self.negated.matches(e, now):
            ok = False
        return ok


_NEGATIVE = re.compile(r"\b(never|don'?t|do not|stop|mute|ignore|skip|silence|no)\b", re.I)
_ONLY_VERB = (
    r"(?:notify|tell|alert|ping|show|let|send|bother|interrupt)(?:\s+me)?"
    r"(?:\s+know)?"
)


def _drop_verbs(text: str) -> str:
    return re.sub(
        rf"^\s*(?:for\s+)?(?:always\s+|never\s+|please\s+|only\s+)?(?:{_ONLY_VERB}\b)?\s*"
        r"(?:about\b|of\b|for\b)?\s*",
        " ",
        text,
        flags=re.I,
    )


def _condition(text: str) -> tuple[Match, Match]:
    """A condition clause and what it excludes: "in person, not video calls"; extra
    sentences that ignore something ("Ignore video calls.") are exclusions too."""
    sentences = [s for s in re.split(r"(?<=[.;!])\s+", text.strip()) if s.strip()]
    first, rest = (sentences[0], sentences[1:]) if sentences else ("", [])
    negated = Match()
    neg = re.search(
        r"(?:,\s*|\s+|\()(?:but\s+)?not\s+(?:from\s+|for\s+|when\s+|about\s+)?"
        r"(?:it'?s\s+)?(?:an?\s+|the\s+)?(.+)$",
        first,
        re.I,
    )
    if neg:
        negated = parse_fragment(neg.group(1))
        first = first[: neg.start()]
    for sentence in rest:
        if re.match(r"^\s*(ignore|skip|not|never|no|don'?t|exclude)\b", sentence, re.I):
            extra = parse_fragment(re.sub(r"^\s*\w+'?\w*\s+", "", sentence))
            if negated.empty:
                negated = extra
    return parse_fragment(first), negated


def _split_restrictive(text: str) -> tuple[str, str, bool] | None:
    """(scope, condition, condition_is_exclusion) for only/unless/except rules."""
    body = text.strip(" ,")
    m = re.match(rf"^(.*?)\bonly\s+{_ONLY_VERB}\s*(?:about|of|for|when|if)?\s*(.*)$", body, re.I)
    if m:
        before, rest = m.group(1), m.group(2)
        c = re.search(r"\b(?:if|when|that|which|who|where|as long as)\b", rest, re.I)
        if c and not before.strip(" ,:"):
            return rest[: c.start()], rest[c.end() :], False
        return before, rest, False
    m = re.search(r"\bonly\s+(?:if|when|that|who|where|as long as)\b", body, re.I)
    if m:
        return body[: m.start()], body[m.end() :], False
    m = re.search(
        r"\b(?:nothing|no notifications?|none)\s+(?:except|but|other than)\b|"
        r"\bexcept(?:\s+for)?\b",
        body,
        re.I,
    )
    if m:
        return body[: m.start()], body[m.end() :], False
    m = re.search(r"\bunless\b", body, re.I)
    if m:
        scope = body[: m.start()]
        # "ignore X unless Y" keeps X only when Y; "tell me about X unless Y" drops X when Y
        return scope, body[m.end() :], not _NEGATIVE.search(scope)
    m = re.search(r"\bonly\b", body, re.I)
    if m:
        return body[: m.start()], body[m.end() :], False
    return None


_RESTATED_DEFAULT = re.compile(
    r"[;,.]\s*(?:all\s+|any\s+)?(?:other|the other|the rest|everything else|anything else)\b"
    r"[^;.]*\b(?:skip|ignore|ignored|drop|mute|don'?t|not needed|no need)\b[^;.]*",
    re.I,
)


def compile_rule(rule: Rule) -> CompiledRule:
    section = rule.section
    identity = chat_scope(rule.text)  # one chat by its id, as "Don't notify me" writes it
    if identity is not None:
        return CompiledRule(rule, identity, "drop" if section == NEVER else "notify")
    # "...; other group messages are fine to skip" restates what not matching means
    text = _RESTATED_DEFAULT.sub("", rule.text).strip() or rule.text
    if section in (NEVER, ALWAYS):
        rest, window = find_window(text)
        scope = parse_fragment(_drop_verbs(rest))
        action: Action = "drop" if section == NEVER else "notify"
        return CompiledRule(rule, scope, action, window=window, understood=scope.says_something)
    split = _split_restrictive(text)
    if split is None:
        rest, window = find_window(text)
        action = "drop" if _NEGATIVE.search(rest) else "notify"
        scope = parse_fragment(_drop_verbs(re.sub(_NEGATIVE, " ", rest)))
        return CompiledRule(rule, scope, action, window=window, understood=scope.says_something)
    scope_text, cond_text, exclusion = split
    scope_text, window = find_window(scope_text)
    cond_text, cond_window = find_window(cond_text)
    scope = parse_fragment(_drop_verbs(re.sub(_NEGATIVE, " ", scope_text)))
    condition, negated = _condition(_drop_verbs(cond_text))
    if cond_window is not None:
        condition = replace(condition, within=cond_window)
    if exclusion:
        condition, negated = Match(), condition
    if not scope.says_something:
        scope = Match(anything=True)
    understood = condition.says_something or negated.says_something
    return CompiledRule(rule, scope, "only", condition, negated, window, understood)


@lru_cache(maxsize=512)
def _compile_cached(section: Section, text: str, line: int) -> CompiledRule:
    return compile_rule(Rule(section, text, line))


def compile_rules(rules: list[Rule]) -> list[CompiledRule]:
    """Compiled once per distinct rule line, so an edited file costs only its new lines. A
    line the compiler fails on is reported and skipped: the rest of the file still applies."""
    compiled = []
    for r in rules:
        try:
            compiled.append(_compile_cached(r.section, r.text, r.line_number))
        except Exception as exc:
            log.error("rules line %d cannot be read, skipped: %s", r.line_number, one_line(exc))
    return compiled


@lru_cache(maxsize=32)
def _compile_text(digest: str, text: str) -> tuple[CompiledRule, ...]:
    parsed = parse_rules(text)
    for problem in parsed.skipped:  # logged once per version of the file
        log.error("rules %s", problem)
    return tuple(compile_rules(parsed.rules))


def compile_rules_text(text: str) -> list[CompiledRule]:
    """The compiled rules of a whole rules file, cached by its content hash: an unchanged
    file is not parsed again, an edited one takes effect on the next tick."""
    return list(_compile_text(hashlib.sha256(text.encode("utf-8")).hexdigest(), text))
