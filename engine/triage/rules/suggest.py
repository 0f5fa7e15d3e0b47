"""Suggestions for a line read only in part: the nearest readings that account for the
words left over, for the user to accept with one click (or "yes" in the chat).

What a line's words left unread usually are is a sender the reader does not know ("Correos
de la tintorería": from someone called “tintorería”) or a topic ("Emails where someone
thanks me": mentioning “thanks”). So each flagged line gets those two readings, made from
its partial reading plus the unread words, each in plain words. The one the user accepts
is kept beside the rules file (``data/notifications.confirmed.json``, by the line as
written), so the file stays the user's words; a line edited since has no accepted reading.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from engine.triage.classifier.text import fold
from engine.triage.rules.compile import CompiledRule
from engine.triage.rules.match import Match

Kind = Literal["sender", "topic"]
KINDS: tuple[Kind, ...] = ("sender", "topic")


@dataclass(frozen=True)
class RuleSuggestion:
    """A suggestion as the front ends show it: for which line, of which kind, and the
    line's reading with it, in plain words."""

    line_number: int
    line: str
    kind: Kind
    reading: str


@dataclass(frozen=True)
class Suggestion:
    kind: Kind
    rule: CompiledRule
    """The line as it would be read with the suggestion."""


def _scope(rule: CompiledRule, kind: Kind) -> Match:
    words = rule.unread
    base = replace(rule.scope.read_part, anything=False) if not rule.catch_all else rule.scope
    base = replace(base, any_of=tuple(m.read_part for m in base.any_of))
    if kind == "sender":
        return replace(base, names=(*base.names, " ".join(words)))
    topics = tuple(fold(w) for w in words)
    return replace(base, topics=base.topics + topics, topic_min=max(1, len(topics)))


def suggest(rule: CompiledRule) -> list[Suggestion]:
    """The readings offered for a line read only in part (none for any other line)."""
    if rule.understood or not rule.unread or rule.read_by != "code":
        return []
    out = []
    for kind in KINDS:
        if kind == "sender" and rule.scope.has_who():
            continue  # a name beside "a person" would be one more sender, not a narrower one
        scope = _scope(rule, kind)
        read = replace(
            rule,
            scope=scope,
            exclusions=tuple(x for x in rule.exclusions if not x.empty),
            understood=True,
            problem=None,
            unread=(),
            read_by="user",
        )
        out.append(Suggestion(kind, read))
    return out


def with_accepted(compiled: list[CompiledRule], accepted: dict[str, str]) -> list[CompiledRule]:
    """``compiled`` with each line the user accepted a suggestion for read that way."""
    out = []
    for rule in compiled:
        kind = accepted.get(rule.rule.text)
        chosen = [s.rule for s in suggest(rule) if s.kind == kind] if kind else []
        out.append(chosen[0] if chosen else rule)
    return out
